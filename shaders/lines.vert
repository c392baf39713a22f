#version 330 core
// Overlay lines (contacts, proxies): world positions with a colour per vertex.
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aColor;

uniform mat4 uViewProj;  // world -> clip

out vec3 vColor;

void main() {
  vColor = aColor;
  gl_Position = uViewProj * vec4(aPosition, 1.0);
}
