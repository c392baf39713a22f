// Mesh shapes (OBJ files): a bounding volume hierarchy over the triangles
// answers the ray casts of radius(d) (one per atlas texel) and the nearest-
// triangle queries of signedDistance.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/scene/obj_loader.h"
#include "sim/scene/shape_impl.h"

namespace d2t {

namespace {

/// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5).
Vec3 closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

/// Squared distance from p to the box (0 inside).
double boxDistanceSq(const Aabb& box, const Vec3& p) {
  return (box.lo - p).cwiseMax(p - box.hi).cwiseMax(0.0).squaredNorm();
}

/// Median-split BVH over the triangles of a mesh (leaves of up to 4 triangles).
class TriangleBvh {
 public:
  explicit TriangleBvh(const TriMesh& mesh) {
    const int n = static_cast<int>(mesh.triangles.size());
    std::vector<int> order(n);
    std::vector<Vec3> centroid(n);
    for (int i = 0; i < n; ++i) {
      order[i] = i;
      const Vec3i& t = mesh.triangles[i];
      centroid[i] = (mesh.positions[t[0]] + mesh.positions[t[1]] + mesh.positions[t[2]]) / 3.0;
    }
    if (n == 0) throw std::invalid_argument("TriangleBvh: the mesh has no triangles");
    nodes_.reserve(2 * n / kLeafSize + 2);
    nodes_.emplace_back();
    build(mesh, order, centroid, 0, n, 0);
    // triangles stored in leaf order, corners inline
    tris_.reserve(n);
    for (int i : order) {
      const Vec3i& t = mesh.triangles[i];
      tris_.push_back({mesh.positions[t[0]], mesh.positions[t[1]], mesh.positions[t[2]]});
    }
  }

  /// Smallest t >= 0 where the ray o + t d hits a triangle, or -1. Barycentric
  /// coordinates down to -eps count as inside, so that rays through shared
  /// edges and vertices do not slip between two triangles.
  double nearestHit(const Vec3& o, const Vec3& d, double eps) const {
    double best = -1;
    forEachRayLeaf(o, d, [&](int first, int count) {
      for (int i = first; i < first + count; ++i) {
        double t;
        if (intersect(tris_[i], o, d, eps, &t) && t >= 0 && (best < 0 || t < best)) best = t;
      }
    });
    return best;
  }

  /// Number of triangles the ray o + t d, t > 0, crosses (no tolerance).
  int crossings(const Vec3& o, const Vec3& d) const {
    int count = 0;
    forEachRayLeaf(o, d, [&](int first, int n) {
      for (int i = first; i < first + n; ++i) {
        double t;
        if (intersect(tris_[i], o, d, 0.0, &t) && t > 0) ++count;
      }
    });
    return count;
  }

  /// Squared distance from p to the nearest triangle.
  double distanceSq(const Vec3& p) const {
    double best = 1e300;
    int stack[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[stack[--top]];
      if (boxDistanceSq(node.box, p) >= best) continue;
      if (node.count > 0) {
        for (int i = node.first; i < node.first + node.count; ++i) {
          const auto& t = tris_[i];
          best = std::min(best, (closestPointOnTriangle(p, t[0], t[1], t[2]) - p).squaredNorm());
        }
        continue;
      }
      // visit the nearer child first (pushed last)
      const int l = node.first, r = node.first + 1;
      const bool leftNear = boxDistanceSq(nodes_[l].box, p) <= boxDistanceSq(nodes_[r].box, p);
      stack[top++] = leftNear ? r : l;
      stack[top++] = leftNear ? l : r;
    }
    return best;
  }

 private:
  static constexpr int kLeafSize = 4;

  /// Inner node: children at first, first + 1 (count == 0). Leaf: tris_[first, first + count).
  struct Node {
    Aabb box;
    int first = 0;
    int count = 0;
  };

  /// Fills nodes_[id] (already allocated) with the triangles order[begin, end).
  void build(const TriMesh& mesh, std::vector<int>& order, const std::vector<Vec3>& centroid,
             int begin, int end, int id) {
    Aabb box, cbox;
    for (int i = begin; i < end; ++i) {
      const Vec3i& t = mesh.triangles[order[i]];
      for (int k = 0; k < 3; ++k) box.grow(mesh.positions[t[k]]);
      cbox.grow(centroid[order[i]]);
    }
    nodes_[id].box = box;
    if (end - begin <= kLeafSize) {
      nodes_[id].first = begin;
      nodes_[id].count = end - begin;
      return;
    }
    // split at the median centroid along the longest axis of the centroids' box
    int axis;
    (cbox.hi - cbox.lo).maxCoeff(&axis);
    const int mid = (begin + end) / 2;
    std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                     [&](int a, int b) { return centroid[a][axis] < centroid[b][axis]; });
    // the two children are allocated as a consecutive pair
    const int left = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    nodes_.emplace_back();
    nodes_[id].first = left;
    nodes_[id].count = 0;
    build(mesh, order, centroid, begin, mid, left);
    build(mesh, order, centroid, mid, end, left + 1);
  }

  template <class LeafFn>
  void forEachRayLeaf(const Vec3& o, const Vec3& d, LeafFn&& leaf) const {
    const Vec3 inv(1.0 / d.x(), 1.0 / d.y(), 1.0 / d.z());
    int stack[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[stack[--top]];
      if (!rayHitsBox(node.box, o, inv)) continue;
      if (node.count > 0) {
        leaf(node.first, node.count);
      } else {
        stack[top++] = node.first;
        stack[top++] = node.first + 1;
      }
    }
  }

  // slab test, padded by a relative epsilon so that rays along a face are kept
  static bool rayHitsBox(const Aabb& box, const Vec3& o, const Vec3& inv) {
    double t0 = 0, t1 = 1e300;
    const double pad = 1e-9 * (box.hi - box.lo).norm();
    for (int k = 0; k < 3; ++k) {
      const double lo = box.lo[k] - pad, hi = box.hi[k] + pad;
      if (std::isinf(inv[k])) {  // ray parallel to the slab
        if (o[k] < lo || o[k] > hi) return false;
        continue;
      }
      double a = (lo - o[k]) * inv[k], b = (hi - o[k]) * inv[k];
      if (a > b) std::swap(a, b);
      t0 = std::max(t0, a);
      t1 = std::min(t1, b);
      if (t0 > t1) return false;
    }
    return true;
  }

  // Moeller-Trumbore ray-triangle test with barycentric tolerance eps
  static bool intersect(const std::array<Vec3, 3>& tri, const Vec3& o, const Vec3& d, double eps,
                        double* t) {
    const Vec3 e1 = tri[1] - tri[0], e2 = tri[2] - tri[0];
    const Vec3 pv = d.cross(e2);
    const double det = e1.dot(pv);
    if (det == 0) return false;
    const double invDet = 1.0 / det;
    const Vec3 tv = o - tri[0];
    const double u = tv.dot(pv) * invDet;
    if (u < -eps || u > 1 + eps) return false;
    const Vec3 qv = tv.cross(e1);
    const double v = d.dot(qv) * invDet;
    if (v < -eps || u + v > 1 + eps) return false;
    *t = e2.dot(qv) * invDet;
    return true;
  }

  std::vector<Node> nodes_;                  ///< root at 0
  std::vector<std::array<Vec3, 3>> tris_;    ///< (ntri) corners, in leaf order
};

class MeshShape final : public Shape {
 public:
  MeshShape(TriMesh mesh, std::string path) : mesh_(std::move(mesh)), path_(std::move(path)),
                                               bvh_(mesh_) {
    star_ = isStarShaped(mesh_, Vec3::Zero(), &why_);
    for (const Vec3& p : mesh_.positions) boundingRadius_ = std::max(boundingRadius_, p.norm());
  }

  std::string type() const override { return "obj"; }
  ShapeTopology topology() const override {
    return star_ ? ShapeTopology::Star : ShapeTopology::Solid;
  }
  double boundingRadius() const override { return boundingRadius_; }
  TriMesh mesh(int /*resolution*/) const override { return mesh_; }

  std::string notDeformableReason() const override {
    return star_ ? std::string() : notStarShapedMessage(path_, why_);
  }

  double radius(const Vec3& d) const override {
    if (!star_) return Shape::radius(d);
    // a star-shaped mesh is crossed exactly once; widen the edge tolerance if
    // rounding lets the ray slip through a vertex
    for (double eps : {1e-9, 1e-6, 1e-3}) {
      const double t = bvh_.nearestHit(Vec3::Zero(), d, eps);
      if (t > 0) return t;
    }
    return boundingRadius_;  // unreachable for a closed mesh around the origin
  }

  double signedDistance(const Vec3& p) const override {
    const double dist = std::sqrt(bvh_.distanceSq(p));
    return inside(p) ? -dist : dist;
  }

 private:
  bool inside(const Vec3& p) const {
    if (star_) {
      const double r = p.norm();
      return r == 0 || r < radius(p / r);
    }
    // parity of the crossings of three rays in unrelated directions, majority vote
    // (a ray that grazes an edge or vertex may miscount; two of three will not)
    static const Vec3 dirs[3] = {Vec3(0.5773, 0.5774, 0.5775).normalized(),
                                 Vec3(-0.6211, 0.3117, 0.7194).normalized(),
                                 Vec3(0.2303, -0.9031, 0.3625).normalized()};
    int votes = 0;
    for (const Vec3& d : dirs) votes += bvh_.crossings(p, d) % 2;
    return votes >= 2;
  }

  TriMesh mesh_;
  std::string path_;
  TriangleBvh bvh_;
  bool star_ = false;
  std::string why_;             ///< why not star-shaped
  double boundingRadius_ = 0;   ///< [m]
};

}  // namespace

ShapePtr makeMeshShape(TriMesh mesh, const std::string& path) {
  return std::make_shared<MeshShape>(std::move(mesh), path);
}

ShapePtr parseObj(JsonReader& r) {
  const std::string rel = r.requiredString("path");
  const double scale = r.number("scale", 1.0, 0, 1e300, true);
  const bool center = r.boolean("center", true);
  // paths are relative to the directory of the scene file
  std::filesystem::path file(rel);
  if (file.is_relative()) file = std::filesystem::path(r.file()).parent_path() / file;
  const std::string path = file.lexically_normal().string();

  TriMesh mesh;
  try {
    mesh = loadObj(path);
  } catch (const InputError& e) {
    r.fail("path", e.what());  // prefix the scene file and field
  }
  mesh.transform(scale * Mat3::Identity(), Vec3::Zero());
  if (center) mesh.transform(Mat3::Identity(), -mesh.massProperties(1.0).com);
  return makeMeshShape(std::move(mesh), path);
}

}  // namespace d2t
