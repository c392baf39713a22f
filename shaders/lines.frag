#version 330 core
// Overlay lines: unlit, the vertex colour (linear RGB).
in vec3 vColor;
out vec4 fragColor;

void main() { fragColor = vec4(pow(vColor, vec3(1.0 / 2.2)), 1.0); }
