#version 330 core
// Depth from the light's point of view.
#include "skin_input.glsl"
uniform mat4 uModel;
uniform mat4 uLightViewProj;
void main() { gl_Position = uLightViewProj * uModel * vec4(inputPosition(), 1.0); }
