// Closed-form and reference checks of the dynamic layered solver (LayeredBody):
// free fall, conservation in free flight, steady spin against the static
// centrifugal bulge, skin oscillation at the modal frequency, rest on a plane
// against the static equilibrium, restitution, rolling and sliding on an
// incline, heterogeneous indentation, and a random parameter box (World).
// The references come from sim/static_reference.h (independent direct solves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "incline_fit.h"
#include "sim/base/json_reader.h"
#include "sim/body/layered_body.h"
#include "sim/model/static_reference.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

BodyDesc ballDesc(int res, double young, double density = 1000) {
  return test::ball(kR, res, young, density);
}

using test::Ellipsoid;

// a body stepped by a World of its own (and the plane, when given)
using Sim = test::OneBody;
using test::planeCollider;

double maxDisplacement(const LayeredBody& b) {
  double m = 0;
  for (const Vec3& q : b.state().q) m = std::max(m, q.norm());
  return m;
}

double maxNodeSpeed(const LayeredBody& b) {
  double m = 0;
  for (int i = 0; i < b.nodeCount(); ++i) m = std::max(m, b.nodeVelocity(i).norm());
  return m;
}

double lowestNode(const LayeredBody& b, const Vec3& normal = Vec3::UnitY()) {
  double m = 1e300;
  for (int i = 0; i < b.nodeCount(); ++i) m = std::min(m, normal.dot(b.nodePosition(i)));
  return m;
}

// height of c at which the undeformed skin, in orientation R, touches the plane y = 0
double touchHeight(const BakedBody& m, const Quat& r) {
  double low = 1e300;
  for (const Vec3& u : m.restSkin) low = std::min(low, (r * u).y());
  return -low;
}

bool finite(const LayeredBody& b) {
  const LayeredState& s = b.state();
  if (!s.position.allFinite() || !s.velocity.allFinite() || !s.angularVelocity.allFinite() ||
      !s.orientation.coeffs().allFinite())
    return false;
  for (int i = 0; i < b.nodeCount(); ++i)
    if (!s.q[i].allFinite() || !s.qdot[i].allFinite()) return false;
  return true;
}

}  // namespace

// ---- 1. free fall ---------------------------------------------------------------------------

TEST(LayeredPhysics, FreeFallFollowsTheDiscreteClosedForm) {
  BodyDesc d = ballDesc(32, 1e5);
  d.position = Vec3(0, 10, 0);
  d.velocity = Vec3(1, 2, 0.5);
  Sim s(d);
  const Vec3 x0 = s.body.state().position, v0 = d.velocity;
  const double dt = 0.01;
  double worst = 0, worstQ = 0;
  for (int n = 1; n <= 200; ++n) {
    s.step(dt, kG);
    // semi-implicit Euler: v_n = v_0 + n g dt, x_n = x_{n-1} + dt v_n = x_0 + n dt v_0 + g dt^2 n (n + 1) / 2
    const Vec3 expect = x0 + n * dt * v0 + kG * dt * dt * n * (n + 1) / 2.0;
    const double err = (s.body.state().position - expect).norm() / expect.norm();
    worst = std::max(worst, err);
    worstQ = std::max(worstQ, maxDisplacement(s.body));
    ASSERT_LT(err, 1e-9) << "step " << n;
    ASSERT_LT(maxDisplacement(s.body), 1e-9) << "step " << n;  // uniform gravity does not deform
  }
  std::printf("free fall: max relative position error %.2e, max |q| %.2e m\n", worst, worstQ);
}

// ... and on the CG solver, whose y solve must stop at once: gravity is solved
// exactly, so its right-hand side is rounding noise, and a residual measured against
// that noise alone ran the CG to its cap every step (ImplicitOperator::solveReferenceNorm).
TEST(LayeredPhysics, FreeFallOnTheCgSolverDoesNotIterateOnRoundingNoise) {
  BodyDesc d = ballDesc(32, 1e5);
  d.position = Vec3(0, 10, 0);
  d.velocity = Vec3(1, 2, 0.5);
  Sim s(d);
  s.world.settings().solver.method = "cg";
  const Vec3 x0 = s.body.state().position, v0 = d.velocity;
  const double dt = 0.01;
  int most = 0;
  for (int n = 1; n <= 100; ++n) {
    s.step(dt, kG);
    const Vec3 expect = x0 + n * dt * v0 + kG * dt * dt * n * (n + 1) / 2.0;
    ASSERT_LT((s.body.state().position - expect).norm() / expect.norm(), 1e-9) << "step " << n;
    ASSERT_LT(maxDisplacement(s.body), 1e-9) << "step " << n;
    most = std::max(most, s.body.lastStep().cgIterations);
  }
  std::printf("free fall on CG: at most %d CG iterations a step\n", most);
  EXPECT_LE(most, 1);
}

// ---- 2. free flight: momentum -----------------------------------------------------------

TEST(LayeredPhysics, FreeFlightConservesMomentumWithoutDamping) {
  BodyDesc d;
  d.name = "ellipsoid";
  d.shape = std::make_shared<Ellipsoid>(Vec3(0.5, 0.35, 0.25));
  d.atlasResolution = 32;
  d.material.young = 1e5;
  d.material.alpha = 0;
  d.material.beta = 0;
  d.velocity = Vec3(0.3, -0.2, 0.1);
  d.angularVelocity = Vec3(1.0, 3.0, 0.5);  // not about a principal axis: it tumbles
  Sim s(d);
  const double dt = 1.0 / 60, T = 2.0;
  const Vec3 p0 = s.body.linearMomentum(), l0 = s.body.angularMomentum(s.body.centerOfMass());
  double worstP = 0, worstL = 0;
  const int steps = int(std::lround(T / dt));
  for (int n = 1; n <= steps; ++n) {
    s.step(dt, Vec3::Zero());
    worstP = std::max(worstP, (s.body.linearMomentum() - p0).norm() / p0.norm());
    worstL = std::max(worstL, (s.body.angularMomentum(s.body.centerOfMass()) - l0).norm() / l0.norm());
    ASSERT_TRUE(finite(s.body));
  }
  std::printf("free flight (%d steps of 1/60 s): |dP|/|P| max %.2e, |dL|/|L| max %.3e (%.3e per s), max |q| %.2e m\n",
              steps, worstP, worstL, worstL / T, maxDisplacement(s.body));
  EXPECT_LT(worstP, 1e-9);
  EXPECT_LT(worstL / T, 0.01);
}

// The skin summary (one pass over the nodes: the sums and extremes the World's checks and
// statistics use) against the definitions node by node, on a random state of a body that
// moves, spins and is deformed: kinetic energy sum 1/2 m |xdot|^2, elastic 1/2 q . K q
// (the stencil product), gravitational -sum m g . x, the centre of mass, the momentum,
// and the lowest node.
TEST(LayeredPhysics, SkinSummaryMatchesTheNodeByNodeDefinitions) {
  for (int resolution : {32, 128}) {  // (128^2: above kParallelNodes, the threads' sums)
    BodyDesc d;
    d.shape = std::make_shared<Ellipsoid>(Vec3(0.5, 0.35, 0.25));
    d.atlasResolution = resolution;
    d.material.young = 1e5;
    LayeredBody body(bake(d), d);
    const BakedBody& m = body.model();
    const int n = body.nodeCount();
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    LayeredState& s = body.editState();
    for (int i = 0; i < n; ++i) {
      s.q[i] = 4e-3 * Vec3(u(rng), u(rng), u(rng));
      s.qdot[i] = 0.2 * Vec3(u(rng), u(rng), u(rng));
    }
    s.position = Vec3(0.3, 1.2, -0.4);
    s.velocity = Vec3(0.5, -2.0, 0.7);
    s.angularVelocity = Vec3(1.5, -0.6, 3.0);
    s.orientation = Quat(Eigen::AngleAxisd(0.9, Vec3(1, 2, -1).normalized()));
    const Vec3 up = (s.orientation.conjugate() * Vec3::UnitY()).normalized();
    const SkinSummary sum = body.skinSummary(up);

    double kinetic = 0.5 * m.coreMass * s.velocity.squaredNorm() +
                     0.5 * s.angularVelocity.dot(m.coreInertia * s.angularVelocity);
    double gravity = -m.coreMass * kG.dot(s.position), lowest = 1e300, maxQ = 0, stretch = 0, crush = 0, maxQdot = 0;
    Vec3 com = m.coreMass * s.position, momentum = m.coreMass * s.velocity;
    for (int i = 0; i < n; ++i) {
      const Vec3 x = body.nodePosition(i), v = body.nodeVelocity(i);
      kinetic += 0.5 * m.nodeMass[i] * v.squaredNorm();
      gravity -= m.nodeMass[i] * kG.dot(x);
      com += m.nodeMass[i] * x;
      momentum += m.nodeMass[i] * v;
      lowest = std::min(lowest, x.y());
      maxQ = std::max(maxQ, s.q[i].norm());
      const Vec3 d = (m.restSkin[i] - m.core[i]).normalized();  // (the rest direction)
      // (the stretch: q less its part into the layer, which the crush bounds)
      const Vec3 sideways = d.dot(s.q[i]) < 0 ? Vec3(s.q[i] - d.dot(s.q[i]) * d) : s.q[i];
      stretch = std::max(stretch, sideways.norm() / (m.restSkin[i] - m.core[i]).norm());
      crush = std::max(crush, -d.dot(s.q[i]) / (m.restSkin[i] - m.core[i]).norm());
      maxQdot = std::max(maxQdot, s.qdot[i].norm());
    }
    com /= m.totalMass;
    std::vector<Vec3> kq;
    multiplyStencil(body.model().atlas.stencil, body.elastic().stiffness(), s.q, kq);
    double elastic = 0;
    for (int i = 0; i < n; ++i) elastic += 0.5 * s.q[i].dot(kq[i]);
    auto rel = [](double a, double b) { return std::abs(a - b) / std::abs(b); };
    std::printf("skin summary vs node by node (%d nodes): kinetic %.1e, elastic %.1e, gravitational %.1e (relative); "
                "com %.1e m, momentum %.1e kg m/s, lowest %.1e m\n",
                n, rel(body.kineticEnergy(sum), kinetic), rel(sum.elastic, elastic),
                rel(body.gravitationalEnergy(sum, kG), gravity), (body.centerOfMass(sum) - com).norm(),
                (body.linearMomentum(sum) - momentum).norm(), std::abs(s.position.y() + sum.lowest - lowest));
    EXPECT_TRUE(sum.finite);
    EXPECT_LT(rel(body.kineticEnergy(sum), kinetic), 1e-12);
    EXPECT_LT(rel(sum.elastic, elastic), 1e-12);
    EXPECT_LT(rel(body.gravitationalEnergy(sum, kG), gravity), 1e-12);
    EXPECT_LT((body.centerOfMass(sum) - com).norm(), 1e-12);
    EXPECT_LT((body.linearMomentum(sum) - momentum).norm(), 1e-12 * momentum.norm());
    EXPECT_NEAR(s.position.y() + sum.lowest, lowest, 1e-12);
    EXPECT_DOUBLE_EQ(sum.maxQ, maxQ);
    EXPECT_DOUBLE_EQ(sum.maxStretch, stretch);
    EXPECT_NEAR(sum.maxCrush, crush, 1e-15);
    EXPECT_GT(crush, 0);  // (the random state pushes some node in)
    EXPECT_DOUBLE_EQ(sum.maxQdot, maxQdot);
    EXPECT_GT(sum.elastic, 0);  // (K_e is positive semi-definite; q has no rigid part)
    // a node's state not finite: the summary says so
    body.editState().qdot[size_t(n / 3)].x() = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(body.skinSummary(up).finite);
  }
}

// ---- 3. steady spin -------------------------------------------------------------------------

TEST(LayeredPhysics, SteadySpinReachesTheStaticCentrifugalBulge) {
  BodyDesc d = ballDesc(32, 1e5);
  d.material.alpha = 2.0;  // settle the bulge's oscillation within a few seconds
  d.material.beta = 0.01;
  d.angularVelocity = Vec3(0, 6, 0);  // lowest skin mode: 34 rad/s
  Sim s(d);
  const double dt = 0.005;
  for (int n = 0; n < 600; ++n) s.step(dt, Vec3::Zero());  // 3 s
  ASSERT_TRUE(finite(s.body));
  const BakedBody& m = s.body.model();
  const Vec3 w = s.body.state().angularVelocity;  // body frame, after the spin-down by the bulge
  const std::vector<Vec3> ref = staticSpinBulge(m, w, true);
  double refMax = 0, err = 0, dynMax = 0;
  for (int i = 0; i < m.nodeCount(); ++i) {
    const Vec3 e = m.restSkin[i].normalized();
    const double rr = ref[i].dot(e), rd = s.body.state().q[i].dot(e);
    refMax = std::max(refMax, std::abs(rr));
    dynMax = std::max(dynMax, std::abs(rd));
    err = std::max(err, std::abs(rd - rr));
  }
  double qdot = 0;
  for (const Vec3& v : s.body.state().qdot) qdot = std::max(qdot, v.norm());
  std::printf("steady spin |w| = %.4f rad/s: max radial bulge reference %.4e m, dynamic %.4e m, "
              "max error %.3e m (%.2f%%), max |qdot| %.1e m/s\n",
              w.norm(), refMax, dynMax, err, 100 * err / refMax, qdot);
  EXPECT_GT(refMax, 1e-3);
  EXPECT_LT(err, 0.02 * refMax);
}

// ---- 4. skin oscillation at the modal frequency -----------------------------------------------

TEST(LayeredPhysics, SkinOscillatesAtTheLowestModeFrequency) {
  BodyDesc d = ballDesc(32, 1e5);
  d.material.alpha = 0;
  d.material.beta = 0;
  Sim s(d);
  s.body.settings().fixedCore = true;
  const BakedBody& m = s.body.model();
  const SkinMode mode = skinModes(m, 1)[0];
  double shapeMax = 0;
  for (const Vec3& v : mode.shape) shapeMax = std::max(shapeMax, v.norm());
  const double a = 1e-3 / shapeMax;  // 1 mm at the largest
  for (int i = 0; i < m.nodeCount(); ++i) s.edit().q[i] = a * mode.shape[i];
  const double period = 2 * kPi / mode.omega, dt = period / 200;
  const Vec3 c0 = s.body.state().position;
  // modal coordinate p = phi^T M q, zero crossings by linear interpolation
  auto modal = [&] {
    double p = 0;
    for (int i = 0; i < m.nodeCount(); ++i) p += m.nodeMass[i] * mode.shape[i].dot(s.body.state().q[i]);
    return p;
  };
  std::vector<double> crossings;
  double prev = modal();
  const double p0 = prev;
  for (int n = 1; n <= 4 * 200; ++n) {
    s.step(dt, Vec3::Zero());
    const double p = modal();
    if ((prev > 0) != (p > 0)) crossings.push_back(dt * (n - 1 + prev / (prev - p)));
    prev = p;
  }
  ASSERT_TRUE(finite(s.body));
  ASSERT_GE(crossings.size(), 6u);
  const double halfPeriod = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  const double measured = kPi / halfPeriod;
  std::printf("skin oscillation: mode omega %.4f rad/s, measured %.4f rad/s (%.3f%%), amplitude after 4 "
              "periods %.3f of the start, core moved %.1e m\n",
              mode.omega, measured, 100 * (measured / mode.omega - 1), std::abs(prev / p0),
              (s.body.state().position - c0).norm());
  EXPECT_NEAR(measured, mode.omega, 0.02 * mode.omega);
}

// ---- 5. rest on a plane --------------------------------------------------------------------------

namespace {

// A soft ball dropped from 0.2 m onto a plane (by default E = 1e5, 32^2, dt 5 ms,
// simulated for 5 s).
struct RestRun {
  double restAt = -1, speed = 0, penetration = 0, height = 0;
  RestOnPlane stick, slip;
};

struct RestSetup {
  bool contactSupport = ResponsePolicies{}.support;
  int resolution = 32;
  double young = 1e5;
  double dt = 0.005;
  double duration = 5;
};

RestRun restOnPlane(const RestSetup& setup = {}) {
  BodyDesc d = ballDesc(setup.resolution, setup.young);
  d.position = Vec3(0, kR + 0.2, 0);  // lowest point 0.2 m above the plane
  Sim s(d, planeCollider(Vec3::UnitY(), 0, d.material));
  s.world.settings().response.support = setup.contactSupport;
  const double dt = setup.dt;
  RestRun r;
  for (int n = 1; n * dt <= setup.duration + 1e-9; ++n) {
    s.step(dt, kG);
    EXPECT_TRUE(finite(s.body)) << n;
    const double speed = maxNodeSpeed(s.body);
    if (speed < 1e-3 && r.restAt < 0) r.restAt = n * dt;
    if (speed >= 1e-3) r.restAt = -1;
  }
  const LayeredBody& b = s.body;
  r.speed = maxNodeSpeed(b);
  r.penetration = std::max(0.0, -lowestNode(b));
  r.stick = staticRestOnPlane(b.model(), kG, 0, b.state().orientation, PlaneContact::NoSlip);
  r.slip = staticRestOnPlane(b.model(), kG, 0, b.state().orientation, PlaneContact::Frictionless);
  r.height = b.state().position.y();
  std::printf("rest on plane (%d^2, E = %.0e, dt %g s, support %s, m = %.1f kg): at rest from t = %.3f s, "
              "node speed %.2e m/s, penetration %.2e m (%.3f%% of r)\n"
              "  c_y dynamic %.6f m; static no-slip %.6f m (sinking %.5f m, error %.1f%% of it), "
              "frictionless %.6f m (sinking %.5f m, error %.1f%%)\n",
              setup.resolution, setup.young, dt, setup.contactSupport ? "on" : "off", b.totalMass(), r.restAt, r.speed, r.penetration, 100 * r.penetration / kR, r.height,
              r.stick.coreHeight, r.stick.sinking, 100 * std::abs(r.height - r.stick.coreHeight) / r.stick.sinking,
              r.slip.coreHeight, r.slip.sinking, 100 * std::abs(r.height - r.slip.coreHeight) / r.slip.sinking);
  return r;
}

}  // namespace

TEST(LayeredPhysics, SoftBallComesToRestWithoutPenetration) {
  const RestRun r = restOnPlane();
  EXPECT_GT(r.restAt, 0) << "still moving after 5 s";
  EXPECT_LT(r.speed, 1e-3);
  EXPECT_LT(r.penetration, 0.005 * kR);
}

// With the paper's block-diagonal contact response (sec. 5.3) alone the resting
// ball sinks ~21% less than the static solve of the same model: the free update
// relaxes the dent through Mt_e^-1, the response pushes back only the contact
// nodes. With the colliders' support inside the free update
// (LayeredSettings::contactSupport) the rest is the static one. With friction
// the static rest depends on how the load came (each node sticks where it
// touched): it lies between the frictionless and the no-slip solves, which are
// 2.3% of the sinking apart here; 2% of the sinking beyond either is the bound.
TEST(LayeredPhysics, RestHeightWithContactSupportMatchesTheStaticEquilibrium) {
  const RestRun r = restOnPlane({.contactSupport = true});
  EXPECT_GT(r.restAt, 0) << "still moving after 5 s";
  EXPECT_LT(r.penetration, 0.005 * kR);
  const double low = std::min(r.stick.coreHeight, r.slip.coreHeight) - 0.02 * r.slip.sinking;
  const double high = std::max(r.stick.coreHeight, r.slip.coreHeight) + 0.02 * r.stick.sinking;
  EXPECT_GE(r.height, low);
  EXPECT_LE(r.height, high);
}

// The support is an iteration on the contact forces, one sweep per step
// (kSupportRelaxation): where the skin couples many contacts strongly (a large
// patch in nodes, a stiff implicit diagonal: r ~ 180 here), undamped it diverged
// into a bouncing limit cycle (this ball kept 0.26 J of kinetic energy after 8 s,
// as ball_drop at 128^2 and 256^2 at dt 5 ms). It must come to rest, at the static
// height, as at 32^2.
TEST(LayeredPhysics, RestWithContactSupportIsStableWhereContactsCoupleStrongly) {
  const RestRun r = restOnPlane({.contactSupport = true, .resolution = 64, .young = 5e4, .dt = 0.02, .duration = 8});
  EXPECT_GT(r.restAt, 0) << "still moving after 8 s";
  EXPECT_LT(r.speed, 1e-3);
  const double low = std::min(r.stick.coreHeight, r.slip.coreHeight) - 0.02 * r.slip.sinking;
  const double high = std::max(r.stick.coreHeight, r.slip.coreHeight) + 0.02 * r.stick.sinking;
  EXPECT_GE(r.height, low);
  EXPECT_LE(r.height, high);
}

// ... and without it, the known gap: it rests higher than either static solve.
TEST(LayeredPhysics, RestHeightWithTheBlockDiagonalResponseAloneIsTooHigh) {
  const RestRun r = restOnPlane({.contactSupport = false});
  EXPECT_GT(r.height, r.stick.coreHeight + 0.1 * r.stick.sinking);
}

// A ball held at its core by a spring (no gravity), anchored past the pose where the
// ball touches a plane, is pressed into the plane: at rest, the spring's force is the
// contact force, and the indentation must be the static solve's for that force
// (within 5%; issue 7 asked for 20%). With contact support (see the rest height above);
// the block-diagonal response alone indents 21.8% short (5.8 mm against 7.4 mm
// at 387 N).
TEST(LayeredPhysics, PressedBallWithContactSupportIndentsAsTheStaticSolveForTheSameForce) {
  BodyDesc d = ballDesc(32, 1e5);
  d.material.alpha = 1.0;
  d.material.beta = 0.01;
  d.material.friction = 1.0;
  d.material.restitution = 0;
  const double travel = 0.03;  // the anchor's distance past the touching pose [m]
  // the ball starts touching the plane y = offset; its centre's spring, anchored
  // `travel` lower, presses it in (no gravity)
  const double offset = -touchHeight(*bake(d), Quat::Identity());
  d.position = Vec3(0, travel, 0);
  CoreSpringDesc k;
  k.stiffness = 2e4;
  k.damping = 200;
  k.hasAnchor = true;
  k.anchor = Vec3::Zero();
  d.springs.push_back(k);
  Sim s(d, planeCollider(Vec3::UnitY(), offset + travel, d.material));
  s.world.settings().response.support = true;
  const double dt = 0.005;
  // where c is when the spring is slack (c is the centre of mass, not the shape's origin)
  const Vec3 c0 = s.body.state().position - (d.position - k.anchor);
  for (int n = 1; n <= 800; ++n) {
    s.step(dt, Vec3::Zero());
    ASSERT_TRUE(finite(s.body));
  }
  // the spring pulls its point (and so c) toward the anchor
  const double force = k.stiffness * (s.body.state().position.y() - c0.y());
  const RestOnPlane ref = staticPressOnPlane(s.body.model(), Vec3::Zero(), force, offset + travel,
                                             s.body.state().orientation,
                                             PlaneContact::NoSlip);
  const double sinking = ref.undeformedHeight - s.body.state().position.y();
  std::printf("pressed ball: force %.3f N, c_y %.6f m, sinking dynamic %.6f m, static %.6f m (%.1f%%), node speed %.1e\n",
              force, s.body.state().position.y(), sinking, ref.sinking, 100 * (sinking / ref.sinking - 1),
              maxNodeSpeed(s.body));
  EXPECT_GT(s.body.state().position.y() - c0.y(), 0.01);  // the plane holds the ball off the anchor
  EXPECT_NEAR(sinking, ref.sinking, 0.05 * ref.sinking);  // (measured +1.4%)
}

// ---- 6. restitution ---------------------------------------------------------------------------

TEST(LayeredPhysics, StiffBallBouncesToEpsilonSquaredOfTheDropHeight) {
  for (double eps : {0.2, 0.5, 0.8}) {
    BodyDesc d = ballDesc(32, 1e7);
    d.material.restitution = eps;
    const double drop = 0.3;
    d.position = Vec3(0, kR + drop, 0);
    Sim s(d, planeCollider(Vec3::UnitY(), 0, d.material));
    const double h0 = touchHeight(s.body.model(), s.body.state().orientation);
    const double start = s.body.state().position.y() - h0;
    const double dt = 0.001;
    bool touched = false, rising = false;
    double apex = -1;
    for (int n = 1; n <= 1500; ++n) {
      s.step(dt, kG);
      ASSERT_TRUE(finite(s.body));
      const LayeredState& st = s.body.state();
      if (s.body.lastStep().contacts > 0) touched = true;
      if (touched && st.velocity.y() > 0) rising = true;
      if (rising && st.velocity.y() <= 0) {
        apex = st.position.y() - touchHeight(s.body.model(), st.orientation);
        break;
      }
    }
    ASSERT_GT(apex, -1) << "no bounce apex for eps " << eps;
    const double ratio = apex / start;
    std::printf("restitution %.1f: bounce height ratio %.4f, eps^2 %.4f (%.1f%%)\n", eps, ratio, eps * eps,
                100 * (ratio / (eps * eps) - 1));
    EXPECT_NEAR(ratio, eps * eps, 0.1 * eps * eps) << "eps " << eps;
  }
}

// ---- 7. rolling and sliding on an incline -------------------------------------------------------

namespace {

// A ball released 1 mm above an incline of angle theta (downhill +x), undamped
// (the skin's damping is a rolling resistance of its own).
struct InclineSetup {
  double friction = 1.0;
  double crr = 0;  ///< rolling resistance coefficient
  bool contactSupport = ResponsePolicies{}.support;
  int resolution = 32;
};

struct InclineRun {
  double a = NAN;        ///< centre-of-mass acceleration [m/s^2], least-squares parabola over [t0, t1]
  double radius = NAN;   ///< rolling radius: mean distance from the centre of mass to the plane over [t0, t1] [m]
  double rolling = NAN;  ///< closed form without slipping, g (sin - crr cos) / (1 + I / (m r^2)), r = radius
  double slip = NAN;     ///< (v - w r) / v at t1: the contact's sliding relative to the roll
};

// A soft ball rolls on its loaded radius, the height of its centre of mass above
// the plane, which is the r of the closed form: a 32^2 ball of E = 1 MPa sinks
// 1.2 cm (2.4% of r, so 1.5% in a), 2.3 cm with contact support (its static
// sinking). Taking the unloaded radius instead made the supported ball look 5.4%
// slow when it rolls 2.7% below the closed form of its own radius.
InclineRun rollDownIncline(double theta, double t0, double t1, const InclineSetup& setup = {}) {
  const Vec3 n(std::sin(theta), std::cos(theta), 0);  // plane through the origin
  const Vec3 downhill(std::cos(theta), -std::sin(theta), 0);
  BodyDesc d = ballDesc(setup.resolution, 1e6);
  d.material.alpha = d.material.beta = 0;
  d.material.friction = setup.friction;
  d.material.rollingResistance = setup.crr;
  d.position = n * (kR + 1e-3);
  Sim s(d, planeCollider(n, 0, d.material, setup.friction));
  s.world.settings().response.support = setup.contactSupport;
  const double dt = 0.002;
  test::InclineFit fit(n, downhill);
  for (int k = 1; k * dt <= t1 + 1e-12; ++k) {
    s.step(dt, kG);
    if (!finite(s.body)) return {};
    if (k * dt >= t0) fit.add(k * dt, s.body.centerOfMass());
  }
  InclineRun r;
  r.a = fit.acceleration();
  r.radius = fit.radius();
  // I about the rolling axis (z)
  const BakedBody& m = s.body.model();
  const double inertia = m.totalInertia(2, 2);
  r.rolling = 9.81 * (std::sin(theta) - setup.crr * std::cos(theta)) /
              (1 + inertia / (m.totalMass * r.radius * r.radius));
  const LayeredState& st = s.body.state();
  const Vec3 w = st.orientation.toRotationMatrix() * st.angularVelocity;  // world
  const double v = downhill.dot(st.velocity), roll = -w.z() * n.dot(s.body.centerOfMass());
  r.slip = (v - roll) / v;
  return r;
}

}  // namespace

// Issue 4's test 7 at 32^2 and 64^2, with and without contact support.
TEST(LayeredPhysics, BallRollsDownAnInclineWithoutSlipping) {
  const double theta = 20 * kPi / 180;
  for (int resolution : {32, 64}) {
    for (bool support : {false, true}) {
      const InclineRun r = rollDownIncline(theta, 0.2, 1.0, {.contactSupport = support, .resolution = resolution});
      std::printf("incline 20 deg, mu = 1, %d^2, support %s: a = %.4f m/s^2, rolling radius %.4f m, closed form "
                  "%.4f (%.2f%%), slip %.2f%%, g sin = %.4f\n",
                  resolution, support ? "on" : "off", r.a, r.radius, r.rolling, 100 * (r.a / r.rolling - 1),
                  100 * r.slip, 9.81 * std::sin(theta));
      EXPECT_NEAR(r.a, r.rolling, 0.05 * r.rolling) << resolution << (support ? " with support" : "");
      EXPECT_LT(std::abs(r.slip), 0.02) << resolution << (support ? " with support" : "");
    }
  }
}

TEST(LayeredPhysics, RollingResistanceSlowsTheRollAsTheClosedFormSays) {
  const double theta = 20 * kPi / 180;
  const InclineRun rolling = rollDownIncline(theta, 0.2, 1.0);
  const double free = rolling.a;
  for (double crr : {0.05, 0.15, 0.3}) {
    const InclineRun r = rollDownIncline(theta, 0.2, 1.0, {.crr = crr});
    const double a = r.a, expect = r.rolling;
    const double slower = free - a, expectSlower = rolling.rolling - expect;
    std::printf("incline 20 deg, mu = 1, C_rr = %.2f: a = %.4f m/s^2 (closed form %.4f), slower by %.4f m/s^2, "
                "closed form %.4f (%.1f%%)\n",
                crr, a, expect, slower, expectSlower, 100 * (slower / expectSlower - 1));
    EXPECT_NEAR(slower, expectSlower, 0.1 * expectSlower) << crr;
  }
  // a resistance above tan(theta) holds the ball on the slope
  const Vec3 n(std::sin(theta), std::cos(theta), 0), downhill(std::cos(theta), -std::sin(theta), 0);
  BodyDesc d = ballDesc(32, 1e6);
  d.material.rollingResistance = 0.5;
  d.material.friction = 1.0;
  d.position = n * (kR + 1e-3);
  Sim s(d, planeCollider(n, 0, d.material, 1.0));
  double x0 = 0;
  for (int k = 1; k <= 750; ++k) {  // 1.5 s
    s.step(0.002, kG);
    ASSERT_TRUE(finite(s.body)) << k;
    if (k == 250) x0 = downhill.dot(s.body.centerOfMass());
  }
  const double moved = downhill.dot(s.body.centerOfMass()) - x0;
  std::printf("incline 20 deg, C_rr = 0.5 > tan: moved %.2e m from 0.5 s to 1.5 s (rolling freely: %.2f m)\n", moved,
              0.5 * free * (1.5 * 1.5 - 0.5 * 0.5));
  EXPECT_LT(std::abs(moved), 5e-3);
}

// A ball launched sliding without spin on a level plane: Coulomb friction mu m g
// slows the centre and spins the ball up until its contact point stops slipping,
// at t = v0 / (mu g (1 + m r^2 / I)); from then on it rolls at
// v0 / (1 + I / (m r^2)) whatever mu is (5/7 v0 for a uniform sphere). (Undamped
// and without rolling resistance, which the closed form leaves out.)
TEST(LayeredPhysics, SlidingBallSpinsUpToRollingAtTheClosedFormSpeed) {
  for (double mu : {0.2, 0.6}) {
    BodyDesc d = ballDesc(32, 1e6);
    d.material.alpha = d.material.beta = 0;
    d.material.rollingResistance = 0;
    d.material.friction = mu;
    d.material.restitution = 0;
    const double v0 = 2.0;
    Sim s(d, planeCollider(Vec3::UnitY(), 0, d.material));
    const double h0 = touchHeight(s.body.model(), s.body.state().orientation);
    s.edit().position.y() = h0 + 1e-4;
    s.edit().velocity.x() = v0;
    const BakedBody& m = s.body.model();
    const double inertia = m.totalInertia(2, 2);
    // the closed forms on the loaded radius r, the mean height of the centre of mass
    // over the run (see rollDownIncline), slip judged on the current height
    auto closedForms = [&](double r, double* vRoll, double* tRoll) {
      *vRoll = v0 / (1 + inertia / (m.totalMass * r * r));
      *tRoll = v0 / (mu * 9.81 * (1 + m.totalMass * r * r / inertia));
    };
    double vRoll = 0, tRoll = 0;
    closedForms(s.body.centerOfMass().y(), &vRoll, &tRoll);
    const double dt = 0.002;
    double rollingFrom = -1, heightSum = 0;
    int steps = 0;
    for (int k = 1; k * dt <= tRoll + 0.5; ++k) {
      s.step(dt, kG);
      ASSERT_TRUE(finite(s.body)) << k;
      const double r = s.body.centerOfMass().y();
      heightSum += r;
      ++steps;
      const Vec3 v = s.body.linearMomentum() / m.totalMass;
      const Vec3 w = s.body.state().orientation * s.body.state().angularVelocity;
      const double slip = v.x() + w.z() * r;  // contact point velocity, rigidified
      if (std::abs(slip) < 0.02 * v0 && rollingFrom < 0) rollingFrom = k * dt;
    }
    const double radius = heightSum / steps;
    closedForms(radius, &vRoll, &tRoll);
    const double v = s.body.linearMomentum().x() / m.totalMass;
    std::printf("sliding ball, mu = %.1f: rolling radius %.4f m; rolls from t = %.3f s (closed form %.3f, %.1f%%), "
                "then at %.4f m/s (closed form %.4f, %.2f%%)\n",
                mu, radius, rollingFrom, tRoll, 100 * (rollingFrom / tRoll - 1), v, vRoll, 100 * (v / vRoll - 1));
    EXPECT_NEAR(v, vRoll, 0.03 * vRoll) << mu;
    EXPECT_NEAR(rollingFrom, tRoll, 0.1 * tRoll) << mu;  // (the mean deceleration while sliding is mu g)
  }
}

// A box resting on a plane, launched at v0: Coulomb friction mu m g stops it after
// v0^2 / (2 mu g), in v0 / (mu g).
TEST(LayeredPhysics, LaunchedBoxSlidesToAStopAsCoulombFrictionSays) {
  const nlohmann::json shape = nlohmann::json::parse(R"({"type": "box", "size": [0.6, 0.4, 0.6]})");
  for (double mu : {0.3, 1.0}) {
    BodyDesc d;
    d.name = "box";
    d.shape = parseShape(JsonReader(shape, "test", "/shape"));
    d.atlasResolution = 32;
    d.material.young = 1e6;
    d.material.friction = mu;
    d.material.restitution = 0;
    d.material.rollingResistance = 0;
    d.position = Vec3(0, 0.2 + 1e-4, 0);
    Sim s(d, planeCollider(Vec3::UnitY(), 0, d.material));
    const double dt = 0.002, v0 = 2.0;
    for (int k = 0; k < 250; ++k) s.step(dt, kG);  // settle (0.5 s)
    ASSERT_LT(s.body.linearMomentum().norm() / s.body.totalMass(), 1e-3) << "the box did not settle";
    const double x0 = s.body.centerOfMass().x();
    s.edit().velocity.x() += v0;
    double stoppedAt = -1;
    for (int k = 1; k * dt < 1.5; ++k) {
      s.step(dt, kG);
      ASSERT_TRUE(finite(s.body)) << k;
      if (stoppedAt < 0 && s.body.linearMomentum().x() / s.body.totalMass() < 1e-3) stoppedAt = k * dt;
    }
    const double slid = s.body.centerOfMass().x() - x0, expect = v0 * v0 / (2 * mu * 9.81);
    std::printf("box launched at %.1f m/s, mu = %.1f: slid %.4f m in %.3f s (closed form %.4f m, %.1f%%; %.3f s)\n", v0,
                mu, slid, stoppedAt, expect, 100 * (slid / expect - 1), v0 / (mu * 9.81));
    EXPECT_NEAR(slid, expect, 0.05 * expect) << mu;
    EXPECT_NEAR(stoppedAt, v0 / (mu * 9.81), 0.05 * v0 / (mu * 9.81) + dt) << mu;
  }
}

TEST(LayeredPhysics, BallSlidesDownAFrictionlessIncline) {
  const double theta = 20 * kPi / 180;
  const double a = rollDownIncline(theta, 0.2, 1.0, {.friction = 0}).a;
  const double expect = 9.81 * std::sin(theta);
  std::printf("incline 20 deg, mu = 0: a = %.4f m/s^2, g sin = %.4f (%.2f%%)\n", a, expect,
              100 * (a / expect - 1));
  EXPECT_NEAR(a, expect, 0.02 * expect);
}

// ---- 8. heterogeneous body --------------------------------------------------------------------

namespace {

// sinking of the heterogeneous ball (one half 20x stiffer) resting on its soft
// side [0] and on its stiff side [1], dynamic and static
struct HeterogeneousRest {
  double dyn[2], ref[2];
};

HeterogeneousRest heterogeneousRest(bool contactSupport) {
  BodyDesc d = ballDesc(32, 1e5);
  d.regions.push_back(test::stiffHalf(d.material, 20));
  // body +x up: the soft half (x < 0) is below; body +x down: the stiff half is below
  HeterogeneousRest h;
  const Quat orient[2] = {Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ())),
                          Quat(Eigen::AngleAxisd(-kPi / 2, Vec3::UnitZ()))};
  for (int k = 0; k < 2; ++k) {
    BodyDesc dk = d;
    dk.orientation = orient[k];
    dk.position = Vec3(0, kR + 0.02, 0);
    Sim s(dk, planeCollider(Vec3::UnitY(), 0, dk.material));
    s.world.settings().response.support = contactSupport;
    const LayeredBody& b = s.body;
    for (int n = 0; n < 600; ++n) {  // 3 s
      s.step(0.005, kG);
      EXPECT_TRUE(finite(b));
    }
    const RestOnPlane r = staticRestOnPlane(b.model(), kG, 0, b.state().orientation);
    h.dyn[k] = r.undeformedHeight - b.state().position.y();
    h.ref[k] = r.sinking;
    std::printf("heterogeneous%s, %s side down: sinking dynamic %.5f m, static %.5f m (%.1f%%), node speed "
                "%.1e m/s, tilt %.2e rad\n",
                contactSupport ? " (contact support)" : "", k == 0 ? "soft" : "stiff", h.dyn[k], h.ref[k],
                100 * (h.dyn[k] / h.ref[k] - 1), maxNodeSpeed(b), b.state().orientation.angularDistance(orient[k]));
  }
  std::printf("heterogeneous%s: indentation ratio soft/stiff dynamic %.3f, static %.3f\n",
              contactSupport ? " (contact support)" : "", h.dyn[0] / h.dyn[1], h.ref[0] / h.ref[1]);
  return h;
}

}  // namespace

TEST(LayeredPhysics, HeterogeneousBallIndentsMoreOnItsSoftSideAsTheStaticModelPredicts) {
  const HeterogeneousRest h = heterogeneousRest(false);
  const double ratioDyn = h.dyn[0] / h.dyn[1], ratioRef = h.ref[0] / h.ref[1];
  EXPECT_GT(h.dyn[0], h.dyn[1]);
  EXPECT_NEAR(ratioDyn, ratioRef, 0.3 * ratioRef);
}

// With contact support each side sinks as the static solve says (measured
// +2.0% soft, +0.4% stiff, ratio 12.90 against 12.70; without it the sides sink
// 22% and 35% short).
TEST(LayeredPhysics, HeterogeneousBallWithContactSupportSinksAsTheStaticSolveOnEachSide) {
  const HeterogeneousRest h = heterogeneousRest(true);
  for (int k = 0; k < 2; ++k) EXPECT_NEAR(h.dyn[k], h.ref[k], 0.05 * h.ref[k]) << k;
  EXPECT_NEAR(h.dyn[0] / h.dyn[1], h.ref[0] / h.ref[1], 0.05 * h.ref[0] / h.ref[1]);
}

// ---- 9. parameter box (World) -------------------------------------------------------------------

namespace {

// Total energy (kinetic + gravitational + elastic) [J] and finiteness of a World
// body, whether the body carries a LayeredBody (`Body::layered`) or only the
// stage-1 rigid state (World::energy). Templates so that only the branch that
// exists is compiled.
template <class W, class B>
double worldBodyEnergy(W& world, B& body) {
  if constexpr (requires { body.layered.kineticEnergy(); }) {
    auto& l = body.layered;
    return l.kineticEnergy() + l.elasticEnergy() + l.gravitationalEnergy(world.settings().gravity);
  } else {
    return world.energy(body).total();
  }
}

template <class B>
bool worldBodyFinite(const B& body) {
  if constexpr (requires { body.layered.state(); }) return finite(body.layered);
  else return body.state.position.allFinite() && body.state.velocity.allFinite();
}

}  // namespace

// The thinnest layer of the skin over its core, as a fraction of the rest layer:
// min_i (h_i + d_i . q_i) / h_i (< 0: a node inside its core).
double thinnestLayer(const LayeredBody& b) {
  const BakedBody& m = b.model();
  const std::vector<Vec3>& q = b.state().q;
  double thinnest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m.nodeCount(); ++i) {
    double h = 0;
    const Vec3 d = restDirection(m, i, &h);
    thinnest = std::min(thinnest, (h + d.dot(q[size_t(i)])) / h);
  }
  return thinnest;
}

// Issue 26's parameter box: every material, time step and core the panels and scenes
// allow, a ball dropped with a sideways velocity onto the ground. The skin's limits on
// its core (core_contact.h) keep the runs from the blow-up check's reset, the core above
// the ground and the skin outside the core, without energy gained.
TEST(LayeredPhysics, ParameterBoxNeverResetsGainsEnergyOrSinks) {
  std::mt19937 rng(20060905);
  std::uniform_real_distribution<double> u01(0, 1);
  constexpr int kRuns = 200;
  int resets = 0, gained = 0, nan = 0, unsettled = 0;
  double worstGain = -1e300, lowestCore = 1e300, thinnest = 1e300;
  std::vector<double> penetration, settling;
  std::string deepestRun;  // the run with the deepest skin penetration
  double stiffOrThin = 0;  // ... the deepest of the runs with E >= 1e6 Pa or a skin under 15% of the radius
  int stiffOrThinRuns = 0;
  std::string stiffOrThinRun;
  for (int k = 0; k < kRuns; ++k) {
    const double young = std::pow(10.0, 2 + 6 * u01(rng));
    const double poisson = 0.49 * u01(rng);
    const double dt = 1e-4 + (1.0 / 30 - 1e-4) * u01(rng);
    const double density = 100 + 4900 * u01(rng);
    const double coreScale = 0.3 + 0.65 * u01(rng);
    Scene sc;
    sc.simulation.dt = dt;
    BodyDesc b = ballDesc(32, young, density);
    b.material.poisson = poisson;
    b.coreScale = coreScale;
    b.position = Vec3(0, kR + 0.005, 0);
    b.velocity = Vec3(0.3, -1.0, 0);  // reaches the plane within the capped steps at any dt
    sc.bodies.push_back(b);
    ColliderDesc ground;
    ground.name = "ground";
    sc.colliders.push_back(ground);
    World w(sc);
    Body& body = w.bodies()[0];
    const double e0 = worldBodyEnergy(w, body);
    const double mass = body.model->totalMass;
    // tolerance: 1% of the mechanical energy scale (kinetic + m g r)
    const double tol = 0.01 * (0.5 * mass * b.velocity.squaredNorm() + mass * 9.81 * kR);
    const int steps = std::clamp(int(std::ceil(1.5 / dt)), 60, 240);
    const std::string run = "E " + std::to_string(young) + " nu " + std::to_string(poisson) + " dt " +
                            std::to_string(dt) + " rho " + std::to_string(density) + " core " +
                            std::to_string(coreScale);
    bool reset = false, grew = false, bad = false;
    double gain = -1e300, core = 1e300, layer = 1e300, settled = -1;
    for (int n = 0; n < steps; ++n) {
      w.step();
      for (const std::string& why : w.takeWarnings()) {
        if (!reset) std::printf("  %s\n    (run %d: %s)\n", why.c_str(), k, run.c_str());
        reset = true;
      }
      if (body.stats.resets > 0) reset = true;
      const double e = worldBodyEnergy(w, body);
      if (!std::isfinite(e) || !worldBodyFinite(body)) bad = true;
      gain = std::max(gain, e - e0);
      if (e > e0 + tol) grew = true;
      core = std::min(core, body.layered.coreLowest(Vec3::UnitY()));
      layer = std::min(layer, thinnestLayer(body.layered));
      // settled: the centre of mass moving up or down slower than 2 cm/s from here on
      if (std::abs(body.layered.linearMomentum().y()) / mass > 0.02) settled = -1;
      else if (settled < 0) settled = (n + 1) * dt;
    }
    resets += reset;
    nan += bad;
    gained += grew && !reset;
    worstGain = std::max(worstGain, gain / tol);
    lowestCore = std::min(lowestCore, core);
    thinnest = std::min(thinnest, layer);
    const double deepest = std::max(0.0, -body.stats.minHeight);
    if (penetration.empty() || deepest > *std::max_element(penetration.begin(), penetration.end()))
      deepestRun = "run " + std::to_string(k) + ": " + run;
    penetration.push_back(deepest);
    if (young >= 1e6 || coreScale > 0.85) {
      if (deepest > stiffOrThin) stiffOrThinRun = "run " + std::to_string(k) + ": " + run;
      stiffOrThin = std::max(stiffOrThin, deepest);
      ++stiffOrThinRuns;
    }
    if (settled < 0) ++unsettled;
    else settling.push_back(settled);
    EXPECT_FALSE(bad) << "NaN: " << run;
    EXPECT_FALSE(grew) << "energy grew by " << gain << " J (tolerance " << tol << " J): " << run;
    EXPECT_GT(core, -1e-3) << "the core's lowest point went " << -core << " m below the ground: " << run;
    // (a node held between its core and the ground keeps less than min_layer where it
    // slid: 0.057 of its layer at the least; none inside its core)
    EXPECT_GT(layer, 0.05) << "a node was crushed to " << layer << " of its layer: " << run;
  }
  auto quantiles = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto at = [&](double p) { return v.empty() ? 0.0 : v[size_t(p * double(v.size() - 1))]; };
    char text[160];
    std::snprintf(text, sizeof text, "median %.3g, 90%% %.3g, max %.3g", at(0.5), at(0.9), at(1.0));
    return std::string(text);
  };
  std::printf("parameter box: %d runs, %d with a reset, %d gained energy, %d NaN; largest gain %.3f of the "
              "tolerance; the core's lowest point %.2f mm; the thinnest layer %.3f of the rest layer\n"
              "  largest skin penetration [m]: %s (deepest: %s); of the %d stiff (E >= 1 MPa) or thin (core > "
              "0.85) runs, max %.2g (%s)\n  settling time [s] (%zu settled, %d still moving at the end): %s\n",
              kRuns, resets, gained, nan, worstGain, 1e3 * lowestCore, thinnest, quantiles(penetration).c_str(),
              deepestRun.c_str(), stiffOrThinRuns, stiffOrThin, stiffOrThinRun.c_str(), settling.size(), unsettled, quantiles(settling).c_str());
  // Issue 26 asks for none (docs/decisions/0027: eq. 14's friction through the whole
  // response, the rotational coupling columns solved exactly past kCachedCouplingReach).
  EXPECT_EQ(resets, 0);
  // The skin's deepest end-of-step penetration in the ground over the box: none (1e-16
  // m; 12.8 mm while the limits' correction could move a node into the ground, and
  // 5.8 mm in the stiff or thin runs: LayeredBody::correctLimits)
  EXPECT_LT(penetration.empty() ? 0.0 : *std::max_element(penetration.begin(), penetration.end()), 1e-3)
      << deepestRun;
}

}  // namespace d2t
