#pragma once
// The dynamic morph targets' elastic model (dissertation ch. 5, eq. 5.1-5.2'): at pose s,
// K(s) = sum b_i(s) K_i and f0(s) = sum b_i(s) K_i d_i, so the skin's elastic force is
// -K(s) q + f0(s) and its energy W(q, s) = sum b_i 1/2 (q - d_i)^T K_i (q - d_i); at a fixed
// pose, R = dW/dq. The weights b_i are the pose RBF's (pose_rbf.h). Equal targets' weights
// are summed first: where only the body's own target weighs, K is the body's K_e and f0 = 0
// bit for bit, and the version is the constant model's (nothing is rebuilt). The blend
// writes only the nodes where targets differ (MorphTargetSet::varies). The implicit
// operator's K_e lags behind (operatorStiffness): docs/decisions/0042. The nodal blends are
// lazy: made when stiffness(), restForce() or operatorStiffness() is first read at new weights
// (a reduced skin stepping in z reads none of them: its force is reducedForce's, O(m r^2)).
#include <memory>
#include <vector>

#include "sim/body/elastic_model.h"
#include "sim/morph/morph_targets.h"
#include "sim/morph/reduced_stvk.h"

namespace d2t {

class MorphElasticity final : public ElasticModel {
 public:
  /// model->morph must be set.
  explicit MorphElasticity(BakedBodyPtr model);

  const StencilBlocks& stiffness() const override;
  const std::vector<Vec3>& restForce() const override;
  double restEnergy() const override { return c_; }
  uint64_t version() const override { return version_; }
  /// The implicit operator's K_e: the blend at the weights of its last rebuild, which
  /// follows the pose once K_e may have drifted from it by kOperatorDrift (relative:
  /// sum |b_i - b_op,i| spread_i, MorphTarget::stiffnessSpread), or once the pose holds
  /// (the weights unchanged over a step): a frozen Jacobian, so that a moving pose does
  /// not refactor Mt_e every step (a 384-node body: 2.3 ms against a 0.15 ms step). The
  /// linearised step stays stable while K_e < 2 K_op (a mode's stiff limit).
  const StencilBlocks& operatorStiffness() const override;
  uint64_t operatorVersion() const override { return operatorVersion_; }
  /// sum b_op,i U^T K_i U from the basis' reduced coefficients (its own basis only): O(m r^2).
  bool projectedOperatorStiffness(const ModalBasis& basis, Eigen::MatrixXd& out) const override;
  /// At the blend's weights b_i, R~(z) = sum b_i R~_i(z - d~_i) with the targets' reduced
  /// force polynomials: linear, K~_i x (U^T K_i U), or reduced StVK (the basis' stvk, appendix
  /// D); W = sum b_i W_i(z - d~_i). O(m r^2) linear; StVK: the polynomials blended once per
  /// change of the weights, O(m r^4 / 4), then one cubic, O(r^4 / 4) (its own basis only).
  bool reducedForce(const ModalBasis& basis, const Eigen::VectorXd& z, Eigen::VectorXd* force,
                    Eigen::MatrixXd* tangent, double* energy) const override;
  static constexpr double kOperatorDrift = 0.1;

  /// Sets the pose (one value per channel; throws std::invalid_argument otherwise) and
  /// blends where the effective weights changed.
  void setPose(const std::vector<double>& s);
  /// Off: the body's own target alone (K_e, f0 = 0), whatever the pose.
  void setEnabled(bool on);
  bool enabled() const { return enabled_; }

  /// What a snapshot of the body keeps of it (the pose, and the weights of the blend and
  /// of the operator's: restore() gives the same blocks and versions, bit for bit).
  struct Memory {
    std::vector<double> pose;
    bool enabled = true;
    Eigen::VectorXd weights, blended, operatorWeights;
  };
  Memory memory() const { return {pose_, enabled_, weights_, blended_, operatorWeights_}; }
  void restore(const Memory& m);

  const std::vector<double>& pose() const { return pose_; }
  /// b_i at the pose (clamped as the scene says), in target order; e_1 while disabled.
  const Eigen::VectorXd& weights() const { return weights_; }
  /// The RBF's unclamped weights at the pose (negative ones show where K(s) may be indefinite).
  Eigen::VectorXd rawWeights() const { return set_->rbf.rawWeights(pose_); }
  const MorphTargetSet& targets() const { return *set_; }

 private:
  // a nodal blend: K and f0 at `weights` where targets differ (the body's elsewhere)
  struct NodalBlend {
    Eigen::VectorXd weights;  // (empty: none yet)
    StencilBlocks blocks;
    std::vector<Vec3> f0;
  };
  // the nodal blend at summed weights b (not e_1: the body's own), made into `cache` if it
  // holds other weights
  const NodalBlend& blendAt(const Eigen::VectorXd& b, NodalBlend& cache) const;
  bool own(const Eigen::VectorXd& b) const { return b == Eigen::VectorXd::Unit(set_->count(), 0); }
  uint64_t versionAt(const Eigen::VectorXd& b) const;  // the model's fingerprint at e_1
  void blend();
  void setBlend(const Eigen::VectorXd& b);  // the weights, c and the version at the summed weights b
  BakedBodyPtr model_;
  const MorphTargetSet* set_;
  std::vector<double> pose_;
  bool enabled_ = true;
  Eigen::VectorXd weights_;   // b (per target)
  Eigen::VectorXd blended_;   // the weights of the blend (summed over equal targets)
  mutable NodalBlend now_;    // at blended_ (lazy)
  mutable NodalBlend operator_;  // at operatorWeights_ (lazy)
  mutable ReducedStvk stvkBlend_;        // (reduced StVK) the targets' polynomials blended at ...
  mutable Eigen::VectorXd stvkWeights_;  // ... these weights (lazy)
  double c_ = 0;
  uint64_t version_ = 0;
  Eigen::VectorXd operatorWeights_;  // the blend's weights at the operator's last rebuild
  uint64_t operatorVersion_ = 0;
  void followOperator(bool settled);
};

}  // namespace d2t
