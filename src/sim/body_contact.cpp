#include "sim/body_contact.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace d2t {

// ---- stage 1: proxies ----------------------------------------------------------------------------

// Farthest-point sampling of the rest skin: the samples cover the skin evenly, and
// the covering radius (the largest distance of any node to its nearest sample) is
// the margin that makes hull(samples) + margin contain every node, hence the skin.
ConvexProxy makeProxy(const BakedBody& m, int maxPoints) {
  const int n = m.nodeCount();
  ConvexProxy p;
  if (n == 0) return p;
  std::vector<double> dist(n, 1e300);
  int next = 0;
  for (int i = 1; i < n; ++i)
    if (m.restSkin[i].squaredNorm() > m.restSkin[next].squaredNorm()) next = i;
  double cover = 0;
  for (int k = 0; k < std::min(maxPoints, n); ++k) {
    p.points.push_back(m.restSkin[next]);
    int far = next;
    cover = 0;
    for (int i = 0; i < n; ++i) {
      dist[i] = std::min(dist[i], (m.restSkin[i] - m.restSkin[next]).norm());
      if (dist[i] > cover) {
        cover = dist[i];
        far = i;
      }
    }
    next = far;
  }
  p.margin = cover;
  return p;
}

// ---- GJK ---------------------------------------------------------------------------------------

namespace {

struct Vertex {
  Vec3 w, a, b;  // w = a - b
};

// Closest point to the origin on triangle (a, b, c) (Ericson, Real-Time Collision
// Detection 5.1.5), as barycentric weights.
std::array<double, 3> closestOnTriangle(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = -a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const Vec3 bp = -b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const Vec3 cp = -c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const double denom = 1 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return {1 - v - w, v, w};
}

// Reduces the simplex to the vertices that support its closest point to the
// origin; returns false when the origin is inside (a tetrahedron containing it).
bool reduceSimplex(std::vector<Vertex>& s, std::vector<double>& weight) {
  auto keep = [&](const std::vector<int>& idx, const std::vector<double>& wts) {
    std::vector<Vertex> ns;
    std::vector<double> nw;
    for (size_t k = 0; k < idx.size(); ++k)
      if (wts[k] > 0) {
        ns.push_back(s[size_t(idx[k])]);
        nw.push_back(wts[k]);
      }
    s = ns;
    weight = nw;
  };
  if (s.size() == 1) {
    weight = {1};
  } else if (s.size() == 2) {
    const Vec3 d = s[1].w - s[0].w;
    const double len2 = d.squaredNorm();
    const double t = len2 > 0 ? std::clamp(-s[0].w.dot(d) / len2, 0.0, 1.0) : 0.0;
    keep({0, 1}, {1 - t, t});
  } else if (s.size() == 3) {
    const auto b = closestOnTriangle(s[0].w, s[1].w, s[2].w);
    keep({0, 1, 2}, {b[0], b[1], b[2]});
  } else {
    // tetrahedron: the origin is inside unless some face separates it from the opposite vertex
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    double best = 1e300;
    std::vector<int> bestIdx;
    std::vector<double> bestW;
    bool outside = false;
    for (const auto& f : faces) {
      const Vec3 &a = s[size_t(f[0])].w, &b = s[size_t(f[1])].w, &c = s[size_t(f[2])].w, &d = s[size_t(f[3])].w;
      const Vec3 nrm = (b - a).cross(c - a);
      if (nrm.dot(-a) * nrm.dot(d - a) >= 0) continue;  // the origin is on d's side of this face
      outside = true;
      const auto wts = closestOnTriangle(a, b, c);
      const double dist = (wts[0] * a + wts[1] * b + wts[2] * c).squaredNorm();
      if (dist < best) {
        best = dist;
        bestIdx = {f[0], f[1], f[2]};
        bestW = {wts[0], wts[1], wts[2]};
      }
    }
    if (!outside) return false;
    keep(bestIdx, bestW);
  }
  return true;
}

int supportIndex(const std::vector<Vec3>& pts, const Vec3& d) {
  int best = 0;
  double bd = -1e300;
  for (int i = 0; i < int(pts.size()); ++i) {
    const double v = pts[size_t(i)].dot(d);
    if (v > bd) {
      bd = v;
      best = i;
    }
  }
  return best;
}

}  // namespace

HullDistance hullDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  HullDistance r;
  if (a.empty() || b.empty()) return r;
  std::vector<Vertex> s = {{a[0] - b[0], a[0], b[0]}};
  std::vector<double> weight = {1};
  Vec3 v = s[0].w;
  for (r.iterations = 0; r.iterations < 64; ++r.iterations) {
    const double vv = v.squaredNorm();
    if (vv < 1e-24) {
      r.overlap = true;
      break;
    }
    const int ia = supportIndex(a, -v), ib = supportIndex(b, v);
    const Vertex w{a[size_t(ia)] - b[size_t(ib)], a[size_t(ia)], b[size_t(ib)]};
    // no vertex of A - B is closer to the origin along v than v itself: converged
    if (vv - v.dot(w.w) <= 1e-12 * vv) break;
    bool repeated = false;
    for (const Vertex& x : s) repeated = repeated || (x.w - w.w).squaredNorm() == 0;
    if (repeated) break;
    s.push_back(w);
    if (!reduceSimplex(s, weight)) {  // the origin is inside the tetrahedron s
      r.overlap = true;
      weight.assign(s.size(), 1.0 / double(s.size()));
      break;
    }
    v.setZero();
    for (size_t k = 0; k < s.size(); ++k) v += weight[k] * s[k].w;
  }
  r.onA.setZero();
  r.onB.setZero();
  for (size_t k = 0; k < s.size(); ++k) {
    r.onA += weight[k] * s[k].a;
    r.onB += weight[k] * s[k].b;
  }
  r.distance = r.overlap ? 0.0 : v.norm();
  if (r.overlap) r.onB = r.onA;
  return r;
}

// ---- stage 1 over all bodies -----------------------------------------------------------------------

namespace {

struct WorldProxy {
  std::vector<Vec3> points;  // world frame
  double margin = 0;         // proxy margin + largest skin displacement
  Vec3 centre = Vec3::Zero();
  double radius = 0;         // bounding sphere about centre
  double grow = 0;           // largest skin displacement [m]
};

WorldProxy placeProxy(const LayeredBody& body, const ConvexProxy& p) {
  WorldProxy w;
  const LayeredState& s = body.state();
  double qmax = 0;
  for (const Vec3& q : s.q) qmax = std::max(qmax, q.norm());
  w.grow = qmax;
  w.margin = p.margin + qmax;
  w.centre = s.position;
  const Mat3 R = s.orientation.toRotationMatrix();
  for (const Vec3& x : p.points) {
    w.points.push_back(s.position + R * x);
    w.radius = std::max(w.radius, x.norm());
  }
  w.radius += w.margin;
  return w;
}

}  // namespace

std::vector<ProxyContact> findProxyContacts(const std::vector<const LayeredBody*>& bodies,
                                            const std::vector<ConvexProxy>& proxies, double tolerance,
                                            PairStats* stats) {
  std::vector<ProxyContact> out;
  const int nb = int(bodies.size());
  if (nb < 2) return out;
  std::vector<WorldProxy> w;
  w.reserve(size_t(nb));
  for (int i = 0; i < nb; ++i) w.push_back(placeProxy(*bodies[size_t(i)], proxies[size_t(i)]));
  // sweep and prune along x
  std::vector<int> order(static_cast<size_t>(nb));
  std::iota(order.begin(), order.end(), 0);
  auto lo = [&](int i) { return w[size_t(i)].centre.x() - w[size_t(i)].radius; };
  auto hi = [&](int i) { return w[size_t(i)].centre.x() + w[size_t(i)].radius; };
  std::sort(order.begin(), order.end(), [&](int i, int j) { return lo(i) < lo(j); });
  for (size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    for (size_t l = k + 1; l < order.size() && lo(order[l]) <= hi(i) + tolerance; ++l) {
      const int j = order[l];
      const WorldProxy &pa = w[size_t(std::min(i, j))], &pb = w[size_t(std::max(i, j))];
      if ((pa.centre - pb.centre).norm() > pa.radius + pb.radius + tolerance) continue;
      if (stats) ++stats->broadPairs;
      const HullDistance d = hullDistance(pa.points, pb.points);
      const double gap = d.distance - pa.margin - pb.margin;
      if (gap >= tolerance) continue;
      if (stats) ++stats->proxyPairs;
      ProxyContact c;
      c.a = std::min(i, j);
      c.b = std::max(i, j);
      c.gap = gap;
      c.margin = tolerance;
      c.growA = pa.grow;
      c.growB = pb.grow;
      Vec3 nrm = d.distance > 1e-9 ? Vec3(d.onB - d.onA) : Vec3(pb.centre - pa.centre);
      if (nrm.norm() < 1e-12) nrm = Vec3::UnitY();
      c.normal = nrm.normalized();
      c.planePoint = 0.5 * (d.onA + pa.margin * c.normal + d.onB - pb.margin * c.normal);
      out.push_back(c);
    }
  }
  return out;
}

// ---- stage 2, CPU reference ------------------------------------------------------------------------

RigidMotion rigidMotion(const LayeredBody& b) {
  RigidMotion r;
  const Mat3 R = b.state().orientation.toRotationMatrix();
  r.mass = b.totalMass();
  r.com = b.centerOfMass();
  r.vcom = b.linearMomentum() / r.mass;
  r.omega = R * b.state().angularVelocity;
  r.invInertia = R * b.model().totalInertia.inverse() * R.transpose();
  return r;
}

Vec3 pairSurfaceVelocity(const RigidMotion& self, const RigidMotion& other, const Vec3& x, const Vec3& n,
                         bool otherImmovable) {
  if (otherImmovable) return other.velocityAt(x);
  const double ws = self.effectiveMass(x, n), wo = other.effectiveMass(x, n);
  return (ws * self.velocityAt(x) + wo * other.velocityAt(x)) / (ws + wo);
}

namespace {

// Normal stiffness n^T K_ii n of node i (n world, rotated into the body frame) [N/m].
double nodeStiffness(const LayeredBody& b, int i, const Vec3& nWorld) {
  const Vec3 nb = b.state().orientation.conjugate() * nWorld;
  return nb.dot(b.model().stiffness[size_t(i)][0] * nb);
}

}  // namespace

NodeContact makePairContact(const LayeredBody& self, const RigidMotion& rs, int node, const Vec3& x,
                            const LayeredBody& other, const RigidMotion& ro, const Vec3i& tri,
                            const std::array<double, 3>& bary, const Vec3& normal, double depth) {
  const Material &ms = self.desc().material, &mo = other.desc().material;
  NodeContact k;
  k.node = node;
  k.normal = normal;
  k.depth = depth;
  k.surfaceVelocity = pairSurfaceVelocity(rs, ro, x, normal);
  k.friction = std::sqrt(ms.friction * mo.friction);
  k.restitution = std::sqrt(ms.restitution * mo.restitution);
  double ko = 0;
  for (int v = 0; v < 3; ++v) ko += bary[size_t(v)] * nodeStiffness(other, tri[v], normal);
  const double ks = nodeStiffness(self, node, normal);
  k.stiffnessShare = ks + ko > 0 ? ko / (ks + ko) : 0.5;
  return k;
}

void unifyPairNormal(std::vector<NodeContact>& ca, std::vector<NodeContact>& cb, const Vec3& fallback) {
  Vec3 n = Vec3::Zero();
  auto weight = [](const NodeContact& c) { return std::max(c.depth, 0.0) + 1e-9; };
  for (const NodeContact& c : cb) n += weight(c) * c.normal;  // out of A, towards B
  for (const NodeContact& c : ca) n -= weight(c) * c.normal;  // out of B, towards A
  n = n.norm() > 1e-12 ? Vec3(n.normalized()) : fallback;
  for (NodeContact& c : ca) c.normal = -n;
  for (NodeContact& c : cb) c.normal = n;
}

namespace {

// Node positions of one body, computed when first asked for (stage 2 touches
// only the patch and its neighbours).
class LazyPositions {
 public:
  explicit LazyPositions(const LayeredBody& b) : body_(b) {}
  // positions already known (a patch's)
  LazyPositions(const LayeredBody& b, const SkinPatch& p) : body_(b) {
    for (size_t j = 0; j < p.nodes.size(); ++j) x_.emplace(p.nodes[j], p.x[j]);
  }
  const Vec3& operator()(int i) {
    auto it = x_.find(i);
    if (it == x_.end()) it = x_.emplace(i, body_.nodePosition(i)).first;
    return it->second;
  }
  // area-weighted normal of node i over all its triangles
  Vec3 normal(int i) {
    const SkinBvh& bvh = body_.model().skinBvh;
    const std::vector<Vec3i>& tris = body_.model().atlas.triangles;
    Vec3 n = Vec3::Zero();
    for (int k = bvh.aroundStart()[size_t(i)]; k < bvh.aroundStart()[size_t(i) + 1]; ++k) {
      const Vec3i& t = tris[size_t(bvh.aroundList()[size_t(k)])];
      const Vec3 a = (*this)(t[0]), b = (*this)(t[1]), c = (*this)(t[2]);
      n += (b - a).cross(c - a);
    }
    return n.norm() > 0 ? Vec3(n.normalized()) : n;
  }

 private:
  const LayeredBody& body_;
  std::unordered_map<int, Vec3> x_;
};

// One side's patch: the triangles of `body` whose grown boxes reach beyond
// sign * (n . x) = h, kept when they face the other body (along sign * n) and
// really reach beyond h at the current state.
SkinPatch patchOf(const LayeredBody& body, const Vec3& n, double sign, double h, double grow, LazyPositions& pos) {
  const LayeredState& s = body.state();
  const Mat3 R = s.orientation.toRotationMatrix();
  const Vec3 dir = sign * n;
  const Vec3 db = R.transpose() * dir;  // body frame
  std::vector<int> candidates;
  body.model().skinBvh.trianglesBeyond(db, h - dir.dot(s.position), grow, &candidates);
  SkinPatch p;
  const std::vector<Vec3i>& tris = body.model().atlas.triangles;
  for (int t : candidates) {
    const Vec3i& v = tris[size_t(t)];
    const Vec3 a = pos(v[0]), b = pos(v[1]), c = pos(v[2]);
    if ((b - a).cross(c - a).dot(dir) <= 0) continue;  // faces away from the other body
    if (std::max({dir.dot(a), dir.dot(b), dir.dot(c)}) <= h) continue;
    p.triangles.push_back(t);
    for (int k = 0; k < 3; ++k) p.nodes.push_back(v[k]);
  }
  std::sort(p.triangles.begin(), p.triangles.end());
  std::sort(p.nodes.begin(), p.nodes.end());
  p.nodes.erase(std::unique(p.nodes.begin(), p.nodes.end()), p.nodes.end());
  p.x.reserve(p.nodes.size());
  for (int i : p.nodes) p.x.push_back(pos(i));
  return p;
}

// max over the body's skin of dir . x, through the skin's hierarchy
double extentAlong(const LayeredBody& body, const Vec3& dir, double grow) {
  const LayeredState& s = body.state();
  const Vec3 db = s.orientation.toRotationMatrix().transpose() * dir;
  const BakedBody& m = body.model();
  return dir.dot(s.position) + m.skinBvh.maxAlong(db, grow, [&](int i) { return db.dot(m.restSkin[size_t(i)] + s.q[size_t(i)]); });
}

// Casts the nodes of `self`'s patch beyond hOther along `dir` (towards `other`)
// against the triangles of `other`'s patch (they face `self`); appends the
// penetrating nodes.
int castAlong(const LayeredBody& self, const SkinPatch& mine, LazyPositions& ps, double hOther,
              const LayeredBody& other, const SkinPatch& theirs, LazyPositions& po, const Vec3& dir,
              double margin, std::vector<NodeContact>* out) {
  // the contact camera's window: a grid on the plane orthogonal to dir
  const Vec3 t1 = dir.unitOrthogonal(), t2 = dir.cross(t1);
  auto plane = [&](const Vec3& p) { return Vec2(t1.dot(p), t2.dot(p)); };
  struct Tri {
    Vec3i v;
    Vec2 p[3];
    Vec2 lo, hi;
  };
  std::vector<Tri> tris;
  Vec2 lo(1e300, 1e300), hi(-1e300, -1e300);
  double extent = 0;
  for (int id : theirs.triangles) {
    const Vec3i& t = other.model().atlas.triangles[size_t(id)];
    Tri tr;
    tr.v = t;
    for (int k = 0; k < 3; ++k) tr.p[k] = plane(po(t[k]));
    tr.lo = tr.p[0].cwiseMin(tr.p[1]).cwiseMin(tr.p[2]);
    tr.hi = tr.p[0].cwiseMax(tr.p[1]).cwiseMax(tr.p[2]);
    lo = lo.cwiseMin(tr.lo);
    hi = hi.cwiseMax(tr.hi);
    extent += (tr.hi - tr.lo).maxCoeff();
    tris.push_back(tr);
  }
  if (tris.empty()) return 0;
  const double cell = std::max(extent / double(tris.size()), 1e-6);
  const int gx = std::clamp(int((hi.x() - lo.x()) / cell) + 1, 1, 512);
  const int gy = std::clamp(int((hi.y() - lo.y()) / cell) + 1, 1, 512);
  const double sx = gx / std::max(hi.x() - lo.x(), 1e-12), sy = gy / std::max(hi.y() - lo.y(), 1e-12);
  auto cellOf = [&](const Vec2& p, int* cx, int* cy) {
    *cx = std::clamp(int((p.x() - lo.x()) * sx), 0, gx - 1);
    *cy = std::clamp(int((p.y() - lo.y()) * sy), 0, gy - 1);
  };
  std::vector<std::vector<int>> grid(size_t(gx) * size_t(gy));
  for (int k = 0; k < int(tris.size()); ++k) {
    int x0, y0, x1, y1;
    cellOf(tris[size_t(k)].lo, &x0, &y0);
    cellOf(tris[size_t(k)].hi, &x1, &y1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) grid[size_t(y) * size_t(gx) + size_t(x)].push_back(k);
  }
  const RigidMotion rs = rigidMotion(self), ro = rigidMotion(other);
  int found = 0;
  for (size_t j = 0; j < mine.nodes.size(); ++j) {
    const int i = mine.nodes[j];
    const Vec3& x = mine.x[j];
    if (dir.dot(x) <= hOther - margin) continue;  // not in the overlap slab
    const Vec2 p = plane(x);
    if (p.x() < lo.x() || p.y() < lo.y() || p.x() > hi.x() || p.y() > hi.y()) continue;
    int cx, cy;
    cellOf(p, &cx, &cy);
    // the first surface of `other` met along dir (the one facing self)
    double best = 1e300;
    int bestTri = -1;
    std::array<double, 3> bestBary{};
    for (int k : grid[size_t(cy) * size_t(gx) + size_t(cx)]) {
      const Tri& t = tris[size_t(k)];
      if (p.x() < t.lo.x() || p.y() < t.lo.y() || p.x() > t.hi.x() || p.y() > t.hi.y()) continue;
      const Vec2 e0 = t.p[1] - t.p[0], e1 = t.p[2] - t.p[0], r = p - t.p[0];
      const double det = e0.x() * e1.y() - e0.y() * e1.x();
      if (std::abs(det) < 1e-30) continue;
      const double u = (r.x() * e1.y() - r.y() * e1.x()) / det, v = (e0.x() * r.y() - e0.y() * r.x()) / det;
      if (u < 0 || v < 0 || u + v > 1) continue;
      const std::array<double, 3> bary = {1 - u - v, u, v};
      double h = 0;
      for (int c = 0; c < 3; ++c) h += bary[size_t(c)] * dir.dot(po(t.v[c]));
      if (h < best) {
        best = h;
        bestTri = k;
        bestBary = bary;
      }
    }
    if (bestTri < 0 || dir.dot(x) <= best - margin) continue;  // in front of the other surface
    const Tri& t = tris[size_t(bestTri)];
    const Vec3 a = po(t.v[0]), b = po(t.v[1]), c = po(t.v[2]);
    const Vec3 facet = (b - a).cross(c - a).normalized();  // out of `other`, towards self
    // the overlap along n, as the contact camera's D measures it
    const double depth = dir.dot(x) - best;
    // the average of the two surfaces' (smooth) normals at the contact
    Vec3 nrm = -ps.normal(i);
    for (int v = 0; v < 3; ++v) nrm += bestBary[size_t(v)] * po.normal(t.v[v]);
    nrm = nrm.norm() > 1e-12 ? Vec3(nrm.normalized()) : facet;
    out->push_back(makePairContact(self, rs, i, x, other, ro, t.v, bestBary, nrm, depth));
    found += depth > 0;
  }
  return found;
}

}  // namespace

bool findPairPatches(const LayeredBody& a, const LayeredBody& b, const ProxyContact& pair, PairPatches* out) {
  const Vec3& n = pair.normal;
  out->hA = extentAlong(a, n, pair.growA);
  out->hB = -extentAlong(b, -n, pair.growB);
  if (out->hA + pair.margin <= out->hB) return false;  // the skins are apart along n
  LazyPositions pa(a), pb(b);
  out->a = patchOf(a, n, 1, out->hB - pair.margin, pair.growA, pa);
  out->b = patchOf(b, n, -1, -out->hA - pair.margin, pair.growB, pb);
  return !out->a.triangles.empty() && !out->b.triangles.empty();
}

int findSkinContacts(const LayeredBody& a, const LayeredBody& b, const ProxyContact& pair,
                     std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) {
  PairPatches patches;
  if (!findPairPatches(a, b, pair, &patches)) return 0;
  LazyPositions pa(a, patches.a), pb(b, patches.b);
  std::vector<NodeContact> ca, cb;
  const int found = castAlong(a, patches.a, pa, patches.hB, b, patches.b, pb, pair.normal, pair.margin, &ca) +
                    castAlong(b, patches.b, pb, -patches.hA, a, patches.a, pa, -pair.normal, pair.margin, &cb);
  if (ca.empty() && cb.empty()) return 0;
  unifyPairNormal(ca, cb, pair.normal);
  outA->insert(outA->end(), ca.begin(), ca.end());
  outB->insert(outB->end(), cb.begin(), cb.end());
  return found;
}

}  // namespace d2t
