#version 430 core
// The rows' values into the contact texture by node: point k (one per row) reads row k's
// value and lands on its node's texel; additive blending sums the rows of a node.
#include "layout.glsl"

uniform sampler2DArray uRowIn;
uniform sampler2D uValue;  // per row
uniform int uSize;         // the atlas resolution (= the row textures')
flat out vec4 vValue;

void main() {
  ivec2 row = ivec2(gl_VertexID % uSize, gl_VertexID / uSize);
  int t = int(texelFetch(uRowIn, ivec3(row, D2T_ROW_IN_NODE), 0).x);
  vValue = texelFetch(uValue, row, 0);
  gl_Position = vec4((vec2(t % uSize, t / uSize) + 0.5) / float(uSize) * 2.0 - 1.0, 0.0, 1.0);
}
