// Surface nets (surface_nets.h).
#include "sim/scene/surface_nets.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/base/union_find.h"

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

TriMesh surfaceNets(const ImplicitShape& shape, double h, const Vec3& shift, bool place) {
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

  // a node for every sheet through a crossed cell (cell (i, j, k) spans points i..i+1, ...):
  // the cell's crossed edges (axis a, c: edge a * 4 + c, at +1 along (a + 1) % 3 if c & 1 and
  // along (a + 2) % 3 if c & 2) joined where the surface joins them on a face
  // (where the surface is about a cell thick, a face's two sheets can meet again in both cells
  // beside it: their two nodes would share two quads' edges, four triangles an edge; that face
  // pairs its crossings the other way and the nets are made again, up to three more times)
  TriMesh m;
  std::unordered_map<size_t, std::array<int, 12>> node;  // cell index -> each edge's node (-1: none)
  std::vector<size_t> cellOf;                             // node -> its cell
  std::vector<std::array<int, 4>> quads;
  std::unordered_set<size_t> flipped;  // faces (lower cell's index x 3 + axis) paired the other way
  const auto key = [](int a, int b) { return (std::uint64_t(std::min(a, b)) << 32) | std::uint64_t(std::max(a, b)); };
  for (int round = 0;; ++round) {
    m = TriMesh();
    node.clear();
    cellOf.clear();
    quads.clear();
    const auto edgePoint = [&](const Eigen::Vector3i& cell, int e) {  // the edge's lower end
      Eigen::Vector3i p = cell;
      p[(e / 4 + 1) % 3] += e % 4 & 1;
      p[(e / 4 + 2) % 3] += e % 4 >> 1;
      return p;
    };
    for (int k = 0; k + 1 < size[2]; ++k)
      for (int j = 0; j + 1 < size[1]; ++j)
        for (int i = 0; i + 1 < size[0]; ++i) {
          const Eigen::Vector3i cell(i, j, k);
          std::array<double, 12> t;  // where along each edge the surface crosses (-1: not)
          bool any = false;
          for (int e = 0; e < 12; ++e) {
            const Eigen::Vector3i p = edgePoint(cell, e);
            Eigen::Vector3i q = p;
            q[e / 4] += 1;
            const double f0 = value[index(p)], f1 = value[index(q)];
            t[size_t(e)] = (f0 < 0) == (f1 < 0) ? -1 : f0 / (f0 - f1);
            any = any || t[size_t(e)] >= 0;
          }
          if (!any) continue;
          // on each face the crossed edges pair up; where all four are crossed, the face's mean
          // value says whether its inside corners meet (the cell on the face's other side sees
          // the same four values: both pair them alike, and every node's fan is a disc)
          std::array<int, 12> root;
          for (int e = 0; e < 12; ++e) root[size_t(e)] = e;
          const auto find = [&](int e) { return findRoot(root, e); };
          const auto join = [&](int a, int b) { joinSets(root, a, b); };
          for (int n = 0; n < 3; ++n)
            for (int side = 0; side < 2; ++side) {
              // the face's edges in order round it: along u at v = 0, along v at u = 1, along u at
              // v = 1, along v at u = 0 (u = (n + 1) % 3, v = (n + 2) % 3; an edge along u has v
              // and n as its first and second other axes, one along v has n and u)
              const int u = (n + 1) % 3, v = (n + 2) % 3;
              const std::array<int, 4> ring{u * 4 + (side << 1), v * 4 + (side | 2), u * 4 + (1 | side << 1), v * 4 + side};
              std::array<int, 4> crossed;
              int count = 0;
              for (int r = 0; r < 4; ++r)
                if (t[size_t(ring[size_t(r)])] >= 0) crossed[size_t(count++)] = r;
              if (count == 2) {
                join(ring[size_t(crossed[0])], ring[size_t(crossed[1])]);
              } else if (count == 4) {
                // corners: (0,0) between ring 3 and 0, (1,0) between 0 and 1, (1,1) 1 and 2, (0,1) 2 and 3
                Eigen::Vector3i c00 = cell;
                c00[n] += side;
                const auto corner = [&](int du, int dv) {
                  Eigen::Vector3i c = c00;
                  c[u] += du;
                  c[v] += dv;
                  return value[index(c)];
                };
                const bool c00In = corner(0, 0) < 0;
                Eigen::Vector3i lower = cell;
                lower[n] -= 1 - side;
                const bool meet = (0.25 * (corner(0, 0) + corner(1, 0) + corner(1, 1) + corner(0, 1)) < 0) !=
                                  (flipped.count(index(lower) * 3 + size_t(n)) > 0);
                // the segments cut off the corners that do not meet: (0,0) and (1,1) when they are
                // the ones apart, else (1,0) and (0,1)
                if (c00In != meet) {
                  join(ring[3], ring[0]);
                  join(ring[1], ring[2]);
                } else {
                  join(ring[0], ring[1]);
                  join(ring[2], ring[3]);
                }
              }
            }
          std::array<int, 12> at;
          at.fill(-1);
          std::array<Vec3, 12> sum;
          sum.fill(Vec3::Zero());
          std::array<int, 12> crossings{};
          for (int e = 0; e < 12; ++e) {
            if (t[size_t(e)] < 0) continue;
            const Eigen::Vector3i p = edgePoint(cell, e);
            sum[size_t(find(e))] += point(p[0], p[1], p[2]) + t[size_t(e)] * h * Vec3::Unit(e / 4);
            ++crossings[size_t(find(e))];
          }
          for (int e = 0; e < 12; ++e) {
            if (t[size_t(e)] < 0) continue;
            const int r = find(e);
            if (at[size_t(r)] < 0) {
              at[size_t(r)] = int(m.positions.size());
              m.positions.push_back(sum[size_t(r)] / crossings[size_t(r)]);
              cellOf.push_back(index(cell));
            }
            at[size_t(e)] = at[size_t(r)];
          }
          node[index(cell)] = at;
        }
    // a quad for every crossed grid edge: its four cells' nodes (on the edge's sheet)
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
              // (in that cell the edge is at +1 along u where du is 0, and along v where dv is 0)
              quad[size_t(c)] = node.at(index(cell))[size_t(a * 4 + (1 - du[c]) + 2 * (1 - dv[c]))];
            }
            if (!(f0 < 0)) std::swap(quad[1], quad[3]);  // inside above: the outward normal is -a
            quads.push_back(quad);
          }
    std::unordered_map<std::uint64_t, int> uses;
    for (const auto& q : quads)
      for (int c = 0; c < 4; ++c) ++uses[key(q[size_t(c)], q[size_t(c + 1) % 4])];
    std::vector<size_t> faces;
    for (const auto& [e, count] : uses) {
      if (count <= 2) continue;
      const size_t c0 = cellOf[size_t(e >> 32)], c1 = cellOf[size_t(e & 0xffffffffu)];
      const size_t d = std::max(c0, c1) - std::min(c0, c1);  // (1, a row or a layer: the face's axis)
      faces.push_back(std::min(c0, c1) * 3 + (d == 1 ? 0 : d == size_t(size[0]) ? 1 : 2));
    }
    if (faces.empty() || round == 3) break;
    for (size_t f : faces)
      if (!flipped.erase(f)) flipped.insert(f);
  }
#pragma omp parallel for schedule(dynamic, 16) if (place)
  for (size_t p = 0; p < (place ? m.positions.size() : 0); ++p) {
    Vec3& x = m.positions[p];
    for (int it = 0; it < 4; ++it) {  // Newton steps onto the surface, at most h each
      const double f = shape.distance(x);
      const Vec3 n = shape.normal(x, 0.05 * h);
      x -= std::clamp(f, -h, h) * n;
    }
  }
  // each quad split along its shorter diagonal, unless that pair of nodes is already an edge
  // (where the surface is about a cell thick, two quads can share two opposite nodes: split
  // alike, they would give one edge to four triangles)
  std::unordered_set<std::uint64_t> edges;
  for (const auto& q : quads)
    for (int c = 0; c < 4; ++c) edges.insert(key(q[size_t(c)], q[size_t(c + 1) % 4]));
  for (const auto& q : quads) {
    const auto& x = m.positions;
    bool first = (x[size_t(q[0])] - x[size_t(q[2])]).squaredNorm() <= (x[size_t(q[1])] - x[size_t(q[3])]).squaredNorm();
    if (edges.count(first ? key(q[0], q[2]) : key(q[1], q[3])) && !edges.count(first ? key(q[1], q[3]) : key(q[0], q[2])))
      first = !first;
    if (first) {
      m.triangles.push_back(Vec3i(q[0], q[1], q[2]));
      m.triangles.push_back(Vec3i(q[0], q[2], q[3]));
      edges.insert(key(q[0], q[2]));
    } else {
      m.triangles.push_back(Vec3i(q[0], q[1], q[3]));
      m.triangles.push_back(Vec3i(q[1], q[2], q[3]));
      edges.insert(key(q[1], q[3]));
    }
  }
  if (!place) return m;
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
  // folds: where the surface turns sharply within a cell (a model's crease, a thin part's
  // end) a triangle can come out facing against its corners' normals (over 90 degrees: no
  // layer offset along the normals can stand on it). Its corners move to their neighbours'
  // mean, off the surface by a fraction of a cell, until none is left (or 20 rounds)
  for (int round = 0; round < 20; ++round) {
    const std::vector<Vec3> normal = m.vertexNormals();
    std::vector<int> folded;
    for (const Vec3i& t : m.triangles) {
      const Vec3 n = (m.positions[size_t(t[1])] - m.positions[size_t(t[0])])
                         .cross(m.positions[size_t(t[2])] - m.positions[size_t(t[0])]);
      for (int a = 0; a < 3; ++a)
        if (!(n.dot(normal[size_t(t[a])]) > 0.1 * n.norm())) {
          folded.insert(folded.end(), {t[0], t[1], t[2]});
          break;
        }
    }
    if (folded.empty()) break;
    std::sort(folded.begin(), folded.end());
    folded.erase(std::unique(folded.begin(), folded.end()), folded.end());
    std::vector<Vec3> next = m.positions;
    for (int i : folded) {
      Vec3 mean = Vec3::Zero();
      for (int j : ring[size_t(i)]) mean += m.positions[size_t(j)];
      next[size_t(i)] = mean / double(ring[size_t(i)].size());
    }
    m.positions.swap(next);
  }
  return m;
}

TriMesh surfaceNetsWithNodes(const ImplicitShape& shape, int nodes) {
  const Vec3 extent = shape.hi - shape.lo;
  double h = std::sqrt(2 * (extent.x() * extent.y() + extent.y() * extent.z() + extent.z() * extent.x()) / nodes);
  // The node count and the connectivity are the grid's: the spacing is searched on unplaced
  // nets (the field at the grid points only), and the nodes placed once, at the spacing
  // chosen. (A face whose four edges the surface crosses joins two sheets at one edge: such
  // grids are shifted by a fraction of a cell until every edge has two triangles.)
  struct Try {
    double h;
    Vec3 shift;
    int n;
    bool closed;
  };
  std::vector<Try> tries;
  for (int it = 0; it < 16; ++it) {
    const Vec3 shift = Vec3(0.37, 0.61, 0.23) * double(it % 4) / 4;
    const TriMesh m = surfaceNets(shape, h, shift, /*place=*/false);
    const int n = int(m.positions.size());
    tries.push_back({h, shift, n, closedManifold(m)});
    if (n == 0) break;
    if (it % 4 == 3 || tries.back().closed) h *= std::sqrt(double(n) / nodes);
    if (tries.back().closed && std::abs(n - nodes) <= nodes / 100) break;
  }
  // best first: closed, then nearest the count
  std::stable_sort(tries.begin(), tries.end(), [nodes](const Try& a, const Try& b) {
    return a.closed != b.closed ? a.closed : std::abs(a.n - nodes) < std::abs(b.n - nodes);
  });
  TriMesh first;
  // (placed, a quad may split along its other diagonal; where that leaves an edge in four
  // triangles, the next try is placed)
  for (const Try& t : tries) {
    TriMesh m = surfaceNets(shape, t.h, t.shift);
    if (closedManifold(m) || !t.closed) return m;
    if (first.positions.empty()) first = std::move(m);
  }
  return first;
}

}  // namespace d2t
