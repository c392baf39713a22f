#version 430 core
// The contact texture: one point per contacting node writes its values into its
// texel (the rest of the targets is cleared to 0 before).
layout(location = 0) in ivec2 aTexel;
layout(location = 1) in vec4 aValue0;
layout(location = 2) in vec4 aValue1;
uniform int uSize;  // atlas resolution
flat out vec4 vValue0, vValue1;

void main() {
  vValue0 = aValue0;
  vValue1 = aValue1;
  gl_Position = vec4((vec2(aTexel) + 0.5) / float(uSize) * 2.0 - 1.0, 0.0, 1.0);
}
