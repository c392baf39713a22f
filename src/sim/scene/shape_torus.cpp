// Torus / tire, axis Y: a tube of radius rho(psi, theta) around the centre
// circle of radius R in the XZ plane. psi = 2 pi u is the azimuth around Y,
// theta = 2 pi v the angle around the tube (theta = 0 on the outer equator).
#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/scene/shape_impl.h"

namespace d2t {

namespace {

class Torus final : public Shape {
 public:
  Torus(double major, double minor, double treadDepth, int treads)
      : R_(major), r_(minor), treadDepth_(treadDepth), treads_(treads) {}

  std::string type() const override { return "torus"; }
  ShapeTopology topology() const override { return ShapeTopology::Torus; }
  double boundingRadius() const override { return R_ + r_; }

  // P(u, v) = ((R + rho cos theta) cos psi, -rho sin theta, (R + rho cos theta) sin psi):
  // at psi = theta = 0, dP/du ~ +z and dP/dv ~ -y, and (+z) x (-y) = +x points out.
  Vec3 surfacePoint(double u, double v) const override {
    const double psi = 2 * kPi * u, theta = 2 * kPi * v;
    const double rho = tube(psi, theta);
    const double w = R_ + rho * std::cos(theta);
    return Vec3(w * std::cos(psi), -rho * std::sin(theta), w * std::sin(psi));
  }

  Vec3 coreAnchor(const Vec3& p) const override {
    const double h = std::hypot(p.x(), p.z());
    if (h < 1e-12 * R_) return Vec3(R_, 0, 0);  // on the axis every circle point is nearest
    return Vec3(R_ * p.x() / h, 0, R_ * p.z() / h);
  }

  double signedDistance(const Vec3& p) const override {
    // (qx, qy): p in the tube's cross-section, relative to the centre circle
    const double psi = std::atan2(p.z(), p.x());
    const double qx = std::hypot(p.x(), p.z()) - R_, qy = p.y();
    const double theta = std::atan2(-qy, qx);
    const double rho = tube(psi, theta);
    const double gap = std::hypot(qx, qy) - rho;  // exact for a plain torus
    if (treadDepth_ == 0 || treads_ == 0) return gap;
    // treads: divide the radial gap by the slope of the surface (first-order
    // distance), with the slope of rho along theta and along psi by differences
    constexpr double h = 1e-5;
    const double dTheta = (tube(psi, theta + h) - tube(psi, theta - h)) / (2 * h) / rho;
    const double dPsi = (tube(psi + h, theta) - tube(psi - h, theta)) / (2 * h) /
                        (R_ + rho * std::cos(theta));
    return gap / std::sqrt(1 + dTheta * dTheta + dPsi * dPsi);
  }

  TriMesh mesh(int resolution) const override {
    const int nv = std::max(8, resolution);
    const int nu = std::max({8, static_cast<int>(std::lround(nv * (R_ + r_) / r_)), 8 * treads_});
    return torusMesh(*this, nu, nv);
  }

 private:
  /// Tube radius [m]: the treads are grooves across the running surface, a
  /// smooth square wave in psi, weighted by max(0, cos theta)^2 so that they
  /// fade out toward the inner side of the tire.
  double tube(double psi, double theta) const {
    if (treads_ == 0 || treadDepth_ == 0) return r_;
    const double c = std::cos(theta);
    if (c <= 0) return r_;
    constexpr double k = 2.5;
    const double groove = 0.5 - 0.5 * std::tanh(k * std::cos(treads_ * psi)) / std::tanh(k);
    return r_ - treadDepth_ * groove * c * c;
  }

  double R_;           ///< major radius: centre circle [m]
  double r_;           ///< minor radius: tube [m]
  double treadDepth_;  ///< depth of the tread grooves [m]
  int treads_;         ///< number of grooves around the tire
};

}  // namespace

ShapePtr parseTorus(JsonReader& r) {
  const double major = r.number("major_radius", 0.4, 0, 1e300, true);
  const double minor = r.number("minor_radius", std::min(0.15, 0.375 * major), 0, major, true, true);
  const double depth = r.number("tread_depth", 0, 0, 0.5 * minor, false, true);
  const int treads = r.integer("treads", 0, 0, 512);
  return std::make_shared<Torus>(major, minor, depth, treads);
}

}  // namespace d2t
