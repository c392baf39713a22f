// ImplicitOperator (Mt_e = (1 + dt alpha) M + (dt beta + dt^2) K_e, eq. 3.6/3.11): the
// products over the 7-slot stencil, CG with the DILU preconditioner, the core's coupling
// columns, the direct factor, prepare(); and the projected warm start of the y solve.

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "sim/body/implicit_operator.h"
#include "sim/base/ordered_sum.h"
#include "sim/body/node_loops.h"
#include "sim/morph/modal_basis.h"
#include "sim/morph/morph_targets.h"

namespace d2t {

using namespace layered_detail;

// ---- sparse products over the 7-slot stencil ---------------------------------------------------

void multiplyStencil(const std::vector<Stencil>& stencil, const StencilBlocks& blocks, const std::vector<Vec3>& x,
                     std::vector<Vec3>& y) {
  const int n = int(stencil.size());
  y.resize(n);
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) y[i] = stencilRow(stencil[i], blocks[i], x);
}

void ImplicitOperator::multiply(const std::vector<Vec3>& x, std::vector<Vec3>& y) const {
  multiplyStencil(model_->atlas.stencil, mt_, x, y);
}

// Preconditioned conjugate gradients on Mt_e x = b (symmetric positive definite),
// block DILU preconditioner (dilu_preconditioner.h), warm start from x. One iteration
// is the product A p with p.Ap, the update of x and r with r.r, the preconditioner's
// two sweeps with r.z, and the update of p. The product is bound by the 7 blocks of
// Mt_e per node: above kFloatBlocksTolerance, in bodies too big for the cache
// (kFloatBlocksMinNodes), it reads them in float (252 instead of 504 bytes per node);
// vectors and sums stay double (docs/decisions/0003-cg-float-blocks.md).
int ImplicitOperator::solve(const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations,
                            double tolerance, double* residual, double referenceNorm) const {
  const int n = int(b.size());
  x.resize(n, Vec3::Zero());
  if (basis_) {  // x = U (U^T Mt_e U)^-1 U^T b
    const Eigen::MatrixXd& U = basis_->U;
    Eigen::Map<const Eigen::VectorXd> bv(b[0].data(), 3 * n);
    Eigen::Map<Eigen::VectorXd> xv(x[0].data(), 3 * n);
    xv.noalias() = U * reducedLlt_.solve(U.transpose() * bv);
    if (residual) *residual = 0;
    return 0;
  }
  if (direct_) {
    Eigen::Map<const Eigen::VectorXd> bv(b[0].data(), 3 * n);
    Eigen::Map<Eigen::VectorXd> xv(x[0].data(), 3 * n);
    xv = ldlt_->solve(bv);
    if (residual) *residual = 0;
    return 0;
  }
  return conjugateGradients(b, x, nullptr, maxIterations, tolerance, residual, referenceNorm);
}

int ImplicitOperator::solveFromResidual(const std::vector<Vec3>& b, std::vector<Vec3>& x,
                                        std::vector<Vec3>& startResidual, int maxIterations, double tolerance,
                                        double* residual, double referenceNorm) const {
  return conjugateGradients(b, x, &startResidual, maxIterations, tolerance, residual, referenceNorm);
}

int ImplicitOperator::conjugateGradients(const std::vector<Vec3>& b, std::vector<Vec3>& x,
                                         std::vector<Vec3>* startResidual, int maxIterations, double tolerance,
                                         double* residual, double referenceNorm) const {
  if (tolerance >= kFloatBlocksTolerance && !mtFloat_.empty())
    return conjugateGradients(mtFloat_, b, x, startResidual, maxIterations, tolerance, residual, referenceNorm);
  return conjugateGradients(mt_, b, x, startResidual, maxIterations, tolerance, residual, referenceNorm);
}

template <class Block>
int ImplicitOperator::conjugateGradients(const std::vector<std::array<Block, kStencilSlots>>& blocks,
                                         const std::vector<Vec3>& b, std::vector<Vec3>& x,
                                         std::vector<Vec3>* startResidual, int maxIterations, double tolerance,
                                         double* residual, double referenceNorm) const {
  const std::vector<Stencil>& stencil = model_->atlas.stencil;
  const int n = int(b.size());
  std::vector<Vec3> r(n), z(n), p(n), ap(n);
  DiluPreconditioner::Sweep sweep;             // (the preconditioners' working vectors)
  MultigridPreconditioner::Workspace cycle;
  auto precondition = [&] {  // z = M^-1 r; returns r.z
    return dilu_.empty() ? multigrid_.apply(r, z, cycle) : dilu_.apply(r, z, sweep);
  };
  if (startResidual) r.swap(*startResidual);
  // r = b - Mt x (in double: the warm start's residual is exact)
  const Vec2 norms = orderedSum(n, Vec2(Vec2::Zero()), n > kParallelNodes, [&](int i) {
    if (!startResidual) r[i] = b[i] - stencilRow(stencil[i], mt_[i], x);
    return Vec2(b[i].squaredNorm(), r[i].squaredNorm());
  });
  double bb = norms[0], rr = norms[1];
  if (bb == 0) {
    std::fill(x.begin(), x.end(), Vec3::Zero());
    if (residual) *residual = 0;
    return 0;
  }
  bb = std::max(bb, referenceNorm * referenceNorm);  // (the scale the residual is measured against)
  int it = 0;
  if (rr > tolerance * tolerance * bb && maxIterations > 0) {
    double rz = precondition();
    p = z;
    while (it < maxIterations && rr > tolerance * tolerance * bb) {
      // ap = Mt p, pap = p . ap
      const double pap = orderedSum(n, 0.0, n > kParallelNodes, [&](int i) {
        ap[i] = stencilRow(stencil[i], blocks[i], p);
        return p[i].dot(ap[i]);
      });
      if (!(pap > 0)) break;  // not positive definite (or breakdown): stop with what we have
      const double alpha = rz / pap;
      // x += alpha p, r -= alpha ap; the new r.r; z = M^-1 r
      rr = orderedSum(n, 0.0, n > kParallelNodes, [&](int i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
        return r[i].squaredNorm();
      });
      ++it;
      // (the last iteration's z and p would not be used)
      if (it == maxIterations || !(rr > tolerance * tolerance * bb)) break;
      const double rzNew = precondition();
      const double beta = rzNew / rz;
      rz = rzNew;
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
      for (int i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
  }
  if (residual) *residual = std::sqrt(rr / bb);
  return it;
}

// The core's coupling columns at once: the direct solver per column, or kColumns block-Jacobi CG
// recurrences sharing one sweep over the stencil blocks per iteration (the sweep is
// bound by reading the 63 numbers of Mt_e per node; reading them once for six
// vectors instead of once per vector is what makes the coupling columns affordable at 256^2).
void ImplicitOperator::solveColumns(const std::vector<Columns>& b, std::vector<Columns>& x,
                                    int maxIterations, double tolerance) const {
  const BakedBody& m = *model_;
  const int n = int(b.size());
  Columns zero;
  zero.fill(Vec3::Zero());
  x.assign(n, zero);
  if (direct_ || !multigrid_.empty()) {
    // per column: the factor, or the multigrid's CG (20-30 iterations to 1e-12); should
    // one not get there in kMultigridColumnIterations, the block-Jacobi recurrences below
    // solve them all, however slowly
    std::vector<Vec3> col(n), out(n);
    bool solved = true;
    for (int c = 0; c < kColumns && solved; ++c) {
      for (int i = 0; i < n; ++i) col[i] = b[i][c];
      std::fill(out.begin(), out.end(), Vec3::Zero());
      double residual = 0;
      solve(col, out, std::min(maxIterations, kMultigridColumnIterations), tolerance, &residual);
      solved = residual <= tolerance;
      for (int i = 0; i < n; ++i) x[i][c] = out[i];
    }
    if (solved) return;
    std::fill(x.begin(), x.end(), zero);
  }
  using Block = Columns;
  auto multiply = [&](const std::vector<Block>& v, std::vector<Block>& y) {
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i) {
      const Stencil& st = m.atlas.stencil[i];
      Block acc;
      acc.fill(Vec3::Zero());
      for (int k = 0; k < kStencilSlots; ++k) {
        if (st[k] < 0) continue;
        const Mat3& a = mt_[i][k];
        const Block& vj = v[st[k]];
        for (int c = 0; c < kColumns; ++c) acc[c] += a * vj[c];
      }
      y[i] = acc;
    }
  };
  auto dots = [&](const std::vector<Block>& u, const std::vector<Block>& v) {
    std::array<double, kColumns> d{};
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < kColumns; ++c) d[c] += u[i][c].dot(v[i][c]);
    return d;
  };
  std::vector<Block> r = b, z(n), p(n), ap(n);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < kColumns; ++c) z[i][c] = diagInverse_[i] * r[i][c];
  p = z;
  std::array<double, kColumns> rz = dots(r, z), rr = dots(r, r), bb = rr;
  std::array<bool, kColumns> live{};
  for (int c = 0; c < kColumns; ++c) live[c] = bb[c] > 0 && rr[c] > tolerance * tolerance * bb[c];
  for (int it = 0; it < maxIterations; ++it) {
    bool any = false;
    for (bool l : live) any = any || l;
    if (!any) break;
    multiply(p, ap);
    const std::array<double, kColumns> pap = dots(p, ap);
    std::array<double, kColumns> alpha{};
    for (int c = 0; c < kColumns; ++c) {
      if (live[c] && !(pap[c] > 0)) live[c] = false;  // breakdown: keep what we have
      alpha[c] = live[c] ? rz[c] / pap[c] : 0.0;
    }
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < kColumns; ++c) {
        if (!live[c]) continue;
        x[i][c] += alpha[c] * p[i][c];
        r[i][c] -= alpha[c] * ap[i][c];
        z[i][c] = diagInverse_[i] * r[i][c];
      }
    const std::array<double, kColumns> rzNew = dots(r, z);
    rr = dots(r, r);
    for (int c = 0; c < kColumns; ++c) {
      if (!live[c]) continue;
      const double beta = rzNew[c] / rz[c];
      rz[c] = rzNew[c];
      for (int i = 0; i < n; ++i) p[i][c] = z[i][c] + beta * p[i][c];
      if (rr[c] <= tolerance * tolerance * bb[c]) live[c] = false;
    }
  }
}

ImplicitOperator::Key ImplicitOperator::keyFor(const BakedBody& model, const ElasticModel& elastic,
                                              const Material& material, double dt, SolverMethod method) {
  return {dt, method, material.alpha, material.beta, model.fingerprint, elastic.operatorVersion()};
}

// Mt_e = (1 + dt alpha) M_e + (dt beta + dt^2) K_e  (eq. 3.6 with D_e = alpha M_e + beta K_e),
// its inverse diagonal blocks, and the body-frame-constant columns of Y = Mt_e^-1 M_ec.
bool ImplicitOperator::prepare(const BakedBodyPtr& model, const ElasticModel& elastic, const Key& key) {
  if (key == key_ && model_) return false;
  model_ = model;
  key_ = key;
  const BakedBody& m = *model_;
  const StencilBlocks& K = elastic.operatorStiffness();
  const int n = m.nodeCount();
  const double dt = key.dt;
  const double c1 = 1 + dt * key.alpha;
  const double c2 = dt * key.beta + dt * dt;
  mt_.resize(n);
  mtFloat_.resize(n >= kFloatBlocksMinNodes ? n : 0);
  diagInverse_.resize(n);
  massNorm_ = 0;
  for (int i = 0; i < n; ++i) massNorm_ += m.nodeMass[i] * m.nodeMass[i];
  massNorm_ = std::sqrt(massNorm_);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < kStencilSlots; ++k) mt_[i][k] = c2 * K[i][k];
    mt_[i][0] += c1 * m.nodeMass[i] * Mat3::Identity();
    if (!mtFloat_.empty())
      for (int k = 0; k < kStencilSlots; ++k) mtFloat_[i][k] = mt_[i][k].cast<float>();
    diagInverse_[i] = mt_[i][0].inverse();
  }
  const ModalBasis* basis = m.morph ? m.morph->basis.get() : nullptr;
  const bool reduced = basis && key.method == SolverMethod::Auto;
  basis_ = reduced ? basis : nullptr;
  direct_ = reduced || key.method == SolverMethod::Direct || (key.method == SolverMethod::Auto && n <= kDirectMaxNodes);
  if (reduced) {
    ldlt_.reset();
    analyzed_ = {};
    dilu_ = DiluPreconditioner{};
    multigrid_ = MultigridPreconditioner{};
    reduce(elastic);
    ++version_;
    return true;
  }
  if (direct_) factor();
  else {
    ldlt_.reset();
    analyzed_ = {};
  }
  dilu_ = DiluPreconditioner{};
  multigrid_ = MultigridPreconditioner{};
  if (!direct_ && key.method == SolverMethod::CgDilu) dilu_.build(m.atlas.stencil, mt_);
  else if (!direct_) multigrid_.build(m.atlas.stencil, mt_);
  // translational columns: Mt_e^-1 [m_i I] (Y_t = W_t R^T), and rotational columns at
  // rest: Mt_e^-1 [-m_i [ub_i]x]; solved once, to 1e-12 (free fall and free flight are
  // exact whatever their accuracy: the same columns enter both sides of (3.8)-(3.9))
  std::vector<Columns> rhs(n), sol(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < kColumns; ++k) rhs[i][k] = Core::couplingColumn(k, m.nodeMass[i], m.restSkin[i], Mat3::Identity());
  solveColumns(rhs, sol, 20 * n + 100, 1e-12);
  wt_.resize(n);
  wr_.resize(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      wt_[i][k] = sol[i][k];
      wr_[i][k] = sol[i][3 + k];
    }
  ++version_;
  return true;
}

// The reduced solver (ch. 5.4): the Galerkin projection of Mt_e on the basis,
//   U^T Mt_e U = (1 + dt alpha) I + (dt beta + dt^2) U^T K_e U   (U^T M U = I),
// U^T K_e U from the elastic model's reduced coefficients (O(m r^2)) or else projected here
// (r products over the stencil); and the coupling columns W = U (U^T Mt_e U)^-1 U^T M_ec from
// the basis' projected U^T M_ec at rest.
void ImplicitOperator::reduce(const ElasticModel& elastic) {
  const Eigen::MatrixXd& U = basis_->U;
  const int n = model_->nodeCount(), r = int(U.cols());
  Eigen::MatrixXd kr;
  if (!elastic.projectedOperatorStiffness(*basis_, kr)) {
    Eigen::MatrixXd kU(3 * n, r);
    std::vector<Vec3> col(n), out;
    for (int l = 0; l < r; ++l) {
      for (int i = 0; i < n; ++i) col[i] = U.block<3, 1>(3 * i, l);
      multiplyStencil(model_->atlas.stencil, elastic.operatorStiffness(), col, out);
      for (int i = 0; i < n; ++i) kU.block<3, 1>(3 * i, l) = out[i];
    }
    kr = U.transpose() * kU;
    kr = 0.5 * (kr + kr.transpose()).eval();
  }
  reducedLlt_.compute((1 + key_.dt * key_.alpha) * Eigen::MatrixXd::Identity(r, r) +
                      (key_.dt * key_.beta + key_.dt * key_.dt) * kr);
  if (reducedLlt_.info() != Eigen::Success)
    throw std::runtime_error(model_->name + ": the reduced operator U^T Mt_e U is not positive definite");
  const Eigen::MatrixXd w = U * reducedLlt_.solve(basis_->coupling);  // (3n x 6)
  wt_.resize(n);
  wr_.resize(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      wt_[i][k] = w.block<3, 1>(3 * i, k);
      wr_[i][k] = w.block<3, 1>(3 * i, 3 + k);
    }
}

// The direct solver: Mt_e assembled from the stencil blocks and factored once.
void ImplicitOperator::factor() {
  const Eigen::SparseMatrix<double> a = stencilMatrix(model_->atlas.stencil, mt_);
  // the same pattern as the last factor (the same stencil, another dt or stiffness: a
  // morph target's pose): its ordering and symbolic analysis kept, the numbers refactored
  // (the analysis, NESDIS's nested dissection, is most of a small body's factorization)
  const auto samePattern = [&] {
    const Eigen::SparseMatrix<double>& p = analyzed_;
    return p.rows() == a.rows() && p.nonZeros() == a.nonZeros() &&
           std::equal(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1, p.outerIndexPtr()) &&
           std::equal(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros(), p.innerIndexPtr());
  };
  if (ldlt_ && samePattern()) {
    ldlt_->factorize(a);
    if (ldlt_->info() == Eigen::Success) return;
  }
  // CHOLMOD's simplicial LDL^T (its substitution walks up to 4 columns of L with one
  // pattern at once), ordered by its nested dissection (NESDIS, through METIS: less
  // fill than its default AMD), AMD where NESDIS is not available
  // (docs/decisions/0002-direct-solver-cholmod-nesdis.md).
  for (const bool nested : {true, false}) {
    ldlt_ = std::make_unique<Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>>>();
    if (nested) {
      ldlt_->cholmod().nmethods = 1;
      ldlt_->cholmod().method[0].ordering = CHOLMOD_NESDIS;
    }
    ldlt_->compute(a);
    if (ldlt_->info() == Eigen::Success) break;
  }
  if (ldlt_->info() != Eigen::Success) {
    direct_ = false;  // not positive definite in floating point: fall back to CG
    ldlt_.reset();
    analyzed_ = {};
    return;
  }
  analyzed_ = a;
}

// The y solve, warm-started by projection (Fischer, "Projection techniques for
// iterative solution of Ax = b with successive right-hand sides", 1998): Mt_e is
// constant in the body frame and the right-hand side changes little from step to
// step, so the start x0 = sum_a c_a y_a over the last kWarmStartHistory solutions
// y_a, with c the Galerkin solution of (Y^T A Y) c = Y^T b, is the A-norm-best start
// in their span; the plain warm start (the last solution) is in that span. The
// products A y_a cost no extra sweep: the newest comes from the pass that computed
// the warm start's residual before (in double, exact), the older ones are kept
// (docs/decisions/0005-cg-warm-start-projection.md).
int ProjectedWarmStart::solve(const ImplicitOperator& op, const std::vector<Vec3>& b, int maxIterations,
                              double tolerance, double referenceNorm, double* residual) {
  const int n = int(b.size());
  std::vector<Vec3>& x = h_.y;
  std::vector<std::vector<Vec3>>& sols = h_.solutions;
  std::vector<std::vector<Vec3>>& prods = h_.products;
  if (opVersion_ != op.version()) {  // (solutions of another Mt_e)
    sols.clear();
    prods.clear();
    opVersion_ = op.version();
  }
  if (op.direct() || sols.empty() || sols[0].size() != size_t(n)) {
    sols.clear();
    prods.clear();
    const int it = op.solve(b, x, maxIterations, tolerance, residual, referenceNorm);
    if (!op.direct()) sols.push_back(x);
    return it;
  }
  const StencilBlocks& mt = op.blocks();
  const int k = int(sols.size());
  // the newest solution's product, in double
  prods.emplace(prods.begin(), n);
  {
    std::vector<Vec3>& ay = prods[0];
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i) ay[i] = stencilRow(op.stencil()[i], mt[i], sols[0]);
  }
  // Galerkin system G c = f, G_ab = y_a . A y_b, f_a = y_a . b (one pass)
  constexpr int H = kWarmStartHistory;
  double g[H][H] = {}, f[H] = {};
  {
    using Sums = Eigen::Matrix<double, H * H + H, 1>;
    const Sums sums = orderedSum(n, Sums(Sums::Zero()), n > kParallelNodes, [&](int i) {
      Sums s = Sums::Zero();
      for (int a = 0; a < k; ++a) {
        s[H * H + a] = sols[a][i].dot(b[i]);
        for (int c = a; c < k; ++c) s[a * H + c] = sols[a][i].dot(prods[c][i]);
      }
      return s;
    });
    for (int a = 0; a < k; ++a) {
      f[a] = sums[H * H + a];
      for (int c = a; c < k; ++c) g[a][c] = g[c][a] = sums[a * H + c];
    }
  }
  Eigen::MatrixXd G(k, k);
  Eigen::VectorXd F(k);
  for (int a = 0; a < k; ++a) {
    F[a] = f[a];
    for (int c = 0; c < k; ++c) G(a, c) = g[a][c];
  }
  // (the solutions are nearly parallel at rest: G is near singular, hence the
  // rank-revealing solve)
  Eigen::VectorXd c = G.completeOrthogonalDecomposition().solve(F);
  if (!c.allFinite()) c = Eigen::VectorXd::Unit(k, 0);
  std::vector<Vec3> r(n);
  x.resize(n);
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    Vec3 xi = Vec3::Zero(), ai = Vec3::Zero();
    for (int a = 0; a < k; ++a) {
      xi += c[a] * sols[a][i];
      ai += c[a] * prods[a][i];
    }
    x[i] = xi;
    r[i] = b[i] - ai;
  }
  const int it = op.solveFromResidual(b, x, r, maxIterations, tolerance, residual, referenceNorm);
  // the new solution joins the history (its product is formed at the next solve)
  if (k == H) {
    sols.pop_back();
    prods.pop_back();
  }
  sols.insert(sols.begin(), x);
  return it;
}

void ProjectedWarmStart::reset(int nodeCount) {
  h_ = History{};
  h_.y.assign(size_t(nodeCount), Vec3::Zero());
}

}  // namespace d2t
