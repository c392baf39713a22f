#version 430 core
// Step 12 (T), friction (14) per row (SkinResponse::friction). The rows of a node are
// taken in list order, as on the CPU: this row's fragment walks back to the node's first
// row and on to itself, each row with a positive total impulse (lambda > lo) taking
//   xt = the tangential part of (v' + R (w' x u + qdot) - v_surface),
//   f = -m min(1, mu |after - before| / |xt|) xt,  qdot += Mh_i^-1 R^T f
// from qdot = qdot_i + share Mh_i^-1 (r_i - m_i (dvt - u_i x dw)); before = v + R (w x u +
// qdot_i) (the velocities when the rows were set), after with the new core velocities.
// Out: this row's friction impulse f (world); rows_impulse.frag takes it through the
// response.
#include "common.glsl"
#include "rows_common.glsl"

uniform sampler2D uQ, uQdot, uS, uImpulse;  // q, qdot, the rows' state, r_i by node
uniform sampler2DArray uHinv;
uniform mat3 uR;
uniform vec3 uV0, uW0, uV1, uW1;  // the core's velocities before and after (world, body)
uniform vec3 uDvt, uDw;
uniform float uShare;

layout(location = 0) out vec4 oImpulse;

void main() {
  oImpulse = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 node = nodeTexel(k);
  vec4 rest = texelFetch(uRest, node, 0);
  float m = rest[D2T_REST_MASS];
  vec3 u = rest.xyz + at(uQ, node);
  vec3 qdot0 = at(uQdot, node);
  vec3 qdot = qdot0 + uShare * blockTimes(uHinv, 0, node, at(uImpulse, node) - m * (uDvt - cross(u, uDw)));
  vec3 before = uV0 + uR * (cross(uW0, u) + qdot0);
  int j = k;
  for (int prev = int(rowIn(j, D2T_ROW_IN_NODE).y); prev >= 0; prev = int(rowIn(j, D2T_ROW_IN_NODE).y)) j = prev;
  for (;;) {
    float lambda = texelFetch(uS, rowTexel(j), 0).x;
    vec4 in0 = rowIn(j, D2T_ROW_IN_NODE), in1 = rowIn(j, D2T_ROW_IN_NORMAL), in3 = rowIn(j, D2T_ROW_IN_LIMITS);
    if (lambda > in3.x) {
      vec3 n = in1.xyz;
      vec3 after = uV1 + uR * (cross(uW1, u) + qdot);
      vec3 rel = after - rowIn(j, D2T_ROW_IN_SURFACE).xyz;
      vec3 xt = rel - dot(n, rel) * n;
      float speed = length(xt);
      if (speed >= 1e-12) {
        float muHat = min(1.0, in3.y * length(after - before) / speed);
        vec3 f = -m * muHat * xt;
        qdot += blockTimes(uHinv, 0, node, transpose(uR) * f);
        if (j == k) oImpulse = vec4(f, 0.0);
      }
    }
    if (j == k) break;
    j = int(in0.z);
  }
}
