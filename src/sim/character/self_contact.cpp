// A character against itself (self_contact.h).
#include "sim/character/self_contact.h"

#include <algorithm>
#include <cmath>

#include "sim/character/bone_proxies.h"

namespace d2t {

namespace {

// A node in front of a partner triangle is near when the two would close to within kNearGap in
// the step [m]; it looks that far for them: kNearReach [m] (faster than kNearReach a step, 0.66
// m/s at 60 Hz, an approach is caught by its ring's cut, a step later).
constexpr double kNearGap = 1e-3, kNearReach = 0.011;

// Past this many node-triangle pairs in a sweep, a hierarchy over its triangles pays.
constexpr size_t kBruteForcePairs = 2048;

bool overlaps(const Aabb& a, const Aabb& b) {
  return (a.lo.array() <= b.hi.array()).all() && (b.lo.array() <= a.hi.array()).all();
}

}  // namespace

SelfContacts detectSelfContacts(const CharacterModel& m, const SurfaceTarget& skin,
                                const std::vector<std::pair<int, int>>& pairs, double dt) {
  SelfContacts out;
  if (pairs.empty()) return out;
  const int n = m.nodeCount();
  const std::vector<Vec3>& x = skin.x;
  // each patch's box in its bone's frame (R_j^T (x - c_j): tight about a bone), of the
  // deformed corners C_j
  std::vector<char> used(size_t(m.boneCount()), 0);
  for (const auto& [i, j] : pairs) used[size_t(i)] = used[size_t(j)] = 1;
  const auto local = [&](int b, const Vec3& p) {
    return Vec3(skin.boneRotation[size_t(b)].transpose() * (p - skin.boneCentre[size_t(b)]));
  };
  std::vector<Aabb> patchBox(used.size());
  for (size_t b = 0; b < used.size(); ++b)
    if (used[b])
      for (int p : m.proxies[b].corners) patchBox[b].grow(local(int(b), x[size_t(p)]));
  std::vector<double> reach(static_cast<size_t>(n), -1);  // (lazily) each node's ring's reach
  // how far a node looks: its ring's reach, or kNearReach where nearer
  const auto radius = [&](int p) { return std::max(reach[size_t(p)], dt > 0 ? kNearReach : 0.0); };
  std::vector<TriangleBvh::Closest> best(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n), 0), cut(static_cast<size_t>(n), 0);
  std::vector<int> nodes, tris;
  // the nodes of V_i against the triangles of T_j
  const auto sweep = [&](int i, int j) {
    nodes.clear();
    Aabb around;  // their world box, grown by their reach
    for (int p : m.proxies[size_t(i)].nodes) {
      if (reach[size_t(p)] < 0) reach[size_t(p)] = ringReach(m, x, p);
      const double r = radius(p);
      const Vec3 y = local(j, x[size_t(p)]);
      if ((y.array() < patchBox[size_t(j)].lo.array() - r).any() || (y.array() > patchBox[size_t(j)].hi.array() + r).any())
        continue;
      nodes.push_back(p);
      around.grow(x[size_t(p)] - Vec3::Constant(r));
      around.grow(x[size_t(p)] + Vec3::Constant(r));
    }
    if (nodes.empty()) return;
    tris.clear();
    std::vector<Aabb> boxes;
    for (int t : m.proxies[size_t(j)].triangles) {
      Aabb b;
      for (int c = 0; c < 3; ++c) b.grow(x[size_t(m.triangles[size_t(t)][c])]);
      if (!overlaps(b, around)) continue;
      tris.push_back(t);
      boxes.push_back(b);
    }
    if (tris.empty()) return;
    // (many nodes against many triangles: a hierarchy over the triangles near them)
    const bool deep = nodes.size() * tris.size() > kBruteForcePairs;
    const TriangleBvh bvh = deep ? TriangleBvh(x, m.triangles, tris) : TriangleBvh();
    for (int p : nodes) {
      const double r = radius(p), ring = reach[size_t(p)];
      const Vec3& xp = x[size_t(p)];
      Aabb near;
      near.grow(xp - Vec3::Constant(r));
      near.grow(xp + Vec3::Constant(r));
      const auto test = [&](int t) {
        const Vec3i& f = m.triangles[size_t(t)];
        // (cheap rejections first: the triangle's bounding sphere, then p's own 2-ring)
        const Vec3 centre = (x[size_t(f[0])] + x[size_t(f[1])] + x[size_t(f[2])]) / 3.0;
        double rt = 0;
        for (int c = 0; c < 3; ++c) rt = std::max(rt, (x[size_t(f[c])] - centre).squaredNorm());
        if ((centre - xp).norm() > std::sqrt(rt) + r) return;
        if (inTwoRing(m, p, f)) return;
        std::array<double, 3> w;
        const Vec3 c = closestPointOnTriangle(xp, x[size_t(f[0])], x[size_t(f[1])], x[size_t(f[2])], &w);
        const double d = (c - xp).squaredNorm();
        if (d > r * r) return;
        if (d < best[size_t(p)].distanceSq) best[size_t(p)] = {t, c, w, d};
        if (d > ring * ring) return;
        seen[size_t(p)] = 1;  // (stage 2's report)
        // the exact post-process: p's 1-ring against the triangle
        if (!cut[size_t(p)] && ringOverlaps(m, x, p, f)) cut[size_t(p)] = 1;
      };
      if (deep) {
        bvh.forEachInBox(near, test);
      } else {
        for (size_t k = 0; k < tris.size(); ++k)
          if (overlaps(boxes[k], near)) test(tris[k]);
      }
    }
  };
  for (const auto& [i, j] : pairs) {
    sweep(i, j);
    sweep(j, i);
  }
  for (int p = 0; p < n; ++p) {
    if (best[size_t(p)].triangle < 0) continue;
    const TriangleBvh::Closest& b = best[size_t(p)];
    const Vec3i& f = m.triangles[size_t(b.triangle)];
    SurfaceTarget::Hit h;
    Vec3 smooth = Vec3::Zero();
    for (int a = 0; a < 3; ++a) {
      smooth += b.bary[size_t(a)] * skin.normals[size_t(f[a])];
      h.velocity += b.bary[size_t(a)] * skin.v[size_t(f[a])];
    }
    if (!(smooth.norm() > 0)) continue;
    h.normal = smooth.normalized();
    const double dist = std::sqrt(b.distanceSq);
    h.distance = (x[size_t(p)] - b.point).dot(h.normal) < 0 ? -dist : dist;
    h.point = b.point;
    h.triangle = b.triangle;
    h.bary = b.bary;
    if (seen[size_t(p)]) out.reported.push_back({p, h});
    if (cut[size_t(p)])
      out.kept.push_back({p, h});
    else if (h.distance > 0 && h.distance <= kNearGap + dt * std::max(0.0, -h.normal.dot(skin.v[size_t(p)] - h.velocity)))
      out.near.push_back({p, h});
  }
  return out;
}

}  // namespace d2t
