#version 430 core
// Step 9 (T): the skin-state parts of the condensation sums of the contact response,
// Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ec(i) (LayeredBody::respond). With
// u = ub + q and H_i = m_i^2 Mh_i^-1, the CPU holds the rest-shape parts in double
// and this pass sums the rest, per node:
//   H [q]x,  [ub]x H [q]x  (rows .xyz; locations: layout.glsl, D2T_CONDENSE_*),
//   [q]x H [q]x            (symmetric: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2) in the six .w).
#include "common.glsl"

uniform sampler2D uQ;
uniform sampler2DArray uHinv;

layout(location = 0) out vec4 oRow[D2T_CONDENSE_OUTPUTS];

mat3 skew(vec3 v) { return mat3(0.0, v.z, -v.y, -v.z, 0.0, v.x, v.y, -v.x, 0.0); }
vec3 row(mat3 m, int r) { return vec3(m[0][r], m[1][r], m[2][r]); }

void main() {
  for (int k = 0; k < D2T_CONDENSE_OUTPUTS; ++k) oRow[k] = vec4(0.0);
  if (!beginTexel() || gWeight == 0.0) return;
  mat3 h = transpose(mat3(texelFetch(uHinv, ivec3(gSrc, 0), 0).xyz, texelFetch(uHinv, ivec3(gSrc, 1), 0).xyz,
                          texelFetch(uHinv, ivec3(gSrc, 2), 0).xyz)) * (gMass * gMass);
  mat3 qx = skew(at(uQ, gSrc));
  mat3 hq = h * qx;
  mat3 bhq = skew(gRestPos) * hq;
  mat3 qhq = qx * hq;
  float sym[6] = float[6](qhq[0][0], qhq[1][0], qhq[2][0], qhq[1][1], qhq[2][1], qhq[2][2]);
  for (int k = 0; k < 3; ++k) {
    oRow[D2T_CONDENSE_HQ + k] = vec4(row(hq, k), sym[k]);
    oRow[D2T_CONDENSE_BHQ + k] = vec4(row(bhq, k), sym[3 + k]);
  }
}
