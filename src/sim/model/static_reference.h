#pragma once
// Independent static and modal solutions of the baked FEM model (K_e, lumped
// masses): the references that the dynamic solver (LayeredBody) must reproduce
// in its steady states. Pure Eigen on a BakedBody, direct sparse / dense
// solves; nothing here shares code with the dynamic solver.
//
// Conventions as in baked_body.h: body frame, skin unknowns only (core points
// never move in the body frame), node-major 3n vectors.
#include <vector>

#include "sim/model/baked_body.h"
#include "sim/base/math.h"

namespace d2t {

/// Static skin displacement q (nnode, body frame) [m] of a body spinning steadily
/// at the body-frame angular velocity omegaBody [rad/s], core at rest in the
/// rotating frame. Each skin node carries its centrifugal force
/// f_i = -m_i omega x (omega x u_i) (the Q_v,e of docs/design.md sec. 3 with qdot = 0):
///  - geometric = false: first order, u_i = ub_i, K_e q = f(ub);
///  - geometric = true:  u_i = ub_i + q_i, which is still linear in q:
///      (K_e + diag(m_i [omega]x [omega]x)) q = -m_i omega x (omega x ub_i),
///    the exact steady state of the linear model (what the dynamic solver settles to).
std::vector<Vec3> staticSpinBulge(const BakedBody& body, const Vec3& omegaBody,
                                  bool geometric = true);

/// One free-vibration mode of the skin with the core held fixed:
/// K_e phi = omega^2 M_e phi, M_e = diag(m_i I3).
struct SkinMode {
  double omega = 0;         ///< angular frequency [rad/s]
  std::vector<Vec3> shape;  ///< (nnode) mode shape, mass-normalised: phi^T M_e phi = 1 [kg^-1/2]
};

/// The `count` lowest modes of (K_e, M_e), ascending. Dense eigen solve of
/// M^-1/2 K M^-1/2: meant for small atlases (N = 32: 384 nodes, 1152 dof).
std::vector<SkinMode> skinModes(const BakedBody& body, int count);

/// How contact nodes are held on the plane in the static solve.
enum class PlaneContact {
  NoSlip,       ///< pinned in all 3 directions (tangential world displacement 0): what friction does at rest
  Frictionless  ///< only the normal (world y) position is prescribed; tangential free
};

/// Static equilibrium of the layered body resting on the horizontal plane y = planeHeight.
/// With keep >= 0 (Material::minLayer, policy `skin_on_core`: core_contact.h) each node
/// also keeps keep of its rest layer over the core, d_i . q_i >= -(1 - keep) h_i (a
/// one-sided constraint of the same active set, pushing the node out along d_i), and the
/// core keeps keep h_i from the plane under every core point: where the skin cannot carry
/// the load the core rests on its crushed layer (onCrushedLayer).
struct RestOnPlane {
  double coreHeight = 0;       ///< world y of the body-frame origin c [m]
  /// NoSlip: horizontal shift [m] of c relative to the stuck contact patch, which
  /// balances the tangential reactions (a mesh that is not mirror-symmetric
  /// leans a little); 0 for Frictionless.
  Vec3 horizontalShift = Vec3::Zero();
  double undeformedHeight = 0; ///< y of c at which the undeformed skin (ub) touches the plane [m]
  double sinking = 0;          ///< undeformedHeight - coreHeight [m] (the indentation)
  double minNodeHeight = 0;    ///< lowest world y of any skin node [m] (planeHeight up to round-off)
  double contactForce = 0;     ///< sum of the vertical reactions [N] (= total weight)
  double weight = 0;           ///< m |g| [N]
  int contactNodes = 0;        ///< nodes held on the plane
  int slidingNodes = 0;        ///< NoSlip: contact nodes held in y only (see staticRestOnPlane)
  int crushedNodes = 0;        ///< with a crushed layer: nodes held at it (d_i . q_i = -(1 - keep) h_i)
  bool onCrushedLayer = false; ///< ... the core rests on it: the skin alone cannot carry the load
  double crushViolation = 0;   ///< ... the largest -(d_i . q_i + (1 - keep) h_i) left (0 up to round-off) [m]
  int iterations = 0;          ///< root-finder iterations
  Vec3 residualForce = Vec3::Zero();   ///< sum of reactions + m g (world) [N]: ~0 (x, z by the shift)
  Vec3 residualTorque = Vec3::Zero();  ///< torque of reactions + gravity about c (world) [N m]; not balanced (orientation is held)
  std::vector<Vec3> q;         ///< (nnode) skin displacements, body frame [m]
};

/// The layered body at rest on a horizontal plane (normal +Y) under gravity:
/// the body frame sits at (0, h, 0) with `orientation` (held: only the vertical
/// force balance is solved, which is exact for bodies symmetric about the
/// vertical through c). For a given h, the skin is loaded by m_i R^T g; nodes
/// that would lie below the plane are held on it (active set: pin penetrating
/// nodes, release pinned nodes whose reaction pulls, repeat), and the sum of the
/// vertical reactions must carry the whole weight m g (core + skin): h is the
/// root of (total reaction - m|g|), found by bisection + secant. The core's
/// weight reaches the plane through the skin because the core is held at h.
/// NoSlip pins the contact nodes at one common tangential displacement (c
/// shifts horizontally so that the tangential reactions balance); a node that
/// would then pull while it penetrates when free is held in y only (it slides).
RestOnPlane staticRestOnPlane(const BakedBody& body, const Vec3& gravity, double planeHeight,
                              const Quat& orientation,
                              PlaneContact contact = PlaneContact::NoSlip, double keep = -1);

/// The same problem with any vertical load: each skin node carries m_i skinGravity
/// (along -Y, or 0), the core carries the rest of `load` [N] (downward, e.g. a push
/// on the core), and the plane's reactions sum to `load`. staticRestOnPlane is
/// load = m |g| with skinGravity = g. `weight` and `contactForce` of the result are
/// the load.
RestOnPlane staticPressOnPlane(const BakedBody& body, const Vec3& skinGravity, double load, double planeHeight,
                               const Quat& orientation, PlaneContact contact = PlaneContact::NoSlip,
                               double keep = -1);

}  // namespace d2t
