// The skin's bounding-volume hierarchy and the stage 2 patches found through
// it, against brute force over every node and triangle.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sim/contact/body_contact.h"
#include "sim/body/layered_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// a skin deformed at random by up to `amplitude` per node
LayeredBody deformed(const BodyDesc& d, double amplitude, std::mt19937& rng) {
  LayeredBody b(bake(d), d);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Vec3& q : b.editState().q) {
    Vec3 r(u(rng), u(rng), u(rng));
    while (r.norm() > 1) r = Vec3(u(rng), u(rng), u(rng));
    q = amplitude * r;
  }
  return b;
}

double maxDisplacement(const LayeredBody& b) {
  double m = 0;
  for (const Vec3& q : b.state().q) m = std::max(m, q.norm());
  return m;
}

TEST(SkinBvh, QueriesAgreeWithBruteForceOnADeformedSkin) {
  std::mt19937 rng(7);
  const LayeredBody b = deformed(test::ball(0.5, 64, 1e5), 0.02, rng);
  const BakedBody& m = b.model();
  const double grow = maxDisplacement(b);
  std::uniform_real_distribution<double> u(-1, 1);
  double edge = 0;  // mean edge length
  for (const Vec3i& t : m.atlas.triangles) edge += (m.restSkin[size_t(t[1])] - m.restSkin[size_t(t[0])]).norm();
  edge /= double(m.atlas.triangles.size());
  int worstEvaluated = 0, worstCap = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 dir = Vec3(u(rng), u(rng), u(rng)).normalized();
    auto value = [&](int i) { return dir.dot(m.restSkin[size_t(i)] + b.state().q[size_t(i)]); };
    double brute = -1e300;
    for (int i = 0; i < b.nodeCount(); ++i) brute = std::max(brute, value(i));
    int evaluated = 0;
    const double best = m.skinBvh.maxAlong(dir, grow, [&](int i) { ++evaluated; return value(i); });
    EXPECT_EQ(best, brute);
    // the cap any conservative search must look at: rest values within 2 grow + 2 edges of the top
    int cap = 0;
    for (int i = 0; i < b.nodeCount(); ++i) cap += dir.dot(m.restSkin[size_t(i)]) > brute - 2 * grow - 2 * edge;
    EXPECT_LT(evaluated, 12 * cap) << "branch and bound evaluates the cap's nodes (each leaf: 12 vertices)";
    worstEvaluated = std::max(worstEvaluated, evaluated);
    worstCap = std::max(worstCap, cap);
    // every triangle with a (deformed) vertex beyond h is reported
    const double h = brute - 0.1 * (trial % 5);
    std::vector<int> got;
    m.skinBvh.trianglesBeyond(dir, h, grow, &got);
    std::sort(got.begin(), got.end());
    for (int t = 0; t < int(m.atlas.triangles.size()); ++t) {
      const Vec3i& v = m.atlas.triangles[size_t(t)];
      if (std::max({value(v[0]), value(v[1]), value(v[2])}) <= h) continue;
      EXPECT_TRUE(std::binary_search(got.begin(), got.end(), t)) << "triangle " << t << " missed";
    }
    // and no triangle far from the answer: a candidate's box (rest vertices, grown) reaches beyond h
    for (int t : got) {
      const Vec3i& v = m.atlas.triangles[size_t(t)];
      double rest = -1e300;
      for (int k = 0; k < 3; ++k) rest = std::max(rest, dir.dot(m.restSkin[size_t(v[k])]));
      EXPECT_GT(rest, h - grow - 2 * edge) << "triangle " << t << " is far below the plane";
    }
  }
  std::printf("[ figures  ] extreme node of %d: at most %d node evaluations (branch and bound), cap of %d nodes\n",
              b.nodeCount(), worstEvaluated, worstCap);
}

TEST(SkinBvh, PairPatchesAreTheTrianglesFacingEachOtherInTheOverlapSlab) {
  std::mt19937 rng(3);
  BodyDesc da = test::ball(0.5, 32, 1e5), db = test::ball(0.4, 48, 1e5);
  da.position = Vec3(0, 0, 0);
  db.position = Vec3(0.1, 0.85, -0.05);
  LayeredBody a = deformed(da, 0.01, rng), b = deformed(db, 0.01, rng);
  ProxyContact pair;
  pair.normal = (b.centerOfMass() - a.centerOfMass()).normalized();
  pair.growA = maxDisplacement(a);
  pair.growB = maxDisplacement(b);
  PairPatches p;
  ASSERT_TRUE(findPairPatches(a, b, pair, &p));
  const Vec3& n = pair.normal;
  double hA = -1e300, hB = 1e300;
  for (int i = 0; i < a.nodeCount(); ++i) hA = std::max(hA, n.dot(a.nodePosition(i)));
  for (int i = 0; i < b.nodeCount(); ++i) hB = std::min(hB, n.dot(b.nodePosition(i)));
  EXPECT_NEAR(p.hA, hA, 1e-12);
  EXPECT_NEAR(p.hB, hB, 1e-12);
  // brute force: facing the other body and reaching into the slab
  auto brute = [&](const LayeredBody& body, double sign, double h) {
    std::vector<int> out;
    const Vec3 dir = sign * n;
    for (int t = 0; t < int(body.model().atlas.triangles.size()); ++t) {
      const Vec3i& v = body.model().atlas.triangles[size_t(t)];
      const Vec3 x0 = body.nodePosition(v[0]), x1 = body.nodePosition(v[1]), x2 = body.nodePosition(v[2]);
      if ((x1 - x0).cross(x2 - x0).dot(dir) <= 0) continue;
      if (std::max({dir.dot(x0), dir.dot(x1), dir.dot(x2)}) <= h) continue;
      out.push_back(t);
    }
    return out;
  };
  EXPECT_EQ(p.a.triangles, brute(a, 1, hB));
  EXPECT_EQ(p.b.triangles, brute(b, -1, -hA));
  EXPECT_GT(p.a.triangles.size(), 0u);
  EXPECT_LT(p.a.triangles.size(), a.model().atlas.triangles.size() / 10) << "a patch, not the skin";
  for (size_t j = 0; j < p.a.nodes.size(); ++j) EXPECT_EQ(p.a.x[j], a.nodePosition(p.a.nodes[j]));
}

}  // namespace
}  // namespace d2t
