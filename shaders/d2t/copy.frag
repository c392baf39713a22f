#version 430 core
// The gutter fill on its own: every texel takes the value of the node it holds.
#include "common.glsl"

uniform sampler2D uX;
layout(location = 0) out vec4 oX;

void main() {
  oX = beginTexel() ? texelFetch(uX, gSrc, 0) : vec4(0.0);
}
