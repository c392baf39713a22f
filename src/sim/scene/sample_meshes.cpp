#include "sim/scene/sample_meshes.h"

#include <algorithm>
#include <cmath>

#include "sim/scene/surface_nets.h"

namespace d2t {

namespace {

// Appends the quad (a, b, c, d), counter-clockwise seen from its front, as `cells` x 1
// strips of two triangles along a -> b.
void addQuad(TriMesh* m, const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d, int cells) {
  const int base = int(m->positions.size());
  for (int i = 0; i <= cells; ++i) {
    const double s = double(i) / cells;
    m->positions.push_back(a + s * (b - a));
    m->positions.push_back(d + s * (c - d));
  }
  for (int i = 0; i < cells; ++i) {
    const int p = base + 2 * i;  // (a side, d side) at i, then at i + 1
    m->triangles.emplace_back(p, p + 3, p + 2);
    m->triangles.emplace_back(p, p + 1, p + 3);
  }
}

}  // namespace

TriMesh hemisphereBowl(double radius, int segments) {
  TriMesh m;
  const int rings = std::max(2, segments / 4);
  m.positions.emplace_back(0, -radius, 0);  // the pole
  for (int r = 1; r <= rings; ++r) {
    const double polar = 0.5 * kPi * r / rings;  // from the pole to the rim
    for (int k = 0; k < segments; ++k) {
      const double az = 2 * kPi * k / segments;
      m.positions.emplace_back(radius * std::sin(polar) * std::cos(az), -radius * std::cos(polar),
                               radius * std::sin(polar) * std::sin(az));
    }
  }
  auto at = [&](int r, int k) { return 1 + (r - 1) * segments + (k % segments); };
  // wound to face the inside (the bowl's use), seen from above
  for (int k = 0; k < segments; ++k) m.triangles.emplace_back(0, at(1, k + 1), at(1, k));
  for (int r = 1; r < rings; ++r)
    for (int k = 0; k < segments; ++k) {
      m.triangles.emplace_back(at(r, k), at(r, k + 1), at(r + 1, k + 1));
      m.triangles.emplace_back(at(r, k), at(r + 1, k + 1), at(r + 1, k));
    }
  return m;
}

TriMesh staircase(int steps, double rise, double run, double width) {
  TriMesh m;
  const double z0 = -0.5 * width, z1 = 0.5 * width;
  const int cells = std::max(1, int(std::lround(width / run)));
  auto tread = [&](double x0, double x1, double y) {  // facing up
    addQuad(&m, Vec3(x0, y, z1), Vec3(x0, y, z0), Vec3(x1, y, z0), Vec3(x1, y, z1), cells);
  };
  double y = steps * rise;
  tread(-run, 0, y);
  for (int i = 0; i < steps; ++i) {
    const double x = i * run;
    // the riser, facing +x
    addQuad(&m, Vec3(x, y, z1), Vec3(x, y, z0), Vec3(x, y - rise, z0), Vec3(x, y - rise, z1), cells);
    y -= rise;
    tread(x, x + run, y);
  }
  m.weld(1e-9 * (steps + 1) * (rise + run));
  return m;
}

TriMesh squareSheet(double size, int cells) {
  TriMesh m;
  const double h = 0.5 * size;
  for (int i = 0; i < cells; ++i) {
    const double x0 = -h + size * i / cells, x1 = -h + size * (i + 1) / cells;
    addQuad(&m, Vec3(x0, 0, h), Vec3(x0, 0, -h), Vec3(x1, 0, -h), Vec3(x1, 0, h), cells);
  }
  m.weld(1e-9 * size);
  return m;
}

TriMesh bentCapsule(double bend, double angle, double radius, double tip, int nodes) {
  // the arc: a(phi) = bend (sin phi, -cos phi, 0) for |phi| <= angle / 2; the tube's radius
  // falls from `radius` at phi = 0 to tip * radius at the ends, as cos of the arc's fraction
  const double half = 0.5 * angle;
  const auto r = [&](double phi) { return radius * (tip + (1 - tip) * std::cos(0.5 * kPi * phi / half)); };
  ImplicitShape s;
  s.distance = [&](const Vec3& x) {
    const double phi = std::clamp(std::atan2(x.x(), -x.y()), -half, half);
    return (x - bend * Vec3(std::sin(phi), -std::cos(phi), 0)).norm() - r(phi);
  };
  const double wide = bend * std::sin(std::min(half, 0.5 * kPi)) + radius;
  s.lo = Vec3(-wide, -bend - radius, -radius);
  s.hi = Vec3(wide, -bend * std::cos(half) + radius, radius);
  return surfaceNetsWithNodes(s, nodes);
}

}  // namespace d2t
