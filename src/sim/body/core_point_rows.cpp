// CorePointRows (core_point_rows.h): the core's rows against the colliders.
#include "sim/body/core_point_rows.h"

#include <algorithm>

namespace d2t {

void CorePointRows::set(const std::vector<CorePointContact>& contacts, const std::vector<Vec3>& f,
                        const CoreState& s, double totalMass, double dt, bool fixedCore) {
  rows_.clear();
  if (fixedCore) return;
  D_ = kCorePointCompliance / totalMass;
  const Mat3 R = s.orientation.toRotationMatrix();
  for (const CorePointContact& c : contacts) {
    const Vec3& fi = f[size_t(c.point)];
    Row row;
    row.U = Core::generalizedForce(c.normal, R.transpose() * c.normal, fi);
    const Vec3 v = s.velocity + R * s.angularVelocity.cross(fi);
    const double vn = c.normal.dot(v - c.surfaceVelocity);
    const double startGap = std::max(0.0, -c.depth - dt * vn);
    row.b = -vn - startGap / dt;
    // (a row whose gap the core does not close in the step starts out of the set, and
    // enters only when the rounds' dv would close it: started in, such a stiff row pulled
    // the core towards the collider at gap / dt in the first round, and the skin's rows
    // that this dv took below their lo left the set for good)
    row.active = row.b > 0;
    rows_.push_back(row);
  }
}

void CorePointRows::round(const Core::Vector* dv, bool oneSided, Core::Matrix& S, Core::Vector& rhs, int& below,
                          int& entered) {
  for (Row& row : rows_) {
    if (!row.active && !oneSided) row.active = true;  // (equality rows: all in)
    if (!row.active && dv && row.b - row.U.dot(*dv) > 0) {
      row.active = true;
      ++entered;
    }
    if (row.active && dv) {
      row.lambda = (row.b - row.U.dot(*dv)) / D_;
      if (row.lambda < 0) {
        ++below;
        if (oneSided) {
          row.active = false;
          row.lambda = 0;
        }
      }
    }
    if (row.active) {
      S += row.U * row.U.transpose() / D_;
      rhs += row.U * (row.b / D_);
    }
  }
}

Core::Vector CorePointRows::force() const {
  Core::Vector f = Core::Vector::Zero();
  for (const Row& row : rows_) f += row.lambda * row.U;
  return f;
}

}  // namespace d2t
