// LayeredBody, the CPU reference of one body's step (layered_body.h). Sections:
//   lifetime             resetToDesc, resolveSprings, replaceModel
//   kinematics           node positions and velocities, maxDisplacement
//   the skin's mirror    pullSkin / pullNodes (reads from a backend that holds the skin),
//                        saveGood / restoreGood, the moments and the summary
//   sparse products      the 7-slot stencil: multiplyK, multiplyMt; CG with DILU (solveMt,
//                        conjugateGradients), the projected warm start (solveY), solveMt6,
//                        prepare (Mt_e, its factor, the cached coupling columns)
//   the step (Fig. 3.5)  rigid impulses, M_c; springs (solveCore, eq. 3.8 with springs);
//                        the drag spring; startStep / integrateStep (World::step calls them); the contact
//                        support; integrateFree (steps 1-5)
//   CPU reference        CpuSkinResponse: the response's passes over nodes and rows
//   the response         withResponse (backend or CPU), respond (6-13), respondThrough
//                        (9-13: rows, SMW rounds, impulse, energy guard, friction, apply),
//                        correct (15)

#include "sim/body/layered_body.h"

#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "sim/contact/patch_friction.h"

namespace d2t {

namespace {

// parallel loops only pay off for large atlases (and stall when oversubscribed)
constexpr int kParallelNodes = 8192;
static_assert(sizeof(Vec3) == 3 * sizeof(double), "node arrays are mapped as flat 3n vectors");

Mat3 rotation(const Quat& q) { return q.toRotationMatrix(); }

}  // namespace

LayeredBody::LayeredBody(BakedBodyPtr model, const BodyDesc& desc)
    : model_(std::move(model)), desc_(desc) {
  resetToDesc();
}

void LayeredBody::resetToDesc() {
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  state_ = LayeredState{};
  solverHoldsSkin_ = false;
  mirrorStale_ = startStale_ = false;
  pulledAt_.assign(size_t(n), -1);
  previousContacts_ = 0;

  state_.orientation = desc_.orientation;
  // the scene places the shape's origin; the body frame sits at comOffset in the shape frame
  state_.position = desc_.position + desc_.orientation * m.comOffset;
  state_.angularVelocity = desc_.orientation.conjugate() * desc_.angularVelocity;
  // the scene's velocity is that of the body's centre of mass: cdot = v - R (w x S_t / m)
  const Vec3 comBody = m.totalCom;
  state_.velocity = desc_.velocity - desc_.orientation * state_.angularVelocity.cross(comBody);
  state_.q.assign(n, Vec3::Zero());
  state_.qdot.assign(n, Vec3::Zero());
  y_.assign(n, Vec3::Zero());
  history_.clear();
  historyProduct_.clear();
  drag_ = DragSpring{};
  dragImpulse_.setZero();
  resolveSprings();
}

void LayeredBody::resolveSprings() {
  springs_.clear();
  for (const CoreSpringDesc& d : desc_.springs) {
    CoreSpring k;
    // the body frame's origin sits at comOffset in the shape frame, axes aligned
    k.point = d.frame == SpringFrame::Body ? Vec3(d.point + model_->comOffset) : d.point;
    k.anchor = d.hasAnchor ? d.anchor : Vec3(desc_.position + desc_.orientation * k.point);
    k.stiffness = d.stiffness;
    k.damping = d.damping;
    k.restLength = d.restLength;
    springs_.push_back(k);
  }
}

void LayeredBody::replaceModel(BakedBodyPtr model, const BodyDesc& desc) {
  if (model->nodeCount() != model_->nodeCount())
    throw std::invalid_argument("replaceModel: the new model has another atlas");
  // the body frame moves with the centre of mass by d (body frame); rest points
  // move by -d, so c + R (ub + q) is unchanged when c moves by R d
  const Vec3 d = model->comOffset - model_->comOffset;
  if (mirrorStale_) pullSkin();  // (the skin keeps its displacements)
  const Vec3 shift = state_.orientation * d;
  state_.position += shift;
  state_.velocity += (state_.orientation * state_.angularVelocity).cross(shift);
  model_ = std::move(model);
  desc_ = desc;
  solverHoldsSkin_ = false;  // (the solver's copy was the old model's)
  preparedDt_ = -1;  // Mt_e, its factor and the coupling columns are rebuilt at the next step
  y_.assign(size_t(model_->nodeCount()), Vec3::Zero());
  history_.clear();
  historyProduct_.clear();
}

// ---- kinematics -------------------------------------------------------------------------------

double LayeredBody::maxDisplacement() const {
  if (mirrorStale_ && skinResident()) {  // (the solver's summary pass, not the whole skin back)
    if (SkinResponse* r = freeSolver_->response()) {
      try {
        return r->maxDisplacement(*this, state_);
      } catch (const std::exception& e) {
        dropSolver(e.what());
      }
    }
  }
  double m = 0;
  for (const Vec3& q : state().q) m = std::max(m, q.squaredNorm());
  return std::sqrt(m);
}

Vec3 LayeredBody::nodePosition(int i) const { return state_.position + state_.orientation * nodeLocal(i); }

Vec3 LayeredBody::nodeLocal(int i) const { return model_->restSkin[size_t(i)] + qAt(i); }

Vec3 LayeredBody::nodeVelocity(int i) const {
  const Vec3 u = model_->restSkin[i] + qAt(i);
  return state_.velocity + state_.orientation * (state_.angularVelocity.cross(u) + qdotAt(i));
}

// ---- the skin's mirror -------------------------------------------------------------------------

void LayeredBody::pullSkin() const {
  try {
    freeSolver_->readSkin(*this, state_);
    mirrorStale_ = false;
  } catch (const std::exception& e) {
    dropSolver(e.what());
  }
}

void LayeredBody::pullNodes(const std::vector<int>& nodes) const {
  if (!mirrorStale_) return;
  std::vector<int> wanted;
  for (int i : nodes)
    if (pulledAt_[size_t(i)] != skinVersion_) {
      pulledAt_[size_t(i)] = skinVersion_;  // (also marks a node listed twice)
      wanted.push_back(i);
    }
  if (wanted.empty()) return;
  try {
    freeSolver_->readNodes(*this, wanted, state_);
  } catch (const std::exception& e) {
    dropSolver(e.what());
  }
}

void LayeredBody::dropSolver(const std::string& why) const {
  backendFailure_ = why;
  if (mirrorStale_ || startStale_) {
    const size_t n = size_t(nodeCount());
    for (LayeredState* s : {&state_, &start_}) {
      s->q.assign(n, Vec3::Zero());
      s->qdot.assign(n, Vec3::Zero());
    }
    backendFailure_ += "; the skin's state was on the GPU only: the skin restarts at rest";
  }
  mirrorStale_ = startStale_ = false;
  freeSolver_.reset();
  solverHoldsSkin_ = false;
}

LayeredBody::Snapshot LayeredBody::snapshot() const {
  return {model_->fingerprint, preparedDt_, preparedMethod_, state(), supported_, y_, history_, historyProduct_,
          previousContacts_, drag_};
}

void LayeredBody::restore(const Snapshot& snap) {
  if (snap.model != model_->fingerprint)
    throw std::invalid_argument("LayeredBody::restore: body '" + desc_.name +
                                "': the snapshot was taken with another model (its material changed since)");
  if (snap.dt > 0 && (snap.dt != preparedDt_ || snap.method != preparedMethod_)) {
    // the operators the warm starts below belong to (prepare() would drop them)
    const SolverMethod method = settings_.method;
    settings_.method = snap.method;
    prepare(snap.dt);
    settings_.method = method;
  }
  editState() = snap.state;  // (the solver's copy of the skin is stale from here)
  supported_ = snap.supported;
  buildSupportLoad();
  y_ = snap.y;
  history_ = snap.history;
  historyProduct_ = snap.historyProduct;
  previousContacts_ = snap.previousContacts;
  drag_ = snap.drag;
}

void LayeredBody::saveGood() {
  if (skinResident()) {
    try {
      freeSolver_->saveGood(*this);
      static_cast<CoreState&>(good_) = state_;
      good_.touching = state_.touching;
      goodOnSolver_ = true;
      return;
    } catch (const std::exception& e) {
      dropSolver(e.what());
    }
  }
  good_ = state();
  goodOnSolver_ = false;
}

void LayeredBody::restoreGood() {
  const bool lost = goodOnSolver_ && !(freeSolver_ && freeSolver_->holds(*this));
  static_cast<CoreState&>(state_) = good_;
  state_.touching = good_.touching;
  state_.velocity.setZero();
  state_.angularVelocity.setZero();
  if (goodOnSolver_ && !lost) {
    try {
      freeSolver_->restoreGood(*this);
      solverHoldsSkin_ = true;
      skinChangedOnSolver();
      return;
    } catch (const std::exception& e) {
      dropSolver(e.what());
    }
  }
  const size_t n = size_t(nodeCount());
  if (goodOnSolver_)  // (its skin was on a solver that is gone: at rest)
    state_.q.assign(n, Vec3::Zero());
  else
    state_.q = good_.q;
  state_.qdot.assign(n, Vec3::Zero());
  mirrorStale_ = false;
  solverHoldsSkin_ = false;
}

SkinSummary LayeredBody::skinMoments() const {
  if (mirrorStale_) {
    if (momentsVersion_ == skinVersion_) return moments_;
    try {
      moments_ = freeSolver_->moments(*this);
      momentsVersion_ = skinVersion_;
      return moments_;
    } catch (const std::exception& e) {
      dropSolver(e.what());
    }
  }
  const BakedBody& m = *model_;
  SkinSummary s;
  for (int i = 0; i < m.nodeCount(); ++i) {
    s.mu += m.nodeMass[i] * (m.restSkin[i] + state_.q[i]);
    s.mqdot += m.nodeMass[i] * state_.qdot[i];
  }
  return s;
}

Vec3 LayeredBody::centerOfMass() const { return centerOfMass(skinMoments()); }

Vec3 LayeredBody::linearMomentum() const { return linearMomentum(skinMoments()); }

Vec3 LayeredBody::angularMomentum(const Vec3& about) const {
  const BakedBody& m = *model_;
  const Mat3 R = rotation(state_.orientation);
  // core: spin about its own com (the body origin) + orbital term of the core mass
  Vec3 l = R * (m.coreInertia * state_.angularVelocity) +
           m.coreMass * (state_.position - about).cross(state_.velocity);
  for (int i = 0; i < m.nodeCount(); ++i)
    l += m.nodeMass[i] * (nodePosition(i) - about).cross(nodeVelocity(i));
  return l;
}

SkinSummary LayeredBody::skinSummary(const Vec3& up) const {
  return CpuSkinResponse().summarize(*this, state(), up);
}

SkinSummary LayeredBody::summarize(const Vec3& up, Profile& profile) {
  if (skinResident()) {
    if (SkinResponse* r = freeSolver_->response()) {
      try {
        const SkinSummary s = r->summarize(*this, state_, up);
        r->takeTimes(profile);
        return s;
      } catch (const std::exception& e) {
        dropSolver(e.what());
      }
    }
  }
  return skinSummary(up);
}

// com = c + R sum m_i u_i / m (the core's centre of mass is the body origin)
Vec3 LayeredBody::centerOfMass(const SkinSummary& s) const {
  return state_.position + state_.orientation * (s.mu / model_->totalMass);
}

// P = m cdot + R (w x sum m_i u_i + sum m_i qdot_i)
Vec3 LayeredBody::linearMomentum(const SkinSummary& s) const {
  return model_->totalMass * state_.velocity + state_.orientation * (state_.angularVelocity.cross(s.mu) + s.mqdot);
}

// The skin's sum m_i |vb + w x u_i + qdot_i|^2 (body frame, vb = R^T cdot), expanded over
// the summary's sums: |w x u|^2 = |w|^2 |u|^2 - (w . u)^2, (w x u) . qdot = w . (u x qdot).
double LayeredBody::kineticEnergy(const SkinSummary& s) const {
  const BakedBody& m = *model_;
  const Vec3 vb = state_.orientation.conjugate() * state_.velocity;
  const Vec3& w = state_.angularVelocity;
  const double skin = (m.totalMass - m.coreMass) * vb.squaredNorm() + 2 * vb.dot(w.cross(s.mu) + s.mqdot) +
                      w.squaredNorm() * s.muu.trace() - w.dot(s.muu * w) + 2 * w.dot(s.muxqdot) + s.mqdot2;
  return 0.5 * (m.coreMass * state_.velocity.squaredNorm() + w.dot(m.coreInertia * w) + skin);
}

// -g . (m c + R sum_i m_i u_i)
double LayeredBody::gravitationalEnergy(const SkinSummary& s, const Vec3& g) const {
  return -model_->totalMass * g.dot(state_.position) - (state_.orientation.conjugate() * g).dot(s.mu);
}

// ---- sparse products over the 7-slot stencil ---------------------------------------------------

namespace {

// row i of a stencil product, sum over the 7 slots of block(i, slot) x_(node read by the slot);
// float blocks are widened to double for the product
template <class Block, class Nodes>
Vec3 stencilRow(const Stencil& st, const std::array<Block, kStencilSlots>& blocks, const Nodes& x) {
  Vec3 s = Vec3::Zero();
  for (int k = 0; k < kStencilSlots; ++k)
    if (st[k] >= 0) s += blocks[k].template cast<double>() * x[st[k]];
  return s;
}

// y = the whole stencil product
void stencilProduct(const BakedBody& m, const std::vector<std::array<Mat3, kStencilSlots>>& blocks,
                    const std::vector<Vec3>& x, std::vector<Vec3>& y) {
  const int n = m.nodeCount();
  y.resize(n);
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) y[i] = stencilRow(m.atlas.stencil[i], blocks[i], x);
}

}  // namespace

void LayeredBody::multiplyK(const std::vector<Vec3>& x, std::vector<Vec3>& y) const {
  stencilProduct(*model_, model_->stiffness, x, y);
}

void LayeredBody::multiplyMt(const std::vector<Vec3>& x, std::vector<Vec3>& y) const {
  stencilProduct(*model_, mt_, x, y);
}

// Preconditioned conjugate gradients on Mt_e x = b (symmetric positive definite),
// block DILU preconditioner (dilu_preconditioner.h), warm start from x. One iteration
// is the product A p with p.Ap, the update of x and r with r.r, the preconditioner's
// two sweeps with r.z, and the update of p. The product is bound by the 7 blocks of
// Mt_e per node: above kFloatBlocksTolerance, in bodies too big for the cache
// (kFloatBlocksMinNodes), it reads them in float (252 instead of 504 bytes per node);
// vectors and sums stay double (docs/decisions/0003-cg-float-blocks.md).
int LayeredBody::solveMt(const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations,
                         double tolerance, double* residual, double referenceNorm) const {
  const int n = int(b.size());
  x.resize(n, Vec3::Zero());
  if (direct_) {
    Eigen::Map<const Eigen::VectorXd> bv(b[0].data(), 3 * n);
    Eigen::Map<Eigen::VectorXd> xv(x[0].data(), 3 * n);
    xv = ldlt_->solve(bv);
    if (residual) *residual = 0;
    return 0;
  }
  return conjugateGradients(b, x, nullptr, maxIterations, tolerance, residual, referenceNorm);
}

int LayeredBody::conjugateGradients(const std::vector<Vec3>& b, std::vector<Vec3>& x,
                                    std::vector<Vec3>* startResidual, int maxIterations, double tolerance,
                                    double* residual, double referenceNorm) const {
  if (tolerance >= kFloatBlocksTolerance && !mtFloat_.empty())
    return conjugateGradients(mtFloat_, b, x, startResidual, maxIterations, tolerance, residual, referenceNorm);
  return conjugateGradients(mt_, b, x, startResidual, maxIterations, tolerance, residual, referenceNorm);
}

template <class Block>
int LayeredBody::conjugateGradients(const std::vector<std::array<Block, kStencilSlots>>& blocks,
                                    const std::vector<Vec3>& b, std::vector<Vec3>& x,
                                    std::vector<Vec3>* startResidual, int maxIterations, double tolerance,
                                    double* residual, double referenceNorm) const {
  const std::vector<Stencil>& stencil = model_->atlas.stencil;
  const int n = int(b.size());
  std::vector<Vec3> r(n), z(n), p(n), ap(n);
  if (startResidual) r.swap(*startResidual);
  // r = b - Mt x (in double: the warm start's residual is exact)
  double bb = 0, rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : bb, rr) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    if (!startResidual) r[i] = b[i] - stencilRow(stencil[i], mt_[i], x);
    bb += b[i].squaredNorm();
    rr += r[i].squaredNorm();
  }
  if (bb == 0) {
    std::fill(x.begin(), x.end(), Vec3::Zero());
    if (residual) *residual = 0;
    return 0;
  }
  bb = std::max(bb, referenceNorm * referenceNorm);  // (the scale the residual is measured against)
  int it = 0;
  if (rr > tolerance * tolerance * bb && maxIterations > 0) {
    double rz = dilu_.apply(r, z);
    p = z;
    while (it < maxIterations && rr > tolerance * tolerance * bb) {
      // ap = Mt p, pap = p . ap
      double pap = 0;
#pragma omp parallel for schedule(static) reduction(+ : pap) if (n > kParallelNodes)
      for (int i = 0; i < n; ++i) {
        ap[i] = stencilRow(stencil[i], blocks[i], p);
        pap += p[i].dot(ap[i]);
      }
      if (!(pap > 0)) break;  // not positive definite (or breakdown): stop with what we have
      const double alpha = rz / pap;
      // x += alpha p, r -= alpha ap; the new r.r; z = M^-1 r
      rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr) if (n > kParallelNodes)
      for (int i = 0; i < n; ++i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
        rr += r[i].squaredNorm();
      }
      ++it;
      // (the last iteration's z and p would not be used)
      if (it == maxIterations || !(rr > tolerance * tolerance * bb)) break;
      const double rzNew = dilu_.apply(r, z);
      const double beta = rzNew / rz;
      rz = rzNew;
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
      for (int i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
  }
  if (residual) *residual = std::sqrt(rr / bb);
  return it;
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
int LayeredBody::solveY(const std::vector<Vec3>& b, double referenceNorm, double* residual) {
  const int n = int(b.size());
  std::vector<Vec3>& x = y_;
  if (direct_ || history_.empty() || history_[0].size() != size_t(n)) {
    history_.clear();
    historyProduct_.clear();
    const int it = solveMt(b, x, settings_.cgIterations, settings_.cgTolerance, residual, referenceNorm);
    if (!direct_) history_.push_back(x);
    return it;
  }
  const std::vector<Stencil>& stencil = model_->atlas.stencil;
  const int k = int(history_.size());
  // the newest solution's product, in double
  historyProduct_.emplace(historyProduct_.begin(), n);
  {
    std::vector<Vec3>& ay = historyProduct_[0];
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i) ay[i] = stencilRow(stencil[i], mt_[i], history_[0]);
  }
  // Galerkin system G c = f, G_ab = y_a . A y_b, f_a = y_a . b (one pass)
  constexpr int H = kWarmStartHistory;
  double g[H][H] = {}, f[H] = {};
  {
    double sums[H * H + H] = {};
#pragma omp parallel for schedule(static) reduction(+ : sums[:H * H + H]) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i)
      for (int a = 0; a < k; ++a) {
        sums[H * H + a] += history_[a][i].dot(b[i]);
        for (int c = a; c < k; ++c) sums[a * H + c] += history_[a][i].dot(historyProduct_[c][i]);
      }
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
      xi += c[a] * history_[a][i];
      ai += c[a] * historyProduct_[a][i];
    }
    x[i] = xi;
    r[i] = b[i] - ai;
  }
  const int it =
      conjugateGradients(b, x, &r, settings_.cgIterations, settings_.cgTolerance, residual, referenceNorm);
  // the new solution joins the history (its product is formed at the next solve)
  if (k == H) {
    history_.pop_back();
    historyProduct_.pop_back();
  }
  history_.insert(history_.begin(), x);
  return it;
}

// Six right-hand sides at once: the direct solver per column, or six block-Jacobi CG
// recurrences sharing one sweep over the stencil blocks per iteration (the sweep is
// bound by reading the 63 numbers of Mt_e per node; reading them once for six
// vectors instead of six times is what makes the coupling columns affordable at 256^2).
void LayeredBody::solveMt6(const std::vector<std::array<Vec3, 6>>& b, std::vector<std::array<Vec3, 6>>& x,
                           int maxIterations, double tolerance) const {
  const BakedBody& m = *model_;
  const int n = int(b.size());
  x.assign(n, {});
  for (auto& xi : x) xi.fill(Vec3::Zero());
  if (direct_) {
    std::vector<Vec3> col(n), out(n);
    for (int c = 0; c < 6; ++c) {
      for (int i = 0; i < n; ++i) col[i] = b[i][c];
      solveMt(col, out, 0, 0, nullptr);
      for (int i = 0; i < n; ++i) x[i][c] = out[i];
    }
    return;
  }
  using Block = std::array<Vec3, 6>;
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
        for (int c = 0; c < 6; ++c) acc[c] += a * vj[c];
      }
      y[i] = acc;
    }
  };
  auto dots = [&](const std::vector<Block>& u, const std::vector<Block>& v) {
    std::array<double, 6> d{};
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 6; ++c) d[c] += u[i][c].dot(v[i][c]);
    return d;
  };
  std::vector<Block> r = b, z(n), p(n), ap(n);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 6; ++c) z[i][c] = mtDiagInverse_[i] * r[i][c];
  p = z;
  std::array<double, 6> rz = dots(r, z), rr = dots(r, r), bb = rr;
  std::array<bool, 6> live{};
  for (int c = 0; c < 6; ++c) live[c] = bb[c] > 0 && rr[c] > tolerance * tolerance * bb[c];
  for (int it = 0; it < maxIterations; ++it) {
    bool any = false;
    for (bool l : live) any = any || l;
    if (!any) break;
    multiply(p, ap);
    const std::array<double, 6> pap = dots(p, ap);
    std::array<double, 6> alpha{};
    for (int c = 0; c < 6; ++c) {
      if (live[c] && !(pap[c] > 0)) live[c] = false;  // breakdown: keep what we have
      alpha[c] = live[c] ? rz[c] / pap[c] : 0.0;
    }
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 6; ++c) {
        if (!live[c]) continue;
        x[i][c] += alpha[c] * p[i][c];
        r[i][c] -= alpha[c] * ap[i][c];
        z[i][c] = mtDiagInverse_[i] * r[i][c];
      }
    const std::array<double, 6> rzNew = dots(r, z);
    rr = dots(r, r);
    for (int c = 0; c < 6; ++c) {
      if (!live[c]) continue;
      const double beta = rzNew[c] / rz[c];
      rz[c] = rzNew[c];
      for (int i = 0; i < n; ++i) p[i][c] = z[i][c] + beta * p[i][c];
      if (rr[c] <= tolerance * tolerance * bb[c]) live[c] = false;
    }
  }
}

// Mt_e = (1 + dt alpha) M_e + (dt beta + dt^2) K_e  (eq. 3.6 with D_e = alpha M_e + beta K_e),
// its inverse diagonal blocks, and the body-frame-constant columns of Y = Mt_e^-1 M_ec.
void LayeredBody::prepare(double dt) {
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  const double c1 = 1 + dt * desc_.material.alpha;
  const double c2 = dt * desc_.material.beta + dt * dt;
  mt_.resize(n);
  mtFloat_.resize(n >= kFloatBlocksMinNodes ? n : 0);
  mtDiagInverse_.resize(n);
  massNorm_ = 0;
  for (int i = 0; i < n; ++i) massNorm_ += m.nodeMass[i] * m.nodeMass[i];
  massNorm_ = std::sqrt(massNorm_);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < kStencilSlots; ++k) mt_[i][k] = c2 * m.stiffness[i][k];
    mt_[i][0] += c1 * m.nodeMass[i] * Mat3::Identity();
    if (!mtFloat_.empty())
      for (int k = 0; k < kStencilSlots; ++k) mtFloat_[i][k] = mt_[i][k].cast<float>();
    mtDiagInverse_[i] = mt_[i][0].inverse();
  }
  // the direct solver: Mt_e assembled from the stencil blocks and factored once
  direct_ = settings_.method == SolverMethod::Direct ||
            (settings_.method == SolverMethod::Auto && n <= kDirectMaxNodes);
  ldlt_.reset();
  if (direct_) {
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(size_t(n) * kStencilSlots * 9);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < kStencilSlots; ++k) {
        const int j = m.atlas.stencil[i][k];
        if (j < 0) continue;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            if (mt_[i][k](r, c) != 0) t.emplace_back(3 * i + r, 3 * j + c, mt_[i][k](r, c));
      }
    Eigen::SparseMatrix<double> a(3 * n, 3 * n);
    a.setFromTriplets(t.begin(), t.end());
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
    }
  }
  dilu_ = DiluPreconditioner{};
  if (!direct_) dilu_.build(m.atlas.stencil, mt_);
  history_.clear();  // (solutions of another Mt_e)
  historyProduct_.clear();
  preparedMethod_ = settings_.method;
  // translational columns: Mt_e^-1 [m_i I] (Y_t = W_t R^T), and rotational columns at
  // rest: Mt_e^-1 [-m_i [ub_i]x]; solved once, to 1e-12 (free fall and free flight are
  // exact whatever their accuracy: the same columns enter both sides of (3.8)-(3.9))
  std::vector<std::array<Vec3, 6>> rhs(n), sol(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k);
      rhs[i][k] = m.nodeMass[i] * e;
      rhs[i][3 + k] = -m.nodeMass[i] * m.restSkin[i].cross(e);
    }
  solveMt6(rhs, sol, 20 * n + 100, 1e-12);
  wt_.resize(n);
  wr_.resize(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      wt_[i][k] = sol[i][k];
      wr_[i][k] = sol[i][3 + k];
    }
  preparedDt_ = dt;
  ++preparedVersion_;
}

// ---- the step (Fig. 3.5) ----------------------------------------------------------------------

void LayeredBody::applyRigidImpulse(const Vec3& impulse, const Vec3& at) {
  const Mat3 R = rotation(state_.orientation);
  const Mat3 invI = R * model_->totalInertia.inverse() * R.transpose();
  changeRigidVelocity(impulse / model_->totalMass, invI * (at - centerOfMass()).cross(impulse));
}

void LayeredBody::changeRigidVelocity(const Vec3& dvCom, const Vec3& dw, double moveDt) {
  // the same rigid velocity change in the generalised coordinates: qdot unchanged
  const Vec3 dv = dvCom + dw.cross(state_.position - centerOfMass());
  const Vec3 dwBody = rotation(state_.orientation).transpose() * dw;
  state_.velocity += dv;
  state_.angularVelocity += dwBody;
  if (moveDt > 0) {
    state_.position += moveDt * dv;
    state_.orientation = integrateBodyRotation(state_.orientation, dwBody, moveDt);
  }
}

Mat6 LayeredBody::coreMassMatrix() const {
  const BakedBody& m = *model_;
  Vec3 St = Vec3::Zero();
  Mat3 Muu = Mat3::Zero();
  for (int i = 0; i < m.nodeCount(); ++i) {
    const Vec3 u = m.restSkin[i] + state().q[i];
    St += m.nodeMass[i] * u;
    const Mat3 ux = skew(u);
    Muu += m.nodeMass[i] * ux.transpose() * ux;
  }
  const Mat3 R = rotation(state_.orientation);
  Mat6 Mc;
  Mc.block<3, 3>(0, 0) = m.totalMass * Mat3::Identity();
  Mc.block<3, 3>(0, 3) = -R * skew(St);
  Mc.block<3, 3>(3, 0) = skew(St) * R.transpose();
  Mc.block<3, 3>(3, 3) = m.coreInertia + Muu;
  return Mc;
}


// ---- springs ----------------------------------------------------------------------------------

namespace {

// One core spring at the current state: the point's world offset r from c and its
// velocity, the force f_s and its stiffness K_s = -df_s/dp (world).
//   f_s = -k (|d| - L) d^ - c pdot,  d = p - anchor
//   K_s = k [d^ d^T + max(0, 1 - L/|d|) (I - d^ d^T)]
// J = [I, -R [rb]x] maps (cdot, omega) to pdot, rb the point in the body frame
// (the transverse term is dropped where the spring is compressed, |d| < L: it would
// make the matrix indefinite; L = 0 gives K_s = k I).
using Mat36 = Eigen::Matrix<double, 3, 6>;

struct SpringAt {
  Mat36 J = Mat36::Zero();
  Vec3 pdot = Vec3::Zero();
  Vec3 force = Vec3::Zero();
  Mat3 Ks = Mat3::Zero();
};

SpringAt springAt(const CoreSpring& k, const LayeredState& s, const Mat3& R, const Vec3& comOffset, double dt) {
  SpringAt a;
  const Vec3 rb = k.point - comOffset;  // body frame, from c
  const Vec3& w = s.angularVelocity;
  a.J.leftCols<3>() = Mat3::Identity();
  a.J.rightCols<3>() = -R * skew(rb);
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

Vec6 LayeredBody::solveCore(const Mat6& Mcond, const Vec6& rhs, double dt, FreeStepResult* result) const {
  const LayeredState& s = state_;
  const Mat3 R = rotation(s.orientation);
  // Linearised backward Euler of a force f(p, pdot) on a core point, pdot = J v_c:
  //   f(t + dt) ~ f_s - K_s dt pdot(t + dt) - c (pdot(t + dt) - pdot(t))
  // (p(t + dt) = p + dt pdot(t + dt)); its generalised impulse dt J^T f(t + dt) moves
  // the dv_c terms to the left-hand side of (3.8):
  //   [Mcond + J^T (dt c + dt^2 K_s) J] dv_c = rhs + dt J^T (f_s - dt K_s pdot)
  Mat6 A = Mcond;
  Vec6 b = rhs;
  std::vector<SpringAt> at;
  at.reserve(springs_.size());
  for (const CoreSpring& k : springs_) {
    at.push_back(springAt(k, s, R, model_->comOffset, dt));
    const SpringAt& a = at.back();
    const Mat3 H = dt * k.damping * Mat3::Identity() + dt * dt * a.Ks;
    A += a.J.transpose() * H * a.J;
    b += dt * a.J.transpose() * (a.force - dt * a.Ks * a.pdot);
  }
  const Vec6 dvc = A.partialPivLu().solve(b);
  // the springs' impulse over the step: dt f(t + dt) with the solved velocities
  Vec3 impulse = Vec3::Zero();
  for (size_t j = 0; j < springs_.size(); ++j) {
    const SpringAt& a = at[j];
    const Vec3 pdot1 = a.pdot + a.J * dvc;
    impulse += dt * (a.force - dt * a.Ks * pdot1 - springs_[j].damping * (pdot1 - a.pdot));
  }
  if (result) {
    result->condensedMass = A;
    result->springImpulse = impulse;
  }
  return dvc;
}

double LayeredBody::springEnergy() const {
  const Mat3 R = rotation(state_.orientation);
  double e = 0;
  for (const CoreSpring& k : springs_) {
    const double len = (state_.position + R * (k.point - model_->comOffset) - k.anchor).norm();
    e += 0.5 * k.stiffness * (len - k.restLength) * (len - k.restLength);
  }
  if (dragging()) e += 0.5 * drag_.stiffness * (nodePosition(drag_.node) - drag_.target).squaredNorm();
  return e;
}

void LayeredBody::beginDrag(int node, const Vec3& target, double stiffness, double damping) {
  const BakedBody& m = *model_;
  if (node < 0 || node >= m.nodeCount())
    throw std::out_of_range("beginDrag: node " + std::to_string(node) + " is not a node of this body (" +
                            std::to_string(m.nodeCount()) + " nodes)");
  if (!target.allFinite()) throw std::invalid_argument("beginDrag: the target is not a finite point");
  if (!(stiffness > 0) || !std::isfinite(stiffness))
    throw std::invalid_argument("beginDrag: the stiffness must be positive, got " + std::to_string(stiffness));
  if (!(damping >= 0)) {
    // critical damping c = 2 sqrt(k m_eff) for the mass the spring moves: the rigidified
    // body at the node (impulse P at r from the centre of mass changes the point's
    // velocity by C P, C = I/m - [r]x I^-1 [r]x; m_eff = 3 / trace C), or, with the
    // core held, the skin (an upper bound of the mass that moves: no ringing)
    double meff = 0;
    if (settings_.fixedCore) {
      for (double mi : m.nodeMass) meff += mi;
    } else {
      const Mat3 R = rotation(state_.orientation);
      const Mat3 invI = R * m.totalInertia.inverse() * R.transpose();
      const Mat3 rx = skew(nodePosition(node) - centerOfMass());
      const Mat3 C = Mat3::Identity() / m.totalMass - rx * invI * rx;
      meff = 3 / C.trace();
    }
    damping = 2 * std::sqrt(stiffness * meff);
  }
  drag_.node = node;
  drag_.target = target;
  drag_.stiffness = stiffness;
  drag_.damping = damping;
}

// The drag spring, implicitly. With v* the velocities of the free update (steps 1-5)
// and L_i the node's velocity map (xdot_i = L_i v), backward Euler with the spring
// force f = -k (x_i - target) - c xdot_i inside the step gives the impulse
//   lambda = dt f(t + dt) = -dt k C0 - h L_i v,  v = v* + Mt^-1 L_i^T lambda,
//   h = dt^2 k + dt c,  C0 = x_i(t) - target
// so  (I + h G) lambda = -(dt k C0 + h L_i v*),  G = L_i Mt^-1 L_i^T  (3x3, world):
// the Woodbury form of (Mt + h L_i^T L_i)^-1, i.e. exactly the implicit step with the
// spring in Mt. G and Mt^-1 L_i^T lambda come from the decoupled solve (3.8)-(3.9):
//   Z = Mt_e^-1 E_i (3 columns, constant in the body frame: solved once per drag),
//   G = R Z_ii R^T + U Mcond^-1 U^T,  U = [I, -R [u_i]x] - R Y_i,
//   dv_c = Mcond^-1 (L_c^T lambda - M_ce Z R^T lambda),  dv_e = Z R^T lambda - Y dv_c
// (Mcond with the core springs; Y as the free update built it). The mass-lumped
// block-diagonal Mh_e of the contact response would be cheaper but wrong here: at
// rest it spreads the spring force over the node's stencil neighbours by Mt_ji
// Mh_i^-1, which is O(1) where dt^2 K dominates the node mass (a 128^2 head at
// dt = 5 ms), so the skin would settle to another shape than K q = f.
void LayeredBody::applyDrag(double dt, Profile& profile) {
  dragImpulse_.setZero();
  if (!dragging()) return;
  StageTimer t(profile, Stage::Drag);
  if (mirrorStale_) pullSkin();
  solverHoldsSkin_ = false;  // (it changes the skin here, on the CPU)
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  const int i = drag_.node;
  const bool fixed = settings_.fixedCore;
  if (dragZNode_ != i || dragZVersion_ != preparedVersion_) {
    std::vector<std::array<Vec3, 6>> rhs(n), sol;
    for (auto& r : rhs) r.fill(Vec3::Zero());
    for (int k = 0; k < 3; ++k) rhs[i][k] = Vec3::Unit(k);
    // (a point load converges slowly in CG: once per drag, docs/decisions/0023-drag-spring-exact-compliance.md)
    solveMt6(rhs, sol, 20 * n + 100, 1e-8);
    dragZ_.resize(n);
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 3; ++k) dragZ_[j].col(k) = sol[j][k];
    dragZNode_ = i;
    dragZVersion_ = preparedVersion_;
  }
  const LayeredState& start = start_;
  LayeredState& s = state_;
  const Vec3 momentumBefore = linearMomentum();
  // J at the start of the step, as the free update linearised it
  const Mat3 R = rotation(start.orientation), Rt = R.transpose();
  const Vec3 ui = m.restSkin[i] + start.q[i];
  const Vec3 C0 = start.position + R * ui - drag_.target;
  const Vec3 xdot = s.velocity + R * (s.angularVelocity.cross(ui) + s.qdot[i]);
  // Y dv_c at node j (body frame): W_t[j] R^T dv_t + W_r[j] dv_r - m_j Mh_j^-1 (q_j x dv_r)
  auto Ytimes = [&](int j, const Vec6& dv) {
    const Vec3 a = Rt * dv.head<3>();
    const Vec3 w = dv.tail<3>();
    Vec3 r = Vec3::Zero();
    for (int k = 0; k < 3; ++k) r += wt_[j][k] * a[k] + wr_[j][k] * w[k];
    return Vec3(r - m.nodeMass[j] * (mtDiagInverse_[j] * start.q[j].cross(w)));
  };
  Mat3 G = R * dragZ_[i] * Rt;
  Eigen::PartialPivLU<Mat6> Mcond;
  Eigen::Matrix<double, 3, 6> U;
  if (!fixed) {
    Mcond.compute(free_.condensedMass);
    for (int k = 0; k < 6; ++k) U.col(k) = R * Ytimes(i, Vec6::Unit(k));
    U.leftCols<3>() = Mat3::Identity() - U.leftCols<3>();
    U.rightCols<3>() = -R * skew(ui) - U.rightCols<3>();
    G += U * Mcond.solve(Eigen::Matrix<double, 6, 3>(U.transpose()));
  }
  const double h = dt * dt * drag_.stiffness + dt * drag_.damping;
  const Vec3 lambda = -(Mat3::Identity() + h * G).partialPivLu().solve(dt * drag_.stiffness * C0 + h * xdot);
  // the velocity change Mt^-1 L_i^T lambda through (3.8)-(3.9)
  const Vec3 lb = Rt * lambda;
  Vec6 dvc = Vec6::Zero();
  if (!fixed) {
    Vec3 my = Vec3::Zero(), uy = Vec3::Zero();  // M_ce Z lb = [R sum m_j z_j; sum m_j u_j x z_j]
    for (int j = 0; j < n; ++j) {
      const Vec3 z = dragZ_[j] * lb;
      my += m.nodeMass[j] * z;
      uy += m.nodeMass[j] * (m.restSkin[j] + start.q[j]).cross(z);
    }
    Vec6 f;
    f << lambda - R * my, ui.cross(lb) - uy;
    dvc = Mcond.solve(f);
  }
  for (int j = 0; j < n; ++j) {
    Vec3 dq = dragZ_[j] * lb;
    if (!fixed) dq -= Ytimes(j, dvc);
    s.qdot[j] += dq;
  }
  s.velocity += dvc.head<3>();
  s.angularVelocity += dvc.tail<3>();
  // positions from the start of the step with the new velocities (as step 5)
  s.position = start.position + dt * s.velocity;
  s.orientation = integrateBodyRotation(start.orientation, s.angularVelocity, dt);
  for (int j = 0; j < n; ++j) s.q[j] = start.q[j] + dt * s.qdot[j];
  // the linear momentum gains lambda exactly (as step 5 projects it: the map above is
  // exact for the start state's u_j and R, the momentum is read at the new ones)
  if (!fixed) {
    const Vec3 dcdot = (momentumBefore + lambda - linearMomentum()) / m.totalMass;
    s.velocity += dcdot;
    s.position += dt * dcdot;
  }
  dragImpulse_ = lambda;
}

void LayeredBody::startStep(double dt, const Vec3& g, Profile& profile) {
  if (dt != preparedDt_ || settings_.method != preparedMethod_) {
    StageTimer t(profile, Stage::Prepare);
    prepare(dt);
  }
  info_ = LayeredStepInfo{};
  if (settings_.fixedCore) {
    state_.velocity.setZero();
    state_.angularVelocity.setZero();
  }
  // positions at t (step 13 integrates from them); the skin's stays on the solver
  // unless the drag reads it on the CPU
  if (mirrorStale_ && dragging()) pullSkin();
  start_ = state_;
  startStale_ = mirrorStale_;
  StageTimer t(profile, Stage::Support);
  computeSupport(g, dt);
  buildSupportLoad();
}

std::vector<LayeredBody::SupportEntry> LayeredBody::supportFrom(int other) const {
  std::vector<SupportEntry> out;
  for (const SupportedNode& p : supported_)
    if (p.other == other) out.push_back({p.node, nodePosition(p.node), p.normal, p.force});
  return out;
}

std::vector<int> LayeredBody::supportPartners() const {
  std::vector<int> out;
  for (const SupportedNode& p : supported_)
    if (p.other >= 0) out.push_back(p.other);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void LayeredBody::setSupportFrom(int other, const std::vector<double>& forces) {
  size_t k = 0;
  for (SupportedNode& p : supported_)
    if (p.other == other && k < forces.size()) p.force = forces[k++];
  supported_.erase(std::remove_if(supported_.begin(), supported_.end(),
                                  [](const SupportedNode& p) { return !(p.force > 0); }),
                   supported_.end());
  buildSupportLoad();
}

void LayeredBody::integrateStep(double dt, const Vec3& g, Profile& profile) {
  bool done = false;
  if (freeSolver_) {
    try {
      free_ = freeSolver_->integrate(*this, state_, dt, g, profile);
      done = true;
      solverHoldsSkin_ = true;
      skinChangedOnSolver();
    } catch (const std::exception& e) {
      // the other backend failed (a GL error, say): back to the CPU from the start state
      dropSolver(e.what());
      state_ = start_;
    }
  }
  if (!done) free_ = integrateFree(start_, dt, g, profile);
  applyDrag(dt, profile);
  info_.cgIterations = free_.cgIterations;
  info_.cgResidual = free_.cgResidual;
}

const SupportedNode* LayeredBody::findSupported(const std::vector<SupportedNode>& list, int node) {
  const auto it = std::lower_bound(list.begin(), list.end(), node,
                                   [](const SupportedNode& p, int n) { return p.node < n; });
  return it != list.end() && it->node == node ? &*it : nullptr;
}

// The force of node i in the body frame, f_i = -K (q + (beta + dt) qdot)_i - m_i (alpha
// qdot_i + a_i) + m_i R^T g (step 1's terms, the implicit -dt K qdot included: the
// elastic force at the end of the step); its part along -n, if any, is what the
// collider must push back at rest.
void LayeredBody::computeSupport(const Vec3& g, double dt) {
  std::vector<SupportedNode> last;  // the last step's support, by node
  last.swap(supported_);
  const LayeredState& s = state_;
  if (s.touching.empty() || !settings_.contactSupport) return;
  const BakedBody& m = *model_;
  {  // (the nodes read below, from the solver where it holds the skin)
    std::vector<int> read;
    for (const TouchingNode& t : s.touching)
      for (int j : m.atlas.stencil[size_t(t.node)])
        if (j >= 0) read.push_back(j);
    pullNodes(read);
  }
  const Mat3 R = rotation(s.orientation);
  const Vec3 gb = R.transpose() * g;
  const Vec3& w = s.angularVelocity;
  const double alpha = desc_.material.alpha, beta = desc_.material.beta;
  const double patchTheta = kSupportPatchRelaxation / std::sqrt(double(s.touching.size()));
  struct EndOfStep {  // q + (beta + dt) qdot, read node by node by stencilRow
    const LayeredBody& b;
    double c;
    Vec3 operator[](int j) const { return b.qAt(j) + c * b.qdotAt(j); }
  } z{*this, beta + dt};
  for (const TouchingNode& t : s.touching) {
    const int i = t.node;
    const Vec3 kz = stencilRow(m.atlas.stencil[i], m.stiffness[i], z);
    const Vec3 u = m.restSkin[i] + qAt(i);
    const Vec3 a = w.cross(w.cross(u)) + 2 * w.cross(qdotAt(i));
    const Vec3 f = R * (-kz - m.nodeMass[i] * (alpha * qdotAt(i) + a - gb));
    // (at most what the collider carried in the last step: a node that unloads, at the
    // back of a rolling patch, is not pushed off the surface to be pulled back by the
    // response's block-diagonal W; not extrapolated from the last two steps, which
    // doubles any difference in the force from one step to the next:
    // docs/decisions/0014-support-capped-not-extrapolated.md)
    const double target = std::min(-t.normal.dot(f), t.force);
    // Relaxed towards that target (see kSupportRelaxation and kSupportPatchRelaxation):
    // the support is a Jacobi iteration on the contact forces, one sweep per step, and
    // damping it keeps it stable where the skin couples neighbouring contacts strongly.
    const SupportedNode* prev = findSupported(last, i);
    const double old = prev && prev->other == t.other ? prev->force : 0.0;
    const Vec3 nb = R.transpose() * t.normal;
    const double ratio = nb.dot(mt_[size_t(i)][0] * nb) / ((1 + dt * alpha) * m.nodeMass[i]);
    const double theta = std::min(1.0, std::max(kSupportRelaxation / std::sqrt(std::max(ratio, 1.0)), patchTheta));
    const double push = old + (t.other >= 0 ? kPairSupportRelaxation : 1.0) * theta * (target - old);
    if (!(push > 0) || !std::isfinite(push)) continue;
    supported_.push_back({i, t.normal, push, t.other});  // (sorted by node below)
  }
  std::sort(supported_.begin(), supported_.end(),
            [](const SupportedNode& a, const SupportedNode& b) { return a.node < b.node; });
}

void LayeredBody::buildSupportLoad() {
  support_ = SupportLoad{};
  if (supported_.empty()) return;
  const Mat3 Rt = rotation(state_.orientation).transpose();
  support_.nodes.assign(size_t(nodeCount()), Vec3::Zero());
  for (const SupportedNode& p : supported_) {
    const Vec3 fb = Rt * (p.force * p.normal);
    support_.nodes[size_t(p.node)] = fb;
    support_.force += p.force * p.normal;
    support_.torque += (model_->restSkin[size_t(p.node)] + qAt(p.node)).cross(fb);
  }
}

// Steps 1-5: the collision-free update from state_ (= start).
FreeStepResult LayeredBody::integrateFree(const LayeredState& start, double dt, const Vec3& g,
                                          Profile& profile) {
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  const double mass = m.totalMass;
  const double alpha = desc_.material.alpha, beta = desc_.material.beta;
  LayeredState& s = state_;
  const bool fixed = settings_.fixedCore;
  FreeStepResult result;

  const Mat3 R = rotation(s.orientation);
  const Vec3 gb = R.transpose() * g;  // gravity in the body frame
  const Vec3& w = s.angularVelocity;
  std::vector<Vec3> u(n), rhs(n);
  Vec3 St = Vec3::Zero(), Sa = Vec3::Zero(), Sua = Vec3::Zero(), Sqdot = Vec3::Zero();
  Mat3 Suu = Mat3::Zero();  // sum m_i u_i u_i^T
  double Su2 = 0;           // sum m_i |u_i|^2

  // 1 forces (T): Ft_e = F_e - dt K qdot with F_e = Q_e + Qv_e - K q - D qdot.
  //   The gravity part m_i R^T g is solved exactly through the cached W_t below,
  //   so rhs holds the rest: -K (q + (beta + dt) qdot) - m_i (alpha qdot_i + a_i),
  //   a_i = w x (w x u_i) + 2 w x qdot_i  (quadratic velocity vector, B.13).
  {
    StageTimer t(profile, Stage::Forces);
    std::vector<Vec3> z(n), kz;
    for (int i = 0; i < n; ++i) {
      u[i] = m.restSkin[i] + s.q[i];
      z[i] = s.q[i] + (beta + dt) * s.qdot[i];
    }
    multiplyK(z, kz);
    for (int i = 0; i < n; ++i) {
      const double mi = m.nodeMass[i];
      const Vec3 a = w.cross(w.cross(u[i])) + 2 * w.cross(s.qdot[i]);
      rhs[i] = -kz[i] - mi * (alpha * s.qdot[i] + a);
      if (!support_.nodes.empty()) rhs[i] += support_.nodes[i];
      St += mi * u[i];
      Sa += mi * a;
      Sua += mi * u[i].cross(a);
      Sqdot += mi * s.qdot[i];
      Suu.noalias() += (mi * u[i]) * u[i].transpose();
      Su2 += mi * u[i].squaredNorm();
    }
  }
  // sum m_i [u_i]x^T [u_i]x = sum m_i (|u_i|^2 I - u_i u_i^T)
  const Mat3 Muu = Su2 * Mat3::Identity() - Suu;
  // (linearMomentum() at the start of the step, from the sums above)
  const Vec3 momentumStart = mass * s.velocity + s.orientation * (w.cross(St) + Sqdot);

  // 2 solve (T): Mt_e y = Ft_e and Y = Mt_e^-1 M_ec. y = W_t R^T g + Mt_e^-1 rhs.
  //   Y_t = W_t R^T exactly (Mt_e is constant in the body frame); Y_r = W_r (rest
  //   shape) + Mh_e^-1 [-m_i [q_i]x] (the displacement-dependent part, block-diagonal),
  //   or, with exactCoupling, all six columns by CG every step.
  std::vector<std::array<Vec3, 6>> Y(n);
  {
    StageTimer t(profile, Stage::Solve);
    result.cgIterations = solveY(rhs, solveReferenceNorm(g), &result.cgResidual);
    if (!fixed) {
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
          Y[i][k] = wt_[i][0] * R(k, 0) + wt_[i][1] * R(k, 1) + wt_[i][2] * R(k, 2);  // (W_t R^T) col k
          Y[i][3 + k] = wr_[i][k] - m.nodeMass[i] * (mtDiagInverse_[i] * s.q[i].cross(Vec3::Unit(k)));
        }
      }
      if (settings_.exactCoupling) {
        std::vector<Vec3> col(n), sol(n);
        for (int k = 0; k < 6; ++k) {
          for (int i = 0; i < n; ++i) {
            col[i] = k < 3 ? Vec3(m.nodeMass[i] * R.row(k).transpose())
                           : Vec3(-m.nodeMass[i] * u[i].cross(Vec3::Unit(k - 3)));
            sol[i] = Y[i][k];
          }
          solveMt(col, sol, 20 * n + 100, std::min(settings_.cgTolerance, 1e-10), nullptr);
          for (int i = 0; i < n; ++i) Y[i][k] = sol[i];
        }
      }
    }
  }
  // y with the exact gravity part
  std::vector<Vec3> y(n);
  for (int i = 0; i < n; ++i) y[i] = y_[i] + (wt_[i][0] * gb[0] + wt_[i][1] * gb[1] + wt_[i][2] * gb[2]);

  // 3 core velocities (s): condensed 6x6 system (3.8)
  //   Mcond = Mt_c - M_ce Y,  dv_c = Mcond^-1 dt (Ft_c - M_ce y)
  Mat6 Mc = Mat6::Zero();
  Mc.block<3, 3>(0, 0) = mass * Mat3::Identity();
  Mc.block<3, 3>(0, 3) = -R * skew(St);
  Mc.block<3, 3>(3, 0) = skew(St) * R.transpose();
  Mc.block<3, 3>(3, 3) = m.coreInertia + Muu;
  Vec6 dvc = Vec6::Zero();
  Mat6 Mcond = Mc;
  {
    StageTimer t(profile, Stage::Core);
    if (!fixed) {
      Vec6 Fc;
      Fc.head<3>() = mass * g - R * Sa + support_.force;
      Fc.tail<3>() = St.cross(gb) - w.cross(m.coreInertia * w) - Sua + support_.torque;
      // M_ce x = [R sum m_i x_i ; sum m_i u_i x x_i]
      Vec3 my = Vec3::Zero(), uy = Vec3::Zero();
      Mat6 MceY = Mat6::Zero();
      for (int i = 0; i < n; ++i) {
        const double mi = m.nodeMass[i];
        my += mi * y[i];
        uy += mi * u[i].cross(y[i]);
        for (int k = 0; k < 6; ++k) {
          MceY.block<3, 1>(0, k) += mi * Y[i][k];
          MceY.block<3, 1>(3, k) += mi * u[i].cross(Y[i][k]);
        }
      }
      MceY.topRows<3>() = R * MceY.topRows<3>();
      Vec6 Mcey;
      Mcey << R * my, uy;
      Mcond = Mc - MceY;
      dvc = solveCore(Mcond, dt * (Fc - Mcey), dt, &result);
    }
  }

  // 4 skin velocities (T): dv_e = dt y - Y dv_c  (3.9); core velocities
  {
    StageTimer t(profile, Stage::Velocities);
    for (int i = 0; i < n; ++i) {
      Vec3 yd = dt * y[i];
      if (!fixed)
        for (int k = 0; k < 6; ++k) yd -= Y[i][k] * dvc[k];
      s.qdot[i] += yd;
    }
    s.velocity += dvc.head<3>();
    s.angularVelocity += dvc.tail<3>();
  }

  // 5 positions (T): c += dt cdot, R <- R exp(dt [w]x), q += dt qdot
  {
    StageTimer t(profile, Stage::Positions);
    s.position = start.position + dt * s.velocity;
    s.orientation = integrateBodyRotation(start.orientation, s.angularVelocity, dt);
    for (int i = 0; i < n; ++i) s.q[i] = start.q[i] + dt * s.qdot[i];
    // Internal forces cannot change the total linear momentum; the linearised
    // scheme with an explicit Q_v does, at O(dt^2). Project it back through the
    // core's translation (moving c by the same correction over the step).
    if (!fixed) {
      const Vec3 target = momentumStart + dt * (mass * g + support_.force) + result.springImpulse;
      const Vec3 dcdot = (target - linearMomentum()) / mass;
      s.velocity += dcdot;
      s.position += dt * dcdot;
    }
  }

  result.coreMass = Mc;
  return result;
}

// ---- the contact response's passes over every node (CPU reference) ------------------------

namespace {
// Entries of the same node summed, sorted by node.
std::vector<std::pair<int, Vec3>> mergeByNode(std::vector<std::pair<int, Vec3>> v) {
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    if (out > 0 && v[out - 1].first == v[k].first)
      v[out - 1].second += v[k].second;
    else
      v[out++] = v[k];
  }
  v.resize(out);
  return v;
}

// dq_i without r_i: -Mh_i^-1 m_i (dvt - u_i x dw)
Vec3 coreShare(const Mat3& hinv, double mi, const Vec3& ui, const Vec3& dvt, const Vec3& dw) {
  return -mi * (hinv * (dvt - ui.cross(dw)));
}

// The entry of node i in a list sorted by node, else 0.
Vec3 entryOf(const std::vector<std::pair<int, Vec3>>& v, int i) {
  const auto at = std::lower_bound(v.begin(), v.end(), i, [](const auto& e, int node) { return e.first < node; });
  return at != v.end() && at->first == i ? at->second : Vec3::Zero();
}
}  // namespace

#pragma omp declare reduction(+ : Mat3 : omp_out += omp_in) initializer(omp_priv = Mat3::Zero())
#pragma omp declare reduction(+ : Vec3 : omp_out += omp_in) initializer(omp_priv = Vec3::Zero())

CondensedSums CpuSkinResponse::condense(const LayeredBody& body, const LayeredState& s) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const int n = m.nodeCount();
  cached_ = false;
  Mat3 tt = Mat3::Zero(), tr = Mat3::Zero(), rr = Mat3::Zero();
#pragma omp parallel for schedule(static) reduction(+ : tt, tr, rr) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    const double m2 = m.nodeMass[i] * m.nodeMass[i];
    const Mat3 ux = skew(m.restSkin[i] + s.q[i]);
    const Mat3 hux = m2 * (hinv[i] * ux);
    tt += m2 * hinv[i];
    tr += hux;
    rr += ux * hux;
  }
  return {tt, tr, rr};
}

void CpuSkinResponse::setRows(const LayeredBody& body, const LayeredState& s, const std::vector<ContactRow>& rows,
                              double dt, bool fixedCore) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const Mat3 R = rotation(s.orientation), Rt = R.transpose();
  in_ = rows;
  rows_.assign(rows.size(), Row{});
  r_.clear();
  extra_.clear();
  cached_ = false;
  for (size_t k = 0; k < rows.size(); ++k) {
    const ContactRow& c = rows[k];
    Row& row = rows_[k];
    const int i = c.node;
    const double mi = m.nodeMass[size_t(i)];
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    const Vec3 nb = Rt * c.normal;
    const Vec3 hn = hinv[size_t(i)] * nb;
    row.D = nb.dot(hn);
    // U_k = J_c - nb^T Mh^-1 M_ec(i), M_ec(i) = [m_i R^T, -m_i [u_i]x]: (hn^T m_i R^T)^T =
    // m_i R hn, -(hn^T [u]x)^T = u x hn
    Vec6 g6, jc;
    jc << c.normal, ui.cross(nb);
    g6 << mi * (R * hn), mi * ui.cross(hn);
    row.U = fixedCore ? Vec6::Zero() : Vec6(jc - g6);
    // the pre-impact relative normal velocity; the node constraint (8), (13) is inelastic
    // here (restitution went into the rigid impact). Contacts are found at the predicted
    // end of the step; a node that was still a gap away from the surface at its start may
    // close that gap (speculative contact: target -gap/dt) and lands on the surface
    // instead of hovering (a stopped node above the surface would carry weight without
    // the skin compressing). Separating nodes are left alone (one-sided).
    row.before = s.velocity + R * (s.angularVelocity.cross(ui) + s.qdot[size_t(i)]);
    const double vn = c.normal.dot(row.before - c.surfaceVelocity);
    row.startGap = c.startGap < 0 ? std::max(0.0, -c.depth - dt * vn) : c.startGap;
    row.b = c.release ? 0.0 : -vn - row.startGap / dt;
    row.active = !c.release;
    row.lambda = c.release ? c.lo : 0.0;
  }
}

RowSums CpuSkinResponse::roundRows(const Vec6* dv, bool oneSided) {
  RowSums sums;
  for (size_t k = 0; k < rows_.size(); ++k) {
    Row& row = rows_[k];
    if (row.active && dv) {
      row.lambda = (row.b - row.U.dot(*dv)) / row.D;
      if (row.lambda < in_[k].lo) {
        ++sums.below;
        if (oneSided) {
          row.active = false;
          row.lambda = in_[k].lo;
        }
      }
    }
    if (row.active) {
      sums.S += row.U * row.U.transpose() / row.D;
      sums.rhs += row.U * (row.b / row.D);
    } else {
      sums.rhs += row.U * row.lambda;
    }
  }
  return sums;
}

ImpulseSums CpuSkinResponse::impulse(const LayeredBody& body, const LayeredState& s) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const Mat3 Rt = rotation(s.orientation).transpose();
  ImpulseSums sums;
  r_.clear();
  cached_ = false;
  for (size_t k = 0; k < rows_.size(); ++k) {
    const Vec3 f = rows_[k].lambda * in_[k].normal;  // world
    if (f.isZero(0)) continue;
    const int i = in_[k].node;
    const Vec3 fb = Rt * f;
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    r_.emplace_back(i, fb);
    sums.fc.head<3>() += f;
    sums.fc.tail<3>() += ui.cross(fb);
    const Vec3 hr = hinv[size_t(i)] * fb;
    sums.mt += m.nodeMass[size_t(i)] * hr;
    sums.mr += m.nodeMass[size_t(i)] * ui.cross(hr);
  }
  r_ = mergeByNode(std::move(r_));
  return sums;
}

Vec3 CpuSkinResponse::energy(const LayeredBody& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const Vec3 vb = s.orientation.conjugate() * s.velocity, w = s.angularVelocity;
  const int n = m.nodeCount();
  dq_.resize(size_t(n));
  Vec3 k = Vec3::Zero();
#pragma omp parallel for schedule(static) reduction(+ : k) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    const Vec3 ui = m.restSkin[i] + s.q[i];
    const double mi = m.nodeMass[i];
    const Vec3 vi = vb + w.cross(ui) + s.qdot[i];
    dq_[i] = coreShare(hinv[i], mi, ui, dvt, dw);
    const Vec3 di = dvt + dw.cross(ui) + dq_[i];
    k += Vec3(0.5 * mi * vi.squaredNorm(), mi * vi.dot(di), 0.5 * mi * di.squaredNorm());
  }
  // the impulses' own part at their nodes: d_i gains h_i = Mh_i^-1 r_i
  for (const auto& [i, r] : r_) {
    const Vec3 ui = m.restSkin[i] + s.q[i], hr = hinv[i] * r;
    const double mi = m.nodeMass[i];
    const Vec3 vi = vb + w.cross(ui) + s.qdot[i], di = dvt + dw.cross(ui) + dq_[i];
    k += Vec3(0, mi * vi.dot(hr), mi * di.dot(hr) + 0.5 * mi * hr.squaredNorm());
    dq_[i] += hr;
  }
  dqDvt_ = dvt;
  dqDw_ = dw;
  cached_ = true;
  return k;
}

void CpuSkinResponse::friction(const LayeredBody& body, const LayeredState& s, double share, const Vec3& dvt,
                               const Vec3& dw) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const Mat3 R = rotation(s.orientation), Rt = R.transpose();
  extra_.clear();
  std::unordered_map<int, Vec3> skinAfter;  // node -> its qdot after the impulse (and friction)
  for (size_t k = 0; k < rows_.size(); ++k) {
    const ContactRow& c = in_[k];
    Row& row = rows_[k];
    row.frictionImpulse.setZero();
    if (!(row.lambda > c.lo)) continue;  // (no positive total impulse)
    const int i = c.node;
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    const double mi = m.nodeMass[size_t(i)];
    auto [at, added] = skinAfter.try_emplace(i);
    Vec3& qdot = at->second;
    const Mat3& h = hinv[size_t(i)];
    if (added) qdot = s.qdot[size_t(i)] + share * (h * entryOf(r_, i) + coreShare(h, mi, ui, dvt, dw));
    const Vec3 after = s.velocity + R * (s.angularVelocity.cross(ui) + qdot);
    const Vec3 rel = after - c.surfaceVelocity;
    const Vec3 xt = rel - c.normal.dot(rel) * c.normal;
    const double speed = xt.norm();
    if (speed < 1e-12) continue;
    const double muHat = std::min(1.0, c.friction * (after - row.before).norm() / speed);
    const Vec3 dqdot = Rt * (-muHat * xt);
    qdot += dqdot;
    extra_.emplace_back(i, dqdot);
    row.frictionImpulse = -mi * muHat * xt;
  }
  extra_ = mergeByNode(std::move(extra_));
}

std::vector<RowResult> CpuSkinResponse::rowResults() {
  std::vector<RowResult> out(rows_.size());
  for (size_t k = 0; k < rows_.size(); ++k)
    out[k] = {rows_[k].lambda, rows_[k].startGap, rows_[k].frictionImpulse};
  return out;
}

void CpuSkinResponse::apply(const LayeredBody& body, const std::vector<Vec3>& startQ, const Vec3& dvt,
                            const Vec3& dw, double share, double dt, LayeredState& s) {
  const BakedBody& m = body.model();
  const std::vector<Mat3>& hinv = body.mtDiagInverse();
  const int n = m.nodeCount();
  if (!cached_ || dvt != dqDvt_ || dw != dqDw_) {  // (else energy() left them)
    dq_.resize(size_t(n));
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i) dq_[i] = coreShare(hinv[i], m.nodeMass[i], m.restSkin[i] + s.q[i], dvt, dw);
    for (const auto& [i, r] : r_) dq_[i] += hinv[i] * r;
  }
  cached_ = false;
  for (const auto& [i, e] : extra_) s.qdot[i] += e;
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    s.qdot[i] += share * dq_[i];
    s.q[i] = startQ[i] + dt * s.qdot[i];
  }
}

void CpuSkinResponse::correct(const LayeredBody&, const std::vector<std::pair<int, Vec3>>& dq, LayeredState& s) {
  for (const auto& [i, d] : dq) s.q[size_t(i)] += d;
}

// One pass in double; threads sum their own contiguous ranges, combined in order (the
// same figures for the same thread count). 1/2 q^T K q: the diagonal terms plus twice those
// above it (K is symmetric: the slots of row i that read node j > i mirror those of row j
// that read i), without storing K q.
SkinSummary CpuSkinResponse::summarize(const LayeredBody& body, const LayeredState& s, const Vec3& up) {
  const BakedBody& m = body.model();
  const int n = m.nodeCount();
  const std::vector<Vec3>& q = s.q;
  SkinSummary none;
  none.lowest = std::numeric_limits<double>::infinity();
  std::vector<SkinSummary> part(size_t(std::max(1, omp_get_max_threads())), none);
#pragma omp parallel if (n > kParallelNodes)
  {
    SkinSummary p = none;  // (this thread's, stored below: no shared cache lines in the loop)
#pragma omp for schedule(static) nowait
    for (int i = 0; i < n; ++i) {
      const double mi = m.nodeMass[i];
      const Vec3& qi = q[i];
      const Vec3& vi = s.qdot[i];
      p.finite = p.finite && qi.allFinite() && vi.allFinite();
      const Vec3 u = m.restSkin[i] + qi;
      p.mu += mi * u;
      p.mqdot += mi * vi;
      p.muxqdot += mi * u.cross(vi);
      p.muu += mi * u * u.transpose();
      p.mqdot2 += mi * vi.squaredNorm();
      const Stencil& st = m.atlas.stencil[i];
      Vec3 row = Vec3::Zero();
      for (int k = 0; k < kStencilSlots; ++k) {
        const int j = st[k];
        if (j == i) row += 0.5 * (m.stiffness[i][k] * qi);
        else if (j > i) row += m.stiffness[i][k] * q[j];
      }
      p.elastic += qi.dot(row);
      const double qn = qi.norm();
      p.maxQ = std::max(p.maxQ, qn);
      p.maxStretch = std::max(p.maxStretch, qn / std::max(1e-300, (m.restSkin[i] - m.core[i]).norm()));
      p.maxQdot = std::max(p.maxQdot, vi.norm());
      p.lowest = std::min(p.lowest, up.dot(u));
    }
    part[size_t(omp_get_thread_num())] = p;
  }
  SkinSummary r = part[0];
  for (size_t t = 1; t < part.size(); ++t) {
    const SkinSummary& p = part[t];
    r.mu += p.mu;
    r.mqdot += p.mqdot;
    r.muxqdot += p.muxqdot;
    r.muu += p.muu;
    r.mqdot2 += p.mqdot2;
    r.elastic += p.elastic;
    r.maxQ = std::max(r.maxQ, p.maxQ);
    r.maxStretch = std::max(r.maxStretch, p.maxStretch);
    r.maxQdot = std::max(r.maxQdot, p.maxQdot);
    r.lowest = std::min(r.lowest, p.lowest);
    r.finite = r.finite && p.finite;
  }
  return r;
}

template <class F>
auto LayeredBody::withResponse(Profile& profile, F f) {
  if (freeSolver_ && freeSolver_->response()) {
    try {
      if (!skinResident()) {
        StageTimer t(profile, Stage::Transfer);
        if (startStale_) throw std::logic_error("the start of the step is on the GPU only");
        freeSolver_->load(*this, state_, start_.q);
        solverHoldsSkin_ = true;
      }
      struct TakeTimes {  // (also when f returns nothing)
        SkinResponse& r;
        Profile& p;
        ~TakeTimes() { r.takeTimes(p); }
      } take{*freeSolver_->response(), profile};
      return f(take.r);
    } catch (const std::exception& e) {
      dropSolver(e.what());
    }
  }
  return f(cpuResponse_);
}

// Steps 6-13 from the collision-free prediction in state_; positions are
// re-integrated from the start of the step with the post-impact velocities.
void LayeredBody::respond(std::vector<NodeContact>& contacts, double dt, const Vec3& g, Profile& profile,
                          bool firstSweep) {
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  const double mass = m.totalMass;
  const bool fixed = settings_.fixedCore;
  const LayeredState& start = start_;
  LayeredState& s = state_;
  // 13 (below) integrates positions from the start of the step; a rigid impact
  // during the step adds the motion before the time of impact
  Vec3 impactV = Vec3::Zero(), impactW = Vec3::Zero();

  // 6-8: the contacts found at the predicted state. Finders report nodes within a
  // margin; penetrating ones collide here, and so do the nodes that colliders or
  // bodies supported in the free update (whatever their depth now): that support is
  // the first part of their impulse, and the response may take it back but not pull.
  // A supported node no longer found against the same surface gets a release row: its
  // support taken back.
  std::vector<NodeContact>& cs = contacts;
  if (firstSweep && !supported_.empty()) {
    std::vector<char> found(supported_.size(), 0);
    for (NodeContact& c : cs) {
      const SupportedNode* hit = findSupported(supported_, c.node);
      const long k = hit && hit->other == c.other ? hit - supported_.data() : -1;
      if (k < 0 || found[size_t(k)]) continue;
      const double along = supported_[size_t(k)].normal.dot(c.normal);
      if (along <= 0) continue;
      c.impulse = dt * supported_[size_t(k)].force * along;
      found[size_t(k)] = 1;
    }
    for (size_t k = 0; k < supported_.size(); ++k) {
      if (found[k]) continue;
      NodeContact c;
      c.node = supported_[k].node;
      c.normal = supported_[k].normal;
      c.impulse = dt * supported_[k].force;
      c.friction = 0;
      c.other = supported_[k].other;
      c.release = true;
      cs.push_back(c);
    }
  }
  cs.erase(std::remove_if(cs.begin(), cs.end(),
                          [](const NodeContact& c) { return c.depth <= 0 && c.impulse <= 0 && !c.release; }),
           cs.end());
  bool newEpisode = false;  // contacts with colliders begin this step
  if (firstSweep) {
    int colliding = 0, colliderContacts = 0;
    for (const NodeContact& c : cs) {
      if (c.release) continue;
      ++colliding;
      colliderContacts += c.other < 0;
      info_.maxPenetration = std::max(info_.maxPenetration, c.depth);
    }
    info_.contacts = colliding;
    newEpisode = previousContacts_ == 0;
    previousContacts_ = colliderContacts;
  }

  if (!cs.empty()) {
    const Mat3 R = rotation(s.orientation);
    const Mat3 Rt = R.transpose();
    const int nc = int(cs.size());
    // Restitution. A node-level restitution target (8) does not work with a
    // layered skin: spread over the steps in which the skin comes into contact,
    // it neither reverses a stiff body in time (no bounce: the first steps touch
    // a node or two) nor stays out of a resting skin's vibration (which it pumps
    // into bounces). Here the coefficient of restitution is the body's: when a
    // contact episode begins (no contacts in the previous step) and the
    // rigidified body (Mirtich's response, sec. 5.3.1) approaches the contact
    // patch faster than gravity alone explains, one Newton impact law reverses
    // the patch's normal speed by eps; the node constraints below are then
    // inelastic and keep the skin out of the collider. The skin's elasticity
    // still dents, jiggles and carries the weight at rest. (Impacts between two
    // bodies are the world's: equal and opposite, see World::respondAll.)
    if (!fixed && newEpisode) {
      StageTimer t(profile, Stage::Impact);
      Vec3 p = Vec3::Zero(), nAvg = Vec3::Zero(), vo = Vec3::Zero();
      double wsum = 0, eps = 0;
      {  // (the nodes read below, from the solver where it holds the skin: a gather)
        std::vector<int> read;
        for (const NodeContact& c : cs)
          if (c.other < 0 && c.depth > 0) read.push_back(c.node);
        pullNodes(read);
      }
      for (const NodeContact& c : cs) {
        if (c.other >= 0 || c.depth <= 0) continue;
        const double wk = c.depth + 1e-9;
        p += wk * nodePosition(c.node);
        nAvg += wk * c.normal;
        vo += wk * c.surfaceVelocity;
        eps += wk * c.restitution;
        wsum += wk;
      }
      if (wsum > 0 && nAvg.norm() > 1e-12) {
        p /= wsum;
        vo /= wsum;
        eps /= wsum;
        nAvg.normalize();
        const Vec3 com = centerOfMass();
        const Vec3 vCom = linearMomentum() / mass;
        const Vec3 wWorld = R * s.angularVelocity;
        const Vec3 rp = p - com;
        const double vApproach = nAvg.dot(vCom + wWorld.cross(rp) - vo);
        const double threshold = 2 * g.norm() * dt + 1e-3;
        if (vApproach < -threshold) {
          const Mat3 invI = R * m.totalInertia.inverse() * Rt;
          const Vec3 rn = rp.cross(nAvg);
          const double j = -(1 + eps) * vApproach / (1 / mass + rn.dot(invI * rn));
          const Vec3 v0 = s.velocity, w0 = s.angularVelocity;
          applyRigidImpulse(j * nAvg, p);
          const Vec3 dcdot = s.velocity - v0, dwBody = s.angularVelocity - w0;
          // the body reaches the patch at t_i = dt - depth / |v| into the step and only
          // then turns: x(t + dt) = x + t_i v- + (dt - t_i) v+
          double deepest = 0;
          for (const NodeContact& c : cs)
            if (c.other < 0) deepest = std::max(deepest, c.depth);
          const double ti = std::clamp(dt - deepest / -vApproach, 0.0, dt);
          impactV = -ti / dt * dcdot;
          impactW = -ti / dt * dwBody;
        }
      }
    }
    // 9-13 through the backend that holds the skin (the rows, the 6x6 solves here)
    std::vector<ContactRow> rows(static_cast<size_t>(nc));
    std::unordered_map<int, int> lastRowOf;  // node -> its last row so far
    bool restingSurfaces = true;
    std::optional<StageTimer> timer(std::in_place, profile, Stage::Rows);
    for (int k = 0; k < nc; ++k) {
      const NodeContact& c = cs[size_t(k)];
      ContactRow& row = rows[size_t(k)];
      row.node = c.node;
      row.normal = c.normal;
      row.surfaceVelocity = c.surfaceVelocity;
      row.depth = c.depth;
      row.startGap = c.startGap;
      row.lo = -c.impulse;
      row.friction = c.friction;
      row.release = c.release;
      auto [last, first] = lastRowOf.try_emplace(c.node, k);
      if (!first) {
        row.previous = last->second;
        rows[size_t(last->second)].next = k;
        last->second = k;
      }
      restingSurfaces = restingSurfaces && c.surfaceVelocity.isZero(0);
    }
    const Vec3 v0 = s.velocity, w0 = s.angularVelocity;
    timer.reset();
    const RowOutcome out = withResponse(profile, [&](SkinResponse& r) {
      return respondThrough(r, rows, v0, w0, dt, restingSurfaces, profile);
    });
    timer.emplace(profile, Stage::Apply);  // (the results taken back)
    info_.pulling += out.pulling;
    for (int k = 0; k < nc; ++k) {
      NodeContact& c = cs[size_t(k)];
      const RowResult& res = out.rows[size_t(k)];
      info_.activeContacts += c.impulse + res.lambda > 0;
      c.startGap = res.startGap;
      c.impulse += out.share * res.lambda;
      c.frictionImpulse += res.frictionImpulse;
    }
    if (rowImpulse_.size() != size_t(n)) {
      rowImpulse_.assign(size_t(n), 0.0);
      rowOther_.assign(size_t(n), kNoRow);
      rowNodes_.clear();
    }
    for (const NodeContact& c : cs) {
      if (c.release) continue;
      if (rowOther_[size_t(c.node)] == kNoRow) rowNodes_.push_back(c.node);
      rowImpulse_[size_t(c.node)] = c.impulse;
      rowOther_[size_t(c.node)] = c.other;
    }
    cs.erase(std::remove_if(cs.begin(), cs.end(), [](const NodeContact& c) { return c.release; }), cs.end());
    if (skinResident()) skinChangedOnSolver();  // (the solver's apply: q, qdot are on the GPU)
    s.position = start.position + dt * (s.velocity + impactV);
    s.orientation = integrateBodyRotation(start.orientation, s.angularVelocity + impactW, dt);
  }

}

// 9 the rows (the diagonal term D_k = nb^T Mh_i^-1 nb, the coupling rows U_k (12)) and
// Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ec(i) over all nodes (the whole skin rides on
// the core).
// 10 lambda by Sherman-Morrison-Woodbury on an active set: the core's change dv solves
//    (Mh_cond + sum_active U_k U_k^T / D_k) dv = sum_active U_k b_k / D_k + sum_out U_k lo_k
//    and the active rows take lambda_k = (b_k - U_k . dv) / D_k; this is (D + U A^-1 U^T)
//    l = b - U A^-1 U_out^T lo_out with l = D^-1 b - D^-1 U (A + U^T D^-1 U)^-1 U^T D^-1 b
//    written for dv. One-sided: a row whose total impulse (what it had: support, earlier
//    sweeps) would pull leaves the set with its total at zero, lambda = lo; release rows
//    are out from the start.
LayeredBody::RowOutcome LayeredBody::respondThrough(SkinResponse& r, const std::vector<ContactRow>& rows,
                                                    const Vec3& v0, const Vec3& w0, double dt,
                                                    bool restingSurfaces, Profile& profile) {
  const BakedBody& m = *model_;
  const bool fixed = settings_.fixedCore;
  LayeredState& s = state_;
  s.velocity = v0;
  s.angularVelocity = w0;
  const Mat3 R = rotation(s.orientation);
  const Mat3 Rt = R.transpose();
  Mat6 A = free_.coreMass;
  RowOutcome out;
  {
    StageTimer t(profile, Stage::Rows);
    if (!fixed) {
      const CondensedSums P = r.condense(*this, s);
      A.block<3, 3>(0, 0) -= R * P.tt * Rt;
      A.block<3, 3>(0, 3) -= -R * P.tr;
      A.block<3, 3>(3, 0) -= -(R * P.tr).transpose();
      A.block<3, 3>(3, 3) -= -P.rr;
    }
    r.setRows(*this, s, rows, dt, fixed);
  }
  {
    StageTimer t(profile, Stage::Multipliers);
    RowSums sums = r.roundRows(nullptr, settings_.oneSided);
    for (int round = 0; round < 20; ++round) {
      const Vec6 dv = fixed ? Vec6::Zero() : Vec6((A + sums.S).ldlt().solve(sums.rhs));
      sums = r.roundRows(&dv, settings_.oneSided);
      if (round == 0) out.pulling = sums.below;
      if (!settings_.oneSided || sums.below == 0) break;
    }
  }
  // 11 the impulse J^T lambda as a velocity change through steps 3-4, with Mh_e as the
  //    multipliers were (so the constraints hold exactly):
  //    dv_c = Mh_cond^-1 (f_c - sum M_ce(i) Mh_i^-1 r_i), dqdot_i = Mh_i^-1 (r_i - M_ec(i) dv_c)
  std::optional<StageTimer> timer(std::in_place, profile, Stage::Impulse);
  const ImpulseSums is = r.impulse(*this, s);
  Vec6 dv = Vec6::Zero();
  if (!fixed) {
    Vec6 rhs6;
    rhs6 << is.fc.head<3>() - R * is.mt, is.fc.tail<3>() - is.mr;
    dv = A.ldlt().solve(rhs6);
  }
  const Vec3 dvt = Rt * dv.head<3>(), dw = dv.tail<3>();
  // An inelastic contact against a resting surface cannot add kinetic energy, but
  // the response applied through the block-diagonal Mh_e can (it pushes the core
  // as if each node hung on its own diagonal spring, on top of the elastic push the
  // implicit solve already gave it; docs/decisions/0017-response-energy-guard.md).
  // Where the surfaces are at rest, the impulse is scaled down to
  // the largest share s in [0, 1] that keeps the kinetic energy from growing;
  // what it leaves of the penetration goes to the position correction. The energy
  // along the share t is KE(t) = k0 + ka t + kb t^2 (each velocity is linear in t;
  // body frame, as kineticEnergy): the core's part here, the skin's from its pass.
  if (restingSurfaces) {
    const Vec3 vb = Rt * s.velocity, w = s.angularVelocity;
    const Vec3 icw = m.coreInertia * w, icdw = m.coreInertia * dw;
    const Vec3 skin = r.energy(*this, s, dvt, dw);
    const double k0 = 0.5 * (m.coreMass * vb.squaredNorm() + w.dot(icw)) + skin[0];
    const double ka = m.coreMass * vb.dot(dvt) + w.dot(icdw) + skin[1];
    const double kb = 0.5 * (m.coreMass * dvt.squaredNorm() + dw.dot(icdw)) + skin[2];
    if (ka + kb > k0 * 1e-9 + 1e-12)
      out.share = kb > 0 && ka < 0 ? std::clamp(-ka / kb, 0.0, 1.0) : 0.0;  // KE back to k0 at t = -ka/kb
  }
  s.velocity = v0 + out.share * dv.head<3>();
  s.angularVelocity = w0 + out.share * dw;
  // 12 friction (14) on the node's skin velocity, from its tangential velocity after the
  //    normal impulse (which moves it tangentially too, through the coupling): the
  //    pre-impact one of (14) can overshoot and feed a resting body energy.
  timer.emplace(profile, Stage::Friction);
  r.friction(*this, s, out.share, dvt, dw);
  out.rows = r.rowResults();
  timer.emplace(profile, Stage::Apply);
  // 13 positions from the post-impact velocities: the skin's in the same pass as its
  //    velocities, from the start of the step
  r.apply(*this, start_.q, dvt, dw, out.share, dt, s);
  return out;
}

// 15 constraint correction with the contacts found after the response: move
// penetrating nodes out by their share.
void LayeredBody::correct(const std::vector<NodeContact>& contacts, double dt, Profile& profile) {
  StageTimer t(profile, Stage::Correct);
  LayeredState& s = state_;
  const Mat3 Rt = rotation(s.orientation).transpose();
  // the nodes that the response held on a collider or a body (a positive impulse puts
  // them on its surface) are supported in the next step. (Not a test on the depth: a
  // threshold of microns flips with the GPU's float rounding and with it the node's
  // support.)
  s.touching.clear();
  for (const NodeContact& c : contacts) {
    const size_t i = size_t(c.node);
    const double impulse = rowImpulse_.empty() || rowOther_[i] != c.other ? 0.0 : rowImpulse_[i];
    if (impulse > 0) s.touching.push_back({c.node, c.normal, impulse / dt, c.surfaceVelocity, c.other});
  }
  for (int i : rowNodes_) {
    rowImpulse_[size_t(i)] = 0;
    rowOther_[size_t(i)] = kNoRow;
  }
  rowNodes_.clear();
  std::vector<std::pair<int, Vec3>> dq;  // (a node may have contacts with several surfaces)
  for (const NodeContact& c : contacts) {
    if (c.depth <= 0) continue;
    dq.emplace_back(c.node, Rt * (c.stiffnessShare * c.depth * c.normal));
    ++info_.corrected;
    info_.maxCorrection = std::max(info_.maxCorrection, c.stiffnessShare * c.depth);
    info_.finalPenetration = std::max(info_.finalPenetration, (1 - c.stiffnessShare) * c.depth);
  }
  if (dq.empty()) return;
  std::stable_sort(dq.begin(), dq.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t k = 0;
  for (size_t j = 1; j < dq.size(); ++j)
    if (dq[j].first == dq[k].first)
      dq[k].second += dq[j].second;
    else
      dq[++k] = dq[j];
  dq.resize(k + 1);
  withResponse(profile, [&](SkinResponse& r) { r.correct(*this, dq, s); });
  momentsVersion_ = -1;  // (the solver's moments take the correction; the ones kept here do not)
}

}  // namespace d2t
