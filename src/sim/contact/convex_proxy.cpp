#include "sim/contact/convex_proxy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include <ccd/ccd.h>

namespace d2t {

// ---- proxies -------------------------------------------------------------------------------------

// Farthest-point sampling: the samples cover the points evenly, and the covering
// radius (the largest distance of any point to its nearest sample) is the margin
// that makes hull(samples) + margin, a convex set, contain every point, hence
// their hull.
ConvexProxy makeProxy(const std::vector<Vec3>& points, int maxPoints) {
  const int n = int(points.size());
  ConvexProxy p;
  if (n == 0) return p;
  std::vector<double> dist(n, 1e300);
  int next = 0;
  for (int i = 1; i < n; ++i)
    if (points[i].squaredNorm() > points[next].squaredNorm()) next = i;
  double cover = 0;
  for (int k = 0; k < std::min(maxPoints, n); ++k) {
    p.points.push_back(points[next]);
    int far = next;
    cover = 0;
    for (int i = 0; i < n; ++i) {
      dist[i] = std::min(dist[i], (points[i] - points[next]).norm());
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

Vertex supportOf(const std::vector<Vec3>& a, const std::vector<Vec3>& b, const Vec3& d) {
  const Vec3 &pa = a[size_t(supportIndex(a, d))], &pb = b[size_t(supportIndex(b, -d))];
  return {pa - pb, pa, pb};
}

// GJK ended with the origin on or in its simplex: grows it to a tetrahedron of
// A - B (supports along directions off its span). False when A - B is flat.
bool tetrahedronAround(const std::vector<Vec3>& a, const std::vector<Vec3>& b, std::vector<Vertex>& s) {
  const Vec3 axes[3] = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
  auto addOff = [&](const std::vector<Vec3>& dirs, const std::function<double(const Vec3&)>& off) {
    for (const Vec3& d : dirs)
      for (double sign : {1.0, -1.0}) {
        const Vertex w = supportOf(a, b, sign * d);
        if (off(w.w) > 1e-10) {
          s.push_back(w);
          return true;
        }
      }
    return false;
  };
  if (s.size() == 1 && !addOff({axes[0], axes[1], axes[2]}, [&](const Vec3& w) { return (w - s[0].w).norm(); }))
    return false;
  if (s.size() == 2) {
    const Vec3 e = (s[1].w - s[0].w).normalized();
    const Vec3 u = e.unitOrthogonal(), v = e.cross(u);
    if (!addOff({u, v, (u + v).normalized(), (u - v).normalized()},
                [&](const Vec3& w) { return (w - s[0].w - e * e.dot(w - s[0].w)).norm(); }))
      return false;
  }
  if (s.size() == 3) {
    const Vec3 n = (s[1].w - s[0].w).cross(s[2].w - s[0].w).normalized();
    if (!addOff({n}, [&](const Vec3& w) { return std::abs(n.dot(w - s[0].w)); })) return false;
  }
  return s.size() == 4;
}

// EPA (van den Bergen 2001): the polytope s of A - B, which contains the origin,
// is expanded towards the boundary of A - B until its face nearest the origin is
// on that boundary; that face's distance is the depth, its outward normal n the
// direction from A to B (A - B reaches the origin's side furthest along n).
bool expandPolytope(const std::vector<Vec3>& a, const std::vector<Vec3>& b, std::vector<Vertex> s, HullDistance* r) {
  struct Face {
    int v[3];
    Vec3 n;
    double d;
    bool alive;
  };
  std::vector<Face> faces;
  const Vec3 inside = (s[0].w + s[1].w + s[2].w + s[3].w) / 4;
  auto addFace = [&](int i, int j, int k) {
    Vec3 n = (s[size_t(j)].w - s[size_t(i)].w).cross(s[size_t(k)].w - s[size_t(i)].w);
    if (n.norm() < 1e-300) return false;
    n.normalize();
    faces.push_back({{i, j, k}, n, n.dot(s[size_t(i)].w), true});
    return true;
  };
  // the tetrahedron, its faces turned away from its centroid
  for (const auto& f : {std::array<int, 3>{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}}) {
    int i = f[0], j = f[1], k = f[2];
    const Vec3 n = (s[size_t(j)].w - s[size_t(i)].w).cross(s[size_t(k)].w - s[size_t(i)].w);
    if (n.dot(s[size_t(i)].w - inside) < 0) std::swap(j, k);
    if (!addFace(i, j, k)) return false;
  }
  for (int it = 0; it < 128; ++it) {
    ++r->iterations;
    int best = -1;
    for (int f = 0; f < int(faces.size()); ++f)
      if (faces[size_t(f)].alive && (best < 0 || faces[size_t(f)].d < faces[size_t(best)].d)) best = f;
    if (best < 0) return false;
    const Face face = faces[size_t(best)];
    const Vertex w = supportOf(a, b, face.n);
    bool known = false;
    for (const Vertex& x : s) known = known || (x.w - w.w).squaredNorm() == 0;
    if (known || w.w.dot(face.n) - face.d <= 1e-9 * (1 + std::abs(face.d))) {
      // the origin's projection on the face, in barycentric weights
      const Vec3 &p0 = s[size_t(face.v[0])].w, &p1 = s[size_t(face.v[1])].w, &p2 = s[size_t(face.v[2])].w;
      const Vec3 p = face.d * face.n;
      const Vec3 e0 = p1 - p0, e1 = p2 - p0, e2 = p - p0;
      const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1), d20 = e2.dot(e0), d21 = e2.dot(e1);
      const double den = d00 * d11 - d01 * d01;
      const double v = den > 0 ? (d11 * d20 - d01 * d21) / den : 1.0 / 3;
      const double u = den > 0 ? (d00 * d21 - d01 * d20) / den : 1.0 / 3;
      const double wts[3] = {1 - v - u, v, u};
      r->onA.setZero();
      r->onB.setZero();
      for (int k = 0; k < 3; ++k) {
        r->onA += wts[k] * s[size_t(face.v[k])].a;
        r->onB += wts[k] * s[size_t(face.v[k])].b;
      }
      r->depth = std::max(face.d, 0.0);
      r->normal = face.n;
      return true;
    }
    // remove the faces that see w; their horizon, joined to w, closes the polytope
    const int iw = int(s.size());
    s.push_back(w);
    std::vector<std::pair<int, int>> edges;
    for (Face& f : faces) {
      if (!f.alive || f.n.dot(w.w - s[size_t(f.v[0])].w) <= 0) continue;
      f.alive = false;
      for (int k = 0; k < 3; ++k) {
        const std::pair<int, int> e(f.v[k], f.v[(k + 1) % 3]);
        const auto rev = std::find(edges.begin(), edges.end(), std::make_pair(e.second, e.first));
        if (rev != edges.end())
          edges.erase(rev);  // shared by two removed faces: not on the horizon
        else
          edges.push_back(e);
      }
    }
    for (const auto& [i, j] : edges)
      if (!addFace(i, j, iw)) return false;
  }
  return false;
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
    const Vertex w = supportOf(a, b, -v);
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
  if (!r.overlap) {
    r.distance = v.norm();
    if (r.distance > 1e-12) r.normal = (r.onB - r.onA) / r.distance;
    return r;
  }
  r.distance = 0;
  r.onB = r.onA;
  if (!tetrahedronAround(a, b, s) || !expandPolytope(a, b, s, &r)) {
    r.onB = r.onA;
    r.normal.setZero();  // undetermined
  }
  return r;
}

}  // namespace d2t

// ---- the pruning test (libccd) -------------------------------------------------------------------

namespace d2t {

namespace {

struct GrownHull {
  const std::vector<Vec3>* points;
  double radius;  // the sphere the hull is grown by [m]
};

// the farthest point of hull + sphere along dir: the hull's support plus radius * dir / |dir|
void grownSupport(const void* object, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const GrownHull& h = *static_cast<const GrownHull*>(object);
  const Vec3 d(dir->v[0], dir->v[1], dir->v[2]);
  const Vec3 s = (*h.points)[size_t(supportIndex(*h.points, d))] + h.radius * d.normalized();
  ccdVec3Set(out, s.x(), s.y(), s.z());
}

}  // namespace

bool hullsWithin(const std::vector<Vec3>& a, const std::vector<Vec3>& b, double gap) {
  if (a.empty() || b.empty()) return false;
  const GrownHull ga{&a, 0.5 * gap}, gb{&b, 0.5 * gap};
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = grownSupport;
  ccd.support2 = grownSupport;
  return ccdGJKIntersect(&ga, &gb, &ccd) != 0;
}

}  // namespace d2t
