#pragma once
// A character on a baked body's cube-map atlas: the k = 1 case of the skeleton core
// (dissertation 4.2: with one bone, w = 1 and the bind frame the body frame, x_p = c +
// R (u_o,p + q_p) is ch. 3's layered body). The character's stencil is the general layout's
// compressed rows (character_model.h), filled here from the atlas's 7-slot stencil, so the
// same ArticulatedBody steps an atlas skin; the elements, lumped masses and K_e blocks are
// the bake's, and the one bone's link is the bake's rigid core (its mass, and its inertia
// with the lumping correction, about the body-frame origin, which is the bone's origin).
#include "sim/character/character_model.h"
#include "sim/model/baked_body.h"

namespace d2t {

/// The one-bone character of a baked body: bind coordinates are the body frame, so a
/// character placed at the body's position and orientation has the body's skin node for
/// node. `material` gives the damping (alpha, beta), friction and density (the body's
/// description's; K and the masses are the bake's).
CharacterModelPtr oneBoneCharacter(const BakedBody& body, const Material& material);

}  // namespace d2t
