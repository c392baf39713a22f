#version 430 core
// Unit vertex normals of the deformed skin (the idea of Fragment Program E.6,
// fixed as docs/design.md 7b says: over the node's own mesh triangles, not 8 texel
// neighbours, and normalised): the area-weighted sum of the normals of the
// triangles around the node, from the surface texture.
#include "common.glsl"

uniform sampler2D uSurface;          // u = ub + q per texel
uniform isampler2DArray uAround;     // the triangles around the node (layout.glsl: D2T_AROUND_LAYERS)
uniform isamplerBuffer uTriangles;   // node indices of each triangle
uniform isamplerBuffer uNodeTexel;   // texel (x, y) of each node

layout(location = 0) out vec4 oN;

vec3 nodePosition(int node) {
  return texelFetch(uSurface, texelFetch(uNodeTexel, node).xy, 0).xyz;
}

void main() {
  oN = vec4(0.0);
  if (!beginTexel()) return;
  vec3 n = vec3(0.0);
  for (int layer = 0; layer < D2T_AROUND_LAYERS; ++layer) {
    ivec4 t = texelFetch(uAround, ivec3(gSrc, layer), 0);
    for (int k = 0; k < 4; ++k) {
      if (t[k] < 0) continue;
      ivec3 v = texelFetch(uTriangles, t[k]).xyz;
      vec3 a = nodePosition(v.x);
      n += cross(nodePosition(v.y) - a, nodePosition(v.z) - a);
    }
  }
  oN = vec4(length(n) > 0.0 ? normalize(n) : vec3(0.0), 0.0);
}
