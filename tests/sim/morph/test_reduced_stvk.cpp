// Reduced St. Venant-Kirchhoff (appendix D; sim/morph/reduced_stvk.h): the cubic polynomial
// against the full per-tet StVK force projected on the basis, its linear part against the
// bake's linear stiffness, its tangent against finite differences of its force, its force
// against finite differences of its energy.
#include <gtest/gtest.h>

#include <random>

#include "sim/model/baked_body.h"
#include "sim/morph/modal_basis.h"
#include "sim/morph/morph_bodies.h"
#include "sim/morph/morph_targets.h"
#include "sim/morph/reduced_stvk.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

// kTargets' ball with a basis (r* = 10 and the load modes: r = 18).
struct Fixture {
  Fixture() : world(test::heldMorphBall(targets())), body(*world.bodies()[0].model), basis(*body.morph->basis) {}
  static std::string targets() {
    std::string s = test::kTargets;
    s.insert(s.rfind('}'), R"(, "reduction": { "modes": 10 })");
    return s;
  }
  World world;
  const BakedBody& body;
  const ModalBasis& basis;
};

// x with |U x| up to `reach` of the skin (large strains: the cubic terms matter).
Eigen::VectorXd randomCoordinates(const ModalBasis& b, double reach, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  Eigen::VectorXd x(b.r);
  for (int l = 0; l < b.r; ++l) x[l] = d(rng);
  const Eigen::VectorXd u = b.U * x;
  double most = 0;
  for (Eigen::Index i = 0; i < u.size() / 3; ++i) most = std::max(most, u.segment<3>(3 * i).norm());
  return x * (reach / most);
}

std::vector<Vec3> nodal(const ModalBasis& b, const Eigen::VectorXd& x) {
  std::vector<Vec3> u;
  b.expand(x, u);
  return u;
}

Eigen::VectorXd projectForce(const ModalBasis& b, const std::vector<Vec3>& f) {
  Eigen::VectorXd v(3 * Eigen::Index(f.size()));
  for (size_t i = 0; i < f.size(); ++i) v.segment<3>(3 * Eigen::Index(i)) = f[i];
  return b.U.transpose() * v;
}

// T12: R(x) = -U^T f_StVK(U x) and W(x) = W_StVK(U x) on each target's own rest shape and
// material (the body, the 4x stiffer bulge, the squash), at displacements of 2 and 5 cm (a
// 0.2 m layer: strains of 10-25%); P = U^T K_i U, the bake's linear stiffness.
TEST(ReducedStvk, EqualsTheFullForceProjectedOnTheBasis) {
  Fixture f;
  const MorphTargetSet& set = *f.body.morph;
  for (int t = 0; t < set.count(); ++t) {
    const MorphTarget& target = set.targets[size_t(t)];
    const ReducedStvk stvk = buildReducedStvk(f.body, target, f.basis.U);
    std::vector<Vec3> rest = f.body.restSkin;
    for (size_t i = 0; i < rest.size(); ++i) rest[i] += target.d[i];
    const std::vector<double>& young = target.tetYoung.empty() ? f.body.tetYoung : target.tetYoung;
    const std::vector<double>& poisson = target.tetPoisson.empty() ? f.body.tetPoisson : target.tetPoisson;
    const double linear = (stvk.P - f.basis.stiffness[size_t(t)]).norm() / stvk.P.norm();
    EXPECT_LT(linear, 1e-12) << target.name;
    for (double reach : {0.02, 0.05}) {
      const Eigen::VectorXd x = randomCoordinates(f.basis, reach, 7u + unsigned(t));
      const std::vector<Vec3> u = nodal(f.basis, x);
      const Eigen::VectorXd full = -projectForce(f.basis, stvkForce(f.body, rest, young, poisson, u));
      const Eigen::VectorXd reduced = stvk.force(x);
      const Eigen::VectorXd lin = stvk.P * x;
      const double err = (reduced - full).norm() / full.norm();
      const double nonlinear = (full - lin).norm() / full.norm();
      const double we = stvkEnergy(f.body, rest, young, poisson, u);
      std::printf("%-6s |u| <= %.0f cm: reduced vs projected full StVK force %.1e (the non-linear part %.1f%%), "
                  "energy %.1e; P = U^T K U to %.1e; built in %.2f s\n",
                  target.name.c_str(), 100 * reach, err, 100 * nonlinear, std::abs(stvk.energy(x) - we) / we, linear,
                  stvk.seconds);
      EXPECT_LT(err, 1e-10);
      EXPECT_GT(nonlinear, 0.01);  // (the test reaches the non-linear range)
      EXPECT_NEAR(stvk.energy(x), we, 1e-10 * we);
    }
  }
}

// T10: the tangent is the force's derivative (central differences, relative 1e-6) and
// symmetric (W's Hessian); the force is the energy's derivative.
TEST(ReducedStvk, TangentAndForceAreTheDerivatives) {
  Fixture f;
  const ReducedStvk stvk = buildReducedStvk(f.body, f.body.morph->targets[1], f.basis.U);
  const Eigen::VectorXd x = randomCoordinates(f.basis, 0.04, 3);
  const Eigen::MatrixXd T = stvk.tangent(x);
  const double h = 1e-6 * x.norm();
  Eigen::MatrixXd fd(stvk.r, stvk.r);
  Eigen::VectorXd fe(stvk.r);
  for (int m = 0; m < stvk.r; ++m) {
    Eigen::VectorXd a = x, b = x;
    a[m] += h;
    b[m] -= h;
    fd.col(m) = (stvk.force(a) - stvk.force(b)) / (2 * h);
    fe[m] = (stvk.energy(a) - stvk.energy(b)) / (2 * h);
  }
  const double tangent = (T - fd).norm() / T.norm(), symmetry = (T - T.transpose()).norm() / T.norm();
  const double force = (stvk.force(x) - fe).norm() / fe.norm();
  std::printf("tangent vs differences %.1e, asymmetry %.1e; force vs energy differences %.1e\n", tangent, symmetry, force);
  EXPECT_LT(tangent, 1e-6);
  EXPECT_LT(symmetry, 1e-12);
  EXPECT_LT(force, 1e-6);
}

// T11, (D.1'): a target's polynomial shifted to the body's coordinates z is its own at
// x = z - d~ (energy, force and tangent, to rounding), and the blend of shifted polynomials
// (5.8) is the blend of their values, so that one cubic a step serves every target.
TEST(ReducedStvk, ShiftedAndBlendedPolynomialsAreTheTargetsOwn) {
  Fixture f;
  const MorphTargetSet& set = *f.body.morph;
  std::vector<ReducedStvk> own, shifted;
  for (int t = 0; t < set.count(); ++t) {
    own.push_back(buildReducedStvk(f.body, set.targets[size_t(t)], f.basis.U));
    shifted.push_back(own.back().shifted(f.basis.shapes.col(t)));
  }
  const std::vector<double> b = {0.2, 0.5, 0.3};
  ReducedStvk blend;
  for (int t = 0; t < set.count(); ++t) blend.add(b[size_t(t)], shifted[size_t(t)]);
  double worst = 0;
  for (unsigned seed : {11u, 12u, 13u}) {
    const Eigen::VectorXd z = randomCoordinates(f.basis, 0.05, seed);
    Eigen::VectorXd sumF = Eigen::VectorXd::Zero(f.basis.r);
    Eigen::MatrixXd sumT = Eigen::MatrixXd::Zero(f.basis.r, f.basis.r);
    double sumW = 0;
    for (int t = 0; t < set.count(); ++t) {
      const Eigen::VectorXd x = z - f.basis.shapes.col(t);
      Eigen::VectorXd fo, fs;
      Eigen::MatrixXd to, ts;
      double wo = 0, ws = 0;
      own[size_t(t)].evaluate(x, &fo, &to, &wo);
      shifted[size_t(t)].evaluate(z, &fs, &ts, &ws);
      worst = std::max({worst, (fs - fo).norm() / fo.norm(), (ts - to).norm() / to.norm(), std::abs(ws - wo) / wo});
      sumF += b[size_t(t)] * fo;
      sumT += b[size_t(t)] * to;
      sumW += b[size_t(t)] * wo;
    }
    Eigen::VectorXd fb;
    Eigen::MatrixXd tb;
    double wb = 0;
    blend.evaluate(z, &fb, &tb, &wb);
    worst = std::max({worst, (fb - sumF).norm() / sumF.norm(), (tb - sumT).norm() / sumT.norm(),
                      std::abs(wb - sumW) / sumW});
  }
  std::printf("shifted and blended polynomials vs the targets' own at z - d~: %.1e (relative)\n", worst);
  EXPECT_GT(f.basis.shapes.col(1).norm(), 0.0);  // (the shift is not zero)
  EXPECT_LT(worst, 1e-11);
}

}  // namespace
}  // namespace d2t
