// LayeredBody, the CPU reference of one body's step (layered_body.h): its lifetime,
// kinematics, the skin's mirror (pullSkin / pullNodes from a backend that holds the skin,
// snapshot / restore, saveGood / restoreGood), the moments, the summary and the energies.
// The rest of the class, by what it does:
//   implicit_operator.cpp Mt_e (ImplicitOperator): stencil products, CG with DILU, the factor
//   free_update.cpp       the step's start, rigid impulses, springs, the drag, the contact
//                         support, integrateFree (steps 1-5)
//   contact_response.cpp  respond (6-13), respondThrough (9-13), correct (15)
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
    : model_(std::move(model)), elastic_(std::make_unique<ConstantStiffness>(model_)), desc_(desc) {
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
  if (mirrorStale_) pullSkin();  // (the skin keeps its displacements)
  const Vec3 shift = state_.orientation * d;
  state_.position += shift;
  state_.velocity += (state_.orientation * state_.angularVelocity).cross(shift);
  model_ = std::move(model);
  elastic_ = std::make_unique<ConstantStiffness>(model_);  // (Mt_e follows at the next step: its key changed)
  desc_ = desc;
  solverHoldsSkin_ = false;  // (the solver's copy was the old model's)
  ySolve_.reset(model_->nodeCount());
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
  return {model_->fingerprint, op_.key().dt, op_.key().method, state(), supported_, ySolve_.history(),
          previousContacts_, drag_};
}

void LayeredBody::restore(const Snapshot& snap) {
  if (snap.model != model_->fingerprint)
    throw std::invalid_argument("LayeredBody::restore: body '" + desc_.name +
                                "': the snapshot was taken with another model (its material changed since)");
  if (snap.dt > 0)  // (the operator the warm start belongs to)
    op_.prepare(model_, *elastic_, operatorKey(snap.dt, snap.method));
  // the whole state is replaced: nothing to read back first (as editState() would)
  state_ = snap.state;
  mirrorStale_ = false;
  solverHoldsSkin_ = false;  // (the solver's copy is loaded again at the next step)
  supported_ = snap.supported;
  gatherLoadForces();
  buildNodeForces();
  ySolve_.restore(snap.warmStart, op_);
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

ImplicitOperator::Key LayeredBody::operatorKey(double dt, SolverMethod method) const {
  return ImplicitOperator::keyFor(*model_, *elastic_, desc_.material, dt, method);
}

}  // namespace d2t
