#include "sim/base/triangle_bvh.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace d2t {

Vec3 closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                            std::array<double, 3>* bary) {
  std::array<double, 3> w{1, 0, 0};
  const auto at = [&](double wa, double wb, double wc) {
    w = {wa, wb, wc};
    if (bary) *bary = w;
    return Vec3(wa * a + wb * b + wc * c);
  };
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return at(1, 0, 0);
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return at(0, 1, 0);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return at(1 - v, v, 0);
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return at(0, 0, 1);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double v = d2 / (d2 - d6);
    return at(1 - v, 0, v);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double v = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return at(0, 1 - v, v);
  }
  const double denom = 1.0 / (va + vb + vc);
  return at(1 - (vb + vc) * denom, vb * denom, vc * denom);
}

double boxDistanceSq(const Aabb& box, const Vec3& p) {
  return (box.lo - p).cwiseMax(p - box.hi).cwiseMax(0.0).squaredNorm();
}

bool trianglesOverlap(const std::array<Vec3, 3>& a, const std::array<Vec3, 3>& b) {
  // (a relative tolerance on the axes' lengths: the triangles' scale squared)
  double scale = 0;
  for (int k = 0; k < 3; ++k)
    scale = std::max({scale, (a[size_t(k)] - a[0]).squaredNorm(), (b[size_t(k)] - b[0]).squaredNorm()});
  const double tiny = 1e-24 * scale * scale;
  const auto separates = [&](const Vec3& axis) {
    if (!(axis.squaredNorm() > tiny)) return false;  // degenerate: no information
    double alo = 1e300, ahi = -1e300, blo = 1e300, bhi = -1e300;
    for (int k = 0; k < 3; ++k) {
      const double pa = axis.dot(a[size_t(k)]), pb = axis.dot(b[size_t(k)]);
      alo = std::min(alo, pa);
      ahi = std::max(ahi, pa);
      blo = std::min(blo, pb);
      bhi = std::max(bhi, pb);
    }
    return ahi < blo || bhi < alo;
  };
  const std::array<Vec3, 3> ea{a[1] - a[0], a[2] - a[1], a[0] - a[2]}, eb{b[1] - b[0], b[2] - b[1], b[0] - b[2]};
  const Vec3 na = ea[0].cross(ea[1]), nb = eb[0].cross(eb[1]);
  if (separates(na) || separates(nb)) return false;
  for (const Vec3& u : ea)
    for (const Vec3& w : eb)
      if (separates(u.cross(w))) return false;
  // coplanar (or degenerate) pairs: the in-plane normals of the edges
  for (const Vec3& u : ea)
    if (separates(na.cross(u))) return false;
  for (const Vec3& w : eb)
    if (separates(nb.cross(w))) return false;
  return true;
}

namespace {

// slab test, padded by a relative epsilon so that rays along a face are kept
bool rayHitsBox(const Aabb& box, const Vec3& o, const Vec3& inv) {
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
bool intersect(const std::array<Vec3, 3>& tri, const Vec3& o, const Vec3& d, double eps, double* t) {
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

}  // namespace

TriangleBvh::TriangleBvh(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles,
                         const std::vector<int>& subset) {
  std::vector<int> order = subset;
  if (order.empty()) {
    order.resize(triangles.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  }
  const int n = int(order.size());
  if (n == 0) throw std::invalid_argument("TriangleBvh: the mesh has no triangles");
  std::vector<Vec3> centroid(triangles.size());
  for (int i : order) {
    const Vec3i& t = triangles[size_t(i)];
    centroid[size_t(i)] = (positions[size_t(t[0])] + positions[size_t(t[1])] + positions[size_t(t[2])]) / 3.0;
  }
  nodes_.reserve(size_t(2 * n / kLeafSize + 2));
  nodes_.emplace_back();
  build(positions, triangles, order, centroid, 0, n, 0);
  // triangles stored in leaf order, corners inline
  tris_.reserve(size_t(n));
  ids_ = order;
  for (int i : order) {
    const Vec3i& t = triangles[size_t(i)];
    tris_.push_back({positions[size_t(t[0])], positions[size_t(t[1])], positions[size_t(t[2])]});
  }
}

void TriangleBvh::refit(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles) {
  for (size_t i = 0; i < tris_.size(); ++i) {
    const Vec3i& t = triangles[size_t(ids_[i])];
    tris_[i] = {positions[size_t(t[0])], positions[size_t(t[1])], positions[size_t(t[2])]};
  }
  // (a node's children come after it: from the back, every child is refit before its parent)
  for (size_t k = nodes_.size(); k-- > 0;) {
    Node& node = nodes_[k];
    node.box = Aabb{};
    if (node.count > 0) {
      for (int i = node.first; i < node.first + node.count; ++i)
        for (const Vec3& c : tris_[size_t(i)]) node.box.grow(c);
    } else {
      node.box.grow(nodes_[size_t(node.first)].box);
      node.box.grow(nodes_[size_t(node.first) + 1].box);
    }
  }
}

void TriangleBvh::build(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles,
                        std::vector<int>& order, const std::vector<Vec3>& centroid, int begin, int end, int id) {
  Aabb box, cbox;
  for (int i = begin; i < end; ++i) {
    const Vec3i& t = triangles[size_t(order[size_t(i)])];
    for (int k = 0; k < 3; ++k) box.grow(positions[size_t(t[k])]);
    cbox.grow(centroid[size_t(order[size_t(i)])]);
  }
  nodes_[size_t(id)].box = box;
  if (end - begin <= kLeafSize) {
    nodes_[size_t(id)].first = begin;
    nodes_[size_t(id)].count = end - begin;
    return;
  }
  // split at the median centroid along the longest axis of the centroids' box
  int axis;
  (cbox.hi - cbox.lo).maxCoeff(&axis);
  const int mid = (begin + end) / 2;
  std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                   [&](int a, int b) { return centroid[size_t(a)][axis] < centroid[size_t(b)][axis]; });
  // the two children are allocated as a consecutive pair
  const int left = int(nodes_.size());
  nodes_.emplace_back();
  nodes_.emplace_back();
  nodes_[size_t(id)].first = left;
  nodes_[size_t(id)].count = 0;
  build(positions, triangles, order, centroid, begin, mid, left);
  build(positions, triangles, order, centroid, mid, end, left + 1);
}

template <class LeafFn>
void TriangleBvh::forEachRayLeaf(const Vec3& o, const Vec3& d, LeafFn&& leaf) const {
  const Vec3 inv(1.0 / d.x(), 1.0 / d.y(), 1.0 / d.z());
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[size_t(stack[--top])];
    if (!rayHitsBox(node.box, o, inv)) continue;
    if (node.count > 0) {
      leaf(node.first, node.count);
    } else {
      stack[top++] = node.first;
      stack[top++] = node.first + 1;
    }
  }
}

double TriangleBvh::nearestHit(const Vec3& o, const Vec3& d, double eps) const {
  double best = -1;
  forEachRayLeaf(o, d, [&](int first, int count) {
    for (int i = first; i < first + count; ++i) {
      double t;
      if (intersect(tris_[size_t(i)], o, d, eps, &t) && t >= 0 && (best < 0 || t < best)) best = t;
    }
  });
  return best;
}

int TriangleBvh::crossings(const Vec3& o, const Vec3& d) const {
  int count = 0;
  forEachRayLeaf(o, d, [&](int first, int n) {
    for (int i = first; i < first + n; ++i) {
      double t;
      if (intersect(tris_[size_t(i)], o, d, 0.0, &t) && t > 0) ++count;
    }
  });
  return count;
}

}  // namespace d2t
