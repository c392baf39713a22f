// Rigid collider shapes built as unions of ellipsoids: a fist, a bird and a fish.
// The surface is the union of the parts (signed distance = min over parts);
// the mesh is the concatenation of the parts' closed meshes, which overlap
// (fine for rendering and for depth-based contact, not for mass properties).
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "sim/scene/shape_impl.h"

namespace d2t {

namespace {

struct Ellipsoid {
  Vec3 centre;             ///< [m]
  Mat3 rotation;           ///< local axes -> shape frame
  Vec3 semiAxes;           ///< [m]

  /// Bound-corrected distance (Quilez): k0 (k0 - 1) / k1 with k0 = |x / a|,
  /// k1 = |x / a^2|; exact sign, zero on the surface, unit slope there. Far
  /// from a flat ellipsoid it underestimates badly, so it is raised to the
  /// distance to the bounding sphere, |x| - max(a), a true lower bound.
  double signedDistance(const Vec3& p) const {
    const Vec3 x = rotation.transpose() * (p - centre);
    const double k0 = x.cwiseQuotient(semiAxes).norm();
    const double k1 = x.cwiseQuotient(semiAxes.cwiseProduct(semiAxes)).norm();
    if (k1 == 0) return -semiAxes.minCoeff();
    return std::max(k0 * (k0 - 1) / k1, x.norm() - semiAxes.maxCoeff());
  }
};

Ellipsoid part(const Vec3& centre, const Vec3& semiAxes, const Mat3& rotation = Mat3::Identity()) {
  return Ellipsoid{centre, rotation, semiAxes};
}

Mat3 rotX(double deg) { return Eigen::AngleAxisd(deg * kPi / 180, Vec3::UnitX()).toRotationMatrix(); }
Mat3 rotZ(double deg) { return Eigen::AngleAxisd(deg * kPi / 180, Vec3::UnitZ()).toRotationMatrix(); }

class EllipsoidUnion final : public Shape {
 public:
  EllipsoidUnion(std::string type, std::vector<Ellipsoid> parts)
      : type_(std::move(type)), parts_(std::move(parts)) {}

  std::string type() const override { return type_; }
  ShapeTopology topology() const override { return ShapeTopology::Solid; }

  double signedDistance(const Vec3& p) const override {
    // (a part's distance is at least the distance to its bounding sphere: the parts whose
    // sphere lies beyond the nearest found so far leave the minimum as it is)
    double d = 1e300;
    for (const Ellipsoid& e : parts_)
      if ((p - e.centre).norm() - e.semiAxes.maxCoeff() < d) d = std::min(d, e.signedDistance(p));
    return d;
  }

  double boundingRadius() const override {
    double r = 0;
    for (const Ellipsoid& e : parts_) r = std::max(r, e.centre.norm() + e.semiAxes.maxCoeff());
    return r;
  }

  TriMesh mesh(int resolution) const override {
    // each part: a unit cube sphere, scaled by the semi-axes and placed
    // (det > 0 keeps the orientation outward)
    const TriMesh unit = starMesh(*makeSphere(1.0), std::max(3, resolution / 3));
    TriMesh out;
    for (const Ellipsoid& e : parts_) {
      TriMesh m = unit;
      m.transform(e.rotation * e.semiAxes.asDiagonal(), e.centre);
      out.append(m);
    }
    return out;
  }

 private:
  std::string type_;
  std::vector<Ellipsoid> parts_;
};

}  // namespace

/// A clenched fist `size` [m] wide across the knuckles: palm block, four
/// curled fingers whose knuckles face -Y (it punches downward), and a thumb
/// across the front (+Z).
ShapePtr parseFist(JsonReader& r) {
  const double s = r.number("size", 0.25, 0, 1e300, true);
  std::vector<Ellipsoid> parts;
  parts.push_back(part(s * Vec3(0, 0.12, 0), s * Vec3(0.42, 0.32, 0.26)));  // palm
  const double fingerX[4] = {-0.3, -0.1, 0.1, 0.3};
  const double fingerScale[4] = {0.85, 0.97, 1.0, 0.95};  // pinky ... index
  for (int i = 0; i < 4; ++i)
    parts.push_back(part(s * Vec3(fingerX[i], -0.16, 0.04),
                         s * fingerScale[i] * Vec3(0.11, 0.17, 0.24)));
  parts.push_back(part(s * Vec3(0.16, -0.06, 0.26), s * Vec3(0.26, 0.09, 0.09), rotZ(-20)));  // thumb
  return std::make_shared<EllipsoidUnion>("fist", std::move(parts));
}

/// A bird `size` [m] long from tail to beak, flying along +X, wings along +-Z.
ShapePtr parseBird(JsonReader& r) {
  const double s = r.number("size", 0.3, 0, 1e300, true);
  std::vector<Ellipsoid> parts;
  parts.push_back(part(s * Vec3(0, 0, 0), s * Vec3(0.3, 0.17, 0.17)));          // body
  parts.push_back(part(s * Vec3(0.28, 0.14, 0), s * Vec3(0.12, 0.11, 0.11)));   // head
  parts.push_back(part(s * Vec3(0.42, 0.12, 0), s * Vec3(0.08, 0.025, 0.03)));  // beak
  // wings, tips raised 15 degrees (dihedral)
  parts.push_back(part(s * Vec3(-0.02, 0.08, 0.25), s * Vec3(0.16, 0.025, 0.26), rotX(-15)));
  parts.push_back(part(s * Vec3(-0.02, 0.08, -0.25), s * Vec3(0.16, 0.025, 0.26), rotX(15)));
  parts.push_back(part(s * Vec3(-0.36, 0.05, 0), s * Vec3(0.14, 0.02, 0.08), rotZ(-15)));  // tail
  return std::make_shared<EllipsoidUnion>("bird", std::move(parts));
}

/// A fish `size` [m] long from tail fin to snout, swimming along +X, flat across Z (the
/// dissertation's Fig. 4.6 pusher: body, tail fin, dorsal fin).
ShapePtr parseFish(JsonReader& r) {
  const double s = r.number("size", 0.55, 0, 1e300, true);
  std::vector<Ellipsoid> parts;
  parts.push_back(part(s * Vec3(0, 0, 0), s * Vec3(0.4, 0.16, 0.09)));           // body
  parts.push_back(part(s * Vec3(-0.45, 0, 0), s * Vec3(0.125, 0.145, 0.022)));   // tail fin
  parts.push_back(part(s * Vec3(-0.02, 0.15, 0), s * Vec3(0.145, 0.07, 0.018)));  // dorsal fin
  return std::make_shared<EllipsoidUnion>("fish", std::move(parts));
}

}  // namespace d2t
