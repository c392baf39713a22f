#version 430 core
// The skin's limits against its own core (T), as findCoreContacts on the CPU
// (src/sim/contact/core_contact.h): node i, its rest direction d_i = (ub_i - f_i) / h_i
// and layer thickness h_i = |ub_i - f_i| (AtlasPasses::layer),
//   crush    gap = d_i . q_i + (1 - keep) h_i          along d_i
//   stretch  gap = maxStretch h_i - |s_i|              along -s_i / |s_i|
//            s_i = q_i less its part into the layer (stretchPart)
// Each limit with gap < uMargin h_i + uReach is appended to the hit list (detect.frag's record:
// the node texel and the limit (0 crush, 1 stretch) in id, the direction and the depth
// -gap in normalDepth) through an atomic counter.
#include "common.glsl"

uniform sampler2D uQ;       // skin displacements q (body frame)
uniform sampler2D uLayer;   // (d_i, h_i): the rest direction (body frame) and layer thickness [m]
uniform float uKeep;        // the fraction of the layer a crushed node keeps (Material::minLayer)
uniform float uMaxStretch;  // kMaxStretch
uniform float uMargin;      // the margin, a fraction of the layer
uniform float uReach;       // ... and a distance [m]

struct Hit {
  D2T_DETECT_HIT(ivec4, vec4)
};
layout(std430, binding = 0) buffer Hits {
  uint gCount;
  uint gPad0, gPad1, gPad2;
  Hit gHits[];
};

layout(location = 0) out vec4 oUnused;

void append(int limit, vec3 normal, float gap) {
  uint slot = atomicAdd(gCount, 1u);
  gHits[slot] = Hit(ivec4(gSrc, limit, 0), vec4(normal, -gap), vec4(0.0));
}

void main() {
  oUnused = vec4(0.0);
  if (!beginTexel() || gWeight == 0.0) return;  // (node texels only: each node once)
  vec4 layer = texelFetch(uLayer, gSrc, 0);
  vec3 d = layer.xyz;
  float h = layer.w;
  vec3 q = at(uQ, gSrc);
  float crush = dot(d, q) + (1.0 - uKeep) * h;
  if (crush < uMargin * h + uReach) append(0, d, crush);
  vec3 s = q - min(dot(d, q), 0.0) * d;
  float length_ = length(s), stretch = uMaxStretch * h - length_;
  if (stretch < uMargin * h + uReach && length_ > 0.0) append(1, -s / length_, stretch);
}
