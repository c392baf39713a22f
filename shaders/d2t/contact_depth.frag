#version 430 core
// Contact camera, passes 1-2: the height h = n . x of the skin (A: its front
// faces, the nearest; B: its back faces, the farthest) and the patch triangle
// drawn there, by its index in the patch (an integer target: no float compares
// of ids, docs/design.md 7b).
in float vH;

layout(location = 0) out float oH;
layout(location = 1) out int oId;

void main() {
  oH = vH;
  oId = gl_PrimitiveID;
}
