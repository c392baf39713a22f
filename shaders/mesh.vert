#version 330 core
// Lit surfaces: bodies and colliders. Positions and normals in the object frame.
#include "skin_input.glsl"

uniform mat4 uModel;          // object -> world
uniform mat4 uViewProj;       // world -> clip
uniform mat4 uLightViewProj;  // world -> light clip (shadow map)

out vec3 vWorld;
out vec3 vNormal;
out vec4 vLight;

void main() {
  vec4 world = uModel * vec4(inputPosition(), 1.0);
  vWorld = world.xyz;
  vNormal = mat3(uModel) * inputNormal();  // rigid transforms only: no inverse-transpose needed
  vLight = uLightViewProj * world;
  gl_Position = uViewProj * world;
}
