// Surface nets (surface_nets.h).
#include "sim/scene/surface_nets.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace d2t {

Vec3 ImplicitShape::normal(const Vec3& x, double h) const {
  Vec3 g;
  for (int a = 0; a < 3; ++a) {
    Vec3 e = Vec3::Zero();
    e[a] = h;
    g[a] = distance(x + e) - distance(x - e);
  }
  const double len = g.norm();
  return len > 0 ? Vec3(g / len) : Vec3::UnitY();
}

bool closedManifold(const TriMesh& m) {
  std::vector<std::pair<int, int>> edges;  // (each directed edge once: a closed, consistently oriented 2-manifold)
  for (const Vec3i& t : m.triangles)
    for (int a = 0; a < 3; ++a) edges.push_back({t[a], t[(a + 1) % 3]});
  std::sort(edges.begin(), edges.end());
  for (size_t e = 0; e < edges.size(); ++e) {
    if (e + 1 < edges.size() && edges[e] == edges[e + 1]) return false;
    if (!std::binary_search(edges.begin(), edges.end(), std::make_pair(edges[e].second, edges[e].first))) return false;
  }
  std::vector<int> used(m.positions.size(), 0);
  for (const Vec3i& t : m.triangles)
    for (int a = 0; a < 3; ++a) used[size_t(t[a])] = 1;
  return std::all_of(used.begin(), used.end(), [](int u) { return u == 1; });
}

TriMesh surfaceNets(const ImplicitShape& shape, double h, const Vec3& shift) {
  const Vec3 lo = shape.lo - Vec3::Constant(1.5 * h) + h * shift;
  Eigen::Vector3i size;  // grid points per axis
  for (int a = 0; a < 3; ++a) size[a] = int(std::ceil((shape.hi[a] - shape.lo[a]) / h)) + 4;
  const auto point = [&](int i, int j, int k) { return Vec3(lo + h * Vec3(i, j, k)); };
  const auto index = [&](const Eigen::Vector3i& p) { return (size_t(p[2]) * size_t(size[1]) + size_t(p[1])) * size_t(size[0]) + size_t(p[0]); };
  std::vector<double> value(size_t(size[0]) * size_t(size[1]) * size_t(size[2]));
#pragma omp parallel for schedule(dynamic)
  for (int k = 0; k < size[2]; ++k)
    for (int j = 0; j < size[1]; ++j)
      for (int i = 0; i < size[0]; ++i) value[index({i, j, k})] = shape.distance(point(i, j, k));

  // a node in every crossed cell (cell (i, j, k) spans points i..i+1, ...)
  TriMesh m;
  std::unordered_map<size_t, int> node;  // cell index -> node
  for (int k = 0; k + 1 < size[2]; ++k)
    for (int j = 0; j + 1 < size[1]; ++j)
      for (int i = 0; i + 1 < size[0]; ++i) {
        Vec3 sum = Vec3::Zero();
        int crossings = 0;
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 4; ++c) {  // the cell's 4 edges along axis a
            Eigen::Vector3i p(i, j, k);
            p[(a + 1) % 3] += c & 1;
            p[(a + 2) % 3] += c >> 1;
            Eigen::Vector3i q = p;
            q[a] += 1;
            const double f0 = value[index(p)], f1 = value[index(q)];
            if ((f0 < 0) == (f1 < 0)) continue;
            const double t = f0 / (f0 - f1);
            sum += point(p[0], p[1], p[2]) + t * h * Vec3::Unit(a);
            ++crossings;
          }
        if (crossings == 0) continue;
        node[index({i, j, k})] = int(m.positions.size());
        m.positions.push_back(sum / crossings);
      }
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t p = 0; p < m.positions.size(); ++p) {
    Vec3& x = m.positions[p];
    for (int it = 0; it < 4; ++it) {  // Newton steps onto the surface, at most h each
      const double f = shape.distance(x);
      const Vec3 n = shape.normal(x, 0.05 * h);
      x -= std::clamp(f, -h, h) * n;
    }
  }
  // two triangles for every crossed grid edge: its four cells' nodes
  for (int k = 1; k + 1 < size[2]; ++k)
    for (int j = 1; j + 1 < size[1]; ++j)
      for (int i = 1; i + 1 < size[0]; ++i)
        for (int a = 0; a < 3; ++a) {
          const Eigen::Vector3i p(i, j, k);
          Eigen::Vector3i q = p;
          q[a] += 1;
          const double f0 = value[index(p)], f1 = value[index(q)];
          if ((f0 < 0) == (f1 < 0)) continue;
          const int u = (a + 1) % 3, v = (a + 2) % 3;
          std::array<int, 4> quad;
          const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
          for (int c = 0; c < 4; ++c) {
            Eigen::Vector3i cell = p;
            cell[u] -= 1 - du[c];
            cell[v] -= 1 - dv[c];
            quad[size_t(c)] = node.at(index(cell));
          }
          if (!(f0 < 0)) std::swap(quad[1], quad[3]);  // inside above: the outward normal is -a
          const auto& x = m.positions;
          if ((x[size_t(quad[0])] - x[size_t(quad[2])]).squaredNorm() <= (x[size_t(quad[1])] - x[size_t(quad[3])]).squaredNorm()) {
            m.triangles.push_back(Vec3i(quad[0], quad[1], quad[2]));
            m.triangles.push_back(Vec3i(quad[0], quad[2], quad[3]));
          } else {
            m.triangles.push_back(Vec3i(quad[0], quad[1], quad[3]));
            m.triangles.push_back(Vec3i(quad[1], quad[2], quad[3]));
          }
        }
  // tangential smoothing (towards the neighbours' mean within the tangent plane), each round
  // followed by a projection onto the surface: the raw nets' slivers become well shaped
  std::vector<std::vector<int>> ring(m.positions.size());
  for (const Vec3i& t : m.triangles)
    for (int a = 0; a < 3; ++a) {
      ring[size_t(t[a])].push_back(t[(a + 1) % 3]);
      ring[size_t(t[a])].push_back(t[(a + 2) % 3]);
    }
  for (int round = 0; round < 5; ++round) {
    std::vector<Vec3> next = m.positions;
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t i = 0; i < next.size(); ++i) {
      if (ring[i].empty()) continue;
      Vec3 mean = Vec3::Zero();
      for (int j : ring[i]) mean += m.positions[size_t(j)];
      mean /= double(ring[i].size());
      const Vec3 nrm = shape.normal(m.positions[i], 0.05 * h);
      Vec3 d = mean - m.positions[i];
      d -= nrm * nrm.dot(d);
      Vec3 x = m.positions[i] + 0.5 * d;
      for (int it = 0; it < 2; ++it) x -= std::clamp(shape.distance(x), -h, h) * shape.normal(x, 0.05 * h);
      next[i] = x;
    }
    m.positions.swap(next);
  }
  return m;
}

TriMesh surfaceNetsWithNodes(const ImplicitShape& shape, int nodes) {
  const Vec3 extent = shape.hi - shape.lo;
  double h = std::sqrt(2 * (extent.x() * extent.y() + extent.y() * extent.z() + extent.z() * extent.x()) / nodes);
  // (a face whose four edges the surface crosses joins two sheets at one edge: such grids are
  // shifted by a fraction of a cell until every edge has two triangles)
  TriMesh best;
  bool bestClosed = false;
  for (int it = 0; it < 16; ++it) {
    const Vec3 shift = Vec3(0.37, 0.61, 0.23) * double(it % 4) / 4;
    TriMesh m = surfaceNets(shape, h, shift);
    const int n = int(m.positions.size());
    const bool closed = closedManifold(m);
    if (best.positions.empty() || (closed && !bestClosed) ||
        (closed == bestClosed && std::abs(n - nodes) < std::abs(int(best.positions.size()) - nodes))) {
      best = std::move(m);
      bestClosed = closed;
    }
    if (n == 0) break;
    if (it % 4 == 3 || closed) h *= std::sqrt(double(n) / nodes);
    if (bestClosed && std::abs(int(best.positions.size()) - nodes) <= nodes / 100) break;
  }
  return best;
}

}  // namespace d2t
