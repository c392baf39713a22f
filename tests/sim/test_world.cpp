// Stage-1 world (rigid cores, skin points in contact): closed-form checks.
#include <gtest/gtest.h>

#include "sim/world.h"

using namespace d2t;

namespace {

Scene ballScene(double height, double restitution, double dt = 0.002, int resolution = 32) {
  Scene s;
  s.simulation.dt = dt;
  BodyDesc b;
  b.name = "ball";
  b.shape = makeSphere(0.5);
  b.atlasResolution = resolution;
  b.material.restitution = restitution;
  b.position = Vec3(0, height, 0);
  s.bodies.push_back(b);
  ColliderDesc ground;
  ground.name = "ground";
  s.colliders.push_back(ground);
  return s;
}

}  // namespace

TEST(World, FreeFallFollowsTheDiscreteClosedForm) {
  Scene s = ballScene(100, 0.5, 0.01);
  s.bodies[0].velocity = Vec3(1, 2, 0);
  World w(s);
  const Vec3 x0 = w.bodies()[0].state.position, v0(1, 2, 0), g = s.simulation.gravity;
  const double dt = s.simulation.dt;
  for (int n = 1; n <= 200; ++n) {
    w.step();
    // semi-implicit Euler: x_n = x_0 + n dt v_0 + g dt^2 n (n + 1) / 2
    const Vec3 expect = x0 + n * dt * v0 + g * dt * dt * n * (n + 1) / 2.0;
    ASSERT_LT((w.bodies()[0].state.position - expect).norm(), 1e-9 * expect.norm()) << n;
  }
}

TEST(World, BoxComesToRestOnThePlaneOnItsLowestNodes) {
  // (a rigid polyhedral ball rolls on for ever over its nodes: rest is tested on a box)
  Scene s = ballScene(1.0, 0.3);
  s.bodies[0].shape = parseShape(JsonReader(
      nlohmann::json::parse(R"({"type": "box", "size": [0.6, 0.4, 0.6], "bevel": 0.03})"), "test"));
  s.bodies[0].orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 0, 1).normalized()));
  World w(s);
  for (int n = 0; n < 2500; ++n) w.step();  // 5 s
  const Body& b = w.bodies()[0];
  EXPECT_LT(b.state.velocity.norm(), 1e-3);
  EXPECT_LT(b.state.angularVelocity.norm(), 1e-2);
  // it lies flat on its largest face: the up axis is body y
  EXPECT_GT(std::abs((b.state.orientation * Vec3::UnitY()).y()), 0.999);
  double support = 0;
  for (const Vec3& p : b.skinPoints) support = std::max(support, -(b.state.orientation * p).y());
  EXPECT_NEAR(b.state.position.y(), support, 1e-3);
  EXPECT_LT(b.stats.finalMaxPenetration, 1e-3);
  EXPECT_EQ(b.stats.resets, 0);
}

TEST(World, BounceHeightRatioIsRestitutionSquared) {
  for (double eps : {0.3, 0.6}) {
    const double drop = 1.0;  // bottom 1 m above the ground
    World w(ballScene(0.5 + drop, eps, 0.001, 64));  // 64: a node sits at the bottom pole
    double prevVy = 0, apex = -1;
    bool bounced = false;
    for (int n = 0; n < 4000 && apex < 0; ++n) {
      w.step();
      const double vy = w.bodies()[0].state.velocity.y();
      if (vy > 0) bounced = true;
      if (bounced && prevVy > 0 && vy <= 0) apex = w.bodies()[0].state.position.y() - 0.5;
      prevVy = vy;
    }
    ASSERT_GT(apex, 0) << "no bounce for eps " << eps;
    EXPECT_NEAR(apex / drop, eps * eps, 0.1 * eps * eps) << "eps " << eps;
  }
}

TEST(World, BlowUpIsReportedAndTheBodyReset) {
  Scene s = ballScene(3, 0.5);
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

TEST(World, LinearMomentumOfFreeFlightChangesOnlyByGravity) {
  Scene s = ballScene(50, 0.5, 0.01);
  s.bodies[0].angularVelocity = Vec3(3, -2, 5);
  World w(s);
  const double m = w.bodies()[0].mass;
  const Vec3 p0 = m * w.bodies()[0].state.velocity;
  for (int n = 0; n < 100; ++n) w.step();
  const Vec3 p = m * w.bodies()[0].state.velocity;
  EXPECT_LT((p - p0 - m * s.simulation.gravity * 1.0).norm(), 1e-9 * m);
}
