#pragma once
// A soft body of any closed surface (a user's OBJ, repaired or re-meshed: mesh_repair.h) on
// the general surface layout: the cube-map atlas holds only star-shaped surfaces, and a mug,
// a bean or a banana is not one. It is the one-bone character of ch. 4 (with one bone w = 1
// and x_p = c + R (u_o,p + q_p) is ch. 3's layered body, as atlas_character.h says): its skin
// the surface's nodes, its core the solid inside the surface offset inwards, a fraction
// 1 - coreScale of the way from each node to the surface's medial axis (its local
// half-thickness), so a thin part keeps a thin core and a thick one a thick layer.
#include <string>

#include "sim/character/character_model.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// The local half-thickness under each node of a closed, outward surface: how far along its
/// inward normal the node stays (about) the surface's nearest point, to 2% of the mesh's
/// spacing.
std::vector<double> medialDepth(const TriMesh& surface);

/// The character of a closed, outward surface given about its centre of mass (its bind
/// frame is the surface's frame): one bone named "core". Throws InputError naming the
/// character for a core scale outside (0, 1) or a surface that is not closed.
CharacterDesc meshCharacter(const std::string& name, const TriMesh& surface, double coreScale, const Material& material);

}  // namespace d2t
