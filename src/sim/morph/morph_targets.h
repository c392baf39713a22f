#pragma once
// A body's dynamic morph targets, baked (dissertation ch. 5; docs/decisions/0042): per
// target i its rest-shape displacement d_i = X_i - X_1 (body frame, on the body's atlas),
// its stiffness K_i assembled on X_i with its own material (the body's tets), t_i = K_i d_i
// and 1/2 d_i^T K_i d_i, so that the force polynomial R_i(q) = K_i (q - d_i) (5.1.2) blends
// linearly: R(q, s) = K(s) q - f0(s), K = sum b_i K_i, f0 = sum b_i t_i (5.2'). The core,
// the atlas and the masses are the first target's (the body's): 5.1.1's inertial
// properties are not in (5.1). Immutable after bakeMorphTargets.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/model/atlas.h"
#include "sim/morph/pose_rbf.h"
#include "sim/scene/morph_targets_desc.h"

namespace d2t {

struct BakedBody;
struct BodyDesc;
struct ModalBasis;

struct MorphTarget {
  std::string name;
  std::vector<double> pose;
  std::vector<Vec3> d;                                 ///< (nnode) X_i - X_1, body frame [m]
  std::vector<std::array<Mat3, kStencilSlots>> K;      ///< (nnode x 7) K_i [N/m]
  std::vector<Vec3> t;                                 ///< (nnode) K_i d_i [N]
  double restEnergy = 0;                               ///< 1/2 d_i^T K_i d_i [J]
  /// (ntet) the tets' moduli with the target's material; empty: the body's (tetYoung, tetPoisson)
  std::vector<double> tetYoung, tetPoisson;
  /// The first target equal to this one (d and K bit for bit; itself if none): equal
  /// targets' weights are summed before the blend, so that copies of the body blend to
  /// exactly the body.
  int same = 0;
  double maxDisplacement = 0;                          ///< max |d_i| [m]
  /// max over nodes of |K_i - K_1| / |K_1| (Frobenius over the node's 7 blocks): how far a
  /// unit of its weight moves K_e (the frozen operator's drift, MorphElasticity).
  double stiffnessSpread = 0;
};

struct MorphTargetSet {
  std::shared_ptr<const MorphTargetsDesc> desc;
  std::vector<MorphTarget> targets;  ///< targets[0]: the body itself (d = 0, K = the body's K_e)
  PoseRbf rbf;
  /// (nnode) nodes whose stencil blocks or rest force differ between some targets (the
  /// blend writes only these; the others keep the body's blocks).
  std::vector<char> varies;
  double bakeSeconds = 0;  ///< the targets' bake (shapes, stiffness, RBF, basis) [s]
  /// The reduced skin's basis where the scene asks for "reduction" (ch. 5.4), else null.
  std::shared_ptr<const ModalBasis> basis;

  int count() const { return int(targets.size()); }
};

/// Bakes `desc.morph` on the body's baked model (its atlas, tets, core and masses).
/// Throws InputError naming the body and the target: a shape that inverts or flattens a
/// tetrahedron (folds the skin or pokes the core out), a non-finite displacement.
std::shared_ptr<const MorphTargetSet> bakeMorphTargets(const BodyDesc& desc, const BakedBody& body);

/// A target's rest skin in the shape frame: the body's rest points g displaced by `ops`
/// in order (the body's atlas directions and layer directions).
std::vector<Vec3> targetRestSkin(const BakedBody& body, const std::vector<TargetShapeOp>& ops);

}  // namespace d2t
