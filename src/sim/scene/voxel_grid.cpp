// The solid inside a closed mesh as a grid of cubes (voxel_grid.h).
#include "sim/scene/voxel_grid.h"

#include <algorithm>
#include <cmath>

namespace d2t {

VoxelGrid voxelizeClosed(const std::vector<Vec3>& x, const std::vector<Vec3i>& triangles, double h) {
  VoxelGrid g;
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (const Vec3& p : x) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  if (x.empty() || !(h > 0)) return g;
  g.lo = lo;
  g.h = h;
  g.nx = int(std::ceil((hi.x() - lo.x()) / h));
  g.ny = int(std::ceil((hi.y() - lo.y()) / h));
  g.nz = int(std::ceil((hi.z() - lo.z()) / h));
  const int nx = g.nx, ny = g.ny, nz = g.nz;
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
  g.inside.assign(size_t(nx) * size_t(ny) * size_t(nz), 0);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j) {
      std::vector<double>& xs = cross[size_t(k) * size_t(ny) + size_t(j)];
      std::sort(xs.begin(), xs.end());
      for (size_t e = 0; e + 1 < xs.size(); e += 2)
        for (int i = std::max(0, int(std::ceil((xs[e] - lo.x()) / h - 0.5))); i < nx; ++i) {
          if (g.centre(i, j, k).x() > xs[e + 1]) break;
          g.inside[g.index(i, j, k)] = 1;
        }
    }
  return g;
}

}  // namespace d2t
