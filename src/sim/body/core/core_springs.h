#pragma once
// The springs on a layered body's core (scene "springs"; docs/design.md sec. 7): their
// part of step 3, eq. (3.8) with the springs integrated by linearised backward Euler,
// which both backends call with their condensed core matrix.
#include <vector>

#include "sim/body/core/rigid_core.h"

namespace d2t {

/// A core spring as the step uses it: CoreSpringDesc with its anchor resolved.
struct CoreSpring {
  Vec3 point = Vec3::Zero();   ///< attachment point in the SHAPE frame [m] (fixed to the core)
  Vec3 anchor = Vec3::Zero();  ///< world anchor [m]
  double stiffness = 0;        ///< k [N/m]
  double damping = 0;          ///< c [N s/m]
  double restLength = 0;       ///< L [m]
};

/// Step 3's solve of the core velocity change, springs included.
struct CoreSolve {
  Core::Vector dv = Core::Vector::Zero();              ///< dv_c
  Core::Matrix condensedMass = Core::Matrix::Zero();   ///< Mcond + S as solved
  Vec3 springImpulse = Vec3::Zero();   ///< impulse of the springs over the step (world) [N s]
};

/// Eq. (3.8) with the core springs: solves (Mcond + S) dv_c = rhs + s, where rhs = dt
/// (Ft_c - M_ce y) and, per spring with point velocity J v_c (J = [I, -R [r]x]),
///   S = J^T (dt c I + dt^2 K_s) J,   s = dt J^T (f_s - dt K_s J v_c)
/// (f_s the spring force at the start of the step, K_s = -df_s/dp). `s` is the core's
/// state at the start of the step; comOffset the body origin in the shape frame (the
/// springs' points are in the shape frame).
CoreSolve solveCoreWithSprings(const CoreState& s, const std::vector<CoreSpring>& springs, const Vec3& comOffset,
                               const Core::Matrix& Mcond, const Core::Vector& rhs, double dt);
/// Potential energy of the springs at core state s [J].
double coreSpringEnergy(const CoreState& s, const std::vector<CoreSpring>& springs, const Vec3& comOffset);

}  // namespace d2t
