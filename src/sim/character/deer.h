#pragma once
// The procedural deer of Figs. 4.1 and 4.3 and Table 4.1 (docs/decisions/0030): 34 bones and
// 33 joints (a spine of 5, a neck of 4, the head and snout, a tail of 3, four legs of 5 with
// hinged elbows, carpi, knees, hocks and fetlocks), standing on its hooves at y = 0, head
// towards +x; its flesh a smooth union of round cones over the bones, its skin meshed from
// that by surface nets to the node count asked (2,755 by default; Table 4.1 also has 1,748
// and 8,408), its inner surface a fraction `coreScale` of the way from each bone out to the
// skin, along the skin's inward normal.
#include <string>
#include <vector>

#include "sim/character/character_model.h"
#include "sim/character/deer_rig.h"  // (deerBoneNames: bone 0, the pelvis, is the root; joint i - 1 joins bone i to its parent)

namespace d2t {

struct DeerSpec {
  int nodes = 2755;
  double stiffness = 3000;  ///< every joint's spring to its target [N m/rad]
  double damping = 20;      ///< [N m s/rad]
  double coreScale = 0.6;
};

/// Throws InputError for a node count outside [500, 100000] or a core scale outside (0, 1).
CharacterDesc deerCharacter(const std::string& name, const DeerSpec& spec, const Material& material);

}  // namespace d2t
