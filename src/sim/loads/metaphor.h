#pragma once
// Localized control metaphors (Greway 2012; issue 30; ../shared/design/peers.md sec. 3): a
// force law on a region of a body's skin, eased in and out over a time window, entering the
// implicit step as a node load (node_load.h) on both backends.
//
// Every law is a traction P [Pa] times the node's area A_i (a third of its rest triangles),
// so a metaphor does the same to a body at any atlas resolution. With r = g_i - c (the rest
// skin point from the structure's centre, body frame), a the structure's axis, z = a.r,
// rho = r - z a, xi = z / H, R and H the largest |rho| and |z| of the selected nodes, w_i the
// region's weight:
//   twist    f = P A w (|rho| / R) (a x rho^) s, s = sign z (wring), 1 (uniform), xi (linear)
//   bend     f = P A w (3 xi^2 - c) b (three_point: the ends one way, the middle the other;
//            c the region's A w-weighted mean of 3 xi^2, 1 on an even band, so no net force
//            on any region), P A w (1 + xi) / 2 b (cantilever), P A w xi a (stretch); b the
//            bend direction, perpendicular to a
//   sphere   f = P A w sat((R_s - |o|) / (0.1 R_s)) o^, o = g_i from the shape's origin:
//            towards the sphere of radius R_s about the body's centre (rounds an edge)
//   flatten  f = -P A w sat(xi / 0.1) a: towards the mid-plane, evenly
//   squash   f = -P A w xi a;  stretch  f = P A w xi a
// "balanced" takes out the net force and torque (about the region's weighted centroid) by a
// rigid field weighted by A w, so the metaphor only deforms. The forces are fixed in the
// core's frame (they turn with the body; or, "frame": "nodes", in Greway's frame of three
// skin nodes) and scaled by the ease factor at the step's start.
//
// The corrections that keep the effect local (Greway's IV.8; peers.md sec. 3.2) act on the
// skin's velocity relative to the core, qdot, after step 5, on the region's first ring L1
// (the stencil neighbours of its nodes, across seams) and second ring L2 (theirs), so the
// body's rigid motion and gravity are untouched (the core's velocity bit for bit):
//   damping     qdot_j <- k qdot_j, k = (1 - d_l)^x on ring l (Greway: d = 0.5, 0.25)
//   mitigation  qdot_j <- qdot_j - (1 - (1 - m)^x) max(0, qdot_j . n_j) n_j
// with x = e dt / (1/60 s), e the ease factor: Greway's fractions per 60 Hz frame, the same
// rate at any step and growing with the force. n_j is the unit mean of its parents'
// directions (L1: the unit forces of its region neighbours; L2: the n of its L1
// neighbours); a node moving against it is left alone. q_j is re-integrated from the
// step's start: q_j += dt (qdot_j' - qdot_j). The momentum the rings lose goes to the
// region (a rigid field relative to the core), so the body's flight keeps it and the core
// is not touched (LayeredBody::applyCorrections).
#include <array>
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/loads/node_load.h"
#include "sim/model/atlas.h"

namespace d2t {

struct BakedBody;

/// A metaphor as a scene gives it (scene.h reads it; "metaphors": [...]).
struct MetaphorDesc {
  std::string name;
  std::string body;                 ///< the body it acts on, by name
  std::string type = "twist";       ///< twist | bend | sphere | flatten | squash | stretch
  std::string mode;                 ///< twist: wring | uniform | linear; bend: three_point | cantilever | stretch
  /// The region, in the body's shape frame (the shape's origin and axes, as its rest skin).
  std::string region = "sphere";    ///< cylinder | box | sphere | nodes
  Vec3 center = Vec3::Zero();
  Vec3 axis = Vec3::UnitY();        ///< unit; the cylinder's axis, the metaphor's a
  double radius = 0.5;              ///< cylinder, sphere [m]
  double height = 1;                ///< cylinder [m]
  Vec3 size = Vec3::Ones();         ///< box: full extents along x, y, z [m]
  std::vector<int> nodes;           ///< nodes: the skin nodes, by index
  double magnitude = 1000;          ///< traction P [Pa] (negative: the other way)
  Vec3 direction = Vec3::UnitX();   ///< bend: b (made perpendicular to a)
  double sphereRadius = 0;          ///< sphere: R_s [m]; 0: the selected nodes' mean distance from the origin
  double start = 0, end = 1;        ///< the window [s]
  double easeIn = 0, easeOut = 0;   ///< [s], within the window
  bool smooth = false;              ///< smoothstep easing (C1) instead of linear ramps
  bool balanced = false;
  /// The frame the forces are fixed in: "core" (the body's core: turns with it) or "nodes"
  /// (Greway's: from three skin nodes picked at rest, the region's top and bottom along the
  /// axis and its farthest across it; turns with the skin there)
  std::string frame = "core";
  std::array<double, 2> neighborDamping{0, 0};  ///< d_1, d_2: fractions of qdot per 1/60 s on L1, L2
  double mitigation = 0;            ///< m: fraction of qdot along the parents' force per 1/60 s

  bool operator==(const MetaphorDesc&) const = default;
};

/// Greway's frame step, the time the correction fractions are given per [s].
inline constexpr double kCorrectionStep = 1.0 / 60;

/// The ease factor in [0, 1] at time t: 0 outside [start, end), ramps over ease_in and
/// ease_out (linear as Greway's, or smoothstep), 1 between.
double easeFactor(const MetaphorDesc& d, double t);

/// A metaphor on one body: its body-frame force field at full strength, computed once
/// from the rest skin, turned by the core and scaled by the ease at each step.
class Metaphor final : public NodeLoad {
 public:
  /// Throws InputError naming the metaphor when its region selects no node or its laws
  /// are undefined there (all nodes on the axis for a twist, say).
  Metaphor(const MetaphorDesc& desc, const BakedBody& model);
  void forces(const LayeredBody& body, std::vector<NodeForce>& out) const override;
  void reads(std::vector<int>& nodes) const override;
  /// The rings' corrections; the region absorbs the momentum they take.
  void corrections(const LayeredBody& body, double dt, std::vector<VelocityCorrection>& out,
                   std::vector<int>& absorbers) const override;
  bool working() const override { return easeFactor(desc_, time_) > 0; }
  /// The time the next step starts at (World sets it before each step) [s].
  void setTime(double t) { time_ = t; }

  const MetaphorDesc& desc() const { return desc_; }
  /// The selected nodes, their weights, and the force on each at full strength (body
  /// frame [N]), in the same order.
  const std::vector<int>& nodes() const { return nodes_; }
  const std::vector<double>& weights() const { return weights_; }
  const std::vector<Vec3>& fullForces() const { return force_; }
  /// The first (level 0) and second (level 1) rings of neighbours, sorted, and the unit
  /// mitigation direction n_j of each (body frame; zero where the parents' cancel).
  const std::vector<int>& ring(int level) const { return rings_[size_t(level)]; }
  const std::vector<Vec3>& ringDirections(int level) const { return ringDirections_[size_t(level)]; }
  /// The rotation from the body frame at rest to the world that the forces take now: the
  /// core's orientation, or (frame "nodes") F F0^T, F = Gram-Schmidt of the frame nodes'
  /// current positions (F0: at rest, body frame).
  Mat3 frameRotation(const LayeredBody& body) const;
  /// The frame nodes (top, bottom, side; frame "nodes"), else empty.
  const std::vector<int>& frameNodes() const { return frameNodes_; }
  /// Each node's area A_i: a third of its rest skin triangles' [m^2] (nnode).
  static std::vector<double> nodeAreas(const BakedBody& model);
  /// The rings about `region` (sorted node indices): L1 the nodes in stencil slots 1-6 of
  /// a region node (the mesh neighbours, across seams), L2 those of an L1 node, neither
  /// in the region nor in an earlier ring; sorted.
  static std::array<std::vector<int>, 2> rings(const std::vector<Stencil>& stencil, const std::vector<int>& region);

 private:
  MetaphorDesc desc_;
  std::vector<int> nodes_;
  std::vector<double> weights_;
  std::vector<Vec3> force_;
  std::array<std::vector<int>, 2> rings_;
  std::array<std::vector<Vec3>, 2> ringDirections_;
  std::vector<int> frameNodes_;  // (frame "nodes") top, bottom, side
  Mat3 frame0_ = Mat3::Identity();  // their frame at rest (body frame)
  double time_ = 0;
};

}  // namespace d2t
