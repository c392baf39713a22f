#pragma once
// The response's energy guard (ResponsePolicies::energyGuard;
// docs/decisions/0017-response-energy-guard.md). An inelastic contact against a
// resting surface cannot add kinetic energy, but the response applied through the
// block-diagonal Mh_e can: it pushes the core as if each node hung on its own diagonal
// spring, on top of the elastic push the implicit solve already gave it. Where the
// surfaces are at rest the impulse is therefore scaled to the largest share t in
// [0, 1] that keeps the kinetic energy from growing; what it leaves of the penetration
// goes to the position correction (step 15).
#include <algorithm>

namespace d2t {

/// The share t in [0, 1] of the response's impulse to apply, given the kinetic energy
/// along it, KE(t) = k0 + ka t + kb t^2 (every velocity is linear in t): 1 where KE(1)
/// does not exceed KE(0) (to a relative 1e-9), else the t that brings KE back to k0
/// (t = -ka / kb, the other root of KE(t) = k0), 0 where no t > 0 does.
inline double responseEnergyShare(double k0, double ka, double kb) {
  if (ka + kb <= k0 * 1e-9 + 1e-12) return 1.0;
  return kb > 0 && ka < 0 ? std::clamp(-ka / kb, 0.0, 1.0) : 0.0;
}

}  // namespace d2t
