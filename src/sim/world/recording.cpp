// A run written down and replayed (recording.h): what a timeline holds of a run, and its
// replay on a World (the file's reading and writing: recording_file.cpp).
#include "sim/world/recording.h"

#include <stdexcept>

#include "sim/world/timeline.h"
#include "sim/world/world.h"

namespace d2t {

Recording recordingOf(const Timeline& timeline, World& world) {
  Recording r;
  r.firstStep = timeline.first();
  r.steps = timeline.head();
  r.inputs = timeline.inputs();
  r.checkpoints = timeline.checkpoints();
  if (world.steps() != timeline.head())
    throw std::logic_error("recordingOf: the world is at step " + std::to_string(world.steps()) +
                           ", the timeline's head at " + std::to_string(timeline.head()));
  if (r.checkpoints.empty() || r.checkpoints.back().first != world.steps())
    r.checkpoints.emplace_back(world.steps(), stateHash(world.capture()));
  return r;
}

long replay(World& world, const Recording& rec, std::string* why) {
  if (world.steps() != rec.firstStep) {
    *why = "the world is at step " + std::to_string(world.steps()) + ", the recording starts at " +
           std::to_string(rec.firstStep);
    return world.steps();
  }
  size_t next = 0;  // the next input
  for (const auto& [k, hash] : rec.checkpoints) {
    while (world.steps() < k) {
      for (; next < rec.inputs.size() && rec.inputs[next].step == world.steps(); ++next) {
        try {
          applyInput(world, rec.inputs[next].input);
        } catch (const std::exception& e) {
          *why = "step " + std::to_string(world.steps()) + ": input " + std::to_string(next) + " (" +
                 describe(rec.inputs[next].input) + ") cannot be applied: " + e.what();
          return world.steps();
        }
      }
      world.step();
    }
    const uint64_t now = stateHash(world.capture());
    if (now != hash) {
      *why = "step " + std::to_string(k) + " (t = " + std::to_string(world.time()) + " s): the state hash is " +
             hexHash(now) + ", the recording says " + hexHash(hash);
      return k;
    }
  }
  why->clear();
  return -1;
}

}  // namespace d2t
