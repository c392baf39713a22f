#pragma once
// Small analytic shapes and bodies shared by the tests.
#include "sim/scene/scene.h"
#include "sim/scene/shape.h"

#include <cmath>

namespace d2t::test {

/// An ellipsoid with semi-axes (a, b, c): three distinct moments of inertia, or a
/// core that pokes through a sphere. Mesh-less (the bake needs only radius()).
class Ellipsoid final : public Shape {
 public:
  explicit Ellipsoid(const Vec3& axes) : axes_(axes) {}
  std::string type() const override { return "ellipsoid"; }
  ShapeTopology topology() const override { return ShapeTopology::Star; }
  double radius(const Vec3& d) const override { return 1.0 / d.cwiseQuotient(axes_).norm(); }
  double signedDistance(const Vec3& p) const override { return p.norm() - radius(p.normalized()); }
  TriMesh mesh(int) const override { return {}; }
  double boundingRadius() const override { return axes_.maxCoeff(); }

 private:
  Vec3 axes_;
};

/// A plain torus around Y: centre circle of radius R, tube of radius r
class Torus final : public Shape {
 public:
  Torus(double major, double minor) : R_(major), r_(minor) {}
  std::string type() const override { return "torus"; }
  ShapeTopology topology() const override { return ShapeTopology::Torus; }
  // psi = 2 pi u around Y, theta = 2 pi v around the tube; dP/du x dP/dv points out
  Vec3 surfacePoint(double u, double v) const override {
    const double psi = 2 * kPi * u, theta = 2 * kPi * v;
    const double w = R_ + r_ * std::cos(theta);
    return Vec3(w * std::cos(psi), -r_ * std::sin(theta), w * std::sin(psi));
  }
  Vec3 coreAnchor(const Vec3& p) const override {
    const double h = std::hypot(p.x(), p.z());
    return Vec3(R_ * p.x() / h, 0, R_ * p.z() / h);
  }
  double signedDistance(const Vec3& p) const override {
    return std::hypot(std::hypot(p.x(), p.z()) - R_, p.y()) - r_;
  }
  TriMesh mesh(int) const override { return {}; }
  double boundingRadius() const override { return R_ + r_; }

 private:
  double R_, r_;
};

/// Octahedron |x| + |y| + |z| = r (vertices on the axes), outward.
inline TriMesh octahedron(double r) {
  TriMesh m;
  m.positions = {Vec3(r, 0, 0), Vec3(-r, 0, 0), Vec3(0, r, 0),
                 Vec3(0, -r, 0), Vec3(0, 0, r), Vec3(0, 0, -r)};
  m.triangles = {Vec3i(0, 2, 4), Vec3i(2, 1, 4), Vec3i(1, 3, 4), Vec3i(3, 0, 4),
                 Vec3i(2, 0, 5), Vec3i(1, 2, 5), Vec3i(3, 1, 5), Vec3i(0, 3, 5)};
  return m;
}

/// A ball of radius r as a layered body (default core, damping, friction).
inline BodyDesc ball(double r, int resolution, double young, double density = 1000,
                     double poisson = 0.3) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(r);
  d.atlasResolution = resolution;
  d.material.young = young;
  d.material.density = density;
  d.material.poisson = poisson;
  return d;
}

/// The half x > 0 of a body, `factor` times stiffer than `base`.
inline MaterialRegion stiffHalf(const Material& base, double factor) {
  MaterialRegion r;
  r.normal = Vec3::UnitX();
  r.offset = 0;
  r.young = factor * base.young;
  r.poisson = base.poisson;
  r.density = base.density;
  return r;
}

/// A ball (r 0.5 m) with a half 10 times stiffer than the other (2 MPa against 200 kPa):
/// issue 32's stiff heterogeneous body, where single-level CG needs many iterations.
inline BodyDesc stiffHeterogeneousBall(int resolution) {
  BodyDesc d = ball(0.5, resolution, 2e5);
  d.regions.push_back(stiffHalf(d.material, 10));
  return d;
}

}  // namespace d2t::test
