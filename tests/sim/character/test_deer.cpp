// The deer (deer.h), its implicit skin (surface_nets.h, inner_surface.h), and the scene's character keys:
// the skin is a closed manifold of the node count asked, the interior's volume is the
// inner surface's, the deer stands on the ground under its joint springs, a keyframed
// target pose moves its head and lets it back, and bad skeleton input is refused naming the
// file and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "sim/character/character_scene.h"
#include "sim/character/deer.h"
#include "sim/character/inner_surface.h"
#include "sim/contact/collider.h"
#include "sim/scene/surface_nets.h"
#include "character/soft_material.h"

namespace d2t {
namespace {

Material deerMaterial() {
  Material m = softMaterial(1e5);
  m.friction = 0.8;
  return m;
}

// A sphere meshed by surface nets: every node on the sphere (1e-6 of its radius), a closed
// manifold of genus 0, and the voxel interior of a closed mesh holds its volume (1%).
TEST(ImplicitSurface, SphereIsAClosedManifoldOnTheSurfaceWithItsVolume) {
  ImplicitShape s;
  s.distance = [](const Vec3& x) { return x.norm() - 0.3; };
  s.lo = Vec3::Constant(-0.3);
  s.hi = Vec3::Constant(0.3);
  const TriMesh m = surfaceNetsWithNodes(s, 1200);
  EXPECT_NEAR(double(m.positions.size()), 1200, 12);
  EXPECT_TRUE(closedManifold(m));
  EXPECT_EQ(long(m.positions.size()) - long(m.triangles.size()) * 3 / 2 + long(m.triangles.size()), 2);
  double err = 0, volume = 0;
  for (const Vec3& x : m.positions) err = std::max(err, std::abs(x.norm() - 0.3));
  EXPECT_LT(err, 1e-6 * 0.3);
  for (const Vec3i& t : m.triangles)  // (outward: a positive volume)
    volume += m.positions[size_t(t[0])].dot(m.positions[size_t(t[1])].cross(m.positions[size_t(t[2])])) / 6;
  const double exact = 4.0 / 3 * kPi * 0.027;
  EXPECT_NEAR(volume, exact, 0.02 * exact);
  double voxels = 0;
  for (const InteriorPiece& p : voxelInterior(m.positions, m.triangles, 0.01)) voxels += p.volume;
  EXPECT_NEAR(voxels, volume, 0.01 * volume);
}

TEST(Deer, HasItsBonesJointsAndAClosedSkinOfTheAskedNodes) {
  for (int nodes : {1748, 2755}) {
    DeerSpec spec;
    spec.nodes = nodes;
    const CharacterDesc d = deerCharacter("deer", spec, deerMaterial());
    EXPECT_EQ(d.skeleton.boneCount(), 34);
    EXPECT_EQ(d.skeleton.joints.size(), 33u);
    EXPECT_NEAR(double(d.mesh.skin.size()), nodes, 0.01 * nodes);
    TriMesh m{d.mesh.skin, d.mesh.triangles};
    EXPECT_TRUE(closedManifold(m));
    // the solid inside the inner surface (its pieces) against the inner surface's own volume
    double inner = 0, pieces = 0;
    for (const Vec3i& t : d.mesh.triangles)
      inner += d.mesh.inner[size_t(t[0])].dot(d.mesh.inner[size_t(t[1])].cross(d.mesh.inner[size_t(t[2])])) / 6;
    for (const InteriorPiece& p : d.mesh.interior) pieces += p.volume;
    EXPECT_NEAR(pieces, inner, 0.03 * inner) << nodes;
    const CharacterModelPtr model = bakeCharacter(d);
    std::printf("deer, %d nodes asked: %d nodes, %zu tets, %.1f kg, inner volume %.4f m^3 (pieces %.4f)\n", nodes,
                model->nodeCount(), model->tets.size(), model->totalMass, inner, pieces);
    // hooves at the ground: the lowest skin node at y = 0 (1 mm), four feet
    double low = 1e300;
    for (const Vec3& x : model->restSkin) low = std::min(low, x.y());
    // (the nearest node to the hoof's round bottom, r 4 cm: within a grid cell's sag, h^2 / 8r,
    // 8 mm at the coarsest count's h of about 5 cm)
    EXPECT_NEAR(low, 0, 1e-2);
    for (const char* name : {"hoof_front_l", "hoof_front_r", "hoof_hind_l", "hoof_hind_r", "head", "tail3"}) {
      bool found = false;
      for (const Bone& b : model->skeleton.bones) found = found || b.name == name;
      EXPECT_TRUE(found) << name;
    }
  }
}

CharacterSpec deerSpec() {
  CharacterSpec c;
  c.name = "deer";
  c.model = "deer";
  c.bones = 34;
  c.nodes = 1748;
  c.stiffness = 3000;
  c.damping = 20;
  c.material = deerMaterial();
  c.position = Vec3(0, 0.01, 0);
  return c;
}

// The deer on the ground under its joint springs (no keys) stands: from 1 s to 4 s its
// hooves stay where they are (5 mm: static friction holds them, no creep), its centre of mass
// sways by less than 3 cm and has settled by less than 5 cm, its joints are within 10 degrees
// of the bind pose and hold together (< 0.1 mm), no node is more than 1 mm under the ground,
// and it stands on its four hooves.
TEST(Deer, StandsOnItsHoovesUnderItsJointSprings) {
  const CharacterSpec spec = deerSpec();
  Character c(spec, bakeCharacter(characterDesc(spec)));
  ColliderDesc gd;
  const Collider ground(gd);
  std::vector<int> hooves;
  for (const char* hoof : {"hoof_front_l", "hoof_front_r", "hoof_hind_l", "hoof_hind_r"})
    for (int b = 0; b < c.model->boneCount(); ++b)
      if (c.model->skeleton.bones[size_t(b)].name == hoof) hooves.push_back(b);
  ASSERT_EQ(hooves.size(), 4u);
  const auto horizontal = [](const Vec3& x) { return Vec3(x.x(), 0, x.z()); };
  const Vec3 start = c.body->centreOfMass();
  const double dt = 1.0 / 60;
  Vec3 com1 = start;
  std::vector<Vec3> hoof1;
  for (int i = 0; i < 240; ++i) {
    c.step(i * dt, dt, Vec3(0, -9.81, 0), {&ground});
    if (i == 59) {
      com1 = c.body->centreOfMass();
      for (int h : hooves) hoof1.push_back(c.body->state().bones[size_t(h)].position);
    }
  }
  const Vec3 end = c.body->centreOfMass();
  double slide = 0;
  for (size_t h = 0; h < hooves.size(); ++h)
    slide = std::max(slide, horizontal(c.body->state().bones[size_t(hooves[h])].position - hoof1[h]).norm());
  std::map<int, int> feet;  // bone -> nodes in contact
  for (const CharacterContact& k : c.body->contacts()) ++feet[c.model->influence[size_t(k.node)].bone[0]];
  const double speed = c.body->linearMomentum().norm() / c.model->totalMass;
  std::printf("deer standing 1-4 s: hooves moved %.2e m, com swayed %.4f m, settled %.4f m, speed %.2e m/s, largest "
              "joint angle %.2f deg, joint error %.2e m, lowest node %.2e m, %zu bones touching, resets %d\n",
              slide, horizontal(end - com1).norm(), start.y() - end.y(), speed, c.stats.maxJointAngle * 180 / kPi,
              c.stats.maxJointError, c.stats.minHeight, feet.size(), c.stats.resets);
  EXPECT_EQ(c.stats.resets, 0);
  EXPECT_LT(slide, 5e-3);
  EXPECT_LT(horizontal(end - com1).norm(), 0.03);
  EXPECT_LT(start.y() - end.y(), 0.05);
  EXPECT_LT(speed, 0.02);
  EXPECT_LT(c.stats.maxJointAngle, 10 * kPi / 180);
  EXPECT_LT(c.stats.maxJointError, 1e-4);
  EXPECT_GT(c.stats.minHeight, -1e-3);
  for (int h : hooves) EXPECT_TRUE(feet.count(h)) << c.model->skeleton.bones[size_t(h)].name;
}

// Keyframed targets: between two keys a joint's target is the slerp of theirs (1e-12), held
// before the first and after the last; the deer's head goes down by more than 10 cm below
// that of the same deer without keys while the neck's keys hold it dipped, and comes back to
// within 1.5 cm of it after the last key.
TEST(Deer, KeyframedTargetsDipTheHeadAndBringItBack) {
  const CharacterSpec plain = deerSpec();
  CharacterSpec spec = plain;
  const Vec3 dip(0, 0, -0.35);
  spec.targets.push_back({0.5, {}});
  spec.targets.push_back({1.5, {{"neck1", dip}, {"neck2", dip}, {"neck3", dip}}});
  spec.targets.push_back({2.5, {{"neck1", dip}, {"neck2", dip}, {"neck3", dip}}});
  spec.targets.push_back({3.0, {}});
  const CharacterModelPtr model = bakeCharacter(characterDesc(spec));
  Character c(spec, model), twin(plain, model);
  const Quat full(Eigen::AngleAxisd(0.35, -Vec3::UnitZ()));
  c.setTargets(1.0);
  EXPECT_LT(c.body->jointTarget(4).angularDistance(Quat::Identity().slerp(0.5, full)), 1e-12);  // neck1: joint 4
  EXPECT_LT(c.body->jointTarget(0).angularDistance(Quat::Identity()), 1e-12);
  c.setTargets(0.2);
  EXPECT_LT(c.body->jointTarget(4).angularDistance(Quat::Identity()), 1e-12);
  c.setTargets(2.0);
  EXPECT_LT(c.body->jointTarget(4).angularDistance(full), 1e-12);
  c.setTargets(9.0);
  EXPECT_LT(c.body->jointTarget(4).angularDistance(Quat::Identity()), 1e-12);

  ColliderDesc gd;
  const Collider ground(gd);
  const int head = 9;
  const auto height = [&](const Character& x) { return x.body->state().bones[size_t(head)].position.y(); };
  const double dt = 1.0 / 60;
  double dipped = 0;
  for (int i = 0; i < 270; ++i) {
    c.step(i * dt, dt, Vec3(0, -9.81, 0), {&ground});
    twin.step(i * dt, dt, Vec3(0, -9.81, 0), {&ground});
    dipped = std::max(dipped, height(twin) - height(c));
  }
  std::printf("deer's head: at most %.3f m below the unkeyed deer's, %.3f m from it 1.5 s after the last key\n",
              dipped, height(c) - height(twin));
  EXPECT_GT(dipped, 0.1);
  EXPECT_NEAR(height(c), height(twin), 0.015);
  EXPECT_EQ(c.stats.resets, 0);
}

// Bad skeleton input in a scene names the file and the field.
TEST(Deer, BadSkeletonKeysAreRefusedNamingTheFileAndField) {
  const auto refused = [](const std::string& skeleton, const std::string& expect) {
    nlohmann::json j = nlohmann::json::parse(R"({"bodies": [{"name": "deer", "shape": {"type": "deer"}, "skeleton": )" +
                                             skeleton + "}]}");
    try {
      parseScene(j, "zoo.json");
      ADD_FAILURE() << skeleton;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("zoo.json"), std::string::npos) << e.what();
    }
  };
  refused(R"({"targets": [{"time": 1, "joints": {"neckk": [0, 0, 1]}}]})", "neckk");
  refused(R"({"targets": [{"time": 2, "joints": {}}, {"time": 1, "joints": {}}]})", "time");
  refused(R"({"limits": {"angle": -1}})", "angle");
  refused(R"({"pose": {"joints": {"head": [0, 0, 4]}}})", "head");
  refused(R"({"pose": {"angles": [0.1, 0.2]}})", "angles");
  const Scene ok = parseScene(nlohmann::json::parse(R"({"bodies": [{"shape": {"type": "deer"}, "skeleton": {"limits": {"angle": 1}, "targets": [{"time": 1, "joints": {"head": [0, 0.1, 0]}}]}}]})"), "zoo.json");
  ASSERT_EQ(ok.characters.size(), 1u);
  EXPECT_EQ(ok.characters[0].nodes, 2755);
  EXPECT_EQ(ok.characters[0].limitAngle, 1);
  ASSERT_EQ(ok.characters[0].targets.size(), 1u);
  EXPECT_EQ(ok.characters[0].targets[0].joints[0].first, "head");
}

}  // namespace
}  // namespace d2t
