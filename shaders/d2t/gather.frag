#version 430 core
flat in ivec2 vSource;
uniform sampler2D uQ, uQdot;
layout(location = 0) out vec4 oQ;
layout(location = 1) out vec4 oQdot;

void main() {
  oQ = texelFetch(uQ, vSource, 0);
  oQdot = texelFetch(uQdot, vSource, 0);
}
