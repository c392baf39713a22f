#version 430 core
// Contact camera, passes 4-5: one point per node of the body's patch. Point k
// writes output texel (k mod width, k div width), so the pass and its read-back
// cost as much as the patch, whatever the atlas resolution.
layout(location = 0) in vec3 aPosition;  // the node's world position [m]
layout(location = 1) in ivec2 aTexel;    // its atlas texel

uniform int uOutWidth;
uniform int uOutHeight;

out vec3 vPosition;
flat out ivec2 vTexel;

void main() {
  vec2 pixel = vec2(gl_VertexID % uOutWidth, gl_VertexID / uOutWidth) + 0.5;
  gl_Position = vec4(2.0 * pixel / vec2(uOutWidth, uOutHeight) - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
  vPosition = aPosition;
  vTexel = aTexel;
}
