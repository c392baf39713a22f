// External loads on node sets (NodeLoad): their forces enter the skin's right-hand
// side, the core's force and torque and the momentum projection, on a free body
// (momentum and angular momentum gained) and on a held core (the static solve).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "one_body.h"
#include "static_solve.h"
#include "test_loads.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.3;
using test::CapForce;

}  // namespace

// A push on one side of a free body (no gravity, no collider): the linear momentum is
// the load's impulse exactly (step 5 projects it), the angular momentum about the
// centre of mass follows the load's torque about it, step by step; after the load is
// taken off both stay. The energy bound is off while a load works (no reset).
TEST(NodeLoad, AFreeBodyGainsTheImpulseAndAngularImpulseOfTheLoad) {
  test::OneBody s(test::ball(kR, 24, 5e4));
  auto load = std::make_shared<CapForce>(s.body.model(), Vec3::UnitX(), 0.5, Vec3(0, 0, 0.02));
  ASSERT_GT(load->nodes().size(), 20u);
  s.body.addLoad(load);
  const double dt = 0.005;
  const int steps = 200;
  Vec3 angularImpulse = Vec3::Zero();  // sum dt (x_i - com) x f at each step's start
  for (int n = 0; n < steps; ++n) {
    const Vec3 com = s.body.centerOfMass();
    for (int i : load->nodes()) angularImpulse += dt * (s.body.nodePosition(i) - com).cross(Vec3(0, 0, 0.02));
    s.step(dt, Vec3::Zero());
  }
  const Vec3 impulse = steps * dt * load->total();
  const Vec3 p = s.body.linearMomentum(), l = s.body.angularMomentum(s.body.centerOfMass());
  std::printf("push of %.3f N for %.2f s: momentum (%.6f, %.6f, %.6f) vs impulse %.6f; angular momentum "
              "(%.5f, %.5f, %.5f) vs angular impulse (%.5f, %.5f, %.5f)\n",
              load->total().norm(), steps * dt, p.x(), p.y(), p.z(), impulse.z(), l.x(), l.y(), l.z(),
              angularImpulse.x(), angularImpulse.y(), angularImpulse.z());
  EXPECT_LT((p - impulse).norm(), 1e-9 * impulse.norm());
  EXPECT_LT(angularImpulse.y(), -0.1 * impulse.norm() * kR);  // (the push is off centre: it spins the body)
  EXPECT_LT((l - angularImpulse).norm(), 1e-3 * angularImpulse.norm());
  EXPECT_EQ(s.world.bodies()[0].stats.resets, 0);
  s.body.removeLoad(load.get());
  EXPECT_TRUE(s.body.loads().empty());
  for (int n = 0; n < 50; ++n) s.step(dt, Vec3::Zero());
  EXPECT_LT((s.body.linearMomentum() - impulse).norm(), 1e-9 * impulse.norm());
  EXPECT_LT((s.body.angularMomentum(s.body.centerOfMass()) - l).norm(), 0.01 * l.norm());
}

// A load on a held core's skin: the skin comes to rest where K_e q = f (a direct solve
// of K_e assembled apart from the solver).
TEST(NodeLoad, AHeldCoresSkinSettlesToTheStaticSolveOfTheLoad) {
  BodyDesc d = test::ball(kR, 24, 5e4);
  d.material.alpha = 5;
  test::OneBody s(d);
  s.body.settings().fixedCore = true;
  const Vec3 f(0.1, -0.2, 0.05);
  auto load = std::make_shared<CapForce>(s.body.model(), Vec3::UnitY(), 0.8, f);
  s.body.addLoad(load);
  for (int n = 0; n < 600; ++n) s.step(0.005, Vec3::Zero());
  std::vector<Vec3> field(size_t(s.body.nodeCount()), Vec3::Zero());
  for (int i : load->nodes()) field[size_t(i)] = f;  // (the core is held at the identity: body = world frame)
  const std::vector<Vec3> ref = test::solveStatic(s.body.model(), field);
  const double err = test::fieldError(s.body.state().q, ref);
  double speed = 0;
  for (const Vec3& v : s.body.state().qdot) speed = std::max(speed, v.norm());
  double peak = 0;
  for (const Vec3& q : ref) peak = std::max(peak, q.norm());
  std::printf("held core, %zu nodes loaded: skin vs direct K_e q = f: %.2e (peak %.2e m), skin speed %.1e m/s\n",
              load->nodes().size(), err, peak, speed);
  EXPECT_GT(peak, 1e-4);  // (a deflection to measure)
  EXPECT_LT(err, 1e-6);
}

// A load that names a node the body does not have is refused, naming the body.
TEST(NodeLoad, ALoadOnANodeThatDoesNotExistIsRefused) {
  struct Bad final : NodeLoad {
    void forces(const LayeredBody& body, std::vector<NodeForce>& out) const override {
      out.push_back({body.nodeCount(), Vec3(1, 0, 0)});
    }
  };
  test::OneBody s(test::ball(kR, 16, 5e4));
  s.body.addLoad(std::make_shared<Bad>());
  try {
    s.step(0.005, Vec3::Zero());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("body 'ball'"), std::string::npos) << e.what();
  }
}

}  // namespace d2t
