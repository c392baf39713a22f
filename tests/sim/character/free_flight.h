#pragma once
// A character flying free (no gravity, no contact) for `steps` steps of dt, and what a step
// that keeps momenta and never makes energy must show: the largest |P - P0| over the flight,
// the angular momentum's drift per second (relative), the energy (kinetic, elastic, joint
// springs) at the start and the end and its largest rise in one step, the joints' largest gap.
#include <algorithm>

#include "sim/character/articulated_body.h"

namespace d2t {

struct FreeFlight {
  Vec3 P0 = Vec3::Zero();
  double dP = 0, dLPerSecond = 0;
  double e0 = 0, e = 0, grows = 0;  ///< [J]
  double gap = 0;                   ///< [m]
};

inline FreeFlight flyFree(ArticulatedBody& body, double dt, int steps) {
  FreeFlight f;
  f.P0 = body.linearMomentum();
  const Vec3 L0 = body.angularMomentum();
  f.e0 = f.e = body.kineticEnergy() + body.potentialEnergy(Vec3::Zero());
  for (int i = 0; i < steps; ++i) {
    body.step(dt, Vec3::Zero());
    f.dP = std::max(f.dP, (body.linearMomentum() - f.P0).norm());
    const double e = body.kineticEnergy() + body.potentialEnergy(Vec3::Zero());
    f.grows = std::max(f.grows, e - f.e);
    f.e = e;
    for (int j = 0; j < int(body.model().skeleton.joints.size()); ++j)
      f.gap = std::max(f.gap, body.jointPositionError(j));
  }
  f.dLPerSecond = (body.angularMomentum() - L0).norm() / L0.norm() / (steps * dt);
  return f;
}

}  // namespace d2t
