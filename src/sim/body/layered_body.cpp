// LayeredBody, the CPU reference of one body's step (layered_body.h): its lifetime,
// kinematics, where the skin lives (the one fallback to the CPU, onSolver; syncSkin /
// syncNodes / syncMoments from a backend that holds the skin; snapshot / restore,
// saveGood / restoreGood), the moments, the summary and the energies.
// The rest of the class, by what it does:
//   implicit_operator.cpp Mt_e (ImplicitOperator): stencil products, CG with DILU, the factor
//   free_update.cpp       the step's start, rigid impulses, springs, the drag, the contact
//                         support, integrateFree (steps 1-5)
//   contact_response.cpp  respond (6-13), respondThrough (9-13), the loads' velocity
//                         corrections (after 5), correct (15)
//   cpu_skin_response.cpp CpuSkinResponse: the response's passes over nodes and rows

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
#include "sim/contact/patch_friction.h"

namespace d2t {

using namespace layered_detail;

LayeredBody::LayeredBody(BakedBodyPtr model, const BodyDesc& desc)
    : model_(std::move(model)), desc_(desc) {
  makeElasticModel();
  resetToDesc();
}

// Linear FEM's constant K_e, or the morph targets' pose-dependent one (ch. 5).
void LayeredBody::makeElasticModel() {
  morph_ = nullptr;
  if (model_->morph) {
    auto m = std::make_unique<MorphElasticity>(model_);
    morph_ = m.get();
    elastic_ = std::move(m);
  } else {
    elastic_ = std::make_unique<ConstantStiffness>(model_);
  }
}

bool LayeredBody::threadsNodeLoops() const { return model_->nodeCount() > kParallelNodes; }

void LayeredBody::resetToDesc() {
  const BakedBody& m = *model_;
  const int n = m.nodeCount();
  state_ = LayeredState{};
  skin_.onCpu(n);
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
  ySolve_.reset(n);
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
  syncSkin();  // (the skin keeps its displacements)
  const Vec3 shift = state_.orientation * d;
  state_.position += shift;
  state_.velocity += (state_.orientation * state_.angularVelocity).cross(shift);
  model_ = std::move(model);
  makeElasticModel();  // (Mt_e follows at the next step: its key changed)
  desc_ = desc;
  skin_.writtenOnCpu();  // (the solver's copy was the old model's)
  ySolve_.reset(model_->nodeCount());
}

// ---- kinematics -------------------------------------------------------------------------------

double LayeredBody::maxDisplacement() {
  if (skin_.mirrorStale() && skinResident() && skin_.solver()->response()) {  // (a pass there, not the skin back)
    double d = 0;
    if (onSolver([&](FreeMotionSolver& s) { d = s.response()->maxDisplacement(view(), state_); })) return d;
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

const Vec3& LayeredBody::qAt(int i) const {
  if (!skin_.nodeCurrent(i)) requireMirror("a node's position");
  return state_.q[size_t(i)];
}

const Vec3& LayeredBody::qdotAt(int i) const {
  if (!skin_.nodeCurrent(i)) requireMirror("a node's velocity");
  return state_.qdot[size_t(i)];
}

// ---- where the skin lives ---------------------------------------------------------------------

void LayeredBody::requireMirror(const char* what) const {
  if (skin_.mirrorStale())
    throw std::logic_error(std::string("LayeredBody: ") + what + " of body '" + desc_.name +
                           "' read through a const body while its skin is on the GPU solver (syncSkin() first)");
}

void LayeredBody::syncSkin() {
  if (skin_.mirrorStale()) onSolver([&](FreeMotionSolver& s) {
      s.readSkin(view(), state_);
      skin_.mirrorRead();
    });
}

void LayeredBody::syncNodes(const std::vector<int>& nodes) {
  if (!skin_.mirrorStale()) return;
  const std::vector<int> wanted = skin_.unread(nodes);
  if (!wanted.empty()) onSolver([&](FreeMotionSolver& s) { s.readNodes(view(), wanted, state_); });
}

void LayeredBody::syncMoments() {
  if (skin_.mirrorStale() && !skin_.moments())
    onSolver([&](FreeMotionSolver& s) { skin_.keepMoments(s.moments(view())); });
}

void LayeredBody::setFreeMotionSolver(std::shared_ptr<FreeMotionSolver> solver) {
  syncSkin();  // (from the solver it leaves)
  if (goodOnSolver_) {  // (its copy was on the solver it leaves: the current state is good too)
    good_ = state_;
    goodOnSolver_ = false;
  }
  skin_.attach(std::move(solver));
}

void LayeredBody::dropSolver(const std::string& why) {
  const bool lost = skin_.mirrorStale() || skin_.startStale();
  skin_.drop(why, nodeCount());
  if (lost) {
    const size_t n = size_t(nodeCount());
    for (LayeredState* s : {&state_, &start_}) {
      s->q.assign(n, Vec3::Zero());
      s->qdot.assign(n, Vec3::Zero());
    }
    skin_.addToFailure("; the skin's state was on the GPU only: the skin restarts at rest");
  }
}

LayeredBody::Snapshot LayeredBody::snapshot() {
  return {model_->fingerprint, op_.key().dt, op_.key().method, state(), supported_, ySolve_.history(),
          previousContacts_, drag_, morph_ ? morph_->memory() : MorphElasticity::Memory{}};
}

void LayeredBody::restore(const Snapshot& snap) {
  if (snap.model != model_->fingerprint)
    throw std::invalid_argument("LayeredBody::restore: body '" + desc_.name +
                                "': the snapshot was taken with another model (its material changed since)");
  if (morph_) morph_->restore(snap.morph);  // (before the operator: its key follows the blend)
  if (snap.dt > 0)  // (the operator the warm start belongs to)
    op_.prepare(model_, *elastic_, operatorKey(snap.dt, snap.method));
  // the whole state is replaced: nothing to read back first (as editState() would)
  state_ = snap.state;
  skin_.onCpu(nodeCount());  // (the solver's copy is loaded again at the next step)
  supported_ = snap.supported;
  gatherLoadForces();
  buildNodeForces();
  ySolve_.restore(snap.warmStart, op_);
  previousContacts_ = snap.previousContacts;
  drag_ = snap.drag;
}

void LayeredBody::saveGood() {
  goodOnSolver_ = skinResident() && onSolver([&](FreeMotionSolver& s) { s.saveGood(view()); });
  if (goodOnSolver_) {
    static_cast<CoreState&>(good_) = state_;
    good_.touching = state_.touching;
  } else {
    good_ = state();
  }
}

void LayeredBody::restoreGood() {
  const bool lost = goodOnSolver_ && !(skin_.solver() && skin_.solver()->holds(id()));
  static_cast<CoreState&>(state_) = good_;
  state_.touching = good_.touching;
  state_.velocity.setZero();
  state_.angularVelocity.setZero();
  if (goodOnSolver_ && !lost && onSolver([&](FreeMotionSolver& s) {
        s.restoreGood(view());
        skin_.changedOnSolver();
      }))
    return;
  const size_t n = size_t(nodeCount());
  if (goodOnSolver_)  // (its skin was on a solver that is gone: at rest)
    state_.q.assign(n, Vec3::Zero());
  else
    state_.q = good_.q;
  state_.qdot.assign(n, Vec3::Zero());
  skin_.onCpu(int(n));
}

SkinSummary LayeredBody::moments() const {
  if (const SkinSummary* kept = skin_.moments()) return *kept;
  requireMirror("the centre of mass or momentum");
  const BakedBody& m = *model_;
  SkinSummary s;
  for (int i = 0; i < m.nodeCount(); ++i) {
    s.mu += m.nodeMass[i] * (m.restSkin[i] + state_.q[i]);
    s.mqdot += m.nodeMass[i] * state_.qdot[i];
  }
  return s;
}

Vec3 LayeredBody::angularMomentum(const Vec3& about) {
  syncSkin();
  const BakedBody& m = *model_;
  const Mat3 R = rotation(state_.orientation);
  // core: spin about its own com (the body origin) + orbital term of the core mass
  Vec3 l = R * (m.coreInertia * state_.angularVelocity) +
           m.coreMass * (state_.position - about).cross(state_.velocity);
  for (int i = 0; i < m.nodeCount(); ++i)
    l += m.nodeMass[i] * (nodePosition(i) - about).cross(nodeVelocity(i));
  return l;
}

SkinSummary LayeredBody::skinSummary(const Vec3& up) { return CpuSkinResponse().summarize(view(), state(), up); }

SkinSummary LayeredBody::summarize(const Vec3& up, Profile& profile) {
  SkinSummary out;
  if (skinResident() && skin_.solver()->response() && onSolver([&](FreeMotionSolver& s) {
        out = s.response()->summarize(view(), state_, up);
        s.response()->takeTimes(profile);
      }))
    return out;
  return skinSummary(up);
}

// com = c + R sum m_i u_i / m (the core's centre of mass is the body origin)
double LayeredBody::coreLowest(const Vec3& up) const {
  const Vec3 ub = state_.orientation.conjugate() * up;
  double low = std::numeric_limits<double>::infinity();
  for (const Vec3& f : model_->core) low = std::min(low, ub.dot(f));
  return up.dot(state_.position) + low;
}

Vec3 LayeredBody::centerOfMass(const SkinSummary& s) const {
  return state_.position + state_.orientation * (s.mu / model_->totalMass);
}

// P = m cdot + R (w x sum m_i u_i + sum m_i qdot_i)
Vec3 LayeredBody::linearMomentum(const SkinSummary& s) const {
  return Core::linearMomentum(model_->totalMass, state_, s.mu, s.mqdot);
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

ImplicitOperator::Key LayeredBody::operatorKey(double dt, SolverMethod method) const {
  return ImplicitOperator::keyFor(*model_, *elastic_, desc_.material, dt, method);
}

}  // namespace d2t
