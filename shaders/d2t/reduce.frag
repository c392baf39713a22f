#version 430 core
// Sum reduction, one level: each output texel sums a 4 x 4 block of each of
// the first uCount (up to 8) inputs (texels beyond uSize count as 0); inputs from
// uMaxFrom on take the block's maximum instead. Repeated down to 1 x 1.
#include "layout.glsl"

uniform sampler2D uIn[8];
uniform ivec2 uSize;  // input size
uniform int uCount, uMaxFrom;

layout(location = 0) out vec4 oSum[8];

void main() {
  ivec2 base = 4 * ivec2(gl_FragCoord.xy);
  ivec2 hi = min(base + 4, uSize);
  for (int t = 0; t < uCount; ++t) {
    bool isMax = t >= uMaxFrom;
    vec4 s = isMax ? vec4(D2T_LOWEST) : vec4(0.0);
    for (int y = base.y; y < hi.y; ++y)
      for (int x = base.x; x < hi.x; ++x) {
        vec4 v = texelFetch(uIn[t], ivec2(x, y), 0);
        s = isMax ? max(s, v) : s + v;
      }
    oSum[t] = s;
  }
}
