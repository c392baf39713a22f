#pragma once
// Per-step stage timings of a run: the --bench CSV, the medians of --metrics,
// the headless timing summary and the statistics panel's plots.
#include <array>
#include <string>
#include <vector>

#include "sim/profile.h"

namespace d2t {

class StepLog {
 public:
  /// Appends one step: `step` is the whole step's wall time [ms]; `contacts` the colliding
  /// nodes and `cgIterations` the CG iterations of the step, summed over the bodies.
  void record(const Profile& p, double stepMs, int contacts = 0, int cgIterations = 0);
  void clear();
  size_t size() const { return steps_.size(); }
  /// Stage names in first-seen order (the CSV columns after "step").
  const std::vector<std::string>& stages() const { return names_; }
  /// Median over the recorded steps of the whole step / of one stage [ms].
  double medianStep() const;
  double medianStage(const std::string& name) const;
  /// The last `n` whole-step times [ms], oldest first (for plots).
  std::vector<float> recentSteps(size_t n) const;
  /// CSV: "step,t,step_ms,<stage>_ms,...,contacts,cg_iterations" one row per step. Throws std::runtime_error on I/O failure.
  void writeCsv(const std::string& path, double dt) const;

 private:
  std::vector<std::string> names_;
  std::vector<double> steps_;
  std::vector<std::vector<double>> stages_;  // (nstep x nstage), 0 where a stage did not run
  std::vector<std::array<int, 2>> counts_;   // (nstep) contacts, CG iterations
};

double median(std::vector<double> v);

}  // namespace d2t
