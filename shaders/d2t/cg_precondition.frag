#version 430 core
// CG start, after r = b - Mt x (stencil pass): z = Mh^-1 r (block-Jacobi),
// p = z, and the terms of r.z, r.r and b.b.
#include "common.glsl"

uniform sampler2D uR, uB;
uniform sampler2DArray uHinv;  // rows of the inverse diagonal blocks of Mt_e

layout(location = 0) out vec4 oZ;
layout(location = 1) out vec4 oP;
layout(location = 2) out vec4 oDots;

void main() {
  oZ = oP = oDots = vec4(0.0);
  if (!beginTexel()) return;
  vec3 r = at(uR, gSrc), b = at(uB, gSrc);
  vec3 z = blockTimes(uHinv, 0, gSrc, r);
  oZ = oP = vec4(z, 0.0);
  oDots[D2T_CG_RZ] = gWeight * dot(r, z);
  oDots[D2T_CG_RR] = gWeight * dot(r, r);
  oDots[D2T_CG_BB] = gWeight * dot(b, b);
}
