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

}  // namespace

SelfContacts detectSelfContacts(const CharacterModel& m, const SurfaceTarget& skin,
                                const std::vector<std::pair<int, int>>& pairs, double dt) {
  SelfContacts out;
  if (pairs.empty()) return out;
  const int n = m.nodeCount();
  const std::vector<Vec3>& x = skin.x;
  std::vector<char> used(size_t(m.boneCount()), 0);
  for (const auto& [i, j] : pairs) used[size_t(i)] = used[size_t(j)] = 1;
  const auto local = [&](int b, const Vec3& p) {
    return Vec3(skin.boneRotation[size_t(b)].transpose() * (p - skin.boneCentre[size_t(b)]));
  };
  // each patch's box in its bone's frame (R_j^T (x - c_j) of its deformed corners C_j: tight
  // about a bone), and its hierarchy refit to the skin
  std::vector<Aabb> patchBox(used.size());
  std::vector<TriangleBvh> patch(used.size());
  for (size_t b = 0; b < used.size(); ++b) {
    if (!used[b]) continue;
    for (int p : m.proxies[b].corners) patchBox[b].grow(local(int(b), x[size_t(p)]));
    patch[b] = m.proxies[b].hierarchy;
    patch[b].refit(x, m.triangles);
  }
  std::vector<double> reach(static_cast<size_t>(n), -1);  // each node's ring's reach (runsOf)
  // how far a node looks: its ring's reach, or kNearReach where nearer
  const auto radius = [&](int p) { return std::max(reach[size_t(p)], dt > 0 ? kNearReach : 0.0); };
  // the world boxes of a patch's runs of nodes (BoneProxy::kNodeRun, near each other at rest),
  // each grown by its nodes' radii (once a bone, when it first sweeps)
  constexpr size_t kRun = BoneProxy::kNodeRun;
  std::vector<std::vector<Aabb>> runBox(used.size());
  const auto runsOf = [&](int i) -> const std::vector<Aabb>& {
    std::vector<Aabb>& boxes = runBox[size_t(i)];
    const std::vector<int>& v = m.proxies[size_t(i)].nodes;
    for (size_t s = boxes.size() * kRun; s < v.size(); s += kRun) {
      Aabb b;
      for (size_t e = s; e < std::min(v.size(), s + kRun); ++e) {
        const int p = v[e];
        reach[size_t(p)] = ringReach(m, x, p);
        b.grow(x[size_t(p)] - Vec3::Constant(radius(p)));
        b.grow(x[size_t(p)] + Vec3::Constant(radius(p)));
      }
      boxes.push_back(b);
    }
    return boxes;
  };
  std::vector<TriangleBvh::Closest> best(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n), 0), cut(static_cast<size_t>(n), 0);
  std::vector<int> ringOf(static_cast<size_t>(n), -1);  // q is in p's rest 1-ring: ringOf[q] == p
  // node p of V_i against T_j's triangles near it (not in its rest 2-ring): its nearest, and the
  // exact post-process
  const auto visit = [&](int p, int j) {
    const double r = radius(p), ring = reach[size_t(p)];
    const Vec3& xp = x[size_t(p)];
    const Vec3 y = local(j, xp);
    if ((y.array() < patchBox[size_t(j)].lo.array() - r).any() || (y.array() > patchBox[size_t(j)].hi.array() + r).any())
      return;
    for (int e = m.stencil.start[size_t(p)]; e < m.stencil.start[size_t(p) + 1]; ++e)
      ringOf[size_t(m.stencil.column[size_t(e)])] = p;
    Aabb near;
    near.grow(xp - Vec3::Constant(r));
    near.grow(xp + Vec3::Constant(r));
    patch[size_t(j)].forEachInBox(near, [&](int t) {
      const Vec3i& f = m.triangles[size_t(t)];
      if (ringOf[size_t(f[0])] == p || ringOf[size_t(f[1])] == p || ringOf[size_t(f[2])] == p) return;  // (inTwoRing)
      std::array<double, 3> w;
      const Vec3 c = closestPointOnTriangle(xp, x[size_t(f[0])], x[size_t(f[1])], x[size_t(f[2])], &w);
      const double d = (c - xp).squaredNorm();
      if (d > r * r) return;
      if (d < best[size_t(p)].distanceSq) best[size_t(p)] = {t, c, w, d};
      if (d > ring * ring) return;
      seen[size_t(p)] = 1;  // (stage 2's report)
      // the exact post-process: p's 1-ring against the triangle
      if (!cut[size_t(p)] && ringOverlaps(m, x, p, f)) cut[size_t(p)] = 1;
    });
  };
  // the nodes of V_i near T_j (its box in bone j's frame; a run of them at a time, then each)
  // against T_j's triangles near them
  const auto sweep = [&](int i, int j) {
    if (patch[size_t(j)].empty()) return;
    const std::vector<int>& v = m.proxies[size_t(i)].nodes;
    const std::vector<Aabb>& boxes = runsOf(i);
    const Mat3 Rt = skin.boneRotation[size_t(j)].transpose();
    const Aabb& pj = patchBox[size_t(j)];
    for (size_t run = 0; run < boxes.size(); ++run) {
      const Vec3 c = local(j, boxes[run].center()), h = Rt.cwiseAbs() * (0.5 * (boxes[run].hi - boxes[run].lo));
      if (((c - h).array() > pj.hi.array()).any() || ((c + h).array() < pj.lo.array()).any()) continue;
      for (size_t e = run * kRun; e < std::min(v.size(), (run + 1) * kRun); ++e)
        visit(v[e], j);
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
