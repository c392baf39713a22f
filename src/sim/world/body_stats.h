#pragma once
// What the World reports of each body: its world-frame motion, its energies and what
// the run has seen of it.
#include <array>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// World-frame summary of a body's motion (for panels, metrics, tests).
struct BodyState {
  Vec3 position = Vec3::Zero();          ///< centre of mass of core + skin [m]
  Quat orientation = Quat::Identity();   ///< core orientation (body to world)
  Vec3 velocity = Vec3::Zero();          ///< velocity of the centre of mass [m/s]
  Vec3 angularVelocity = Vec3::Zero();   ///< core angular velocity, world frame [rad/s]
};

/// Energies of one body [J].
struct Energy {
  double kinetic = 0;
  double gravitational = 0;  ///< relative to height 0: -sum m g . x
  double elastic = 0;        ///< 1/2 q^T K q
  double spring = 0;         ///< core springs and the drag spring: sum 1/2 k (|d| - L)^2
  double total() const { return kinetic + gravitational + elastic + spring; }
};

/// What the run has seen of one body (for --metrics and the panels).
struct BodyStats {
  double minHeight = 1e300;            ///< lowest world y of any skin node over the run [m]
  double coreMinHeight = 1e300;        ///< lowest world y of the core's surface over the run [m]
  int coreLimitSteps = 0;              ///< steps in which a skin node was past a limit on its core
  double maxPenetration = 0;           ///< deepest penetration into any collider over the run [m]
  double finalMaxPenetration = 0;      ///< deepest penetration at the last step [m]
  double maxPenetrationDetected = 0;   ///< deepest penetration found by collision detection
                                       ///< before the response and correction, over the run [m]
  int resets = 0;                      ///< numerical blow-ups caught
  int contacts = 0;                    ///< colliding nodes in the last step
  int cgIterations = 0;                ///< CG iterations of the last step
  double cgResidual = 0;               ///< relative residual of the last CG solve
  int cappedSolves = 0;                ///< steps whose CG stopped at its iteration cap short of the tolerance
  double energy = 0;                   ///< total energy after the last step (Energy::total) [J]
  std::vector<std::array<double, 4>> trajectory;  ///< (steps) rows [t, com x, y, z]
};

}  // namespace d2t
