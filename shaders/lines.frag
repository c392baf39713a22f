#version 330 core
// Overlay lines: unlit, the vertex colour (sRGB, as given).
in vec3 vColor;
out vec4 fragColor;

void main() { fragColor = vec4(vColor, 1.0); }
