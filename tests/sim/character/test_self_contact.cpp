// Stage 1 per bone and self-collision (src/sim/character/bone_proxies.h, self_contact.h): the
// triangle-triangle test against an independent one, the grown proxies' bound at random poses,
// and a tube bent and folded against a brute-force reference over every node and triangle.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>

#include "sim/character/articulated_body.h"
#include "sim/character/bone_proxies.h"
#include "sim/character/self_contact.h"
#include "sim/character/tube.h"
#include "character/soft_material.h"

using namespace d2t;

namespace {

CharacterModelPtr tube(int bones, int nodes) {
  TubeSpec t;
  t.bones = bones;
  t.nodes = nodes;
  t.radius = 0.1;
  t.length = 1.7;
  return bakeCharacter(tubeCharacter("tube", t, softMaterial()));
}

// Segment pq against triangle abc (Moeller-Trumbore on the segment's line, 0 <= t <= 1).
bool segmentCrosses(const Vec3& p, const Vec3& q, const std::array<Vec3, 3>& t) {
  const Vec3 d = q - p, e1 = t[1] - t[0], e2 = t[2] - t[0], h = d.cross(e2);
  const double det = e1.dot(h);
  if (std::abs(det) < 1e-300) return false;
  const Vec3 s = p - t[0];
  const double u = s.dot(h) / det;
  const Vec3 qq = s.cross(e1);
  const double v = d.dot(qq) / det, w = e2.dot(qq) / det;
  return u >= 0 && v >= 0 && u + v <= 1 && w >= 0 && w <= 1;
}

// The brute-force reference: the nodes whose 1-ring overlaps a triangle outside their 2-ring,
// over every node and every triangle (no proxies, no pairs, no boxes).
std::set<int> bruteForceSelfContacts(const CharacterModel& m, const std::vector<Vec3>& x) {
  std::set<int> out;
  for (int p = 0; p < m.nodeCount(); ++p)
    for (const Vec3i& t : m.triangles)
      if (!inTwoRing(m, p, t) && ringOverlaps(m, x, p, t)) {
        out.insert(p);
        break;
      }
  return out;
}

// The tube posed with joint `joint` turned by `degrees` about z, its self-contacts before and
// after the post-process, and the reference.
struct Folded {
  SelfContacts found;
  std::set<int> kept, reference;
  size_t pairs = 0;
};
Folded fold(const CharacterModelPtr& m, int joint, double degrees) {
  ArticulatedBody b(m);
  std::vector<Quat> rel(m->skeleton.joints.size(), Quat::Identity());
  rel[size_t(joint)] = Quat(Eigen::AngleAxisd(degrees * kPi / 180, Vec3::UnitZ()));
  b.pose(rel);
  const SurfaceTarget skin = characterTarget(b, 0);
  const auto pairs =
      selfProxyPairs(*m, b.state().bones, placeBoneProxies(*m, b.state().bones, b.state().q), 0.011);
  Folded f;
  f.pairs = pairs.size();
  f.found = detectSelfContacts(*m, skin, pairs);
  for (const auto& [p, h] : f.found.kept) f.kept.insert(p);
  f.reference = bruteForceSelfContacts(*m, skin.x);
  return f;
}

}  // namespace

// Triangles in general position overlap exactly when an edge of one crosses the other: the
// separating-axis test agrees with that on 20,000 random pairs (about a third overlapping),
// and touching counts (two triangles sharing only a corner overlap).
TEST(SelfContact, TriangleOverlapAgreesWithEdgeCrossings) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int overlapping = 0, disagree = 0;
  for (int k = 0; k < 20000; ++k) {
    std::array<Vec3, 3> a, b;
    for (auto& v : a) v = Vec3(u(rng), u(rng), u(rng));
    for (auto& v : b) v = Vec3(u(rng), u(rng), u(rng)) * 0.8 + Vec3(0.3, 0, 0);
    bool crosses = false;
    for (int e = 0; e < 3; ++e)
      crosses = crosses || segmentCrosses(a[size_t(e)], a[size_t((e + 1) % 3)], b) ||
                segmentCrosses(b[size_t(e)], b[size_t((e + 1) % 3)], a);
    const bool sat = trianglesOverlap(a, b);
    overlapping += sat;
    disagree += sat != crosses;
  }
  std::printf("triangle pairs: %d of 20000 overlap, %d disagree with the edge crossings\n", overlapping, disagree);
  EXPECT_GT(overlapping, 2000);
  EXPECT_EQ(disagree, 0);
  const std::array<Vec3, 3> a{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  EXPECT_TRUE(trianglesOverlap(a, {Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(1, 0, 1)}));   // a shared corner
  EXPECT_FALSE(trianglesOverlap(a, {Vec3(0, 0, 1e-6), Vec3(1, 0, 1e-6), Vec3(0, 1, 1e-6)}));  // parallel above
  EXPECT_TRUE(trianglesOverlap(a, {Vec3(0.2, 0.2, 0), Vec3(0.3, 0.2, 0), Vec3(0.2, 0.3, 0)}));  // coplanar inside
  EXPECT_FALSE(trianglesOverlap(a, {Vec3(0.6, 0.6, 0), Vec3(1, 0.6, 0), Vec3(0.6, 1, 0)}));  // coplanar apart
}

// Every node of a bone's patch C_i is within the growth bound of where the bone's rigid motion
// carries its rest position, and so inside the bone's grown proxy, at random poses up to 120
// degrees a joint with random skin displacements up to 3 cm; the bound of max |q| alone (the
// thesis's) is exceeded by the blended nodes.
TEST(SelfContact, GrownBoneProxiesHoldTheirSkinAtAnyPose) {
  const CharacterModelPtr m = tube(5, 292);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  double outside = -1, overBound = -1, overQ = -1;
  for (int trial = 0; trial < 40; ++trial) {
    ArticulatedBody b(m);
    std::vector<Quat> rel;
    for (size_t j = 0; j < m->skeleton.joints.size(); ++j)
      rel.push_back(Quat(Eigen::AngleAxisd(u(rng) * 120 * kPi / 180, Vec3(u(rng), u(rng), u(rng)).normalized())));
    b.pose(rel);
    for (Vec3& q : b.state().q) q = 0.03 * Vec3(u(rng), u(rng), u(rng)) / std::sqrt(3.0);
    const std::vector<PlacedProxy> placed = placeBoneProxies(*m, b.state().bones, b.state().q);
    const std::vector<Vec3> x = b.skinPositions();
    for (int i = 0; i < m->boneCount(); ++i) {
      const PlacedProxy& w = placed[size_t(i)];
      const CoreState& s = b.state().bones[size_t(i)];
      const Bone& bone = m->skeleton.bones[size_t(i)];
      const Mat3 P = poseRotation(bone, s);
      double Q = 0;
      for (int p : m->proxies[size_t(i)].corners) Q = std::max(Q, b.state().q[size_t(p)].norm());
      for (int p : m->proxies[size_t(i)].corners) {
        const double dev = (x[size_t(p)] - (s.position + P * (m->restSkin[size_t(p)] - bone.bindPosition))).norm();
        overBound = std::max(overBound, dev - w.grow);
        overQ = std::max(overQ, dev - Q);
        const HullDistance d = hullDistance({x[size_t(p)]}, w.points);
        outside = std::max(outside, (d.overlap ? 0 : d.distance) - w.margin);
      }
    }
  }
  std::printf("nodes against their bones' rigid motion: %.4f m over the growth bound at most, %.4f m over max |q|; "
              "%.4f m outside the grown proxy at most\n",
              overBound, overQ, outside);
  EXPECT_LE(overBound, 1e-12);
  EXPECT_LE(outside, 1e-9);
  EXPECT_GT(overQ, 0.01);
}

// Bent 90 degrees at one joint, the tube's patches meet at the inside of the bend and stage 2
// reports nodes there (their nearest triangles beyond the 2-ring lie within their rings' reach),
// but no ring cuts the skin: the post-process keeps none, as the brute force finds none.
TEST(SelfContact, ATubeBentNinetyDegreesHasNoContactAfterThePostProcess) {
  for (const auto& [bones, nodes] : std::vector<std::pair<int, int>>{{3, 292}, {8, 600}}) {
    const CharacterModelPtr m = tube(bones, nodes);
    const Folded f = fold(m, int(m->skeleton.joints.size()) / 2, 90);
    std::printf("%d bones, %d nodes, bent 90 deg: %zu self pairs, %zu reported, %zu kept, brute force %zu\n", bones,
                m->nodeCount(), f.pairs, f.found.reported.size(), f.kept.size(), f.reference.size());
    EXPECT_GT(f.found.reported.size(), 0u);
    EXPECT_EQ(f.kept.size(), 0u);
    EXPECT_EQ(f.reference.size(), 0u);
  }
}

// Folded 160 degrees at one joint, the two halves cut into each other: the nodes the pipeline
// keeps (stage 1's pairs, stage 2's patches, the post-process) are exactly those the brute force
// over every node and triangle finds (precision = recall = 1).
TEST(SelfContact, ATubeFoldedHundredSixtyDegreesMatchesTheBruteForce) {
  for (const auto& [bones, nodes] : std::vector<std::pair<int, int>>{{3, 292}, {8, 600}, {5, 1000}}) {
    const CharacterModelPtr m = tube(bones, nodes);
    const Folded f = fold(m, int(m->skeleton.joints.size()) / 2, 160);
    size_t common = 0;
    for (int p : f.kept) common += f.reference.count(p);
    std::printf("%d bones, %d nodes, folded 160 deg: %zu reported, %zu kept, brute force %zu, common %zu\n", bones,
                m->nodeCount(), f.found.reported.size(), f.kept.size(), f.reference.size(), common);
    EXPECT_GT(f.reference.size(), 10u);
    EXPECT_EQ(common, f.kept.size()) << "precision";
    EXPECT_EQ(common, f.reference.size()) << "recall";
  }
}

// A patch's hierarchy, built once at rest and refit to the skin at a pose (bone_proxies.cpp,
// self_contact.cpp), answers as one built at that pose: the nearest triangle and distance of
// 2,000 random points near the folded tube, and the triangles near each point's box.
TEST(SelfContact, APatchHierarchyRefitToAPoseAnswersAsOneBuiltThere) {
  const CharacterModelPtr m = tube(5, 600);
  ArticulatedBody b(m);
  std::vector<Quat> rel(m->skeleton.joints.size(), Quat::Identity());
  rel[1] = Quat(Eigen::AngleAxisd(2.4, Vec3::UnitZ()));
  rel[2] = Quat(Eigen::AngleAxisd(-1.1, Vec3::UnitY()));
  b.pose(rel);
  const std::vector<Vec3> x = b.skinPositions();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int compared = 0;
  for (const BoneProxy& bp : m->proxies) {
    if (bp.triangles.empty()) continue;
    TriangleBvh refit = bp.hierarchy;
    refit.refit(x, m->triangles);
    const TriangleBvh fresh(x, m->triangles, bp.triangles);
    const Aabb box = fresh.bounds();
    EXPECT_LE((refit.bounds().lo - box.lo).norm() + (refit.bounds().hi - box.hi).norm(), 1e-12);
    for (int s = 0; s < 400; ++s) {
      const Vec3 p = box.center() + 0.7 * (box.hi - box.lo).cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
      const auto a = refit.closest(p, 1e300), c = fresh.closest(p, 1e300);
      ASSERT_NEAR(a.distanceSq, c.distanceSq, 1e-15);
      Aabb near;
      near.grow(p - Vec3::Constant(0.05));
      near.grow(p + Vec3::Constant(0.05));
      std::set<int> ta, tc;
      refit.forEachInBox(near, [&](int t) { ta.insert(t); });
      fresh.forEachInBox(near, [&](int t) { tc.insert(t); });
      ASSERT_EQ(ta, tc);
      compared += int(tc.size());
    }
  }
  std::printf("refit vs fresh hierarchies: %d triangles near the points, all the same\n", compared);
  EXPECT_GT(compared, 1000);
}
