// Colliders from any triangle soup (collider_pieces.h): an open bowl, an
// open sheet met from either side, a mesh wound inconsistently, two overlapping pieces.
// Each against a closed form: a ball at the bottom of a bowl sits where the same ball on
// the analytic sphere's inner surface would; on a sheet, where it sits on a plane.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "sim/contact/collider_pieces.h"
#include "sim/scene/obj_loader.h"
#include "sim/scene/sample_meshes.h"
#include "sim/world/world.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// A collider shape from a soup, as the scene loader makes one (wound by orientPieces).
ShapePtr soupShape(TriMesh mesh) {
  const MeshReport r = orientPieces(&mesh);
  return r.closed() ? makeMeshShape(std::move(mesh), "test") : makeOpenMeshShape(std::move(mesh), "test", r);
}

BodyDesc ballAt(double radius, const Vec3& at, double young = 5e5) {
  BodyDesc b = test::ball(radius, 16, young);
  b.position = at;
  return b;
}

Scene sceneWith(const ShapePtr& collider, const Vec3& at, const BodyDesc& body) {
  Scene s;
  s.simulation.dt = 0.005;
  s.bodies.push_back(body);
  ColliderDesc c;
  c.name = "mesh";
  c.type = ColliderType::Mesh;
  c.shape = collider;
  c.position = at;
  s.colliders.push_back(c);
  return s;
}

// The same body over the analytic plane y = height.
Scene onPlane(const BodyDesc& body, double height) {
  Scene s;
  s.simulation.dt = 0.005;
  s.bodies.push_back(body);
  ColliderDesc c;
  c.name = "ground";
  c.offset = height;
  s.colliders.push_back(c);
  return s;
}

double restHeight(const Scene& s, double seconds) {
  World w(s);
  for (int n = 0; n < int(std::lround(seconds / s.simulation.dt)); ++n) w.step();
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
  EXPECT_LT(w.bodies()[0].state.velocity.norm(), 5e-3);
  return w.bodies()[0].state.position.y();
}

}  // namespace

TEST(ColliderPieces, AClosedNearlyConvexMeshIsOnePieceAnOpenBowlFlatDoubleSidedPieces) {
  TriMesh sphere = makeSphere(0.5)->mesh(32);
  const MeshReport rs = orientPieces(&sphere);
  ASSERT_TRUE(rs.closed());
  EXPECT_EQ(cutIntoPieces(sphere, rs.closedTriangle).size(), 1u);

  TriMesh bowl = hemisphereBowl(0.6, 64);
  const MeshReport rb = orientPieces(&bowl);
  EXPECT_FALSE(rb.closed());
  EXPECT_EQ(rb.boundaryEdges, 64);
  const PieceRules rules;
  const std::vector<ColliderPiece> pieces = cutIntoPieces(bowl, rb.closedTriangle, rules);
  EXPECT_GT(pieces.size(), 4u);
  EXPECT_LT(pieces.size(), 200u);
  size_t triangles = 0;
  for (const ColliderPiece& p : pieces) {
    EXPECT_TRUE(p.doubleSided);
    EXPECT_GT(int(p.mesh.triangles.size()), p.own);  // a skirt
    triangles += size_t(p.own);
    // flat: every normal of its cluster within the cone of its axis (either sign)
    ASSERT_NEAR(p.axis.norm(), 1.0, 1e-12);
    for (int k = 0; k < p.own; ++k) {
      const Vec3i& t = p.mesh.triangles[size_t(k)];
      const Vec3 n = (p.mesh.positions[size_t(t[1])] - p.mesh.positions[size_t(t[0])])
                         .cross(p.mesh.positions[size_t(t[2])] - p.mesh.positions[size_t(t[0])]);
      EXPECT_GE(std::abs(n.normalized().dot(p.axis)), std::cos(rules.maxConeAngle) - 1e-9);
    }
  }
  EXPECT_EQ(triangles, bowl.triangles.size());
}

TEST(OpenCollider, BallAtTheBottomOfAnOpenBowlSitsWhereItWouldInTheAnalyticSphere) {
  constexpr double R = 0.6, r = 0.15;
  const Vec3 centre(0, 0.8, 0);  // the bowl's sphere; its bottom at y = 0.2
  // the ball's settling on a plane gives its compression under its weight (stiff: a few mm,
  // so that the bowl's curvature changes it by far less than the tolerance)
  const double sunk = (0.2 + r) - restHeight(onPlane(ballAt(r, Vec3(0, 0.2 + r + 0.005, 0)), 0.2), 1.5);
  EXPECT_GT(sunk, 0.0);
  EXPECT_LT(sunk, 0.01);
  // (dropped onto the bowl's pole, where its pieces meet in a concave crease: the node under
  // the ball's centre lands on it, as on the plane, so the two differ by the bowl alone)
  Scene bowl = sceneWith(soupShape(hemisphereBowl(R, 64)), centre, ballAt(r, Vec3(0, 0.2 + r + 0.005, 0)));
  const double analytic = centre.y() - (R - r) - sunk;
  EXPECT_NEAR(restHeight(bowl, 2.5), analytic, 1e-3);
}

TEST(OpenCollider, AnOpenSheetHoldsABallOnEitherSide) {
  // the sheet at y = 0: from above the ball rests on it; from below, with gravity
  // upwards, likewise under it (the same heights as on a plane, mirrored)
  constexpr double r = 0.12;
  for (const double side : {1.0, -1.0}) {
    Scene s = sceneWith(soupShape(squareSheet(1.5, 6)), Vec3::Zero(), ballAt(r, Vec3(0.1, side * (r + 0.05), 0.05)));
    s.simulation.gravity = Vec3(0, -9.81 * side, 0);
    World w(s);
    double nearest = 1e300;
    for (int n = 0; n < 300; ++n) {
      w.step();
      nearest = std::min(nearest, side * w.bodies()[0].state.position.y());
    }
    EXPECT_EQ(w.bodies()[0].stats.resets, 0) << side;
    EXPECT_GT(nearest, 0.9 * r) << side;                       // never through
    EXPECT_NEAR(side * w.bodies()[0].state.position.y(), r, 0.01) << side;  // resting on it
    EXPECT_LT(w.bodies()[0].stats.maxPenetration, 0.005) << side;
  }
}

TEST(OpenCollider, InconsistentWindingAndOverlappingPiecesHoldABallAsOnePlaneDoes) {
  // a sheet, the same with every other triangle turned, and two overlapping sheets (the
  // second 2 mm below and turned by 30 degrees): the ball rests on each as on the plane
  constexpr double r = 0.12;
  TriMesh turned = squareSheet(1.5, 6);
  for (size_t t = 0; t < turned.triangles.size(); t += 2) std::swap(turned.triangles[t][1], turned.triangles[t][2]);
  TriMesh two = squareSheet(1.5, 6), other = squareSheet(1.2, 5);
  other.transform(Eigen::AngleAxisd(kPi / 6, Vec3::UnitY()).toRotationMatrix(), Vec3(0.1, -0.002, 0));
  two.append(other);
  const double plane = restHeight(onPlane(ballAt(r, Vec3(0.05, r + 0.01, 0)), 0), 1.5);
  for (const TriMesh& m : {squareSheet(1.5, 6), turned, two}) {
    Scene s = sceneWith(soupShape(m), Vec3::Zero(), ballAt(r, Vec3(0.05, r + 0.01, 0)));
    EXPECT_NEAR(restHeight(s, 1.5), plane, 5e-4);
  }
}

TEST(OpenCollider, NothingTunnelsThroughAnOpenBowlOverAThousandThrows) {
  // a ball thrown inside an open bowl from random points at random velocities up to
  // 10 m/s (10 m/s x dt = 5 cm, half the ball's radius): its centre never crosses the
  // bowl's sheet below the rim (it may leave over the rim), and never comes nearer the
  // sheet than half its radius
  constexpr double R = 0.6, r = 0.1;
  const Vec3 centre(0, 0.8, 0);
  Scene s = sceneWith(soupShape(hemisphereBowl(R, 48)), centre, ballAt(r, centre + Vec3(0, -0.3, 0), 2e5));
  World w(s);
  const WorldState start = w.capture();
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(-1, 1), speed(0, 10);
  int crossings = 0, tooNear = 0, resets = 0, throws = 0, runaway = 0;
  double nearestRatio = 1e300;
  for (int k = 0; k < 1000; ++k) {
    WorldState at = start;
    Vec3 p;
    do p = Vec3(u(rng), -std::abs(u(rng)), u(rng)) * (R - r - 0.02);
    while (p.norm() > R - r - 0.02 || p.y() > -r);
    Vec3 v(u(rng), u(rng), u(rng));
    v = v.normalized() * speed(rng);
    LayeredState& st = at.bodies[0].layered.state;
    st.position = centre + p;
    st.velocity = v;
    at.bodies[0].energyFloor = 1e300;  // a new start: the blow-up check's energy floor from here
    w.restore(at);
    ++throws;
    bool inside = true;
    for (int n = 0; n < 40; ++n) {
      w.step();
      const Vec3 c = w.bodies()[0].layered.core().position - centre;
      if (c.y() > -0.01) {  // over the rim's plane: free to leave
        inside = c.norm() < R;
        continue;
      }
      const bool now = c.norm() < R;
      if (now != inside) ++crossings;
      inside = now;
      const double gap = std::abs(R - c.norm());
      nearestRatio = std::min(nearestRatio, gap / r);
      tooNear += gap < 0.5 * r;
    }
    resets += w.bodies()[0].stats.resets;
    for (const std::string& m : w.takeWarnings()) runaway += m.find("non-finite, runaway") != std::string::npos;
  }
  std::printf("%d throws: %d crossings, %d steps nearer than r/2, nearest centre %.3f r from the sheet, %d resets "
              "(%d runaway)\n", throws, crossings, tooNear, nearestRatio, resets, runaway);
  EXPECT_EQ(crossings, 0);
  EXPECT_EQ(tooNear, 0);
  // no hit turns a wall's contacts round (a piece's side measured from its box centre, which
  // its skirt pulls into the bowl, did: 12 runaway resets, every contact facing out)
  EXPECT_EQ(runaway, 0);
  // the energy check still resets a few hits over the rim's edge (6 at this writing, in 4
  // throws, all with the centre above the rim, a node come round the rim's edge pushed back
  // 14 mm by the correction; a plane: none): open (docs/decisions/0036, 0038), held here
  // from growing
  EXPECT_LE(resets, 8);
}

}  // namespace d2t
