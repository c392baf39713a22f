// Springs in the implicit step: core springs (a head held at the neck) against the
// closed forms of a mass on a spring (static extension, frequency, damped decay,
// the discrete backward Euler decay), stiff springs at dt = 1/60; the mouse's drag
// spring on a skin node against an independent direct solve of K_e q = f, a stiff
// drag, and the momentum a pulled free body gains.
#include <gtest/gtest.h>

#include <Eigen/SparseCholesky>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>

#include "sim/body/layered_body.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "static_solve.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

using Sim = test::OneBody;  // a World of one body

// a ball at `at` hanging on one spring at its centre, anchored at the centre's start
BodyDesc hangingBall(int res, double young, double k, double c, const Vec3& at = Vec3(0, 2, 0)) {
  BodyDesc d = test::ball(kR, res, young);
  d.position = at;
  CoreSpringDesc s;
  s.stiffness = k;
  s.damping = c;
  d.springs.push_back(s);
  return d;
}

// world position of core spring 0's point
Vec3 springPoint(const LayeredBody& b) {
  const LayeredState& s = b.state();
  return s.position + s.orientation * (b.coreSprings()[0].point - b.model().comOffset);
}

// times of the upward zero crossings of x(t), linearly interpolated
std::vector<double> upCrossings(const std::vector<double>& t, const std::vector<double>& x) {
  std::vector<double> out;
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i - 1] < 0 && x[i] >= 0) out.push_back(t[i - 1] + (t[i] - t[i - 1]) * -x[i - 1] / (x[i] - x[i - 1]));
  return out;
}

std::vector<double> peaks(const std::vector<double>& x) {
  std::vector<double> out;
  for (size_t i = 1; i + 1 < x.size(); ++i)
    if (x[i] > x[i - 1] && x[i] >= x[i + 1] && x[i] > 0) out.push_back(x[i]);
  return out;
}

}  // namespace

TEST(CoreSpring, HangingBodySettlesAtTheStaticExtensionMgOverK) {
  BodyDesc d = hangingBall(32, 1e5, 5e4, 1e4);
  d.material.alpha = 5;  // settle the skin's vibration quickly
  d.material.beta = 0.02;
  Sim s(d);
  const double m = s.body.totalMass(), k = 5e4;
  const Vec3 anchor = s.body.coreSprings()[0].anchor;
  for (int i = 0; i < 3000; ++i) s.step(0.005, kG);
  const double extension = anchor.y() - springPoint(s.body).y();
  const double expect = m * 9.81 / k;
  std::printf("hanging: extension %.9f m, m g / k = %.9f m (rel. error %.2e), sideways %.1e m\n", extension,
              expect, std::abs(extension / expect - 1), (springPoint(s.body) - anchor).head<1>().norm());
  EXPECT_NEAR(extension, expect, 1e-6 * expect);
  EXPECT_LT(std::abs(springPoint(s.body).x() - anchor.x()) + std::abs(springPoint(s.body).z() - anchor.z()),
            1e-9);
}

TEST(CoreSpring, BodyOscillatesAtSqrtKOverMAndDecaysAsTheClosedForm) {
  // a stiff skin (the body is nearly rigid), f = 2 Hz
  const double young = 1e8, f0 = 2.0;
  for (const double zeta : {0.0, 0.1}) {
    BodyDesc probe = test::ball(kR, 32, young);
    const double m = bake(probe)->totalMass;
    const double w0 = 2 * kPi * f0, k = m * w0 * w0, c = 2 * zeta * std::sqrt(k * m);
    BodyDesc d = hangingBall(32, young, k, c);
    d.material.alpha = 0;
    d.material.beta = 0;
    Sim s(d);
    const double dt = zeta > 0 ? 2.5e-4 : 1e-3;
    const double yEq = s.body.coreSprings()[0].anchor.y() - m * 9.81 / k;
    std::vector<double> t, x;
    for (int i = 1; i * dt <= 3.0; ++i) {
      s.step(dt, kG);
      t.push_back(i * dt);
      x.push_back(springPoint(s.body).y() - yEq);
    }
    const std::vector<double> up = upCrossings(t, x);
    ASSERT_GE(up.size(), 4u);
    const double period = (up.back() - up.front()) / double(up.size() - 1);
    const double wd = w0 * std::sqrt(1 - zeta * zeta);
    const double expectPeriod = 2 * kPi / wd;
    std::printf("zeta %.1f: period %.5f s, 2 pi / (w0 sqrt(1 - zeta^2)) = %.5f s (rel. %.2e)\n", zeta, period,
                expectPeriod, std::abs(period / expectPeriod - 1));
    EXPECT_NEAR(period, expectPeriod, 0.02 * expectPeriod);
    if (zeta > 0) {
      // decay rate from the peaks: ln(A_0 / A_n) / (n T)
      const std::vector<double> p = peaks(x);
      ASSERT_GE(p.size(), 4u);
      const double rate = std::log(p.front() / p.back()) / (double(p.size() - 1) * period);
      // continuous: c / 2m; backward Euler's own: |z| = (1 + a + b)^-1/2 per step, a = dt c/m, b = dt^2 k/m
      const double continuous = c / (2 * m);
      const double discrete = std::log(1 + dt * c / m + dt * dt * k / m) / (2 * dt);
      std::printf("  decay rate %.4f 1/s: c/2m = %.4f (rel. %.2e), backward Euler's %.4f (rel. %.2e)\n", rate,
                  continuous, std::abs(rate / continuous - 1), discrete, std::abs(rate / discrete - 1));
      EXPECT_NEAR(rate, continuous, 0.03 * continuous);
      EXPECT_NEAR(rate, discrete, 0.01 * discrete);
    }
  }
}

TEST(CoreSpring, VeryStiffSpringAtDt60IsStableAndConverges) {
  // k = 1e8: w dt = 7 at dt = 1/60, far beyond any explicit scheme
  const double k = 1e8, dt = 1.0 / 60;
  {
    BodyDesc d = hangingBall(32, 1e5, k, 0);
    d.material.alpha = 5;
    d.material.beta = 0.02;
    Sim s(d);
    const double m = s.body.totalMass();
    const Vec3 anchor = s.body.coreSprings()[0].anchor;
    double worst = 0;
    for (int i = 0; i < 600; ++i) {
      s.step(dt, kG);
      ASSERT_TRUE(s.body.state().position.allFinite()) << i;
      worst = std::max(worst, (springPoint(s.body) - anchor).norm());
    }
    const double extension = anchor.y() - springPoint(s.body).y(), expect = m * 9.81 / k;
    std::printf("k = 1e8, dt = 1/60: extension %.6e m vs m g / k %.6e m (rel. %.2e), largest stretch %.2e m\n",
                extension, expect, std::abs(extension / expect - 1), worst);
    EXPECT_NEAR(extension, expect, 1e-6 * expect);
    EXPECT_LT(worst, 3 * expect);
  }
  {
    // a pendulum on a stiff spring at the top of the ball, released 30 degrees out:
    // backward Euler only loses energy (spring potential included)
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.position = Vec3(0, 2, 0);
    d.orientation = Quat(Eigen::AngleAxisd(kPi / 6, Vec3::UnitZ()));
    CoreSpringDesc sp;
    sp.point = Vec3(0, kR, 0);
    sp.stiffness = k;
    d.springs.push_back(sp);
    Sim s(d);
    auto energy = [&]() {
      return s.body.kineticEnergy() + s.body.gravitationalEnergy(kG) + s.body.elasticEnergy() +
             s.body.springEnergy();
    };
    const double e0 = energy(), scale = s.body.totalMass() * 9.81 * kR;
    double most = e0, stretch = 0, lowest = 1e300;
    for (int i = 0; i < 600; ++i) {
      s.step(dt, kG);
      ASSERT_TRUE(s.body.state().position.allFinite()) << i;
      most = std::max(most, energy());
      stretch = std::max(stretch, (springPoint(s.body) - s.body.coreSprings()[0].anchor).norm());
      lowest = std::min(lowest, s.body.centerOfMass().y());
    }
    std::printf("stiff pendulum: energy %.2f J -> %.2f J (most %.2f J), largest stretch %.2e m, swing %.3f m\n",
                e0, energy(), most, stretch, lowest);
    // (the explicit parts of the step, Q_v and the centripetal term, leave a few J of
    // noise on 10 kJ; a blow-up at w dt = 7 would be orders of magnitude beyond)
    EXPECT_LT(most, e0 + 2e-3 * scale);
    EXPECT_LT(energy(), e0);
    // the spring carries the pendulum: stretch ~ m (g + w^2 l) / k, here 5e-5 m and more
    EXPECT_LT(stretch, 2e-4);
  }
}

// ---- the mouse's drag spring -------------------------------------------------------------------

namespace {

// the static skin of a point force on one node (static_solve.h)
std::vector<Vec3> solveStatic(const BakedBody& m, int node, const Vec3& force) {
  std::vector<Vec3> f(size_t(m.nodeCount()), Vec3::Zero());
  f[size_t(node)] = force;
  return test::solveStatic(m, f);
}

int topNode(const BakedBody& m) {
  int best = 0;
  for (int i = 0; i < m.nodeCount(); ++i)
    if (m.restSkin[i].y() > m.restSkin[best].y()) best = i;
  return best;
}

using test::fieldError;

}  // namespace

TEST(DragSpring, PulledSkinOfAHeldCoreSettlesToTheStaticSolveOfTheSpringForce) {
  for (const double k : {2e3, 1e7}) {
    const double dt = k > 1e6 ? 1.0 / 60 : 0.005;
    Sim s(test::ball(kR, 32, 5e4));
    s.body.settings().fixedCore = true;
    const int i = topNode(s.body.model());
    const Vec3 target = s.body.nodePosition(i) + Vec3(0.03, 0.06, 0);
    s.body.beginDrag(i, target, k);
    double worst = 0;
    for (int step = 0; step < 1500; ++step) {
      s.step(dt, Vec3::Zero());
      ASSERT_TRUE(s.body.state().q[size_t(i)].allFinite()) << step;
      worst = std::max(worst, (s.body.nodePosition(i) - target).norm());
    }
    // the spring force at equilibrium, and K_e q = f at the node (body = world frame here)
    const Vec3 f = k * (target - s.body.nodePosition(i));
    const std::vector<Vec3> ref = solveStatic(s.body.model(), i, f);
    const double err = fieldError(s.body.state().q, ref);
    double speed = 0;
    for (const Vec3& v : s.body.state().qdot) speed = std::max(speed, v.norm());
    std::printf("drag k = %.0e, dt = %.4f: f = (%.2f, %.2f, %.2f) N, field vs direct K_e q = f: %.2e, "
                "node %.4f m from target, skin speed %.1e m/s\n",
                k, dt, f.x(), f.y(), f.z(), err, (s.body.nodePosition(i) - target).norm(), speed);
    EXPECT_LT(err, 0.05);
    EXPECT_LE(worst, (Vec3(0.03, 0.06, 0)).norm() * (1 + 1e-9));  // never overshoots the start distance
  }
}

TEST(DragSpring, PulledFreeBodyGainsTheMomentumOfTheSpringForce) {
  // a stiff skin (the pull moves the body more than it stretches the skin)
  World w([] {
    Scene sc;
    sc.simulation.dt = 0.002;
    sc.simulation.gravity = Vec3::Zero();
    BodyDesc b = test::ball(kR, 32, 1e6);
    b.position = Vec3(0, 1, 0);
    sc.bodies.push_back(b);
    return sc;
  }());
  Body& b = w.bodies()[0];
  const int i = topNode(*b.model);  // off the centre of mass: the pull also turns the body
  const Vec3 x0 = b.layered.nodePosition(i);
  const Vec3 target = x0 + Vec3(0.4, 0.1, 0.2);
  w.beginSkinDrag(0, i, target, 0, -0.2);  // default stiffness, 0.2 of critical damping
  const DragSpring d = b.layered.drag();
  const Vec3 com0 = b.layered.centerOfMass();
  // the integral of the spring force f = k (target - x_i) - c xdot_i, each step's f read
  // from the state at the end of the step (backward Euler's force)
  Vec3 integral = Vec3::Zero(), sumImpulse = Vec3::Zero();
  for (int step = 0; step < 100; ++step) {
    w.step();
    const Vec3 f = d.stiffness * (d.target - b.layered.nodePosition(i)) - d.damping * b.layered.nodeVelocity(i);
    integral += w.settings().dt * f;
    sumImpulse += b.layered.lastDragImpulse();
  }
  const Vec3 p = b.layered.linearMomentum();
  const Vec3 moved = b.layered.centerOfMass() - com0;
  std::printf("free pull: k = %.0f N/m, c = %.0f N s/m; momentum (%.3f, %.3f, %.3f) vs integral of f "
              "(%.3f, %.3f, %.3f) (rel. %.2e), vs the solved impulses (rel. %.2e); centre of mass moved "
              "%.3f m toward the target\n",
              d.stiffness, d.damping, p.x(), p.y(), p.z(), integral.x(), integral.y(), integral.z(),
              (p - integral).norm() / integral.norm(), (p - sumImpulse).norm() / sumImpulse.norm(),
              moved.dot((target - x0).normalized()));
  EXPECT_LT((p - integral).norm(), 0.01 * integral.norm());
  EXPECT_LT((p - sumImpulse).norm(), 1e-9 * sumImpulse.norm());
  EXPECT_GT(moved.dot((target - x0).normalized()), 0.05);
  EXPECT_EQ(b.stats.resets, 0);
  // a stiff drag (k = 1e7) at dt = 1/60 on the free body: stable, the node reaches the target
  w.settings().dt = 1.0 / 60;
  w.beginSkinDrag(0, i, target + Vec3(0.1, 0, 0), 1e7);
  for (int step = 0; step < 300; ++step) w.step();
  const double gap = (b.layered.nodePosition(i) - (target + Vec3(0.1, 0, 0))).norm();
  std::printf("free pull k = 1e7, dt = 1/60: node %.2e m from the target, %d resets\n", gap, b.stats.resets);
  EXPECT_TRUE(b.layered.state().position.allFinite());
  EXPECT_LT(gap, 1e-3);
  EXPECT_EQ(b.stats.resets, 0);
}

}  // namespace d2t

namespace d2t {

// The punch demo (issue 7): the head held by its neck springs hangs still at the
// static sag of its springs, the scripted fist dents it and pushes it aside, and the
// springs bring it back. A 32^2 atlas for speed (the scene's is 128^2).
TEST(CoreSpring, HeadPunchSceneDentsTheHeadAndItSwingsBack) {
  const std::filesystem::path file =
      std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / "head_punch.json";
  Scene scene = loadScene(file.string());
  scene.bodies[0].atlasResolution = 32;
  World w(scene);
  Body& head = w.bodies()[0];
  const Vec3 start = head.state.position;
  double sagBefore = 0, dent = 0, pushed = 0, farAfter = 0;
  for (int step = 1; step * scene.simulation.dt <= 3.0 + 1e-9; ++step) {
    w.step();
    const double t = w.time();
    const Vec3 d = head.state.position - start;
    if (t <= 0.6) sagBefore = std::max(sagBefore, std::abs(d.y()));
    for (const Vec3& q : head.layered.state().q) dent = std::max(dent, q.norm());
    if (t > 0.9 && t < 1.4) pushed = std::max(pushed, d.x());  // the fist comes from -x
    if (t > 2.6) farAfter = std::max(farAfter, d.norm());
  }
  // four springs carry the weight: sag m g / 4k, with the skin's own sag on top
  double k = 0;
  for (const CoreSpring& s : head.layered.coreSprings()) k += s.stiffness;
  const double staticSag = head.mass() * 9.81 / k;
  std::printf("head punch: sag before %.4f m (m g / sum k = %.4f m), deepest skin displacement %.4f m, pushed "
              "%.4f m, within %.4f m of the start after 2.6 s, %d resets\n",
              sagBefore, staticSag, dent, pushed, farAfter, head.stats.resets);
  EXPECT_LT(sagBefore, 3 * staticSag);
  EXPECT_GT(dent, 0.01);
  EXPECT_GT(pushed, 0.02);
  EXPECT_LT(farAfter, 0.5 * pushed);
  EXPECT_EQ(head.stats.resets, 0);
}

}  // namespace d2t

namespace d2t {

TEST(DragSpring, BadArgumentsAreRefusedWithoutTouchingTheBody) {
  LayeredBody b(bake(test::ball(kR, 16, 5e4)), test::ball(kR, 16, 5e4));
  EXPECT_THROW(b.beginDrag(-1, Vec3::Zero(), 100), std::out_of_range);
  EXPECT_THROW(b.beginDrag(b.nodeCount(), Vec3::Zero(), 100), std::out_of_range);
  EXPECT_THROW(b.beginDrag(0, Vec3(NAN, 0, 0), 100), std::invalid_argument);
  EXPECT_THROW(b.beginDrag(0, Vec3::Zero(), 0), std::invalid_argument);
  EXPECT_FALSE(b.dragging());
  b.beginDrag(0, Vec3(0, 1, 0), 100);
  b.moveDrag(Vec3(INFINITY, 0, 0));  // ignored
  EXPECT_EQ(b.drag().target, Vec3(0, 1, 0));
  EXPECT_GT(b.drag().damping, 0);  // critical by default
}

}  // namespace d2t
