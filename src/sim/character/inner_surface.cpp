// A character's inner surface (inner_surface.h).
#include "sim/character/inner_surface.h"

#include <algorithm>
#include <cmath>

#include "sim/model/layer_elements.h"

namespace d2t {

double meanEdgeLength(const std::vector<Vec3>& x, const std::vector<Vec3i>& triangles) {
  double edge = 0;
  for (const Vec3i& t : triangles) edge += (x[size_t(t[0])] - x[size_t(t[1])]).norm();
  return edge / double(std::max<size_t>(1, triangles.size()));
}

std::vector<Vec3> innerAlongNormals(const std::vector<Vec3>& skin, const std::vector<Vec3i>& triangles,
                                    std::vector<double> thickness) {
  const int n = int(skin.size());
  const double edge = meanEdgeLength(skin, triangles);
  // (the mesh's own vertex normals, area-weighted: an implicit's gradient turns fast in
  // creases, where a vertex's gradient can lean away from its triangles)
  const std::vector<Vec3> normal = vertexNormals(skin, triangles);
  std::vector<Vec3> inner(static_cast<size_t>(n));
  for (int round = 0;; ++round) {
    for (int p = 0; p < n; ++p) inner[size_t(p)] = skin[size_t(p)] - thickness[size_t(p)] * normal[size_t(p)];
    std::vector<int> bad;
    for (const Vec3i& t : triangles)
      for (const Tet& e : layerPrismTets(t, n)) {
        const auto pos = [&](int id) { return id < n ? skin[size_t(id)] : inner[size_t(id - n)]; };
        if (!(tetSignedVolume(pos(e[0]), pos(e[1]), pos(e[2]), pos(e[3])) > 1e-6 * edge * edge * edge)) {
          bad.insert(bad.end(), {t[0], t[1], t[2]});
          break;
        }
      }
    if (bad.empty() || round == 20) break;  // (the bake names what is left)
    for (int p : bad) thickness[size_t(p)] *= 0.7;
    // (and no steeper than a slope of 1/2 around them, or their neighbours' prisms turn over)
    for (bool changed = true; changed;) {
      changed = false;
      for (const Vec3i& t : triangles)
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c) {
            const size_t i = size_t(t[a]), j = size_t(t[c]);
            const double cap = thickness[j] + 0.5 * (skin[i] - skin[j]).norm();
            if (thickness[i] > cap * (1 + 1e-12)) {
              thickness[i] = cap;
              changed = true;
            }
          }
    }
  }
  return inner;
}

std::vector<InteriorPiece> voxelInterior(const std::vector<Vec3>& x, const std::vector<Vec3i>& triangles, double h) {
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (const Vec3& p : x) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const int nx = int(std::ceil((hi.x() - lo.x()) / h)), ny = int(std::ceil((hi.y() - lo.y()) / h)),
            nz = int(std::ceil((hi.z() - lo.z()) / h));
  // the rays along x through the cells' centres (nudged off the mesh's edges and vertices)
  const auto rayY = [&](int j) { return lo.y() + (j + 0.5) * h + 1.2345e-7 * h; };
  const auto rayZ = [&](int k) { return lo.z() + (k + 0.5) * h + 2.7183e-7 * h; };
  std::vector<std::vector<double>> cross(size_t(ny) * size_t(nz));
  for (const Vec3i& t : triangles) {
    const Vec3 &a = x[size_t(t[0])], &b = x[size_t(t[1])], &c = x[size_t(t[2])];
    const int j0 = std::max(0, int(std::floor((std::min({a.y(), b.y(), c.y()}) - lo.y()) / h - 0.5)));
    const int j1 = std::min(ny - 1, int(std::ceil((std::max({a.y(), b.y(), c.y()}) - lo.y()) / h - 0.5)));
    const int k0 = std::max(0, int(std::floor((std::min({a.z(), b.z(), c.z()}) - lo.z()) / h - 0.5)));
    const int k1 = std::min(nz - 1, int(std::ceil((std::max({a.z(), b.z(), c.z()}) - lo.z()) / h - 0.5)));
    const double det = (b.y() - a.y()) * (c.z() - a.z()) - (c.y() - a.y()) * (b.z() - a.z());
    if (det == 0) continue;  // (seen edge-on by the rays)
    for (int k = k0; k <= k1; ++k)
      for (int j = j0; j <= j1; ++j) {
        const double py = rayY(j) - a.y(), pz = rayZ(k) - a.z();
        const double s = (py * (c.z() - a.z()) - (c.y() - a.y()) * pz) / det;
        const double r = ((b.y() - a.y()) * pz - py * (b.z() - a.z())) / det;
        if (s < 0 || r < 0 || s + r > 1) continue;
        cross[size_t(k) * size_t(ny) + size_t(j)].push_back(a.x() + s * (b.x() - a.x()) + r * (c.x() - a.x()));
      }
  }
  std::vector<InteriorPiece> pieces;
  const double v = h * h * h;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j) {
      std::vector<double>& xs = cross[size_t(k) * size_t(ny) + size_t(j)];
      std::sort(xs.begin(), xs.end());
      for (size_t e = 0; e + 1 < xs.size(); e += 2)
        for (int i = std::max(0, int(std::ceil((xs[e] - lo.x()) / h - 0.5))); i < nx; ++i) {
          const Vec3 c(lo.x() + (i + 0.5) * h, lo.y() + (j + 0.5) * h, lo.z() + (k + 0.5) * h);
          if (c.x() > xs[e + 1]) break;
          InteriorPiece p;
          p.volume = v;
          p.firstMoment = v * c;
          p.secondMoment = v * (c * c.transpose() + (h * h / 12) * Mat3::Identity());
          pieces.push_back(p);
        }
    }
  return pieces;
}

}  // namespace d2t
