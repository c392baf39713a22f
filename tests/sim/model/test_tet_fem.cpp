// Linear tetrahedron: null space, analytic stress, nodal forces of a uniform stress.
#include <gtest/gtest.h>

#include <functional>

#include "sim/model/tet_fem.h"

namespace d2t {
namespace {

const std::array<Vec3, 4> kRest = {Vec3(0.1, -0.05, 0.02), Vec3(1.2, 0.1, -0.1), Vec3(0.2, 0.9, 0.15),
                                   Vec3(0.05, 0.2, 1.1)};
constexpr double kYoung = 5e4, kPoisson = 0.3;

Vec12 displacement(const std::function<Vec3(const Vec3&)>& u) {
  Vec12 v;
  for (int a = 0; a < 4; ++a) v.segment<3>(3 * a) = u(kRest[a]);
  return v;
}

TEST(TetFem, StiffnessIsSymmetric) {
  const Mat12 k = tetStiffness(kRest, kYoung, kPoisson);
  EXPECT_LE((k - k.transpose()).cwiseAbs().maxCoeff(), 1e-12 * k.cwiseAbs().maxCoeff());
}

TEST(TetFem, RigidMotionsGiveNoForce) {
  const Mat12 k = tetStiffness(kRest, kYoung, kPoisson);
  // rigid translation
  const Vec12 t = displacement([](const Vec3&) { return Vec3(0.3, -0.2, 0.7); });
  EXPECT_LE((k * t).norm(), 1e-10 * k.norm() * t.norm());
  // small rigid rotation, linearised: u = w x X
  const Vec3 w(1e-3, -2e-3, 0.5e-3);
  const Vec12 r = displacement([&](const Vec3& x) { return Vec3(w.cross(x)); });
  EXPECT_LE((k * r).norm(), 1e-10 * k.norm() * r.norm());
}

TEST(TetFem, UniformStrainGivesAnalyticStress) {
  Mat3 eps;
  eps << 1e-3, 2e-4, -3e-4, 2e-4, -5e-4, 1e-4, -3e-4, 1e-4, 7e-4;
  const Vec3 shift(0.01, 0.02, -0.03);
  const Vec12 u = displacement([&](const Vec3& x) { return Vec3(eps * x + shift); });
  const Voigt strain = tetStrain(kRest, u);
  EXPECT_LE((strain - strainToVoigt(eps)).norm(), 1e-12);
  // sigma = lambda tr(eps) I + 2 mu eps
  const Lame l = lameFromYoung(kYoung, kPoisson);
  const Mat3 sigma = l.lambda * eps.trace() * Mat3::Identity() + 2 * l.mu * eps;
  const Voigt stress = tetStress(kRest, u, kYoung, kPoisson);
  Voigt expected;
  expected << sigma(0, 0), sigma(1, 1), sigma(2, 2), sigma(1, 2), sigma(2, 0), sigma(0, 1);
  EXPECT_LE((stress - expected).norm(), 1e-10 * expected.norm());
  // nodal forces of a uniform stress: (K u)_a = V sigma grad N_a
  const TetGeometry geom = tetGeometry(kRest);
  const Vec12 ku = tetStiffness(kRest, kYoung, kPoisson) * u;
  for (int a = 0; a < 4; ++a) {
    const Vec3 fa = geom.volume * sigma * geom.gradient[a];
    EXPECT_LE((ku.segment<3>(3 * a) - fa).norm(), 1e-10 * geom.volume * sigma.norm() * geom.gradient[a].norm());
  }
}

TEST(TetFem, LameParameters) {
  const Lame l = lameFromYoung(1e6, 0.25);
  EXPECT_NEAR(l.mu, 4e5, 1e-6);
  EXPECT_NEAR(l.lambda, 4e5, 1e-6);  // nu = 1/4 gives lambda = mu
}

}  // namespace
}  // namespace d2t
