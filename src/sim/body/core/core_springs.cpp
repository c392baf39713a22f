// The core springs of a layered body (scene "springs"): eq. (3.8) with the springs
// integrated by linearised backward Euler, for both backends.
#include "sim/body/core/core_springs.h"

#include <Eigen/Dense>
#include <algorithm>

#include "sim/body/node_loops.h"

namespace d2t {

using layered_detail::rotation;

namespace {

// One core spring at the current state: the point's world offset r from c and its
// velocity, the force f_s and its stiffness K_s = -df_s/dp (world).
//   f_s = -k (|d| - L) d^ - c pdot,  d = p - anchor
//   K_s = k [d^ d^T + max(0, 1 - L/|d|) (I - d^ d^T)]
// J = [I, -R [rb]x] maps (cdot, omega) to pdot, rb the point in the body frame
// (the transverse term is dropped where the spring is compressed, |d| < L: it would
// make the matrix indefinite; L = 0 gives K_s = k I).

struct SpringAt {
  Core::PointMap J = Core::PointMap::Zero();
  Vec3 pdot = Vec3::Zero();
  Vec3 force = Vec3::Zero();
  Mat3 Ks = Mat3::Zero();
};

SpringAt springAt(const CoreSpring& k, const CoreState& s, const Mat3& R, const Vec3& comOffset, double dt) {
  SpringAt a;
  const Vec3 rb = k.point - comOffset;  // body frame, from c
  const Vec3& w = s.angularVelocity;
  a.J = Core::pointMap(R, rb);
  a.pdot = s.velocity + R * w.cross(rb);
  // The step turns the core by R exp(dt [w]x), so p(t + dt) = p + dt J v(t + dt) +
  // dt^2/2 R (w x (w x rb)) + O(dt^3): the centripetal term (explicit, start w) is
  // added to the spring's stretch. Without it a stiff spring on a spinning core
  // sees a spurious stretch of dt^2 w^2 |rb| / 2 every step (0.6 mm at 3 rad/s,
  // dt = 1/60: 20 J in a k = 1e8 spring) and feeds it back as energy.
  const Vec3 d = s.position + R * (rb + 0.5 * dt * dt * w.cross(w.cross(rb))) - k.anchor;
  const double len = d.norm();
  if (len > 1e-12) {
    const Vec3 e = d / len;
    const Mat3 ee = e * e.transpose();
    a.force = -k.stiffness * (len - k.restLength) * e;
    a.Ks = k.stiffness * (ee + std::max(0.0, 1 - k.restLength / len) * (Mat3::Identity() - ee));
  } else {
    a.Ks = k.stiffness * Mat3::Identity();
  }
  a.force -= k.damping * a.pdot;
  return a;
}

}  // namespace

CoreSolve solveCoreWithSprings(const CoreState& s, const std::vector<CoreSpring>& springs, const Vec3& comOffset,
                               const Core::Matrix& Mcond, const Core::Vector& rhs, double dt) {
  const Mat3 R = rotation(s.orientation);
  // Linearised backward Euler of a force f(p, pdot) on a core point, pdot = J v_c:
  //   f(t + dt) ~ f_s - K_s dt pdot(t + dt) - c (pdot(t + dt) - pdot(t))
  // (p(t + dt) = p + dt pdot(t + dt)); its generalised impulse dt J^T f(t + dt) moves
  // the dv_c terms to the left-hand side of (3.8):
  //   [Mcond + J^T (dt c + dt^2 K_s) J] dv_c = rhs + dt J^T (f_s - dt K_s pdot)
  Core::Matrix A = Mcond;
  Core::Vector b = rhs;
  std::vector<SpringAt> at;
  at.reserve(springs.size());
  for (const CoreSpring& k : springs) {
    at.push_back(springAt(k, s, R, comOffset, dt));
    const SpringAt& a = at.back();
    const Mat3 H = dt * k.damping * Mat3::Identity() + dt * dt * a.Ks;
    A += a.J.transpose() * H * a.J;
    b += dt * a.J.transpose() * (a.force - dt * a.Ks * a.pdot);
  }
  CoreSolve out;
  out.dv = A.partialPivLu().solve(b);
  out.condensedMass = A;
  const Core::Vector& dvc = out.dv;
  // the springs' impulse over the step: dt f(t + dt) with the solved velocities
  for (size_t j = 0; j < springs.size(); ++j) {
    const SpringAt& a = at[j];
    const Vec3 pdot1 = a.pdot + a.J * dvc;
    out.springImpulse += dt * (a.force - dt * a.Ks * pdot1 - springs[j].damping * (pdot1 - a.pdot));
  }
  return out;
}

double coreSpringEnergy(const CoreState& s, const std::vector<CoreSpring>& springs, const Vec3& comOffset) {
  const Mat3 R = rotation(s.orientation);
  double e = 0;
  for (const CoreSpring& k : springs) {
    const double len = (s.position + R * (k.point - comOffset) - k.anchor).norm();
    e += 0.5 * k.stiffness * (len - k.restLength) * (len - k.restLength);
  }
  return e;
}

}  // namespace d2t
