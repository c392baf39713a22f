#pragma once
// Stage 1 of the collision detection (DDT paper sec. 5.1; docs/design.md sec. 5):
// low-resolution convex proxies and the distance between them (GJK).
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// A convex proxy: the convex hull of `points` grown by `margin` contains the
/// surface it stands for.
struct ConvexProxy {
  std::vector<Vec3> points;  ///< (<= maxPoints) in the surface's own frame [m]
  double margin = 0;         ///< [m]
};

/// A proxy of about `maxPoints` of `points` (farthest-point sampling: they cover the
/// points evenly, and the margin is the largest distance of any point to its
/// nearest sample, so the grown hull contains every point and hence the hull of
/// all of them).
ConvexProxy makeProxy(const std::vector<Vec3>& points, int maxPoints = 192);

/// Distance between the convex hulls of two point sets (GJK), or, when they
/// overlap, how deep (EPA: the expanding polytope algorithm).
struct HullDistance {
  double distance = 0;  ///< 0 when the hulls overlap
  double depth = 0;     ///< overlapping: the shortest translation of A that separates them [m]
  /// Unit, from A towards B: (onB - onA) / distance apart; overlapping, A separates
  /// by moving -depth * normal. Zero where undetermined (touching at a point, or
  /// flat hulls).
  Vec3 normal = Vec3::Zero();
  /// Closest points apart; overlapping, the deepest points: onA - onB = depth * normal.
  Vec3 onA = Vec3::Zero(), onB = Vec3::Zero();
  bool overlap = false;
  int iterations = 0;  ///< GJK's, then EPA's
};
HullDistance hullDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b);

/// Whether the convex hulls of `a` and `b` come within `gap` [m] of each other: stage 1's
/// pruning test where the gap itself is not needed (libccd's GJK intersection on the hulls grown
/// by gap / 2 each; it stops at the first separating axis or enclosing simplex, where
/// hullDistance runs on to the distance, or through EPA to the depth). gap >= 0.
bool hullsWithin(const std::vector<Vec3>& a, const std::vector<Vec3>& b, double gap);

}  // namespace d2t
