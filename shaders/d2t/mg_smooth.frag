#version 430 core
// One pass of a level's Chebyshev smoothing (MultigridPreconditioner::smooth, its
// CPU reference; Saad, Alg. 12.1 with the block-Jacobi preconditioner D^-1). Inputs and
// outputs share the level's layout (multigrid.glsl). uMode:
//   0 start:    res = f - A x (f where uFirst: x = 0), d = D^-1 res / theta
//               -> (res, d)
//   1 a degree: res -= A d, x += d (x = d where uFirst), d' = cd d + cr D^-1 res
//               -> (res, x, d'); d' unused after the last degree
//   2 the last degree without a residual: x += d (x = d where uFirst) -> (x)
#include "multigrid.glsl"

uniform sampler2D uF, uX, uRes, uD;
uniform int uMode, uFirst;
uniform float uTheta, uCd, uCr;

layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;

void main() {
  o0 = o1 = o2 = vec4(0.0);
  const int row = mgRow();
  if (row < 0) return;
  if (uMode == 0) {
    vec3 res = texelFetch(uF, gMgPixel, 0).xyz;
    if (uFirst == 0) res -= mgRowTimes(row, uX);
    o0 = vec4(res, 0.0);
    o1 = vec4(mgDiagTimes(row, res) / uTheta, 0.0);
    return;
  }
  const vec3 d = texelFetch(uD, gMgPixel, 0).xyz;
  const vec3 x = uFirst != 0 ? d : texelFetch(uX, gMgPixel, 0).xyz + d;
  if (uMode == 2) {
    o0 = vec4(x, 0.0);
    return;
  }
  const vec3 res = texelFetch(uRes, gMgPixel, 0).xyz - mgRowTimes(row, uD);
  o0 = vec4(res, 0.0);
  o1 = vec4(x, 0.0);
  o2 = vec4(uCd * d + uCr * mgDiagTimes(row, res), 0.0);
}
