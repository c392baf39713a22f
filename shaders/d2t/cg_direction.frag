#version 430 core
// CG iteration, after the reduction of the new r.z: p = z + (rz_new / rz_old) p.
#include "common.glsl"

uniform sampler2D uZ, uP;
uniform sampler2D uRzNew, uRzOld;

layout(location = 0) out vec4 oP;

void main() {
  oP = vec4(0.0);
  if (!beginTexel()) return;
  float rzNew = texelFetch(uRzNew, ivec2(0), 0)[D2T_CG_RZ], rzOld = texelFetch(uRzOld, ivec2(0), 0)[D2T_CG_RZ];
  float beta = rzOld > 0.0 ? rzNew / rzOld : 0.0;
  oP = vec4(at(uZ, gSrc) + beta * at(uP, gSrc), 0.0);
}
