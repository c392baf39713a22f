#version 430 core
// Steps 4-5 (T): skin velocities dv_e = dt y - Y dv_c (3.9) and positions
// q = q(t) + dt qdot. With y = y' + W_t R^T g and Y = [W_t R^T, Y_r]:
//   dt y - Y dv_c = dt y' + W_t (dt R^T g - R^T dv_t) - (W_r dv_r - m Mh^-1 (q x dv_r))
// where uTranslation = dt R^T g - R^T dv_t and uRotation = dv_r come from the
// CPU's 6x6 core solve (in double). Also the terms of m qdot and m q (momentum).
#include "common.glsl"

uniform sampler2D uQ, uQdot, uY;  // q(t), qdot(t), y'
uniform sampler2DArray uWt, uWr, uHinv;
uniform vec3 uTranslation, uRotation;
uniform float uDt;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_STATE_OUTPUTS];
#define oQdot o[D2T_STATE_QDOT]
#define oQ o[D2T_STATE_Q]
#define oSumMq o[D2T_STATE_SUM_MQ]
#define oSumMqdot o[D2T_STATE_SUM_MQDOT]

void main() {
  oQdot = oQ = oSumMqdot = oSumMq = vec4(0.0);
  if (!beginTexel()) return;
  vec3 q = at(uQ, gSrc);
  vec3 dv = uDt * at(uY, gSrc);
  for (int j = 0; j < 3; ++j) {
    dv += uTranslation[j] * texelFetch(uWt, ivec3(gSrc, j), 0).xyz;
    dv -= uRotation[j] * texelFetch(uWr, ivec3(gSrc, j), 0).xyz;
  }
  dv += gMass * blockTimes(uHinv, 0, gSrc, cross(q, uRotation));
  vec3 qdot = at(uQdot, gSrc) + dv;
  vec3 qn = q + uDt * qdot;
  oQdot = vec4(qdot, 0.0);
  oQ = vec4(qn, 0.0);
  float w = gWeight * gMass;
  oSumMqdot = vec4(w * qdot, 0.0);
  oSumMq = vec4(w * qn, 0.0);
}
