#pragma once
// Pictures of a body's atlas textures for the texture viewer: what each
// texel holds, as an RGBA8 image of N x N pixels (row 0 = texel row 0).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/baked_body.h"

namespace d2t {

enum class AtlasChannel {
  RestPosition,  ///< rest skin point g, body-frame box mapped to RGB
  CorePosition,  ///< core point f, same mapping
  ValidMask,     ///< node white, gutter grey, invalid black
  PatchId,       ///< one colour per patch (gutters darker)
  Young,         ///< material map: log10 of Young's modulus, blue (soft) to red (stiff)
  Density,       ///< material map: density, blue to red
  NodeMass,      ///< lumped node mass, blue to red
};

/// Every channel with its panel label.
const std::vector<std::pair<AtlasChannel, const char*>>& atlasChannels();

/// N*N RGBA8 pixels of one channel (gutter texels show their source's value where it applies).
std::vector<uint8_t> atlasImage(const BakedBody& body, AtlasChannel channel);

/// Blue -> cyan -> green -> yellow -> red for t in [0, 1].
void colorMap(double t, uint8_t rgb[3]);

}  // namespace d2t
