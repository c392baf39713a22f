#version 430 core
// Step 1 (T): the per-node force terms of the collision-free update.
//   z_i  = q_i + (beta + dt) qdot_i        (K z gives -K q - D_K qdot - dt K qdot)
//   ma_i = m_i (alpha qdot_i + a_i) - s_i,  a_i = w x (w x u_i) + 2 w x qdot_i   (Q_v, B.13),
//          s_i the node's external force: contact support and loads (LayeredBody::nodeForces, body frame)
//          and the elastic model's rest force f0_i (morph targets, 5.2': -K z + f0)
// and the terms of the core sums (reduced afterwards): m q, m qdot, m a,
// m u x a, and m (u u^T - ub ub^T) (diagonal, then xy xz yz). Outputs: layout.glsl.
#include "common.glsl"

uniform sampler2D uQ, uQdot, uNodeForces, uRestForce;
uniform bool uHasNodeForces, uHasRestForce;
uniform vec3 uOmega;  // core angular velocity, body frame [rad/s]
uniform float uAlpha, uBeta, uDt;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_FORCES_OUTPUTS];
#define oZ o[D2T_FORCES_Z]
#define oMa o[D2T_FORCES_MA]
#define oSumMq o[D2T_FORCES_SUM_MQ]
#define oSumMqdot o[D2T_FORCES_SUM_MQDOT]
#define oSumMa o[D2T_FORCES_SUM_MA]
#define oSumMuxa o[D2T_FORCES_SUM_MUXA]
#define oSumUuDiag o[D2T_FORCES_SUM_UU_DIAG]
#define oSumUuOff o[D2T_FORCES_SUM_UU_OFF]

void main() {
  oZ = oMa = oSumMq = oSumMqdot = oSumMa = oSumMuxa = oSumUuDiag = oSumUuOff = vec4(0.0);
  if (!beginTexel()) return;
  vec3 q = at(uQ, gSrc), qd = at(uQdot, gSrc);
  vec3 u = gRestPos + q;
  vec3 a = cross(uOmega, cross(uOmega, u)) + 2.0 * cross(uOmega, qd);
  float m = gMass, w = gWeight * gMass;
  vec3 ub = gRestPos;
  oZ = vec4(q + (uBeta + uDt) * qd, 0.0);
  oMa = vec4(m * (uAlpha * qd + a), 0.0);
  if (uHasNodeForces) oMa.xyz -= at(uNodeForces, gSrc);
  if (uHasRestForce) oMa.xyz -= at(uRestForce, gSrc);
  oSumMq = vec4(w * q, 0.0);
  oSumMqdot = vec4(w * qd, 0.0);
  oSumMa = vec4(w * a, 0.0);
  oSumMuxa = vec4(w * cross(u, a), 0.0);
  // u u^T - ub ub^T = ub q^T + q ub^T + q q^T
  oSumUuDiag = vec4(w * (2.0 * ub * q + q * q), 0.0);
  oSumUuOff = vec4(w * (ub.x * q.y + q.x * ub.y + q.x * q.y), w * (ub.x * q.z + q.x * ub.z + q.x * q.z),
                   w * (ub.y * q.z + q.y * ub.z + q.y * q.z), 0.0);
}
