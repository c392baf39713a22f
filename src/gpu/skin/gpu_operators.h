#pragma once
// The operators of a body's time step as the GPU passes read them (docs/gpu.md): K_e's
// 3x3 blocks by stencil slot and the rest force f0 (following the elastic model's version), the rows of Mh_e^-1
// and the coupling columns W_t, W_r (following the implicit operator's version), the
// scales of Mt_e = c_M M_e + c_K K_e, and the parts of the core sums that do not depend
// on the skin state, summed once in double.
#include "gpu/skin/atlas_passes.h"
#include "sim/body/layered_body.h"

namespace d2t {

class GpuOperators {
 public:
  /// Allocates the textures and uploads the baked K_e. Throws GlError.
  explicit GpuOperators(AtlasPasses& passes);
  /// Follows the body's elastic model and implicit operator (uploads what changed).
  /// Throws std::logic_error if the body's operators are not prepared for a time step.
  void sync(const BodyView& body);

  const GlTexture& stiffness() const { return k_; }      ///< layer D2T_BLOCK_LAYER(k, r): row r of slot k
  /// The implicit operator's K_e (ElasticModel::operatorStiffness): the same texture as
  /// stiffness() unless the model lets it lag.
  const GlTexture& operatorStiffness() const { return operatorLags_ ? kOp_ : k_; }
  /// The elastic model's rest force f0 (a field, body frame; zero where the model has none).
  const GlTexture& restForce() const { return f0_; }
  bool hasRestForce() const { return hasRestForce_; }
  double restEnergy() const { return restEnergy_; }     ///< c of W = 1/2 q^T K q - q^T f0 + c [J]
  const GlTexture& diagInverse() const { return hinv_; } ///< layer r: row r of Mh_i^-1
  const GlTexture& translational() const { return wt_; }  ///< layer j: W_t[j]
  const GlTexture& rotational() const { return wr_; }     ///< layer j: W_r[j]
  double scaleMass() const { return scaleMass_; }            ///< c_M = 1 + dt alpha
  double scaleStiffness() const { return scaleStiffness_; }  ///< c_K = dt beta + dt^2

  /// The core sums' parts over the rest shape and the cached coupling columns.
  struct RestSums {
    Vec3 st = Vec3::Zero();                               ///< sum m ub
    Mat3 uu = Mat3::Zero();                               ///< sum m ub ub^T
    Mat3 mWt = Mat3::Zero(), mWr = Mat3::Zero();          ///< columns: sum m W[j]
    Mat3 mubWt = Mat3::Zero(), mubWr = Mat3::Zero();      ///< columns: sum m ub x W[j]
    CondensedSums condensed;                              ///< CondensedSums at q = 0
  };
  const RestSums& rest() const { return rest_; }

  /// The contact response's Mh_e^-1 with the listed nodes (node, d_i) held on the core
  /// (SkinResponse::holdOnCore): a copy of diagInverse() with heldInverse() at their
  /// texels, and the condensation's rest part with it. None listed: diagInverse().
  void hold(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held);
  const GlTexture& responseInverse() const { return holding_ ? heldHinv_ : hinv_; }
  const CondensedSums& responseCondensed() const { return holding_ ? heldCondensed_ : rest_.condensed; }

 private:
  void uploadStiffness(const GlTexture& t, const StencilBlocks& K);  // K_e's blocks (layout.glsl: D2T_BLOCK_LAYER)

  AtlasPasses& passes_;
  GlTexture k_, hinv_, wt_, wr_, f0_, kOp_;
  uint64_t stiffnessVersion_ = 0;  // the elastic model's version that k_ and f0_ hold
  uint64_t operatorStiffnessVersion_ = 0;  // ... its operator version that kOp_ holds
  bool operatorLags_ = false;
  bool hasRestForce_ = false;
  double restEnergy_ = 0;
  BodyId preparedBody_ = nullptr;  // the body and operator version hinv_, wt_, wr_ hold
  int preparedVersion_ = -1;
  double scaleMass_ = 1, scaleStiffness_ = 0;
  RestSums rest_;
  bool holding_ = false;
  GlTexture heldHinv_;           // hold()'s Mh_e^-1 (made at its first use)
  CondensedSums heldCondensed_;  // ... and the condensation's rest part with it
};

}  // namespace d2t
