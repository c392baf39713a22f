// Rayleigh damping of the skin, D_e = alpha M_e + beta K_e, against the closed form of
// a damped mode and against backward Euler's own discrete decay of it.
//
// With the core held, the step (free_update.cpp: rhs = -K (q + (beta + dt) qdot) - alpha
// M qdot, Mt_e = (1 + dt alpha) M + (dt beta + dt^2) K, qdot' = qdot + dt Mt_e^-1 rhs,
// q' = q + dt qdot') is backward Euler of M q'' + D q' + K q = 0:
//   M (v' - v) = -dt (K q' + D v'),  q' = q + dt v'.
// On a mode phi (K phi = w^2 M phi, phi^T M phi = 1) D acts as c = alpha + beta w^2, so
// the modal coordinate p = phi^T M q is one damped oscillator p'' + c p' + w^2 p = 0:
//   continuous: decay rate c / 2 = zeta w, zeta = alpha / (2 w) + beta w / 2;
//   backward Euler (h = dt): z^2 (1 + h c + h^2 w^2) - z (2 + h c) + 1 = 0, so the
//   sampled p_n obeys p_{n+1} = A p_n - B p_{n-1} with
//     A = (2 + h c) / (1 + h c + h^2 w^2),  B = |z|^2 = 1 / (1 + h c + h^2 w^2),
//   a decay rate ln(1 + h c + h^2 w^2) / (2 h) per second.
// The test fits (A, B) to the simulated p_n by least squares and compares them with
// those, and compares the decay the damping adds over the undamped run's (backward
// Euler's own, h w^2 / 2) with zeta w.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/body/layered_body.h"
#include "sim/model/static_reference.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

struct ModeRun {
  double A = NAN, B = NAN;  ///< the fitted recurrence p_{n+1} = A p_n - B p_{n-1}
  double residual = NAN;    ///< rms of the fit's residual over rms of p
  double omega = NAN;       ///< the mode's angular frequency [rad/s]
  double dt = NAN;
};

// The lowest skin mode of a 32^2 ball (E = 1e5, core held), 1 mm at its largest,
// released at rest and stepped for `periods` periods at 200 steps a period.
ModeRun runMode(double alpha, double beta, double periods = 4) {
  BodyDesc d = test::ball(0.5, 32, 1e5);
  d.material.alpha = alpha;
  d.material.beta = beta;
  test::OneBody s(d);
  s.body.settings().fixedCore = true;
  const BakedBody& m = s.body.model();
  const SkinMode mode = skinModes(m, 1)[0];
  double shapeMax = 0;
  for (const Vec3& v : mode.shape) shapeMax = std::max(shapeMax, v.norm());
  for (int i = 0; i < m.nodeCount(); ++i) s.edit().q[i] = (1e-3 / shapeMax) * mode.shape[i];
  auto modal = [&] {
    double p = 0;
    for (int i = 0; i < m.nodeCount(); ++i) p += m.nodeMass[i] * mode.shape[i].dot(s.body.state().q[i]);
    return p;
  };
  ModeRun r;
  r.omega = mode.omega;
  r.dt = 2 * kPi / mode.omega / 200;
  std::vector<double> p{modal()};
  for (int n = 1; n <= int(periods * 200); ++n) {
    s.step(r.dt, Vec3::Zero());
    p.push_back(modal());
  }
  // least squares p_{n+1} = A p_n - B p_{n-1}
  Eigen::Matrix2d ata = Eigen::Matrix2d::Zero();
  Eigen::Vector2d atb = Eigen::Vector2d::Zero();
  double pp = 0;
  for (size_t n = 1; n + 1 < p.size(); ++n) {
    const Eigen::Vector2d row(p[n], -p[n - 1]);
    ata += row * row.transpose();
    atb += row * p[n + 1];
    pp += p[n + 1] * p[n + 1];
  }
  const Eigen::Vector2d x = ata.ldlt().solve(atb);
  r.A = x(0);
  r.B = x(1);
  double res = 0;
  for (size_t n = 1; n + 1 < p.size(); ++n) res += std::pow(p[n + 1] - r.A * p[n] + r.B * p[n - 1], 2);
  r.residual = std::sqrt(res / pp);
  return r;
}

}  // namespace

// Measured (32^2, w = 33.79 rad/s, h w = 2 pi / 200, 800 steps each, 3.3 s): A and B
// within 4e-12 of backward Euler's (3e-12 undamped), the fit's residual 1.2e-13 of p;
// the decay the damping adds within -0.34% (alpha dominated, zeta 0.077, 96% from
// alpha) and -0.32% (beta dominated, zeta 0.071, 96% from beta) of zeta w (backward
// Euler's O(h c) and O(h^2 w^2)). Mutations in the step (free_update.cpp, integrateFree):
// alpha * 1.1 gives |dB| 4.6e-4 and the added decay +9.2% (alpha dominated), |dB| 1.8e-5
// (beta dominated); beta * 1.1 gives |dB| 4.2e-4 and +9.3% (beta dominated), 2.1e-5.
TEST(SkinDamping, RayleighDampedModeDecaysAsBackwardEulerAndTheClosedForm) {
  const ModeRun free = runMode(0, 0);
  const double h = free.dt, w = free.omega, k = w * w;
  const double undamped = -std::log(free.B) / (2 * h);
  std::printf("undamped: w %.4f rad/s, fitted B %.12f, backward Euler's %.12f; decay %.4f 1/s "
              "(h w^2 / 2 = %.4f), fit residual %.1e\n",
              w, free.B, 1 / (1 + h * h * k), undamped, h * k / 2, free.residual);
  EXPECT_NEAR(free.B, 1 / (1 + h * h * k), 1e-11);
  struct Case {
    double alpha, beta;
  };
  for (const Case& cs : {Case{5.0, 2e-4}, Case{0.2, 4e-3}}) {
    const ModeRun r = runMode(cs.alpha, cs.beta);
    const double c = cs.alpha + cs.beta * k;
    const double zeta = cs.alpha / (2 * w) + cs.beta * w / 2;
    const double B = 1 / (1 + h * c + h * h * k), A = (2 + h * c) / (1 + h * c + h * h * k);
    const double added = (std::log(free.B) - std::log(r.B)) / (2 * h);
    std::printf("alpha %.2f, beta %.0e (zeta %.4f: %.0f%% from alpha): fitted A %.12f B %.12f, backward Euler's "
                "A %.12f B %.12f (|dA| %.1e, |dB| %.1e, residual %.1e);\n  decay %.4f 1/s, backward Euler's "
                "%.4f; added by the damping %.4f 1/s, zeta w = %.4f (%.2f%%)\n",
                cs.alpha, cs.beta, zeta, 100 * cs.alpha / (2 * w) / zeta, r.A, r.B, A, B, std::abs(r.A - A),
                std::abs(r.B - B), r.residual, -std::log(r.B) / (2 * h), std::log(1 + h * c + h * h * k) / (2 * h),
                added, zeta * w, 100 * (added / (zeta * w) - 1));
    EXPECT_NEAR(r.B, B, 1e-11) << cs.alpha << " " << cs.beta;
    EXPECT_NEAR(r.A, A, 1e-11) << cs.alpha << " " << cs.beta;
    EXPECT_LT(r.residual, 3e-13);
    EXPECT_NEAR(added, zeta * w, 0.01 * zeta * w) << cs.alpha << " " << cs.beta;
  }
}

}  // namespace d2t
