#pragma once
// A World's state at one instant, all that its next step reads (World::capture,
// World::restore): the generalisation of the blow-up check's one-slot good state, for
// going back in time (a recording's timeline) and for checking that two runs agree
// (stateHash).
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sim/body/layered_body.h"
#include "sim/character/character_scene.h"
#include "sim/contact/collider.h"
#include "sim/world/body_stats.h"

namespace d2t {

/// One body's part of a WorldState: its LayeredBody snapshot and the World's
/// bookkeeping of it (statistics without the trajectory, which restore() cuts back to
/// the state's time; the blow-up check's energy floor and last reset).
struct BodySnapshot {
  LayeredBody::Snapshot layered;
  BodyStats stats;
  long lastResetStep = -1;
  double energyFloor = 1e300;
};

struct WorldState {
  double time = 0;  ///< [s]
  long steps = 0;
  std::vector<Collider::Motion> colliders;  ///< (ncollider)
  std::vector<BodySnapshot> bodies;         ///< (nbody)
  std::vector<CharacterState> characters;   ///< (ncharacter)
  std::vector<CharacterStats> characterStats;  ///< (ncharacter, without their trajectories)
  std::map<std::vector<size_t>, double> groupFloors;  ///< energy floors of groups in contact [J]
  std::set<std::pair<int, int>> pairsInContact;       ///< body pairs touching in the last step
  std::vector<std::vector<NodeContact>> lastContacts;  ///< (nbody) what the last response used
  int skinDrag = -1;                                   ///< the body the mouse pulls, -1: none
  int characterDrag = -1;                              ///< the character the mouse pulls, -1: none
  std::vector<ArticulatedBody::NodeDrag> characterDrags;  ///< (ncharacter) their drag springs
};

/// About how much memory a state holds [bytes] (its vectors' elements): what a timeline
/// counts against its budget.
size_t stateBytes(const WorldState& state);

/// A 64-bit FNV-1a hash of the physical state: the clock, each collider's pose and
/// velocity, and each body's core (position, orientation, velocities) and skin (q,
/// qdot), every double by its bits. Equal states hash equal; a run that diverges by a
/// single bit of a single node hashes differently (with probability 1 - 2^-64).
uint64_t stateHash(const WorldState& state);

}  // namespace d2t
