// Texture-viewer pictures of the baked atlas show what the atlas holds.
#include <gtest/gtest.h>

#include "app/atlas_view.h"

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
