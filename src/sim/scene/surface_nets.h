#pragma once
// A closed surface from an implicit one: surface nets on a regular grid, the nodes
// projected onto the surface, the grid spacing chosen to meet a node count. The deer's skin
// (a smooth union of round cones over its bones) and a repaired or re-meshed OBJ
// (mesh_repair.h) are made this way.
#include <functional>

#include "sim/base/math.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// A signed distance (negative inside; near the surface, a gradient of about unit length)
/// and the box that holds its zero set.
struct ImplicitShape {
  std::function<double(const Vec3&)> distance;
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  /// The outward unit normal at x (central differences of `distance`, step h).
  Vec3 normal(const Vec3& x, double h) const;
};

/// Surface nets at grid spacing h (the grid's origin moved by `shift` cells): a node in every
/// cell that the surface crosses (the mean of its edges' crossings, then a few Newton steps
/// onto distance = 0), two triangles for every grid edge that the surface crosses (its four
/// cells' nodes, split along the shorter diagonal), oriented outward. Closed where the grid
/// resolves the shape. `place` false: the nodes stay at their crossings' means, unsmoothed (the
/// same nodes and quads: the connectivity, at the cost of the grid's field values alone).
TriMesh surfaceNets(const ImplicitShape& shape, double h, const Vec3& shift = Vec3::Zero(), bool place = true);

/// Every edge in exactly two triangles, once each way (closed, consistently oriented), and
/// every vertex on a triangle.
bool closedManifold(const TriMesh& m);

/// surfaceNets at the spacing whose node count is nearest `nodes` (secant steps on
/// n ~ 1/h^2; within about 1%), the grid shifted by fractions of a cell where that is needed
/// for a closed manifold (`closedManifold` tells whether one was found). The search runs on
/// unplaced nets; the nodes are placed once.
TriMesh surfaceNetsWithNodes(const ImplicitShape& shape, int nodes);

}  // namespace d2t
