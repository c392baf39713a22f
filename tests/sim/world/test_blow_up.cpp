// The blow-up rules of World::checkHealth (docs/decisions/0018-blow-up-reset.md), each
// driven directly: a skin node stretched beyond twice its layer, energy gained without
// outside work by a body alone, and the floor a body starts of its own when it leaves a
// group of bodies in contact (it may have gained energy there, from the others).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;

bool warned(World& w, const char* what) {
  bool found = false;
  for (const std::string& s : w.takeWarnings()) found = found || s.find(what) != std::string::npos;
  return found;
}

// A soft ball (100 Pa: the stiffness barely resists within a step) in free space, its
// whole skin sent outward at `speed`: after one step of dt the skin is out by ~speed dt,
// a stretch of speed dt / h (h = 0.2 m, the default core 0.6 r).
struct Stretched {
  int resets = 0;
  double stretch = 0;  // the largest |s_i| / h_i after the step (or after the reset)
  bool warnedStretch = false;
};
Stretched stretchOut(double speed, bool skinOnCore) {
  BodyDesc d = test::ball(kR, 32, 100);
  d.material.alpha = d.material.beta = 0;
  test::OneBody s(d);
  s.world.settings().response.skinOnCore = skinOnCore;
  s.step(0.005, Vec3::Zero());
  LayeredState& st = s.edit();  // (the energy bound restarts from the kicked state)
  for (int i = 0; i < s.body.nodeCount(); ++i) st.qdot[size_t(i)] = speed * s.body.model().layerDirection[size_t(i)];
  s.body.saveGood();
  s.step(0.005, Vec3::Zero());
  Stretched r;
  r.resets = s.world.bodies()[0].stats.resets;
  r.warnedStretch = warned(s.world, "skin displacement beyond twice the layer thickness");
  const BakedBody& m = s.body.model();
  for (int i = 0; i < m.nodeCount(); ++i)
    r.stretch = std::max(r.stretch, s.body.state().q[size_t(i)].dot(m.layerDirection[size_t(i)]) / m.layer[size_t(i)]);
  return r;
}

}  // namespace

// Without the skin's limits on the core (policy skin_on_core off) a skin stretched past
// twice its layer is a blow-up (reset to the last good state: the skin at rest), one at
// 1.75 layers is not. With the limits on (the default) the same kick is held at one
// layer (kMaxStretch) and nothing resets.
TEST(BlowUp, SkinStretchedPastTwiceItsLayerResetsUnlessTheLimitsHoldIt) {
  const Stretched past = stretchOut(84, false), within = stretchOut(70, false), held = stretchOut(84, true);
  std::printf("skin sent out at 84 / 70 m/s (5 ms): limits off: %d / %d resets (stretch after: %.3f / %.3f "
              "layers); limits on, 84 m/s: %d resets, stretch %.3f\n",
              past.resets, within.resets, past.stretch, within.stretch, held.resets, held.stretch);
  EXPECT_EQ(past.resets, 1);
  EXPECT_TRUE(past.warnedStretch);
  EXPECT_LT(past.stretch, 1e-9);  // (back at the good state: the skin at rest)
  EXPECT_EQ(within.resets, 0);
  EXPECT_GT(within.stretch, 1.5);  // (it did stretch: the rule, not the kick, decided)
  EXPECT_EQ(held.resets, 0);
  EXPECT_LT(held.stretch, 1 + 1e-6);
  EXPECT_GT(held.stretch, 1 - 1e-3);
}

// A body alone may not gain energy without outside work beyond its tolerance (10% of
// m g r + m v0^2 / 2): a kick of the core's velocity that the World was not told of
// (editState, not OneBody::edit) resets it when the gain is beyond, and not when it is
// within.
TEST(BlowUp, EnergyGainedWithoutOutsideWorkResetsBeyondTheTolerance) {
  for (const double gainOverTolerance : {1.5, 0.5}) {
    BodyDesc d = test::ball(kR, 32, 1e5);
    test::OneBody s(d);
    for (int n = 0; n < 3; ++n) s.step(0.005, Vec3::Zero());
    const Body& b = s.world.bodies()[0];
    const double gain = gainOverTolerance * b.energyTolerance;  // (at rest: KE = m v^2 / 2)
    s.body.editState().velocity = Vec3(std::sqrt(2 * gain / b.mass()), 0, 0);
    s.step(0.005, Vec3::Zero());
    std::printf("a free body given %.1f times its energy tolerance (%.3f J) unannounced: %d resets\n",
                gainOverTolerance, b.energyTolerance, b.stats.resets);
    EXPECT_EQ(b.stats.resets, gainOverTolerance > 1 ? 1 : 0);
    EXPECT_EQ(warned(s.world, "energy grew without outside work"), gainOverTolerance > 1);
  }
}

// A ball at rest hit head-on by a moving one (no gravity, restitution 0.5): in the
// group their summed energy only falls; the struck ball leaves with kinetic energy far
// above its own floor before the contact (0) plus its tolerance, and starts a floor of
// its own: no reset. (Kept on its old floor, it would reset as soon as it left.)
TEST(BlowUp, ABodyLeavingAContactGroupStartsAFloorOfItsOwn) {
  Scene sc;
  sc.simulation.gravity = Vec3::Zero();
  sc.simulation.dt = 0.002;
  for (int k = 0; k < 2; ++k) {
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.name = k ? "struck" : "striker";
    d.position = Vec3(k ? kR + 0.01 : -kR - 0.01, 0, 0);
    d.velocity = Vec3(k ? 0.0 : 2.0, 0, 0);
    d.material.restitution = 0.5;
    sc.bodies.push_back(d);
  }
  World w(sc);
  int together = 0, apartAfter = 0;
  for (int n = 0; n < 400; ++n) {
    w.step();
    const bool touching = w.bodies()[1].stats.contacts > 0;
    together += touching;
    apartAfter += together > 0 && !touching;
  }
  const Body& struck = w.bodies()[1];
  const double ke = 0.5 * struck.mass() * struck.state.velocity.squaredNorm();
  std::printf("struck ball: %d steps in contact, %d apart after; leaves with %.3f J (its tolerance %.3f J); "
              "resets %d and %d\n",
              together, apartAfter, ke, struck.energyTolerance, w.bodies()[0].stats.resets, struck.stats.resets);
  EXPECT_GT(together, 0);
  EXPECT_GT(apartAfter, 100);
  EXPECT_GT(ke, 2 * struck.energyTolerance);  // (the rule is what keeps it)
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
  EXPECT_EQ(struck.stats.resets, 0);
  EXPECT_TRUE(w.takeWarnings().empty());
}

}  // namespace d2t
