// Characters against mesh colliders, bodies and each other (src/sim/world/character_coupling.cpp,
// sim/character/contact_targets.h): the rows' velocity targets, Newton's third law in the
// exchange, the mirror symmetry of a symmetric collision, a ball denting and turning the snake.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/world/world.h"

using namespace d2t;
using nlohmann::json;

namespace {

json tube(const std::string& name, double x, double angleY, double vx) {
  return {{"name", name},
          {"shape", {{"type", "tube"}, {"radius", 0.1}, {"length", 1.2}}},
          {"skeleton", {{"bones", 3}, {"joint", "ball"}, {"stiffness", 40}, {"damping", 1}}},
          {"mesh", {{"nodes", 292}}},
          {"material", {{"young", 5e4}, {"poisson", 0.4}, {"density", 1000}, {"damping", {0.1, 0.01}}, {"friction", 0.5}}},
          {"position", {x, 0.5, 0.0}},
          {"orientation", {std::cos(angleY / 2), 0, std::sin(angleY / 2), 0}},
          {"velocity", {vx, 0, 0}}};
}

Vec3 characterMomentum(const World& w) {
  Vec3 p = Vec3::Zero();
  for (const Character& c : w.characters()) p += c.body->linearMomentum();
  return p;
}

}  // namespace

// Two equal tubes thrown at each other along their axis, without gravity: the pair's momentum
// stays what it was (zero) to 1% of one tube's, and the run stays the mirror image of itself
// (tube B is tube A turned half a turn about the world's y axis) to 1e-6 m.
TEST(CharacterCoupling, TwoTubesHeadOnKeepMomentumAndMirrorSymmetry) {
  const double d = 0.05, v = 2.0;
  const json j = {{"simulation", {{"dt", 1.0 / 60}, {"gravity", {0, 0, 0}}}},
                  {"bodies", {tube("a", -d - 1.2, 0, v), tube("b", d + 1.2, kPi, -v)}}};
  World w(parseScene(j, "head_on.json"));
  ASSERT_EQ(w.characters().size(), 2u);
  const double p0 = w.characters()[0].body->linearMomentum().norm();
  int touched = 0;
  double worstMirror = 0, worstMomentum = 0;
  for (int s = 0; s < 60; ++s) {
    w.step();
    for (const Character& c : w.characters())
      for (const CharacterContact& k : c.body->contacts()) touched += k.movable;
    worstMomentum = std::max(worstMomentum, characterMomentum(w).norm());
    const auto& a = *w.characters()[0].body;
    const auto& b = *w.characters()[1].body;
    for (int p = 0; p < a.model().nodeCount(); ++p) {
      const Vec3 xa = a.nodePosition(p), xb = b.nodePosition(p);
      worstMirror = std::max(worstMirror, (Vec3(-xa.x(), xa.y(), -xa.z()) - xb).norm());
    }
  }
  EXPECT_GT(touched, 10) << "the tubes never met";
  std::printf("head-on: momentum %.2e of %.3f N s, mirror %.2e m\n", worstMomentum, p0, worstMirror);
  EXPECT_LT(worstMomentum, 0.01 * p0);
  EXPECT_LT(worstMirror, 1e-6);
  // they bounced or stopped: neither goes on through the other
  EXPECT_LT(w.characters()[0].body->centreOfMass().x(), -d);
  EXPECT_GT(w.characters()[1].body->centreOfMass().x(), d);
  for (const Character& c : w.characters()) EXPECT_EQ(c.stats.resets, 0);
}

// A tube dropped across a fixed box collider: every active row against the box leaves the
// node's normal velocity relative to the box at the row's target (1e-9 m/s) with a
// non-negative impulse, and no node ends a step more than 2 mm inside the box; the bones' KKT
// is analysed once.
TEST(CharacterCoupling, RowsAgainstAMeshColliderHoldTheirTargets) {
  json t = tube("t", -0.6, 0, 0);
  t["position"] = {-0.6, 0.45, 0.0};
  const json j = {{"simulation", {{"dt", 1.0 / 60}, {"gravity", {0, -9.81, 0}}}},
                  {"bodies", {t}},
                  {"colliders",
                   {{{"name", "box"}, {"type", "mesh"}, {"shape", {{"type", "box"}, {"size", {0.4, 0.6, 0.6}}}},
                     {"position", {0.0, 0.0, 0.0}}}}}};
  World w(parseScene(j, "tube_box.json"));
  const Collider* box = nullptr;
  for (const Collider& c : w.colliders())
    if (c.name() == "box") box = &c;
  ASSERT_NE(box, nullptr);
  int rows = 0;
  for (int s = 0; s < 90; ++s) {
    w.step();
    const ArticulatedBody& b = *w.characters()[0].body;
    for (const CharacterContact& k : b.contacts()) {
      if (k.target < 0) continue;
      ++rows;
      EXPECT_GE(k.lambda, 0);
      EXPECT_LT(std::abs(k.residual), 1e-9) << "step " << s << " node " << k.node;
    }
    const auto& shape = *box->desc().shape;
    for (const Vec3& x : b.skinPositions())
      EXPECT_GT(shape.signedDistance(box->orientation().conjugate() * (x - box->position())), -2e-3) << "step " << s;
  }
  EXPECT_GT(rows, 20) << "the tube never rested on the box";
  EXPECT_EQ(w.characters()[0].stats.resets, 0);
  // the rows are folded into the bones' blocks, so the KKT keeps the contact-free pattern: its
  // elimination order and supernodes analysed once, whatever contacts came and went
  const CharacterTimes& times = w.characters()[0].body->times();
  EXPECT_GT(times.kktFactorizations, 90);
  EXPECT_EQ(times.kktAnalyses, 1);
}

// A soft ball thrown at the middle of a straight snake floating without gravity: the pair's
// momentum is kept (1%), and in the steps of the impact the joint nearest the hit turns by more
// than 5 degrees while the skin there dents by more than 5 mm.
TEST(CharacterCoupling, ABallHittingTheSnakeTurnsItsJointAndDentsItsSkin) {
  const json snake = {{"name", "snake"},
                      {"shape", {{"type", "snake"}}},
                      {"skeleton", {{"joint", "ball"}, {"stiffness", 15}, {"damping", 0.5}}},
                      {"mesh", {{"nodes", 3102}}},
                      {"material", {{"young", 5e4}, {"poisson", 0.4}, {"density", 1000}, {"damping", {0.1, 0.01}}}},
                      {"position", {-1.2, 0.5, 0.0}}};
  const json ball = {{"name", "ball"},
                     {"shape", {{"type", "sphere"}, {"radius", 0.15}}},
                     {"atlas", {{"resolution", 32}}},
                     {"material", {{"young", 2e5}, {"poisson", 0.3}, {"density", 1000}, {"damping", {0.1, 0.01}}}},
                     {"position", {0.0, 0.5, -0.4}},
                     {"velocity", {0, 0, 4}}};
  const json j = {{"simulation", {{"dt", 1.0 / 60}, {"gravity", {0, 0, 0}}}}, {"bodies", {snake, ball}}};
  World w(parseScene(j, "ball_snake.json"));
  ASSERT_EQ(w.characters().size(), 1u);
  ASSERT_EQ(w.bodies().size(), 1u);
  const auto momentum = [&] { return Vec3(characterMomentum(w) + w.bodies()[0].layered.linearMomentum()); };
  const Vec3 p0 = momentum();
  const ArticulatedBody& s = *w.characters()[0].body;
  // the joint nearest the ball's path (x = 0)
  int nearest = 0;
  for (int jn = 0; jn < int(s.model().skeleton.joints.size()); ++jn)
    if (std::abs(s.childAnchor(jn).x()) < std::abs(s.childAnchor(nearest).x())) nearest = jn;
  double turn = 0, dent = 0, worst = 0;
  int hit = -1;
  for (int step = 0; step < 40; ++step) {
    w.step();
    bool touching = false;
    for (const CharacterContact& k : s.contacts()) touching = touching || k.movable;
    if (touching && hit < 0) hit = step;
    turn = std::max(turn, s.jointAngle(nearest));
    for (int p = 0; p < s.model().nodeCount(); ++p)
      if (std::abs(s.nodePosition(p).x()) < 0.15) dent = std::max(dent, s.state().q[size_t(p)].norm());
    worst = std::max(worst, (momentum() - p0).norm());
  }
  ASSERT_GE(hit, 0) << "the ball never reached the snake";
  std::printf("ball on the snake: joint %d turned %.2f deg, dent %.2f mm, momentum error %.2e of %.3f N s\n", nearest,
              turn * 180 / kPi, 1e3 * dent, worst, p0.norm());
  EXPECT_GT(turn, 5 * kPi / 180);
  EXPECT_GT(dent, 5e-3);
  EXPECT_LT(worst, 0.01 * p0.norm());
  EXPECT_GT(s.linearMomentum().z(), 0.2 * p0.z()) << "the snake was not pushed";
  EXPECT_EQ(w.characters()[0].stats.resets, 0);
}

// Fig. 4.7: the fish pushing the snake's middle (snake_fish, 3 s: it presses from 2 s on). The
// soft skin dents and keeps the fish out to under 1 mm; the rigid skin (q = 0, contacts on the
// bones alone: the same scene with "rigid_skin") cannot dent, and the fish goes deeper into it.
// (Measured against the fish alone: the rigid snake, tossed by the fish, also lands up to 6 mm
// into the ground, decision 0031; the soft one does not.)
TEST(CharacterCoupling, TheSoftSkinKeepsTheFishOutWhereTheRigidSkinLetsItIn) {
  Scene scene = loadScene(std::string(D2T_TEST_DATA) + "/../../scenes/snake_fish.json");
  double pen[2], dent[2];
  for (int rigid = 0; rigid < 2; ++rigid) {
    scene.characters[0].rigidSkin = rigid == 1;
    World w(scene);
    ASSERT_EQ(w.characters()[0].body->rigidSkin(), rigid == 1);
    const Collider* fish = nullptr;
    for (const Collider& c : w.colliders())
      if (c.name() == "fish") fish = &c;
    ASSERT_NE(fish, nullptr);
    pen[rigid] = 0;
    while (w.time() < 3.0) {
      w.step();
      const SurfaceTarget t = colliderTarget(*fish, 0);
      pen[rigid] = std::max(pen[rigid], w.characters()[0].body->deepestPenetration({}, {&t}));
    }
    dent[rigid] = w.characters()[0].stats.maxDisplacement;
    EXPECT_EQ(w.characters()[0].stats.resets, 0);
  }
  std::printf("fish in the snake: soft skin %.3f mm deep (dent %.1f mm), rigid skin %.3f mm (dent %.1f mm)\n",
              1e3 * pen[0], 1e3 * dent[0], 1e3 * pen[1], 1e3 * dent[1]);
  EXPECT_LT(pen[0], 1e-3);
  EXPECT_GT(dent[0], 5e-3);
  EXPECT_EQ(dent[1], 0.0);
  EXPECT_GT(pen[1], 2 * pen[0] + 1e-4);
}

// Self-collision in a run (tube_curl: 12 bones whose springs curl the tube towards 1.25 turns):
// the tail comes round onto the tube's own side and stays there, out to under 2 mm, held by
// rows against its own skin; with "self_collision": false the same tail passes into the tube
// (bone centres nearer than the radius).
TEST(CharacterCoupling, ACurlingTubeMeetsItselfAndStaysOut) {
  Scene scene = loadScene(std::string(D2T_TEST_DATA) + "/../../scenes/tube_curl.json");
  double closest[2];
  int selfRows[2];
  double deepest[2];
  for (int self = 0; self < 2; ++self) {
    scene.characters[0].selfCollision = self == 1;
    World w(scene);
    const ArticulatedBody& b = *w.characters()[0].body;
    const int k = b.model().boneCount();
    closest[self] = 1e9;
    selfRows[self] = 0;
    while (w.time() < 5.0) {
      w.step();
      for (int j = 0; j + 3 < k; ++j)
        closest[self] = std::min(closest[self], (b.state().bones[size_t(k - 1)].position - b.state().bones[size_t(j)].position).norm());
      selfRows[self] = std::max(selfRows[self], w.characters()[0].stats.selfContacts);
    }
    deepest[self] = w.characters()[0].stats.maxPenetration;
    EXPECT_EQ(w.characters()[0].stats.resets, 0);
  }
  std::printf("tube_curl: tail to body %.3f m with self-collision (%d nodes in self-contact at most, %.2f mm deep), "
              "%.3f m without\n",
              closest[1], selfRows[1], 1e3 * deepest[1], closest[0]);
  const double r = 0.08;
  EXPECT_GT(selfRows[1], 5);
  EXPECT_GT(closest[1], 1.5 * r);
  EXPECT_LT(deepest[1], 2e-3);
  EXPECT_EQ(selfRows[0], 0);
  EXPECT_LT(closest[0], r);
}
