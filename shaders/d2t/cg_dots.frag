#version 430 core
// CG with the multigrid (GpuMultigrid), after the V-cycle z = B r: the terms of r.z, r.r
// and b.b, and p = z (the start's direction; the loop leaves location 1 unbound).
#include "common.glsl"

uniform sampler2D uR, uZ, uB;

layout(location = 0) out vec4 oDots;
layout(location = 1) out vec4 oP;

void main() {
  oDots = oP = vec4(0.0);
  if (!beginTexel()) return;
  vec3 r = at(uR, gSrc), z = at(uZ, gSrc), b = at(uB, gSrc);
  oP = vec4(z, 0.0);
  oDots[D2T_CG_RZ] = gWeight * dot(r, z);
  oDots[D2T_CG_RR] = gWeight * dot(r, r);
  oDots[D2T_CG_BB] = gWeight * dot(b, b);
}
