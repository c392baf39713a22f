// The morph targets' modal basis (ch. 5.4-5.5): LMA per target, mass-PCA, augmentation by
// the target shapes. See modal_basis.h.

#include "sim/morph/modal_basis.h"

#include <Eigen/SparseCholesky>
#include <Spectra/SymEigsShiftSolver.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sim/base/json_reader.h"
#include "sim/body/core/rigid_core.h"
#include "sim/body/implicit_operator.h"
#include "sim/body/multigrid_preconditioner.h"
#include "sim/model/baked_body.h"
#include "sim/morph/morph_targets.h"

namespace d2t {

namespace {

using SpMat = Eigen::SparseMatrix<double>;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// (A - sigma I)^-1 x for Spectra's shift-invert Lanczos, sigma = 0: A = M^-1/2 K M^-1/2
// factored once (its lowest eigenvalues are the largest of A^-1).
class InverseOp {
 public:
  using Scalar = double;
  explicit InverseOp(const SpMat& a) : n_(a.rows()) { ldlt_.compute(a); }
  bool ok() const { return ldlt_.info() == Eigen::Success && ldlt_.vectorD().minCoeff() > 0; }
  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  void set_shift(double) {}
  void perform_op(const double* x, double* y) const {
    Eigen::Map<Eigen::VectorXd>(y, n_) = ldlt_.solve(Eigen::Map<const Eigen::VectorXd>(x, n_));
  }

 private:
  Eigen::Index n_;
  Eigen::SimplicialLDLT<SpMat> ldlt_;
};

Eigen::VectorXd flatten(const std::vector<Vec3>& v) {
  Eigen::VectorXd x(3 * Eigen::Index(v.size()));
  for (size_t i = 0; i < v.size(); ++i) x.segment<3>(3 * Eigen::Index(i)) = v[i];
  return x;
}

}  // namespace

Eigen::VectorXd ModalBasis::project(const std::vector<Vec3>& q, const std::vector<double>& nodeMass) const {
  Eigen::VectorXd mq(U.rows());
  for (size_t i = 0; i < q.size(); ++i) mq.segment<3>(3 * Eigen::Index(i)) = nodeMass[i] * q[i];
  return U.transpose() * mq;
}

void ModalBasis::expand(const Eigen::VectorXd& z, std::vector<Vec3>& q) const {
  q.resize(size_t(U.rows() / 3));
  Eigen::Map<Eigen::VectorXd>(q[0].data(), U.rows()).noalias() = U * z;
}

FrameInvariants frameInvariants(const Eigen::MatrixXd& U, const std::vector<double>& nodeMass,
                                const std::vector<Vec3>& restSkin) {
  FrameInvariants f;
  const Eigen::Index n = Eigen::Index(nodeMass.size()), r = U.cols();
  std::array<Eigen::MatrixXd, 3> Ua, MUa;  // U's rows of axis a, and M U_a
  for (int a = 0; a < 3; ++a) {
    Ua[size_t(a)].resize(n, r);
    for (Eigen::Index i = 0; i < n; ++i) Ua[size_t(a)].row(i) = U.row(3 * i + a);
    MUa[size_t(a)] = Eigen::Map<const Eigen::VectorXd>(nodeMass.data(), n).asDiagonal() * Ua[size_t(a)];
  }
  Eigen::MatrixXd ub(n, 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    ub.row(i) = restSkin[size_t(i)].transpose();
    f.s0 += nodeMass[size_t(i)] * restSkin[size_t(i)];
    f.suu0 += nodeMass[size_t(i)] * restSkin[size_t(i)] * restSkin[size_t(i)].transpose();
  }
  f.ubar.resize(3, r);
  f.B.resize(r, 9);
  for (int a = 0; a < 3; ++a) {
    f.ubar.row(a) = MUa[size_t(a)].colwise().sum();
    for (int c = 0; c < 3; ++c) {
      f.G[size_t(3 * a + c)] = Ua[size_t(a)].transpose() * MUa[size_t(c)];
      f.B.col(3 * a + c) = MUa[size_t(a)].transpose() * ub.col(c);
    }
  }
  // [e_k]x v = e_k x v: (e_x x v) = (0, -v_z, v_y) and cyclically
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, c = (k + 2) % 3;  // (e_k x v)_a = -v_c, (e_k x v)_c = v_a
    f.A[size_t(k)] = f.G[size_t(3 * c + a)] - f.G[size_t(3 * a + c)];
  }
  return f;
}

ModalBasis buildModalBasis(const BakedBody& body, const MorphTargetSet& set, const ReductionDesc& desc,
                           const std::string& owner) {
  ModalBasis b;
  const int n = body.nodeCount(), dof = 3 * n;
  Eigen::VectorXd mass(dof), isq(dof);  // M's diagonal and M^-1/2
  for (int i = 0; i < n; ++i) {
    mass.segment<3>(3 * i).setConstant(body.nodeMass[size_t(i)]);
    isq.segment<3>(3 * i).setConstant(1 / std::sqrt(body.nodeMass[size_t(i)]));
  }
  auto mdot = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& y) { return x.dot(mass.cwiseProduct(y)); };
  Eigen::MatrixXd C(dof, Core::kDofs);  // M_ec at rest (body frame): the core's six unit loads on the skin
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < Core::kDofs; ++c)
      C.block<3, 1>(3 * i, c) = Core::couplingColumn(c, body.nodeMass[size_t(i)], body.restSkin[size_t(i)], Mat3::Identity());

  // 1 LMA (5.9): each distinct target's k lowest modes, M-orthonormal
  auto t0 = Clock::now();
  const int k = std::min(desc.modesPerTarget, dof - 1);
  std::vector<Eigen::MatrixXd> modes;  // per distinct target, scaled: (lambda_1 / lambda_j) phi_j
  std::vector<Eigen::VectorXd> loadModes;  // (desc.loadModes) the body's static responses to the core's loads
  b.eigenvalues.resize(size_t(set.count()));
  for (int t = 0; t < set.count(); ++t) {
    const MorphTarget& target = set.targets[size_t(t)];
    if (target.same != t) continue;
    const std::string at = owner + "/targets/" + std::to_string(t) + " ('" + target.name + "')";
    const SpMat K = SpMat(stencilMatrix(body.atlas.stencil, target.K));
    SpMat A = K;  // M^-1/2 K M^-1/2
    for (int c = 0; c < A.outerSize(); ++c)
      for (SpMat::InnerIterator it(A, c); it; ++it) it.valueRef() *= isq[it.row()] * isq[it.col()];
    InverseOp op(A);
    if (!op.ok())
      throw InputError(at + ": its skin stiffness is not positive definite (the skin's lowest modes (5.9) need "
                            "a core that holds it)");
    Spectra::SymEigsShiftSolver<InverseOp> eigs(op, k, std::min(dof, std::max(2 * k + 1, k + 20)), 0.0);
    eigs.init();
    eigs.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10, Spectra::SortRule::SmallestAlge);
    if (eigs.info() != Spectra::CompInfo::Successful)
      throw InputError(at + ": the eigen solver (Spectra's Lanczos) did not find its " + std::to_string(k) +
                       " lowest modes");
    if (t == 0 && desc.loadModes)  // K_1^-1 C_k = M^-1/2 A^-1 M^-1/2 C_k (the core's six loads at rest)
      for (int c = 0; c < Core::kDofs; ++c) {
        const Eigen::VectorXd load = isq.cwiseProduct(C.col(c));
        Eigen::VectorXd y(dof);
        op.perform_op(load.data(), y.data());
        loadModes.push_back(isq.cwiseProduct(y));
      }
    const Eigen::VectorXd lambda = eigs.eigenvalues();
    const Eigen::MatrixXd phi = isq.asDiagonal() * eigs.eigenvectors();  // M-orthonormal
    b.eigenvalues[size_t(t)] = lambda;
    Eigen::MatrixXd v(dof, k);
    for (int j = 0; j < k; ++j) v.col(j) = (lambda[0] / lambda[j]) * phi.col(j);
    modes.push_back(std::move(v));
  }
  b.modeSeconds = since(t0);

  // 2 mass-PCA (5.10): G = V^T M V = W S^2 W^T, U* = V W S^-1 over the r* largest
  t0 = Clock::now();
  Eigen::MatrixXd V(dof, k * Eigen::Index(modes.size()));
  for (size_t t = 0; t < modes.size(); ++t) V.middleCols(k * Eigen::Index(t), k) = modes[t];
  const Eigen::MatrixXd G = V.transpose() * mass.asDiagonal() * V;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> pca(G);
  const Eigen::VectorXd s2 = pca.eigenvalues().reverse();  // descending
  const Eigen::MatrixXd W = pca.eigenvectors().rowwise().reverse();
  int rStar = std::min<int>(desc.modes, int(s2.size()));
  while (rStar > 0 && !(s2[rStar - 1] > 1e-12 * s2[0])) --rStar;  // (the rank of V)
  b.U.resize(dof, rStar + set.count() - 1 + int(loadModes.size()));
  for (int j = 0; j < rStar; ++j) b.U.col(j) = V * W.col(j) / std::sqrt(s2[j]);
  b.pcaEnergy = s2.head(rStar).sum() / s2.sum();
  b.rStar = rStar;

  // 3 augmentation: the target shapes (and the load modes), M-Gram-Schmidt twice ("twice is
  // enough"), each kept where it is not already in the span
  int r = rStar;
  auto augment = [&](const Eigen::VectorXd& d) {
    Eigen::VectorXd x = d;
    for (int pass = 0; pass < 2; ++pass)
      for (int j = 0; j < r; ++j) x -= mdot(b.U.col(j), x) * b.U.col(j);
    const double norm = std::sqrt(mdot(x, x));
    if (norm > 1e-8 * std::sqrt(mdot(d, d))) b.U.col(r++) = x / norm;
  };
  for (int t = 1; t < set.count(); ++t) {
    const MorphTarget& target = set.targets[size_t(t)];
    if (target.same == t && target.maxDisplacement > 0) augment(flatten(target.d));
  }
  b.shapeModes = r - rStar;
  for (const Eigen::VectorXd& d : loadModes) augment(d);
  b.U.conservativeResize(dof, r);
  b.r = r;
  b.reproduction.assign(size_t(set.count()), 0.0);
  for (int t = 1; t < set.count(); ++t) {
    const Eigen::VectorXd d = flatten(set.targets[size_t(t)].d);
    const double dn = std::sqrt(mdot(d, d));
    if (dn == 0) continue;
    const Eigen::VectorXd e = d - b.U * (b.U.transpose() * mass.cwiseProduct(d));
    b.reproduction[size_t(t)] = std::sqrt(mdot(e, e)) / dn;
  }
  // the reduced coefficients: U^T K_i U per distinct target (r products over the stencil
  // each), and the rest coupling U^T M_ec
  b.stiffness.resize(size_t(set.count()));
  Eigen::MatrixXd KU(dof, r);
  std::vector<Vec3> x(static_cast<size_t>(n)), y;
  for (int t = 0; t < set.count(); ++t) {
    if (set.targets[size_t(t)].same != t) continue;
    for (int l = 0; l < r; ++l) {
      for (int i = 0; i < n; ++i) x[size_t(i)] = b.U.block<3, 1>(3 * i, l);
      multiplyStencil(body.atlas.stencil, set.targets[size_t(t)].K, x, y);
      for (int i = 0; i < n; ++i) KU.block<3, 1>(3 * i, l) = y[size_t(i)];
    }
    const Eigen::MatrixXd k = b.U.transpose() * KU;
    b.stiffness[size_t(t)] = 0.5 * (k + k.transpose());
  }
  b.coupling = b.U.transpose() * C;
  b.shapes.setZero(r, set.count());
  for (int t = 1; t < set.count(); ++t) b.shapes.col(t) = b.U.transpose() * mass.cwiseProduct(flatten(set.targets[size_t(t)].d));
  b.inertia = frameInvariants(b.U, body.nodeMass, body.restSkin);
  b.pcaSeconds = since(t0);
  if (desc.stvk) {  // appendix D's coefficients, per distinct target
    t0 = Clock::now();
    b.stvk.resize(size_t(set.count()));
    for (int t = 0; t < set.count(); ++t)
      if (set.targets[size_t(t)].same == t)
        b.stvk[size_t(t)] = buildReducedStvk(body, set.targets[size_t(t)], b.U).shifted(b.shapes.col(t));
    b.stvkSeconds = since(t0);
  }
  return b;
}

}  // namespace d2t
