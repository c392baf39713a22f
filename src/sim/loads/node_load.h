#pragma once
// External loads on sets of skin nodes (a seam): explicit forces that a step's free
// update takes as part of Q_e and Q_c (eq. 3.5-3.8; docs/design.md sec. 4). Today the
// contact support (LayeredBody::computeSupport) is one; localized control forces are
// the next. Every load of a body is summed into one NodeForces at the start of the
// step, which both backends add in the same three places: the skin's right-hand side,
// the core's force and torque, and the momentum projection of step 5.
#include <vector>

#include "sim/base/math.h"

namespace d2t {

class LayeredBody;

/// A force on one skin node [N], world frame.
struct NodeForce {
  int node = -1;
  Vec3 force = Vec3::Zero();
};

/// A correction of one skin node's velocity relative to the core after the free update
/// (body frame): qdot <- keep qdot, then qdot <- qdot - portion max(0, qdot . direction)
/// direction (direction unit, or zero for none); q follows over the step.
struct VelocityCorrection {
  int node = -1;
  double keep = 1;
  Vec3 direction = Vec3::Zero();
  double portion = 0;
};

/// An external load: the forces it puts on a body's skin nodes over the step that
/// starts at the body's current state (held constant over the step, as backward Euler
/// takes an explicit force). Loads that do work switch the world's energy bound off
/// for their body while attached, as the mouse's spring does.
class NodeLoad {
 public:
  virtual ~NodeLoad() = default;
  /// Appends this step's forces on `body`'s nodes to `out` (a node may appear in
  /// several loads; their forces add). `body` is const: its core, its model and any
  /// node the CPU's copy holds are readable; a node of a skin held on the GPU solver
  /// throws std::logic_error unless the body synced it (LayeredBody::syncNodes).
  virtual void forces(const LayeredBody& body, std::vector<NodeForce>& out) const = 0;
  /// Appends the nodes forces() reads (the body syncs them from a solver first).
  virtual void reads(std::vector<int>& nodes) const { (void)nodes; }
  /// Whether the load may do work in the next step (the energy bound is off for its body
  /// then); one that is idle (a metaphor outside its window) leaves the bound on.
  virtual bool working() const { return true; }
  /// Appends the corrections of the skin's velocity this load asks for after the free
  /// update of a step of dt (applied in order; a node may appear more than once), and the
  /// nodes that absorb the momentum they take (a rigid velocity field relative to the
  /// core: the body's momentum is kept; none: the core's, as with a held core, is not).
  virtual void corrections(const LayeredBody& body, double dt, std::vector<VelocityCorrection>& out,
                           std::vector<int>& absorbers) const {
    (void)body, (void)dt, (void)out, (void)absorbers;
  }
};

/// The sum of a step's node forces as the free update takes it.
struct NodeForces {
  std::vector<Vec3> nodes;     ///< (nnode; empty when no node is loaded) body frame [N]
  Vec3 force = Vec3::Zero();   ///< sum, world [N]
  Vec3 torque = Vec3::Zero();  ///< sum of u_i x f_i, body frame [N m]
};

}  // namespace d2t
