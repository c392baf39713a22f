// Stage 1 of a character's collision detection, per bone (bone_proxies.h).
#include "sim/character/bone_proxies.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/base/triangle_bvh.h"

namespace d2t {

namespace {

// The proxy's samples (the design's "about 32 points").
constexpr int kProxyPoints = 32;

// Orders ids[begin, end) so that runs of BoneProxy::kNodeRun are near each other at x: halves
// at the median along the longest axis of their box until a run is left.
void runOrder(std::vector<int>& ids, const std::vector<Vec3>& x, size_t begin, size_t end) {
  if (end - begin <= size_t(BoneProxy::kNodeRun)) return;
  Aabb box;
  for (size_t i = begin; i < end; ++i) box.grow(x[size_t(ids[i])]);
  int axis;
  (box.hi - box.lo).maxCoeff(&axis);
  // (the split on a run boundary, so that every run but the last is full)
  const size_t runs = (end - begin + BoneProxy::kNodeRun - 1) / BoneProxy::kNodeRun;
  const size_t mid = begin + (runs / 2) * BoneProxy::kNodeRun;
  std::nth_element(ids.begin() + long(begin), ids.begin() + long(mid), ids.begin() + long(end),
                   [&](int a, int b) { return x[size_t(a)][axis] < x[size_t(b)][axis]; });
  runOrder(ids, x, begin, mid);
  runOrder(ids, x, mid, end);
}

}  // namespace

void buildBoneProxies(CharacterModel& m) {
  const int n = m.nodeCount(), k = m.boneCount();
  // the nodes' 1-rings
  m.ringStart.assign(size_t(n) + 1, 0);
  for (const Vec3i& t : m.triangles)
    for (int c = 0; c < 3; ++c) ++m.ringStart[size_t(t[c]) + 1];
  for (int p = 0; p < n; ++p) m.ringStart[size_t(p) + 1] += m.ringStart[size_t(p)];
  m.ringTriangle.assign(size_t(m.ringStart.back()), -1);
  std::vector<int> fill(m.ringStart.begin(), m.ringStart.end() - 1);
  for (size_t t = 0; t < m.triangles.size(); ++t)
    for (int c = 0; c < 3; ++c) m.ringTriangle[size_t(fill[size_t(m.triangles[t][c])]++)] = int(t);

  m.proxies.assign(size_t(k), {});
  std::vector<std::vector<char>> moves(size_t(k), std::vector<char>(size_t(n), 0));
  for (int p = 0; p < n; ++p) {
    const int b = m.influence[size_t(p)].dominant();
    m.proxies[size_t(b)].nodes.push_back(p);
    moves[size_t(b)][size_t(p)] = 1;
  }
  for (int i = 0; i < k; ++i) {
    BoneProxy& bp = m.proxies[size_t(i)];
    runOrder(bp.nodes, m.restSkin, 0, bp.nodes.size());
    const Vec3& centre = m.skeleton.bones[size_t(i)].bindPosition;
    std::vector<char> corner(size_t(n), 0);
    for (size_t t = 0; t < m.triangles.size(); ++t) {
      const Vec3i& f = m.triangles[t];
      if (!moves[size_t(i)][size_t(f[0])] && !moves[size_t(i)][size_t(f[1])] && !moves[size_t(i)][size_t(f[2])])
        continue;
      bp.triangles.push_back(int(t));
      for (int c = 0; c < 3; ++c) corner[size_t(f[c])] = 1;
    }
    std::vector<Vec3> local;
    for (int p = 0; p < n; ++p)
      if (corner[size_t(p)]) {
        bp.corners.push_back(p);
        local.push_back(m.restSkin[size_t(p)] - centre);
      }
    bp.hull = makeProxy(local, kProxyPoints);
    if (!bp.triangles.empty()) bp.hierarchy = TriangleBvh(m.restSkin, m.triangles, bp.triangles);
    // the blends: per other bone a moving a node of C_i, o_ia the w_pa-weighted centroid
    std::map<int, std::pair<Vec3, double>> sums;
    for (int p : bp.corners) {
      const Influences& in = m.influence[size_t(p)];
      for (int a = 0; a < in.count; ++a) {
        if (in.bone[size_t(a)] == i) continue;
        auto& s = sums[in.bone[size_t(a)]];
        if (s.second == 0) s.first.setZero();
        s.first += in.weight[size_t(a)] * m.restSkin[size_t(p)];
        s.second += in.weight[size_t(a)];
      }
    }
    for (const auto& [a, s] : sums) {
      BoneProxy::Blend b;
      b.bone = a;
      b.origin = s.first / s.second;
      for (int p : bp.corners) {
        const Influences& in = m.influence[size_t(p)];
        for (int c = 0; c < in.count; ++c)
          if (in.bone[size_t(c)] == a) {
            b.weight = std::max(b.weight, in.weight[size_t(c)]);
            b.reach = std::max(b.reach, in.weight[size_t(c)] * (m.restSkin[size_t(p)] - b.origin).norm());
          }
      }
      bp.blends.push_back(b);
    }
  }
  // the seams: bone b's patch meets bone a's where a corner of T_a is a node of V_b
  for (int a = 0; a < k; ++a) {
    std::vector<char> met(size_t(k), 0);
    for (int p : m.proxies[size_t(a)].corners) {
      const int b = m.influence[size_t(p)].dominant();
      if (b != a && !met[size_t(b)]) {
        met[size_t(b)] = 1;
        m.proxies[size_t(a)].seams.push_back(b);
      }
    }
  }
}

std::vector<PlacedProxy> placeBoneProxies(const CharacterModel& m, const std::vector<CoreState>& bones,
                                          const std::vector<Vec3>& q) {
  const int k = m.boneCount();
  std::vector<Quat> P;  // P_i = R_i R_b,i^T
  for (int b = 0; b < k; ++b) P.push_back(bones[size_t(b)].orientation * m.skeleton.bones[size_t(b)].bindOrientation.conjugate());
  // T_b(u) = c_b + P_b (u - c_b,bind)
  const auto rigid = [&](int b, const Vec3& u) {
    return Vec3(bones[size_t(b)].position + P[size_t(b)] * (u - m.skeleton.bones[size_t(b)].bindPosition));
  };
  std::vector<PlacedProxy> out(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    const BoneProxy& bp = m.proxies[size_t(i)];
    double Q = 0;
    for (int p : bp.corners) Q = std::max(Q, q[size_t(p)].norm());
    double grow = Q;
    for (const BoneProxy::Blend& b : bp.blends) {
      const double s = 2 * (P[size_t(i)].conjugate() * P[size_t(b.bone)]).vec().norm();  // ||P_a - P_i||
      grow += Q * s * b.weight + b.weight * (rigid(b.bone, b.origin) - rigid(i, b.origin)).norm() + s * b.reach;
    }
    PlacedProxy& w = out[size_t(i)];
    w.grow = grow;
    w.margin = bp.hull.margin + grow;
    const Mat3 R = P[size_t(i)].toRotationMatrix();
    Vec3 centre = Vec3::Zero();
    for (const Vec3& y : bp.hull.points) {
      w.points.push_back(bones[size_t(i)].position + R * y);
      centre += w.points.back();
    }
    w.centre = w.points.empty() ? bones[size_t(i)].position : Vec3(centre / double(w.points.size()));
    for (const Vec3& x : w.points) w.radius = std::max(w.radius, (x - w.centre).norm());
    w.radius += w.margin;
  }
  return out;
}

void sweepBoneProxies(const CharacterModel& m, const std::vector<Vec3>& v, double time,
                      std::vector<PlacedProxy>& proxies) {
  for (size_t i = 0; i < proxies.size(); ++i) {
    double fastest = 0;
    for (int p : m.proxies[i].corners) fastest = std::max(fastest, v[size_t(p)].squaredNorm());
    proxies[i].sweep(time * std::sqrt(fastest));
  }
}

void boundingSphere(const std::vector<PlacedProxy>& proxies, Vec3* centre, double* radius) {
  Vec3 c = Vec3::Zero();
  for (const PlacedProxy& p : proxies) c += p.centre;
  if (!proxies.empty()) c /= double(proxies.size());
  double r = 0;
  for (const PlacedProxy& p : proxies) r = std::max(r, (p.centre - c).norm() + p.radius);
  *centre = c;
  *radius = r;
}

namespace {

bool within(const PlacedProxy& a, const PlacedProxy& b, double tolerance) {
  if ((a.centre - b.centre).norm() > a.radius + b.radius + tolerance) return false;
  return hullsWithin(a.points, b.points, a.margin + b.margin + tolerance);
}

}  // namespace

std::vector<std::pair<int, int>> proxyPairs(const std::vector<PlacedProxy>& a, const std::vector<PlacedProxy>& b,
                                            double tolerance) {
  std::vector<std::pair<int, int>> out;
  Vec3 ca, cb;
  double ra, rb;
  boundingSphere(a, &ca, &ra);
  boundingSphere(b, &cb, &rb);
  if ((ca - cb).norm() > ra + rb + tolerance) return out;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((a[i].centre - cb).norm() > a[i].radius + rb + tolerance) continue;
    for (size_t j = 0; j < b.size(); ++j)
      if (within(a[i], b[j], tolerance)) out.push_back({int(i), int(j)});
  }
  return out;
}

std::vector<std::pair<int, int>> selfProxyPairs(const CharacterModel& m, const std::vector<CoreState>& bones,
                                                const std::vector<PlacedProxy>& proxies, double tolerance) {
  const int k = m.boneCount();
  // bones whose patches meet (joined, or sharing a seam): -1 apart, 1 turned past kSeamAngle
  // from each other; 0 elsewhere
  std::vector<int> joined(size_t(k) * size_t(k), 0);
  const auto P = [&](int b) { return Quat(bones[size_t(b)].orientation * m.skeleton.bones[size_t(b)].bindOrientation.conjugate()); };
  const auto mark = [&](int a, int b) {
    const double angle = 2 * std::asin(std::min(1.0, (P(a).conjugate() * P(b)).vec().norm()));
    joined[size_t(a) * size_t(k) + size_t(b)] = joined[size_t(b) * size_t(k) + size_t(a)] = angle >= kSeamAngle ? 1 : -1;
  };
  for (const Joint& j : m.skeleton.joints)
    if (j.parent >= 0) mark(j.parent, j.child);
  for (int a = 0; a < k; ++a)
    for (int b : m.proxies[size_t(a)].seams) mark(a, b);
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j)
      if (joined[size_t(i) * size_t(k) + size_t(j)] >= 0 && within(proxies[size_t(i)], proxies[size_t(j)], tolerance))
        out.push_back({i, j});
  return out;
}

bool inTwoRing(const CharacterModel& m, int p, const Vec3i& t) {
  for (int c = 0; c < 3; ++c)
    if (m.stencil.find(p, t[c]) >= 0) return true;
  return false;
}

double ringReach(const CharacterModel& m, const std::vector<Vec3>& x, int p) {
  double r = 0;
  for (int e = m.stencil.start[size_t(p)]; e < m.stencil.start[size_t(p) + 1]; ++e)
    r = std::max(r, (x[size_t(m.stencil.column[size_t(e)])] - x[size_t(p)]).norm());
  return r;
}

bool ringOverlaps(const CharacterModel& m, const std::vector<Vec3>& x, int p, const Vec3i& t) {
  const std::array<Vec3, 3> b{x[size_t(t[0])], x[size_t(t[1])], x[size_t(t[2])]};
  for (int e = m.ringStart[size_t(p)]; e < m.ringStart[size_t(p) + 1]; ++e) {
    const Vec3i& f = m.triangles[size_t(m.ringTriangle[size_t(e)])];
    if (trianglesOverlap({x[size_t(f[0])], x[size_t(f[1])], x[size_t(f[2])]}, b)) return true;
  }
  return false;
}

}  // namespace d2t
