#version 430 core
// Step 9 (T), per contact row k at node i (SkinResponse::setRows), body frame but n:
//   nb = R^T n,  D_k = nb^T Mh_i^-1 nb,  U_k = (n, u_i x nb) - (m_i R Mh_i^-1 nb, m_i u_i x Mh_i^-1 nb)
//   v_n = n . (v + R (w x u_i + qdot_i) - v_surface),  gap = max(0, -depth - dt v_n) unless known
//   b_k = -v_n - gap / dt (0 for a release row)
// A row on the body's own core (ContactRow::onCore): U_k without (n, u_i x nb), v_n = n . R qdot_i.
// Out (layout.glsl, D2T_ROWS_*): U_k, D_k, b_k and the row's state; active rows start at
// lambda = 0, release rows out at lo.
#include "common.glsl"
#include "rows_common.glsl"

uniform sampler2D uQ, uQdot;
uniform sampler2DArray uHinv;
uniform mat3 uR;
uniform vec3 uV, uW;  // the core's velocity (world) and angular velocity (body)
uniform float uDt;
uniform bool uFixed;  // a fixed core: U = 0

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_ROWS_OUTPUTS];
#define oU o[D2T_ROWS_U]
#define oV o[D2T_ROWS_V]
#define oS o[D2T_ROWS_STATE]

void main() {
  oU = oV = oS = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 node = nodeTexel(k);
  vec4 rest = texelFetch(uRest, node, 0);
  float m = rest[D2T_REST_MASS];
  vec3 u = rest.xyz + at(uQ, node);
  vec4 in0 = rowIn(k, D2T_ROW_IN_NODE), in1 = rowIn(k, D2T_ROW_IN_NORMAL), in2 = rowIn(k, D2T_ROW_IN_SURFACE);
  vec4 limits = rowIn(k, D2T_ROW_IN_LIMITS);
  float lo = limits.x;
  bool onCore = limits.z > 0.5;
  vec3 n = in1.xyz;
  vec3 nb = transpose(uR) * n;
  vec3 hn = blockTimes(uHinv, 0, node, nb);
  float D = dot(nb, hn);
  vec3 ut = n - m * (uR * hn), ur = cross(u, nb) - m * cross(u, hn);
  if (onCore) {
    ut = -(m * (uR * hn));
    ur = -(m * cross(u, hn));
  }
  if (uFixed) ut = ur = vec3(0.0);
  vec3 before = onCore ? uR * at(uQdot, node) : uV + uR * (cross(uW, u) + at(uQdot, node));
  float vn = dot(n, before - in2.xyz);
  float gap = in2.w < 0.0 ? max(0.0, -in1.w - uDt * vn) : in2.w;
  bool release = in0.w > 0.5;
  float b = release ? 0.0 : -vn - gap / uDt;
  oU = vec4(ut, ur.x);
  oV = vec4(ur.yz, D, b);
  oS = vec4(release ? lo : 0.0, release ? 0.0 : 1.0, gap, 0.0);
}
