// What the loader sees in a triangle soup (mesh_check.h): pieces, boundary and
// non-manifold edges, windings made consistent, closed pieces turned outward.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/scene/mesh_check.h"
#include "sim/scene/sample_meshes.h"

namespace d2t {

TEST(MeshCheck, FindsPiecesOpenEdgesAndRewindsInconsistentTriangles) {
  // an octahedron with every other face turned, and an open sheet beside it
  TriMesh m;
  const Vec3 v[6] = {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)};
  for (const Vec3& p : v) m.positions.push_back(p);
  const int f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  for (int i = 0; i < 8; ++i) m.triangles.emplace_back(f[i][0], i % 2 ? f[i][2] : f[i][1], i % 2 ? f[i][1] : f[i][2]);
  TriMesh sheet = squareSheet(1, 2);
  sheet.transform(Mat3::Identity(), Vec3(3, 0, 0));
  m.append(sheet);
  const MeshReport r = orientPieces(&m);
  EXPECT_EQ(r.pieces, 2);
  EXPECT_EQ(r.closedPieces, 1);
  EXPECT_EQ(r.boundaryEdges, 8);  // the sheet's rim: 2 x 4
  EXPECT_EQ(r.nonManifoldEdges, 0);
  EXPECT_EQ(r.conflicts, 0);
  EXPECT_EQ(r.rewound, 4);  // the four turned faces (the first face keeps its winding)
  EXPECT_NEAR(r.volume, 4.0 / 3.0, 1e-12);  // the octahedron's, outward
  EXPECT_FALSE(r.closed());
  EXPECT_NE(r.openProblems().find("8 boundary edges"), std::string::npos);
  // the octahedron's triangles one-sided, the sheet's double-sided
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(r.closedTriangle[size_t(t)]);
  for (size_t t = 8; t < m.triangles.size(); ++t) EXPECT_FALSE(r.closedTriangle[t]);
  TriMesh octa = m;
  octa.triangles.resize(8);
  EXPECT_TRUE(octa.isClosed());
  EXPECT_NEAR(octa.volume(), 4.0 / 3.0, 1e-12);
}

TEST(MeshCheck, CountsEdgesOfThreeTrianglesAndAOneSidedStrip) {
  // three fins on one edge, and a Moebius strip of 5 quads
  TriMesh m;
  m.positions = {Vec3(0, 0, 0), Vec3(0, 1, 0), Vec3(1, 0, 0), Vec3(-1, 0, 1), Vec3(-1, 0, -1)};
  m.triangles = {Vec3i(0, 1, 2), Vec3i(0, 1, 3), Vec3i(1, 0, 4)};
  EXPECT_EQ(orientPieces(&m).nonManifoldEdges, 1);
  TriMesh strip;
  const int n = 5;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * kPi * i / n, tw = 0.5 * a;  // half a turn of twist once round
    const Vec3 c(std::cos(a), std::sin(a), 0), w = std::cos(tw) * c + std::sin(tw) * Vec3::UnitZ();
    strip.positions.push_back(c - 0.2 * w);
    strip.positions.push_back(c + 0.2 * w);
  }
  for (int i = 0; i < n; ++i) {
    const int a0 = 2 * i, a1 = 2 * i + 1;
    // the last quad joins the first with its sides swapped: the half twist
    const int b0 = i + 1 < n ? 2 * i + 2 : 1, b1 = i + 1 < n ? 2 * i + 3 : 0;
    strip.triangles.emplace_back(a0, b0, b1);
    strip.triangles.emplace_back(a0, b1, a1);
  }
  const MeshReport r = orientPieces(&strip);
  EXPECT_GE(r.conflicts, 1);
  EXPECT_EQ(r.closedPieces, 0);
}

}  // namespace d2t
