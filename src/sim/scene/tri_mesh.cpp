#include "sim/scene/tri_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace d2t {

namespace {

// key of the directed edge a -> b
uint64_t edgeKey(int a, int b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

// Eberly, "Polyhedral Mass Properties (Revisited)", 2002: for the three
// values w0, w1, w2 of one coordinate at the corners of a triangle,
//   f1 = w0 + w1 + w2,  f2 = sum_{i<=j} wi wj,  f3 = sum_{i<=j<=k} wi wj wk,
//   gi = f2 + wi (f1 + wi).
struct Subexpressions {
  double f1, f2, f3, g0, g1, g2;
  Subexpressions(double w0, double w1, double w2) {
    const double t0 = w0 + w1;
    const double t1 = w0 * w0;
    const double t2 = t1 + w1 * t0;
    f1 = t0 + w2;
    f2 = t2 + w2 * f1;
    f3 = w0 * t1 + w1 * t2 + w2 * f2;
    g0 = f2 + w0 * (f1 + w0);
    g1 = f2 + w1 * (f1 + w1);
    g2 = f2 + w2 * (f1 + w2);
  }
};

}  // namespace

void TriMesh::append(const TriMesh& other) {
  const int offset = static_cast<int>(positions.size());
  positions.insert(positions.end(), other.positions.begin(), other.positions.end());
  triangles.reserve(triangles.size() + other.triangles.size());
  for (const Vec3i& t : other.triangles) triangles.push_back(t + Vec3i::Constant(offset));
}

void TriMesh::transform(const Mat3& A, const Vec3& t) {
  for (Vec3& p : positions) p = A * p + t;
}

Aabb TriMesh::bounds() const {
  Aabb box;
  for (const Vec3& p : positions) box.grow(p);
  return box;
}

double TriMesh::volume() const {
  // divergence theorem: V = 1/6 sum a . (b x c) over the triangles (a, b, c)
  double v6 = 0;
  for (const Vec3i& t : triangles)
    v6 += positions[t[0]].dot(positions[t[1]].cross(positions[t[2]]));
  return v6 / 6.0;
}

MassProperties TriMesh::massProperties(double density) const {
  MassProperties mp;
  if (triangles.empty()) return mp;
  // integrate about a reference point inside the bounds, for accuracy far from the origin
  const Vec3 ref = bounds().center();

  // the ten integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over the solid,
  // each a sum over triangles of d_k * (polynomial in the corner coordinates)
  double intg[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (const Vec3i& t : triangles) {
    const Vec3 p0 = positions[t[0]] - ref, p1 = positions[t[1]] - ref, p2 = positions[t[2]] - ref;
    // d = (p1 - p0) x (p2 - p0): twice the area-weighted normal
    const Vec3 d = (p1 - p0).cross(p2 - p0);
    const Subexpressions x(p0.x(), p1.x(), p2.x());
    const Subexpressions y(p0.y(), p1.y(), p2.y());
    const Subexpressions z(p0.z(), p1.z(), p2.z());
    intg[0] += d.x() * x.f1;
    intg[1] += d.x() * x.f2;
    intg[2] += d.y() * y.f2;
    intg[3] += d.z() * z.f2;
    intg[4] += d.x() * x.f3;
    intg[5] += d.y() * y.f3;
    intg[6] += d.z() * z.f3;
    intg[7] += d.x() * (p0.y() * x.g0 + p1.y() * x.g1 + p2.y() * x.g2);
    intg[8] += d.y() * (p0.z() * y.g0 + p1.z() * y.g1 + p2.z() * y.g2);
    intg[9] += d.z() * (p0.x() * z.g0 + p1.x() * z.g1 + p2.x() * z.g2);
  }
  const double mult[10] = {1.0 / 6,  1.0 / 24, 1.0 / 24, 1.0 / 24,  1.0 / 60,
                           1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
  for (int i = 0; i < 10; ++i) intg[i] *= mult[i];

  mp.volume = intg[0];
  mp.mass = density * mp.volume;
  if (std::abs(mp.volume) <= 0) {
    mp.com = ref;
    return mp;
  }
  // centre of mass (relative to ref), then second moments about it
  const Vec3 c(intg[1] / intg[0], intg[2] / intg[0], intg[3] / intg[0]);
  const double V = intg[0];
  Mat3 I;
  I(0, 0) = intg[5] + intg[6] - V * (c.y() * c.y() + c.z() * c.z());
  I(1, 1) = intg[4] + intg[6] - V * (c.z() * c.z() + c.x() * c.x());
  I(2, 2) = intg[4] + intg[5] - V * (c.x() * c.x() + c.y() * c.y());
  I(0, 1) = I(1, 0) = -(intg[7] - V * c.x() * c.y());
  I(1, 2) = I(2, 1) = -(intg[8] - V * c.y() * c.z());
  I(0, 2) = I(2, 0) = -(intg[9] - V * c.z() * c.x());
  mp.com = c + ref;
  mp.inertia = density * I;
  return mp;
}

bool TriMesh::isClosed() const {
  if (triangles.empty()) return false;
  // every directed edge exactly once, and its reverse exactly once
  std::unordered_map<uint64_t, int> count;
  count.reserve(3 * triangles.size());
  for (const Vec3i& t : triangles)
    for (int k = 0; k < 3; ++k) ++count[edgeKey(t[k], t[(k + 1) % 3])];
  for (const auto& [key, n] : count) {
    if (n != 1) return false;
    const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
    auto rev = count.find(edgeKey(b, a));
    if (rev == count.end() || rev->second != 1) return false;
  }
  return true;
}

std::vector<Vec3> vertexNormals(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles) {
  std::vector<Vec3> n(positions.size(), Vec3::Zero());
  for (const Vec3i& t : triangles) {
    // the cross product is twice the area times the unit normal: area weighting for free
    const Vec3 a = (positions[t[1]] - positions[t[0]]).cross(positions[t[2]] - positions[t[0]]);
    for (int k = 0; k < 3; ++k) n[t[k]] += a;
  }
  for (Vec3& v : n) {
    const double len = v.norm();
    if (len > 0) v /= len;  // unused or fully degenerate vertices keep a zero normal
  }
  return n;
}

std::vector<Vec3> TriMesh::vertexNormals() const { return d2t::vertexNormals(positions, triangles); }

int TriMesh::weld(double tol) {
  const int nv = static_cast<int>(positions.size());
  if (nv == 0) return 0;
  // hash vertices into cells of side tol (or by exact position when tol <= 0);
  // a vertex merges into the first earlier representative within tol
  const double cell = tol > 0 ? tol : 1.0;
  struct CellHash {
    size_t operator()(const Eigen::Matrix<int64_t, 3, 1>& c) const {
      // unsigned: the products wrap instead of overflowing (cells can be ~1e18)
      return static_cast<size_t>(static_cast<uint64_t>(c.x()) * 73856093u) ^
             static_cast<size_t>(static_cast<uint64_t>(c.y()) * 19349663u) ^
             static_cast<size_t>(static_cast<uint64_t>(c.z()) * 83492791u);
    }
  };
  using Cell = Eigen::Matrix<int64_t, 3, 1>;
  std::unordered_map<Cell, std::vector<int>, CellHash> grid;
  std::vector<int> remap(nv, -1);
  std::vector<Vec3> kept;
  kept.reserve(nv);
  for (int i = 0; i < nv; ++i) {
    const Vec3& p = positions[i];
    // clamped so that a tolerance tiny next to the coordinates cannot overflow the
    // integer cell (neighbours within tol stay within one cell of each other)
    auto cellOf = [&](double x) {
      return static_cast<int64_t>(std::clamp(std::floor(x / cell), -4e18, 4e18));
    };
    const Cell c(cellOf(p.x()), cellOf(p.y()), cellOf(p.z()));
    int found = -1;
    for (int dx = -1; dx <= 1 && found < 0; ++dx)
      for (int dy = -1; dy <= 1 && found < 0; ++dy)
        for (int dz = -1; dz <= 1 && found < 0; ++dz) {
          auto it = grid.find(c + Cell(dx, dy, dz));
          if (it == grid.end()) continue;
          for (int j : it->second) {
            const double d = (kept[j] - p).norm();
            if (tol > 0 ? d <= tol : d == 0) { found = j; break; }
          }
        }
    if (found < 0) {
      found = static_cast<int>(kept.size());
      kept.push_back(p);
      grid[c].push_back(found);
    }
    remap[i] = found;
  }
  // re-index; triangles that collapse (two equal corners) are removed
  std::vector<Vec3i> tris;
  tris.reserve(triangles.size());
  for (const Vec3i& t : triangles) {
    const Vec3i r(remap[t[0]], remap[t[1]], remap[t[2]]);
    if (r[0] != r[1] && r[1] != r[2] && r[2] != r[0]) tris.push_back(r);
  }
  const int removed = nv - static_cast<int>(kept.size());
  positions = std::move(kept);
  triangles = std::move(tris);
  return removed;
}

}  // namespace d2t
