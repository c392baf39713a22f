#version 430 core
// Step 10 (T), one active-set round (SkinResponse::roundRows): with the core's change dv
// of the last round, the active rows take lambda_k = (b_k - U_k . dv) / D_k; below lo they
// leave the set at lo (one-sided). Then the terms of the round's sums over the set as it
// is: S = sum_active U U^T / D (its 21 entries of the upper triangle, row by row), rhs =
// sum_active U b / D + sum_out U lambda, and the count of rows below lo (the packing:
// layout.glsl, D2T_ROUND_*).
#include "rows_common.glsl"

uniform sampler2D uU, uV, uS;  // the rows (rows.frag) and their state
uniform float uDv[D2T_CORE_DOFS];
uniform bool uHaveDv, uOneSided;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_ROUND_OUTPUTS];
#define oS o[D2T_ROUND_STATE]

void main() {
  oS = vec4(0.0);
  for (int t = 0; t < D2T_ROUND_TERM_OUTPUTS; ++t) o[D2T_ROUND_TERMS + t] = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 p = rowTexel(k);
  vec4 a = texelFetch(uU, p, 0), v = texelFetch(uV, p, 0), st = texelFetch(uS, p, 0);
  float U[D2T_CORE_DOFS] = float[D2T_CORE_DOFS](a.x, a.y, a.z, a.w, v.x, v.y);
  float D = v.z, b = v.w, lambda = st.x, lo = rowIn(k, D2T_ROW_IN_LIMITS).x;
  bool inSet = st.y > 0.5;
  float below = 0.0;
  if (inSet && uHaveDv) {
    float udv = 0.0;
    for (int j = 0; j < D2T_CORE_DOFS; ++j) udv += U[j] * uDv[j];
    lambda = (b - udv) / D;
    if (lambda < lo) {
      below = 1.0;
      if (uOneSided) {
        inSet = false;
        lambda = lo;
      }
    }
  }
  oS = vec4(lambda, inSet ? 1.0 : 0.0, st.z, 0.0);
  float t[D2T_ROUND_TERM_COUNT];
  int e = D2T_ROUND_S;
  for (int i = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j) t[e++] = inSet ? U[i] * U[j] / D : 0.0;
  float f = inSet ? b / D : lambda;
  for (int i = 0; i < 6; ++i) t[D2T_ROUND_RHS + i] = U[i] * f;
  t[D2T_ROUND_BELOW] = below;
  for (int q = 0; q < D2T_ROUND_TERM_OUTPUTS; ++q) o[D2T_ROUND_TERMS + q] = vec4(t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
}
