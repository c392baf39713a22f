// k = 1: a one-bone character on a baked body's atlas (atlas_character.h) is chapter 3's
// layered body. Its mass block equals LayeredBody::coreMassMatrix at any state; with the exact
// condensation (design D4's "full") a step from a tumbling, deformed state equals the
// layered body's step with exact coupling columns and the direct solver, and so does a run of
// free flight; with the block-diagonal condensation that the characters run with, the
// difference is reported. The layered body's own tests on it: free fall against the discrete
// closed form, rest on the ground at the layered body's height (with the colliders' support
// and without), rolling down an incline at the closed form without slipping (32^2 and 64^2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "sim/character/articulated_body.h"
#include "sim/character/atlas_character.h"
#include "sim/model/baked_body.h"
#include "../incline_fit.h"
#include "../one_body.h"
#include "../test_shapes.h"

namespace d2t {
namespace {

const Vec3 kG(0, -9.81, 0);

BodyDesc tumbler(int resolution = 32) {
  BodyDesc d;
  d.name = "ellipsoid";
  d.shape = std::make_shared<test::Ellipsoid>(Vec3(0.5, 0.35, 0.25));
  d.atlasResolution = resolution;
  d.material.young = 1e5;
  d.material.poisson = 0.35;
  d.material.alpha = 0.05;
  d.material.beta = 0.01;
  return d;
}

// the layered body and its character, both at the same state (a tumbling, deformed body when
// `deformed`): the character placed at the body's frame, q and qdot copied
struct Twins {
  explicit Twins(const BodyDesc& d, bool deformed, const std::optional<ColliderDesc>& plane = std::nullopt)
      : layered(d, plane), character(oneBoneCharacter(layered.body.model(), d.material), placement(layered.body)) {
    layered.world.settings().solver.method = "direct";
    layered.body.settings().exactCoupling = true;
    if (deformed) {
      LayeredState& s = layered.edit();
      std::mt19937 rng(7);
      std::uniform_real_distribution<double> u(-1, 1);
      const auto rnd = [&] { return Vec3(u(rng), u(rng), u(rng)); };
      s.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, -1).normalized()));
      s.velocity = Vec3(0.4, 1.5, -0.3);
      s.angularVelocity = Vec3(2.0, -1.0, 3.0);
      for (size_t i = 0; i < s.q.size(); ++i) {
        s.q[i] = 2e-3 * rnd();
        s.qdot[i] = 5e-2 * rnd();
      }
    }
    copyToCharacter();
  }
  static CharacterPlacement placement(const LayeredBody& b) {
    CharacterPlacement p;
    p.position = b.core().position;
    p.orientation = b.core().orientation;
    return p;
  }
  void copyToCharacter() {
    const LayeredState& s = layered.body.state();
    CharacterState& c = character.state();
    static_cast<CoreState&>(c.bones[0]) = static_cast<const CoreState&>(s);
    c.q = s.q;
    c.qdot = s.qdot;
  }
  // the largest differences of the bone's and the core's state, and of the skin's nodes
  struct Gap {
    double position = 0, velocity = 0, node = 0, nodeSpeed = 0;
  };
  Gap gap() {
    const LayeredState& s = layered.body.state();
    const CoreState& b = character.state().bones[0];
    Gap g;
    g.position = std::max((b.position - s.position).norm(), b.orientation.angularDistance(s.orientation));
    g.velocity = std::max((b.velocity - s.velocity).norm(), (b.angularVelocity - s.angularVelocity).norm());
    for (int i = 0; i < layered.body.nodeCount(); ++i) {
      g.node = std::max(g.node, (character.nodePosition(i) - layered.body.nodePosition(i)).norm());
      g.nodeSpeed = std::max(g.nodeSpeed, (character.nodeVelocity(i) - layered.body.nodeVelocity(i)).norm());
    }
    return g;
  }
  test::OneBody layered;
  ArticulatedBody character;
};

}  // namespace

TEST(OneBoneCharacter, IsTheLayeredBodyNodeForNodeWithItsMassBlock) {
  Twins t(tumbler(), true);
  LayeredBody& b = t.layered.body;
  const Twins::Gap g = t.gap();
  EXPECT_LT(g.node, 1e-14);
  EXPECT_LT(g.nodeSpeed, 1e-13);
  const Eigen::Matrix<double, 6, 6> Mc = t.character.boneMassMatrix(0), Ml = b.coreMassMatrix();
  const double err = (Mc - Ml).cwiseAbs().maxCoeff() / Ml.cwiseAbs().maxCoeff();
  const double ec = t.character.kineticEnergy(), el = t.layered.body.kineticEnergy();
  std::printf("k = 1: %d nodes, mass block vs coreMassMatrix %.1e (relative), kinetic energy %.9f / %.9f J\n",
              b.nodeCount(), err, ec, el);
  EXPECT_NEAR(ec, el, 1e-12 * el);
  EXPECT_LT(err, 1e-12);
}

// One step from a tumbling, deformed state, and 120 steps of free fall with spin: the exact
// condensation is ch. 3's step to rounding; the block-diagonal one is reported.
TEST(OneBoneCharacter, StepsAsTheLayeredBodyWithTheExactCondensation) {
  const double dt = 1.0 / 60;
  Twins t(tumbler(), true);
  t.character.setExactCondensation(true);
  t.layered.step(dt, kG);
  t.character.step(dt, kG);
  const Twins::Gap one = t.gap();
  std::printf("k = 1, one step: bone vs core %.1e m / %.1e m/s, nodes %.1e m / %.1e m/s\n", one.position,
              one.velocity, one.node, one.nodeSpeed);
  EXPECT_LT(one.position, 1e-12);
  EXPECT_LT(one.velocity, 1e-12);
  EXPECT_LT(one.node, 1e-12);
  EXPECT_LT(one.nodeSpeed, 1e-12);

  for (bool exact : {true, false}) {
    Twins r(tumbler(), true);
    r.character.setExactCondensation(exact);
    Twins::Gap worst;
    for (int n = 0; n < 120; ++n) {
      r.layered.step(dt, kG);
      r.character.step(dt, kG);
      const Twins::Gap g = r.gap();
      worst.node = std::max(worst.node, g.node);
      worst.nodeSpeed = std::max(worst.nodeSpeed, g.nodeSpeed);
    }
    std::printf("k = 1, 2 s of tumbling free fall, %s condensation: nodes apart by up to %.1e m, %.1e m/s\n",
                exact ? "exact" : "block-diagonal", worst.node, worst.nodeSpeed);
    if (exact) {
      EXPECT_LT(worst.node, 1e-9);
      EXPECT_LT(worst.nodeSpeed, 1e-8);
    }
  }
}

// The layered body's free-fall test on the one-bone character, with the block-diagonal
// condensation it runs with: 200 steps of 0.01 s from a throw, the centre follows semi-implicit
// Euler's discrete closed form (1e-9 relative) and the skin does not deform (1e-9 m).
TEST(OneBoneCharacter, FallsAsTheDiscreteClosedForm) {
  BodyDesc d = test::ball(0.5, 32, 1e5);
  d.position = Vec3(0, 10, 0);
  d.velocity = Vec3(1, 2, 0.5);
  Twins t(d, false);
  t.character.state().bones[0].velocity = d.velocity;
  const Vec3 x0 = t.character.state().bones[0].position, v0 = d.velocity;
  const double dt = 0.01;
  double worst = 0, worstQ = 0;
  for (int n = 1; n <= 200; ++n) {
    t.character.step(dt, kG);
    const Vec3 expect = x0 + n * dt * v0 + kG * dt * dt * n * (n + 1) / 2.0;
    worst = std::max(worst, (t.character.state().bones[0].position - expect).norm() / expect.norm());
    for (const Vec3& q : t.character.state().q) worstQ = std::max(worstQ, q.norm());
  }
  std::printf("k = 1 free fall: max relative position error %.2e, max |q| %.2e m\n", worst, worstQ);
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(worstQ, 1e-9);
}

// Dropped onto the ground, the one-bone character comes to rest at the layered body's height
// (1%, the centre of mass over the last second), its lowest node no deeper than 1 mm: with
// the colliders' support in the free update (both bodies' default: the static dent, at 32^2
// and 64^2), and without it (the paper's block-diagonal response alone, 21% less deep). Both
// without rolling resistance, which characters do not have: the coarse ball's centre of mass
// is off its centre by the lumping, so both rock slowly about their rest, as a rigid ball that
// is not balanced does.
TEST(OneBoneCharacter, RestsAtTheLayeredBodysHeight) {
  struct Case {
    int resolution;
    bool support;
  };
  for (const Case& c : {Case{32, true}, Case{64, true}, Case{32, false}}) {
    BodyDesc d = test::ball(0.5, c.resolution, 1e5);
    d.material.rollingResistance = 0;
    d.position = Vec3(0, 0.6, 0);
    const ColliderDesc plane = test::planeCollider(Vec3::UnitY(), 0, d.material);
    Twins t(d, false, plane);
    t.layered.world.settings().response.support = c.support;
    t.character.setContactSupport(c.support);
    const Collider ground(plane);
    const std::vector<const Collider*> colliders = {&ground};
    const double dt = 0.005;
    double lowest = 0, hl = 0, hc = 0, vertical = 0;
    int samples = 0;
    for (int n = 1; n * dt <= 4 + 1e-9; ++n) {
      t.layered.step(dt, kG);
      t.character.step(dt, kG, colliders);
      for (const Vec3& x : t.character.skinPositions()) lowest = std::min(lowest, x.y());
      if (n * dt > 3) {
        hl += t.layered.body.centerOfMass().y();
        hc += t.character.centreOfMass().y();
        vertical = std::max(vertical, std::abs(t.character.linearMomentum().y()) / t.character.model().totalMass);
        ++samples;
      }
    }
    hl /= samples;
    hc /= samples;
    std::printf("k = 1 resting, %d^2, support %s, 3-4 s: centre of mass %.5f m (layered body %.5f m, %.2f%%; "
                "sinking %.2f / %.2f mm), lowest node %.2f mm, vertical speed up to %.1e m/s\n",
                c.resolution, c.support ? "on" : "off", hc, hl, 100 * (hc / hl - 1), 1000 * (0.5 - hc),
                1000 * (0.5 - hl), 1000 * lowest, vertical);
    EXPECT_NEAR(hc, hl, 0.01 * hl);
    EXPECT_GT(lowest, -1e-3);
    EXPECT_LT(vertical, 1e-2);
  }
}

// On a 20 degree incline with friction 1 it rolls at g sin / (1 + I / (m r^2)) (5%, r its
// rolling radius: the centre's mean height over the incline) without slipping, as the layered
// body does at 32^2 and 64^2 (test_layered_physics.cpp), which rolls beside it. Without
// slipping: the nodes the incline holds move along it at less than 2% of the ball's speed
// (measured 0.4-0.75%). The layered body's own measure, (v - omega r) / v, is printed: 3.1-3.5%
// here (0.2-0.8% for the layered body): a soft ball's rolling radius lies between the centre's
// height and the unloaded radius (R - delta / 3 for a tyre: 2% above the height at this
// sinking), and the stiff, undamped 32^2 ball also hops over its facets.
TEST(OneBoneCharacter, RollsDownAnInclineAsTheClosedFormSays) {
  const double theta = 20 * kPi / 180;
  const Vec3 n(std::sin(theta), std::cos(theta), 0), downhill(std::cos(theta), -std::sin(theta), 0);
  struct Case {
    int resolution;
    bool exact;
  };
  for (const Case& c : {Case{32, false}, Case{32, true}, Case{64, false}}) {
    BodyDesc d = test::ball(0.5, c.resolution, 1e6);
    d.material.alpha = d.material.beta = 0;
    d.material.friction = 1.0;
    d.position = n * (0.5 + 1e-3);
    const ColliderDesc pd = test::planeCollider(n, 0, d.material, 1.0);
    Twins t(d, false, pd);
    t.layered.world.settings().solver.method = "auto";
    t.layered.body.settings().exactCoupling = false;
    t.character.setExactCondensation(c.exact);
    const Collider plane(pd);
    const std::vector<const Collider*> colliders = {&plane};
    const double dt = 0.002, mass = t.character.model().totalMass;
    test::InclineFit fit(n, downhill);
    double v = 0, roll = 0, vl = 0, rolll = 0, sliding = 0;
    int touching = 0;
    for (int k = 1; k * dt <= 1.0 + 1e-12; ++k) {
      t.character.step(dt, kG, colliders);
      t.layered.step(dt, kG);
      if (k * dt < 0.2) continue;
      {
        const LayeredBody& l = t.layered.body;
        vl += downhill.dot(l.core().velocity);
        rolll -= (l.core().orientation * l.core().angularVelocity).z() * n.dot(t.layered.body.centerOfMass());
      }
      fit.add(k * dt, t.character.centreOfMass());
      const CoreState& b = t.character.state().bones[0];
      v += downhill.dot(t.character.linearMomentum()) / mass;
      for (const CharacterContact& c : t.character.contacts()) {  // (the nodes held on the incline)
        const Vec3 u = t.character.nodeVelocity(c.node);
        sliding += (u - n * n.dot(u)).norm() / (downhill.dot(t.character.linearMomentum()) / mass);
        ++touching;
      }
      roll -= (b.orientation * b.angularVelocity).z() * n.dot(t.character.centreOfMass());
    }
    const BakedBody& m = t.layered.body.model();
    const double a = fit.acceleration(), r = fit.radius();
    const double closed = 9.81 * std::sin(theta) / (1 + m.totalInertia(2, 2) / (m.totalMass * r * r));
    std::printf("k = 1 on a 20 deg incline, mu = 1, %d^2, %s condensation: a = %.4f m/s^2, closed form %.4f "
                "(%.2f%%), rolling radius %.4f m, slip %.2f%% (layered body %.2f%%), the held nodes' sliding %.2f%% of v\n",
                c.resolution, c.exact ? "exact" : "block-diagonal", a, closed, 100 * (a / closed - 1), r,
                100 * (v - roll) / v, 100 * (vl - rolll) / vl, 100 * sliding / std::max(1, touching));
    EXPECT_NEAR(a, closed, 0.05 * closed);
    EXPECT_GT(touching, 100);
    EXPECT_LT(sliding / touching, 0.02);
  }
}

}  // namespace d2t
