// The contact response's units (response_policies.h), each switched off alone: what it
// adds is gone, and what the physics says without it holds. (Each unit switched on is
// tested where its physics is: support in LayeredPhysics.RestHeight*, restitution in
// LayeredPhysics.StiffBallBounces*, friction in LayeredPhysics.LaunchedBoxSlides*, the
// pair balances and shock propagation in BodyContact.*.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "sim/base/json_reader.h"
#include "sim/contact/energy_guard.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

// The apex of a stiff ball's first bounce, over the drop height (heights of the
// undeformed skin's lowest point above the plane).
double bounceRatio(double eps, const ResponsePolicies& policies) {
  BodyDesc d = test::ball(kR, 32, 1e7);
  d.material.restitution = eps;
  const double drop = 0.3;
  d.position = Vec3(0, kR + drop, 0);
  test::OneBody s(d, test::planeCollider(Vec3::UnitY(), 0, d.material));
  s.world.settings().response = policies;
  bool touched = false, rising = false;
  for (int n = 1; n <= 1500; ++n) {
    s.step(0.001, kG);
    const double vy = s.body.core().velocity.y();
    touched = touched || s.body.lastStep().contacts > 0;
    rising = rising || (touched && vy > 0);
    if (rising && vy <= 0) return (s.body.centerOfMass().y() - kR) / drop;
  }
  return 0;  // (no apex: it never left the plane)
}

}  // namespace

// KE(t) = k0 + ka t + kb t^2 along the share t of the impulse: the guard's share keeps
// KE(t) <= k0, and no larger share in [0, 1] does.
TEST(ResponsePolicies, EnergyShareIsTheLargestThatKeepsTheKineticEnergy) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int scaled = 0;
  for (int k = 0; k < 2000; ++k) {
    const double k0 = 1 + u(rng), ka = 2 * u(rng), kb = std::abs(u(rng));  // (KE is convex in t)
    const double t = responseEnergyShare(k0, ka, kb);
    auto ke = [&](double x) { return k0 + ka * x + kb * x * x; };
    ASSERT_GE(t, 0.0);
    ASSERT_LE(t, 1.0);
    ASSERT_LE(ke(t), k0 * (1 + 1e-9) + 1e-12) << k0 << " " << ka << " " << kb;
    if (t < 1) {
      ++scaled;
      for (double x = t + 1e-6; x <= 1; x += 1e-3) ASSERT_GT(ke(x), k0 - 1e-12) << "a larger share keeps it: " << x;
    }
  }
  EXPECT_GT(scaled, 100);  // (the random draws reach the scaled branch)
  EXPECT_EQ(responseEnergyShare(1, 0.5, 0.1), 0.0);  // growing from t = 0: nothing applied
  EXPECT_EQ(responseEnergyShare(1, -1, 0.5), 1.0);   // KE(1) = 0.5: all of it
  EXPECT_DOUBLE_EQ(responseEnergyShare(1, -1, 2), 0.5);  // KE(t) = 1 again at t = 1/2
}

// Restitution off: the contact is inelastic, the bounce is the skin's elasticity alone
// (a 10 MPa skin stores little of the impact); on, the bounce is eps^2 of the drop.
TEST(ResponsePolicies, RestitutionOffLeavesOnlyTheSkinsOwnBounce) {
  ResponsePolicies off;
  off.restitution = false;
  const double with = bounceRatio(0.8, {}), without = bounceRatio(0.8, off);
  std::printf("eps 0.8, drop 0.3 m: bounce ratio %.4f with the restitution impact, %.4f without\n", with,
              without);
  EXPECT_NEAR(with, 0.64, 0.064);
  EXPECT_LT(without, 0.1 * with);
}

// Friction off (both units: eq. (14) per node and the patches'): every contact impulse is
// along the plane's normal, so a box launched along the plane keeps its horizontal
// momentum exactly; each unit alone acts on it.
TEST(ResponsePolicies, FrictionOffConservesTheSlidingMomentum) {
  const nlohmann::json shape = nlohmann::json::parse(R"({"type": "box", "size": [0.6, 0.4, 0.6]})");
  BodyDesc d;
  d.name = "box";
  d.shape = parseShape(JsonReader(shape, "test", "/shape"));
  d.atlasResolution = 32;
  d.material.young = 1e6;
  d.material.friction = 0.5;
  d.material.restitution = 0;
  d.position = Vec3(0, 0.2 + 1e-4, 0);
  d.velocity = Vec3(2, 0, 0);
  auto slide = [&](bool node, bool patch) {
    test::OneBody s(d, test::planeCollider(Vec3::UnitY(), 0, d.material));
    s.world.settings().response.friction = node;
    s.world.settings().response.patchFriction = patch;
    const double p0 = s.body.linearMomentum().x();
    int contacts = 0;
    for (int k = 0; k < 150; ++k) {
      s.step(0.002, kG);
      contacts = std::max(contacts, s.body.lastStep().contacts);
    }
    EXPECT_GT(contacts, 10) << "the box never rested on the plane";
    return s.body.linearMomentum().x() / p0;
  };
  const double none = slide(false, false), node = slide(true, false), patch = slide(false, true);
  std::printf("box at 2 m/s after 0.3 s, mu 0.5: P_x / P_x0 = %.12f frictionless, %.4f node friction, %.4f "
              "patch friction (Coulomb: %.4f)\n",
              none, node, patch, 1 - 0.5 * 9.81 * 0.3 / 2);
  EXPECT_NEAR(none, 1.0, 1e-8);
  // eq. (14) changes the nodes' skin velocities only (the core slides on: what patch
  // friction is for, docs/decisions/0010), the patches give Coulomb's deceleration
  EXPECT_GT(std::abs(1 - node), 1e-4);
  EXPECT_NEAR(patch, 1 - 0.5 * 9.81 * 0.3 / 2, 0.05);
}

// Correction off: a ball set 4 mm into the plane at rest, without gravity, is not pushed
// out by the response (the energy guard: pushing it out would add kinetic energy), so
// the penetration stays; on, step 15 moves the nodes out in the same step.
TEST(ResponsePolicies, CorrectionOffLeavesThePenetration) {
  const double depth = 0.004;
  auto penetrationAfterOneStep = [&](bool correction) {
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.material.restitution = 0;
    d.position = Vec3(0, kR, 0);
    test::OneBody s(d, test::planeCollider(Vec3::UnitY(), 0, d.material));
    s.world.settings().response.correction = correction;
    auto lowestNode = [&] {
      double lowest = 1e300;
      for (int i = 0; i < s.body.nodeCount(); ++i) lowest = std::min(lowest, s.body.nodePosition(i).y());
      return lowest;
    };
    s.edit().position.y() -= lowestNode() + depth;  // (the lowest skin node `depth` into the plane)
    s.step(0.001, Vec3::Zero());
    const double lowest = lowestNode();
    EXPECT_NEAR(s.world.bodies()[0].stats.finalMaxPenetration, std::max(0.0, -lowest), 1e-4) << correction;
    return -lowest;
  };
  const double on = penetrationAfterOneStep(true), off = penetrationAfterOneStep(false);
  std::printf("ball 4 mm into the plane, one step: penetration %.3g m with the correction, %.3g m without\n", on,
              off);
  EXPECT_LT(on, 0.05 * depth);
  EXPECT_GT(off, 0.8 * depth);
}

// The scene's "response" block sets each unit; the old keys say where they went.
TEST(ResponsePolicies, SceneResponseBlockSetsEachUnit) {
  const Scene s = parseScene(nlohmann::json::parse(
                                 R"({"simulation": {"response": {"one_sided": false, "restitution": false,
                                     "patch_friction": false, "correction": false}}})"),
                             "test.json");
  ResponsePolicies expect;
  expect.oneSided = expect.restitution = expect.patchFriction = expect.correction = false;
  EXPECT_EQ(s.simulation.response, expect);
  for (const char* bad : {R"({"simulation": {"contact_support": false}})",
                          R"({"simulation": {"response": {"suport": false}}})",
                          R"({"simulation": {"response": {"friction": 1}}})"}) {
    try {
      parseScene(nlohmann::json::parse(bad), "bad.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
      EXPECT_NE(m.find("/simulation/"), std::string::npos) << m;
    }
  }
}

}  // namespace d2t
