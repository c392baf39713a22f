// A character's inner surface (inner_surface.h).
#include "sim/character/inner_surface.h"

#include <algorithm>
#include <cmath>

#include "sim/model/layer_elements.h"
#include "sim/scene/voxel_grid.h"

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
  const VoxelGrid g = voxelizeClosed(x, triangles, h);
  std::vector<InteriorPiece> pieces;
  const double v = h * h * h;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        if (!g.inside[g.index(i, j, k)]) continue;
        const Vec3 c = g.centre(i, j, k);
        InteriorPiece p;
        p.volume = v;
        p.firstMoment = v * c;
        p.secondMoment = v * (c * c.transpose() + (h * h / 12) * Mat3::Identity());
        pieces.push_back(p);
      }
  return pieces;
}

}  // namespace d2t
