// The CG's float path: a body of at least kFloatBlocksMinNodes nodes (a 256^2 ball)
// solved at a tolerance of at least kFloatBlocksTolerance reads Mt_e's blocks in float
// for the product A p (docs/decisions/0003-cg-float-blocks.md); a tolerance just
// under it reads the double blocks. The same steps on both paths, from one captured
// state, agree to what the float rounding of Mt_e (a residual of about 3e-8) and the
// CG tolerance allow.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "sim/body/implicit_operator.h"
#include "sim/body/layered_body.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {

// Measured (256^2 ball, 41334 nodes, spinning and moving, 3 steps of 5 ms; 17.6 s on the
// loaded 2-core build machine, most of it the operator's build in the first run): both
// paths take 50 CG iterations a step (the cap: the relative residual is still 9.4e-4
// after the first step's 50), and they agree to 3.5e-7 of the largest |q| and 1.4e-7 of
// the largest |qdot|, the core to 1.7e-11 m, 1.9e-10 rad and 1.2e-9 in w.
// Mutation (the float blocks 1e-5 off, mt_ * (1 + 1e-5) in ImplicitOperator::prepare):
// |dq| 4.9e-6 and |dqdot| 3.0e-6 of the largest, 1.3e-9 rad, 1.5e-8 in w.
TEST(FloatBlocks, FloatAndDoublePathsAgreeAt256) {
  BodyDesc d = test::ball(0.5, 256, 1e5);
  d.velocity = Vec3(1, 0.5, 0);
  d.angularVelocity = Vec3(2, 6, 1);  // the centrifugal load keeps the CG at work every step
  const auto t0 = std::chrono::steady_clock::now();
  test::OneBody s(d);
  const double bakeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_GE(s.body.nodeCount(), kFloatBlocksMinNodes);
  ASSERT_EQ(s.world.settings().solver.method, "auto");  // CG above kDirectMaxNodes
  ASSERT_GE(s.world.settings().solver.tolerance, kFloatBlocksTolerance);
  const WorldState start = s.world.capture();
  struct Run {
    LayeredState state;
    int iterations = 0;
    double residual = 0;
  };
  auto run = [&](double tolerance) {
    s.world.restore(start);
    s.world.settings().solver.tolerance = tolerance;
    Run r;
    for (int n = 0; n < 3; ++n) {
      s.step(0.005, Vec3::Zero());
      r.iterations += s.body.lastStep().cgIterations;
      r.residual = std::max(r.residual, s.body.lastStep().cgResidual);
    }
    r.state = s.body.state();
    return r;
  };
  const auto t1 = std::chrono::steady_clock::now();
  const Run f = run(kFloatBlocksTolerance);
  const auto t2 = std::chrono::steady_clock::now();
  const Run dbl = run(0.999999 * kFloatBlocksTolerance);
  const auto t3 = std::chrono::steady_clock::now();
  std::printf("256^2: bake %.1f s, 3 steps on float blocks %.1f s, on double blocks %.1f s\n", bakeSeconds,
              std::chrono::duration<double>(t2 - t1).count(), std::chrono::duration<double>(t3 - t2).count());
  double dq = 0, qMax = 0, dqdot = 0, qdotMax = 0;
  for (size_t i = 0; i < f.state.q.size(); ++i) {
    dq = std::max(dq, (f.state.q[i] - dbl.state.q[i]).norm());
    qMax = std::max(qMax, dbl.state.q[i].norm());
    dqdot = std::max(dqdot, (f.state.qdot[i] - dbl.state.qdot[i]).norm());
    qdotMax = std::max(qdotMax, dbl.state.qdot[i].norm());
  }
  const double dc = (f.state.position - dbl.state.position).norm();
  const double dw = (f.state.angularVelocity - dbl.state.angularVelocity).norm() / dbl.state.angularVelocity.norm();
  const double dR = f.state.orientation.angularDistance(dbl.state.orientation);
  std::printf("256^2 (%d nodes), 3 steps: float blocks %d CG iterations (residual <= %.1e), double %d (<= %.1e); "
              "max |dq| %.2e m of %.2e m (%.1e), max |dqdot| %.2e m/s of %.2e (%.1e); core %.1e m, %.1e rad, "
              "|dw|/|w| %.1e\n",
              s.body.nodeCount(), f.iterations, f.residual, dbl.iterations, dbl.residual, dq, qMax, dq / qMax, dqdot,
              qdotMax, dqdot / qdotMax, dc, dR, dw);
  EXPECT_GT(qMax, 1e-5);  // (the skin did deform)
  EXPECT_GT(dq, 0);       // (two different paths)
  EXPECT_LT(dq, 1e-6 * qMax);
  EXPECT_LT(dqdot, 4e-7 * qdotMax);
  EXPECT_LT(dc, 5e-11);
  EXPECT_LT(dR, 6e-10);
  EXPECT_LT(dw, 3e-9);
}

}  // namespace d2t
