// Atlas layouts: every node sees its mesh neighbours through the 7-slot stencil
// after the gutter fill, and the implicit surface is a closed oriented manifold.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/model/atlas.h"

namespace d2t {
namespace {

// mesh neighbours of every node, from the triangles
std::vector<std::set<int>> meshNeighbours(const Atlas& a) {
  std::vector<std::set<int>> nb(a.nodeCount());
  for (const Vec3i& t : a.triangles)
    for (int e = 0; e < 3; ++e) {
      nb[t[e]].insert(t[(e + 1) % 3]);
      nb[t[(e + 1) % 3]].insert(t[e]);
    }
  return nb;
}

int eulerCharacteristic(const Atlas& a) {
  std::set<std::pair<int, int>> edges;
  for (const Vec3i& t : a.triangles)
    for (int e = 0; e < 3; ++e) edges.insert(std::minmax(t[e], t[(e + 1) % 3]));
  return a.nodeCount() - static_cast<int>(edges.size()) + static_cast<int>(a.triangles.size());
}

// the stencil sees exactly the mesh neighbours (no missing, no spurious node)
void expectCompleteNeighbourhoods(const Atlas& a) {
  const auto nb = meshNeighbours(a);
  int wrong = 0;
  for (int i = 0; i < a.nodeCount(); ++i) {
    ASSERT_EQ(a.stencil[i][0], i);
    std::set<int> seen;
    for (int s = 1; s < kStencilSlots; ++s)
      if (a.stencil[i][s] >= 0) seen.insert(a.stencil[i][s]);
    if (seen != nb[i]) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "nodes whose stencil differs from their mesh neighbourhood";
  EXPECT_EQ(countUnreachableEdges(a), 0);
}

// fill a texture with node ids, run the gutter fill, read every slot at its texel offset
void expectGutterFillMatchesStencil(const Atlas& a) {
  const int n = a.resolution;
  std::vector<float> tex(static_cast<size_t>(n) * n * 2, -1.0f);
  for (int i = 0; i < a.nodeCount(); ++i) {
    tex[2 * a.nodeTexel[i]] = static_cast<float>(i);
    tex[2 * a.nodeTexel[i] + 1] = static_cast<float>(-i);
  }
  fillGutter(a, tex.data(), 2);
  int wrong = 0;
  for (int i = 0; i < a.nodeCount(); ++i) {
    const int x = a.nodeTexel[i] % n, y = a.nodeTexel[i] / n;
    for (int s = 0; s < kStencilSlots; ++s) {
      const int xs = x + kStencilDx[s], ys = y + kStencilDy[s];
      const float v = (xs >= 0 && xs < n && ys >= 0 && ys < n) ? tex[2 * (ys * n + xs)] : -1.0f;
      const float w = (xs >= 0 && xs < n && ys >= 0 && ys < n) ? tex[2 * (ys * n + xs) + 1] : 1.0f;
      const int want = a.stencil[i][s];
      if (want >= 0 ? (v != want || w != -want) : v != -1.0f) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0);
  // the double version copies the same way
  std::vector<double> texd(static_cast<size_t>(n) * n, -1.0);
  for (int i = 0; i < a.nodeCount(); ++i) texd[a.nodeTexel[i]] = i;
  fillGutter(a, texd.data(), 1);
  for (int t : a.gutterTexels) ASSERT_EQ(texd[t], a.gutterSource[t]);
}

class AtlasCubeMap : public ::testing::TestWithParam<int> {};

TEST_P(AtlasCubeMap, CompleteClosedAndFilled) {
  const int n = GetParam();
  const Atlas a = buildCubeMapAtlas(n);
  const int p = n / 3 - 2;
  EXPECT_EQ(a.patchSize, p);
  EXPECT_EQ(a.nodeCount(), 6 * p * p);
  EXPECT_EQ(static_cast<int>(a.triangles.size()), 12 * p * p - 4);
  EXPECT_TRUE(isClosedSurface(a.triangles));
  EXPECT_EQ(eulerCharacteristic(a), 2);
  expectCompleteNeighbourhoods(a);
  expectGutterFillMatchesStencil(a);
  // outward orientation: the mesh over the unit directions encloses a positive volume
  double vol = 0;
  for (const Vec3i& t : a.triangles)
    vol += a.nodeDirection[t[0]].cross(a.nodeDirection[t[1]]).dot(a.nodeDirection[t[2]]) / 6;
  EXPECT_GT(vol, 0.85 * 4.0 / 3.0 * kPi);
  EXPECT_LT(vol, 4.0 / 3.0 * kPi);
  // valence: 6 except near the 8 cube corners
  std::map<int, int> valence;
  for (const auto& s : meshNeighbours(a)) ++valence[static_cast<int>(s.size())];
  for (auto [v, count] : valence) EXPECT_TRUE(v >= 4 && v <= 6) << "valence " << v << " x" << count;
}

INSTANTIATE_TEST_SUITE_P(AtlasN, AtlasCubeMap, ::testing::Values(15, 32, 64, 128, 256));

TEST(AtlasCubeMapSizes, NodesPerResolution) {
  EXPECT_EQ(buildCubeMapAtlas(64).nodeCount(), 2166);
  EXPECT_EQ(buildCubeMapAtlas(256).patchSize, 83);
}

class AtlasTorus : public ::testing::TestWithParam<int> {};

TEST_P(AtlasTorus, CompleteClosedAndFilled) {
  const int n = GetParam();
  const Atlas a = buildTorusAtlas(n);
  EXPECT_EQ(a.nodeCount(), (n - 2) * (n - 2));
  EXPECT_TRUE(isClosedSurface(a.triangles));
  EXPECT_EQ(eulerCharacteristic(a), 0);
  expectCompleteNeighbourhoods(a);
  expectGutterFillMatchesStencil(a);
}

INSTANTIATE_TEST_SUITE_P(AtlasN, AtlasTorus, ::testing::Values(5, 32, 64));

TEST(AtlasClosedSurface, DetectsHolesAndFlips) {
  std::vector<Vec3i> tet = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
  EXPECT_TRUE(isClosedSurface(tet));
  std::vector<Vec3i> hole(tet.begin(), tet.end() - 1);
  EXPECT_FALSE(isClosedSurface(hole));
  std::vector<Vec3i> flipped = tet;
  std::swap(flipped[0][1], flipped[0][2]);
  EXPECT_FALSE(isClosedSurface(flipped));
}

}  // namespace
}  // namespace d2t
