#include "sim/model/skin_bvh.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace d2t {

namespace {
constexpr int kLeafSize = 4;
}

SkinBvh::SkinBvh(const std::vector<Vec3>& rest, const std::vector<Vec3i>& triangles) : triangles_(triangles) {
  const int nt = int(triangles.size());
  triLo_.resize(size_t(nt));
  triHi_.resize(size_t(nt));
  std::vector<Vec3> centroid(static_cast<size_t>(nt));
  for (int t = 0; t < nt; ++t) {
    const Vec3i& v = triangles[size_t(t)];
    const Vec3 &a = rest[size_t(v[0])], &b = rest[size_t(v[1])], &c = rest[size_t(v[2])];
    triLo_[size_t(t)] = a.cwiseMin(b).cwiseMin(c);
    triHi_[size_t(t)] = a.cwiseMax(b).cwiseMax(c);
    centroid[size_t(t)] = (a + b + c) / 3;
  }
  order_.resize(size_t(nt));
  std::iota(order_.begin(), order_.end(), 0);
  nodes_.reserve(size_t(2 * nt / kLeafSize + 2));
  if (nt > 0) build(0, nt, centroid);
  // triangles around each node
  aroundStart_.assign(rest.size() + 1, 0);
  for (const Vec3i& v : triangles)
    for (int k = 0; k < 3; ++k) ++aroundStart_[size_t(v[k]) + 1];
  std::partial_sum(aroundStart_.begin(), aroundStart_.end(), aroundStart_.begin());
  around_.resize(size_t(aroundStart_.back()));
  std::vector<int> fill(aroundStart_.begin(), aroundStart_.end() - 1);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) around_[size_t(fill[size_t(triangles[size_t(t)][k])]++)] = t;
}

int SkinBvh::build(int first, int count, const std::vector<Vec3>& centroid) {
  const int id = int(nodes_.size());
  nodes_.push_back(Node{});
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  Vec3 clo = lo, chi = hi;
  for (int k = first; k < first + count; ++k) {
    const int t = order_[size_t(k)];
    lo = lo.cwiseMin(triLo_[size_t(t)]);
    hi = hi.cwiseMax(triHi_[size_t(t)]);
    clo = clo.cwiseMin(centroid[size_t(t)]);
    chi = chi.cwiseMax(centroid[size_t(t)]);
  }
  nodes_[size_t(id)].lo = lo;
  nodes_[size_t(id)].hi = hi;
  if (count <= kLeafSize) {
    nodes_[size_t(id)].first = first;
    nodes_[size_t(id)].count = count;
    return id;
  }
  // median split of the centroids along the box's longest axis
  int axis = 0;
  (chi - clo).maxCoeff(&axis);
  const int half = count / 2;
  std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                   [&](int a, int b) { return centroid[size_t(a)][axis] < centroid[size_t(b)][axis]; });
  const int left = build(first, half, centroid);
  const int right = build(first + half, count - half, centroid);
  nodes_[size_t(id)].left = left;
  nodes_[size_t(id)].right = right;
  return id;
}

void SkinBvh::trianglesBeyond(const Vec3& dir, double h, double grow, std::vector<int>* out) const {
  if (nodes_.empty()) return;
  const double reach = grow * dir.norm();
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const Node& n = nodes_[size_t(stack.back())];
    stack.pop_back();
    if (support(n, dir) + reach <= h) continue;
    if (n.left < 0) {
      for (int k = n.first; k < n.first + n.count; ++k) {
        const int t = order_[size_t(k)];
        const Vec3 c = 0.5 * (triLo_[size_t(t)] + triHi_[size_t(t)]), e = 0.5 * (triHi_[size_t(t)] - triLo_[size_t(t)]);
        if (c.dot(dir) + e.dot(dir.cwiseAbs()) + reach > h) out->push_back(t);
      }
    } else {
      stack.push_back(n.left);
      stack.push_back(n.right);
    }
  }
}

double SkinBvh::extentBeyond(const Vec3& dir, double h, double grow) const {
  if (nodes_.empty()) return 0;
  const double reach = grow * dir.norm();
  const double hi = support(nodes_[0], dir) + reach, lo = -support(nodes_[0], -dir) - reach;
  return hi > lo ? std::clamp((hi - h) / (hi - lo), 0.0, 1.0) : 1.0;
}

double SkinBvh::maxAlong(const Vec3& dir, double grow, const std::function<double(int)>& value) const {
  double best = -std::numeric_limits<double>::infinity();
  if (nodes_.empty()) return best;
  const double reach = grow * dir.norm();
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const Node& n = nodes_[size_t(stack.back())];
    stack.pop_back();
    if (support(n, dir) + reach <= best) continue;
    if (n.left < 0) {
      for (int k = n.first; k < n.first + n.count; ++k)
        for (int v : {triangles_[size_t(order_[size_t(k)])][0], triangles_[size_t(order_[size_t(k)])][1],
                      triangles_[size_t(order_[size_t(k)])][2]})
          best = std::max(best, value(v));
    } else {
      // the more promising child last, so it is visited first
      const bool leftFirst = support(nodes_[size_t(n.left)], dir) >= support(nodes_[size_t(n.right)], dir);
      stack.push_back(leftFirst ? n.right : n.left);
      stack.push_back(leftFirst ? n.left : n.right);
    }
  }
  return best;
}

}  // namespace d2t
