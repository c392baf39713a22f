#pragma once
// Per-step timing of named stages (the columns of --bench and the statistics panel).
#include <chrono>
#include <string>
#include <vector>

namespace d2t {

class Profile {
 public:
  struct Stage {
    std::string name;
    double ms = 0;  ///< wall time of the stage in this step [ms]
  };
  void clear() { stages_.clear(); }
  /// Adds `ms` to the stage `name` (created in first-seen order).
  void add(const std::string& name, double ms) {
    for (Stage& s : stages_)
      if (s.name == name) { s.ms += ms; return; }
    stages_.push_back({name, ms});
  }
  const std::vector<Stage>& stages() const { return stages_; }
  double total() const {
    double t = 0;
    for (const Stage& s : stages_) t += s.ms;
    return t;
  }

 private:
  std::vector<Stage> stages_;
};

/// Adds the lifetime of the scope to a stage of a profile.
class StageTimer {
 public:
  StageTimer(Profile& p, const char* name)
      : p_(p), name_(name), t0_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    const auto t1 = std::chrono::steady_clock::now();
    p_.add(name_, std::chrono::duration<double, std::milli>(t1 - t0_).count());
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Profile& p_;
  const char* name_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace d2t
