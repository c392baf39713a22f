#pragma once
// The step's timing, as Box2D's b2Profile: one slot per stage of the step (Fig. 3.5 of
// the dissertation, Fig. 5 of the DDT paper, and the bookkeeping around them), so a
// timer is an array index known at compile time. Each stage has two clocks: the CPU's
// wall time around it, and the GPU's own time for the passes it ran there (GL timer
// queries, "gpu_<stage>" in the --bench columns and the statistics panel).
#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <vector>

namespace d2t {

/// The stages of one World::step, in the order they run (docs/architecture.md maps each
/// to its CPU function, GPU pass and test).
enum class Stage : int {
  Colliders,    ///< kinematic colliders moved to t + dt
  Pose,         ///< morph targets (ch. 5): the pose at t + dt, its RBF weights, K_e(s) and f0(s) blended
  Prepare,      ///< Mt_e and its preconditioner or factorization rebuilt (dt, material or method changed)
  Support,      ///< the contact support planned from the last step's touching nodes; pairs balanced
  Transfer,     ///< the skin state loaded onto a backend that does not hold it; a reduced skin's projected on its basis
  Forces,       ///< 1  forces Ft_e: elastic, damping, gravity, contact support
  Solve,        ///< 2  Mt_e y = Ft_e (and Mt_e Y = M_ec where it is not cached)
  Core,         ///< 3  core velocities: the condensed 6x6 system (3.8)
  Velocities,   ///< 4  skin velocities (3.9)
  Positions,    ///< 5  positions, and the momentum projection
  Neighbours,   ///< the loads' corrections of the skin's velocity (a metaphor's rings: damping, mitigation)
  Drag,         ///< the mouse's spring on a skin node (implicit: a rank-3 Woodbury update)
  Proxies,      ///< 6  object space: convex proxies grown by the skin's displacement, paired
  Pairs,        ///< 7  image space: stage 2 of each pair (contact camera, or its CPU reference)
  Nodes,        ///< 8  atlas nodes against planes and height fields; one contact per node
  Impact,       ///< restitution: one Newton impact of the rigidified bodies as an episode begins
  Rows,         ///< 9  the contact rows: Dg inverted, U_k, b_k; the condensed Mh_cond
  Multipliers,  ///< 10 lambda by Sherman-Morrison-Woodbury on an active set
  Impulse,      ///< 11 the impulse through steps 3-4; the energy clamp; pair impulses balanced
  Friction,     ///< 12 friction (14) per node, then the contact patches' friction
  Apply,        ///< 13 skin positions from the post-impact velocities
  Redetect,     ///< 14 detection again (6-8) at the responded state
  Correct,      ///< 15 position correction of the nodes still penetrating
  Characters,   ///< the soft articulated characters' steps (ch. 4: free update, ground contact)
  Check,        ///< the blow-up check: the skin's summary, the energy bound, the rollback
  Stats,        ///< the statistics of --metrics and the panels
  Count
};

constexpr int kStageCount = int(Stage::Count);

/// The stage's name: the --bench column (with "_ms"), the panels' label.
constexpr const char* stageName(Stage s) {
  constexpr const char* kNames[kStageCount] = {
      "colliders", "pose",     "prepare",  "support",    "transfer", "forces", "solve",  "core",     "velocities",
      "positions", "neighbours", "drag",    "proxies",  "pairs",  "nodes",  "impact",   "rows",
      "multipliers", "impulse", "friction", "apply",    "redetect", "correct", "characters", "check",
      "stats"};
  return kNames[int(s)];
}

/// One of a stage's two clocks.
struct StageClock {
  Stage stage = Stage::Count;
  bool gpu = false;  ///< the GPU's timer queries, not the CPU's wall clock
  /// "forces", "gpu_forces": the --bench column (with "_ms") and the panels' label
  std::string name() const { return gpu ? std::string("gpu_") + stageName(stage) : stageName(stage); }
  bool operator==(const StageClock&) const = default;
};

class Profile {
 public:
  /// One clock of one stage that ran in the step.
  struct Entry {
    Stage stage = Stage::Count;
    bool gpu = false;  ///< the GPU's timer queries, not the CPU's wall clock
    double ms = 0;     ///< [ms]
    StageClock clock() const { return {stage, gpu}; }
    std::string name() const { return clock().name(); }
  };
  void clear() {
    cpu_.fill(0);
    gpu_.fill(0);
    ranCpu_.fill(false);
    ranGpu_.fill(false);
  }
  /// Adds `ms` of CPU wall time to stage s.
  void add(Stage s, double ms) {
    cpu_[size_t(s)] += ms;
    ranCpu_[size_t(s)] = true;
  }
  /// Adds `ms` of GPU time (timer queries) to stage s.
  void addGpu(Stage s, double ms) {
    gpu_[size_t(s)] += ms;
    ranGpu_[size_t(s)] = true;
  }
  /// Adds every clock of `other`.
  void merge(const Profile& other) {
    for (size_t k = 0; k < size_t(kStageCount); ++k) {
      cpu_[k] += other.cpu_[k];
      gpu_[k] += other.gpu_[k];
      ranCpu_[k] = ranCpu_[k] || other.ranCpu_[k];
      ranGpu_[k] = ranGpu_[k] || other.ranGpu_[k];
    }
  }
  /// Adds the clocks of stages that ran on several threads at once (one profile a
  /// thread): each stage adds the busiest thread's time, its wall time while the
  /// threads run together.
  void mergeBusiest(const std::vector<Profile>& threads) {
    for (size_t k = 0; k < size_t(kStageCount); ++k) {
      double cpu = 0, gpu = 0;
      for (const Profile& t : threads) {
        cpu = std::max(cpu, t.cpu_[k]);
        gpu = std::max(gpu, t.gpu_[k]);
        ranCpu_[k] = ranCpu_[k] || t.ranCpu_[k];
        ranGpu_[k] = ranGpu_[k] || t.ranGpu_[k];
      }
      cpu_[k] += cpu;
      gpu_[k] += gpu;
    }
  }
  double ms(Stage s) const { return cpu_[size_t(s)]; }
  double gpuMs(Stage s) const { return gpu_[size_t(s)]; }
  bool ran(Stage s) const { return ranCpu_[size_t(s)]; }
  bool ranOnGpu(Stage s) const { return ranGpu_[size_t(s)]; }
  /// The clocks that ran in this step: the CPU's in stage order, then the GPU's.
  std::vector<Entry> entries() const {
    std::vector<Entry> out;
    for (int k = 0; k < kStageCount; ++k)
      if (ranCpu_[size_t(k)]) out.push_back({Stage(k), false, cpu_[size_t(k)]});
    for (int k = 0; k < kStageCount; ++k)
      if (ranGpu_[size_t(k)]) out.push_back({Stage(k), true, gpu_[size_t(k)]});
    return out;
  }

 private:
  std::array<double, kStageCount> cpu_{}, gpu_{};  // [ms]
  std::array<bool, kStageCount> ranCpu_{}, ranGpu_{};
};

/// Adds the lifetime of the scope to a stage of a profile (CPU wall time).
class StageTimer {
 public:
  StageTimer(Profile& p, Stage stage) : p_(p), stage_(stage), t0_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    const auto t1 = std::chrono::steady_clock::now();
    p_.add(stage_, std::chrono::duration<double, std::milli>(t1 - t0_).count());
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Profile& p_;
  Stage stage_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace d2t
