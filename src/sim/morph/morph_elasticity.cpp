// MorphElasticity (morph_elasticity.h): the pose's weights and the blend of the targets'
// stencil blocks and rest forces (5.2').
#include "sim/morph/morph_elasticity.h"

#include <cmath>
#include <stdexcept>

#include "sim/base/hash.h"
#include "sim/morph/modal_basis.h"

namespace d2t {

MorphElasticity::MorphElasticity(BakedBodyPtr model) : model_(std::move(model)), set_(model_->morph.get()) {
  if (!set_) throw std::invalid_argument("MorphElasticity: the model has no morph targets");
  k_ = &model_->stiffness;
  version_ = operatorVersion_ = model_->fingerprint;
  blended_ = operatorWeights_ = Eigen::VectorXd::Unit(set_->count(), 0);
  setPose(set_->targets[0].pose);
}

// The operator's blocks: kept while the weights stay within kOperatorDrift of those it was
// built at and the pose moves; the current blend's otherwise.
void MorphElasticity::followOperator(bool settled) {
  if (operatorVersion_ == version_) return;
  double drift = 0;
  for (int i = 0; i < set_->count(); ++i)
    drift += std::abs(blended_[i] - operatorWeights_[i]) * set_->targets[size_t(i)].stiffnessSpread;
  if (!settled && drift <= kOperatorDrift) return;
  operatorWeights_ = blended_;
  operatorVersion_ = version_;
  operatorBlocks_.clear();  // (operatorStiffness() is k_ now)
}

void MorphElasticity::setPose(const std::vector<double>& s) {
  if (s.size() != set_->targets[0].pose.size())
    throw std::invalid_argument("setPose: a pose of " + std::to_string(s.size()) + " values, the body's has " +
                                std::to_string(set_->targets[0].pose.size()) + " channels");
  for (double v : s)
    if (!std::isfinite(v)) throw std::invalid_argument("setPose: a pose value is not finite");
  pose_ = s;
  blend();
}

void MorphElasticity::setEnabled(bool on) {
  if (on == enabled_) return;  // (a blend of an unchanged pose would read as a pose that holds)
  enabled_ = on;
  blend();
}

void MorphElasticity::restore(const Memory& mem) {
  pose_ = mem.pose;
  enabled_ = mem.enabled;
  setBlend(mem.operatorWeights);
  operatorWeights_ = mem.operatorWeights;
  operatorVersion_ = version_;
  operatorBlocks_.clear();
  if (mem.blended != mem.operatorWeights) {
    operatorBlocks_ = *k_;
    setBlend(mem.blended);
  }
  weights_ = mem.weights;
}

void MorphElasticity::blend() {
  const int m = set_->count();
  weights_ = enabled_ ? set_->rbf.weights(pose_) : Eigen::VectorXd::Unit(m, 0);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(m);  // summed onto each group's first target
  for (int i = 0; i < m; ++i) b[set_->targets[size_t(i)].same] += weights_[i];
  // one distinct target weighs: it alone, exactly (the partition of unity up to rounding)
  int weighing = 0, last = 0;
  for (int i = 0; i < m; ++i)
    if (b[i] != 0) ++weighing, last = i;
  if (weighing == 1) b = Eigen::VectorXd::Unit(m, last);
  if (b == blended_) {  // (the pose holds: the operator catches up)
    followOperator(true);
    return;
  }
  // the blocks the operator was built on, before the blend overwrites them
  if (operatorVersion_ == version_) operatorBlocks_ = *k_;
  setBlend(b);
  followOperator(false);
}

bool MorphElasticity::projectedOperatorStiffness(const ModalBasis& basis, Eigen::MatrixXd& out) const {
  if (&basis != set_->basis.get()) return false;
  out.setZero(basis.r, basis.r);
  for (int i = 0; i < set_->count(); ++i)  // (the weights are summed onto each first equal target)
    if (operatorWeights_[i] != 0) out += operatorWeights_[i] * basis.stiffness[size_t(i)];
  return true;
}

void MorphElasticity::setBlend(const Eigen::VectorXd& b) {
  const int m = set_->count();
  blended_ = b;
  const BakedBody& body = *model_;
  const int n = body.nodeCount();
  if (b == Eigen::VectorXd::Unit(m, 0)) {  // the body's own: its K_e, no rest force
    k_ = &body.stiffness;
    f0_.clear();
    c_ = 0;
    version_ = body.fingerprint;
    return;
  }
  // (the nodes that do not vary keep the body's blocks and no rest force: written once)
  if (blocks_.size() != size_t(n)) blocks_ = body.stiffness;
  if (f0_.size() != size_t(n)) f0_.assign(size_t(n), Vec3::Zero());
  c_ = 0;
  std::vector<int> used;
  for (int i = 0; i < m; ++i)
    if (b[i] != 0) used.push_back(i);
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int j = 0; j < n; ++j) {
    if (!set_->varies[size_t(j)]) continue;
    std::array<Mat3, kStencilSlots> k;
    for (Mat3& x : k) x.setZero();
    Vec3 f = Vec3::Zero();
    for (int i : used) {
      const MorphTarget& t = set_->targets[size_t(i)];
      for (int s = 0; s < kStencilSlots; ++s) k[size_t(s)] += b[i] * t.K[size_t(j)][size_t(s)];
      f += b[i] * t.t[size_t(j)];
    }
    blocks_[size_t(j)] = k;
    f0_[size_t(j)] = f;
  }
  for (int i : used) c_ += b[i] * set_->targets[size_t(i)].restEnergy;
  k_ = &blocks_;
  Fnv1a h;
  h.bytes(&body.fingerprint, sizeof body.fingerprint);
  h.numbers(b.data(), size_t(m));
  version_ = h.value();
}

}  // namespace d2t
