#pragma once
// A bounding-volume hierarchy over a triangle soup (median split, leaves of up to 4
// triangles, corners stored inline in leaf order): ray casts (the OBJ shapes' radius and
// inside votes), closest-point queries (the characters' contacts with surfaces, some
// triangles excluded: a node's own neighbourhood in self-collision) and box queries; and the
// exact triangle-triangle overlap test.
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

/// Whether triangles a and b share a point (touching counts), by the separating axis
/// theorem: they are apart iff their projections separate on one of the two normals, the
/// nine cross products of their edges, or (coplanar) the six in-plane edge normals.
/// Degenerate axes (parallel edges) are skipped; a degenerate triangle is a segment or point.
bool trianglesOverlap(const std::array<Vec3, 3>& a, const std::array<Vec3, 3>& b);

class TriangleBvh {
 public:
  TriangleBvh() = default;
  /// Over `triangles` (indices into `positions`); `subset`: only these triangles (ids into
  /// `triangles`), all when empty. Throws std::invalid_argument when there is none.
  TriangleBvh(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles,
              const std::vector<int>& subset = {});

  bool empty() const { return tris_.empty(); }
  /// The same hierarchy at new positions of the same triangles: the corners reloaded and the
  /// boxes refit bottom-up (as tight as a fresh build's while the triangles keep their
  /// arrangement; looser, never wrong, when they do not).
  void refit(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles);
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
  Closest closest(const Vec3& p, double maxDistanceSq) const {
    return closestWhere(p, maxDistanceSq, [](int) { return true; });
  }
  /// The same among the triangles whose id `accept`s.
  template <class Accept>
  Closest closestWhere(const Vec3& p, double maxDistanceSq, Accept&& accept) const;
  /// Calls fn(id) for every triangle whose own box overlaps `box`.
  template <class Fn>
  void forEachInBox(const Aabb& box, Fn&& fn) const;

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

template <class Accept>
TriangleBvh::Closest TriangleBvh::closestWhere(const Vec3& p, double maxDistanceSq, Accept&& accept) const {
  Closest best;
  best.distanceSq = maxDistanceSq;
  if (tris_.empty()) return best;
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[size_t(stack[--top])];
    if (boxDistanceSq(node.box, p) >= best.distanceSq) continue;
    if (node.count > 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        if (!accept(ids_[size_t(i)])) continue;
        const auto& t = tris_[size_t(i)];
        std::array<double, 3> w;
        const Vec3 c = closestPointOnTriangle(p, t[0], t[1], t[2], &w);
        const double d = (c - p).squaredNorm();
        if (d < best.distanceSq) best = {ids_[size_t(i)], c, w, d};
      }
      continue;
    }
    // visit the nearer child first (pushed last)
    const int l = node.first, r = node.first + 1;
    const bool leftNear = boxDistanceSq(nodes_[size_t(l)].box, p) <= boxDistanceSq(nodes_[size_t(r)].box, p);
    stack[top++] = leftNear ? r : l;
    stack[top++] = leftNear ? l : r;
  }
  if (best.triangle < 0) best.distanceSq = 1e300;
  return best;
}

template <class Fn>
void TriangleBvh::forEachInBox(const Aabb& box, Fn&& fn) const {
  if (tris_.empty()) return;
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[size_t(stack[--top])];
    if (!node.box.overlaps(box)) continue;
    if (node.count > 0) {
      for (int i = node.first; i < node.first + node.count; ++i) {
        const auto& t = tris_[size_t(i)];
        if (Aabb{t[0].cwiseMin(t[1]).cwiseMin(t[2]), t[0].cwiseMax(t[1]).cwiseMax(t[2])}.overlaps(box)) fn(ids_[size_t(i)]);
      }
      continue;
    }
    stack[top++] = node.first;
    stack[top++] = node.first + 1;
  }
}

}  // namespace d2t
