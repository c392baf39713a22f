#version 430 core
flat in vec4 vValue0, vValue1;
layout(location = 0) out vec4 oValue0;
layout(location = 1) out vec4 oValue1;

void main() {
  oValue0 = vValue0;
  oValue1 = vValue1;
}
