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
  setBlend(mem.blended);
  operatorWeights_ = mem.operatorWeights;
  operatorVersion_ = versionAt(operatorWeights_);
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

bool MorphElasticity::reducedForce(const ModalBasis& basis, const Eigen::VectorXd& z, Eigen::VectorXd* force,
                                   Eigen::MatrixXd* tangent, double* energy) const {
  if (&basis != set_->basis.get()) return false;
  if (!basis.stvk.empty()) {  // one cubic in z: the targets' shifted polynomials blended at b (5.8)
    if (stvkWeights_.size() != blended_.size() || stvkWeights_ != blended_) {
      stvkBlend_ = ReducedStvk{};
      for (int i = 0; i < set_->count(); ++i)  // (the weights are summed onto each first equal target)
        if (blended_[i] != 0) stvkBlend_.add(blended_[i], basis.stvk[size_t(i)]);
      stvkWeights_ = blended_;
    }
    stvkBlend_.evaluate(z, force, tangent, energy);
    return true;
  }
  if (force) force->setZero(basis.r);
  if (tangent) tangent->setZero(basis.r, basis.r);
  if (energy) *energy = 0;
  for (int i = 0; i < set_->count(); ++i) {  // (the weights are summed onto each first equal target)
    const double b = blended_[i];
    if (b == 0) continue;
    const Eigen::VectorXd x = z - basis.shapes.col(i);
    const Eigen::MatrixXd& k = basis.stiffness[size_t(i)];
    const Eigen::VectorXd kx = k * x;
    if (force) *force += b * kx;
    if (tangent) *tangent += b * k;
    if (energy) *energy += 0.5 * b * x.dot(kx);
  }
  return true;
}

void MorphElasticity::setBlend(const Eigen::VectorXd& b) {
  blended_ = b;
  c_ = 0;
  for (int i = 0; i < set_->count(); ++i)
    if (b[i] != 0) c_ += b[i] * set_->targets[size_t(i)].restEnergy;
  version_ = versionAt(b);
}

const StencilBlocks& MorphElasticity::stiffness() const {
  return own(blended_) ? model_->stiffness : blendAt(blended_, now_).blocks;
}

const std::vector<Vec3>& MorphElasticity::restForce() const {
  static const std::vector<Vec3> none;
  return own(blended_) ? none : blendAt(blended_, now_).f0;
}

const StencilBlocks& MorphElasticity::operatorStiffness() const {
  if (operatorVersion_ == version_) return stiffness();
  return own(operatorWeights_) ? model_->stiffness : blendAt(operatorWeights_, operator_).blocks;
}

uint64_t MorphElasticity::versionAt(const Eigen::VectorXd& b) const {
  if (own(b)) return model_->fingerprint;
  Fnv1a h;
  h.bytes(&model_->fingerprint, sizeof model_->fingerprint);
  h.numbers(b.data(), size_t(b.size()));
  return h.value();
}

const MorphElasticity::NodalBlend& MorphElasticity::blendAt(const Eigen::VectorXd& b, NodalBlend& cache) const {
  const int m = set_->count();
  const BakedBody& body = *model_;
  const int n = body.nodeCount();
  if (cache.weights.size() == b.size() && cache.weights == b) return cache;
  // (the nodes that do not vary keep the body's blocks and no rest force: written once)
  if (cache.blocks.size() != size_t(n)) cache.blocks = body.stiffness;
  if (cache.f0.size() != size_t(n)) cache.f0.assign(size_t(n), Vec3::Zero());
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
    cache.blocks[size_t(j)] = k;
    cache.f0[size_t(j)] = f;
  }
  cache.weights = b;
  return cache;
}

}  // namespace d2t
