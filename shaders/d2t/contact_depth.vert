#version 430 core
// Contact camera, passes 1-2 (dissertation Fig. 3.10): an orthographic camera
// looking along -n (from B's side towards A) over the window [uLo, uHi] of the
// contact plane (coordinates along uT1, uT2). Depth: larger h = n . x is nearer.
layout(location = 0) in vec3 aPosition;  // world [m]

uniform vec3 uT1, uT2, uN;
uniform vec2 uLo, uHi;
uniform vec2 uRange;  // [h_min, h_max] of the slab where the skins overlap

out float vH;

void main() {
  vec2 p = vec2(dot(uT1, aPosition), dot(uT2, aPosition));
  float h = dot(uN, aPosition);
  gl_Position = vec4(2.0 * (p - uLo) / (uHi - uLo) - 1.0, 1.0 - 2.0 * (h - uRange.x) / (uRange.y - uRange.x), 1.0);
  vH = h;
}
