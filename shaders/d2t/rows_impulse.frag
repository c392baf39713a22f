#version 430 core
// Step 11 (T), the rows' impulses (SkinResponse::impulse): f = lambda n (world), r =
// R^T f into oR (scattered into the contact texture by node afterwards), and the terms
// of fc = sum (f, u x r) (not of rows on the body's own core: the reaction cancels
// them), mt = sum m Mh^-1 r, mr = sum m u x Mh^-1 r (layout.glsl, D2T_IMPULSE_*).
// With uFriction, f is the row's friction impulse (rows_friction.frag; step 12), whose
// sums move the core as the rows' do.
#include "common.glsl"
#include "rows_common.glsl"

uniform sampler2D uQ, uS, uFrictionImpulse;
uniform sampler2DArray uHinv;
uniform mat3 uR;
uniform bool uFriction;

// (the outputs by their layout.glsl locations: a location in a layout qualifier must be
// a literal in GLSL 4.30, an array index need not)
layout(location = 0) out vec4 o[D2T_IMPULSE_OUTPUTS];
#define oR o[D2T_IMPULSE_R]
#define oF o[D2T_IMPULSE_SUM_F]
#define oUxr o[D2T_IMPULSE_SUM_UXR]
#define oMt o[D2T_IMPULSE_SUM_MT]
#define oMr o[D2T_IMPULSE_SUM_MR]

void main() {
  oR = oF = oUxr = oMt = oMr = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 node = nodeTexel(k);
  vec4 rest = texelFetch(uRest, node, 0);
  vec3 u = rest.xyz + at(uQ, node);
  vec3 f = uFriction ? texelFetch(uFrictionImpulse, rowTexel(k), 0).xyz
                     : texelFetch(uS, rowTexel(k), 0).x * rowIn(k, D2T_ROW_IN_NORMAL).xyz;
  vec3 r = transpose(uR) * f;
  vec3 hr = blockTimes(uHinv, 0, node, r);
  oR = vec4(r, 0.0);
  if (rowIn(k, D2T_ROW_IN_LIMITS).z < 0.5) {
    oF = vec4(f, 0.0);
    oUxr = vec4(cross(u, r), 0.0);
  }
  oMt = vec4(rest[D2T_REST_MASS] * hr, 0.0);
  oMr = vec4(rest[D2T_REST_MASS] * cross(u, hr), 0.0);
}
