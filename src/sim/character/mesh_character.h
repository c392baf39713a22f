#pragma once
// A soft body of any closed surface (a user's OBJ, repaired or re-meshed: mesh_repair.h) on
// the general surface layout: the cube-map atlas holds only star-shaped surfaces, and a mug,
// a bean or a banana is not one. It is the one-bone character of ch. 4 (with one bone w = 1
// and x_p = c + R (u_o,p + q_p) is ch. 3's layered body, as atlas_character.h says): its skin
// the surface's nodes, its core the solid inside the surface offset inwards, a fraction
// 1 - coreScale of the way from each node to the surface's medial axis (its local
// half-thickness), so a thin part keeps a thin core and a thick one a thick layer. Asked for
// a skeleton, its bones lie along the surface's medial axis (medial_skeleton.h) and the core
// is the same inner surface, carried by the bones through the skinning weights.
#include <string>

#include "sim/character/character_model.h"
#include "sim/scene/medial_skeleton.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// The local half-thickness under each node of a closed, outward surface: how far along its
/// inward normal the node stays (about) the surface's nearest point, to 2% of the mesh's
/// spacing.
std::vector<double> medialDepth(const TriMesh& surface);

/// The character of a closed, outward surface given about its centre of mass (its bind
/// frame is the surface's frame): one bone named "core" when `bones` is empty, else those
/// bones (medial_skeleton.h, in the surface's frame; "bone0", "bone1", ...) joined by ball
/// joints at their heads with springs of `stiffness` [N m/rad] and `damping` [N m s/rad]
/// towards the bind pose. A negative stiffness is 10 M g L (M the body's mass, g 9.81 m/s^2,
/// L the skeleton's length: the whole weight at half the length bends a joint 3 degrees, so
/// the body keeps its shape and still bends under a load or a pose); a negative damping is
/// 0.02 s times the stiffness. Throws InputError naming the character for a core scale outside
/// (0, 1) or a surface that is not closed.
CharacterDesc meshCharacter(const std::string& name, const TriMesh& surface, double coreScale, const Material& material,
                            const std::vector<MedialBone>& bones = {}, double stiffness = -1, double damping = -1);

}  // namespace d2t
