#version 430 core
// Steps 11-13 (T): the contact impulse on the skin velocities and the positions from
// the start of the step (SkinResponse::apply), with f_i the friction's impulse on the
// node (body frame) and (fdvt, fdw) the core's change from it:
//   qdot_i += share Mh_i^-1 (r_i - m_i (dvt - u_i x dw)) + Mh_i^-1 (f_i - m_i (fdvt - u_i x fdw)),
//   q_i = q0_i + dt qdot_i
// and the terms of the new state's moments m q, m qdot (reduced afterwards).
#include "common.glsl"

uniform sampler2D uQ0, uQ, uQdot, uR, uExtra;  // q(t), q, qdot, impulses r_i, friction f_i
uniform sampler2DArray uHinv;
uniform vec3 uDvt, uDw, uFrictionDvt, uFrictionDw;
uniform float uShare, uDt;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_STATE_OUTPUTS];
#define oQdot o[D2T_STATE_QDOT]
#define oQ o[D2T_STATE_Q]
#define oMq o[D2T_STATE_SUM_MQ]
#define oMqdot o[D2T_STATE_SUM_MQDOT]

void main() {
  oQdot = oQ = oMq = oMqdot = vec4(0.0);
  if (!beginTexel()) return;
  vec3 u = gRestPos + at(uQ, gSrc);
  vec3 dq = blockTimes(uHinv, 0, gSrc, at(uR, gSrc) - gMass * (uDvt - cross(u, uDw)));
  vec3 df = blockTimes(uHinv, 0, gSrc, at(uExtra, gSrc) - gMass * (uFrictionDvt - cross(u, uFrictionDw)));
  vec3 qdot = at(uQdot, gSrc) + uShare * dq + df;
  oQdot = vec4(qdot, 0.0);
  oQ = vec4(at(uQ0, gSrc) + uDt * qdot, 0.0);
  oMq = vec4(gWeight * gMass * oQ.xyz, 0.0);
  oMqdot = vec4(gWeight * gMass * qdot, 0.0);
}
