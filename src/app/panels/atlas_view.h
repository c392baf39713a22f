#pragma once
// Pictures for the texture viewer: what each texel of a body's atlas holds
// (baked: rest and core positions, valid mask, patches, material map, node
// masses; live: skin displacements and velocities, contact depth and normal),
// and the contact texture D of the GPU contact camera, as RGBA8 images with the
// values behind every texel for a readout under the cursor.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/baked_body.h"
#include "sim/body/layered_body.h"

namespace d2t {

enum class AtlasChannel {
  RestPosition,    ///< rest skin point g, body-frame box mapped to RGB
  CorePosition,    ///< core point f, same mapping
  ValidMask,       ///< node white, gutter grey, invalid black
  PatchId,         ///< one colour per patch (gutters darker)
  Young,           ///< material map: log10 of Young's modulus, blue (soft) to red (stiff)
  Density,         ///< material map: density, blue to red
  NodeMass,        ///< lumped node mass, blue to red
  Displacement,    ///< live: |q|, skin displacement from rest (body frame), 0 blue to max red
  Velocity,        ///< live: |qdot|, skin velocity against the core (body frame), 0 blue to max red
  ContactDepth,    ///< live: penetration depth of the contacts the last step responded to
  ContactNormal,   ///< live: their world normal, (n + 1) / 2 as RGB
};

/// Every channel with its panel label.
const std::vector<std::pair<AtlasChannel, const char*>>& atlasChannels();
/// Whether the channel changes as the body moves (needs a state or contacts).
bool isLiveChannel(AtlasChannel channel);

/// An image of a texture with the values behind it.
struct TexturePicture {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;    ///< (height x width x 4) RGBA8, row 0 = texel row 0
  int components = 0;           ///< values per texel: 0 (none), 1 (scalar) or 3 (vector)
  std::vector<float> values;    ///< (height x width x components); NaN where the texel holds nothing
  std::vector<int> node;        ///< (height x width) node a texel shows (gutters: their source), -1: none
  std::string unit;             ///< of the values ("" for none)
  double lo = 0, hi = 0;        ///< range of the colour map (lo == hi: no colour map)
};

/// One channel of a body's atlas (N x N). The live channels read `state` (Displacement,
/// Velocity) or `contacts` (ContactDepth, ContactNormal: one per node, the deepest);
/// without them the picture is black with no values.
TexturePicture atlasPicture(const BakedBody& body, AtlasChannel channel, const LayeredState* state = nullptr,
                            const std::vector<NodeContact>* contacts = nullptr);

/// The pixels of atlasPicture (baked channels).
std::vector<uint8_t> atlasImage(const BakedBody& body, AtlasChannel channel);

/// The contact texture D (resolution x resolution, D = h_A - h_B [m], NaN where
/// either skin is missing): overlap (D > 0) on the colour map from 0 to its
/// deepest, separated skins (D <= 0) in grey, darker with the gap, no skin black.
TexturePicture contactTexturePicture(int resolution, const std::vector<float>& d);

/// "texel (x, y) node i: value unit" for the texel (x, y) of a picture, or what is
/// missing there ("no value"); "" outside the picture.
std::string pictureReadout(const TexturePicture& picture, int x, int y);

/// Blue -> cyan -> green -> yellow -> red for t in [0, 1].
void colorMap(double t, uint8_t rgb[3]);

}  // namespace d2t
