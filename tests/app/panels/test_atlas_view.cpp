// Texture-viewer pictures of the baked atlas show what the atlas holds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "app/panels/atlas_view.h"

using namespace d2t;

TEST(AtlasView, MaskPatchAndMaterialPicturesMatchTheAtlas) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(0.5);
  d.atlasResolution = 32;
  MaterialRegion stiff;
  stiff.normal = Vec3::UnitX();
  stiff.young = 20 * d.material.young;
  d.regions.push_back(stiff);
  const BakedBodyPtr b = bake(d);
  const Atlas& a = b->atlas;

  const std::vector<uint8_t> mask = atlasImage(*b, AtlasChannel::ValidMask);
  ASSERT_EQ(mask.size(), size_t(32 * 32 * 4));
  int white = 0;
  for (int t = 0; t < a.texelCount(); ++t) {
    const bool node = a.texelKind[t] == TexelKind::Node;
    EXPECT_EQ(mask[size_t(t) * 4] == 255, node) << t;
    white += mask[size_t(t) * 4] == 255;
  }
  EXPECT_EQ(white, b->nodeCount());

  // patch ids: six distinct colours over the nodes
  const std::vector<uint8_t> patch = atlasImage(*b, AtlasChannel::PatchId);
  std::set<int> colours;
  for (int i = 0; i < b->nodeCount(); ++i) {
    const uint8_t* p = &patch[size_t(a.nodeTexel[i]) * 4];
    colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
  }
  EXPECT_EQ(colours.size(), 6u);

  // material map: stiff nodes (x > 0) red end, soft nodes blue end
  const std::vector<uint8_t> young = atlasImage(*b, AtlasChannel::Young);
  for (int i = 0; i < b->nodeCount(); ++i) {
    const uint8_t* p = &young[size_t(a.nodeTexel[i]) * 4];
    if (b->material[i].young > d.material.young) {
      EXPECT_GT(p[0], p[2]) << i;
    } else {
      EXPECT_GT(p[2], p[0]) << i;
    }
  }
}

// Live channels: the displacement and contact pictures carry the state's values at
// each node's texel (gutters their source's), the colour map runs from 0 to the
// largest, and the readout under the cursor names the texel, node and value.
TEST(AtlasView, LiveDisplacementAndContactPicturesCarryTheStateValues) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(0.5);
  d.atlasResolution = 32;
  const BakedBodyPtr b = bake(d);
  const Atlas& a = b->atlas;
  LayeredState st;
  st.q.assign(size_t(b->nodeCount()), Vec3::Zero());
  st.qdot.assign(size_t(b->nodeCount()), Vec3::Zero());
  const int pushed = b->nodeCount() / 3;
  st.q[size_t(pushed)] = Vec3(0, -0.03, 0.04);  // |q| = 5 cm, the largest
  st.q[0] = Vec3(0.01, 0, 0);

  const TexturePicture disp = atlasPicture(*b, AtlasChannel::Displacement, &st);
  ASSERT_EQ(disp.width, 32);
  ASSERT_EQ(disp.components, 3);
  EXPECT_DOUBLE_EQ(disp.lo, 0.0);
  EXPECT_NEAR(disp.hi, 0.05, 1e-7);
  const size_t tp = size_t(a.nodeTexel[size_t(pushed)]);
  EXPECT_FLOAT_EQ(disp.values[tp * 3 + 1], -0.03f);
  EXPECT_FLOAT_EQ(disp.values[tp * 3 + 2], 0.04f);
  EXPECT_GE(disp.rgba[tp * 4], 120);      // the largest: the red end (127, 0, 0)
  EXPECT_LT(disp.rgba[tp * 4 + 1] + disp.rgba[tp * 4 + 2], 10);
  const size_t t0 = size_t(a.nodeTexel[0]);
  EXPECT_GT(disp.rgba[t0 * 4 + 2], disp.rgba[t0 * 4]);  // 1 cm of 5: blue side
  const size_t t1 = size_t(a.nodeTexel[1]);
  EXPECT_FLOAT_EQ(disp.values[t1 * 3], 0.0f);  // at rest
  // a gutter texel shows its source's value
  int gutters = 0;
  for (int t = 0; t < a.texelCount(); ++t)
    if (a.texelKind[t] == TexelKind::Gutter && a.gutterSource[t] >= 0) {
      const size_t src = size_t(a.nodeTexel[size_t(a.gutterSource[t])]);
      EXPECT_EQ(disp.values[size_t(t) * 3], disp.values[src * 3]) << t;
      ++gutters;
    }
  EXPECT_GT(gutters, 0);
  const int px = int(tp) % 32, py = int(tp) / 32;
  const std::string r = pictureReadout(disp, px, py);
  EXPECT_NE(r.find("node " + std::to_string(pushed)), std::string::npos) << r;
  EXPECT_NE(r.find("|.| 0.05"), std::string::npos) << r;
  EXPECT_EQ(pictureReadout(disp, 32, 0), "");  // outside

  // without a state (or with one of another size) a live picture is black, without values
  const TexturePicture none = atlasPicture(*b, AtlasChannel::Velocity, nullptr);
  EXPECT_EQ(none.components, 0);
  EXPECT_EQ(none.rgba[tp * 4], 0);

  // contacts: the deepest per node, NaN (and grey) where a node has none
  std::vector<NodeContact> contacts(3);
  contacts[0].node = pushed;
  contacts[0].depth = 0.002;
  contacts[0].normal = Vec3(1, 0, 0);
  contacts[1].node = pushed;
  contacts[1].depth = 0.006;  // deeper: this one
  contacts[1].normal = Vec3(0, 1, 0);
  contacts[2].node = b->nodeCount() + 5;  // out of range: ignored, no crash
  const TexturePicture depth = atlasPicture(*b, AtlasChannel::ContactDepth, &st, &contacts);
  EXPECT_FLOAT_EQ(depth.values[tp], 0.006f);
  EXPECT_NEAR(depth.hi, 0.006, 1e-9);
  EXPECT_TRUE(std::isnan(depth.values[t0]));
  EXPECT_EQ(depth.rgba[t0 * 4], 40);
  EXPECT_NE(pictureReadout(depth, int(t0) % 32, int(t0) / 32).find("no value"), std::string::npos);
  const TexturePicture normal = atlasPicture(*b, AtlasChannel::ContactNormal, &st, &contacts);
  EXPECT_FLOAT_EQ(normal.values[tp * 3 + 1], 1.0f);
  EXPECT_EQ(normal.rgba[tp * 4 + 1], 255);  // +y: green full
  EXPECT_EQ(normal.rgba[tp * 4], 127);      // x = 0: half
}

// The contact texture D: overlap on the colour map up to its deepest, separated
// skins grey (darker with the gap), no skin black; values kept for the readout.
TEST(AtlasView, ContactTexturePictureColoursOverlapGapAndMissingSkin) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> d = {nan, -0.01f, 0.0f, 0.004f, 0.002f, -0.005f, nan, 0.001f, nan};
  const TexturePicture p = contactTexturePicture(3, d);
  ASSERT_EQ(p.width, 3);
  EXPECT_NEAR(p.hi, 0.004, 1e-9);
  auto px = [&](int t, int c) { return int(p.rgba[size_t(t) * 4 + size_t(c)]); };
  EXPECT_EQ(px(0, 0) + px(0, 1) + px(0, 2), 0);  // no skin
  EXPECT_EQ(px(1, 0), px(1, 2));                  // gap: grey
  EXPECT_LT(px(1, 0), px(5, 0));                  // the wider gap darker
  EXPECT_GE(px(3, 0), 120);                       // deepest: the red end
  EXPECT_LT(px(3, 1) + px(3, 2), 10);
  EXPECT_GT(px(7, 2), px(7, 0));                  // a quarter of the deepest: the blue side
  EXPECT_NE(pictureReadout(p, 0, 1).find("0.004 m"), std::string::npos) << pictureReadout(p, 0, 1);
  EXPECT_NE(pictureReadout(p, 0, 0).find("no value"), std::string::npos);
  // a size that does not match: an empty picture, not a crash
  EXPECT_EQ(contactTexturePicture(4, d).width, 0);
  EXPECT_EQ(contactTexturePicture(-1, d).width, 0);
}
