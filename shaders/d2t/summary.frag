#version 430 core
// The skin summary (SkinSummary, LayeredBody::summarize): the terms of the whole-skin
// sums and extremes of the state (q, qdot), u = ub + q, body frame. Sums (only the
// state's parts: the rest shape's are summed once in double on the CPU):
//   0: m q, m |qdot|^2         1: m qdot, q . (K q) / 2 (the 7-block stencil of stencil.frag)
//   2: m u x qdot              3: m (u u^T - ub ub^T) diagonal, xy    4: xz, yz
// Maxima (reduce.frag's max mode; texels without a node write the lowest float):
//   5: |q|, |q| / thickness, |qdot|, -up . u      6: 1 where q or qdot is not finite
// A node whose state is not finite writes 0 into 5 (a max of NaNs is undefined in GLSL).
// With uMaxQOnly (LayeredBody::maxDisplacement: the proxies' growth), target 0 alone:
//   0: |q| (0 where q is not finite), 0, 0, 0     (a maximum)
#include "common.glsl"

uniform sampler2D uQ, uQdot, uThickness;
uniform sampler2DArray uK;  // layer D2T_BLOCK_LAYER(k, r): row r of the block of stencil slot k
uniform vec3 uUp;           // body frame, unit
uniform bool uMaxQOnly;

layout(location = 0) out vec4 oMq;
layout(location = 1) out vec4 oMqdot;
layout(location = 2) out vec4 oMuxqdot;
layout(location = 3) out vec4 oUuDiag;
layout(location = 4) out vec4 oUuOff;
layout(location = 5) out vec4 oMax;
layout(location = 6) out vec4 oBad;

const float kLowest = D2T_LOWEST;

bool finite3(vec3 v) {
  // (both forms: a compiler may fold one of them away)
  return !any(isnan(v)) && !any(isinf(v)) && all(lessThan(abs(v), vec3(3.0e38)));
}

void main() {
  oMq = oMqdot = oMuxqdot = oUuDiag = oUuOff = oBad = vec4(0.0);
  oMax = vec4(0.0, 0.0, 0.0, kLowest);
  if (!beginTexel() || gWeight == 0.0) return;
  vec3 q = at(uQ, gSrc), qd = at(uQdot, gSrc);
  if (uMaxQOnly) {
    if (finite3(q)) oMq.x = length(q);
    return;
  }
  if (!finite3(q) || !finite3(qd)) {
    oBad = vec4(1.0);
    return;
  }
  // (the neighbours through the source map: the correction's scatter leaves q's gutter
  // copies stale)
  vec3 kq = vec3(0.0);
  for (int k = 0; k < D2T_STENCIL_SLOTS; ++k) {
    ivec2 j = texelFetch(uSource, gSrc + stencilOffset(k), 0).xy;
    if (j.x >= 0) kq += blockTimes(uK, D2T_BLOCK_LAYER(k, 0), gSrc, at(uQ, j));
  }
  float m = gMass;
  vec3 ub = gRestPos, u = ub + q;
  oMq = vec4(m * q, m * dot(qd, qd));
  oMqdot = vec4(m * qd, 0.5 * dot(q, kq));
  oMuxqdot = vec4(m * cross(u, qd), 0.0);
  // u u^T - ub ub^T = ub q^T + q ub^T + q q^T
  oUuDiag = vec4(m * (2.0 * ub * q + q * q), m * (ub.x * q.y + q.x * ub.y + q.x * q.y));
  oUuOff = vec4(m * (ub.x * q.z + q.x * ub.z + q.x * q.z), m * (ub.y * q.z + q.y * ub.z + q.y * q.z), 0.0, 0.0);
  float t = texelFetch(uThickness, gSrc, 0).x;
  oMax = vec4(length(q), length(q) / max(t, 1e-30), length(qd), -dot(uUp, u));
}
