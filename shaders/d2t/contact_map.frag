#version 430 core
// Contact camera, passes 4-5 (Fig. 3.11): each node of one body's patch (one
// point each, contact_map.vert) is projected into the contact texture with the
// camera's texture matrix. It
// may collide when the triangle drawn there on its own side is one of the
// node's own triangles (an occluded node is not on the contact surface); it
// does when its own exact height h = n . x overlaps the other skin's height,
// interpolated bilinearly over that side's texels (valid ones only), or comes
// within uMargin of it (a negative depth: resting contacts keep their rows). D's
// texels are finer than the atlas, but D itself at a texel centre would be off
// by the slope times half a texel at the node.
uniform isampler2DArray uTriangles;  // layers 0-1: up to 8 triangles around the node (-1: none)
uniform isampler2D uIds;
uniform sampler2D uOtherH;           // the other side's height texture
uniform int uSide;                   // 0: body A (ids.x; A lies below B along n), 1: body B (ids.y)
uniform vec3 uT1, uT2, uN;
uniform vec2 uLo, uHi;
uniform int uResolution;             // D is uResolution^2
uniform float uMargin;               // nodes this far outside the other skin are reported too [m]

layout(location = 0) out vec2 oContact;  // (depth, 1 when colliding)
layout(location = 1) out int oOther;     // the other side's triangle at the node

in vec3 vPosition;     // the node's world position
flat in ivec2 vTexel;  // its atlas texel

void main() {
  oContact = vec2(0.0);
  oOther = -1;
  ivec2 texel = vTexel;
  vec4 x = vec4(vPosition, 1.0);
  vec2 p = (vec2(dot(uT1, x.xyz), dot(uT2, x.xyz)) - uLo) / (uHi - uLo) * float(uResolution);
  ivec2 c = ivec2(floor(p));
  if (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, ivec2(uResolution)))) return;
  ivec2 ids = texelFetch(uIds, c, 0).xy;
  int mine = uSide == 0 ? ids.x : ids.y;
  ivec4 t0 = texelFetch(uTriangles, ivec3(texel, 0), 0), t1 = texelFetch(uTriangles, ivec3(texel, 1), 0);
  if (mine < 0 || !(any(equal(t0, ivec4(mine))) || any(equal(t1, ivec4(mine))))) return;
  // the other skin's height at p: bilinear over the texels where it was drawn
  vec2 f = p - 0.5;
  ivec2 i0 = ivec2(floor(f));
  vec2 w = f - vec2(i0);
  float h = 0.0, wsum = 0.0;
  for (int dy = 0; dy <= 1; ++dy)
    for (int dx = 0; dx <= 1; ++dx) {
      ivec2 q = clamp(i0 + ivec2(dx, dy), ivec2(0), ivec2(uResolution - 1));
      ivec2 qi = texelFetch(uIds, q, 0).xy;
      if ((uSide == 0 ? qi.y : qi.x) < 0) continue;
      float wk = (dx == 1 ? w.x : 1.0 - w.x) * (dy == 1 ? w.y : 1.0 - w.y);
      h += wk * texelFetch(uOtherH, q, 0).x;
      wsum += wk;
    }
  if (wsum <= 0.0) return;
  h /= wsum;
  float own = dot(uN, x.xyz);
  float depth = uSide == 0 ? own - h : h - own;
  if (depth <= -uMargin) return;
  oContact = vec2(depth, 1.0);
  oOther = uSide == 0 ? ids.y : ids.x;
}
