// A soft articulated character's queries and controls (articulated_body.h): anchors, node
// positions and velocities, momenta, energies, the mass block used, the joints' gains, bone
// springs and the drag.
#include "sim/character/articulated_body.h"

#include <stdexcept>
#include <string>

namespace d2t {

using Mat6 = Eigen::Matrix<double, 6, 6>;

// ---- queries ----------------------------------------------------------------------------------

Vec3 ArticulatedBody::childAnchor(int jn) const {
  const Joint& j = model_->skeleton.joints[size_t(jn)];
  const Bone& b = model_->skeleton.bones[size_t(j.child)];
  const CoreState& s = state_.bones[size_t(j.child)];
  return s.position + s.orientation * (b.bindOrientation.conjugate() * (j.anchor - b.bindPosition));
}

Vec3 ArticulatedBody::parentAnchor(int jn) const {
  const Joint& j = model_->skeleton.joints[size_t(jn)];
  if (j.parent < 0) return worldAnchor_[size_t(jn)];
  const Bone& b = model_->skeleton.bones[size_t(j.parent)];
  const CoreState& s = state_.bones[size_t(j.parent)];
  return s.position + s.orientation * (b.bindOrientation.conjugate() * (j.anchor - b.bindPosition));
}

void ArticulatedBody::setJointGains(int joint, double stiffness, double damping) {
  if (!(stiffness >= 0) || !(damping >= 0))
    throw std::invalid_argument("setJointGains: stiffness and damping must be >= 0");
  gains_[size_t(joint)] = {stiffness, damping};
}

Vec3 ArticulatedBody::boneSpringPoint(const BoneSpring& sp) const {
  const Bone& bone = model_->skeleton.bones[size_t(sp.bone)];
  const CoreState& s = state_.bones[size_t(sp.bone)];
  return s.position + s.orientation * (bone.bindOrientation.conjugate() * (sp.point - bone.bindPosition));
}

void ArticulatedBody::beginDrag(int node, const Vec3& target, double stiffness, double damping) {
  if (node < 0 || node >= model_->nodeCount() || !(stiffness > 0) || !(damping >= 0))
    throw std::invalid_argument("ArticulatedBody::beginDrag: no node " + std::to_string(node) +
                                " or a stiffness not > 0 / damping < 0");
  drag_ = {node, target, stiffness, damping};
}

double ArticulatedBody::jointAngle(int j) const {
  return d2t::jointAngle(model_->skeleton, model_->skeleton.joints[size_t(j)], state_.bones, placement_.orientation);
}

Vec3 ArticulatedBody::nodePositionIn(const CharacterState& st, int p) const {
  const CharacterModel& m = *model_;
  const Influences& in = m.influence[size_t(p)];
  const Vec3 u = m.restSkin[size_t(p)] + st.q[size_t(p)];
  Vec3 x = Vec3::Zero();
  for (int a = 0; a < in.count; ++a) {
    const Bone& b = m.skeleton.bones[size_t(in.bone[size_t(a)])];
    const CoreState& s = st.bones[size_t(in.bone[size_t(a)])];
    x += in.weight[size_t(a)] * (s.position + s.orientation * (b.bindOrientation.conjugate() * (u - b.bindPosition)));
  }
  return x;
}

Vec3 ArticulatedBody::nodePosition(int p) const { return nodePositionIn(state_, p); }

Vec3 ArticulatedBody::nodeVelocity(int p) const {
  const CharacterModel& m = *model_;
  const Influences& in = m.influence[size_t(p)];
  const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
  Vec3 v = Vec3::Zero();
  for (int a = 0; a < in.count; ++a) {
    const Bone& b = m.skeleton.bones[size_t(in.bone[size_t(a)])];
    const CoreState& s = state_.bones[size_t(in.bone[size_t(a)])];
    const Quat Ro = b.bindOrientation.conjugate();
    const Vec3 upi = Ro * (u - b.bindPosition);
    v += in.weight[size_t(a)] *
         (s.velocity + s.orientation * (s.angularVelocity.cross(upi) + Ro * state_.qdot[size_t(p)]));
  }
  return v;
}

ArticulatedBody::BoneFrames ArticulatedBody::frames() const {
  const Skeleton& sk = model_->skeleton;
  BoneFrames f;
  for (int b = 0; b < sk.boneCount(); ++b) {
    const CoreState& s = state_.bones[size_t(b)];
    f.R.push_back(s.orientation.toRotationMatrix());
    f.P.push_back(f.R.back() * sk.bones[size_t(b)].bindOrientation.conjugate().toRotationMatrix());
    f.W.push_back(f.R.back() * s.angularVelocity);
  }
  return f;
}

void ArticulatedBody::nodeAt(const BoneFrames& f, int p, Vec3* x, Vec3* v, Mat3* P) const {
  const CharacterModel& m = *model_;
  const Influences& in = m.influence[size_t(p)];
  const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
  if (x) x->setZero();
  if (v) v->setZero();
  if (P) P->setZero();
  for (int a = 0; a < in.count; ++a) {
    const size_t b = size_t(in.bone[size_t(a)]);
    const double w = in.weight[size_t(a)];
    const CoreState& s = state_.bones[b];
    const Vec3 lever = f.P[b] * (u - m.skeleton.bones[b].bindPosition);  // R_i u_pi
    if (x) *x += w * (s.position + lever);
    if (v) *v += w * (s.velocity + f.W[b].cross(lever) + f.P[b] * state_.qdot[size_t(p)]);
    if (P) *P += w * f.P[b];
  }
}

Vec3 ArticulatedBody::innerPointAt(const BoneFrames& f, int p) const {
  const CharacterModel& m = *model_;
  const Influences& in = m.influence[size_t(p)];
  Vec3 x = Vec3::Zero();
  for (int a = 0; a < in.count; ++a) {
    const size_t b = size_t(in.bone[size_t(a)]);
    x += in.weight[size_t(a)] * (state_.bones[b].position + f.P[b] * (m.inner[size_t(p)] - m.skeleton.bones[b].bindPosition));
  }
  return x;
}

void ArticulatedBody::skinState(std::vector<Vec3>& x, std::vector<Vec3>& v) const {
  const BoneFrames f = frames();
  x.resize(size_t(model_->nodeCount()));
  v.resize(size_t(model_->nodeCount()));
  for (int p = 0; p < model_->nodeCount(); ++p) nodeAt(f, p, &x[size_t(p)], &v[size_t(p)], nullptr);
}

std::vector<Vec3> ArticulatedBody::skinPositions() const {
  const BoneFrames f = frames();
  std::vector<Vec3> x(size_t(model_->nodeCount()));
  for (int p = 0; p < model_->nodeCount(); ++p) nodeAt(f, p, &x[size_t(p)], nullptr, nullptr);
  return x;
}

// sum_p m_p xdot_p with xdot_p = sum_i w_pi (cdot_i + W_i x P_i (u_p - c_i) + P_i qdot_p) is, bone
// by bone, (sum m w) cdot_i + W_i x P_i sum m w (u_p - c_i) + P_i sum m w qdot_p: the nodes
// give three sums per bone (a node's velocity, nodeAt, costs three 3x3 products per influence)
Vec3 ArticulatedBody::linearMomentum() const {
  const CharacterModel& m = *model_;
  const int k = m.boneCount();
  std::vector<double> Sm(static_cast<size_t>(k), 0.0);
  std::vector<Vec3> Su(static_cast<size_t>(k), Vec3::Zero()), Sq(static_cast<size_t>(k), Vec3::Zero());
  for (int p = 0; p < m.nodeCount(); ++p) {
    const Influences& in = m.influence[size_t(p)];
    const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
    for (int a = 0; a < in.count; ++a) {
      const size_t b = size_t(in.bone[size_t(a)]);
      const double mw = m.nodeMass[size_t(p)] * in.weight[size_t(a)];
      Sm[b] += mw;
      Su[b] += mw * u;
      Sq[b] += mw * state_.qdot[size_t(p)];
    }
  }
  const BoneFrames f = frames();
  Vec3 P = Vec3::Zero();
  for (int b = 0; b < k; ++b) {
    const CoreState& s = state_.bones[size_t(b)];
    const Vec3 lever = f.P[size_t(b)] * (Su[size_t(b)] - Sm[size_t(b)] * m.skeleton.bones[size_t(b)].bindPosition);
    P += (m.linkMass[size_t(b)] + Sm[size_t(b)]) * s.velocity + f.W[size_t(b)].cross(lever) + f.P[size_t(b)] * Sq[size_t(b)];
  }
  return P;
}

Vec3 ArticulatedBody::angularMomentum() const {
  const CharacterModel& m = *model_;
  Vec3 L = Vec3::Zero();
  for (int b = 0; b < m.boneCount(); ++b) {
    const CoreState& s = state_.bones[size_t(b)];
    L += m.linkMass[size_t(b)] * s.position.cross(s.velocity) +
         s.orientation * (m.linkInertia[size_t(b)] * s.angularVelocity);
  }
  const BoneFrames f = frames();
  Vec3 x, v;
  for (int p = 0; p < m.nodeCount(); ++p) {
    nodeAt(f, p, &x, &v, nullptr);
    L += m.nodeMass[size_t(p)] * x.cross(v);
  }
  return L;
}

Vec3 ArticulatedBody::centreOfMass() const {
  const CharacterModel& m = *model_;
  Vec3 s = Vec3::Zero();
  for (int b = 0; b < m.boneCount(); ++b) s += m.linkMass[size_t(b)] * state_.bones[size_t(b)].position;
  const BoneFrames f = frames();
  Vec3 x;
  for (int p = 0; p < m.nodeCount(); ++p) {
    nodeAt(f, p, &x, nullptr, nullptr);
    s += m.nodeMass[size_t(p)] * x;
  }
  return s / m.totalMass;
}

double ArticulatedBody::kineticEnergy() const {
  const CharacterModel& m = *model_;
  double e = 0;
  for (int b = 0; b < m.boneCount(); ++b) {
    const CoreState& s = state_.bones[size_t(b)];
    e += 0.5 * (m.linkMass[size_t(b)] * s.velocity.squaredNorm() +
                s.angularVelocity.dot(m.linkInertia[size_t(b)] * s.angularVelocity));
  }
  const BoneFrames f = frames();
  Vec3 v;
  for (int p = 0; p < m.nodeCount(); ++p) {
    nodeAt(f, p, nullptr, &v, nullptr);
    e += 0.5 * m.nodeMass[size_t(p)] * v.squaredNorm();
  }
  return e;
}

double ArticulatedBody::potentialEnergy(const Vec3& gravity) const {
  const CharacterModel& m = *model_;
  double e = -m.totalMass * gravity.dot(centreOfMass());
  std::vector<Vec3> kq;
  m.multiplyK(state_.q, kq);
  for (int p = 0; p < m.nodeCount(); ++p) e += 0.5 * state_.q[size_t(p)].dot(kq[size_t(p)]);
  for (size_t j = 0; j < m.skeleton.joints.size(); ++j) {
    Joint jt = m.skeleton.joints[j];
    jt.target = targets_[j];
    e += 0.5 * gains_[j].first * jointError(m.skeleton, jt, state_.bones, placement_.orientation).squaredNorm();
  }
  for (const BoneSpring& sp : springs_) e += 0.5 * sp.stiffness * (boneSpringPoint(sp) - sp.anchor).squaredNorm();
  return e;
}

Mat6 ArticulatedBody::boneMassMatrix(int b) const { return boneMassMatrices()[size_t(b)]; }

std::vector<Mat6> ArticulatedBody::boneMassMatrices() const {
  const CharacterModel& m = *model_;
  const int k = m.boneCount();
  const BoneFrames f = frames();
  std::vector<double> Sm(size_t(k), 0.0);
  std::vector<Vec3> Sv(size_t(k), Vec3::Zero());
  std::vector<Mat3> Svv(size_t(k), Mat3::Zero());
  for (int p = 0; p < m.nodeCount(); ++p) {
    const Influences& in = m.influence[size_t(p)];
    for (int a = 0; a < in.count; ++a) {
      const size_t b = size_t(in.bone[size_t(a)]);
      const double mw = m.nodeMass[size_t(p)] * in.weight[size_t(a)];
      const Vec3 v = f.P[b] * (m.restSkin[size_t(p)] + state_.q[size_t(p)] - m.skeleton.bones[b].bindPosition);
      Sm[b] += mw;
      Sv[b] += mw * v;
      Svv[b] += mw * (v.squaredNorm() * Mat3::Identity() - v * v.transpose());
    }
  }
  std::vector<Mat6> out(static_cast<size_t>(k));
  for (int b = 0; b < k; ++b) out[size_t(b)] = massBlock(b, Sm[size_t(b)], Sv[size_t(b)], Svv[size_t(b)], f.R[size_t(b)]);
  return out;
}

void ArticulatedBody::setRigidSkin(bool rigid) {
  rigidSkin_ = rigid;
  if (!rigid) return;
  std::fill(state_.q.begin(), state_.q.end(), Vec3::Zero());
  std::fill(state_.qdot.begin(), state_.qdot.end(), Vec3::Zero());
  setContactSupport(false);
}

}  // namespace d2t
