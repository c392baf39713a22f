#pragma once
// The thick spherical shell of linear elasticity (Lame's problem) as an independent
// check of the elastic model: the skin between a fixed rigid core of radius a and the
// surface of radius b, loaded (1) by a uniform pressure p on the outer surface, (2) by
// a uniform radial body force f, (3) by a tangential traction tau sin(theta) e_phi on
// the outer surface (torsion about z). The closed forms below are derived in
// docs/decisions/0028-lame-shell-check.md; nothing here reads the assembled stiffness.
//
// The loads are NodeLoads: a traction t on the outer surface puts t A_i on node i
// (A_i: a third of the rest area of each skin triangle at i); a body force f puts
// f V_i (V_i: a quarter of each incident tetrahedron's rest volume, the lumping of the
// masses). The response is measured by a least-squares fit of the closed form's shape
// to the skin's displacements (area weighted) and by the worst node.
#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/body/layered_body.h"
#include "sim/model/baked_body.h"

namespace d2t::test {

enum class ShellLoad { Pressure, RadialBodyForce, Torsion };

/// Lame parameters [Pa] of (E, nu).
struct ShellMaterial {
  double lambda, mu;
  ShellMaterial(double young, double poisson)
      : lambda(young * poisson / ((1 + poisson) * (1 - 2 * poisson))), mu(young / (2 * (1 + poisson))) {}
};

/// The closed-form outer-surface displacement of the shell a < r < b, u(a) = 0:
///  - Pressure (magnitude `load` = p [Pa], inward): u = A r + B / r^2, sigma_rr(b) = -p:
///      u_r(b) = -p (b - a^3 / b^2) / (3 lambda + 2 mu + 4 mu a^3 / b^3);
///  - RadialBodyForce (`load` = f [N/m^3], outward), free outer surface:
///      u = A r + B / r^2 + C r^2, C = -f / (4 (lambda + 2 mu)), u(a) = 0, sigma_rr(b) = 0,
///      sigma_rr = (3 lambda + 2 mu) A - 4 mu B / r^3 + 4 (lambda + mu) C r;
///  - Torsion (`load` = tau [Pa]): u_phi = omega(r) r sin(theta), omega = A + B / r^3,
///      sigma_r_phi = mu r omega' sin(theta) = tau sin(theta) at b, omega(a) = 0:
///      u_phi(b) / sin(theta) = tau b (b^3 / a^3 - 1) / (3 mu).
/// Returns u_r(b) (pressure, body force) or u_phi(b) / sin(theta) (torsion) [m].
inline double lameShell(ShellLoad kind, double a, double b, const ShellMaterial& m, double load) {
  const double l = m.lambda, mu = m.mu, a3 = a * a * a, b3 = b * b * b;
  switch (kind) {
    case ShellLoad::Pressure:
      return -load * (b - a3 / (b * b)) / (3 * l + 2 * mu + 4 * mu * a3 / b3);
    case ShellLoad::RadialBodyForce: {
      const double c = -load / (4 * (l + 2 * mu));
      // [a, 1/a^2; 3l+2mu, -4mu/b^3] (A, B) = (-c a^2, -4 (l + mu) c b)
      const double m11 = a, m12 = 1 / (a * a), m21 = 3 * l + 2 * mu, m22 = -4 * mu / b3;
      const double r1 = -c * a * a, r2 = -4 * (l + mu) * c * b;
      const double det = m11 * m22 - m12 * m21;
      const double A = (r1 * m22 - m12 * r2) / det, B = (m11 * r2 - m21 * r1) / det;
      return A * b + B / (b * b) + c * b * b;
    }
    case ShellLoad::Torsion:
      return load * b * (b3 / a3 - 1) / (3 * mu);
  }
  return 0;
}

/// The unit load's shape at a rest skin point g (body frame, the shell centred at the
/// origin): r^ for pressure and body force, z x r^ (|.| = sin(theta), along e_phi) for torsion.
inline Vec3 shellShape(ShellLoad kind, const Vec3& g) {
  const Vec3 r = g.normalized();
  return kind == ShellLoad::Torsion ? Vec3(Vec3::UnitZ().cross(r)) : r;
}

/// Per node: A_i (a third of each incident skin triangle's rest area) and V_i (a
/// quarter of each incident tetrahedron's rest volume).
struct NodeMeasures {
  std::vector<double> area, volume;
  explicit NodeMeasures(const BakedBody& m)
      : area(size_t(m.nodeCount()), 0.0), volume(size_t(m.nodeCount()), 0.0) {
    for (const Vec3i& t : m.atlas.triangles) {
      const Vec3 &x0 = m.restSkin[size_t(t[0])], &x1 = m.restSkin[size_t(t[1])], &x2 = m.restSkin[size_t(t[2])];
      const double A = 0.5 * (x1 - x0).cross(x2 - x0).norm();
      for (int k = 0; k < 3; ++k) area[size_t(t[k])] += A / 3;
    }
    for (int k = 0; k < m.tetCount(); ++k)
      for (int id : m.tets[size_t(k)])
        if (id < m.nodeCount()) volume[size_t(id)] += m.tetVolume[size_t(k)] / 4;
  }
};

/// The shell's load on each node [N], body frame (= world for a core held at the identity).
inline std::vector<Vec3> shellForces(const BakedBody& m, ShellLoad kind, double load) {
  const NodeMeasures w(m);
  std::vector<Vec3> f(size_t(m.nodeCount()));
  for (int i = 0; i < m.nodeCount(); ++i) {
    const Vec3 s = shellShape(kind, m.restSkin[size_t(i)]);
    const size_t k = size_t(i);
    f[k] = kind == ShellLoad::Pressure          ? Vec3(-load * w.area[k] * s)
           : kind == ShellLoad::RadialBodyForce ? Vec3(load * w.volume[k] * s)
                                                : Vec3(load * w.area[k] * s);
  }
  return f;
}

/// The shell's load as a NodeLoad (constant forces, for a core held at the identity).
class ShellNodeLoad final : public NodeLoad {
 public:
  ShellNodeLoad(const BakedBody& m, ShellLoad kind, double load) : f_(shellForces(m, kind, load)) {}
  void forces(const LayeredBody& body, std::vector<NodeForce>& out) const override {
    (void)body;
    for (size_t i = 0; i < f_.size(); ++i) out.push_back({int(i), f_[i]});
  }

 private:
  std::vector<Vec3> f_;
};

/// The skin's response to the shell's load against the closed form `exact`:
/// U = argmin sum_i A_i |q_i - U s_i|^2 (s_i = shellShape), the worst node's
/// |q_i - exact s_i| / |exact|, and U's relative error.
struct ShellResponse {
  double U = 0, error = 0, worstNode = 0;
};
inline ShellResponse shellResponse(const BakedBody& m, ShellLoad kind, const std::vector<Vec3>& q, double exact) {
  const NodeMeasures w(m);
  double num = 0, den = 0, worst = 0;
  for (int i = 0; i < m.nodeCount(); ++i) {
    const size_t k = size_t(i);
    const Vec3 s = shellShape(kind, m.restSkin[k]);
    num += w.area[k] * q[k].dot(s);
    den += w.area[k] * s.squaredNorm();
    worst = std::max(worst, (q[k] - exact * s).norm());
  }
  ShellResponse r;
  r.U = num / den;
  r.error = r.U / exact - 1;
  r.worstNode = worst / std::abs(exact);
  return r;
}

}  // namespace d2t::test
