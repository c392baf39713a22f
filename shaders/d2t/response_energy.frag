#version 430 core
// Step 11 (T): the skin's kinetic energy along the contact impulse (SkinResponse::energy),
// KE(t) = k0 + ka t + kb t^2 for velocities v_i + t d_i, with (body frame)
//   v_i = vb + w x u_i + qdot_i,  d_i = dvt + dw x u_i + dq_i,
//   dq_i = Mh_i^-1 (r_i - m_i (dvt - u_i x dw))
// Terms m (|v|^2 / 2, v . d, |d|^2 / 2) of node texels in oTerms.xyz.
#include "common.glsl"

uniform sampler2D uQ, uQdot, uR;  // q, qdot, the impulses r_i (0 off contacts)
uniform sampler2DArray uHinv;
uniform vec3 uVb, uW, uDvt, uDw;

layout(location = 0) out vec4 oTerms;

void main() {
  oTerms = vec4(0.0);
  if (!beginTexel() || gWeight == 0.0) return;
  vec3 u = gRestPos + at(uQ, gSrc);
  vec3 v = uVb + cross(uW, u) + at(uQdot, gSrc);
  vec3 dq = blockTimes(uHinv, 0, gSrc, at(uR, gSrc) - gMass * (uDvt - cross(u, uDw)));
  vec3 d = uDvt + cross(uDw, u) + dq;
  oTerms = vec4(0.5 * gMass * dot(v, v), gMass * dot(v, d), 0.5 * gMass * dot(d, d), 0.0);
}
