#pragma once
// The skin's elastic model: the stiffness K_e of eq. (3.3) on the 7-slot stencil,
// as the step uses it (the elastic force -K_e q, the operator Mt_e, the support).
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

/// 3x3 blocks over the 7-slot stencil: block s of node i couples node i to node
/// stencil[i][s] (BakedBody::stiffness's layout).
using StencilBlocks = std::vector<std::array<Mat3, kStencilSlots>>;

class ElasticModel {
 public:
  virtual ~ElasticModel() = default;
  /// K_e's blocks at the body's current configuration [N/m].
  virtual const StencilBlocks& stiffness() const = 0;
  /// Changes whenever stiffness() does (a 64-bit value: equal versions, equal blocks).
  virtual uint64_t version() const = 0;
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
