#include "sim/contact/body_contact.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <unordered_map>

namespace d2t {

// ---- stage 1: proxies ----------------------------------------------------------------------------

ConvexProxy makeProxy(const BakedBody& m, int maxPoints) { return makeProxy(m.restSkin, maxPoints); }

// ---- stage 1 over all bodies -----------------------------------------------------------------------

namespace {

// The proxy at (position, R), its bounding sphere about the local point `centre`.
PlacedProxy place(const ConvexProxy& p, const Vec3& position, const Mat3& R, double grow,
                  const Vec3& centre = Vec3::Zero()) {
  PlacedProxy w;
  w.grow = grow;
  w.margin = p.margin + grow;
  w.centre = position + R * centre;
  for (const Vec3& x : p.points) {
    w.points.push_back(position + R * x);
    w.radius = std::max(w.radius, (x - centre).norm());
  }
  w.radius += w.margin;
  return w;
}

}  // namespace

PlacedProxy placeProxy(LayeredBody& body, const ConvexProxy& p) {
  const CoreState& s = body.core();  // (the skin's state is not read: the summary's max |q|)
  return place(p, s.position, s.orientation.toRotationMatrix(), body.maxDisplacement());
}

PlacedProxy placeProxy(const Collider& c) {
  PlacedProxy w = place(c.proxy(), c.position(), c.orientation().toRotationMatrix(), 0);
  w.rigid = true;
  return w;
}

PlacedProxy placeProxy(const Collider& c, int piece) {
  const ColliderPiece& p = c.pieces()[size_t(piece)];
  PlacedProxy w = place(p.proxy, c.position(), c.orientation().toRotationMatrix(), 0, p.centre);
  w.rigid = true;
  w.axis = c.orientation() * p.axis;
  w.sheet = c.position() + c.orientation() * p.sheet;
  w.doubleSided = p.doubleSided;
  w.piece = &p;
  w.position = c.position();
  w.rotation = c.orientation().toRotationMatrix();
  return w;
}

namespace {

// Whether world point x lies over a collider's cluster: seen along the cluster's axis,
// inside one of its own triangles (not its skirt's).
bool overCluster(const PlacedProxy& w, const Vec3& x) {
  const ColliderPiece& p = *w.piece;
  const Vec3 local = w.rotation.transpose() * (x - w.position);
  const Vec3 t1 = p.axis.unitOrthogonal(), t2 = p.axis.cross(t1);
  auto plane = [&](const Vec3& v) { return Vec2(t1.dot(v), t2.dot(v)); };
  const Vec2 q = plane(local);
  for (int k = 0; k < p.own; ++k) {
    const Vec3i& t = p.mesh.triangles[size_t(k)];
    const Vec2 a = plane(p.mesh.positions[size_t(t[0])]), e0 = plane(p.mesh.positions[size_t(t[1])]) - a,
               e1 = plane(p.mesh.positions[size_t(t[2])]) - a, r = q - a;
    const double det = e0.x() * e1.y() - e0.y() * e1.x();
    if (std::abs(det) < 1e-30) continue;
    const double u = (r.x() * e1.y() - r.y() * e1.x()) / det, v = (e0.x() * r.y() - e0.y() * r.x()) / det;
    if (u >= 0 && v >= 0 && u + v <= 1) return true;
  }
  return false;
}

}  // namespace

std::vector<ProxyContact> findProxyContacts(const std::vector<PlacedProxy>& w, double tolerance,
                                            PairStats* stats) {
  std::vector<ProxyContact> out;
  const int nb = int(w.size());
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
      const PlacedProxy &pa = w[size_t(std::min(i, j))], &pb = w[size_t(std::max(i, j))];
      if (pa.rigid && pb.rigid) continue;
      if ((pa.centre - pb.centre).norm() > pa.radius + pb.radius + tolerance) continue;
      if (stats) ++stats->broadPairs;
      const HullDistance d = hullDistance(pa.points, pb.points);
      const double gap = (d.overlap ? -d.depth : d.distance) - pa.margin - pb.margin;
      if (gap >= tolerance) continue;
      // an open cluster that A's centre is beside, not over (A on its edge: a step's
      // nosing, a bowl's rim), within A's reach of its plane: which side A is on is
      // undecided there; the clusters A is over, and their skirts, hold it
      if (pb.piece && pb.doubleSided && std::abs(pb.axis.dot(pa.centre - pb.sheet)) < pa.radius &&
          !overCluster(pb, pa.centre))
        continue;
      if (stats) ++stats->proxyPairs;
      ProxyContact c;
      c.a = std::min(i, j);
      c.b = std::max(i, j);
      c.gap = gap;
      c.margin = tolerance;
      c.growA = pa.grow;
      c.growB = pb.grow;
      // the closest points' direction, or the least penetration's (a ball on a wide
      // box: the box's face normal, where the centres' difference would tilt with
      // the ball's offset along the face)
      Vec3 nrm = d.normal.norm() > 0 ? d.normal : Vec3(pb.centre - pa.centre);
      if (nrm.norm() < 1e-12) nrm = Vec3::UnitY();
      c.normal = nrm.normalized();
      // a collider's flat cluster (after the bodies: B): along its axis, into it from A's
      // side (an open one) or from outside (a closed one's axis is outward)
      if (!pb.axis.isZero())
        c.normal = pb.doubleSided && pb.axis.dot(pa.centre - pb.sheet) < 0 ? pb.axis : Vec3(-pb.axis);
      c.planePoint = 0.5 * (d.onA + pa.margin * c.normal + d.onB - pb.margin * c.normal);
      out.push_back(c);
    }
  }
  return out;
}

std::vector<ProxyContact> findProxyContacts(const std::vector<LayeredBody*>& bodies,
                                            const std::vector<ConvexProxy>& proxies, double tolerance,
                                            PairStats* stats) {
  std::vector<PlacedProxy> placed;
  for (size_t i = 0; i < bodies.size(); ++i) placed.push_back(placeProxy(*bodies[i], proxies[i]));
  return findProxyContacts(placed, tolerance, stats);
}

// ---- stage 2, CPU reference ------------------------------------------------------------------------

RigidMotion rigidMotion(LayeredBody& b) {
  RigidMotion r;
  const Mat3 R = b.core().orientation.toRotationMatrix();
  r.mass = b.totalMass();
  r.com = b.centerOfMass();
  r.vcom = b.linearMomentum() / r.mass;
  r.omega = R * b.core().angularVelocity;
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
double nodeStiffness(LayeredBody& b, int i, const Vec3& nWorld) {
  const Vec3 nb = b.core().orientation.conjugate() * nWorld;
  return nb.dot(b.model().stiffness[size_t(i)][0] * nb);
}

}  // namespace

NodeContact makePairContact(LayeredBody& self, const RigidMotion& rs, int node, const Vec3& x,
                            LayeredBody& other, const RigidMotion& ro, const Vec3i& tri,
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

// The area-weighted normal of node i of `s` over all its triangles, node positions
// (world) from x(j).
template <class Positions>
Vec3 areaNormal(const ContactSurface& s, int i, Positions&& x) {
  const SkinBvh& bvh = *s.bvh;
  const std::vector<Vec3i>& tris = *s.triangles;
  Vec3 n = Vec3::Zero();
  for (int k = bvh.aroundStart()[size_t(i)]; k < bvh.aroundStart()[size_t(i) + 1]; ++k) {
    const Vec3i& t = tris[size_t(bvh.aroundList()[size_t(k)])];
    const Vec3 a = x(t[0]), b = x(t[1]), c = x(t[2]);
    n += (b - a).cross(c - a);
  }
  return n.norm() > 0 ? Vec3(n.normalized()) : n;
}

// pairNormal, with the surfaces' node normals from normalSelf(i) and normalOther(j)
template <class SelfNormal, class OtherNormal>
Vec3 meanNormal(bool otherDeforms, int node, SelfNormal&& normalSelf, const Vec3i& tri,
                const std::array<double, 3>& bary, OtherNormal&& normalOther, const Vec3& fallback) {
  Vec3 n = otherDeforms ? Vec3(-normalSelf(node)) : Vec3::Zero();
  for (int v = 0; v < 3; ++v) n += bary[size_t(v)] * normalOther(tri[v]);
  return n.norm() > 1e-12 ? Vec3(n.normalized()) : fallback;
}

// Node positions of one surface, computed when first asked for (stage 2 touches
// only the patch and its neighbours).
class LazyPositions {
 public:
  explicit LazyPositions(const ContactSurface& s) : surface_(s) {}
  // positions already known (a patch's)
  LazyPositions(const ContactSurface& s, const SkinPatch& p) : surface_(s) {
    for (size_t j = 0; j < p.nodes.size(); ++j) x_.emplace(p.nodes[j], p.x[j]);
  }
  const Vec3& operator()(int i) {
    auto it = x_.find(i);
    if (it == x_.end()) it = x_.emplace(i, surface_.node(i)).first;
    return it->second;
  }
  // area-weighted normal of node i over all its triangles
  Vec3 normal(int i) {
    return areaNormal(surface_, i, [this](int j) { return (*this)(j); });
  }

 private:
  const ContactSurface& surface_;
  std::unordered_map<int, Vec3> x_;
};

// max over the rest surface of dir . x (in the world), through its hierarchy
double restExtentAlong(const ContactSurface& surface, const Vec3& dir) {
  const Vec3 db = surface.rotation.transpose() * dir;
  return dir.dot(surface.position) +
         surface.bvh->maxAlong(db, 0, [&](int i) { return db.dot((*surface.rest)[size_t(i)]); });
}

// The bounds stage 2 starts from, before any node position is read: every node is
// within `grow` of its rest position, so the surface's extent along dir is at least
// its rest extent less the growth (the node that is extreme at rest is there), and
// at most the rest extent plus it. (The floor is lowered by a hair: the growth may
// be a float maximum of the solver's.)
struct ExtentBounds {
  double floor, ceiling;
};
ExtentBounds extentBounds(const ContactSurface& surface, const Vec3& dir, double grow) {
  const double rest = restExtentAlong(surface, dir);
  return {rest - grow * (1 + 1e-6) - 1e-9, rest + grow};
}

// The triangles of `surface` whose grown boxes reach beyond dir . x = h (world).
std::vector<int> trianglesBeyond(const ContactSurface& surface, const Vec3& dir, double h, double grow) {
  std::vector<int> out;
  surface.bvh->trianglesBeyond(surface.rotation.transpose() * dir, h - dir.dot(surface.position), grow, &out);
  return out;
}

// One side's patch: the triangles of `surface` whose grown boxes reach beyond
// sign * (n . x) = h, kept when they face the other side (along sign * n) and
// really reach beyond h at the current state.
SkinPatch patchOf(const ContactSurface& surface, const Vec3& n, double sign, double h, double grow,
                  LazyPositions& pos) {
  const Vec3 dir = sign * n;
  SkinPatch p;
  const std::vector<Vec3i>& tris = *surface.triangles;
  for (int t : trianglesBeyond(surface, dir, h, grow)) {
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

// max over the surface of dir . x, over the corners of `beyond`: the triangles that
// can reach beyond the floor (a node beyond it is a corner of one of them)
double extentAlong(const ContactSurface& surface, const Vec3& dir, double floor, const std::vector<int>& beyond) {
  const Vec3 db = surface.rotation.transpose() * dir;
  double best = floor - dir.dot(surface.position);
  for (int t : beyond)
    for (int k = 0; k < 3; ++k) best = std::max(best, db.dot(surface.local((*surface.triangles)[size_t(t)][k])));
  return dir.dot(surface.position) + best;
}

// Reads back in one gather, where a solver holds the body's skin, every node stage 2
// may read on one side: the corners of `extent` (extentAlong's triangles), and those of
// the patch's candidates (beyond `patchFloor`, below which the patch's plane cannot
// lie) with their one-rings (LazyPositions::normal).
void prefetchSide(const ContactSurface& surface, const Vec3& dir, double grow, const std::vector<int>& extent,
                  double patchFloor) {
  if (!surface.body || !surface.body->skinMirrorStale()) return;
  const std::vector<Vec3i>& tris = *surface.triangles;
  const SkinBvh& bvh = *surface.bvh;
  std::vector<char> marked(surface.rest->size(), 0);
  std::vector<int> nodes;
  auto mark = [&](int i) {
    if (!marked[size_t(i)]) nodes.push_back(i);
    marked[size_t(i)] = 1;
  };
  for (int t : extent)
    for (int k = 0; k < 3; ++k) mark(tris[size_t(t)][k]);
  for (int t : trianglesBeyond(surface, dir, patchFloor, grow))
    for (int k = 0; k < 3; ++k) {
      const int i = tris[size_t(t)][k];
      for (int a = bvh.aroundStart()[size_t(i)]; a < bvh.aroundStart()[size_t(i) + 1]; ++a)
        for (int c = 0; c < 3; ++c) mark(tris[size_t(bvh.aroundList()[size_t(a)])][c]);
    }
  surface.body->syncNodes(nodes);
}

// The contact of a node of one side, at x, behind the other side's triangle `tri`
// at barycentric `bary`, with normal and depth.
using MakeContact = std::function<NodeContact(int node, const Vec3& x, const Vec3i& tri,
                                              const std::array<double, 3>& bary, const Vec3& normal, double depth)>;

// The other side's patch seen along `dir`: its triangles projected on the plane
// orthogonal to dir (the contact camera's window) and binned in a grid, to find the
// first of them a ray along dir meets.
class ProjectedPatch {
 public:
  ProjectedPatch(const SkinPatch& theirs, const ContactSurface& other, LazyPositions& po, const Vec3& dir)
      : t1_(dir.unitOrthogonal()), t2_(dir.cross(t1_)) {
    Vec2 lo(1e300, 1e300), hi(-1e300, -1e300);
    double extent = 0;
    for (int id : theirs.triangles) {
      const Vec3i& t = (*other.triangles)[size_t(id)];
      Tri tr;
      tr.v = t;
      for (int k = 0; k < 3; ++k) tr.p[k] = plane(po(t[k]));
      tr.lo = tr.p[0].cwiseMin(tr.p[1]).cwiseMin(tr.p[2]);
      tr.hi = tr.p[0].cwiseMax(tr.p[1]).cwiseMax(tr.p[2]);
      lo = lo.cwiseMin(tr.lo);
      hi = hi.cwiseMax(tr.hi);
      extent += (tr.hi - tr.lo).maxCoeff();
      tris_.push_back(tr);
    }
    lo_ = lo;
    hi_ = hi;
    if (tris_.empty()) return;
    const double cell = std::max(extent / double(tris_.size()), 1e-6);
    gx_ = std::clamp(int((hi.x() - lo.x()) / cell) + 1, 1, 512);
    gy_ = std::clamp(int((hi.y() - lo.y()) / cell) + 1, 1, 512);
    sx_ = gx_ / std::max(hi.x() - lo.x(), 1e-12);
    sy_ = gy_ / std::max(hi.y() - lo.y(), 1e-12);
    grid_.resize(size_t(gx_) * size_t(gy_));
    for (int k = 0; k < int(tris_.size()); ++k) {
      int x0, y0, x1, y1;
      cellOf(tris_[size_t(k)].lo, &x0, &y0);
      cellOf(tris_[size_t(k)].hi, &x1, &y1);
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) grid_[size_t(y) * size_t(gx_) + size_t(x)].push_back(k);
    }
  }
  bool empty() const { return tris_.empty(); }
  Vec2 plane(const Vec3& p) const { return Vec2(t1_.dot(p), t2_.dot(p)); }
  /// The first triangle (its corners) met along dir through the point x: false if none;
  /// else its height along dir and the barycentric coordinates of the hit.
  bool firstHit(const Vec3& x, LazyPositions& po, const Vec3& dir, Vec3i* tri, double* height,
                std::array<double, 3>* at) const {
    const Vec2 p = plane(x);
    if (p.x() < lo_.x() || p.y() < lo_.y() || p.x() > hi_.x() || p.y() > hi_.y()) return false;
    int cx, cy;
    cellOf(p, &cx, &cy);
    double best = 1e300;
    int bestTri = -1;
    for (int k : grid_[size_t(cy) * size_t(gx_) + size_t(cx)]) {
      const Tri& t = tris_[size_t(k)];
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
        *at = bary;
      }
    }
    if (bestTri < 0) return false;
    *tri = tris_[size_t(bestTri)].v;
    *height = best;
    return true;
  }

 private:
  struct Tri {
    Vec3i v;
    Vec2 p[3];
    Vec2 lo, hi;
  };
  void cellOf(const Vec2& p, int* cx, int* cy) const {
    *cx = std::clamp(int((p.x() - lo_.x()) * sx_), 0, gx_ - 1);
    *cy = std::clamp(int((p.y() - lo_.y()) * sy_), 0, gy_ - 1);
  }
  Vec3 t1_, t2_;
  std::vector<Tri> tris_;
  Vec2 lo_, hi_;
  int gx_ = 1, gy_ = 1;
  double sx_ = 0, sy_ = 0;
  std::vector<std::vector<int>> grid_;
};

// Casts the nodes of one side's patch beyond hOther along `dir` (towards the
// other side) against the triangles of the other side's patch (they face it);
// appends the penetrating nodes and those within `margin`.
int castAlong(const SkinPatch& mine, LazyPositions& ps, double hOther, const ContactSurface& other,
              const SkinPatch& theirs, LazyPositions& po, const Vec3& dir, double margin, const MakeContact& make,
              std::vector<NodeContact>* out) {
  const ProjectedPatch window(theirs, other, po, dir);
  if (window.empty()) return 0;
  int found = 0;
  for (size_t j = 0; j < mine.nodes.size(); ++j) {
    const int i = mine.nodes[j];
    const Vec3& x = mine.x[j];
    if (dir.dot(x) <= hOther - margin) continue;  // not in the overlap slab
    // the first surface of `other` met along dir (the one facing self)
    Vec3i tri;
    double best = 0;
    std::array<double, 3> bary{};
    if (!window.firstHit(x, po, dir, &tri, &best, &bary) || dir.dot(x) <= best - margin)
      continue;  // (none, or in front of the other surface)
    const Vec3 a = po(tri[0]), b = po(tri[1]), c = po(tri[2]);
    const Vec3 facet = (b - a).cross(c - a).normalized();  // out of `other`, towards self
    // the overlap along n, as the contact camera's D measures it
    const double depth = dir.dot(x) - best;
    const Vec3 nrm = meanNormal(
        other.body != nullptr, i, [&](int j) { return ps.normal(j); }, tri, bary,
        [&](int j) { return po.normal(j); }, facet);
    out->push_back(make(i, x, tri, bary, nrm, depth));
    found += depth > 0;
  }
  return found;
}

}  // namespace

ContactSurface::ContactSurface(LayeredBody& b)
    : body(&b),
      rest(&b.model().restSkin),
      triangles(&b.model().atlas.triangles),
      bvh(&b.model().skinBvh),
      position(b.core().position),
      rotation(b.core().orientation.toRotationMatrix()) {}

ContactSurface::ContactSurface(const Collider& c, const ColliderPiece& piece, const std::vector<Vec3i>* tris)
    : body(nullptr),
      rest(&piece.mesh.positions),
      triangles(tris),
      bvh(&piece.bvh),
      position(c.position()),
      rotation(c.orientation().toRotationMatrix()) {}

namespace {

// The piece's triangles wound to face a body along -n (from the collider to it), n world.
std::vector<Vec3i> facingAlong(const Collider& c, const ColliderPiece& piece, const Vec3& n) {
  const Vec3 nl = c.orientation().conjugate() * n;
  std::vector<Vec3i> out = piece.mesh.triangles;
  const std::vector<Vec3>& x = piece.mesh.positions;
  for (Vec3i& t : out)
    if ((x[size_t(t[1])] - x[size_t(t[0])]).cross(x[size_t(t[2])] - x[size_t(t[0])]).dot(nl) > 0)
      std::swap(t[1], t[2]);
  return out;
}

}  // namespace

ColliderSide::ColliderSide(const Collider& c, int piece, const Vec3& n)
    : facing_(c.pieces()[size_t(piece)].doubleSided ? facingAlong(c, c.pieces()[size_t(piece)], n)
                                                    : std::vector<Vec3i>{}),
      surface_(c, c.pieces()[size_t(piece)],
               c.pieces()[size_t(piece)].doubleSided ? &facing_ : &c.pieces()[size_t(piece)].mesh.triangles) {}

Vec3 pairNormal(const ContactSurface& self, int node, const ContactSurface& other, const Vec3i& tri,
                const std::array<double, 3>& bary, const Vec3& fallback) {
  return meanNormal(
      other.body != nullptr, node, [&](int i) { return areaNormal(self, i, [&](int j) { return self.node(j); }); },
      tri, bary, [&](int i) { return areaNormal(other, i, [&](int j) { return other.node(j); }); }, fallback);
}

bool findPairPatches(const ContactSurface& a, const ContactSurface& b, const ProxyContact& pair,
                     PairPatches* out) {
  const Vec3& n = pair.normal;
  const ExtentBounds boundA = extentBounds(a, n, pair.growA), boundB = extentBounds(b, -n, pair.growB);
  if (boundA.ceiling + pair.margin <= -boundB.ceiling) return false;  // apart along n, whatever the skins do
  // A's patch lies beyond hB - margin >= -ceiling(B) - margin, and B's likewise
  const std::vector<int> extentA = trianglesBeyond(a, n, boundA.floor, pair.growA),
                         extentB = trianglesBeyond(b, -n, boundB.floor, pair.growB);
  prefetchSide(a, n, pair.growA, extentA, -boundB.ceiling - pair.margin);
  prefetchSide(b, -n, pair.growB, extentB, -boundA.ceiling - pair.margin);
  out->hA = extentAlong(a, n, boundA.floor, extentA);
  out->hB = -extentAlong(b, -n, boundB.floor, extentB);
  if (out->hA + pair.margin <= out->hB) return false;  // the surfaces are apart along n
  LazyPositions pa(a), pb(b);
  out->a = patchOf(a, n, 1, out->hB - pair.margin, pair.growA, pa);
  out->b = patchOf(b, n, -1, -out->hA - pair.margin, pair.growB, pb);
  return !out->a.triangles.empty() && !out->b.triangles.empty();
}

int findSkinContacts(LayeredBody& a, LayeredBody& b, const ProxyContact& pair,
                     std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) {
  const ContactSurface sa(a), sb(b);
  PairPatches patches;
  if (!findPairPatches(sa, sb, pair, &patches)) return 0;
  LazyPositions pa(sa, patches.a), pb(sb, patches.b);
  const RigidMotion ra = rigidMotion(a), rb = rigidMotion(b);
  const MakeContact onA = [&](int i, const Vec3& x, const Vec3i& tri, const std::array<double, 3>& bary,
                              const Vec3& n, double d) { return makePairContact(a, ra, i, x, b, rb, tri, bary, n, d); };
  const MakeContact onB = [&](int i, const Vec3& x, const Vec3i& tri, const std::array<double, 3>& bary,
                              const Vec3& n, double d) { return makePairContact(b, rb, i, x, a, ra, tri, bary, n, d); };
  std::vector<NodeContact> ca, cb;
  const int found = castAlong(patches.a, pa, patches.hB, sb, patches.b, pb, pair.normal, pair.margin, onA, &ca) +
                    castAlong(patches.b, pb, -patches.hA, sa, patches.a, pa, -pair.normal, pair.margin, onB, &cb);
  if (ca.empty() && cb.empty()) return 0;
  unifyPairNormal(ca, cb, pair.normal);
  outA->insert(outA->end(), ca.begin(), ca.end());
  outB->insert(outB->end(), cb.begin(), cb.end());
  return found;
}

NodeContact makeColliderContact(LayeredBody& self, int node, const Vec3& x, const Collider& c,
                                const Vec3& normal, double depth) {
  const Material& mat = self.desc().material;
  NodeContact k;
  k.node = node;
  k.normal = normal;
  k.depth = depth;
  k.surfaceVelocity = c.velocityAt(x);
  k.friction = std::sqrt(mat.friction * c.desc().friction);
  k.restitution = mat.restitution;
  k.stiffnessShare = 1.0;
  return k;
}

int findColliderContacts(LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                         std::vector<NodeContact>* outA) {
  const ColliderSide side(b, piece, pair.normal);
  const ContactSurface sa(a);
  const ContactSurface& sb = side.surface();
  PairPatches patches;
  if (!findPairPatches(sa, sb, pair, &patches)) return 0;
  LazyPositions pa(sa, patches.a), pb(sb, patches.b);
  const MakeContact make = [&](int i, const Vec3& x, const Vec3i&, const std::array<double, 3>&, const Vec3& n,
                               double d) { return makeColliderContact(a, i, x, b, n, d); };
  std::vector<NodeContact> ca, none;
  const int found = castAlong(patches.a, pa, patches.hB, sb, patches.b, pb, pair.normal, pair.margin, make, &ca);
  unifyPairNormal(ca, none, pair.normal);
  outA->insert(outA->end(), ca.begin(), ca.end());
  return found;
}

void findCoreColliderPoints(const LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                            double margin, std::vector<CorePointContact>* out) {
  const BakedBody& m = a.model();
  const CoreState& s = a.core();
  const Mat3 R = s.orientation.toRotationMatrix();
  const double keep = a.desc().material.minLayer;
  const Vec3& n = pair.normal;  // (from A to B)
  // the farthest a crushed layer can reach along n (a bound: it only picks triangles)
  const auto [radius, thickest] = a.coreExtent();
  const double reach = n.dot(s.position) + radius + keep * thickest;
  // the piece's triangles facing A that reach below it along n
  const ColliderSide side(b, piece, n);
  const ContactSurface& sb = side.surface();
  LazyPositions pb(sb, SkinPatch{});
  const SkinPatch theirs = patchOf(sb, n, -1, -(reach + margin), 0, pb);
  if (theirs.triangles.empty()) return;
  double lowest = 1e300;  // (their nearest point along n)
  for (const Vec3& x : theirs.x) lowest = std::min(lowest, n.dot(x));
  const ProjectedPatch window(theirs, sb, pb, n);
  for (int i = 0; i < m.nodeCount(); ++i) {
    const Vec3 x = s.position + R * m.core[size_t(i)];
    const double top = n.dot(x) + keep * m.layer[size_t(i)];
    if (top <= lowest - margin) continue;
    Vec3i tri;
    double height = 0;
    std::array<double, 3> bary{};
    if (!window.firstHit(x, pb, n, &tri, &height, &bary)) continue;
    const double depth = top - height;
    if (depth > -margin) out->push_back({i, -n, depth, b.velocityAt(x)});
  }
}

}  // namespace d2t
