#version 430 core
// One point per listed node writes (or, blended, adds) its value into its texel: the
// position correction's dq_i into the resident q (GpuSkin::correct).
layout(location = 0) in ivec2 aTexel;
layout(location = 1) in vec4 aValue;
uniform int uSize;  // atlas resolution
flat out vec4 vValue;

void main() {
  vValue = aValue;
  gl_Position = vec4((vec2(aTexel) + 0.5) / float(uSize) * 2.0 - 1.0, 0.0, 1.0);
}
