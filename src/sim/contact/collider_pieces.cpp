#include "sim/contact/collider_pieces.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace d2t {

namespace {

// A piece of the given triangles of `mesh`, with its own vertices.
ColliderPiece makePiece(const TriMesh& mesh, const std::vector<int>& tris, bool doubleSided, int proxyPoints) {
  ColliderPiece p;
  if (tris.size() == mesh.triangles.size()) {
    p.mesh = mesh;  // the whole mesh, as it is
  } else {
    std::vector<int> remap(mesh.positions.size(), -1);
    for (int t : tris) {
      Vec3i v = mesh.triangles[size_t(t)];
      for (int k = 0; k < 3; ++k) {
        int& r = remap[size_t(v[k])];
        if (r < 0) {
          r = int(p.mesh.positions.size());
          p.mesh.positions.push_back(mesh.positions[size_t(v[k])]);
        }
        v[k] = r;
      }
      p.mesh.triangles.push_back(v);
    }
  }
  p.own = int(p.mesh.triangles.size());
  p.bvh = SkinBvh(p.mesh.positions, p.mesh.triangles);
  p.proxy = makeProxy(p.mesh.positions, proxyPoints);
  p.centre = p.mesh.bounds().center();
  p.doubleSided = doubleSided;
  return p;
}

// The principal direction of a set's unsigned normals: the top eigenvector of
// sum a a^T / |a| (a = twice a triangle's area along its normal).
Vec3 principalAxis(const std::vector<Vec3>& area, std::vector<int>::const_iterator first,
                   std::vector<int>::const_iterator last) {
  Mat3 s = Mat3::Zero();
  for (auto it = first; it != last; ++it) {
    const Vec3& a = area[size_t(*it)];
    if (a.norm() > 0) s += a * a.transpose() / a.norm();
  }
  return Eigen::SelfAdjointEigenSolver<Mat3>(s).eigenvectors().col(2);
}

// The triangles around a cluster that its piece takes as well (its skirt): stage 2 casts
// a pair's nodes along one axis, and a node near the cluster's rim (where two clusters
// meet in a concave crease, the bottom of a bowl) can project just outside every cluster
// it is behind; the skirt catches it. Its first ring (the triangles sharing a vertex
// with the cluster), then further rings while they stay within `reach` of the cluster's
// box (depth x sin(cone) is how far a node's projection moves), at most 8.
class Skirts {
 public:
  Skirts(const TriMesh& mesh, double reach) : mesh_(mesh), reach_(reach), mark_(mesh.triangles.size(), -1) {
    around_.resize(mesh.positions.size());
    for (int t = 0; t < int(mesh.triangles.size()); ++t)
      for (int k = 0; k < 3; ++k) around_[size_t(mesh.triangles[size_t(t)][k])].push_back(t);
  }
  // the cluster's triangles and its skirt's
  std::vector<int> withSkirt(const std::vector<int>& cluster) {
    ++stamp_;
    Aabb box;
    for (int t : cluster) {
      mark_[size_t(t)] = stamp_;
      for (int k = 0; k < 3; ++k) box.grow(mesh_.positions[size_t(mesh_.triangles[size_t(t)][k])]);
    }
    box.lo -= Vec3::Constant(reach_);
    box.hi += Vec3::Constant(reach_);
    std::vector<int> all = cluster, ring = cluster;
    for (int r = 0; r < 8 && !ring.empty(); ++r) {
      std::vector<int> next;
      for (int t : ring)
        for (int k = 0; k < 3; ++k)
          for (int u : around_[size_t(mesh_.triangles[size_t(t)][k])]) {
            if (mark_[size_t(u)] == stamp_) continue;
            bool near = true;
            for (int j = 0; j < 3 && r > 0; ++j) near = near && box.contains(mesh_.positions[size_t(mesh_.triangles[size_t(u)][j])]);
            if (!near) continue;
            mark_[size_t(u)] = stamp_;
            next.push_back(u);
          }
      all.insert(all.end(), next.begin(), next.end());
      ring = std::move(next);
    }
    return all;
  }

 private:
  const TriMesh& mesh_;
  double reach_;
  std::vector<std::vector<int>> around_;
  std::vector<int> mark_;
  int stamp_ = 0;
};

// |cos| of the largest angle between a skirt triangle's normal and its cluster's axis
// (75 degrees: twice the cone and more, as where two clusters meet in a crease).
constexpr double kSkirtFacing = 0.26;

// A flat cluster's piece, with its skirt, and its axis along its own summed normals.
ColliderPiece makeCluster(const TriMesh& mesh, const std::vector<Vec3>& area, const std::vector<int>& tris,
                          bool doubleSided, Skirts& skirts) {
  Vec3 axis = principalAxis(area, tris.begin(), tris.end()), sum = Vec3::Zero();
  for (int t : tris) sum += area[size_t(t)];
  if (sum.dot(axis) < 0) axis = -axis;
  // the skirt's triangles that face along the axis (a step's riser, edge-on to its tread's
  // axis, would project to a sliver: it has a piece of its own)
  std::vector<int> all = skirts.withSkirt(tris);
  all.erase(std::remove_if(all.begin() + long(tris.size()), all.end(),
                           [&](int t) {
                             const Vec3& a = area[size_t(t)];
                             return !(std::abs(a.dot(axis)) >= kSkirtFacing * a.norm());
                           }),
            all.end());
  ColliderPiece p = makePiece(mesh, all, doubleSided, 64);
  p.own = int(tris.size());
  p.axis = axis;
  double areaSum = 0;
  for (int t : tris) {
    const Vec3i& k = mesh.triangles[size_t(t)];
    const double a = area[size_t(t)].norm();
    p.sheet += a * (mesh.positions[size_t(k[0])] + mesh.positions[size_t(k[1])] + mesh.positions[size_t(k[2])]) / 3;
    areaSum += a;
  }
  p.sheet = areaSum > 0 ? Vec3(p.sheet / areaSum) : p.centre;
  return p;
}

// How far a set of triangles is from a flat cluster, 1 at the rules' limits: the larger of
// its normals' spread (either sign; 1 - min |n . axis| over them, about their mean axis,
// the principal direction of sum a n n^T, a = twice the area) and its thickness along
// that axis over its width (its corners' extent; parallel faces apart, a staircase's
// treads, are not one flat cluster).
double unflatness(const TriMesh& mesh, const std::vector<Vec3>& area, std::vector<int>::const_iterator first,
                  std::vector<int>::const_iterator last, const PieceRules& rules) {
  const Vec3 axis = principalAxis(area, first, last);
  double spread = 0, lo = 1e300, hi = -1e300;
  Aabb box;
  for (auto it = first; it != last; ++it) {
    const Vec3& a = area[size_t(*it)];
    if (a.norm() > 0) spread = std::max(spread, 1 - std::abs(a.dot(axis)) / a.norm());
    for (int k = 0; k < 3; ++k) {
      const Vec3& x = mesh.positions[size_t(mesh.triangles[size_t(*it)][k])];
      lo = std::min(lo, axis.dot(x));
      hi = std::max(hi, axis.dot(x));
      box.grow(x);
    }
  }
  const double width = (box.hi - box.lo).norm();
  return std::max(spread / (1 - std::cos(rules.maxConeAngle)),
                  width > 0 ? (hi - lo) / width / rules.maxThickness : 0.0);
}

// Cuts `tris` (all closed or all open) into flat clusters: a set that is flat
// (unflatness) or small, and has few enough triangles, is a piece; any other is halved
// at the median of its centroids along the axis (x, y or z) whose halves are flattest (a
// cylinder is cut around, not along).
void cluster(const TriMesh& mesh, std::vector<int> tris, bool doubleSided, const PieceRules& rules, Skirts& skirts,
             std::vector<ColliderPiece>* out) {
  const size_t nt = mesh.triangles.size();
  std::vector<Vec3> area(nt);
  std::vector<Eigen::Vector4d> centroid(nt);  // and a fourth key: a normal's component (below)
  for (size_t t = 0; t < nt; ++t) {
    const Vec3i& v = mesh.triangles[t];
    const Vec3 &a = mesh.positions[size_t(v[0])], &b = mesh.positions[size_t(v[1])], &c = mesh.positions[size_t(v[2])];
    area[t] = (b - a).cross(c - a);
    centroid[t] << (a + b + c) / 3.0, 0.0;
  }
  const Aabb bounds = mesh.bounds();
  const double minSize = rules.minSize * 0.5 * (bounds.hi - bounds.lo).norm();
  std::vector<std::vector<int>> todo;
  if (!tris.empty()) todo.push_back(std::move(tris));
  while (!todo.empty()) {
    std::vector<int> set = std::move(todo.back());
    todo.pop_back();
    const bool flat = unflatness(mesh, area, set.begin(), set.end(), rules) <= 1;
    Aabb box;
    for (int t : set) box.grow(centroid[size_t(t)].head<3>());
    const double size = (box.hi - box.lo).maxCoeff();
    if ((flat || size <= minSize) && (int(set.size()) <= rules.maxTriangles || size <= 0)) {
      out->push_back(makeCluster(mesh, area, set, doubleSided, skirts));
      continue;
    }
    const auto mid = set.begin() + long(set.size() / 2);
    auto byAxis = [&](int d) {
      return [&centroid, d](int x, int y) {
        const double cx = centroid[size_t(x)][d], cy = centroid[size_t(y)][d];
        return cx < cy || (cx == cy && x < y);
      };
    };
    int bestAxis = 0;
    if (flat || size <= minSize) {  // only too many: halve along the longest side of the centroids' box
      (box.hi - box.lo).maxCoeff(&bestAxis);
    } else {
      // the candidates: the centroids along x, y, z, and the normals along the direction
      // they vary most in (overlapping parts of a model interleave in space, not in normal)
      Mat3 s = Mat3::Zero();
      for (int t : set)
        if (area[size_t(t)].norm() > 0) s += area[size_t(t)] * area[size_t(t)].transpose() / area[size_t(t)].norm();
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(s);
      const Vec3 axis = eig.eigenvectors().col(2), across = eig.eigenvectors().col(1);
      for (int t : set) {
        const Vec3 n = area[size_t(t)].norm() > 0 ? Vec3(area[size_t(t)].normalized()) : Vec3::Zero();
        centroid[size_t(t)][3] = (n.dot(axis) < 0 ? -1.0 : 1.0) * n.dot(across);
      }
      double best = 1e300;
      for (int d = 0; d < 4; ++d) {
        std::nth_element(set.begin(), mid, set.end(), byAxis(d));
        const double spread =
            std::max(unflatness(mesh, area, set.begin(), mid, rules), unflatness(mesh, area, mid, set.end(), rules));
        if (spread < best) {
          best = spread;
          bestAxis = d;
        }
      }
    }
    std::nth_element(set.begin(), mid, set.end(), byAxis(bestAxis));
    todo.emplace_back(mid, set.end());
    todo.emplace_back(set.begin(), mid);
  }
}

}  // namespace

double concavity(const TriMesh& mesh) {
  const ConvexProxy hull = makeProxy(mesh.positions, 192);
  // up to 512 of the vertices, evenly through the list
  const size_t n = mesh.positions.size(), step = std::max<size_t>(1, n / 512);
  double deepest = 0;
  for (size_t i = 0; i < n; i += step) {
    const HullDistance d = hullDistance({mesh.positions[i]}, hull.points);
    if (d.overlap) deepest = std::max(deepest, d.depth - hull.margin);
  }
  return deepest;
}

std::vector<ColliderPiece> cutIntoPieces(const TriMesh& mesh, const std::vector<char>& closedTriangle,
                                         const PieceRules& rules) {
  std::vector<ColliderPiece> out;
  if (mesh.triangles.empty()) return out;
  std::vector<int> closed, open;
  for (int t = 0; t < int(mesh.triangles.size()); ++t) (closedTriangle[size_t(t)] ? closed : open).push_back(t);
  const Aabb box = mesh.bounds();
  const double size = 0.5 * (box.hi - box.lo).norm();
  if (open.empty() && concavity(mesh) <= rules.maxConcavity * size) {
    out.push_back(makePiece(mesh, closed, false, 192));  // the whole closed mesh: its hull is tight
    return out;
  }
  Skirts skirts(mesh, rules.skirt * size);
  cluster(mesh, std::move(closed), false, rules, skirts, &out);
  cluster(mesh, std::move(open), true, rules, skirts, &out);
  return out;
}

}  // namespace d2t
