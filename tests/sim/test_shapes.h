#pragma once
// Small analytic shapes for tests.
#include "sim/scene.h"
#include "sim/shape.h"

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

}  // namespace d2t::test
