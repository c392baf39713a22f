#pragma once
// The deer's rig as a table (deer.h builds the character from it): each bone's segment (world
// bind, metres), the flesh's radius at its head and tail (a round cone), its parent and
// whether its joint is a hinge (about the body's z) or a ball. No dependencies beyond the
// math, so that the scene reader can name the deer's joints.
#include <string>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

struct DeerBone {
  const char* name;    ///< the stem: a leg's bone gets _l or _r (deerBoneNames)
  const char* parent;  ///< "" for the root (the pelvis); a leg's parent stem takes the leg's side
  bool hinge;          ///< the joint to the parent: hinge about z, else ball
  Vec3 head, tail;
  double r0, r1;
};

/// The 34 bones: the spine, neck, head, snout and tail (0..13), the left legs (14..23), the
/// right legs (24..33).
std::vector<DeerBone> deerBones();
/// The bones' names in the same order (a leg's end in _l or _r).
std::vector<std::string> deerBoneNames();

}  // namespace d2t
