#version 430 core
// CG iteration, after ap = Mt p and the reduction of p.ap:
//   alpha = rz / pap (0 when pap <= 0: the matrix is not positive definite in
//   float, stop moving), x += alpha p, r -= alpha ap, z = Mh^-1 r, and the
//   terms of the new r.z and r.r. The scalars stay on the GPU (1 x 1 textures).
#include "common.glsl"

uniform sampler2D uX, uR, uP, uAp;
uniform sampler2D uRz;   // (r.z, r.r, b.b) of the current iterate
uniform sampler2D uPap;  // (p.ap)
uniform sampler2DArray uHinv;

layout(location = 0) out vec4 oX;
layout(location = 1) out vec4 oR;
layout(location = 2) out vec4 oZ;
layout(location = 3) out vec4 oDots;

void main() {
  oX = oR = oZ = oDots = vec4(0.0);
  if (!beginTexel()) return;
  float rz = texelFetch(uRz, ivec2(0), 0)[D2T_CG_RZ], pap = texelFetch(uPap, ivec2(0), 0).x;
  float alpha = pap > 0.0 ? rz / pap : 0.0;
  vec3 x = at(uX, gSrc) + alpha * at(uP, gSrc);
  vec3 r = at(uR, gSrc) - alpha * at(uAp, gSrc);
  vec3 z = blockTimes(uHinv, 0, gSrc, r);
  oX = vec4(x, 0.0);
  oR = vec4(r, 0.0);
  oZ = vec4(z, 0.0);
  oDots[D2T_CG_RZ] = gWeight * dot(r, z);
  oDots[D2T_CG_RR] = gWeight * dot(r, r);
}
