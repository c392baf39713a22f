#pragma once
// A bounding-volume hierarchy over a skin's triangles, in the body frame, built
// once on the rest skin. Queries grow every box by the body's current largest
// skin displacement (|q_i| <= grow), so they stay conservative however the skin
// deforms. Stage 2 of the detection between bodies uses it to reach the part of
// each skin that can touch the other without visiting the rest: its cost
// follows the contact patch, not the skin's resolution.
#include <functional>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

class SkinBvh {
 public:
  SkinBvh() = default;
  /// `triangles` index `rest` (node positions, body frame).
  SkinBvh(const std::vector<Vec3>& rest, const std::vector<Vec3i>& triangles);

  bool empty() const { return nodes_.empty(); }

  /// Appends the triangles that may reach beyond the plane dir . u = h (some point
  /// of the triangle, displaced by up to `grow`, has dir . u > h). dir: body frame.
  void trianglesBeyond(const Vec3& dir, double h, double grow, std::vector<int>* out) const;
  /// The part of the skin's extent along dir (its box, grown by `grow`) beyond the
  /// plane dir . u = h, in [0, 1]: about the share of the triangles trianglesBeyond
  /// would return (on a sphere the area of a cap is proportional to its height), to
  /// tell whether the hierarchy is worth walking.
  double extentBeyond(const Vec3& dir, double h, double grow) const;

  /// max over the skin's nodes of value(node), where value(i) = dir . u_i for the
  /// current node positions u_i (body frame) and |u_i - rest_i| <= grow: branch and
  /// bound, calling value() only for nodes in boxes that can still beat the best.
  double maxAlong(const Vec3& dir, double grow, const std::function<double(int)>& value) const;

  /// Triangles around each node (offsets into aroundList()).
  const std::vector<int>& aroundStart() const { return aroundStart_; }
  const std::vector<int>& aroundList() const { return around_; }

 private:
  struct Node {
    Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // box of the rest triangles
    int left = -1;      // children (inner node) ...
    int right = -1;
    int first = 0;      // ... or triangles order_[first, first + count) (leaf)
    int count = 0;
  };
  int build(int first, int count, const std::vector<Vec3>& centroid);
  static double support(const Node& n, const Vec3& dir) {
    const Vec3 c = 0.5 * (n.lo + n.hi), e = 0.5 * (n.hi - n.lo);
    return c.dot(dir) + e.dot(dir.cwiseAbs());
  }

  std::vector<Node> nodes_;
  std::vector<int> order_;  // triangle ids, leaves' ranges
  std::vector<Vec3i> triangles_;
  std::vector<Vec3> triLo_, triHi_;
  std::vector<int> aroundStart_, around_;
};

}  // namespace d2t
