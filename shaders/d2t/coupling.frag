#version 430 core
// Step 3 (reduction terms): the parts of M_ce y and M_ce Y that depend on the
// skin state. With u = ub + q and the cached columns W_t = Mt^-1 [m I],
// W_r = Mt^-1 [-m [ub]x], y = y' + W_t R^T g, Y_t = W_t R^T,
// Y_r = W_r - m Mh^-1 [q x e_k] (src/sim/body/implicit_solve.cpp, free_update.cpp), the constant
// parts (sums over ub, W_t, W_r) are summed once on the CPU in double; here:
//   pass A (uPart = 0): m y', m u x y', m q x W_t[j] (j = 0..2), m q x W_r[k] (k = 0..2)
//   pass B (uPart = 1): m^2 h_k, m^2 u x h_k with h_k = Mh^-1 (q x e_k), k = 0..2
// (locations: layout.glsl, D2T_COUPLING_*)
#include "common.glsl"

uniform sampler2D uQ, uY;
uniform sampler2DArray uWt, uWr;  // layer j: column j
uniform sampler2DArray uHinv;
uniform int uPart;

layout(location = 0) out vec4 o[D2T_COUPLING_OUTPUTS];

void main() {
  for (int k = 0; k < D2T_COUPLING_OUTPUTS; ++k) o[k] = vec4(0.0);
  if (!beginTexel()) return;
  vec3 q = at(uQ, gSrc), u = gRestPos + q;
  float w = gWeight * gMass;
  if (uPart == 0) {
    vec3 y = at(uY, gSrc);
    o[D2T_COUPLING_MY] = vec4(w * y, 0.0);
    o[D2T_COUPLING_MUXY] = vec4(w * cross(u, y), 0.0);
    for (int j = 0; j < 3; ++j) {
      o[D2T_COUPLING_QXWT + j] = vec4(w * cross(q, texelFetch(uWt, ivec3(gSrc, j), 0).xyz), 0.0);
      o[D2T_COUPLING_QXWR + j] = vec4(w * cross(q, texelFetch(uWr, ivec3(gSrc, j), 0).xyz), 0.0);
    }
  } else {
    for (int k = 0; k < 3; ++k) {
      vec3 e = vec3(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0);
      vec3 h = blockTimes(uHinv, 0, gSrc, cross(q, e));
      o[D2T_COUPLING_H + k] = vec4(w * gMass * h, 0.0);
      o[D2T_COUPLING_UXH + k] = vec4(w * gMass * cross(u, h), 0.0);
    }
  }
}
