#pragma once
// What the renderer draws besides the lit scene (the View panel's toggles;
// persisted in the settings file).

#include <vector>

#include "sim/loads/metaphor.h"

namespace d2t {

struct ViewOptions {
  bool shadows = true;      ///< shadow map pass
  bool skin = true;         ///< draw the bodies' skins
  bool wireframe = false;   ///< skins as wireframe (the core shows through)
  bool core = false;        ///< the rigid core surface of each body
  bool contacts = false;    ///< contact nodes with a line along their normal (colliders and bodies)
  bool proxies = false;     ///< the stage-1 convex proxy points of each body (grown margin as cross size)
  bool bones = false;       ///< the characters' bones (segments) and joints (crosses at the anchors), over the skin
  bool metaphors = true;    ///< the control metaphors' nodes, rings, structures and forces, over the skin
  int selectedMetaphor = -1;    ///< the Metaphors panel's (-1: every metaphor drawn)
  int paintBody = -1;           ///< the body the metaphor brush paints (-1: none) ...
  std::vector<int> paintNodes;  ///< ... and its painted nodes (drawn white)
  int draftBody = -1;           ///< a metaphor's structure being dragged by its handle (-1: none) ...
  MetaphorDesc draft;           ///< ... where it is now (drawn cyan)
  int highlightBody = -1;       ///< picked body drawn brighter (-1: none)
  int highlightCollider = -1;   ///< picked or dragged collider drawn brighter (-1: none)
};

}  // namespace d2t
