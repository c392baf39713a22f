#version 430 core
flat in vec4 vValue;
layout(location = 0) out vec4 oValue;

void main() { oValue = vValue; }
