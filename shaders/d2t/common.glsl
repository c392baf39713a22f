// Shared by the per-texel D2T passes (DDT paper sec. 6, dissertation 3.5).
//
// Texel (x, y) of an N x N atlas is node texel, gutter texel or unused
// (src/sim/model/atlas.h). uSource maps every texel to the node texel whose value it
// holds: a node to itself, a gutter texel to its source node across the patch
// seam, an unused texel to (-1, -1). Every pass evaluates its program at that
// source texel, so the gutters of its outputs are filled in the same pass (the
// "gutter fill" of the paper, done by sampling the adjacent patch), and the
// stencil passes that read them find every node's 6 mesh neighbours.
// Reduction terms are written by node texels only (gWeight = 0 on gutters).

#include "layout.glsl"

uniform sampler2D uRest;     // (ub, m): rest skin position (body frame) [m], node mass [kg] (layout.glsl)
uniform isampler2D uSource;  // xy: node texel held by this texel, (-1, -1) for none

ivec2 gPixel;    // this texel
ivec2 gSrc;      // the node texel it holds
float gWeight;   // 1 on node texels, 0 on gutter copies (reduction terms)
float gMass;     // m_i of the held node
vec3 gRestPos;   // ub_i of the held node

// Sets the globals above; false for texels that hold no node (write zeros there).
bool beginTexel() {
  gPixel = ivec2(gl_FragCoord.xy);
  gSrc = texelFetch(uSource, gPixel, 0).xy;
  if (gSrc.x < 0) return false;
  gWeight = gSrc == gPixel ? 1.0 : 0.0;
  vec4 rest = texelFetch(uRest, gSrc, 0);
  gMass = rest[D2T_REST_MASS];
  gRestPos = rest.xyz;
  return true;
}

vec3 at(sampler2D t, ivec2 p) { return texelFetch(t, p, 0).xyz; }

// The texel offset of stencil slot k (layout.glsl).
const int kStencilDx[D2T_STENCIL_SLOTS] = int[D2T_STENCIL_SLOTS](D2T_STENCIL_DX);
const int kStencilDy[D2T_STENCIL_SLOTS] = int[D2T_STENCIL_SLOTS](D2T_STENCIL_DY);
ivec2 stencilOffset(int k) { return ivec2(kStencilDx[k], kStencilDy[k]); }

// Row r of the 3x3 block stored as rows in layers base + 0..2 of a texture array.
vec3 blockTimes(sampler2DArray blocks, int base, ivec2 p, vec3 v) {
  return vec3(dot(texelFetch(blocks, ivec3(p, base), 0).xyz, v),
              dot(texelFetch(blocks, ivec3(p, base + 1), 0).xyz, v),
              dot(texelFetch(blocks, ivec3(p, base + 2), 0).xyz, v));
}
