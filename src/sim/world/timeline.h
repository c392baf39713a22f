#pragma once
// A run's timeline (issue 30): the world's states every few steps and every input from
// outside the scene (world_input.h), so that the run can be scrubbed (go to any step:
// restore the nearest state at or before it and re-step with the recorded inputs),
// replayed, and edited in the past: an input at step k keeps the recorded past and
// discards the recorded future after k, which is then simulated anew.
//
// A run is a pure function of the scene and its inputs (the CPU backend: bit for bit on
// any number of threads, docs/decisions/0039), so a re-stepped state is the recorded one;
// the snapshots' hashes check it (divergences()).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/world/world_input.h"
#include "sim/world/world_state.h"

namespace d2t {

class World;

class Timeline {
 public:
  /// The snapshots' memory budget unless one is given [bytes].
  static constexpr size_t kDefaultBudget = size_t(512) << 20;
  /// The fewest steps between snapshots: a scrub re-steps at most this many less one (and a
  /// body on the GPU reads its skin back once per snapshot).
  static constexpr int kMinInterval = 4;

  /// Starts recording `world` at its current step. The snapshot interval (0: chosen from the
  /// first snapshot's size so that 20 s of simulation fit the budget, at least kMinInterval
  /// steps); when the run outgrows the budget, every other snapshot is dropped and the
  /// interval doubles.
  explicit Timeline(World& world, size_t budgetBytes = kDefaultBudget, int interval = 0);

  /// An input from the user at the world's current step: applied and recorded. In the past
  /// (the world behind the head), the recorded future after this step is discarded (a
  /// notice says so: takeNotice()). An input the world refuses (it throws) changes nothing.
  void input(World& world, const WorldInput& in);
  /// One step of the world: a change of its settings, of a body's material or of the
  /// metaphors made directly since the last call is recorded as an input first (a panel), then the
  /// recorded inputs of this step are applied (replaying the past), then World::step.
  void step(World& world);
  /// Puts the world at step k in [first(), head()]: restores the nearest snapshot at or
  /// before k (with the settings, materials and metaphors in effect then) and re-steps from there.
  void seek(World& world, long k);

  long first() const { return first_; }  ///< the step recording began at
  long head() const { return head_; }    ///< the last step recorded
  int interval() const { return interval_; }
  size_t budget() const { return budget_; }
  size_t bytes() const { return bytes_; }  ///< the snapshots' memory
  size_t snapshotCount() const { return snapshots_.size(); }

  using Entry = TimedInput;
  const std::vector<Entry>& inputs() const { return inputs_; }
  /// The state hash at every kept snapshot, by step (and at the head: headHash()).
  std::vector<std::pair<long, uint64_t>> checkpoints() const;
  /// Snapshots met again while re-stepping whose state differed from the recorded one
  /// (0 on the CPU backend: a run repeats bit for bit).
  int divergences() const { return divergences_; }
  /// The last notice (a discarded future), "" if none since the last call.
  std::string takeNotice();

 private:
  struct Snapshot {
    WorldState state;
    SimulationSettings settings;
    std::vector<Material> materials;  ///< (nbody)
    std::vector<MetaphorDesc> metaphors;
    std::vector<PoseControl> poses;   ///< (nbody) the morph targets' pose controls
    uint64_t hash = 0;
    size_t bytes = 0;
  };
  void snapshot(World& world);
  /// Records the settings, materials and metaphors the world was given directly since the last call.
  void noteChanges(World& world);
  /// Applies the recorded inputs of the world's current step, once.
  void applyRecorded(World& world);
  /// Drops the recorded future after the world's current step.
  void cut(World& world);
  void record(World& world, const WorldInput& in);
  void thin();

  std::map<long, Snapshot> snapshots_;
  std::vector<Entry> inputs_;
  SimulationSettings settings_;     ///< what the timeline knows the world's settings to be
  std::vector<Material> materials_;  ///< ... and its bodies' materials
  std::vector<MetaphorDesc> metaphors_;  ///< ... and its metaphors
  std::vector<PoseControl> poses_;       ///< ... and its bodies' pose controls
  long first_ = 0, head_ = 0;
  long appliedAt_ = -1;  ///< the step whose recorded inputs were applied last
  int interval_ = kMinInterval;
  size_t budget_ = kDefaultBudget, bytes_ = 0;
  int divergences_ = 0;
  std::string notice_;
};

}  // namespace d2t
