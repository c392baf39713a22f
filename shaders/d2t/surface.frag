#version 430 core
// The deformed skin in the body frame, u = ub + q, for the normals pass and
// for drawing the skin straight from the textures.
#include "common.glsl"

uniform sampler2D uQ;
layout(location = 0) out vec4 oU;

void main() {
  oU = beginTexel() ? vec4(gRestPos + at(uQ, gSrc), 1.0) : vec4(0.0);
}
