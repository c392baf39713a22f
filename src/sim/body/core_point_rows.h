#pragma once
// The core against the colliders (docs/decisions/0027-skin-limits-on-the-core.md): a core
// rests on its crushed skin, whose thinnest layer is Material::minLayer of the rest layer
// h_i, so core point f_i keeps keep h_i from every collider. A core point nearer than
// that is a one-sided row of the contact response on the core alone: no skin between to
// give (a stiff row: D = kCorePointCompliance / m), solved with the skin's rows in the
// same Sherman-Morrison-Woodbury rounds (LayeredBody::respondThrough), so that the
// ground's push on a crushed skin reaches the core in the step even where the skin's
// nodes slid aside. The position correction then lifts the body off what is left.
#include <vector>

#include "sim/body/core/rigid_core.h"

namespace d2t {

/// A core point within its crushed layer of a collider.
struct CorePointContact {
  int point = -1;                       ///< the core point f_i (node i's)
  Vec3 normal = Vec3::UnitY();          ///< world unit normal of the collider there
  double depth = 0;                     ///< keep h_i - distance [m] (> 0: too near)
  Vec3 surfaceVelocity = Vec3::Zero();  ///< world velocity of the collider there [m/s]
};

/// A core row's compliance times the body's mass: stiff against the skin's rows (whose
/// D_k is about 1 / m_i), loose enough that lambda = (b - U dv) / D keeps its digits.
constexpr double kCorePointCompliance = 1e-6;

/// The rows of a step's core point contacts (the CPU's: they read only the core's state).
class CorePointRows {
 public:
  /// Step 9 for the contacts at the predicted core state s (f: the core points, body
  /// frame; totalMass: the body's): U_k = L_i^T n, D = kCorePointCompliance / totalMass,
  /// b_k = -v_n - gap / dt with the gap at the start of the step (speculative, as the
  /// skin's rows). Held still with a fixed core: no rows.
  void set(const std::vector<CorePointContact>& contacts, const std::vector<Vec3>& f, const CoreState& s,
           double totalMass, double dt, bool fixedCore);
  /// One active-set round, as SkinResponse::roundRows: the sums added into S, rhs, and the
  /// rows below their lowest value counted into below. A row starts in the set only where
  /// the core closes its gap in the step (b_k > 0); one out of it enters (counted into
  /// entered: the set changed, another round) where dv closes the gap, b_k - U_k . dv > 0.
  void round(const Core::Vector* dv, bool oneSided, Core::Matrix& S, Core::Vector& rhs, int& below,
             int& entered);
  /// The rows' generalised force on the core, sum lambda_k U_k.
  Core::Vector force() const;
  int count() const { return int(rows_.size()); }

 private:
  struct Row {
    Core::Vector U = Core::Vector::Zero();
    double b = 0, lambda = 0;
    bool active = true;
  };
  std::vector<Row> rows_;
  double D_ = 1;
};

}  // namespace d2t
