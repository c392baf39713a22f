#version 430 core
// out = uScaleK (K_e x)_i + uScaleM m_i x_i + uScaleAdd addend_i, with the
// 7-block stencil of K_e (Fragment Programs E.1-E.2: self + the neighbours at
// (0,+1) (+1,0) (+1,-1) (0,-1) (-1,0) (-1,+1)). Mt_e x = (dt beta + dt^2) K_e x
// + (1 + dt alpha) M_e x. Second output: x_i . out_i (for p^T Mt p in CG).
#include "common.glsl"

uniform sampler2D uX;
uniform sampler2D uAddend;
uniform sampler2DArray uK;  // layer D2T_BLOCK_LAYER(k, r): row r of the block of stencil slot k
uniform float uScaleK, uScaleM, uScaleAdd;

layout(location = 0) out vec4 oResult;
layout(location = 1) out vec4 oDot;

void main() {
  if (!beginTexel()) {
    oResult = vec4(0.0);
    oDot = vec4(0.0);
    return;
  }
  vec3 kx = vec3(0.0);
  for (int k = 0; k < D2T_STENCIL_SLOTS; ++k)
    kx += blockTimes(uK, D2T_BLOCK_LAYER(k, 0), gSrc, at(uX, gSrc + stencilOffset(k)));
  vec3 x = at(uX, gSrc);
  vec3 r = uScaleK * kx + uScaleM * gMass * x + uScaleAdd * at(uAddend, gSrc);
  oResult = vec4(r, 0.0);
  oDot = vec4(gWeight * dot(x, r), 0.0, 0.0, 0.0);
}
