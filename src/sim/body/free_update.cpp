// LayeredBody's collision-free update (Fig. 3.5 steps 1-5): rigid impulses and M_c, the
// core springs (core_springs.h, eq. 3.8 with springs), the drag spring, the start of a step,
// the contact support planned from the last step's contacts, integrateFree.

#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "sim/body/layered_body.h"
#include "sim/body/node_loops.h"
#include "sim/morph/modal_basis.h"
#include "sim/contact/patch_friction.h"

namespace d2t {

using namespace layered_detail;

// ---- the step (Fig. 3.5) ----------------------------------------------------------------------

void LayeredBody::applyRigidImpulse(const Vec3& impulse, const Vec3& at, double moveDt) {
  const Mat3 R = rotation(state_.orientation);
  const Mat3 invI = R * model_->totalInertia.inverse() * R.transpose();
  changeRigidVelocity(impulse / model_->totalMass, invI * (at - centerOfMass()).cross(impulse), moveDt);
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

Core::Matrix LayeredBody::coreMassMatrix() const {
  const BakedBody& m = *model_;
  Vec3 St = Vec3::Zero();
  Mat3 Muu = Mat3::Zero();
  for (int i = 0; i < m.nodeCount(); ++i) {
    const Vec3 u = m.restSkin[i] + state().q[i];
    St += m.nodeMass[i] * u;
    const Mat3 ux = skew(u);
    Muu += m.nodeMass[i] * ux.transpose() * ux;
  }
  return Core::massMatrix(m.totalMass, m.coreInertia, rotation(state_.orientation), St, Muu);
}


double LayeredBody::springEnergy() const {
  double e = coreSpringEnergy(state_, springs_, model_->comOffset);
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
// Z = Mt_e^-1 E_i for the dragged node i, once per drag and operator (a point load
// converges slowly in CG: docs/decisions/0023-drag-spring-exact-compliance.md).
void LayeredBody::solveDragColumns() {
  const int n = nodeCount(), i = drag_.node;
  if (dragZNode_ == i && dragZVersion_ == op_.version()) return;
  std::vector<ImplicitOperator::Columns> rhs(n), sol;
  for (auto& r : rhs) r.fill(Vec3::Zero());
  for (int k = 0; k < 3; ++k) rhs[i][k] = Vec3::Unit(k);
  op_.solveColumns(rhs, sol, 20 * n + 100, 1e-8);
  dragZ_.resize(n);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < 3; ++k) dragZ_[j].col(k) = sol[j][k];
  dragZNode_ = i;
  dragZVersion_ = op_.version();
}

void LayeredBody::applyDrag(double dt, Profile& profile) {
  dragImpulse_.setZero();
  if (!dragging()) return;
  StageTimer t(profile, Stage::Drag);
  syncSkin();
  skin_.writtenOnCpu();  // (it changes the skin here, on the CPU)
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  const int i = drag_.node;
  const bool fixed = settings_.fixedCore;
  solveDragColumns();
  const LayeredState& start = start_;
  LayeredState& s = state_;
  const Vec3 momentumBefore = linearMomentum();
  // J at the start of the step, as the free update linearised it
  const Mat3 R = rotation(start.orientation), Rt = R.transpose();
  const Vec3 ui = m.restSkin[i] + start.q[i];
  const Vec3 C0 = start.position + R * ui - drag_.target;
  const Vec3 xdot = s.velocity + R * (s.angularVelocity.cross(ui) + s.qdot[i]);
  // Y dv_c at node j (body frame), from the operator's cached coupling columns
  const auto& wt = op_.translationalCoupling();
  const auto& wr = op_.rotationalCoupling();
  const auto& hinv = op_.diagInverse();
  auto Ytimes = [&](int j, const Core::Vector& dv) {
    return Core::cachedTimes(wt[j], wr[j], hinv[j], m.nodeMass[j], start.q[j], Rt, dv);
  };
  Mat3 G = R * dragZ_[i] * Rt;
  Eigen::PartialPivLU<Core::Matrix> Mcond;
  if (!fixed) {  // U = L_i - R Y_i: the node's velocity map once the skin has responded
    Mcond.compute(free_.condensedMass);
    Core::PointMap RY;
    for (int k = 0; k < Core::kDofs; ++k) RY.col(k) = R * Ytimes(i, Core::Vector::Unit(k));
    const Core::PointMap U = Core::pointMap(R, ui) - RY;
    G += U * Mcond.solve(Eigen::Matrix<double, Core::kDofs, 3>(U.transpose()));
  }
  const double h = dt * dt * drag_.stiffness + dt * drag_.damping;
  const Vec3 lambda = -(Mat3::Identity() + h * G).partialPivLu().solve(dt * drag_.stiffness * C0 + h * xdot);
  // the velocity change Mt^-1 L_i^T lambda through (3.8)-(3.9)
  const Vec3 lb = Rt * lambda;
  Core::Vector dvc = Core::Vector::Zero();
  if (!fixed) {
    Core::CouplingSum mz;  // M_ce Z lb
    for (int j = 0; j < n; ++j) mz.add(m.nodeMass[j], m.restSkin[j] + start.q[j], dragZ_[j] * lb);
    dvc = Mcond.solve(Core::Vector(Core::generalizedForce(lambda, lb, ui) - mz.value(R)));
  }
  for (int j = 0; j < n; ++j) {
    Vec3 dq = dragZ_[j] * lb;
    if (!fixed) dq -= Ytimes(j, dvc);
    s.qdot[j] += dq;
  }
  Core::addVelocity(s, dvc);
  // positions from the start of the step with the new velocities (as step 5)
  Core::integratePositions(s, start, dt);
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

// The reduced skin (ch. 5.4; ImplicitOperator::reduced()) starts each step in span U: q and qdot
// replaced by their M-orthogonal projections U U^T M q (what the last step's contact response,
// drag or an edit moved outside the basis is dropped: dents are limited to span U). Its
// operator's solves keep the step inside the span. The skin steps on the CPU (its solve is
// the r x r factor): a GPU solver is detached.
void LayeredBody::projectOnBasis() {
  if (skin_.solver()) setFreeMotionSolver(nullptr);
  const ModalBasis& basis = *op_.basis();
  const std::vector<double>& mass = model_->nodeMass;
  z_ = basis.project(state_.q, mass);
  zdot_ = basis.project(state_.qdot, mass);
  basis.expand(z_, state_.q);
  basis.expand(zdot_, state_.qdot);
}

void LayeredBody::startStep(double dt, const Vec3& g, Profile& profile) {
  if (const ImplicitOperator::Key key = operatorKey(dt, settings_.method); !(key == op_.key())) {
    StageTimer t(profile, Stage::Prepare);  // (dt, the method or the material changed)
    op_.prepare(model_, *elastic_, key);
  }
  if (op_.reduced()) {
    StageTimer t(profile, Stage::Transfer);  // (the state into the reduced solver's space)
    projectOnBasis();
  }
  info_ = LayeredStepInfo{};
  if (settings_.fixedCore) {
    state_.velocity.setZero();
    state_.angularVelocity.setZero();
  }
  // positions at t (step 13 integrates from them); the skin's stays on the solver
  // unless the drag reads it on the CPU
  if (dragging()) syncSkin();
  start_ = state_;
  skin_.stepStarted();
  StageTimer t(profile, Stage::Support);
  computeSupport(g, dt);
  gatherLoadForces();
  buildNodeForces();
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
  buildNodeForces();
}

void LayeredBody::integrateStep(double dt, const Vec3& g, Profile& profile) {
  const bool hadSolver = skin_.solver() != nullptr;
  const bool done = onSolver([&](FreeMotionSolver& s) {
    free_ = s.integrate(view(), state_, dt, g, profile);
    skin_.changedOnSolver();
  });
  if (!done) {
    if (hadSolver) state_ = start_;  // (the solver failed: back to the CPU from the start state)
    free_ = stepsInZ() ? integrateReduced(start_, dt, g, profile) : integrateFree(start_, dt, g, profile);
  }
  applyCorrections(dt, profile);
  applyDrag(dt, profile);
  info_.cgIterations = free_.cgIterations;
  info_.cgResidual = free_.cgResidual;
}

const SupportedNode* LayeredBody::findSupported(const std::vector<SupportedNode>& list, int node) {
  const auto it = std::lower_bound(list.begin(), list.end(), node,
                                   [](const SupportedNode& p, int n) { return p.node < n; });
  return it != list.end() && it->node == node ? &*it : nullptr;
}

// The force of node i in the body frame, f_i = -K (q + (beta + dt) qdot)_i + f0_i - m_i (alpha
// qdot_i + a_i) + m_i R^T g (step 1's terms, the implicit -dt K qdot included: the
// elastic force at the end of the step); its part along -n, if any, is what the
// collider must push back at rest.
void LayeredBody::computeSupport(const Vec3& g, double dt) {
  std::vector<SupportedNode> last;  // the last step's support, by node
  last.swap(supported_);
  const LayeredState& s = state_;
  if (s.touching.empty() || !settings_.response.support) return;
  const BakedBody& m = *model_;
  {  // (the nodes read below, from the solver where it holds the skin)
    std::vector<int> read;
    for (const TouchingNode& t : s.touching)
      for (int j : m.atlas.stencil[size_t(t.node)])
        if (j >= 0) read.push_back(j);
    syncNodes(read);
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
  // a skin stepping in z: its elastic force R~(z) + (beta + dt) K~_T zdot acts on node i as
  // m_i Phi_i (R~ + ...) (the nodal force M U R~ whose projection U^T is R~)
  Eigen::VectorXd reducedForce;
  if (stepsInZ()) {
    Eigen::MatrixXd tangent;
    elastic_->reducedForce(*op_.basis(), z_, &reducedForce, &tangent, nullptr);
    reducedForce += (beta + dt) * (tangent * zdot_);
  }
  for (const TouchingNode& t : s.touching) {
    const int i = t.node;
    const Vec3 kz = reducedForce.size() ? Vec3(m.nodeMass[i] * (op_.basis()->U.middleRows<3>(3 * i) * reducedForce))
                                        : stencilRow(m.atlas.stencil[i], elastic_->stiffness()[i], z);
    const Vec3 u = m.restSkin[i] + qAt(i);
    const Vec3 a = w.cross(w.cross(u)) + 2 * w.cross(qdotAt(i));
    const Vec3 f0 = elastic_->restForce().empty() || reducedForce.size() ? Vec3::Zero() : elastic_->restForce()[size_t(i)];
    const Vec3 f = R * (f0 - kz - m.nodeMass[i] * (alpha * qdotAt(i) + a - gb));
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
    const double ratio = nb.dot(op_.blocks()[size_t(i)][0] * nb) / ((1 + dt * alpha) * m.nodeMass[i]);
    const double theta = std::min(1.0, std::max(kSupportRelaxation / std::sqrt(std::max(ratio, 1.0)), patchTheta));
    const double push = old + (t.other >= 0 ? kPairSupportRelaxation : 1.0) * theta * (target - old);
    if (!(push > 0) || !std::isfinite(push)) continue;
    supported_.push_back({i, t.normal, push, t.other});  // (sorted by node below)
  }
  std::sort(supported_.begin(), supported_.end(),
            [](const SupportedNode& a, const SupportedNode& b) { return a.node < b.node; });
}

// The attached loads' forces at the start of the step (once a step: the pair balance
// rebuilds forces_ from them without asking the loads again).
void LayeredBody::gatherLoadForces() {
  loadForces_.clear();
  {
    std::vector<int> read;  // (what the loads read: from the solver where it holds the skin)
    for (const auto& load : loads_) load->reads(read);
    if (!read.empty()) syncNodes(read);
  }
  for (const auto& load : loads_) load->forces(*this, loadForces_);
  for (const NodeForce& p : loadForces_)
    if (p.node < 0 || p.node >= nodeCount() || !p.force.allFinite())
      throw std::invalid_argument("body '" + desc_.name + "': a node load gave node " + std::to_string(p.node) +
                                  " a force that is not finite or a node that is not in [0, " +
                                  std::to_string(nodeCount()) + ")");
  {  // (the torque u_i x f_i reads the loaded nodes: from the solver where it holds the skin)
    std::vector<int> read;
    read.reserve(loadForces_.size());
    for (const NodeForce& p : loadForces_) read.push_back(p.node);
    syncNodes(read);
  }
}

// The support's forces and the loads', summed per node (body frame) and over the body.
void LayeredBody::buildNodeForces() {
  forces_ = NodeForces{};
  if (supported_.empty() && loadForces_.empty()) return;
  const Mat3 Rt = rotation(state_.orientation).transpose();
  forces_.nodes.assign(size_t(nodeCount()), Vec3::Zero());
  auto add = [&](int node, const Vec3& f) {
    const Vec3 fb = Rt * f;
    forces_.nodes[size_t(node)] += fb;
    forces_.force += f;
    forces_.torque += (model_->restSkin[size_t(node)] + qAt(node)).cross(fb);
  };
  for (const SupportedNode& p : supported_) add(p.node, p.force * p.normal);
  for (const NodeForce& p : loadForces_) add(p.node, p.force);
}

// Steps 1-5: the collision-free update from state_ (= start). One function of five
// timed blocks, in the order of Fig. 3.5, because the blocks share the step's sums
// (S_t, S_a, M_uu, the coupling columns Y, y): it reads as the figure, and the GPU's
// GpuSkin::integrate is the same list pass for pass.
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
  SkinCoreSums sums;  // S_t, S_a, S_ua; M_uu from Suu and Su2 below
  Vec3 Sqdot = Vec3::Zero();
  Mat3 Suu = Mat3::Zero();  // sum m_i u_i u_i^T
  double Su2 = 0;           // sum m_i |u_i|^2
  double reach = 0;         // max |q_i|^2 / |ub_i|^2

  // 1 forces (T): Ft_e = F_e - dt K qdot with F_e = Q_e + Qv_e - K q + f0 - D qdot.
  //   The gravity part m_i R^T g is solved exactly through the cached W_t below,
  //   so rhs holds the rest: -K (q + (beta + dt) qdot) + f0 - m_i (alpha qdot_i + a_i),
  //   a_i = w x (w x u_i) + 2 w x qdot_i  (quadratic velocity vector, B.13).
  {
    StageTimer t(profile, Stage::Forces);
    std::vector<Vec3> z(n), kz;
    for (int i = 0; i < n; ++i) {
      u[i] = m.restSkin[i] + s.q[i];
      z[i] = s.q[i] + (beta + dt) * s.qdot[i];
      reach = std::max(reach, s.q[i].squaredNorm() / std::max(1e-300, m.restSkin[i].squaredNorm()));
    }
    multiplyStencil(m.atlas.stencil, elastic_->stiffness(), z, kz);
    const std::vector<Vec3>& f0 = elastic_->restForce();
    for (int i = 0; i < n; ++i) {
      const double mi = m.nodeMass[i];
      const Vec3 a = w.cross(w.cross(u[i])) + 2 * w.cross(s.qdot[i]);
      rhs[i] = -kz[i] - mi * (alpha * s.qdot[i] + a);
      if (!f0.empty()) rhs[i] += f0[i];  // (the rest force of a pose-dependent model, 5.2')
      if (!forces_.nodes.empty()) rhs[i] += forces_.nodes[i];
      sums.mu += mi * u[i];
      sums.ma += mi * a;
      sums.muxa += mi * u[i].cross(a);
      Sqdot += mi * s.qdot[i];
      Suu.noalias() += (mi * u[i]) * u[i].transpose();
      Su2 += mi * u[i].squaredNorm();
    }
  }
  // sum m_i [u_i]x^T [u_i]x = sum m_i (|u_i|^2 I - u_i u_i^T)
  sums.muu = Su2 * Mat3::Identity() - Suu;
  // (linearMomentum() at the start of the step, from the sums above)
  const Vec3 momentumStart = Core::linearMomentum(mass, s, sums.mu, Sqdot);

  // 2 solve (T): Mt_e y = Ft_e and Y = Mt_e^-1 M_ec. y = W_t R^T g + Mt_e^-1 rhs.
  //   Y from the operator's cached columns (Core::cachedColumns), or, with
  //   exactCoupling or a skin displaced beyond kCachedCouplingReach of its rest distance
  //   from the body's centre, the rotational columns solved exactly (the translational
  //   ones are exact): the cached ones take the displacement's part block-diagonal,
  //   and a thick skin crushed to its limit (a node 60% of the radius in) then gained
  //   energy in this step until the blow-up check reset it (docs/decisions/0027).
  std::vector<Core::Columns> Y(n);
  {
    StageTimer t(profile, Stage::Solve);
    result.cgIterations = ySolve_.solve(op_, rhs, settings_.cgIterations, settings_.cgTolerance,
                                        op_.solveReferenceNorm(g), &result.cgResidual);
    if (!fixed) {
      const auto& wt = op_.translationalCoupling();
      const auto& wr = op_.rotationalCoupling();
      const auto& hinv = op_.diagInverse();
      for (int i = 0; i < n; ++i) Y[i] = Core::cachedColumns(wt[i], wr[i], hinv[i], m.nodeMass[i], s.q[i], R);
      // (a reduced operator: the rotational columns always, the cache's displacement part
      // being block-diagonal, outside span U)
      if (settings_.exactCoupling || op_.reduced() || reach > kCachedCouplingReach * kCachedCouplingReach) {
        // (exactCoupling, a test switch: every column to 1e-10; past the reach: the
        // rotational ones with the y solve's budget, from the cached ones, so that a CG
        // body pays at most three more y solves)
        const bool all = settings_.exactCoupling;
        std::vector<Vec3> col(n), sol(n);
        for (int k = all ? 0 : 3; k < Core::kDofs; ++k) {
          for (int i = 0; i < n; ++i) {
            col[i] = Core::couplingColumn(k, m.nodeMass[i], u[i], R);
            sol[i] = Y[i][k];
          }
          op_.solve(col, sol, all ? 20 * n + 100 : settings_.cgIterations,
                    all ? std::min(settings_.cgTolerance, 1e-10) : settings_.cgTolerance, nullptr);
          for (int i = 0; i < n; ++i) Y[i][k] = sol[i];
        }
      }
    }
  }
  // y with the exact gravity part
  std::vector<Vec3> y(n);
  {
    const auto& wt = op_.translationalCoupling();
    const std::vector<Vec3>& y0 = ySolve_.solution();
    for (int i = 0; i < n; ++i) y[i] = y0[i] + (wt[i][0] * gb[0] + wt[i][1] * gb[1] + wt[i][2] * gb[2]);
  }

  // 3 core velocities (s): the condensed core system (3.8)
  //   Mcond = Mt_c - M_ce Y,  dv_c = Mcond^-1 dt (Ft_c - M_ce y)
  const Core::Matrix Mc = Core::massMatrix(mass, m.coreInertia, R, sums.mu, sums.muu);
  Core::Vector dvc = Core::Vector::Zero();
  {
    StageTimer t(profile, Stage::Core);
    if (!fixed) {
      const Core::Vector Fc =
          Core::freeForce(mass, m.coreInertia, R, g, gb, w, sums, forces_.force, forces_.torque);
      Core::CouplingSum my;         // M_ce y
      Core::CouplingColumnsSum mY;  // M_ce Y
      for (int i = 0; i < n; ++i) {
        my.add(m.nodeMass[i], u[i], y[i]);
        mY.add(m.nodeMass[i], u[i], Y[i]);
      }
      const Core::Matrix Mcond = Mc - mY.value(R);
      dvc = result.keep(
          solveCoreWithSprings(state_, springs_, model_->comOffset, Mcond, dt * (Fc - my.value(R)), dt));
    }
  }

  // 4 skin velocities (T): dv_e = dt y - Y dv_c  (3.9); core velocities
  {
    StageTimer t(profile, Stage::Velocities);
    for (int i = 0; i < n; ++i) {
      s.qdot[i] += fixed ? Vec3(dt * y[i]) : Core::minusCoupled(dt * y[i], Y[i], dvc);
    }
    Core::addVelocity(s, dvc);
  }

  // 5 positions (T): c += dt cdot, R <- R exp(dt [w]x), q += dt qdot
  {
    StageTimer t(profile, Stage::Positions);
    Core::integratePositions(s, start, dt);
    for (int i = 0; i < n; ++i) s.q[i] = start.q[i] + dt * s.qdot[i];
    // Internal forces cannot change the total linear momentum; the linearised
    // scheme with an explicit Q_v does, at O(dt^2). Project it back through the
    // core's translation (moving c by the same correction over the step).
    if (!fixed) {
      const Vec3 target = momentumStart + dt * (mass * g + forces_.force) + result.springImpulse;
      const Vec3 dcdot = (target - linearMomentum()) / mass;
      s.velocity += dcdot;
      s.position += dt * dcdot;
    }
  }

  result.coreMass = Mc;
  return result;
}

}  // namespace d2t
