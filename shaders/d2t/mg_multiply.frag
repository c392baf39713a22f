#version 430 core
// y = A x + uScaleAdd addend (multigrid.glsl): the restriction f_c = R res, the
// prolongation x += P e (addend x) and the coarsest level's solve e = A_c^-1 f_c (A the
// dense inverse).
#include "multigrid.glsl"

uniform sampler2D uX, uAddend;
uniform float uScaleAdd;

layout(location = 0) out vec4 oY;

void main() {
  oY = vec4(0.0);
  const int row = mgRow();
  if (row < 0) return;
  vec3 y = mgRowTimes(row, uX);
  if (uScaleAdd != 0.0) y += uScaleAdd * texelFetch(uAddend, gMgPixel, 0).xyz;
  oY = vec4(y, 0.0);
}
