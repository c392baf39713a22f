// The world around the layered bodies: free fall through World, collider
// contacts found per node, blow-ups caught and reported.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/model/static_reference.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

Scene ballScene(double height, double dt = 0.002, int resolution = 32) {
  Scene s;
  s.simulation.dt = dt;
  BodyDesc b;
  b.name = "ball";
  b.shape = makeSphere(0.5);
  b.atlasResolution = resolution;
  b.position = Vec3(0, height, 0);
  s.bodies.push_back(b);
  ColliderDesc ground;
  ground.name = "ground";
  s.colliders.push_back(ground);
  return s;
}

}  // namespace

TEST(World, FreeFallOfTheCentreOfMassFollowsTheDiscreteClosedForm) {
  Scene s = ballScene(100, 0.01);
  s.bodies[0].velocity = Vec3(1, 2, 0);
  World w(s);
  const Vec3 x0 = w.bodies()[0].state.position, v0(1, 2, 0), g = s.simulation.gravity;
  EXPECT_LT((x0 - Vec3(0, 100, 0)).norm(), 1e-12);
  const double dt = s.simulation.dt;
  for (int n = 1; n <= 200; ++n) {
    w.step();
    // semi-implicit Euler: x_n = x_0 + n dt v_0 + g dt^2 n (n + 1) / 2
    const Vec3 expect = x0 + n * dt * v0 + g * dt * dt * n * (n + 1) / 2.0;
    ASSERT_LT((w.bodies()[0].state.position - expect).norm(), 1e-9 * expect.norm()) << n;
  }
  for (const Vec3& q : w.bodies()[0].layered.state().q) EXPECT_LT(q.norm(), 1e-9);
}

TEST(World, ContactsAreTheNodesBelowThePlaneWithTheirDepth) {
  Scene s = ballScene(0.45);  // 5 cm into the ground
  World w(s);
  std::vector<NodeContact> contacts;
  Body& b = w.bodies()[0];
  w.findContacts(b.layered, &contacts);
  int near = 0;  // below the plane, or within the contact margin above it
  for (int i = 0; i < b.nodes(); ++i) near += b.layered.nodePosition(i).y() < kContactMargin;
  ASSERT_EQ(int(contacts.size()), near);
  ASSERT_GT(near, 0);
  for (const NodeContact& c : contacts) {
    EXPECT_NEAR(c.depth, -b.layered.nodePosition(c.node).y(), 1e-12);
    EXPECT_LT((c.normal - Vec3::UnitY()).norm(), 1e-12);
    EXPECT_LE(c.depth, 0.05 + 1e-9);
    EXPECT_GT(c.depth, -kContactMargin);
  }
}

TEST(World, BlowUpIsReportedAndTheBodyReset) {
  Scene s = ballScene(3);
  s.bodies[0].velocity = Vec3(1e7, 0, 0);  // runaway from the start
  World w(s);
  w.step();
  const Body& b = w.bodies()[0];
  EXPECT_EQ(b.stats.resets, 1);
  EXPECT_TRUE(b.state.position.allFinite());
  EXPECT_LT(b.state.velocity.norm(), 1e3);
  const auto warnings = w.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("numerical blow-up"), std::string::npos);
}

// A ball far too soft to carry itself (E = 3 kPa): its skin collapses past the
// linear model's range, and its last good state is already on the way there. It
// used to be reset to that state every step (363 resets in 600 steps); now a
// second blow-up within kResetRepeatSteps starts it over from the scene.
TEST(World, ABodyThatFailsAgainFromItsLastGoodStateStartsOverFromTheScene) {
  Scene s = ballScene(0.8, 0.005);
  s.bodies[0].material.young = 3000;
  s.simulation.response.support = true;
  // (the skin's limits on its core keep this ball from collapsing: CoreContact's tests;
  // without them it collapses past the linear model, and the reset path is what is left)
  s.simulation.response.skinOnCore = false;
  World w(s);
  const Vec3 x0 = w.bodies()[0].state.position;
  std::vector<long> resetSteps;
  int fromScene = 0;
  for (int n = 1; n <= 600; ++n) {
    const int before = w.bodies()[0].stats.resets;
    w.step();
    if (w.bodies()[0].stats.resets == before) continue;
    resetSteps.push_back(n);
    const std::vector<std::string> warnings = w.takeWarnings();
    ASSERT_FALSE(warnings.empty());
    if (warnings.back().find("initial state") != std::string::npos) {
      ++fromScene;
      EXPECT_LT((w.bodies()[0].state.position - x0).norm(), 1e-12) << n;
    }
  }
  std::printf("E = 3 kPa ball: %zu resets in 600 steps, %d of them back to the scene\n", resetSteps.size(),
              fromScene);
  ASSERT_FALSE(resetSteps.empty()) << "the ball did not collapse: the test needs a softer one";
  EXPECT_GE(fromScene, 1);
  EXPECT_LE(resetSteps.size(), 20u);
  for (size_t k = 2; k < resetSteps.size(); ++k)  // never three within the repeat window
    EXPECT_GT(resetSteps[k] - resetSteps[k - 2], kResetRepeatSteps) << resetSteps[k];
}

TEST(World, ResetRestoresTheInitialState) {
  World w(ballScene(1.0));
  const Vec3 x0 = w.bodies()[0].state.position;
  for (int n = 0; n < 300; ++n) w.step();
  EXPECT_GT((w.bodies()[0].state.position - x0).norm(), 0.1);
  w.reset();
  EXPECT_LT((w.bodies()[0].state.position - x0).norm(), 1e-12);
  EXPECT_EQ(w.steps(), 0);
}

// A material change while running: K_e and the masses re-assembled, the skin where it was.
TEST(World, MaterialChangeReassemblesWithoutMovingTheSkin) {
  Scene s = ballScene(0.6);
  World w(s);
  for (int n = 0; n < 100; ++n) w.step();
  Body& b = w.bodies()[0];
  const std::vector<Vec3> x0 = b.skinPositions();
  std::vector<Vec3> v0;
  for (int i = 0; i < b.nodes(); ++i) v0.push_back(b.layered.nodeVelocity(i));
  const double k0 = b.model->stiffness[7][0](1, 1), m0 = b.mass();
  Material m = b.desc.material;
  m.young *= 4;
  m.density *= 2;
  const double ms = w.setMaterial(0, m);
  EXPECT_GT(ms, 0);
  EXPECT_NEAR(b.model->stiffness[7][0](1, 1), 4 * k0, 1e-9 * k0);
  EXPECT_NEAR(b.mass(), 2 * m0, 1e-9 * m0);
  const std::vector<Vec3> x1 = b.skinPositions();
  for (int i = 0; i < b.nodes(); ++i) {
    EXPECT_LT((x1[size_t(i)] - x0[size_t(i)]).norm(), 1e-12) << i;
    EXPECT_LT((b.layered.nodeVelocity(i) - v0[size_t(i)]).norm(), 1e-12) << i;
  }
  for (int n = 0; n < 200; ++n) w.step();
  EXPECT_EQ(b.stats.resets, 0);
  EXPECT_EQ(b.desc.material.young, m.young);
  // bad input is refused and changes nothing
  Material bad = m;
  bad.poisson = 0.7;
  EXPECT_THROW(w.setMaterial(0, bad), InputError);
  EXPECT_EQ(b.desc.material.poisson, m.poisson);
}

// Issue 4's peer ball drop, the shipped scene as a user runs it (r 0.5 m, E 1 MPa,
// 64^2, dropped from 1 m, dt 1/60 s): at rest within 2 s (every node below 1 mm/s
// from then on) at the static rest height of the same model (2% of its sinking,
// frictionless or no-slip), and no node left below the ground after any step. The
// contact support, relaxed by the patch (kSupportPatchRelaxation), gets it there
// from 1.3 s; relaxed by 1 / sqrt(r) alone it took 2.3 s.
TEST(World, PeerBallDropRestsWithinTwoSecondsAtTheStaticHeight) {
  const std::filesystem::path scene =
      std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / "peer_ball_drop.json";
  World w(loadScene(scene.string()));
  const double dt = w.settings().dt;
  double restAt = -1, lowest = 0;
  for (int n = 1; n * dt <= 3.0 + 1e-9; ++n) {
    w.step();
    const LayeredBody& b = w.bodies()[0].layered;
    double speed = 0;
    for (int i = 0; i < b.nodeCount(); ++i) {
      speed = std::max(speed, b.nodeVelocity(i).norm());
      lowest = std::min(lowest, b.nodePosition(i).y());
    }
    if (speed < 1e-3 && restAt < 0) restAt = n * dt;
    if (speed >= 1e-3) restAt = -1;
  }
  const LayeredBody& b = w.bodies()[0].layered;
  const RestOnPlane slip = staticRestOnPlane(b.model(), w.settings().gravity, 0, b.state().orientation,
                                             PlaneContact::Frictionless);
  const RestOnPlane stick = staticRestOnPlane(b.model(), w.settings().gravity, 0, b.state().orientation,
                                              PlaneContact::NoSlip);
  const double height = b.state().position.y();
  std::printf("peer ball drop: at rest from %.3f s, core at %.5f m; static frictionless %.5f m, no-slip %.5f m "
              "(sinking %.4f m); lowest node %.2e m\n",
              restAt, height, slip.coreHeight, stick.coreHeight, slip.sinking, lowest);
  EXPECT_GT(restAt, 0);
  EXPECT_LE(restAt, 2.0);
  EXPECT_GE(height, std::min(slip.coreHeight, stick.coreHeight) - 0.02 * slip.sinking);
  EXPECT_LE(height, std::max(slip.coreHeight, stick.coreHeight) + 0.02 * stick.sinking);
  EXPECT_GT(lowest, -1e-6);
}
