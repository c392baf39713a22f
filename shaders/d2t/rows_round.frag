#version 430 core
// Step 10 (T), one active-set round (SkinResponse::roundRows): with the core's change dv
// of the last round, the active rows take lambda_k = (b_k - U_k . dv) / D_k; below lo they
// leave the set at lo (one-sided). Then the terms of the round's sums over the set as it
// is: S = sum_active U U^T / D (its 21 entries of the upper triangle, row by row), rhs =
// sum_active U b / D + sum_out U lambda, and the count of rows below lo.
#include "rows_common.glsl"

uniform sampler2D uU, uV, uS;  // the rows (rows.frag) and their state
uniform float uDv[6];
uniform bool uHaveDv, uOneSided;

layout(location = 0) out vec4 oS;
layout(location = 1) out vec4 oT[7];

void main() {
  oS = vec4(0.0);
  for (int t = 0; t < 7; ++t) oT[t] = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 p = rowTexel(k);
  vec4 a = texelFetch(uU, p, 0), v = texelFetch(uV, p, 0), st = texelFetch(uS, p, 0);
  float U[6] = float[6](a.x, a.y, a.z, a.w, v.x, v.y);
  float D = v.z, b = v.w, lambda = st.x, lo = rowIn(k, 3).x;
  bool inSet = st.y > 0.5;
  float below = 0.0;
  if (inSet && uHaveDv) {
    float udv = 0.0;
    for (int j = 0; j < 6; ++j) udv += U[j] * uDv[j];
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
  float t[28];
  int e = 0;
  for (int i = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j) t[e++] = inSet ? U[i] * U[j] / D : 0.0;
  float f = inSet ? b / D : lambda;
  for (int i = 0; i < 6; ++i) t[21 + i] = U[i] * f;
  t[27] = below;
  for (int q = 0; q < 7; ++q) oT[q] = vec4(t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
}
