#pragma once
// The skin's elastic model: the stiffness K_e of eq. (3.3) on the 7-slot stencil and a
// rest force f0, as the step uses them (the elastic force -K_e q + f0, the operator Mt_e,
// the support, the energy W = 1/2 q^T K_e q - q^T f0 + c).
// A seam: constant K_e (linear FEM, the DDT paper's model) is the first model; a
// pose-dependent stiffness (dynamic morph targets, dissertation ch. 5) is the next.
// Whatever depends on K_e (the CPU operator and its factor, ImplicitOperator; the
// GPU's stiffness texture) follows version(): a model that changes its blocks
// changes its version.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/model/baked_body.h"

namespace d2t {

struct ModalBasis;

/// 3x3 blocks over the 7-slot stencil: block s of node i couples node i to node
/// stencil[i][s] (BakedBody::stiffness's layout).
using StencilBlocks = std::vector<std::array<Mat3, kStencilSlots>>;

class ElasticModel {
 public:
  virtual ~ElasticModel() = default;
  /// K_e's blocks at the body's current configuration [N/m].
  virtual const StencilBlocks& stiffness() const = 0;
  /// The rest force f0 (body frame, one per node) [N]; empty: none (f0 = 0).
  virtual const std::vector<Vec3>& restForce() const { return kNoForce; }
  /// c of the energy W = 1/2 q^T K_e q - q^T f0 + c (W's value at q = 0) [J].
  virtual double restEnergy() const { return 0; }
  /// Changes whenever stiffness(), restForce() or restEnergy() do (a 64-bit value: equal
  /// versions, equal blocks).
  virtual uint64_t version() const = 0;
  /// The K_e the implicit operator Mt_e is built on: the Jacobian of the step's linearised
  /// backward Euler (eq. 3.6). A model whose K_e changes every step may let it lag behind
  /// stiffness() (a frozen Jacobian, rebuilt when it drifts): the forces, the energy and so
  /// the equilibria use stiffness() exactly; only the implicit solve's matrix lags.
  virtual const StencilBlocks& operatorStiffness() const { return stiffness(); }
  /// Changes whenever operatorStiffness() does (the operator's key).
  virtual uint64_t operatorVersion() const { return version(); }
  /// U^T operatorStiffness() U for a modal basis (the reduced operator, ch. 5.4) into out,
  /// where the model keeps it projected (false: the operator projects the blocks itself).
  virtual bool projectedOperatorStiffness(const ModalBasis& basis, Eigen::MatrixXd& out) const {
    (void)basis, (void)out;
    return false;
  }
  /// The elastic force in a modal basis' coordinates (ch. 5.4-5.5; u = U z, U^T M U = I):
  /// R~(z) = U^T R(U z) into *force (the reduced elastic force is -R~), its tangent dR~/dz
  /// into *tangent and the energy W(U z) into *energy, each where asked; false where the model
  /// has no reduced form for this basis (the reduced step then projects the nodal force).
  virtual bool reducedForce(const ModalBasis& basis, const Eigen::VectorXd& z, Eigen::VectorXd* force,
                            Eigen::MatrixXd* tangent, double* energy) const {
    (void)basis, (void)z, (void)force, (void)tangent, (void)energy;
    return false;
  }

 private:
  static inline const std::vector<Vec3> kNoForce{};
};

/// Linear FEM: the baked K_e, the same in every configuration (DDT paper sec. 4).
class ConstantStiffness final : public ElasticModel {
 public:
  explicit ConstantStiffness(BakedBodyPtr model) : model_(std::move(model)) {}
  const StencilBlocks& stiffness() const override { return model_->stiffness; }
  /// The model's fingerprint (it hashes K_e's blocks).
  uint64_t version() const override { return model_->fingerprint; }

 private:
  BakedBodyPtr model_;
};

}  // namespace d2t
