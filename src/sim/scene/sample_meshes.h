#pragma once
// Meshes made here: the shipped assets (assets/bowl.obj, assets/stairs.obj, assets/banana.obj,
// written by tools/make_sample_meshes) and the tests' surfaces. The bowl, the stairs and the
// sheet are open (boundary edges, as most models from modelling tools have); the bent capsule
// is closed and not star-shaped.
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

/// A banana: a tube swept along a circular arc of radius `bend` through `angle` radians in the
/// xy plane (its middle at the origin's -y side, its ends up: a smile), `radius` thick at the
/// middle, tapering to `tip` times that at its rounded ends; a closed surface meshed by surface
/// nets to about `nodes` vertices. Not star-shaped about its centre of mass (which lies outside
/// it for angles past about 2).
TriMesh bentCapsule(double bend, double angle, double radius, double tip, int nodes);

}  // namespace d2t
