#pragma once
// A closed skin from an implicit surface (the deer's: its flesh is a smooth union of round
// cones over the bones): surface nets on a regular grid, the nodes projected onto the
// surface, the grid spacing chosen to meet a node count; and the solid inside a closed
// triangle mesh cut into grid cells (the interior pieces of character_model.h).
#include <functional>
#include <vector>

#include "sim/base/math.h"
#include "sim/character/character_model.h"

namespace d2t {

/// A signed distance (negative inside) and the box that holds its zero set.
struct ImplicitShape {
  std::function<double(const Vec3&)> distance;
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  /// The outward unit normal at x (central differences of `distance`, step h).
  Vec3 normal(const Vec3& x, double h) const;
};

struct TriangleMesh {
  std::vector<Vec3> vertices;
  std::vector<Vec3i> triangles;  ///< outward counter-clockwise
};

/// Surface nets at grid spacing h (the grid's origin moved by `shift` cells): a node in every cell that the surface crosses (the
/// mean of its edges' crossings, then a few Newton steps onto distance = 0), two triangles
/// for every grid edge that the surface crosses (its four cells' nodes, split along the
/// shorter diagonal), oriented outward. Closed where the grid resolves the shape.
TriangleMesh surfaceNets(const ImplicitShape& shape, double h, const Vec3& shift = Vec3::Zero());

/// Every edge in exactly two triangles, once each way (closed, consistently oriented), and
/// every vertex on a triangle.
bool closedManifold(const TriangleMesh& m);

/// surfaceNets at the spacing whose node count is nearest `nodes` (secant steps on
/// n ~ 1/h^2; within about 1%), the grid shifted by fractions of a cell where that is needed
/// for a closed manifold (`closedManifold` tells whether one was found).
TriangleMesh surfaceNetsWithNodes(const ImplicitShape& shape, int nodes);

/// The solid inside a closed mesh cut into cubes of side h (a cube is in when its centre
/// is: crossings of a ray along x, counted by parity), one piece a cube.
std::vector<InteriorPiece> voxelInterior(const std::vector<Vec3>& vertices, const std::vector<Vec3i>& triangles,
                                         double h);

}  // namespace d2t
