// The skeleton from a closed surface's medial axis (medial_skeleton.h): a banana's is a chain
// along its arc, a three-armed star's a tree with one fork at its middle and an end in each
// arm, a ball with bumps a chain (the bumps pruned, not limbs); bad counts are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/base/json_reader.h"
#include "sim/scene/medial_skeleton.h"
#include "sim/scene/sample_meshes.h"
#include "sim/scene/surface_nets.h"

namespace d2t {
namespace {

// the distance from x to the segment ab
double segmentDistance(const Vec3& x, const Vec3& a, const Vec3& b) {
  const double t = std::clamp((x - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return (x - a - t * (b - a)).norm();
}

std::vector<int> ends(const MedialSkeleton& sk) {  // the bones no bone hangs from
  std::vector<int> e;
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    bool parent = false;
    for (const MedialBone& c : sk.bones) parent = parent || c.parent == int(b);
    if (!parent) e.push_back(int(b));
  }
  return e;
}

// bentCapsule(0.3, 1.9, 0.05, 0.45): its axis the arc 0.3 (sin phi, -cos phi, 0), |phi| <= 0.95
TEST(MedialSkeleton, ABananaIsAChainAlongItsArc) {
  const TriMesh banana = bentCapsule(0.3, 1.9, 0.05, 0.45, 1200);
  const MedialSkeleton sk = medialSkeleton(banana, 5, "banana");
  ASSERT_EQ(sk.bones.size(), 5u);
  EXPECT_EQ(sk.forks, 0);
  double worst = 0;
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    const MedialBone& bone = sk.bones[b];
    EXPECT_EQ(bone.parent, int(b) - 1);
    if (b > 0) {
      EXPECT_LT((bone.head - sk.bones[b - 1].tail).norm(), 1e-12);
    }
    for (const Vec3& x : {bone.head, bone.tail}) {
      worst = std::max(worst, std::hypot(std::hypot(x.x(), x.y()) - 0.3, x.z()));
      // (its ends near the tips' balls' centres, at the arc's ends, phi = 0.95: within two cubes)
      EXPECT_LE(std::abs(std::atan2(x.x(), -x.y())), 0.95 + 2 * sk.cube / 0.3);
    }
    EXPECT_GT(bone.radius, 0.02);
    EXPECT_LT(bone.radius, 0.055);
  }
  // the arc is 0.57 m, the medial axis of a tube swept along it (the bones its chords)
  std::printf("banana: %s, cubes of %.4f m, farthest from the arc %.4f m\n", sk.summary().c_str(), sk.cube, worst);
  EXPECT_LT(worst, 2 * sk.cube);  // (the grid's resolution: two cubes, 15% of the tube's radius)
  EXPECT_NEAR(sk.length, 0.57, 0.03);
  // the middle bone is the thickest
  EXPECT_GT(sk.bones[2].radius, sk.bones[0].radius);
  EXPECT_GT(sk.bones[2].radius, sk.bones[4].radius);
}

// three capsules (0.3 m long, 0.05 m thick) from the origin at 120 degrees in the xy plane
TEST(MedialSkeleton, AThreeArmedStarForksAtItsMiddleWithAnEndInEachArm) {
  std::vector<Vec3> arm;
  for (int a = 0; a < 3; ++a) arm.push_back(0.3 * Vec3(std::cos(2 * kPi * a / 3 + 0.3), std::sin(2 * kPi * a / 3 + 0.3), 0));
  ImplicitShape star;
  star.distance = [&](const Vec3& x) {
    double d = 1e300;
    for (const Vec3& e : arm) d = std::min(d, segmentDistance(x, Vec3::Zero(), e) - 0.05);
    return d;
  };
  star.lo = Vec3::Constant(-0.36);
  star.hi = Vec3::Constant(0.36);
  const MedialSkeleton sk = medialSkeleton(surfaceNetsWithNodes(star, 2000), 6, "star");
  std::printf("star: %s\n", sk.summary().c_str());
  EXPECT_EQ(sk.forks, 1);
  // every bone on an arm's axis, the fork at the middle; the three ends one in each arm, at
  // the centre of its rounded tip
  for (const MedialBone& b : sk.bones)
    for (const Vec3& x : {b.head, b.tail}) {
      double d = 1e300;
      for (const Vec3& e : arm) d = std::min(d, segmentDistance(x, Vec3::Zero(), e));
      EXPECT_LT(d, 0.015) << x.transpose();
    }
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    const int parent = sk.bones[b].parent;
    if (parent >= 0 && parent != int(b) - 1) {  // (a second branch off the fork)
      EXPECT_LT(sk.bones[b].head.norm(), 0.015) << "the fork at " << sk.bones[b].head.transpose();
    }
  }
  // (the root is the tip of one arm: its head is that arm's end)
  std::vector<Vec3> tips{sk.bones[0].head};
  for (int e : ends(sk)) tips.push_back(sk.bones[size_t(e)].tail);
  ASSERT_EQ(tips.size(), 3u);
  for (const Vec3& e : arm) {
    double nearest = 1e300;
    for (const Vec3& t : tips) nearest = std::min(nearest, (t - e).norm());
    EXPECT_LT(nearest, 0.02) << "arm end " << e.transpose();
  }
}

TEST(MedialSkeleton, BumpsOnABallArePrunedNotLimbs) {
  ImplicitShape bumpy;  // a ball of radius 0.2 with six bumps 0.04 high
  bumpy.distance = [](const Vec3& x) {
    const double r = x.norm();
    const Vec3 u = x / std::max(r, 1e-12);
    double bump = 0;
    for (const Vec3& a : {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(0, 0, 1),
                          Vec3(0, 0, -1)})
      bump = std::max(bump, 0.04 * std::exp(-(u - a).squaredNorm() / (2 * 0.15 * 0.15)));
    return r - 0.2 - bump;
  };
  bumpy.lo = Vec3::Constant(-0.25);
  bumpy.hi = Vec3::Constant(0.25);
  const MedialSkeleton sk = medialSkeleton(surfaceNetsWithNodes(bumpy, 1500), 3, "bumpy");
  // (a ball's medial axis is its centre: what is left is short, at the middle)
  std::printf("bumpy ball: %s\n", sk.summary().c_str());
  EXPECT_EQ(sk.forks, 0);
  EXPECT_EQ(sk.bones.size(), 3u);
  for (const MedialBone& b : sk.bones) {
    EXPECT_LT(b.head.norm(), 0.06);
    EXPECT_GT(b.radius, 0.15);
  }
}

TEST(MedialSkeleton, RefusesNoBones) {
  const TriMesh banana = bentCapsule(0.3, 1.9, 0.05, 0.45, 400);
  try {
    medialSkeleton(banana, 0, "banana.obj");
    FAIL() << "no bones accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("banana.obj: a medial skeleton needs at least one bone, got 0"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace d2t
