// Triangle meshes: mass properties against closed forms, topology checks,
// welding and normals.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/scene/shape.h"
#include "sim/scene/tri_mesh.h"
#include "test_shapes.h"

using namespace d2t;

namespace {

// Axis-aligned box [lo, hi] as 8 vertices and 12 outward triangles.
TriMesh boxMesh(const Vec3& lo, const Vec3& hi) {
  TriMesh m;
  for (int k = 0; k < 8; ++k)
    m.positions.emplace_back(k & 1 ? hi.x() : lo.x(), k & 2 ? hi.y() : lo.y(),
                             k & 4 ? hi.z() : lo.z());
  // quads counter-clockwise seen from outside (vertex k has bits x=1, y=2, z=4)
  const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : quads) {
    m.triangles.emplace_back(q[0], q[1], q[2]);
    m.triangles.emplace_back(q[0], q[2], q[3]);
  }
  return m;
}

using test::octahedron;

}  // namespace

TEST(TriMesh, UnitCubeMassPropertiesAreExact) {
  const TriMesh cube = boxMesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  EXPECT_TRUE(cube.isClosed());
  const MassProperties mp = cube.massProperties(1000);
  EXPECT_NEAR(mp.volume, 1.0, 1e-14);
  EXPECT_NEAR(mp.mass, 1000.0, 1e-10);
  EXPECT_LT((mp.com - Vec3(0.5, 0.5, 0.5)).norm(), 1e-14);
  // solid cube of side a about its centre: I = m a^2 / 6 on the diagonal
  EXPECT_LT((mp.inertia - Mat3::Identity() * 1000.0 / 6.0).norm(), 1e-10);
}

TEST(TriMesh, OffsetRotatedBoxMassPropertiesAreExact) {
  // box of extents (a, b, c) = (2, 1, 0.5): I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)
  TriMesh box = boxMesh(Vec3(-1, -0.5, -0.25), Vec3(1, 0.5, 0.25));
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Vec3 t(3, -2, 1);
  box.transform(R, t);
  const double rho = 7.5, m = rho * 1.0;
  const MassProperties mp = box.massProperties(rho);
  EXPECT_NEAR(mp.volume, 1.0, 1e-13);
  EXPECT_NEAR(mp.mass, m, 1e-12);
  EXPECT_LT((mp.com - t).norm(), 1e-13);
  const Mat3 Ibody = (m / 12.0) * Vec3(1 + 0.25, 4 + 0.25, 4 + 1).asDiagonal().toDenseMatrix();
  EXPECT_LT((mp.inertia - R * Ibody * R.transpose()).norm(), 1e-12);
  EXPECT_NEAR(box.bounds().center().x(), t.x(), 1e-12);
}

TEST(TriMesh, SphereMeshVolumeAndInertiaMatchClosedForm) {
  const double r = 0.5, rho = 1000;
  const TriMesh mesh = starMesh(*makeSphere(r), 64);
  ASSERT_TRUE(mesh.isClosed());
  const MassProperties mp = mesh.massProperties(rho);
  const double V = 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_NEAR(mp.volume / V, 1.0, 0.01);
  EXPECT_LT(mp.com.norm(), 1e-12);
  // solid sphere: I = 2/5 m r^2, isotropic
  const double I = 0.4 * mp.mass * r * r;
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.inertia(k, k) / I, 1.0, 0.02);
  // (the cube-sphere's quads are all split along the same diagonal: a slight
  // anisotropy, far below the tolerance)
  EXPECT_LT((mp.inertia - mp.inertia.diagonal().asDiagonal().toDenseMatrix()).norm(), 1e-4 * I);
  std::printf("sphere r=%.2f res 64: volume error %.2e, inertia error %.2e\n", r,
              mp.volume / V - 1, mp.inertia(0, 0) / I - 1);
}

TEST(TriMesh, FlippedMeshHasNegativeVolume) {
  TriMesh cube = boxMesh(Vec3(0, 0, 0), Vec3(2, 1, 1));
  EXPECT_NEAR(cube.volume(), 2.0, 1e-14);
  for (Vec3i& t : cube.triangles) std::swap(t[1], t[2]);
  EXPECT_NEAR(cube.volume(), -2.0, 1e-14);
  EXPECT_TRUE(cube.isClosed());  // still closed: edges pair up in opposite directions
}

TEST(TriMesh, ClosedRequiresEveryEdgeTwiceInOppositeDirections) {
  TriMesh cube = boxMesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  TriMesh open = cube;
  open.triangles.pop_back();
  EXPECT_FALSE(open.isClosed());
  TriMesh inconsistent = cube;
  std::swap(inconsistent.triangles[0][1], inconsistent.triangles[0][2]);
  EXPECT_FALSE(inconsistent.isClosed());
  EXPECT_FALSE(TriMesh().isClosed());
}

TEST(TriMesh, WeldJoinsSplitVerticesAndClosesTheMesh) {
  // every triangle with its own three vertices (as a triangle soup from STL)
  const TriMesh cube = boxMesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  TriMesh soup;
  for (const Vec3i& t : cube.triangles) {
    const int base = static_cast<int>(soup.positions.size());
    for (int k = 0; k < 3; ++k) soup.positions.push_back(cube.positions[t[k]] + Vec3::Constant(1e-12 * k));
    soup.triangles.emplace_back(base, base + 1, base + 2);
  }
  EXPECT_FALSE(soup.isClosed());
  EXPECT_EQ(soup.weld(1e-9), 36 - 8);
  EXPECT_EQ(soup.positions.size(), 8u);
  EXPECT_EQ(soup.triangles.size(), 12u);
  EXPECT_TRUE(soup.isClosed());
  EXPECT_NEAR(soup.volume(), 1.0, 1e-9);
}

TEST(TriMesh, WeldRemovesCollapsedTriangles) {
  TriMesh m;
  m.positions = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1e-6, 0, 0), Vec3(0, 1, 0)};
  m.triangles = {Vec3i(0, 1, 3), Vec3i(0, 2, 3)};
  EXPECT_EQ(m.weld(1e-3), 1);
  EXPECT_EQ(m.triangles.size(), 1u);
}

TEST(TriMesh, AppendOffsetsIndicesAndTransformMoves) {
  TriMesh a = boxMesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  TriMesh b = a;
  b.transform(Mat3::Identity() * 2, Vec3(5, 0, 0));
  a.append(b);
  EXPECT_EQ(a.positions.size(), 16u);
  EXPECT_EQ(a.triangles.size(), 24u);
  EXPECT_TRUE(a.isClosed());
  EXPECT_NEAR(a.volume(), 1.0 + 8.0, 1e-12);
  const Aabb box = a.bounds();
  EXPECT_LT((box.lo - Vec3(0, 0, 0)).norm(), 1e-15);
  EXPECT_LT((box.hi - Vec3(7, 2, 2)).norm(), 1e-15);
}

TEST(TriMesh, VertexNormalsOfOctahedronPointAlongTheAxes) {
  const TriMesh m = octahedron(2.0);
  const std::vector<Vec3> n = m.vertexNormals();
  ASSERT_EQ(n.size(), 6u);
  for (size_t i = 0; i < n.size(); ++i)
    EXPECT_LT((n[i] - m.positions[i].normalized()).norm(), 1e-14) << "vertex " << i;
}
