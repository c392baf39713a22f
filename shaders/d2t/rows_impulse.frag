#version 430 core
// Step 11 (T), the rows' impulses (SkinResponse::impulse): f = lambda n (world), r =
// R^T f into oR (scattered into the contact texture by node afterwards), and the terms
// of fc = sum (f, u x r), mt = sum m Mh^-1 r, mr = sum m u x Mh^-1 r.
#include "common.glsl"
#include "rows_common.glsl"

uniform sampler2D uQ, uS;
uniform sampler2DArray uHinv;
uniform mat3 uR;

layout(location = 0) out vec4 oR;
layout(location = 1) out vec4 oT[4];

void main() {
  oR = vec4(0.0);
  for (int t = 0; t < 4; ++t) oT[t] = vec4(0.0);
  int k = thisRow();
  if (k < 0) return;
  ivec2 node = nodeTexel(k);
  vec4 rest = texelFetch(uRest, node, 0);
  vec3 u = rest.xyz + at(uQ, node);
  vec3 f = texelFetch(uS, rowTexel(k), 0).x * rowIn(k, 1).xyz;
  vec3 r = transpose(uR) * f;
  vec3 hr = blockTimes(uHinv, 0, node, r);
  oR = vec4(r, 0.0);
  oT[0] = vec4(f, 0.0);
  oT[1] = vec4(cross(u, r), 0.0);
  oT[2] = vec4(rest.w * hr, 0.0);
  oT[3] = vec4(rest.w * cross(u, hr), 0.0);
}
