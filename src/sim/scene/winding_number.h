#pragma once
// The generalized winding number of a triangle soup (Jacobson, Kavan and Sorkine-Hornung
// 2013): w(q) = sum over triangles of their signed solid angle seen from q, over 4 pi. It is
// 1 inside a closed outward surface and 0 outside, and where the surface has holes, extra
// pieces or overlaps it still says how much the soup wraps q: w = 1/2 is the surface a
// repair closes the soup along (mesh_repair.h). Evaluated as Barill et al. 2018 do: a tree
// of triangle clusters, each far cluster (distance > beta times its radius) taken as the
// dipole of its area vector at its centre, the near ones triangle by triangle. (The next
// order of the expansion measured no better on a meshed sphere: docs/decisions/0037.)
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// The signed solid angle [sr] of triangle abc seen from q: positive when q is behind it
/// (the triangle counter-clockwise seen from the side q is not on); Van Oosterom and
/// Strackee 1983: tan(Omega / 2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|)
/// with a, b, c the corners less q.
double solidAngle(const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c);

class WindingNumber {
 public:
  /// Over `triangles` (indices into `positions`, wound consistently where they can be).
  /// `beta`: how far (in cluster radii) a cluster must be for its dipole to stand in for it
  /// (2 in Barill et al., with higher orders; at 3 a meshed sphere's w is within 0.015
  /// of the exact sum, 0.002 on average).
  WindingNumber(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles, double beta = 3);
  /// w(q).
  double operator()(const Vec3& q) const;
  /// w(q), every triangle exactly (the reference the tree is tested against).
  double exact(const Vec3& q) const;

 private:
  struct Node {
    Vec3 centre = Vec3::Zero();  ///< area-weighted centroid of its triangles
    Vec3 area = Vec3::Zero();    ///< sum of their area vectors 1/2 (b - a) x (c - a)
    double radius = 0;           ///< farthest corner from `centre`
    int first = 0, count = 0;    ///< its triangles: order_[first, first + count)
    int left = -1, right = -1;   ///< children (-1: a leaf)
  };
  int build(int first, int count);

  std::vector<Vec3> x_;
  std::vector<Vec3i> tris_;
  std::vector<int> order_;
  std::vector<Node> nodes_;
  double beta_;
};

}  // namespace d2t
