// Reduced St. Venant-Kirchhoff coefficients (appendix D) as Gram products, and the full
// per-tet reference. See reduced_stvk.h.

#include "sim/morph/reduced_stvk.h"

#include <chrono>
#include <cmath>

#include "sim/model/baked_body.h"
#include "sim/model/tet_fem.h"
#include "sim/morph/morph_targets.h"

namespace d2t {

namespace {

using Vec7 = Eigen::Matrix<double, 7, 1>;

// v(A) with <A, B> = v(A) . v(B) for symmetric A, B: (sqrt(2 mu V) w(A), sqrt(lambda V) tr A),
// w(A) = (A00, A11, A22, sqrt2 A01, sqrt2 A02, sqrt2 A12) so that w(A) . w(B) = A : B.
Vec7 metricVector(const Mat3& A, double a, double b) {
  const double s = std::sqrt(2.0) * a;
  Vec7 v;
  v << a * A(0, 0), a * A(1, 1), a * A(2, 2), s * A(0, 1), s * A(0, 2), s * A(1, 2), b * A.trace();
  return v;
}

// A tet's rest geometry and Lame parameters for the target's rest points.
struct TetData {
  TetGeometry geom;
  Lame lame;
};
TetData tetData(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                const std::vector<double>& poisson, size_t k) {
  const int n = body.nodeCount();
  const Tet& t = body.tets[k];
  std::array<Vec3, 4> x;
  for (int v = 0; v < 4; ++v) x[size_t(v)] = t[size_t(v)] < n ? rest[size_t(t[size_t(v)])] : body.core[size_t(t[size_t(v)] - n)];
  return {tetGeometry(x), lameFromYoung(young[k], poisson[k])};
}

// H = sum_a u_a g_a^T over the tet's skin vertices (the core's are fixed).
template <class Displacement>
Mat3 displacementGradient(const BakedBody& body, size_t k, const TetGeometry& geom, Displacement u) {
  Mat3 H = Mat3::Zero();
  for (int v = 0; v < 4; ++v)
    if (const int id = body.tets[k][size_t(v)]; id < body.nodeCount()) H += u(id) * geom.gradient[size_t(v)].transpose();
  return H;
}

}  // namespace

Eigen::VectorXd ReducedStvk::pairs(const Eigen::VectorXd& x) const {
  Eigen::VectorXd y(r * (r + 1) / 2);
  for (int i = 0; i < r; ++i)
    for (int j = i; j < r; ++j) y[pair(i, j)] = (i == j ? 1.0 : 2.0) * x[i] * x[j];
  return y;
}

void ReducedStvk::evaluate(const Eigen::VectorXd& x, Eigen::VectorXd* force, Eigen::MatrixXd* tangent,
                           double* energy) const {
  const Eigen::VectorXd y = pairs(x), sy = S * y;
  Eigen::VectorXd ctx;  // C^T x (the force's and the tangent's, not the energy's)
  if (force || tangent) ctx.noalias() = C.transpose() * x;
  if (force || energy) {
    const Eigen::VectorXd px = P * x, cy = C * y;
    if (energy) *energy = w0 + (g.size() ? g.dot(x) : 0.0) + 0.5 * x.dot(px) + 0.5 * x.dot(cy) + 0.25 * y.dot(sy);
    if (force) {
      Eigen::VectorXd& R = *force;
      R = px + 0.5 * cy;
      if (g.size()) R += g;
      for (int l = 0; l < r; ++l)
        for (int k = 0; k < r; ++k) R[l] += x[k] * (ctx[pair(l, k)] + sy[pair(l, k)]);
    }
  }
  if (!tangent) return;
  const int np = r * (r + 1) / 2;
  Eigen::MatrixXd& T = *tangent;
  T = P;
  Eigen::MatrixXd Cx(r, r);  // Cx(l, m) = sum_j C(l, pair(m, j)) x_j
  for (int l = 0; l < r; ++l)
    for (int m = 0; m < r; ++m) {
      double s = 0;
      for (int j = 0; j < r; ++j) s += C(l, pair(m, j)) * x[j];
      Cx(l, m) = s;
    }
  Eigen::MatrixXd SX = Eigen::MatrixXd::Zero(np, r);  // SX(p, l) = sum_k x_k S(p, pair(l, k))
  for (int l = 0; l < r; ++l)
    for (int k = 0; k < r; ++k) SX.col(l) += x[k] * S.col(pair(l, k));
  for (int l = 0; l < r; ++l)
    for (int m = 0; m < r; ++m) {
      double a = 0;  // sum_j x_j SX(pair(m, j), l)
      for (int j = 0; j < r; ++j) a += x[j] * SX(pair(m, j), l);
      T(l, m) += Cx(l, m) + Cx(m, l) + ctx[pair(l, m)] + sy[pair(l, m)] + 2 * a;
    }
}

// W(x) = w0 + g.x + 1/2 x.P x + 1/2 x.C y(x) + 1/4 y(x).S y(x) with x = z - d. With y(x)_p =
// c_p x_i x_j (p = (i, j), c_p = 1 on the diagonal, 2 off it):
//   y(z - d) = y(z) - A z + y(d),  (A z)_p = c_p (z_i d_j + d_i z_j)  (A: np x r),
// and a quadratic form v . y(z) = 1/2 z.H(v) z with H(v)_ij = 2 v_pair(i,j). By degree in z:
//   quartic  1/4 y.S y                                 S' = S
//   cubic    1/2 z.C y - 1/2 y.S A z                   C' = C - A^T S
//   quadratic 1/2 z.P z - 1/2 z.C A z - 1/2 d.C y + 1/2 y.S y(d) + 1/4 z.A^T S A z
//            P' = P - sym(C A) + H(-C^T d / 2) + H(S y(d) / 2) + A^T S A / 2
//   linear   g' = g - P d + 1/2 C y(d) + 1/2 A^T C^T d - 1/2 A^T S y(d)
//   constant w0' = W(-d) = w0 - g.d + 1/2 d.P d - 1/2 d.C y(d) + 1/4 y(d).S y(d)
ReducedStvk ReducedStvk::shifted(const Eigen::VectorXd& d) const {
  const int np = r * (r + 1) / 2;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(np, r);
  for (int i = 0; i < r; ++i)
    for (int j = i; j < r; ++j) {
      const double c = i == j ? 1.0 : 2.0;
      A(pair(i, j), i) += c * d[j];
      A(pair(i, j), j) += c * d[i];
    }
  const Eigen::VectorXd yd = pairs(d), syd = S * yd, ctd = C.transpose() * d;
  const Eigen::MatrixXd SA = S * A, CA = C * A;
  auto hessian = [&](const Eigen::VectorXd& v) {  // of v . y(z)
    Eigen::MatrixXd H(r, r);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j) H(i, j) = 2 * v[pair(i, j)];
    return H;
  };
  ReducedStvk out;
  out.r = r;
  out.S = S;
  out.C = C - SA.transpose();
  out.P = P - 0.5 * (CA + CA.transpose()) + hessian(-0.5 * ctd) + hessian(0.5 * syd) + 0.5 * A.transpose() * SA;
  out.P = 0.5 * (out.P + out.P.transpose()).eval();
  const Eigen::VectorXd pd = P * d, cyd = C * yd;
  out.g = -pd + 0.5 * cyd + 0.5 * A.transpose() * ctd - 0.5 * A.transpose() * syd;
  out.w0 = w0 + 0.5 * d.dot(pd) - 0.5 * d.dot(cyd) + 0.25 * yd.dot(syd);
  if (g.size()) {
    out.g += g;
    out.w0 -= g.dot(d);
  }
  out.seconds = seconds;
  return out;
}

void ReducedStvk::add(double b, const ReducedStvk& o) {
  if (r == 0) {  // (zero of o's shape)
    r = o.r;
    P.setZero(o.P.rows(), o.P.cols());
    C.setZero(o.C.rows(), o.C.cols());
    S.setZero(o.S.rows(), o.S.cols());
    g.setZero(o.r);
    w0 = 0;
  }
  P += b * o.P;
  C += b * o.C;
  S += b * o.S;
  if (g.size() == 0) g.setZero(r);
  if (o.g.size()) g += b * o.g;
  w0 += b * o.w0;
}

double ReducedStvk::energy(const Eigen::VectorXd& x) const {
  double w = 0;
  evaluate(x, nullptr, nullptr, &w);
  return w;
}

Eigen::VectorXd ReducedStvk::force(const Eigen::VectorXd& x) const {
  Eigen::VectorXd R;
  evaluate(x, &R, nullptr, nullptr);
  return R;
}

Eigen::MatrixXd ReducedStvk::tangent(const Eigen::VectorXd& x) const {
  Eigen::MatrixXd T;
  evaluate(x, nullptr, &T, nullptr);
  return T;
}

ReducedStvk buildReducedStvk(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                             const std::vector<double>& poisson, const Eigen::MatrixXd& U) {
  const auto start = std::chrono::steady_clock::now();
  ReducedStvk out;
  const int r = int(U.cols()), np = r * (r + 1) / 2;
  out.r = r;
  out.P.setZero(r, r);
  out.C.setZero(r, np);
  out.S.setZero(np, np);
  constexpr int kBlock = 256;  // tets per GEMM
  const size_t ntet = body.tets.size();
  Eigen::MatrixXd E(7 * kBlock, r), G(7 * kBlock, np);
  std::vector<Mat3> H(static_cast<size_t>(r));
  for (size_t first = 0; first < ntet; first += kBlock) {
    const int nb = int(std::min<size_t>(kBlock, ntet - first));
    for (int e = 0; e < nb; ++e) {
      const size_t k = first + size_t(e);
      const TetData t = tetData(body, rest, young, poisson, k);
      const double a = std::sqrt(2 * t.lame.mu * t.geom.volume), b = std::sqrt(t.lame.lambda * t.geom.volume);
      for (int l = 0; l < r; ++l)
        H[size_t(l)] = displacementGradient(body, k, t.geom, [&](int id) { return Vec3(U.block<3, 1>(3 * id, l)); });
      for (int l = 0; l < r; ++l) {
        const Mat3& h = H[size_t(l)];
        E.block<7, 1>(7 * e, l) = metricVector(0.5 * (h + h.transpose()), a, b);
      }
      for (int i = 0; i < r; ++i)
        for (int j = i; j < r; ++j) {
          const Mat3 hij = H[size_t(i)].transpose() * H[size_t(j)];
          G.block<7, 1>(7 * e, out.pair(i, j)) = metricVector(0.5 * (hij + hij.transpose()), a, b);
        }
    }
    const auto Eb = E.topRows(7 * nb);
    const auto Gb = G.topRows(7 * nb);
    out.P.noalias() += Eb.transpose() * Eb;
    out.C.noalias() += Eb.transpose() * Gb;
    out.S.selfadjointView<Eigen::Lower>().rankUpdate(Gb.transpose(), 0.5);
  }
  out.S = out.S.selfadjointView<Eigen::Lower>();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

ReducedStvk buildReducedStvk(const BakedBody& body, const MorphTarget& target, const Eigen::MatrixXd& U) {
  std::vector<Vec3> rest = body.restSkin;
  for (size_t i = 0; i < rest.size(); ++i) rest[i] += target.d[i];
  return target.tetYoung.empty() ? buildReducedStvk(body, rest, body.tetYoung, body.tetPoisson, U)
                                 : buildReducedStvk(body, rest, target.tetYoung, target.tetPoisson, U);
}

double stvkEnergy(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                  const std::vector<double>& poisson, const std::vector<Vec3>& u) {
  double w = 0;
  for (size_t k = 0; k < body.tets.size(); ++k) {
    const TetData t = tetData(body, rest, young, poisson, k);
    const Mat3 H = displacementGradient(body, k, t.geom, [&](int id) { return u[size_t(id)]; });
    const Mat3 E = 0.5 * (H + H.transpose() + H.transpose() * H);
    w += t.geom.volume * (t.lame.mu * E.squaredNorm() + 0.5 * t.lame.lambda * E.trace() * E.trace());
  }
  return w;
}

// f_a = -V F S g_a (F = I + H, S = 2 mu E + lambda tr E I: the second Piola-Kirchhoff stress).
std::vector<Vec3> stvkForce(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                            const std::vector<double>& poisson, const std::vector<Vec3>& u) {
  const int n = body.nodeCount();
  std::vector<Vec3> f(static_cast<size_t>(n), Vec3::Zero());
  for (size_t k = 0; k < body.tets.size(); ++k) {
    const TetData t = tetData(body, rest, young, poisson, k);
    const Mat3 H = displacementGradient(body, k, t.geom, [&](int id) { return u[size_t(id)]; });
    const Mat3 E = 0.5 * (H + H.transpose() + H.transpose() * H);
    const Mat3 S2 = 2 * t.lame.mu * E + t.lame.lambda * E.trace() * Mat3::Identity();
    const Mat3 PK1 = (Mat3::Identity() + H) * S2;
    for (int v = 0; v < 4; ++v)
      if (const int id = body.tets[k][size_t(v)]; id < n) f[size_t(id)] -= t.geom.volume * PK1 * t.geom.gradient[size_t(v)];
  }
  return f;
}

}  // namespace d2t
