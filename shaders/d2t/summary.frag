#version 430 core
// The skin summary (SkinSummary, LayeredBody::summarize): the terms of the whole-skin
// sums and extremes of the state (q, qdot), u = ub + q, body frame: the sums of the
// state's parts (the rest shape's are summed once in double on the CPU; q . (K q) / 2
// by the 7-block stencil of stencil.frag), then the maxima (reduce.frag's max mode;
// texels without a node write the lowest float). Outputs: layout.glsl, D2T_SUMMARY_*.
// A node whose state is not finite writes 0 into the maxima (a max of NaNs is undefined
// in GLSL). With uMaxQOnly (LayeredBody::maxDisplacement: the proxies' growth), target
// 0 alone: (|q| (0 where q is not finite), 0, 0, 0), a maximum.
#include "common.glsl"

uniform sampler2D uQ, uQdot, uLayer;  // uLayer: (d_i, h_i), AtlasPasses::layer
uniform sampler2DArray uK;  // layer D2T_BLOCK_LAYER(k, r): row r of the block of stencil slot k
uniform sampler2D uRestForce;  // f0 (morph targets): W = 1/2 q . K q - q . f0 + c
uniform bool uHasRestForce;
uniform vec3 uUp;           // body frame, unit
uniform bool uMaxQOnly;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_SUMMARY_OUTPUTS];
#define oMq o[D2T_SUMMARY_MQ]
#define oMqdot o[D2T_SUMMARY_MQDOT]
#define oMuxqdot o[D2T_SUMMARY_MUXQDOT]
#define oUuDiag o[D2T_SUMMARY_UU_A]
#define oUuOff o[D2T_SUMMARY_UU_B]
#define oMax o[D2T_SUMMARY_MAX]
#define oBad o[D2T_SUMMARY_BAD]

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
  oMuxqdot = vec4(m * cross(u, qd), uHasRestForce ? -dot(q, at(uRestForce, gSrc)) : 0.0);
  // u u^T - ub ub^T = ub q^T + q ub^T + q q^T
  oUuDiag = vec4(m * (2.0 * ub * q + q * q), m * (ub.x * q.y + q.x * ub.y + q.x * q.y));
  oUuOff = vec4(m * (ub.x * q.z + q.x * ub.z + q.x * q.z), m * (ub.y * q.z + q.y * ub.z + q.y * q.z), 0.0, 0.0);
  vec4 layer = texelFetch(uLayer, gSrc, 0);
  float h = max(layer.w, 1e-30);
  vec3 s = q - min(dot(layer.xyz, q), 0.0) * layer.xyz;  // (stretchPart)
  oMax = vec4(length(q), length(s) / h, length(qd), -dot(uUp, u));
  oBad = vec4(0.0, max(0.0, -dot(layer.xyz, q) / h), 0.0, 0.0);  // (the crush: how far into its layer)
}
