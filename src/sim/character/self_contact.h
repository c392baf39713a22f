#pragma once
// A character against itself (dissertation 4.3.3; ../shared/design/ch4-articulated.md stages
// 7-9): stage 1 pairs its bones (bone_proxies.h; joined bones once their joint has folded past
// kSeamAngle, where their patches may be pressed together); stage 2 gives each node p of a
// paired bone its
// partner triangles within its 1-ring's reach (the largest distance to its ring's corners: a ring
// can only cut a triangle that near), leaving out p's own rest 2-ring (the surface is continuous
// there), and reports p when there is any. Where two partner patches meet at a seam, or fold
// towards each other without touching, stage 2 reports false positives (the thesis's adjacent
// polygons); the exact post-process keeps a report only when a triangle of p's 1-ring overlaps
// one of those triangles (trianglesOverlap; with the 2-ring out, the two share no vertex). A
// node is thus in self-contact exactly when its ring cuts the skin elsewhere; the row's normal
// and depth are the nearest such point's (the smooth normal's side: inside or not yet).
// Moving, a node must be caught before its ring cuts through: a node in front of a partner
// triangle beyond its 2-ring (the smooth normal's side) that closes on it to within a
// millimetre in the step is near, and gets a row that lets it close the gap and no more. (Behind
// such a triangle and not cut, a node is the false positive of a convex stretch of skin: left
// alone. At rest nothing is near: a crease's two sides do not approach.)
#include <utility>
#include <vector>

#include "sim/character/character_model.h"
#include "sim/character/contact_targets.h"

namespace d2t {

struct SelfContacts {
  std::vector<std::pair<int, SurfaceTarget::Hit>> reported;  ///< stage 2 (node, its nearest point)
  std::vector<std::pair<int, SurfaceTarget::Hit>> kept;      ///< after the exact post-process
  std::vector<std::pair<int, SurfaceTarget::Hit>> near;      ///< not cut, in front, closing in the step
};

/// The self-contacts of a character's skin snapshot `skin` (x, v, normals, the bones' frames;
/// no hierarchy: each pair's nodes near the other's patch, found through the patch's box in its
/// bone's frame, against its triangles near them) for the bone pairs `pairs` (i, j: the nodes of
/// V_i against T_j and those of V_j against T_i); `dt`: the step the near nodes are looked
/// for in (0: none).
SelfContacts detectSelfContacts(const CharacterModel& m, const SurfaceTarget& skin,
                                const std::vector<std::pair<int, int>>& pairs, double dt = 0);

}  // namespace d2t
