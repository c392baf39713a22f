#version 430 core
// Contact camera, pass 3: the contact texture D = h_A - h_B (> 0: the skins
// overlap there by that much along n) with both triangle ids; D2T_NO_CONTACT where
// either skin is missing.
#include "layout.glsl"
uniform sampler2D uHA, uHB;
uniform isampler2D uIdA, uIdB;

layout(location = 0) out float oD;
layout(location = 1) out ivec2 oIds;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int a = texelFetch(uIdA, p, 0).x, b = texelFetch(uIdB, p, 0).x;
  oIds = ivec2(a, b);
  oD = (a >= 0 && b >= 0) ? texelFetch(uHA, p, 0).x - texelFetch(uHB, p, 0).x : D2T_NO_CONTACT;
}
