#pragma once
// Open triangle meshes made here: the shipped collider assets (assets/bowl.obj,
// assets/stairs.obj, written by tools/make_open_meshes) and the tests' open surfaces.
// They have boundary edges, as most models from modelling tools do.
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// The lower half of a sphere of radius `radius` centred at the origin, open at its rim
/// (y = 0): a single sheet, `segments` around and segments / 4 rings down to its pole.
TriMesh hemisphereBowl(double radius, int segments);

/// A staircase going down along +x: a landing at the top (x in [-run, 0]), then `steps`
/// risers of height `rise` and treads of depth `run`, `width` wide along z (centred);
/// open: no sides, no underside. Its top is at y = steps * rise, its last tread at y = 0.
TriMesh staircase(int steps, double rise, double run, double width);

/// A square sheet of side `size` in the plane y = 0, centred, `cells` x `cells` quads.
TriMesh squareSheet(double size, int cells);

}  // namespace d2t
