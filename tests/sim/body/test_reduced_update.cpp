// The reduced skin's step in its coordinates z (sim/body/reduced_update.cpp; ch. 5.4-5.5,
// design 3.2): against the Galerkin projection of the nodal step (the node loops it
// replaces with the basis' inertia invariants, T19), and reduced St. Venant-Kirchhoff
// stepped: its equilibria at the examples, its static sag against Newton's solution of
// R~(z) = f~ (linear for small loads, stiffer than linear under large ones).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/morph/modal_basis.h"
#include "sim/morph/morph_bodies.h"
#include "sim/morph/morph_elasticity.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

// kTargets reduced (r* = 10, the load modes), linear or StVK.
std::string reduced(bool stvk) {
  std::string s = test::kTargets;
  s.insert(s.rfind('}'), std::string(R"(, "reduction": { "modes": 10, "elasticity": ")") +
                             (stvk ? "stvk" : "linear") + "\" }");
  return s;
}

Eigen::VectorXd flat(const std::vector<Vec3>& v) {
  Eigen::VectorXd x(3 * Eigen::Index(v.size()));
  for (size_t i = 0; i < v.size(); ++i) x.segment<3>(3 * Eigen::Index(i)) = v[i];
  return x;
}

double massNorm(const BakedBody& m, const Eigen::VectorXd& x) {
  double s = 0;
  for (int i = 0; i < m.nodeCount(); ++i) s += m.nodeMass[size_t(i)] * x.segment<3>(3 * i).squaredNorm();
  return std::sqrt(s);
}

// T19: a free ball thrown spinning through gravity while its pose ramps over the targets: the
// step in z (the floating frame's sums from the invariants, the force from U^T K_i U, no node
// loop) and the Galerkin projection of the nodal step (integrateFree through the reduced
// operator) are the same step: core and skin agree to rounding over 300 steps.
TEST(ReducedUpdate, InZIsTheGalerkinProjectionOfTheNodalStep) {
  Scene s;
  s.simulation.gravity = Vec3(0, -9.81, 0);
  BodyDesc d = test::morphBall(reduced(false));
  d.velocity = Vec3(0.4, 2.0, -0.3);
  d.angularVelocity = Vec3(1.5, -4.0, 2.5);
  s.bodies.push_back(d);
  World inZ(s), nodal(s);
  nodal.bodies()[0].layered.settings().reducedNodal = true;
  const double dt = 0.004;
  double worstQ = 0, worstCore = 0, scaleQ = 0;
  for (int k = 0; k < 300; ++k) {
    inZ.step(dt);
    nodal.step(dt);
    const LayeredState &a = inZ.bodies()[0].layered.state(), &b = nodal.bodies()[0].layered.state();
    worstQ = std::max(worstQ, (flat(a.q) - flat(b.q)).cwiseAbs().maxCoeff());
    scaleQ = std::max(scaleQ, flat(b.q).cwiseAbs().maxCoeff());
    worstCore = std::max({worstCore, (a.position - b.position).norm(), (a.velocity - b.velocity).norm(),
                          (a.angularVelocity - b.angularVelocity).norm(),
                          (a.orientation.coeffs() - b.orientation.coeffs()).norm()});
  }
  std::printf("300 steps, spinning and ramping the pose: |q_z - q_nodal| %.2e m (of %.2e), core %.2e\n", worstQ,
              scaleQ, worstCore);
  EXPECT_GT(scaleQ, 1e-3);  // (the skin moved: spin, pose and gravity load it)
  EXPECT_LT(worstQ, 1e-10 * std::max(1.0, scaleQ / 1e-3));
  EXPECT_LT(worstCore, 1e-9);
  EXPECT_EQ(inZ.bodies()[0].stats.resets, 0);
}

// Reduced StVK (appendix D) at each example pose, the core held, no gravity: the step settles
// at the example's shape (x = z - d~_j = 0 is R_j's rest, and the blend is e_j there).
TEST(ReducedUpdate, ReducedStvkSettlesAtEachExample) {
  Scene s = test::heldMorphBall(reduced(true));
  s.bodies[0].material.alpha = 4;
  World w(s);
  const BakedBody& m = *w.bodies()[0].model;
  ASSERT_FALSE(m.morph->basis->stvk.empty());
  for (int j = 1; j <= 2; ++j) {
    w.setPoseControl(0, PoseControl{true, {double(j)}});
    for (int k = 0; k < 600; ++k) w.step(0.005);
    const Eigen::VectorXd dj = flat(m.morph->targets[size_t(j)].d);
    const double rel = massNorm(m, flat(w.bodies()[0].layered.state().q) - dj) / massNorm(m, dj);
    std::printf("reduced StVK, 3 s at target %d's pose: %.2e (M-norm, relative) from the example\n", j, rel);
    EXPECT_LT(rel, 1e-6);
  }
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// Reduced StVK's sag under a body load (the core held, the body's own target): the step comes
// to rest at Newton's solution z* of R~(z*) = U^T M g; under a small load that is the linear
// model's K~^-1 U^T M g (StVK is linear FEM to first order), under a large one StVK's
// geometric stiffening makes it differ.
TEST(ReducedUpdate, ReducedStvkRestsAtItsStaticSolution) {
  for (const double gy : {-0.5, -50.0, -150.0}) {
    Scene s = test::heldMorphBall(reduced(true));
    s.simulation.gravity = Vec3(0, gy, 0);
    s.bodies[0].material.alpha = 6;
    World w(s);
    w.setPoseControl(0, PoseControl{true, {0}});  // (the body's own target)
    const BakedBody& m = *w.bodies()[0].model;
    const ModalBasis& b = *m.morph->basis;
    for (int k = 0; k < 800; ++k) w.step(0.005);
    LayeredBody& body = w.bodies()[0].layered;
    const Eigen::VectorXd z = b.project(body.state().q, m.nodeMass);
    // Newton on R~(z) = f, f = U^T M (R^T g per node) (the core held at the identity)
    const Eigen::VectorXd f = b.inertia.ubar.transpose() * s.simulation.gravity;
    const Eigen::VectorXd zLinear = b.stiffness[0].ldlt().solve(f);
    Eigen::VectorXd zs = zLinear, force;
    Eigen::MatrixXd tangent;
    for (int it = 0; it < 30; ++it) {
      body.elastic().reducedForce(b, zs, &force, &tangent, nullptr);
      zs -= tangent.ldlt().solve(force - f);
    }
    body.elastic().reducedForce(b, zs, &force, nullptr, nullptr);
    const double off = (z - zs).norm() / zs.norm(), nonlinear = (zs - zLinear).norm() / zLinear.norm();
    std::printf("g = %.2f m/s^2: max |q| %.2e m, the step %.2e from Newton's z* (residual %.1e), "
                "z* %.2e from linear\n",
                gy, body.maxDisplacement(), off, (force - f).norm() / f.norm(), nonlinear);
    EXPECT_LT((force - f).norm(), 1e-9 * f.norm());
    EXPECT_LT(off, 1e-6);
    if (std::abs(gy) < 1) EXPECT_LT(nonlinear, 1e-3);
    else EXPECT_GT(nonlinear, 0.01);
    EXPECT_EQ(w.bodies()[0].stats.resets, 0);
  }
}

}  // namespace
}  // namespace d2t
