// Closing any triangle soup (mesh_repair.h) and the winding number it stands on
// (winding_number.h): w is 1 inside a closed surface, 0 outside, 1/2 where an open hemisphere
// spans its rim; the tree follows the exact sum; holes cut into a sphere come out filled
// within 1% of its radius, overlapping pieces merged with their union's volume, a small piece
// apart dropped (two alike refused), a sheet refused, and a closed banana re-meshed on its own
// surface. Surface nets of any field are a closed manifold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "sim/base/json_reader.h"
#include "sim/scene/mesh_repair.h"
#include "sim/scene/sample_meshes.h"
#include "sim/scene/shape.h"
#include "sim/scene/surface_nets.h"
#include "sim/scene/winding_number.h"

namespace d2t {
namespace {

// A sphere of radius r with the triangles within `degrees` of three directions removed.
TriMesh sphereWithHoles(double r, double degrees) {
  const TriMesh s = starMesh(*makeSphere(r), 24);
  TriMesh cut;
  cut.positions = s.positions;
  const Vec3 dirs[3] = {Vec3(0, 1, 0), Vec3(1, 0.2, 0.3).normalized(), Vec3(-0.3, -0.5, 0.8).normalized()};
  for (const Vec3i& t : s.triangles) {
    const Vec3 c = (s.positions[size_t(t[0])] + s.positions[size_t(t[1])] + s.positions[size_t(t[2])]).normalized();
    bool keep = true;
    for (const Vec3& d : dirs) keep = keep && c.dot(d) < std::cos(degrees * kPi / 180);
    if (keep) cut.triangles.push_back(t);
  }
  return cut;
}

int eulerCharacteristic(const TriMesh& m) {
  return int(m.positions.size()) - int(m.triangles.size()) * 3 / 2 + int(m.triangles.size());
}

TEST(WindingNumber, OneInsideZeroOutsideHalfOverAnOpenRimAndTheTreeFollowsTheExactSum) {
  const TriMesh sphere = starMesh(*makeSphere(0.5), 24);
  const WindingNumber w(sphere.positions, sphere.triangles);
  EXPECT_NEAR(w.exact(Vec3::Zero()), 1.0, 1e-12);
  EXPECT_NEAR(w.exact(Vec3(0.3, -0.2, 0.1)), 1.0, 1e-12);
  EXPECT_NEAR(w.exact(Vec3(0.9, 0.1, 0)), 0.0, 1e-12);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  double worst = 0, mean = 0;
  for (int i = 0; i < 4000; ++i) {
    const Vec3 q(u(rng), u(rng), u(rng));
    const double e = std::abs(w(q) - w.exact(q));
    worst = std::max(worst, e);
    mean += e / 4000;
  }
  std::printf("winding number tree (beta 3) against the exact sum on a 24^2-per-face sphere: max %.2e, mean %.2e\n",
              worst, mean);
  EXPECT_LT(worst, 0.02);
  EXPECT_LT(mean, 0.003);
  // an open hemisphere (outward: down) wraps its sphere's centre by half
  const TriMesh bowl = hemisphereBowl(0.6, 64);
  const WindingNumber b(bowl.positions, bowl.triangles);
  EXPECT_NEAR(std::abs(b.exact(Vec3::Zero())), 0.5, 1e-9);
  EXPECT_NEAR(std::abs(b(Vec3::Zero())), 0.5, 0.01);
}

TEST(MeshRepair, FillsHolesInASphereWithinOnePercentOfItsRadius) {
  const double r = 0.5;
  const TriMesh cut = sphereWithHoles(r, 10);
  const MeshRepair m = repairMesh(cut, 2000, "holes.obj");
  double worst = 0;
  for (const Vec3& x : m.mesh.positions) worst = std::max(worst, std::abs(x.norm() - r));
  std::printf("sphere r %.2f with 3 holes of 10 degrees (%d boundary edges), repaired at %d nodes: surface within "
              "%.3f%% of r; %s\n", r, m.boundaryEdges, m.nodes, 100 * worst / r, m.summary().c_str());
  EXPECT_EQ(m.holesFilled, 3);
  EXPECT_TRUE(closedManifold(m.mesh));
  EXPECT_EQ(eulerCharacteristic(m.mesh), 2);
  EXPECT_EQ(m.piecesOut, 1);
  EXPECT_LT(worst, 0.01 * r);
  EXPECT_NEAR(double(m.nodes), 2000, 40);
  EXPECT_TRUE(m.starShaped) << m.notStarShaped;
  EXPECT_NE(m.summary().find("holes.obj: closed by a winding-number repair: 3 holes filled"), std::string::npos)
      << m.summary();
  // the fills are faired: without them the holes' discs would sag 1 - cos 10 deg = 1.5% of r
  EXPECT_GT(m.maxDistance, 0.1 * r);  // (the fills' middles, far from any input triangle)
}

// A solid with its own signed distance (a procedural shape, a closed mesh) is meshed on that
// distance's zero set, not on its coarse soup's facets.
TEST(MeshRepair, MeshesASolidsOwnDistanceWhereItHasOne) {
  const double r = 0.5;
  const TriMesh coarse = starMesh(*makeSphere(r), 4);  // flat facets, inside the sphere by up to ~4%
  const MeshRepair soup = repairMesh(coarse, 1500, "coarse.obj");
  const MeshRepair exact = repairMesh(coarse, 1500, "sphere", [r](const Vec3& x) { return x.norm() - r; });
  const auto off = [r](const MeshRepair& m) {
    double worst = 0;
    for (const Vec3& x : m.mesh.positions) worst = std::max(worst, std::abs(x.norm() - r));
    return worst / r;
  };
  std::printf("a coarse sphere (%zu triangles) re-meshed at 1,500 nodes: on its soup within %.2e r of the sphere, on "
              "the sphere's own distance within %.2e r\n", coarse.triangles.size(), off(soup), off(exact));
  for (const MeshRepair* m : {&soup, &exact}) {
    EXPECT_TRUE(closedManifold(m->mesh));
    EXPECT_NEAR(double(m->nodes), 1500, 30);
  }
  EXPECT_GT(off(soup), 0.005);
  EXPECT_LT(off(exact), 1e-6);
}

TEST(MeshRepair, MergesOverlappingPiecesIntoTheirUnion) {
  // two spheres of radius 0.3 with centres 0.4 apart, each closed, one inside the other in part
  TriMesh a = starMesh(*makeSphere(0.3), 20), b = a;
  a.transform(Mat3::Identity(), Vec3(-0.2, 0, 0));
  b.transform(Mat3::Identity(), Vec3(0.2, 0, 0));
  a.append(b);
  const MeshRepair m = repairMesh(a, 2500, "pair.obj");
  // the union's volume: two balls less their lens, pi (4 r + d) (2 r - d)^2 / 12
  const double r = 0.3, d = 0.4;
  const double exact = 2 * 4.0 / 3 * kPi * r * r * r - kPi * (4 * r + d) * (2 * r - d) * (2 * r - d) / 12;
  double off = 0;
  for (const Vec3& x : m.mesh.positions)
    off = std::max(off, std::abs(std::min((x - Vec3(-0.2, 0, 0)).norm(), (x - Vec3(0.2, 0, 0)).norm()) - r));
  std::printf("two overlapping spheres: %s; volume %.5f m^3 (union %.5f), nodes within %.2f%% of r of the union\n",
              m.summary().c_str(), m.mesh.volume(), exact, 100 * off / r);
  EXPECT_EQ(m.piecesIn, 2);
  EXPECT_EQ(m.piecesOut, 1);
  EXPECT_TRUE(closedManifold(m.mesh));
  EXPECT_EQ(eulerCharacteristic(m.mesh), 2);
  EXPECT_NEAR(m.mesh.volume(), exact, 0.01 * exact);
  EXPECT_LT(off, 0.03 * r);  // (the crease where the spheres meet is rounded by a cell or so)
  EXPECT_NE(m.summary().find("2 pieces merged into 1"), std::string::npos) << m.summary();
}

TEST(MeshRepair, RefusesASheetThatEnclosesNothingAndStairsThatCloseInPieces) {
  try {
    repairMesh(squareSheet(1, 8), 1000, "sheet.obj");
    FAIL() << "a sheet was closed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sheet.obj: encloses no volume"), std::string::npos) << e.what();
  }
  // an open staircase wraps a little of the space under each step: separate pieces
  try {
    repairMesh(staircase(5, 0.15, 0.35, 1.2), 1500, "stairs.obj");
    FAIL() << "the stairs were closed into a body";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("stairs.obj: closes into "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("separate pieces, the largest"), std::string::npos) << e.what();
  }
}

// Two balls apart: a small one (a part the model only touches, an eye) is dropped and said so;
// two alike are refused, naming the largest's share.
TEST(MeshRepair, KeepsTheLargestPieceWhereTheOthersAreSmall) {
  const auto twoBalls = [](double r2) {
    ImplicitShape s;
    s.distance = [r2](const Vec3& x) { return std::min(x.norm() - 0.3, (x - Vec3(0.8, 0, 0)).norm() - r2); };
    s.lo = Vec3(-0.3, -0.3, -0.3);
    s.hi = Vec3(0.8 + r2, 0.3, 0.3);
    return surfaceNetsWithNodes(s, 2000);
  };
  const MeshRepair m = repairMesh(twoBalls(0.06), 1500, "eye.obj");
  const double big = 4.0 / 3 * kPi * std::pow(0.3, 3), small = 4.0 / 3 * kPi * std::pow(0.06, 3);
  std::printf("a ball and a small one apart: %s\n", m.summary().c_str());
  EXPECT_EQ(m.piecesOut, 2);
  EXPECT_EQ(m.piecesDropped, 1);
  // (the small ball closed at this node count has some 60 nodes: its volume a fifth short)
  EXPECT_NEAR(m.droppedVolume, small / (big + small), 0.3 * small / (big + small));
  EXPECT_TRUE(closedManifold(m.mesh));
  EXPECT_EQ(int(m.mesh.positions.size()), m.nodes);
  EXPECT_NEAR(m.mesh.volume(), big, 0.01 * big);
  EXPECT_NE(m.summary().find("eye.obj: closed by a winding-number repair: 1 small piece dropped (0."), std::string::npos)
      << m.summary();
  try {
    repairMesh(twoBalls(0.3), 1500, "pair.obj");
    FAIL() << "two balls apart were made one body";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pair.obj: closes into 2 separate pieces, the largest 50% of the volume"),
              std::string::npos) << e.what();
  }
}

// Surface nets of a bumpy field (30 random blobs: thin necks, near-touching parts, tunnels a
// cell wide) at 40 grid spacings: a node for each sheet through a cell, every edge in two
// triangles once each way, and every node's triangles one fan round it (no pinched vertex).
TEST(SurfaceNets, AnyFieldGivesAClosedManifold) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int bad = 0, pinched = 0;
  size_t nodes = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<Vec3> c;
    for (int i = 0; i < 30; ++i) c.push_back(Vec3(u(rng), u(rng), u(rng)));
    ImplicitShape s;
    s.distance = [&](const Vec3& x) {
      double f = 0;
      for (const Vec3& p : c) f += std::exp(-(x - p).squaredNorm() / 0.02);
      return 0.5 - f;
    };
    s.lo = Vec3::Constant(-1.3);
    s.hi = Vec3::Constant(1.3);
    const TriMesh m = surfaceNets(s, 0.05 + 0.002 * trial);
    nodes += m.positions.size();
    bad += !closedManifold(m);
    // each node's triangles, as the edges (next -> previous corner) round it, make one cycle
    std::vector<std::vector<std::pair<int, int>>> fan(m.positions.size());
    for (const Vec3i& t : m.triangles)
      for (int a = 0; a < 3; ++a) fan[size_t(t[a])].push_back({t[(a + 1) % 3], t[(a + 2) % 3]});
    for (const auto& f : fan) {
      if (f.empty()) continue;
      size_t steps = 0;
      int at = f[0].first;
      do {
        const auto it = std::find_if(f.begin(), f.end(), [&](const auto& e) { return e.first == at; });
        if (it == f.end()) break;
        at = it->second;
        ++steps;
      } while (at != f[0].first && steps <= f.size());
      pinched += steps != f.size();
    }
  }
  std::printf("40 bumpy fields: %zu nodes in all, %d not closed manifolds, %d pinched nodes\n", nodes, bad, pinched);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(pinched, 0);
}

TEST(MeshRepair, RemeshesAClosedBananaOnItsOwnSurface) {
  const TriMesh banana = bentCapsule(0.3, 1.9, 0.05, 0.45, 900);
  ASSERT_TRUE(closedManifold(banana));
  const MeshRepair m = repairMesh(banana, 1500, "banana.obj");
  std::printf("banana: %s\n", m.summary().c_str());
  EXPECT_TRUE(closedManifold(m.mesh));
  EXPECT_EQ(m.piecesOut, 1);
  EXPECT_FALSE(m.starShaped);
  EXPECT_NEAR(double(m.nodes), 1500, 30);
  EXPECT_LT(m.maxDistance, 0.01 * m.size);
  EXPECT_NEAR(m.mesh.volume(), banana.volume(), 0.02 * banana.volume());
  EXPECT_NE(m.summary().find("banana.obj: closed; re-meshed to"), std::string::npos) << m.summary();
}

}  // namespace
}  // namespace d2t
