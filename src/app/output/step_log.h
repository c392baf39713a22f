#pragma once
// Per-step stage timings of a run: the --bench CSV, the medians of --metrics,
// the headless timing summary and the statistics panel's plots.
#include <array>
#include <string>
#include <vector>

#include "sim/base/profile.h"

namespace d2t {

/// The world after one step, for the statistics plots (all bodies together).
struct StepSummary {
  float cgIterations = 0;  ///< most CG iterations of any body's y solve
  int cgIterationsTotal = 0;  ///< CG iterations summed over the bodies
  float cgResidual = 0;    ///< largest final relative CG residual of any body
  float contacts = 0;      ///< colliding nodes, all bodies
  float energy = 0;        ///< total energy, all bodies [J]
};

class StepLog {
 public:
  /// Appends one step: `step` is the whole step's wall time [ms].
  void record(const Profile& p, double stepMs, const StepSummary& summary = {});
  void clear();
  size_t size() const { return steps_.size(); }
  /// The stages' clocks that ran in any recorded step, in step order, the CPU's then
  /// the GPU's (named "forces", ..., "gpu_forces", ...: the CSV columns after "step").
  const std::vector<StageClock>& clocks() const { return clocks_; }
  /// Median over the recorded steps of the whole step / of one stage's clock [ms] (0
  /// for a clock that never ran).
  double medianStep() const;
  double medianStage(StageClock clock) const;
  /// The last `n` whole-step times [ms], oldest first (for plots).
  std::vector<float> recentSteps(size_t n) const;
  /// The last `n` times of one stage's clock [ms] (0 where it did not run), oldest
  /// first; none for a clock that never ran.
  std::vector<float> recentStage(StageClock clock, size_t n) const;
  /// The last `n` values of one summary member, oldest first.
  std::vector<float> recentSummary(float StepSummary::*member, size_t n) const;
  /// CSV: "step,t,step_ms,<stage>_ms,...,contacts,cg_iterations,cg_residual" (colliding
  /// nodes and CG iterations summed over the bodies, the largest final relative CG
  /// residual of any body; 0 for the direct solver), one row per step from step `first` (0-based;
  /// the panel's start/stop recording) on. Throws std::runtime_error on I/O failure.
  void writeCsv(const std::string& path, double dt, size_t first = 0) const;

 private:
  // a clock of the profile: stage k's CPU clock is column k, its GPU clock kStageCount + k
  static constexpr size_t kColumns = 2 * size_t(kStageCount);
  using Row = std::array<double, kColumns>;
  /// The column of a clock, or kColumns when it never ran.
  size_t column(StageClock clock) const;
  std::vector<StageClock> clocks_;           // the columns that ran, in column order
  std::array<bool, kColumns> ran_{};
  std::vector<double> steps_;
  std::vector<Row> stages_;                  // (nstep x kColumns), 0 where a clock did not run
  std::vector<StepSummary> summaries_;       // (nstep)
};

double median(std::vector<double> v);

}  // namespace d2t
