// The generalized winding number (winding_number.h).
#include "sim/scene/winding_number.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace d2t {

double solidAngle(const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 u = a - q, v = b - q, w = c - q;
  const double lu = u.norm(), lv = v.norm(), lw = w.norm();
  const double num = u.dot(v.cross(w));
  const double den = lu * lv * lw + u.dot(v) * lw + v.dot(w) * lu + w.dot(u) * lv;
  return 2 * std::atan2(num, den);
}

WindingNumber::WindingNumber(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles, double beta)
    : x_(positions), tris_(triangles), beta_(beta) {
  order_.resize(tris_.size());
  std::iota(order_.begin(), order_.end(), 0);
  if (!tris_.empty()) {
    nodes_.reserve(2 * tris_.size() / 4 + 2);
    build(0, int(tris_.size()));
  }
}

int WindingNumber::build(int first, int count) {
  const int id = int(nodes_.size());
  nodes_.emplace_back();
  Node n;
  n.first = first;
  n.count = count;
  double weight = 0;
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (int k = first; k < first + count; ++k) {
    const Vec3i& t = tris_[size_t(order_[size_t(k)])];
    const Vec3 &a = x_[size_t(t[0])], &b = x_[size_t(t[1])], &c = x_[size_t(t[2])];
    const Vec3 area = 0.5 * (b - a).cross(c - a);
    const Vec3 mid = (a + b + c) / 3;
    n.area += area;
    // (a zero-area triangle still weighs a little: a cluster of them keeps a centre)
    const double wt = area.norm() + 1e-300;
    n.centre += wt * mid;
    weight += wt;
    lo = lo.cwiseMin(mid);
    hi = hi.cwiseMax(mid);
  }
  n.centre /= weight;
  for (int k = first; k < first + count; ++k)
    for (int v = 0; v < 3; ++v)
      n.radius = std::max(n.radius, (x_[size_t(tris_[size_t(order_[size_t(k)])][v])] - n.centre).norm());
  if (count > 8) {  // split at the median centroid along the widest axis
    int axis = 0;
    (hi - lo).maxCoeff(&axis);
    const auto mid = [&](int t) {
      const Vec3i& v = tris_[size_t(t)];
      return x_[size_t(v[0])][axis] + x_[size_t(v[1])][axis] + x_[size_t(v[2])][axis];
    };
    const auto begin = order_.begin() + first, middle = begin + count / 2, end = begin + count;
    std::nth_element(begin, middle, end, [&](int s, int t) { return mid(s) < mid(t); });
    n.left = build(first, count / 2);
    n.right = build(first + count / 2, count - count / 2);
  }
  nodes_[size_t(id)] = n;
  return id;
}

double WindingNumber::operator()(const Vec3& q) const {
  if (nodes_.empty()) return 0;
  double omega = 0;
  int stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[size_t(stack[--top])];
    const Vec3 r = n.centre - q;
    const double d = r.norm();
    if (d > beta_ * n.radius) {
      omega += n.area.dot(r) / (d * d * d);  // the dipole: an area vector A at r subtends A.r / |r|^3
    } else if (n.left < 0) {
      for (int k = n.first; k < n.first + n.count; ++k) {
        const Vec3i& t = tris_[size_t(order_[size_t(k)])];
        omega += solidAngle(q, x_[size_t(t[0])], x_[size_t(t[1])], x_[size_t(t[2])]);
      }
    } else {
      stack[top++] = n.left;
      stack[top++] = n.right;
    }
  }
  return omega / (4 * kPi);
}

double WindingNumber::exact(const Vec3& q) const {
  double omega = 0;
  for (const Vec3i& t : tris_) omega += solidAngle(q, x_[size_t(t[0])], x_[size_t(t[1])], x_[size_t(t[2])]);
  return omega / (4 * kPi);
}

}  // namespace d2t
