#version 430 core
// Contact camera, passes 4-5 (Fig. 3.11): each node of one body's patch (one
// point each, contact_map.vert) is projected into the contact texture with the
// camera's texture matrix. It may collide when the triangle drawn there on its
// own side is one of the node's own triangles (an occluded node is not on the
// contact surface); it does when its own exact height h = n . x overlaps the
// other surface's height there, or comes within uMargin of it (a negative depth:
// resting contacts keep their rows).
// The other surface's height is taken on its triangle that covers the node's
// exact position, found among the triangles drawn at the node's texel and its
// eight neighbours (the first met along the node's way, as the CPU reference's
// ray cast): D at a texel centre would be off by the slope times half a texel,
// and a blend of texels by the change of slope across a crease (a fist's
// knuckles).
#include "layout.glsl"

uniform isampler2DArray uTriangles;  // the triangles around the node (layout.glsl: D2T_AROUND_LAYERS)
uniform isampler2D uIds;             // the patch triangles drawn at each texel (A, B; -1: none)
uniform isamplerBuffer uOwnIds;      // this side's patch triangles: their ids among the body's
uniform isamplerBuffer uOtherIds;    // the other side's
uniform usamplerBuffer uOtherIndex;  // the other side's patch triangles: their 3 nodes in uOtherPosition
uniform samplerBuffer uOtherPosition;  // the other side's patch nodes, world [m]
uniform int uSide;                   // 0: body A (ids.x; A lies below B along n), 1: body B (ids.y)
uniform vec3 uT1, uT2, uN;
uniform vec2 uLo, uHi;
uniform int uResolution;             // D is uResolution^2
uniform float uMargin;               // nodes this far outside the other skin are reported too [m]

layout(location = 0) out vec4 oContact;  // (layout.glsl: D2T_MAP_*)
layout(location = 1) out int oOther;     // the other side's triangle at the node (its id)

in vec3 vPosition;     // the node's world position
flat in ivec2 vTexel;  // its atlas texel

void main() {
  oContact = vec4(0.0);
  oOther = -1;
  vec3 x = vPosition;
  vec2 q = vec2(dot(uT1, x), dot(uT2, x));
  vec2 p = (q - uLo) / (uHi - uLo) * float(uResolution);
  ivec2 c = ivec2(floor(p));
  if (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, ivec2(uResolution)))) return;
  ivec2 ids = texelFetch(uIds, c, 0).xy;
  int local = uSide == 0 ? ids.x : ids.y;
  if (local < 0) return;
  int mine = texelFetch(uOwnIds, local).x;
  bool onOwnTriangle = false;
  for (int layer = 0; layer < D2T_AROUND_LAYERS; ++layer)
    onOwnTriangle = onOwnTriangle || any(equal(texelFetch(uTriangles, ivec3(vTexel, layer), 0), ivec4(mine)));
  if (!onOwnTriangle) return;
  // the other side's triangle under the node (side A looks along +n: the lowest
  // height of B's; side B along -n: the highest of A's)
  float best = 0.0;
  int found = -1;
  vec2 bary = vec2(0.0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      ivec2 cc = clamp(c + ivec2(dx, dy), ivec2(0), ivec2(uResolution - 1));
      ivec2 qi = texelFetch(uIds, cc, 0).xy;
      int t = uSide == 0 ? qi.y : qi.x;
      if (t < 0) continue;
      vec3 v0 = texelFetch(uOtherPosition, int(texelFetch(uOtherIndex, 3 * t).x)).xyz;
      vec3 v1 = texelFetch(uOtherPosition, int(texelFetch(uOtherIndex, 3 * t + 1).x)).xyz;
      vec3 v2 = texelFetch(uOtherPosition, int(texelFetch(uOtherIndex, 3 * t + 2).x)).xyz;
      vec2 p0 = vec2(dot(uT1, v0), dot(uT2, v0));
      vec2 e0 = vec2(dot(uT1, v1), dot(uT2, v1)) - p0, e1 = vec2(dot(uT1, v2), dot(uT2, v2)) - p0, r = q - p0;
      float det = e0.x * e1.y - e0.y * e1.x;
      if (abs(det) < 1e-20) continue;
      float u = (r.x * e1.y - r.y * e1.x) / det, v = (e0.x * r.y - e0.y * r.x) / det;
      const float eps = 1e-5;  // (float rounding along shared edges)
      if (u < -eps || v < -eps || u + v > 1.0 + eps) continue;
      float h = (1.0 - u - v) * dot(uN, v0) + u * dot(uN, v1) + v * dot(uN, v2);
      if (found < 0 || (uSide == 0 ? h < best : h > best)) {
        best = h;
        found = t;
        bary = vec2(u, v);
      }
    }
  if (found < 0) return;
  float own = dot(uN, x);
  float depth = uSide == 0 ? own - best : best - own;
  if (depth <= -uMargin) return;
  oContact[D2T_MAP_DEPTH] = depth;
  oContact[D2T_MAP_HIT] = 1.0;
  oContact[D2T_MAP_BARY_U] = bary.x;
  oContact[D2T_MAP_BARY_V] = bary.y;
  oOther = texelFetch(uOtherIds, found).x;
}
