#include "app/output/step_log.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace d2t {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + long(m), v.end());
  if (v.size() % 2) return v[m];
  const double hi = v[m];
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + long(m)));
}

void StepLog::record(const Profile& p, double stepMs, const StepSummary& summary) {
  Row row{};
  bool newColumn = false;
  for (const Profile::Entry& e : p.entries()) {
    const size_t k = size_t(e.stage) + (e.gpu ? size_t(kStageCount) : 0);
    row[k] = e.ms;
    newColumn = newColumn || !ran_[k];
    ran_[k] = true;
  }
  if (newColumn) {  // (the columns stay in the step's order, whenever a stage first runs)
    clocks_.clear();
    for (size_t k = 0; k < kColumns; ++k)
      if (ran_[k]) clocks_.push_back({Stage(k % size_t(kStageCount)), k >= size_t(kStageCount)});
  }
  steps_.push_back(stepMs);
  stages_.push_back(row);
  summaries_.push_back(summary);
}

size_t StepLog::column(StageClock clock) const {
  if (!(int(clock.stage) >= 0 && clock.stage < Stage::Count)) return kColumns;
  const size_t k = size_t(clock.stage) + (clock.gpu ? size_t(kStageCount) : 0);
  return ran_[k] ? k : kColumns;
}

void StepLog::clear() {
  clocks_.clear();
  ran_.fill(false);
  steps_.clear();
  stages_.clear();
  summaries_.clear();
}

double StepLog::medianStep() const { return median(steps_); }

double StepLog::medianStage(StageClock clock) const {
  const size_t k = column(clock);
  if (k == kColumns) return 0;
  std::vector<double> v;
  for (const Row& row : stages_) v.push_back(row[k]);
  return median(v);
}

std::vector<float> StepLog::recentSteps(size_t n) const {
  std::vector<float> out;
  for (size_t i = steps_.size() > n ? steps_.size() - n : 0; i < steps_.size(); ++i)
    out.push_back(float(steps_[i]));
  return out;
}

std::vector<float> StepLog::recentStage(StageClock clock, size_t n) const {
  std::vector<float> out;
  const size_t k = column(clock);
  if (k == kColumns) return out;
  for (size_t i = stages_.size() > n ? stages_.size() - n : 0; i < stages_.size(); ++i)
    out.push_back(float(stages_[i][k]));
  return out;
}

std::vector<float> StepLog::recentSummary(float StepSummary::*member, size_t n) const {
  std::vector<float> out;
  for (size_t i = summaries_.size() > n ? summaries_.size() - n : 0; i < summaries_.size(); ++i)
    out.push_back(summaries_[i].*member);
  return out;
}

void StepLog::writeCsv(const std::string& path, double dt, size_t first) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot write the bench CSV");
  f << "step,t,step_ms";
  for (const StageClock& c : clocks_) f << "," << c.name() << "_ms";
  f << ",contacts,cg_iterations,cg_residual\n";
  for (size_t i = first; i < steps_.size(); ++i) {
    f << i + 1 << "," << double(i + 1) * dt << "," << steps_[i];
    for (const StageClock& c : clocks_) f << "," << stages_[i][column(c)];
    f << "," << summaries_[i].contacts << "," << summaries_[i].cgIterationsTotal << ","
      << summaries_[i].cgResidual << "\n";
  }
  if (!f) throw std::runtime_error(path + ": write failed");
}

}  // namespace d2t
