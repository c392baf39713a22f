#pragma once
// Surface shapes: procedural generators (sphere, pumpkin, gear, cylinder,
// torus/tire, fist, bird, fish) and OBJ meshes, behind one interface.
//
// A shape is described in its own frame, centred at the origin, Y up.
// Deformable bodies need a shape the D2T atlas can parameterise:
//  - Star:  star-shaped about the origin; the surface is radius(d) * d.
//           Baked on a cube-map atlas (6 patches).
//  - Torus: surfacePoint(u, v) periodic in both parameters. Baked on one
//           periodic patch.
//  - Solid: any closed surface; usable only as a rigid collider.
#include <memory>
#include <string>

#include "sim/base/json_reader.h"
#include "sim/base/math.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

enum class ShapeTopology { Star, Torus, Solid };

class Shape {
 public:
  virtual ~Shape() = default;

  /// Scene-file type name ("sphere", "pumpkin", "obj", ...).
  virtual std::string type() const = 0;
  /// Where the shape comes from, for messages: an OBJ's path, else type().
  virtual std::string source() const { return type(); }
  virtual ShapeTopology topology() const = 0;

  /// Star shapes: distance [m] from the origin to the surface along the unit direction d.
  /// Other topologies throw std::logic_error.
  virtual double radius(const Vec3& d) const;

  /// Torus shapes: surface point [m] for periodic parameters (u, v) in [0,1)^2.
  /// u runs around the Y axis, v around the tube, oriented so that
  /// d/du x d/dv points out of the solid. Other topologies throw std::logic_error.
  virtual Vec3 surfacePoint(double u, double v) const;

  /// The point a core is scaled toward ("core": {"scale": s} gives
  /// f = a + s (g - a)): the origin for star shapes, the nearest point of the
  /// tube's centre circle for a torus.
  virtual Vec3 coreAnchor(const Vec3& /*p*/) const { return Vec3::Zero(); }

  /// Signed distance to the surface [m], negative inside. Exact where cheap;
  /// otherwise an approximation with the exact sign, zero on the surface and
  /// a gradient of about unit length near it.
  virtual double signedDistance(const Vec3& p) const = 0;

  /// Whether signedDistance is signed everywhere: false for a surface with open parts (a collider's
  /// shape only), whose distance is unsigned and whose side is the one a point comes from.
  virtual bool hasInside() const { return true; }

  /// Outward unit normal at (or near) p, from the gradient of signedDistance.
  Vec3 normal(const Vec3& p) const;

  /// Closed, outward-oriented triangle mesh of the surface with about
  /// `resolution` segments across the shape (for rendering and colliders).
  virtual TriMesh mesh(int resolution) const = 0;

  /// Radius [m] of a sphere about the origin that contains the shape.
  virtual double boundingRadius() const = 0;

  /// Why this shape cannot be the skin of a deformable body, as a complete
  /// message (an OBJ mesh names its file and what is wrong); empty when it can
  /// (Star and Torus topologies).
  virtual std::string notDeformableReason() const;
};

using ShapePtr = std::shared_ptr<const Shape>;

/// Reads a shape object: {"type": "sphere", "radius": 0.5}, {"type": "obj", "path": "x.obj"}, ...
/// Paths are relative to the directory of r.file(). Unknown fields and bad
/// values throw InputError naming the file and the field.
ShapePtr parseShape(JsonReader r);

/// A sphere of the given radius [m] (used by tests and defaults).
ShapePtr makeSphere(double radius);

/// Closed, outward mesh of a Star shape: a cube sphere of 6 faces with
/// `resolution` x `resolution` quads each (equal-angle spacing), every vertex
/// at radius(d) * d. Shared cube edges and corners are single vertices.
TriMesh starMesh(const Shape& shape, int resolution);

/// Closed, outward mesh of a Torus shape: surfacePoint on a periodic
/// nu x nv grid of (u, v), two triangles per cell.
TriMesh torusMesh(const Shape& shape, int nu, int nv);

}  // namespace d2t
