#version 430 core
// The gather (GpuSkin::readNodes): point k reads the node texel aSource and writes its
// values to texel (k mod uWidth, k div uWidth) of the targets, which are read back:
// only the listed nodes cross, not the atlas.
layout(location = 0) in ivec2 aSource;
uniform int uWidth;  // of the targets (the atlas resolution)
flat out ivec2 vSource;

void main() {
  vSource = aSource;
  ivec2 at = ivec2(gl_VertexID % uWidth, gl_VertexID / uWidth);
  gl_Position = vec4((vec2(at) + 0.5) / float(uWidth) * 2.0 - 1.0, 0.0, 1.0);
}
