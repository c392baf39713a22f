// Closing a triangle soup (mesh_repair.h).
#include "sim/scene/mesh_repair.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

#include "sim/base/json_reader.h"
#include "sim/base/triangle_bvh.h"
#include "sim/base/union_find.h"
#include "sim/scene/obj_loader.h"
#include "sim/scene/surface_nets.h"
#include "sim/scene/winding_number.h"

namespace d2t {

namespace {


// The mesh's pieces (sets of triangles joined by shared vertices), each with its own vertices.
std::vector<TriMesh> splitPieces(const TriMesh& m) {
  std::vector<int> parent(m.positions.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const Vec3i& t : m.triangles)
    for (int k = 1; k < 3; ++k) parent[size_t(findRoot(parent, t[0]))] = findRoot(parent, t[k]);
  std::vector<int> pieceOf(m.positions.size(), -1), newIndex(m.positions.size(), -1);
  std::vector<TriMesh> pieces;
  for (size_t v = 0; v < parent.size(); ++v) {
    const size_t r = size_t(findRoot(parent, int(v)));
    if (pieceOf[r] < 0) {
      pieceOf[r] = int(pieces.size());
      pieces.emplace_back();
    }
    TriMesh& p = pieces[size_t(pieceOf[r])];
    newIndex[v] = int(p.positions.size());
    p.positions.push_back(m.positions[v]);
  }
  for (const Vec3i& t : m.triangles)
    pieces[size_t(pieceOf[size_t(findRoot(parent, t[0]))])].triangles.push_back(
        Vec3i(newIndex[size_t(t[0])], newIndex[size_t(t[1])], newIndex[size_t(t[2])]));
  return pieces;
}

// The fills over holes, faired: w = 1/2 spans a hole by about the least surface (a hole in a
// sphere: nearly its flat disc), which a body would keep as a dent. Its nodes (those more than
// a quarter of the mesh's spacing from the input) are moved to make the umbrella Laplacian's
// square zero (a thin plate: Kobbelt's x <- x - L^2 x / nu, nu = 1 + mean of 1/n_j over the
// neighbours), the rest held: the fill continues the surface's slope and curvature at its rim.
void fairFills(TriMesh* mesh, const TriangleBvh& input) {
  const size_t n = mesh->positions.size();
  std::vector<std::vector<int>> ring(n);
  for (const Vec3i& t : mesh->triangles)
    for (int a = 0; a < 3; ++a) {
      std::vector<int>& r = ring[size_t(t[a])];
      for (int b : {t[(a + 1) % 3], t[(a + 2) % 3]})
        if (std::find(r.begin(), r.end(), b) == r.end()) r.push_back(b);
    }
  double spacing = 0;
  for (const Vec3i& t : mesh->triangles) spacing += (mesh->positions[size_t(t[0])] - mesh->positions[size_t(t[1])]).norm();
  spacing /= double(std::max<size_t>(1, mesh->triangles.size()));
  std::vector<int> fill;
  for (size_t i = 0; i < n; ++i)
    if (input.distanceSq(mesh->positions[i]) > 0.0625 * spacing * spacing) fill.push_back(int(i));
  if (fill.empty()) return;
  std::vector<Vec3>& x = mesh->positions;
  std::vector<Vec3> lap(n, Vec3::Zero());
  const auto laplacian = [&](size_t i) {
    Vec3 mean = Vec3::Zero();
    for (int j : ring[i]) mean += x[size_t(j)];
    return Vec3(mean / double(ring[i].size()) - x[i]);
  };
  // the Laplacian is needed at the fill nodes and their neighbours
  std::vector<int> near = fill;
  for (int i : fill) near.insert(near.end(), ring[size_t(i)].begin(), ring[size_t(i)].end());
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  for (int round = 0; round < 400; ++round) {
    for (int i : near) lap[size_t(i)] = laplacian(size_t(i));
    for (int i : fill) {
      const std::vector<int>& r = ring[size_t(i)];
      Vec3 mean = Vec3::Zero();
      double nu = 0;
      for (int j : r) {
        mean += lap[size_t(j)];
        nu += 1.0 / double(ring[size_t(j)].size());
      }
      const double k = double(r.size());
      x[size_t(i)] -= 0.8 * (mean / k - lap[size_t(i)]) / (1 + nu / k);
    }
  }
}

std::string millimetres(double m) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2g mm", 1e3 * m);
  return s;
}

std::string percent(double fraction) {
  if (fraction < 1e-4) return "under 0.01%";
  char s[32];
  std::snprintf(s, sizeof s, "%.2g%%", 100 * fraction);
  return s;
}

}  // namespace

std::string MeshRepair::summary() const {
  std::string s = source + ": ";
  const bool repaired =
      holesFilled > 0 || nonManifoldEdges > 0 || piecesIn != piecesOut || boundaryEdges > 0 || piecesDropped > 0;
  if (!repaired) {
    s += "closed; re-meshed to " + std::to_string(nodes) + " nodes";
  } else {
    std::string what;
    const auto add = [&](const std::string& x) { what += (what.empty() ? "" : ", ") + x; };
    if (holesFilled > 0)
      add(std::to_string(holesFilled) + (holesFilled == 1 ? " hole" : " holes") + " filled (" +
          std::to_string(boundaryEdges) + " boundary edges)");
    if (piecesIn > piecesOut) add(std::to_string(piecesIn) + " pieces merged into " + std::to_string(piecesOut));
    if (nonManifoldEdges > 0) add(std::to_string(nonManifoldEdges) + " non-manifold edges removed");
    if (piecesDropped > 0)
      add(std::to_string(piecesDropped) + " small " + (piecesDropped == 1 ? "piece" : "pieces") + " dropped (" +
          percent(droppedVolume) + " of the volume)");
    s += "closed by a winding-number repair: " + what + "; " + std::to_string(nodes) + " nodes";
  }
  s += "; the new surface lies within " + millimetres(maxDistance) + " of the input (mean " +
       millimetres(meanDistance) + ", " + std::to_string(int(std::lround(100 * maxDistance / size))) +
       "% of its size)";
  return s;
}

std::string softBodyText(const TriMesh& soup, const MeshReport& report, int nodes, const std::string& path,
                         const std::function<void(const TriMesh&)>& layer) {
  if (report.closed() && report.starShaped)
    return "yes, on the cube-map atlas as it is (closed, star-shaped about its centre of mass)";
  try {
    // as the scene does: a closed soup by its own inside (parseScene)
    std::function<double(const Vec3&)> exact;
    if (report.closed()) {
      const ShapePtr shape = makeMeshShape(soup, path, report.pieces);
      exact = [shape](const Vec3& x) { return shape->signedDistance(x); };
    }
    const MeshRepair m = repairMesh(soup, nodes, path, exact);
    if (!m.starShaped && layer) {
      TriMesh centred = m.mesh;
      centred.transform(Mat3::Identity(), -centred.massProperties(1.0).com);
      layer(centred);
    }
    return std::string("yes, ") +
           (m.starShaped ? "on the cube-map atlas once closed (star-shaped about its centre of mass)"
                         : "on the general surface layout (not star-shaped: " + m.notStarShaped + ")") +
           ": " + m.summary();
  } catch (const InputError& e) {
    return std::string("no: ") + e.what();
  }
}

MeshRepair repairMesh(TriMesh soup, int nodes, const std::string& path,
                      const std::function<double(const Vec3&)>& signedDistance) {
  const MeshReport report = orientPieces(&soup);
  MeshRepair out;
  out.source = path;
  out.piecesIn = report.pieces;
  out.holesFilled = report.holes;
  out.boundaryEdges = report.boundaryEdges;
  out.nonManifoldEdges = report.nonManifoldEdges;
  const Aabb box = soup.bounds();
  out.size = (box.hi - box.lo).norm();
  if (soup.triangles.empty() || !(out.size > 0)) throw InputError(path + ": no triangles to close");

  const TriangleBvh bvh(soup.positions, soup.triangles);
  ImplicitShape field;
  std::unique_ptr<WindingNumber> w;
  if (signedDistance) {
    field.distance = signedDistance;
  } else {
    // The field whose zero set is the closed surface: negative where w > 1/2. Near the soup
    // it is the distance to the soup; over a hole, where w passes 1/2 smoothly away from any
    // triangle, it is the first-order distance to w = 1/2, |w - 1/2| / |grad w| (whichever
    // is less): continuous, about unit slope, zero on the soup's triangles that bound the
    // solid and on the fill, as surface nets' projection needs.
    w = std::make_unique<WindingNumber>(soup.positions, soup.triangles);
    const double step = 1e-4 * out.size;
    field.distance = [&w = *w, &bvh, step](const Vec3& x) {
      const double wx = w(x), gap = std::abs(wx - 0.5);
      double f = std::sqrt(bvh.distanceSq(x));
      if (gap < 0.45) {
        Vec3 g;
        for (int a = 0; a < 3; ++a) {
          Vec3 e = Vec3::Zero();
          e[a] = step;
          g[a] = (w(x + e) - w(x - e)) / (2 * step);
        }
        if (g.norm() > 0) f = std::min(f, gap / g.norm());
      }
      return wx > 0.5 ? -f : f;
    };
  }
  field.lo = box.lo - Vec3::Constant(0.02 * out.size);
  field.hi = box.hi + Vec3::Constant(0.02 * out.size);
  out.mesh = surfaceNetsWithNodes(field, nodes);
  out.nodes = int(out.mesh.positions.size());
  if (out.mesh.triangles.empty())
    throw InputError(path + ": encloses no volume (its winding number never reaches 1/2: an open sheet or a "
                            "strip has no inside); it can be a rigid collider, not a soft body");
  if (!closedManifold(out.mesh))
    throw InputError(path + ": cannot be closed at " + std::to_string(nodes) +
                     " nodes (the grid does not resolve its thin parts; more nodes may)");
  // one piece: the largest, where the others are small (parts the model only touches, or too
  // thin for the grid at this node count), said in the summary
  std::vector<TriMesh> pieces = splitPieces(out.mesh);
  out.piecesOut = int(pieces.size());
  if (pieces.size() > 1) {
    double total = 0;
    for (const TriMesh& p : pieces) total += std::abs(p.volume());
    const auto largest = std::max_element(pieces.begin(), pieces.end(), [](const TriMesh& a, const TriMesh& b) {
      return std::abs(a.volume()) < std::abs(b.volume());
    });
    out.droppedVolume = 1 - std::abs(largest->volume()) / total;
    if (out.droppedVolume > kMostDropped)
      throw InputError(path + ": closes into " + std::to_string(pieces.size()) + " separate pieces, the largest " +
                       std::to_string(int(std::lround(100 * (1 - out.droppedVolume)))) +
                       "% of the volume (a soft body is one piece: join them in the model, try more nodes if "
                       "thin parts broke off, or use it as a rigid collider)");
    out.mesh = std::move(*largest);
    out.nodes = int(out.mesh.positions.size());
    out.piecesDropped = out.piecesOut - 1;
  }
  if (!signedDistance) fairFills(&out.mesh, bvh);  // (an exact field has no fills)
  double sum = 0;
  for (const Vec3& x : out.mesh.positions) {
    const double d = std::sqrt(bvh.distanceSq(x));
    out.maxDistance = std::max(out.maxDistance, d);
    sum += d;
  }
  out.meanDistance = sum / std::max(1, out.nodes);
  out.starShaped = isStarShaped(out.mesh, out.mesh.massProperties(1.0).com, &out.notStarShaped);
  return out;
}

}  // namespace d2t
