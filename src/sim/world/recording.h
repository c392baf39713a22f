#pragma once
// A run written down (`d2tsim --record PATH`, read by `--replay PATH`): the scene as it ran
// (its JSON, with what the window added, and its path, which relative asset paths and
// messages go by), what the command line changed, the inputs at their steps, and the state
// hash at the timeline's snapshots and at the last step. Replaying re-simulates the scene
// with the inputs and compares every hash (issue 30).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/world/world_input.h"

namespace d2t {

class Timeline;
class World;

struct Recording {
  std::string scene;          ///< the scene file, as the run was given it
  nlohmann::json sceneJson = nlohmann::json::object();  ///< the scene that ran
  nlohmann::json overrides = nlohmann::json::object();  ///< the front end's (dt, solver, resolution, ...)
  long firstStep = 0;         ///< the step recording began at
  long steps = 0;             ///< the last step recorded
  std::vector<TimedInput> inputs;
  std::vector<std::pair<long, uint64_t>> checkpoints;  ///< (step, stateHash) in step order
};

/// What `timeline` holds of the run of `world` (at its head): its inputs and the hashes
/// of its snapshots and of the world's current state.
Recording recordingOf(const Timeline& timeline, World& world);

void writeRecording(const std::string& path, const Recording& recording);
/// Reads a recording; InputError naming the file, the field and what was expected.
Recording readRecording(const std::string& path);

/// Re-simulates `recording` on `world` (the recording's scene, at its first step): its
/// inputs at their steps, the state hash compared at every checkpoint. Returns -1 when all
/// agree, else the first step that differs, with *why saying how ("step 120: the state
/// hash is 0123..., the recording says 4567...").
long replay(World& world, const Recording& recording, std::string* why);

/// A hash as the recordings and --metrics write it: 16 hex digits.
std::string hexHash(uint64_t h);

}  // namespace d2t
