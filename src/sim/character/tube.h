#pragma once
// The procedural tube (dissertation 4.4, Table 4.1's tube; the snake's body): a capsule
// along +x from 0 to its length, of a radius profile r(x), meshed as rings of N_a nodes
// with hemispherical caps and two poles (n = N_a N_r + 2, quads split on alternating
// diagonals), the inner surface under it at a fraction `coreScale` of the way from the
// spine, the solid inside that in slabs between the inner rings, and k equal bones along the
// spine joined end to end.
#include <functional>
#include <string>

#include "sim/character/character_model.h"

namespace d2t {

struct TubeSpec {
  double radius = 0.1;   ///< [m] (the profile's value where `profile` is empty)
  double length = 1.7;   ///< end to end, caps included [m]
  int bones = 5;         ///< k equal bones along the axis
  JointType joint = JointType::Ball;
  double stiffness = 50; ///< joint springs to the bind pose [N m/rad]
  double damping = 1;    ///< [N m s/rad]
  int nodes = 292;       ///< the skin's target node count (met as closely as rings allow)
  double coreScale = 0.6;
  /// r(x) for x in [0, length] (optional): the caps take r(0) and r(length).
  std::function<double(double)> profile;
};

/// A tube character (its name, mesh, skeleton; the material and weights as given).
/// Throws InputError for a radius or length that is not positive, a length shorter than
/// the two caps, fewer than 1 bone, or a core scale outside (0, 1).
CharacterDesc tubeCharacter(const std::string& name, const TubeSpec& spec, const Material& material);

/// The snake of Fig. 4.6 / Table 4.1 (docs/decisions/0030): 16 bones of 0.15 m along +x,
/// the tail at x = 0, ball joints, radius 0.015 + 0.045 min(1, x / 0.35) m (the head a
/// hemisphere of the full 0.06 m), 3,102 nodes by default.
CharacterDesc snakeCharacter(const std::string& name, int nodes, double stiffness, double damping,
                             const Material& material);

}  // namespace d2t
