#version 430 core
// Contact camera, passes 1-2: the height h = n . x of the skin (A: its front
// faces, the nearest; B: its back faces, the farthest) and the skin triangle
// drawn there (an integer target: no float compares of ids, DESIGN.md 7b).
in float vH;

uniform isamplerBuffer uTriangleIds;  // global triangle id of each drawn triangle

layout(location = 0) out float oH;
layout(location = 1) out int oId;

void main() {
  oH = vH;
  oId = texelFetch(uTriangleIds, gl_PrimitiveID).x;
}
