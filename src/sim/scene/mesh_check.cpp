#include "sim/scene/mesh_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <tuple>

#include "sim/base/union_find.h"
#include "sim/scene/obj_loader.h"

namespace d2t {

namespace {

// One side of an edge: triangle t runs along it from its smaller to its larger vertex
// (forward) or back.
struct EdgeUse {
  uint64_t key;  // (smaller vertex, larger vertex)
  int triangle;
  bool forward;
};


std::string vecText(const Vec3& v) {
  std::ostringstream s;
  s.precision(4);
  s << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return s.str();
}

}  // namespace

std::string MeshReport::openProblems() const {
  std::string out;
  if (boundaryEdges > 0)
    out = std::to_string(boundaryEdges) + " boundary edges (" + std::to_string(holes) + (holes == 1 ? " hole or rim)" : " holes or rims)");
  if (nonManifoldEdges > 0)
    out += (out.empty() ? "" : ", ") + std::to_string(nonManifoldEdges) + " edges shared by more than two triangles";
  if (conflicts > 0)
    out += (out.empty() ? "" : ", ") + std::to_string(conflicts) +
           " edges whose two triangles cannot be wound oppositely (a one-sided surface)";
  return out;
}

MeshReport orientPieces(TriMesh* mesh) {
  MeshReport r;
  const int nt = int(mesh->triangles.size()), nv = int(mesh->positions.size());
  r.vertices = nv;
  r.triangles = nt;
  r.closedTriangle.assign(size_t(nt), 0);
  if (nt == 0) return r;
  r.bounds = mesh->bounds();
  const double diag = (r.bounds.hi - r.bounds.lo).norm();
  const std::vector<Vec3i>& tris = mesh->triangles;

  // the edges, each with the triangles that use it (sorted by edge: a deterministic order)
  std::vector<EdgeUse> uses;
  uses.reserve(size_t(3 * nt));
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = tris[size_t(t)][k], b = tris[size_t(t)][(k + 1) % 3];
      const uint64_t lo = uint64_t(std::min(a, b)), hi = uint64_t(std::max(a, b));
      uses.push_back({(lo << 32) | hi, t, a < b});
    }
  std::sort(uses.begin(), uses.end(), [](const EdgeUse& x, const EdgeUse& y) {
    return std::tie(x.key, x.triangle) < std::tie(y.key, y.triangle);
  });
  // the two-triangle edges join neighbours: (other triangle, whether both run alike)
  std::vector<std::vector<std::pair<int, bool>>> across(static_cast<size_t>(nt));
  std::vector<char> openEdge(size_t(nt), 0);  // a triangle on a boundary or non-manifold edge
  std::vector<uint64_t> boundary;             // the boundary edges' keys
  for (size_t i = 0; i < uses.size();) {
    size_t j = i;
    while (j < uses.size() && uses[j].key == uses[i].key) ++j;
    const size_t n = j - i;
    if (n == 2) {
      const EdgeUse &x = uses[i], &y = uses[i + 1];
      across[size_t(x.triangle)].push_back({y.triangle, x.forward == y.forward});
      across[size_t(y.triangle)].push_back({x.triangle, x.forward == y.forward});
    } else {
      (n == 1 ? r.boundaryEdges : r.nonManifoldEdges)++;
      if (n == 1) boundary.push_back(uses[i].key);
      for (size_t k = i; k < j; ++k) openEdge[size_t(uses[k].triangle)] = 1;
    }
    i = j;
  }
  // holes: the boundary edges joined by shared vertices
  {
    std::vector<int> loop(static_cast<size_t>(nv));
    std::iota(loop.begin(), loop.end(), 0);
    std::vector<char> onBoundary(size_t(nv), 0);
    for (uint64_t key : boundary) {
      const int a = int(key >> 32), b = int(key & 0xffffffffu);
      onBoundary[size_t(a)] = onBoundary[size_t(b)] = 1;
      loop[size_t(findRoot(loop, a))] = findRoot(loop, b);
    }
    for (int v = 0; v < nv; ++v) r.holes += onBoundary[size_t(v)] && findRoot(loop, v) == v;
  }

  // pieces: triangles joined by shared vertices
  std::vector<int> parent(static_cast<size_t>(nv));
  std::iota(parent.begin(), parent.end(), 0);
  for (const Vec3i& t : tris)
    for (int k = 1; k < 3; ++k) parent[size_t(findRoot(parent, t[0]))] = findRoot(parent, t[k]);
  std::vector<int> pieceOf(static_cast<size_t>(nt)), pieceIndex(static_cast<size_t>(nv), -1);
  for (int t = 0; t < nt; ++t) {
    int& p = pieceIndex[size_t(findRoot(parent, tris[size_t(t)][0]))];
    if (p < 0) p = r.pieces++;
    pieceOf[size_t(t)] = p;
  }

  // winding: breadth-first over the two-triangle edges; a neighbour that runs along the
  // shared edge the same way as its (possibly turned) neighbour is turned
  std::vector<char> flip(static_cast<size_t>(nt), 0), seen(static_cast<size_t>(nt), 0);
  std::vector<char> pieceConflict(size_t(r.pieces), 0);
  std::vector<int> queue;
  for (int s = 0; s < nt; ++s) {
    if (seen[size_t(s)]) continue;
    seen[size_t(s)] = 1;
    queue.assign(1, s);
    for (size_t q = 0; q < queue.size(); ++q) {
      const int t = queue[q];
      for (const auto& [u, alike] : across[size_t(t)]) {
        const char want = char(flip[size_t(t)] ^ char(alike));
        if (!seen[size_t(u)]) {
          seen[size_t(u)] = 1;
          flip[size_t(u)] = want;
          queue.push_back(u);
        } else if (flip[size_t(u)] != want && t < u) {
          ++r.conflicts;
          pieceConflict[size_t(pieceOf[size_t(t)])] = 1;
        }
      }
    }
  }
  for (int t = 0; t < nt; ++t)
    if (flip[size_t(t)]) std::swap(mesh->triangles[size_t(t)][1], mesh->triangles[size_t(t)][2]);

  // closed pieces: no boundary or non-manifold edge, no conflict; turned outward. Open
  // pieces without a conflict are turned so that what they nearly enclose (their volume
  // fanned from the mesh's box centre) is positive: a sphere with holes faces out, as a
  // winding-number repair (mesh_repair.h) needs
  std::vector<char> pieceOpen(size_t(r.pieces), 0);
  std::vector<double> pieceVolume(size_t(r.pieces), 0.0);
  const Vec3 centre = r.bounds.center();
  for (int t = 0; t < nt; ++t) {
    const int p = pieceOf[size_t(t)];
    if (openEdge[size_t(t)] || pieceConflict[size_t(p)]) pieceOpen[size_t(p)] = 1;
    const Vec3i& v = mesh->triangles[size_t(t)];
    const Vec3 a = mesh->positions[size_t(v[0])] - centre, b = mesh->positions[size_t(v[1])] - centre,
               c = mesh->positions[size_t(v[2])] - centre;
    pieceVolume[size_t(p)] += a.dot(b.cross(c)) / 6.0;
  }
  for (int t = 0; t < nt; ++t) {
    const int p = pieceOf[size_t(t)];
    if (!pieceOpen[size_t(p)]) r.closedTriangle[size_t(t)] = 1;
    if (pieceVolume[size_t(p)] < 0 && !pieceConflict[size_t(p)]) {
      std::swap(mesh->triangles[size_t(t)][1], mesh->triangles[size_t(t)][2]);
      flip[size_t(t)] ^= 1;
    }
  }
  for (int p = 0; p < r.pieces; ++p)
    if (!pieceOpen[size_t(p)]) {
      ++r.closedPieces;
      r.volume += std::abs(pieceVolume[size_t(p)]);
    }
  for (int t = 0; t < nt; ++t) {
    r.rewound += flip[size_t(t)];
    const Vec3i& v = mesh->triangles[size_t(t)];
    const Vec3 n = (mesh->positions[size_t(v[1])] - mesh->positions[size_t(v[0])])
                       .cross(mesh->positions[size_t(v[2])] - mesh->positions[size_t(v[0])]);
    r.degenerate += n.norm() <= 1e-14 * diag * diag;
  }
  if (r.closed() && r.volume > 0)
    r.starShaped = isStarShaped(*mesh, mesh->massProperties(1.0).com, &r.notStarShaped);
  return r;
}

std::string meshReportText(const MeshReport& r, const std::string& path) {
  std::ostringstream s;
  s << path << ": " << r.vertices << " vertices (after welding), " << r.triangles << " triangles, from "
    << vecText(r.bounds.lo) << " to " << vecText(r.bounds.hi) << " m\n";
  s << "  pieces: " << r.pieces << " (" << r.closedPieces << " closed, " << r.pieces - r.closedPieces << " open)\n";
  s << "  boundary edges: " << r.boundaryEdges << " (" << r.holes << (r.holes == 1 ? " hole or rim)\n" : " holes or rims)\n");
  s << "  edges of three or more triangles: " << r.nonManifoldEdges << "\n";
  s << "  triangles rewound to agree with their neighbours or face out: " << r.rewound << "\n";
  if (r.conflicts > 0) s << "  edges whose triangles cannot agree (one-sided surface): " << r.conflicts << "\n";
  if (r.degenerate > 0) s << "  degenerate (zero-area) triangles: " << r.degenerate << "\n";
  if (r.closedPieces > 0) s << "  volume of the closed pieces: " << r.volume << " m^3\n";
  const int open = int(std::count(r.closedTriangle.begin(), r.closedTriangle.end(), 0));
  s << "  as a rigid collider: yes, " << r.triangles - open << " triangles one-sided (closed pieces), " << open
    << " double-sided (open pieces)\n";
  return s.str();
}

}  // namespace d2t
