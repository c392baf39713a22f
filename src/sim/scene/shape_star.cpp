// Procedural star-shaped surfaces: sphere, ellipsoid (with bumps), pumpkin, gear, cylinder,
// box, head.
// Each is given by its radial function radius(d) (distance from the origin to
// the surface along the unit direction d), which the cube-map atlas samples.
#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/scene/shape_impl.h"

namespace d2t {

constexpr double kInf = 1e300;

// ---- shared helpers ----------------------------------------------------------

void tangentBasis(const Vec3& d, Vec3* t1, Vec3* t2) {
  const Vec3 a = std::abs(d.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  *t1 = (a - d * d.dot(a)).normalized();
  *t2 = d.cross(*t1);
}

double bracketedRoot(const std::function<double(double)>& f, double lo, double hi, double tol) {
  double flo = f(lo), fhi = f(hi);
  if (fhi <= 0) return hi;
  if (flo >= 0) return lo;
  int side = 0;  // which end moved last (Illinois: halve the stale end's value)
  for (int iter = 0; iter < 200 && hi - lo > tol; ++iter) {
    double t = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    const double ft = f(t);
    if (std::abs(ft) < 0.01 * tol) return t;
    if (ft > 0) {
      hi = t;
      fhi = ft;
      if (side == +1) flo *= 0.5;
      side = +1;
    } else {
      lo = t;
      flo = ft;
      if (side == -1) fhi *= 0.5;
      side = -1;
    }
  }
  return 0.5 * (lo + hi);
}

double roundedRectRay(double s, double c, double a, double b, double bevel) {
  const double ai = a - bevel, bi = b - bevel;  // the flat parts of the sides
  if (s > 0) {  // hits the side rho = a below the corner?
    const double t = a / s;
    if (t * c <= bi) return t;
  }
  if (c > 0) {  // hits the cap y = b inside the corner?
    const double t = b / c;
    if (t * s <= ai) return t;
  }
  // the corner arc: |t (s, c) - (ai, bi)| = bevel, far root (the origin is inside)
  const double proj = s * ai + c * bi;
  const double disc = proj * proj - (ai * ai + bi * bi - bevel * bevel);
  return proj + std::sqrt(std::max(0.0, disc));
}

double roundedRectDistance(double rho, double y, double a, double b, double bevel) {
  const double wx = std::abs(rho) - (a - bevel), wy = std::abs(y) - (b - bevel);
  const double outside = std::hypot(std::max(wx, 0.0), std::max(wy, 0.0));
  const double inside = std::min(std::max(wx, wy), 0.0);
  return outside + inside - bevel;
}

double StarShape::signedDistance(const Vec3& p) const {
  const double rp = p.norm();
  if (rp < 1e-12 * boundingRadius()) return -radius(Vec3::UnitY());
  const Vec3 d = p / rp;
  const double r = radius(d);
  // tangential gradient of r by central differences over a small angle
  constexpr double delta = 1e-4;
  Vec3 t1, t2;
  tangentBasis(d, &t1, &t2);
  const double c = std::cos(delta), s = std::sin(delta);
  const double g1 = (radius(c * d + s * t1) - radius(c * d - s * t1)) / (2 * delta);
  const double g2 = (radius(c * d + s * t2) - radius(c * d - s * t2)) / (2 * delta);
  return (rp - r) / std::sqrt(1.0 + (g1 * g1 + g2 * g2) / (r * r));
}

TriMesh StarShape::mesh(int resolution) const {
  // a cube face spans a quarter of a great circle: resolution / 2 quads per
  // face give about `resolution` segments across the shape
  return starMesh(*this, std::max(2, resolution / 2));
}

namespace {

// ---- sphere ------------------------------------------------------------------

class Sphere final : public StarShape {
 public:
  explicit Sphere(double r) : r_(r) {}
  std::string type() const override { return "sphere"; }
  double radius(const Vec3&) const override { return r_; }
  double signedDistance(const Vec3& p) const override { return p.norm() - r_; }
  double boundingRadius() const override { return r_; }

 private:
  double r_;  ///< [m]
};

// ---- pumpkin -----------------------------------------------------------------

/// An oblate spheroid (equatorial semi-axis a, vertical semi-axis c) with
/// vertical ribs and a dimple at each pole.
class Pumpkin final : public StarShape {
 public:
  Pumpkin(double a, double c, int ribs, double ribDepth)
      : a_(a), c_(c), ribs_(ribs), ribDepth_(ribDepth) {}
  std::string type() const override { return "pumpkin"; }
  double boundingRadius() const override { return std::max(a_, c_); }

  double radius(const Vec3& d) const override {
    // spheroid: (s r / a)^2 + (y r / c)^2 = 1 with s = |d_xz|
    const double s2 = d.x() * d.x() + d.z() * d.z();
    const double rs = 1.0 / std::sqrt(s2 / (a_ * a_) + d.y() * d.y() / (c_ * c_));
    // ribs: |cos(ribs phi / 2)| is 1 at rib centres and 0 in the grooves; the
    // softened absolute value sqrt(x^2 + e^2) keeps a narrow rounded groove.
    // The modulation fades with s^2 toward the poles, where phi is undefined.
    double rib = 1.0;
    if (ribs_ > 0 && s2 > 0) {
      constexpr double e = 0.1;
      const double cr = std::cos(0.5 * ribs_ * std::atan2(d.z(), d.x()));
      const double bulge = (std::sqrt(cr * cr + e * e) - e) / (std::sqrt(1 + e * e) - e);
      rib = 1.0 - ribDepth_ * (1.0 - bulge) * s2;
    }
    // dimples: a Gaussian dent in the angle from the nearest pole
    constexpr double dimpleDepth = 0.15, dimpleWidth = 0.3;  // [-], [rad]
    const double ang = std::acos(std::min(1.0, std::abs(d.y())));
    const double dimple = 1.0 - dimpleDepth * std::exp(-(ang * ang) / (dimpleWidth * dimpleWidth));
    return rs * rib * dimple;
  }

 private:
  double a_;         ///< equatorial semi-axis [m]
  double c_;         ///< vertical semi-axis [m]
  int ribs_;         ///< number of ribs around Y
  double ribDepth_;  ///< groove depth as a fraction of the radius [-]
};

// ---- gear --------------------------------------------------------------------

/// A toothed disc, axis Y: in every half-plane of constant azimuth phi the
/// profile is a rounded rectangle of half-width R(phi) (teeth) and half-height
/// thickness / 2, so radius(d) is continuous and the disc is star-shaped.
class Gear final : public StarShape {
 public:
  Gear(double r, double thickness, int teeth, double toothDepth, double bevel)
      : r_(r), halfThickness_(0.5 * thickness), teeth_(teeth), toothDepth_(toothDepth),
        bevel_(bevel) {}
  std::string type() const override { return "gear"; }
  double boundingRadius() const override { return std::hypot(r_, halfThickness_); }

  double radius(const Vec3& d) const override {
    const double s = std::hypot(d.x(), d.z());
    return roundedRectRay(s, std::abs(d.y()), outline(std::atan2(d.z(), d.x())), halfThickness_,
                          bevel_);
  }

 private:
  /// Tip radius minus the tooth gap: a smooth square wave 0.5 + 0.5 tanh(k cos(n phi)) / tanh(k).
  double outline(double phi) const {
    constexpr double k = 2.5;
    const double tooth = 0.5 + 0.5 * std::tanh(k * std::cos(teeth_ * phi)) / std::tanh(k);
    return r_ - toothDepth_ * (1.0 - tooth);
  }

  double r_;              ///< tip radius [m]
  double halfThickness_;  ///< [m]
  int teeth_;
  double toothDepth_;     ///< [m]
  double bevel_;          ///< edge rounding radius [m]
};

// ---- cylinder ----------------------------------------------------------------

/// A cylinder along Y with rounded rims; exact signed distance.
class Cylinder final : public StarShape {
 public:
  Cylinder(double r, double height, double bevel) : r_(r), halfHeight_(0.5 * height), bevel_(bevel) {}
  std::string type() const override { return "cylinder"; }
  double boundingRadius() const override { return std::hypot(r_, halfHeight_); }
  double radius(const Vec3& d) const override {
    return roundedRectRay(std::hypot(d.x(), d.z()), std::abs(d.y()), r_, halfHeight_, bevel_);
  }
  double signedDistance(const Vec3& p) const override {
    return roundedRectDistance(std::hypot(p.x(), p.z()), p.y(), r_, halfHeight_, bevel_);
  }

 private:
  double r_, halfHeight_, bevel_;  ///< [m]
};

// ---- box ---------------------------------------------------------------------

/// A box with rounded edges and corners; exact signed distance.
class Box final : public StarShape {
 public:
  Box(const Vec3& size, double bevel) : half_(0.5 * size), bevel_(bevel) {}
  std::string type() const override { return "box"; }
  double boundingRadius() const override { return half_.norm(); }

  double signedDistance(const Vec3& p) const override {
    const Vec3 q = p.cwiseAbs() - (half_ - Vec3::Constant(bevel_));
    return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0) - bevel_;
  }

  double radius(const Vec3& d) const override {
    // the ray leaves the sharp box at t = min_k h_k / |d_k|; that is exact when
    // the exit point lies on the flat part of a face
    double t = kInf;
    for (int k = 0; k < 3; ++k)
      if (d[k] != 0) t = std::min(t, half_[k] / std::abs(d[k]));
    const Vec3 inner = half_ - Vec3::Constant(bevel_);
    int outsideFlat = 0;
    for (int k = 0; k < 3; ++k)
      if (t * std::abs(d[k]) > inner[k]) ++outsideFlat;
    if (outsideFlat <= 1 || bevel_ == 0) return t;
    // otherwise the exit is on a rounded edge or corner, inside the sharp box:
    // the distance along the ray is convex with one root in [0, t]
    return bracketedRoot([&](double s) { return signedDistance(s * d); }, 0.0, t,
                         1e-13 * half_.norm());
  }

 private:
  Vec3 half_;     ///< half extents [m]
  double bevel_;  ///< [m]
};

}  // namespace

// ---- factories and parsers ---------------------------------------------------

ShapePtr makeSphere(double radius) { return std::make_shared<Sphere>(radius); }

ShapePtr parseSphere(JsonReader& r) {
  return makeSphere(r.number("radius", 0.5, 0, kInf, true));
}

// A stylised head, face towards +Z, top towards +Y: an ovoid skull narrowing to
// the jaw, with nose, brow, cheeks and chin as smooth bumps, eye sockets as
// dents and ears at the sides. Every feature is a Gaussian in the angle from
// its direction, so the radius stays a smooth positive function of the
// direction (star-shaped about the centre) at any size.
class Head final : public StarShape {
 public:
  explicit Head(double size) : size_(size) {}
  std::string type() const override { return "head"; }
  double boundingRadius() const override { return 1.25 * size_; }

  double radius(const Vec3& d) const override {
    // ovoid: half-width 0.78, half-height 1.0, half-depth 0.9 (of size); the jaw
    // narrows below the ears
    const double jaw = 1.0 - 0.18 * std::max(0.0, -d.y());
    const double ax = 0.78 * jaw, ay = 1.0, az = 0.9 * (1.0 - 0.08 * std::max(0.0, -d.y()));
    const double base = 1.0 / std::sqrt(sq(d.x() / ax) + sq(d.y() / ay) + sq(d.z() / az));
    struct Feature {
      Vec3 dir;
      double height, width;  // relative radius change, angular width [rad]
    };
    static const Feature features[] = {
        {Vec3(0, -0.12, 1), 0.16, 0.16},      // nose
        {Vec3(0, 0.33, 1), 0.05, 0.35},       // brow
        {Vec3(0.36, 0.16, 0.92), -0.07, 0.14},  // eye sockets
        {Vec3(-0.36, 0.16, 0.92), -0.07, 0.14},
        {Vec3(0.55, -0.2, 0.8), 0.04, 0.3},   // cheeks
        {Vec3(-0.55, -0.2, 0.8), 0.04, 0.3},
        {Vec3(0, -0.75, 0.66), 0.07, 0.25},   // chin
        {Vec3(1, 0.05, -0.05), 0.12, 0.16},   // ears
        {Vec3(-1, 0.05, -0.05), 0.12, 0.16},
    };
    double shape = 1.0;
    for (const Feature& f : features) {
      const double ang = std::acos(std::clamp(d.dot(f.dir.normalized()), -1.0, 1.0));
      shape += f.height * std::exp(-sq(ang / f.width));
    }
    return size_ * base * shape;
  }

 private:
  static double sq(double x) { return x * x; }
  double size_;  ///< half-height of the skull [m]
};

// ---- ellipsoid with bumps -------------------------------------------------------

/// An ellipsoid (semi-axes a) times 1 + sum_k h_k exp(-(angle(d, d_k) / w_k)^2): bumps
/// (h > 0: ears, fins, a tail) and dents (h < 0) on a radial function, so star-shaped
/// whatever the bumps.
class Ellipsoid final : public StarShape {
 public:
  struct Bump {
    Vec3 direction;  ///< unit
    double height;   ///< relative radius change at its centre (> -0.9)
    double width;    ///< angular width [rad]
  };
  Ellipsoid(const Vec3& radii, std::vector<Bump> bumps) : radii_(radii), bumps_(std::move(bumps)) {}
  std::string type() const override { return "ellipsoid"; }
  double boundingRadius() const override {
    double grow = 1;
    for (const Bump& b : bumps_) grow += std::max(0.0, b.height);
    return radii_.maxCoeff() * grow;
  }
  double radius(const Vec3& d) const override {
    const double base = 1.0 / d.cwiseQuotient(radii_).norm();
    double shape = 1.0;
    for (const Bump& b : bumps_) {
      const double ang = std::acos(std::clamp(d.dot(b.direction), -1.0, 1.0));
      shape += b.height * std::exp(-(ang / b.width) * (ang / b.width));
    }
    return base * std::max(0.1, shape);
  }

 private:
  Vec3 radii_;
  std::vector<Bump> bumps_;
};

ShapePtr parseEllipsoid(JsonReader& r) {
  const Vec3 radii = r.vec3("radii", Vec3(0.5, 0.5, 0.5));
  if (radii.minCoeff() <= 0 || !radii.allFinite())
    r.fail("radii", "expected three semi-axes > 0 [m], got [" + std::to_string(radii.x()) + ", " +
                        std::to_string(radii.y()) + ", " + std::to_string(radii.z()) + "]");
  std::vector<Ellipsoid::Bump> bumps;
  for (JsonReader& b : r.objectArray("bumps", false)) {
    const Vec3 dir = b.vec3("direction", Vec3::UnitY());
    if (!(dir.norm() > 1e-9)) b.fail("direction", "expected a direction other than zero");
    const double height = b.number("height", 0.3, -0.9, 10, true);
    const double width = b.number("width", 0.3, 0, M_PI, true);
    b.finish();
    bumps.push_back({dir.normalized(), height, width});
  }
  return std::make_shared<Ellipsoid>(radii, std::move(bumps));
}

ShapePtr parseHead(JsonReader& r) {
  return std::make_shared<Head>(r.number("size", 0.3, 0, kInf, true));
}

ShapePtr parsePumpkin(JsonReader& r) {
  const double a = r.number("radius", 0.5, 0, kInf, true);
  const double c = r.number("height", 0.8 * a, 0.1 * a, 4 * a);
  const int ribs = r.integer("ribs", 10, 0, 64);
  const double depth = r.number("rib_depth", 0.08, 0, 0.5);
  return std::make_shared<Pumpkin>(a, c, ribs, depth);
}

ShapePtr parseGear(JsonReader& r) {
  const double radius = r.number("radius", 0.5, 0, kInf, true);
  const double thickness = r.number("thickness", 0.4 * radius, 0, 4 * radius, true);
  const int teeth = r.integer("teeth", 12, 1, 256);
  const double bevel = r.number("bevel", std::min(0.05 * radius, 0.25 * thickness), 0,
                                0.5 * thickness, false, true);
  const double depth = r.number("tooth_depth", 0.12 * radius, 0, radius - bevel, false, true);
  return std::make_shared<Gear>(radius, thickness, teeth, depth, bevel);
}

ShapePtr parseCylinder(JsonReader& r) {
  const double radius = r.number("radius", 0.5, 0, kInf, true);
  const double height = r.number("height", 2 * radius, 0, kInf, true);
  const double bevel = r.number("bevel", std::min(0.1 * radius, 0.25 * height), 0,
                                std::min(radius, 0.5 * height), false, true);
  return std::make_shared<Cylinder>(radius, height, bevel);
}

ShapePtr parseBox(JsonReader& r) {
  const Vec3 size = r.vec3("size", Vec3(1, 1, 1));
  if (size.minCoeff() <= 0)
    r.fail("size", "must have all three extents > 0, got [" + std::to_string(size.x()) + ", " +
                       std::to_string(size.y()) + ", " + std::to_string(size.z()) + "]");
  const double bevel = r.number("bevel", 0.05 * size.minCoeff(), 0, 0.5 * size.minCoeff(), false,
                                true);
  return std::make_shared<Box>(size, bevel);
}

}  // namespace d2t
