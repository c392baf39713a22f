#version 430 core
// One triangle covering the viewport: every D2T pass runs its fragment
// program once per atlas texel (gl_FragCoord.xy = texel + 0.5).
void main() {
  const vec2 corner[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
  gl_Position = vec4(corner[gl_VertexID], 0.0, 1.0);
}
