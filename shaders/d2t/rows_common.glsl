// Shared by the contact rows' passes (steps 9-12, SkinResponse's rows): row k of the
// contact list is texel (k mod uSize, k div uSize) of the row textures; its inputs are
// the layers D2T_ROW_IN_* of uRowIn (layout.glsl; GpuSkin::setRows), and its node's
// values are read at the node's texel of the atlas (same size).
#include "layout.glsl"
uniform sampler2DArray uRowIn;
uniform int uSize;   // the atlas resolution (= the row textures')
uniform int uCount;  // rows

ivec2 rowTexel(int k) { return ivec2(k % uSize, k / uSize); }
vec4 rowIn(int k, int layer) { return texelFetch(uRowIn, ivec3(rowTexel(k), layer), 0); }
ivec2 nodeTexel(int k) {
  int t = int(rowIn(k, D2T_ROW_IN_NODE).x);
  return ivec2(t % uSize, t / uSize);
}
// This fragment's row, -1 past the list.
int thisRow() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int k = p.y * uSize + p.x;
  return k < uCount ? k : -1;
}
