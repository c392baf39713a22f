#pragma once
// A character's inner surface and the solid inside it (character_model.h's f_p and interior
// pieces): the skin offset inwards along its normals, thinner where a layer prism would turn
// inside out, and the solid inside a closed triangle mesh cut into grid cells.
#include <vector>

#include "sim/base/math.h"
#include "sim/character/character_model.h"

namespace d2t {

/// The mean length of the triangles' first edges [m] (the mesh's spacing).
double meanEdgeLength(const std::vector<Vec3>& x, const std::vector<Vec3i>& triangles);

/// The inner point under each node of a closed, outward skin: the node moved inwards along
/// its area-weighted vertex normal by its `thickness`. Where one of a triangle's layer prisms
/// (layer_elements.h) would not have a positive volume, its corners' thicknesses shrink by 0.7
/// and every thickness is capped to rise no faster than half the distance to a neighbour (or
/// the neighbours' prisms turn over), for up to 20 rounds (the bake names what is left).
std::vector<Vec3> innerAlongNormals(const std::vector<Vec3>& skin, const std::vector<Vec3i>& triangles,
                                    std::vector<double> thickness);

/// The solid inside a closed mesh cut into cubes of side h (voxel_grid.h), one piece a cube.
std::vector<InteriorPiece> voxelInterior(const std::vector<Vec3>& vertices, const std::vector<Vec3i>& triangles,
                                         double h);

}  // namespace d2t
