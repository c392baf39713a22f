// The multigrid's passes (src/gpu/skin/gpu_multigrid.h): a V-cycle of the smoothed-
// aggregation hierarchy that MultigridPreconditioner builds on the CPU (its reference).
//
// A level's vectors are RGBA32F textures in one of two layouts: the atlas (level 0: a
// node at its node texel, every pass evaluated at the node texel each texel holds, so
// the gutters are filled) or compact (a coarse level: node j at (j mod W, j div W)).
// A sparse matrix of 3x3 blocks is three storage buffers in compressed rows: its rows
// by the output layout's texel index (empty rows off nodes), its columns the texel
// indices of the nodes in the input layout, and three vec4 (the block's rows) per block.
#include "common.glsl"

uniform int uAtlas;     // 1: the output layout is the atlas (else compact)
uniform int uOutWidth;  // the output layout's width
uniform int uInWidth;   // the input vectors' layout width

layout(std430, binding = 0) readonly buffer MgStart { int mgStart[]; };    // (texels + 1) a row's first block
layout(std430, binding = 1) readonly buffer MgColumn { int mgColumn[]; };  // (blocks) input texel index
layout(std430, binding = 2) readonly buffer MgBlock { vec4 mgBlock[]; };   // (3 blocks) a block's rows
layout(std430, binding = 3) readonly buffer MgDiag { vec4 mgDiag[]; };     // (3 texels) rows of A_ii^-1

ivec2 gMgPixel;  // the texel whose row this fragment computes (the held node's texel on the atlas)

// The row of this fragment (its output texel index), -1 where it holds no node.
int mgRow() {
  gMgPixel = ivec2(gl_FragCoord.xy);
  if (uAtlas != 0) {
    if (!beginTexel()) return -1;
    gMgPixel = gSrc;
  }
  return gMgPixel.y * uOutWidth + gMgPixel.x;
}

// A vector of the input layout at texel index `index`.
vec3 mgAt(sampler2D t, int index) { return texelFetch(t, ivec2(index % uInWidth, index / uInWidth), 0).xyz; }

// Row `row` of the bound matrix times x.
vec3 mgRowTimes(int row, sampler2D x) {
  vec3 s = vec3(0.0);
  for (int k = mgStart[row]; k < mgStart[row + 1]; ++k) {
    vec3 v = mgAt(x, mgColumn[k]);
    s += vec3(dot(mgBlock[3 * k].xyz, v), dot(mgBlock[3 * k + 1].xyz, v), dot(mgBlock[3 * k + 2].xyz, v));
  }
  return s;
}

// A_ii^-1 v for row `row`.
vec3 mgDiagTimes(int row, vec3 v) {
  return vec3(dot(mgDiag[3 * row].xyz, v), dot(mgDiag[3 * row + 1].xyz, v), dot(mgDiag[3 * row + 2].xyz, v));
}
