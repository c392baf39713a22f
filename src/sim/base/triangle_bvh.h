#pragma once
// A bounding-volume hierarchy over a triangle soup (median split, leaves of up to 4
// triangles, corners stored inline in leaf order): ray casts (the OBJ shapes' radius and
// inside votes) and closest-point queries (the characters' contacts with surfaces).
#include <array>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5), with
/// its barycentric coordinates (weights of a, b, c) in `bary` when asked.
Vec3 closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                            std::array<double, 3>* bary = nullptr);

/// Squared distance from p to the box (0 inside).
double boxDistanceSq(const Aabb& box, const Vec3& p);

class TriangleBvh {
 public:
  TriangleBvh() = default;
  /// Over `triangles` (indices into `positions`); `subset`: only these triangles (ids into
  /// `triangles`), all when empty. Throws std::invalid_argument when there is none.
  TriangleBvh(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles,
              const std::vector<int>& subset = {});

  bool empty() const { return tris_.empty(); }
  /// The box of every triangle.
  const Aabb& bounds() const { return nodes_.front().box; }

  /// Smallest t >= 0 where the ray o + t d hits a triangle, or -1. Barycentric
  /// coordinates down to -eps count as inside, so that rays through shared
  /// edges and vertices do not slip between two triangles.
  double nearestHit(const Vec3& o, const Vec3& d, double eps) const;
  /// Number of triangles the ray o + t d, t > 0, crosses (no tolerance).
  int crossings(const Vec3& o, const Vec3& d) const;
  /// Squared distance from p to the nearest triangle.
  double distanceSq(const Vec3& p) const { return closest(p, 1e300).distanceSq; }

  struct Closest {
    int triangle = -1;            ///< id into the constructor's `triangles` (-1: none)
    Vec3 point = Vec3::Zero();
    std::array<double, 3> bary{};  ///< of the triangle's corners
    double distanceSq = 1e300;
  };
  /// The nearest point of any triangle to p if it is nearer than sqrt(maxDistanceSq).
  Closest closest(const Vec3& p, double maxDistanceSq) const;

 private:
  static constexpr int kLeafSize = 4;
  /// Inner node: children at first, first + 1 (count == 0). Leaf: tris_[first, first + count).
  struct Node {
    Aabb box;
    int first = 0;
    int count = 0;
  };
  void build(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles, std::vector<int>& order,
             const std::vector<Vec3>& centroid, int begin, int end, int id);
  template <class LeafFn>
  void forEachRayLeaf(const Vec3& o, const Vec3& d, LeafFn&& leaf) const;

  std::vector<Node> nodes_;
  std::vector<std::array<Vec3, 3>> tris_;  // leaf order
  std::vector<int> ids_;                   // (leaf order) the triangle's id
};

}  // namespace d2t
