#pragma once
// "morph_targets" of a body (dissertation ch. 5, dynamic morph targets): example rest
// shapes and materials at poses, blended in pose space (sim/morph/ has the model).
// What a scene says, validated by readMorphTargets (morph_reader.cpp); baked by
// bakeMorphTargets. The first target is the body itself: its shape and material.
#include <memory>
#include <string>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

struct MaterialRegion;  // (scene.h)
class Shape;

/// One procedural displacement of the rest skin point g (shape frame), applied in order.
struct TargetShapeOp {
  enum class Type {
    Bulge,   ///< amplitude exp(-|g - c|^2 / (2 w^2)) along the layer's outward direction
    Crease,  ///< -depth exp(-dist(g, line)^2 / (2 w^2)) along it; the line through c along axis
    Scale,   ///< (diag(factor) - I) (g - c)
    Twist,   ///< g turned about the axis through c by rate (degrees per metre) x its axial offset
    Shape,   ///< the point where another shape meets the node's atlas ray (cube map) or (u, v) (torus)
  };
  Type type = Type::Bulge;
  Vec3 center = Vec3::Zero();      ///< c [m], shape frame
  Vec3 axis = Vec3::UnitY();       ///< unit (crease, twist)
  double amplitude = 0;            ///< bulge height [m] (negative: a dent)
  double width = 0.05;             ///< w [m] (bulge, crease)
  Vec3 factor = Vec3::Ones();      ///< scale factors [-]
  double rate = 0;                 ///< twist [deg/m]
  std::shared_ptr<const Shape> shape;  ///< (Shape)
};

/// One example: its rest shape, material and pose.
struct MorphTargetDesc {
  std::string name;
  std::vector<double> pose;            ///< one value per channel
  std::vector<TargetShapeOp> shape;    ///< displacements of the body's rest skin (none: the body's)
  bool hasMaterial = false;            ///< else the body's (young, poisson and regions)
  double young = 0, poisson = 0;       ///< [Pa], [-] (hasMaterial)
  std::vector<MaterialRegion> regions; ///< (hasMaterial) later regions override earlier ones
};

/// A keyframe of the pose track (linear between keys, held at the ends).
struct PoseKey {
  double time = 0;            ///< [s]
  std::vector<double> value;  ///< one value per channel
};

/// "reduction": the body's skin in a modal subspace (ch. 5.4): u = U z with U^T M U = I, U the
/// mass-PCA of every target's lowest modes and the targets' shapes (r = r* + m - 1).
struct ReductionDesc {
  int modesPerTarget = 20;  ///< k: the lowest modes of K_i u = lambda M u computed per target (5.9)
  int modes = 10;           ///< r*: the principal components kept of all targets' scaled modes (5.10)
  /// The body's static responses to the core's six loads added to the basis (gravity and the
  /// core's accelerations reach the skin exactly at rest; not in the thesis: r grows by 6;
  /// false gives the thesis's r = r* + m - 1).
  bool loadModes = true;
  /// "elasticity": "stvk": reduced St. Venant-Kirchhoff (appendix D), a cubic force in z per
  /// target; false ("linear"): the targets' linear force polynomials.
  bool stvk = false;
};

struct MorphTargetsDesc {
  std::vector<std::string> channels;     ///< the pose's coordinates ("activation", ...)
  std::vector<PoseKey> track;            ///< the pose over time (empty: the first target's pose)
  std::vector<MorphTargetDesc> targets;  ///< targets[0]: the body itself
  double smoothing = 0;                  ///< rho >= 0 of the RBF system [Phi - rho I] (0: exact at the examples)
  bool clampWeights = true;              ///< b <- b+ / sum b+ (keeps the blended stiffness positive definite)
  bool reduced = false;                  ///< "reduction" given: the skin steps in the modal subspace
  ReductionDesc reduction;               ///< (reduced)

  /// The track's pose at time t (the first target's pose when there is no track).
  std::vector<double> poseAt(double t) const;
};

/// How a body with morph targets takes its pose while it runs (World::setPoseControl): the
/// scene's track, or a pose the user holds (a panel's sliders); the targets on or off (off:
/// the body's own alone).
struct PoseControl {
  bool enabled = true;
  std::vector<double> manual;  ///< one value per channel; empty: the track's pose
  bool operator==(const PoseControl&) const = default;
};

}  // namespace d2t
