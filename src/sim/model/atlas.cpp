#include "sim/model/atlas.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace d2t {

namespace {

// ---------------------------------------------------------------------------
// shared helpers

void initTexels(Atlas& a, int n) {
  a.resolution = n;
  a.texelKind.assign(static_cast<size_t>(n) * n, TexelKind::Invalid);
  a.texelPatch.assign(static_cast<size_t>(n) * n, -1);
  a.texelNode.assign(static_cast<size_t>(n) * n, -1);
  a.gutterSource.assign(static_cast<size_t>(n) * n, -1);
}

// slot s of node i reads the texel at its offset: a node, a gutter texel's source, or nothing
void buildStencils(Atlas& a) {
  const int n = a.resolution;
  a.stencil.resize(a.nodeTexel.size());
  for (size_t i = 0; i < a.nodeTexel.size(); ++i) {
    const int x = a.nodeTexel[i] % n, y = a.nodeTexel[i] / n;
    for (int s = 0; s < kStencilSlots; ++s) {
      const int xs = x + kStencilDx[s], ys = y + kStencilDy[s];
      int node = -1;
      if (xs >= 0 && xs < n && ys >= 0 && ys < n) {
        const int t = ys * n + xs;
        if (a.texelKind[t] == TexelKind::Node) node = a.texelNode[t];
        else if (a.texelKind[t] == TexelKind::Gutter) node = a.gutterSource[t];
      }
      a.stencil[i][s] = node;
    }
  }
  a.gutterTexels.clear();
  for (int t = 0; t < n * n; ++t)
    if (a.texelKind[t] == TexelKind::Gutter && a.gutterSource[t] >= 0) a.gutterTexels.push_back(t);
}

template <class T>
void fillGutterT(const Atlas& a, T* texels, int channels) {
  const int count = static_cast<int>(a.gutterTexels.size());
  for (int k = 0; k < count; ++k) {
    const int dst = a.gutterTexels[k];
    const int src = a.nodeTexel[a.gutterSource[dst]];
    std::memcpy(texels + static_cast<size_t>(dst) * channels,
                texels + static_cast<size_t>(src) * channels, sizeof(T) * channels);
  }
}

// ---------------------------------------------------------------------------
// cube map

struct Face {
  Vec3i n, u, v;  // outward normal and in-plane axes, u x v = n
};
// side faces have v = +Y so that the patches look upright in the atlas
const Face kFaces[6] = {
    {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},   // +X
    {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},   // -X
    {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},   // +Y
    {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},   // -Y
    {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},    // +Z
    {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},  // -Z
};

enum Side { kBottom = 0, kTop = 1, kLeft = 2, kRight = 3 };

// an edge node at position k reads the gutter at k and k + fwd(side):
// bottom (0,-1) (+1,-1); left (-1,0) (-1,+1); top (0,+1) (-1,+1); right (+1,0) (+1,-1)
int sideForward(int side) { return (side == kBottom || side == kLeft) ? 1 : -1; }

Vec3i sideAcross(const Face& f, int side) {
  switch (side) {
    case kBottom: return -f.v;
    case kTop: return f.v;
    case kLeft: return -f.u;
    default: return f.u;
  }
}

// local (i, j) of the edge node at position k, and of the gutter texel at position p (-1..P)
Eigen::Vector2i sideNode(int side, int k, int p) {
  switch (side) {
    case kBottom: return {k, 0};
    case kTop: return {k, p - 1};
    case kLeft: return {0, k};
    default: return {p - 1, k};
  }
}
Eigen::Vector2i sideGutter(int side, int k, int p) {
  switch (side) {
    case kBottom: return {k, -1};
    case kTop: return {k, p};
    case kLeft: return {-1, k};
    default: return {p, k};
  }
}

// point of the cube edge next to edge node k, scaled by P (exact integers)
Vec3i sideEdgePoint(const Face& f, int side, int k, int p) {
  const Vec3i along = (side == kBottom || side == kTop) ? f.u : f.v;
  return p * f.n + (2 * k + 1 - p) * along + p * sideAcross(f, side);
}

struct Seam {
  int faceA, sideA, faceB, sideB;
  int orient;          // k_B = k_A (+1) or P-1-k_A (-1); t = k_A
  int sigmaA, sigmaB;  // each side's node at t reads gutter positions t and t + sigma (in t)
};

// the 12 seams, found by matching edge points (independent of P up to ordering)
std::vector<Seam> findSeams() {
  const int p = 4;
  std::vector<Seam> seams;
  for (int fa = 0; fa < 6; ++fa)
    for (int sa = 0; sa < 4; ++sa) {
      const Vec3i across = sideAcross(kFaces[fa], sa);
      int fb = 0;
      while (kFaces[fb].n != across) ++fb;
      int sb = 0;
      while (sideAcross(kFaces[fb], sb) != kFaces[fa].n) ++sb;
      if (fb * 4 + sb < fa * 4 + sa) continue;  // each seam once
      Seam s{fa, sa, fb, sb, 0, 0, 0};
      if (sideEdgePoint(kFaces[fb], sb, 0, p) == sideEdgePoint(kFaces[fa], sa, 0, p)) s.orient = 1;
      else if (sideEdgePoint(kFaces[fb], sb, p - 1, p) == sideEdgePoint(kFaces[fa], sa, 0, p)) s.orient = -1;
      else throw std::logic_error("cube map: faces do not meet along an edge");
      s.sigmaA = sideForward(sa);
      s.sigmaB = sideForward(sb) * s.orient;
      seams.push_back(s);
    }
  if (seams.size() != 12) throw std::logic_error("cube map: expected 12 seams");
  return seams;
}

// The cube-map atlas in the making: six p x p patches in a 3 x 2 layout, each with
// a one-texel gutter (cells of p + 2).
class CubeBuilder {
 public:
  CubeBuilder(Atlas& a, int n) : a_(a), n_(n), p_(cubeMapPatchSize(n)), cell_(p_ + 2) {}
  int texelOf(int f, int i, int j) const { return ((f / 3) * cell_ + 1 + j) * n_ + (f % 3) * cell_ + 1 + i; }
  int nodeOf(int f, int i, int j) const { return f * p_ * p_ + j * p_ + i; }

  // nodes: patch-major, row-major inside a patch; each with its direction on the cube
  void placeNodes() {
    const int nnode = 6 * p_ * p_;
    a_.nodeTexel.resize(nnode);
    a_.nodeDirection.resize(nnode);
    for (int f = 0; f < 6; ++f)
      for (int j = -1; j <= p_; ++j)
        for (int i = -1; i <= p_; ++i) {
          const int t = texelOf(f, i, j);
          a_.texelPatch[t] = static_cast<int8_t>(f);
          const bool inside = i >= 0 && i < p_ && j >= 0 && j < p_;
          a_.texelKind[t] = inside ? TexelKind::Node : TexelKind::Gutter;
          if (!inside) continue;
          const int id = nodeOf(f, i, j);
          a_.texelNode[t] = id;
          a_.nodeTexel[id] = t;
          const Face& fc = kFaces[f];
          const Vec3 c = fc.n.cast<double>() + ((2.0 * i + 1) / p_ - 1) * fc.u.cast<double>() +
                         ((2.0 * j + 1) / p_ - 1) * fc.v.cast<double>();
          a_.nodeDirection[id] = c.normalized();
        }
  }
  // patch interiors: each cell split along its anti-diagonal; u x v = n makes them outward CCW
  void interiorTriangles() {
    a_.triangles.reserve(12 * static_cast<size_t>(p_) * p_);
    for (int f = 0; f < 6; ++f)
      for (int j = 0; j + 1 < p_; ++j)
        for (int i = 0; i + 1 < p_; ++i) {
          const int n00 = nodeOf(f, i, j), n10 = nodeOf(f, i + 1, j);
          const int n01 = nodeOf(f, i, j + 1), n11 = nodeOf(f, i + 1, j + 1);
          a_.triangles.push_back({n00, n10, n01});
          a_.triangles.push_back({n10, n11, n01});
        }
  }
  // one seam with diagonal s: the zipper of triangles across it and the gutter texels
  // on both sides (a texel claimed by two different nodes gets -1: resolveGutters)
  void zipSeam(const Seam& sm, int s) {
    auto kB = [&](int t) { return sm.orient > 0 ? t : p_ - 1 - t; };
    auto nodeA = [&](int t) {
      const Eigen::Vector2i ij = sideNode(sm.sideA, t, p_);
      return nodeOf(sm.faceA, ij.x(), ij.y());
    };
    auto nodeB = [&](int t) {
      const Eigen::Vector2i ij = sideNode(sm.sideB, kB(t), p_);
      return nodeOf(sm.faceB, ij.x(), ij.y());
    };
    // zipper: rungs (a(t), b(t)) and one diagonal per quad
    for (int t = 0; t + 1 < p_; ++t) {
      if (s > 0) {  // diagonal (a(t), b(t+1))
        addOriented(nodeA(t), nodeA(t + 1), nodeB(t + 1));
        addOriented(nodeA(t), nodeB(t + 1), nodeB(t));
      } else {  // diagonal (a(t+1), b(t))
        addOriented(nodeA(t), nodeA(t + 1), nodeB(t));
        addOriented(nodeA(t + 1), nodeB(t + 1), nodeB(t));
      }
    }
    // gutters: a(t) must see b(t) and b(t+s); it reads positions t, t+sigmaA,
    // so position t holds b(t + deltaA), deltaA = 0 if sigmaA == s else s.
    // b(t) must see a(t) and a(t-s): deltaB = 0 if sigmaB == -s else -s.
    const int deltaA = sm.sigmaA == s ? 0 : s;
    const int deltaB = sm.sigmaB == -s ? 0 : -s;
    for (int t = -1; t <= p_; ++t) {
      const int tb = t + deltaA;  // A's gutter at t (A-local position t)
      if (tb >= 0 && tb < p_) {
        const Eigen::Vector2i g = sideGutter(sm.sideA, t, p_);
        claim(texelOf(sm.faceA, g.x(), g.y()), nodeB(tb));
      }
      const int ta = t + deltaB;  // B's gutter at the B-local position of t
      if (ta >= 0 && ta < p_) {
        const Eigen::Vector2i g = sideGutter(sm.sideB, kB(t), p_);
        claim(texelOf(sm.faceB, g.x(), g.y()), nodeA(ta));
      }
    }
  }
  void resolveGutters() {
    for (int& src : a_.gutterSource)
      if (src == -2) src = -1;
  }
  // cube corners: one triangle through the 3 corner nodes (grouped by the corner's sign pattern)
  void cornerTriangles() {
    std::vector<int> corner[8];
    for (int f = 0; f < 6; ++f)
      for (int cj = 0; cj < 2; ++cj)
        for (int ci = 0; ci < 2; ++ci) {
          const Vec3i c = kFaces[f].n + (2 * ci - 1) * kFaces[f].u + (2 * cj - 1) * kFaces[f].v;
          const int key = (c.x() > 0) + 2 * (c.y() > 0) + 4 * (c.z() > 0);
          corner[key].push_back(nodeOf(f, ci * (p_ - 1), cj * (p_ - 1)));
        }
    for (auto& c : corner) addOriented(c[0], c[1], c[2]);
  }

 private:
  // outward orientation of a seam or corner triangle, from the node directions
  void addOriented(int x, int y, int z) {
    const Vec3& dx = a_.nodeDirection[x];
    const Vec3& dy = a_.nodeDirection[y];
    const Vec3& dz = a_.nodeDirection[z];
    if ((dy - dx).cross(dz - dx).dot(dx + dy + dz) >= 0) a_.triangles.push_back({x, y, z});
    else a_.triangles.push_back({x, z, y});
  }
  void claim(int texel, int node) {
    int& src = a_.gutterSource[texel];
    if (src == -1) src = node;
    else if (src != node) src = -2;  // conflict, resolved to -1 below
  }
  Atlas& a_;
  const int n_, p_, cell_;
};

// Builds the cube-map atlas with seam diagonals `diag[s]` = +1: (a(t), b(t+1)),
// -1: (a(t+1), b(t)). Gutter texels claimed by two different nodes get -1.
Atlas buildCube(int n, const std::vector<Seam>& seams, const std::vector<int>& diag) {
  Atlas a;
  a.layout = AtlasLayout::CubeMap;
  a.patchSize = cubeMapPatchSize(n);
  a.patchCount = 6;
  initTexels(a, n);
  CubeBuilder cube(a, n);
  cube.placeNodes();
  cube.interiorTriangles();
  for (size_t si = 0; si < seams.size(); ++si) cube.zipSeam(seams[si], diag[si]);
  cube.resolveGutters();
  cube.cornerTriangles();
  buildStencils(a);
  return a;
}

struct CubeSeamPlan {
  std::vector<Seam> seams;
  std::vector<int> diag;
};

// Picks the seam diagonals once: seams whose two sides read in opposite
// directions (sigmaA == -sigmaB) get diag = sigmaA (both gutters aligned); the
// others need one shifted gutter, and their choices are searched so that no
// corner gutter texel is claimed twice (checked on a small atlas, P = 4).
const CubeSeamPlan& cubeSeamPlan() {
  static CubeSeamPlan plan;
  static std::once_flag once;
  std::call_once(once, [] {
    plan.seams = findSeams();
    std::vector<int> free;
    plan.diag.assign(plan.seams.size(), 0);
    for (size_t i = 0; i < plan.seams.size(); ++i) {
      if (plan.seams[i].sigmaA == -plan.seams[i].sigmaB) plan.diag[i] = plan.seams[i].sigmaA;
      else free.push_back(static_cast<int>(i));
    }
    for (unsigned bits = 0; bits < (1u << free.size()); ++bits) {
      std::vector<int> diag = plan.diag;
      for (size_t k = 0; k < free.size(); ++k) diag[free[k]] = (bits >> k) & 1 ? 1 : -1;
      const Atlas small = buildCube(18, plan.seams, diag);
      if (countUnreachableEdges(small) == 0 && isClosedSurface(small.triangles)) {
        plan.diag = diag;
        return;
      }
    }
    throw std::logic_error("cube map: no seam diagonals give every node a complete stencil");
  });
  return plan;
}

}  // namespace

Atlas buildCubeMapAtlas(int resolution) {
  if (cubeMapPatchSize(resolution) < 3)
    throw std::invalid_argument("cube-map atlas needs a resolution >= 15, got " +
                                std::to_string(resolution));
  const CubeSeamPlan& plan = cubeSeamPlan();
  return buildCube(resolution, plan.seams, plan.diag);
}

Atlas buildTorusAtlas(int resolution) {
  const int m = resolution - 2;
  if (m < 3)
    throw std::invalid_argument("torus atlas needs a resolution >= 5, got " + std::to_string(resolution));
  Atlas a;
  a.layout = AtlasLayout::Torus;
  a.patchSize = m;
  a.patchCount = 1;
  initTexels(a, resolution);
  auto nodeOf = [&](int i, int j) { return ((j + m) % m) * m + (i + m) % m; };
  a.nodeTexel.resize(static_cast<size_t>(m) * m);
  a.nodeParam.resize(static_cast<size_t>(m) * m);
  for (int y = 0; y < resolution; ++y)
    for (int x = 0; x < resolution; ++x) {
      const int t = y * resolution + x, i = x - 1, j = y - 1;
      a.texelPatch[t] = 0;
      if (i >= 0 && i < m && j >= 0 && j < m) {
        const int id = nodeOf(i, j);
        a.texelKind[t] = TexelKind::Node;
        a.texelNode[t] = id;
        a.nodeTexel[id] = t;
        a.nodeParam[id] = Vec2((i + 0.5) / m, (j + 0.5) / m);
      } else {
        // wrap-around gutter (the 4 corners too)
        a.texelKind[t] = TexelKind::Gutter;
        a.gutterSource[t] = nodeOf(i, j);
      }
    }
  // d/du x d/dv points outward, so (i,j) (i+1,j) (i,j+1) is counter-clockwise from outside
  a.triangles.reserve(2 * static_cast<size_t>(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      const int n00 = nodeOf(i, j), n10 = nodeOf(i + 1, j);
      const int n01 = nodeOf(i, j + 1), n11 = nodeOf(i + 1, j + 1);
      a.triangles.push_back({n00, n10, n01});
      a.triangles.push_back({n10, n11, n01});
    }
  buildStencils(a);
  return a;
}

void fillGutter(const Atlas& atlas, float* texels, int channels) {
  fillGutterT(atlas, texels, channels);
}
void fillGutter(const Atlas& atlas, double* texels, int channels) {
  fillGutterT(atlas, texels, channels);
}

int countUnreachableEdges(const Atlas& atlas) {
  auto sees = [&](int x, int y) {
    const Stencil& st = atlas.stencil[x];
    return std::find(st.begin() + 1, st.end(), y) != st.end();
  };
  int missing = 0;
  for (const Vec3i& tri : atlas.triangles)
    for (int e = 0; e < 3; ++e) {
      const int x = tri[e], y = tri[(e + 1) % 3];
      missing += !sees(x, y);
      missing += !sees(y, x);
    }
  return missing;
}

bool isClosedSurface(const std::vector<Vec3i>& triangles) {
  // every directed edge once, and its reverse present
  std::vector<uint64_t> edges;
  edges.reserve(3 * triangles.size());
  for (const Vec3i& tri : triangles)
    for (int e = 0; e < 3; ++e) {
      const uint64_t x = static_cast<uint32_t>(tri[e]), y = static_cast<uint32_t>(tri[(e + 1) % 3]);
      if (x == y) return false;
      edges.push_back(x << 32 | y);
    }
  std::sort(edges.begin(), edges.end());
  if (std::adjacent_find(edges.begin(), edges.end()) != edges.end()) return false;
  for (uint64_t e : edges) {
    const uint64_t rev = (e << 32) | (e >> 32);
    if (!std::binary_search(edges.begin(), edges.end(), rev)) return false;
  }
  return true;
}

}  // namespace d2t
