#pragma once
// Internal to the shape_*.cpp files: the parser of each shape type and the
// helpers the star-shaped kinds share. Everything else uses sim/shape.h.
#include <functional>

#include "sim/scene/shape.h"

namespace d2t {

// ---- parsers: read the parameters of one "type" (the reader is finished by parseShape)
ShapePtr parseSphere(JsonReader& r);    // shape_star.cpp
ShapePtr parsePumpkin(JsonReader& r);   // shape_star.cpp
ShapePtr parseHead(JsonReader& r);      // shape_star.cpp
ShapePtr parseEllipsoid(JsonReader& r); // shape_star.cpp
ShapePtr parseGear(JsonReader& r);      // shape_star.cpp
ShapePtr parseCylinder(JsonReader& r);  // shape_star.cpp
ShapePtr parseBox(JsonReader& r);       // shape_star.cpp
ShapePtr parseTorus(JsonReader& r);     // shape_torus.cpp
ShapePtr parseFist(JsonReader& r);      // shape_solid.cpp
ShapePtr parseBird(JsonReader& r);      // shape_solid.cpp
ShapePtr parseFish(JsonReader& r);      // shape_solid.cpp
ShapePtr parseObj(JsonReader& r);       // shape_obj.cpp

/// Base of the procedural star shapes: subclasses give radius(d); the signed
/// distance is the radial gap divided by the slope of the surface (below).
class StarShape : public Shape {
 public:
  ShapeTopology topology() const override { return ShapeTopology::Star; }
  double radius(const Vec3& d) const override = 0;
  /// First-order distance from the radial gap: for f(p) = |p| - r(p/|p|) the
  /// gradient on the surface is d - grad_S r / r (grad_S: tangential gradient
  /// on the unit sphere), so f / sqrt(1 + |grad_S r|^2 / r^2) is the distance
  /// to the tangent plane. Exact sign, zero on the surface.
  double signedDistance(const Vec3& p) const override;
  /// starMesh with resolution / 2 quads per cube face (about `resolution` across).
  TriMesh mesh(int resolution) const override;
};

/// Root of f on [lo, hi] where f(lo) < 0 < f(hi) and f has a single sign
/// change there (Illinois regula falsi, falling back to bisection); the result
/// is within `tol` of the root.
double bracketedRoot(const std::function<double(double)>& f, double lo, double hi, double tol);

/// Distance along the ray t (s, c), t >= 0, from the origin of the (rho, y)
/// half-plane to the boundary of the rounded rectangle |rho| <= a, |y| <= b
/// with corner radius `bevel` (< min(a, b)); (s, c) is a unit vector, s, c >= 0.
double roundedRectRay(double s, double c, double a, double b, double bevel);

/// Exact signed distance to that rounded rectangle at (rho, y).
double roundedRectDistance(double rho, double y, double a, double b, double bevel);

/// Two unit vectors completing the unit vector d to an orthonormal basis.
void tangentBasis(const Vec3& d, Vec3* t1, Vec3* t2);

}  // namespace d2t
