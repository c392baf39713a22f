// Solver choices of the layered body, measured against each other on the same
// scene: direct vs CG, the cached coupling columns vs the exact ones, and the
// one-sided contact vs the paper's equality constraints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "sim/world/world.h"

using namespace d2t;

namespace {

Scene ballOnGround(double height, const Vec3& velocity, const Vec3& spin = Vec3::Zero()) {
  Scene s;
  s.simulation.dt = 0.005;
  BodyDesc b;
  b.name = "ball";
  b.shape = makeSphere(0.5);
  b.atlasResolution = 32;
  b.position = Vec3(0, height, 0);
  b.velocity = velocity;
  b.angularVelocity = spin;
  s.bodies.push_back(b);
  ColliderDesc g;
  g.name = "ground";
  s.colliders.push_back(g);
  return s;
}

// largest node position difference between two runs of the same scene [m]
double runAndCompare(Scene s, int steps, const std::function<void(LayeredSettings&)>& a,
                     const std::function<void(LayeredSettings&)>& b) {
  World wa(s), wb(s);
  a(wa.bodies()[0].layered.settings());
  b(wb.bodies()[0].layered.settings());
  double worst = 0;
  for (int n = 0; n < steps; ++n) {
    wa.step();
    wb.step();
    // World copies the scene's solver fields each step; keep the method under test
    a(wa.bodies()[0].layered.settings());
    b(wb.bodies()[0].layered.settings());
    for (int i = 0; i < wa.bodies()[0].nodes(); ++i)
      worst = std::max(worst, (wa.bodies()[0].layered.nodePosition(i) -
                               wb.bodies()[0].layered.nodePosition(i)).norm());
  }
  return worst;
}

}  // namespace

TEST(LayeredSolver, ConjugateGradientsMatchTheDirectSolver) {
  Scene s = ballOnGround(0.7, Vec3(0.5, 0, 0), Vec3(0, 0, -1));
  s.simulation.solver.iterations = 2000;
  s.simulation.solver.tolerance = 1e-12;
  s.simulation.solver.method = "cg";
  World wa(s);
  s.simulation.solver.method = "direct";
  World wb(s);
  double worst = 0;
  for (int n = 0; n < 200; ++n) {  // drop, impact, roll
    wa.step();
    wb.step();
    for (int i = 0; i < wa.bodies()[0].nodes(); ++i)
      worst = std::max(worst, (wa.bodies()[0].layered.nodePosition(i) -
                               wb.bodies()[0].layered.nodePosition(i)).norm());
  }
  std::printf("[ figures  ] CG (tol 1e-12) vs direct, 200 steps with contact: max node distance %.3g m\n", worst);
  EXPECT_LT(worst, 1e-13);  // (measured 2.6e-14 m)
}

TEST(LayeredSolver, CachedCouplingColumnsStayCloseToTheExactSolve) {
  // Y = Mt_e^-1 M_ec: translational columns W_t R^T are exact; rotational columns use the
  // rest shape plus a block-diagonal correction for q. A spinning ball bouncing on the
  // ground deforms and rotates: the cached and the exact runs must stay close.
  Scene s = ballOnGround(0.7, Vec3(1, 0, 0), Vec3(0, 3, -2));
  s.simulation.solver.method = "direct";
  const double worst = runAndCompare(
      s, 200, [](LayeredSettings& l) { l.exactCoupling = false; },
      [](LayeredSettings& l) { l.exactCoupling = true; });
  std::printf("[ figures  ] cached vs exact coupling columns, 200 steps: max node distance %.3g m\n", worst);
  EXPECT_LT(worst, 1e-3);  // 0.2% of the radius after 1 s of spinning, bouncing motion
}

TEST(LayeredSolver, OneSidedContactNeverPullsWhereEqualityConstraintsDo) {
  // a soft ball rolling along the ground: the paper's equality constraints (8)
  // hold some touching nodes down (negative multipliers: the ground pulls);
  // one-sided contacts release them. Contacts are found at the predicted state,
  // so few nodes are ever asked to pull and the motions differ little.
  struct Run {
    long pulled = 0, applied = 0;
    double x = 0, least = 0;  // the most negative row impulse of any step [N s]
  };
  auto roll = [](bool oneSided) {
    Scene s = ballOnGround(0.46, Vec3(2, 0, 0), Vec3(0, 0, -4));
    s.simulation.response.oneSided = oneSided;
    World w(s);
    Run r;
    for (int n = 0; n < 200; ++n) {
      w.step();
      const LayeredStepInfo& info = w.bodies()[0].layered.lastStep();
      r.pulled += info.pulling;
      r.applied += oneSided ? info.contacts - info.activeContacts : info.pulling;
      r.least = std::min(r.least, info.leastImpulse);
    }
    r.x = w.bodies()[0].state.position.x();
    return r;
  };
  const Run one = roll(true), eq = roll(false);
  std::printf("[ figures  ] rolling 1 s: equality constraints pulled %ld times (x = %.4f m, most negative row "
              "impulse %.2e N s); one-sided released %ld would-be pulls (x = %.4f m, most negative %.2e N s)\n",
              eq.applied, eq.x, eq.least, one.pulled, one.x, one.least);
  EXPECT_GT(eq.applied, 0);   // the paper's constraints do pull
  EXPECT_LT(eq.least, 0.0);   // ... a row's impulse is negative
  EXPECT_GT(one.pulled, 0);   // the same situations arise with one-sided contacts ...
  EXPECT_GE(one.least, 0.0);  // ... and no row's impulse ever is
  EXPECT_NEAR(one.x, eq.x, 0.05);
}
