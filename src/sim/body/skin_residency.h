#pragma once
// Where a layered body's skin state (q, qdot) lives between two reads: on the CPU, in
// its LayeredState, or on the free-motion solver that ran the last stages (the GPU),
// where it stays from step to step so that a step need not send it back and forth.
// The CPU's q and qdot are then a mirror, read back only when asked for, whole or
// node by node, and only through the body's non-const sync methods
// (LayeredBody::syncSkin, syncNodes, syncMoments): a const read never transfers, it
// reads what is current or says that it is not (std::logic_error).
//
// This type only keeps the books (what is current, at which version of the solver's
// skin); LayeredBody does the transfers and the fallback to the CPU.
#include <memory>
#include <string>
#include <vector>

#include "sim/body/skin_summary.h"

namespace d2t {

class FreeMotionSolver;

class SkinResidency {
 public:
  // ---- the solver ----
  FreeMotionSolver* solver() const { return solver_.get(); }
  const std::shared_ptr<FreeMotionSolver>& sharedSolver() const { return solver_; }
  /// Another solver (or none). The caller read the skin back first: the CPU's copy is
  /// the state, the new solver loads it at its first use.
  void attach(std::shared_ptr<FreeMotionSolver> solver) {
    solver_ = std::move(solver);
    holds_ = mirrorStale_ = startStale_ = false;
  }

  // ---- what is current ----
  /// The solver changed the skin since the CPU's copy was read.
  bool mirrorStale() const { return mirrorStale_; }
  /// The start-of-step displacements are the solver's only (not read back).
  bool startStale() const { return startStale_; }
  /// Node i of the CPU's copy is current (the mirror is, or the node was read at this
  /// version of the solver's skin).
  bool nodeCurrent(int i) const { return !mirrorStale_ || pulledAt_[size_t(i)] == version_; }
  /// The solver's copy is the body's current skin (nothing wrote it on the CPU since
  /// the solver's last pass); LayeredBody::skinResident also asks the solver.
  bool solverHolds() const { return holds_ && solver_ != nullptr; }
  /// The solver's moments kept at this version of its skin, or nullptr.
  const SkinSummary* moments() const { return mirrorStale_ && momentsAt_ == version_ ? &moments_ : nullptr; }

  // ---- what happened ----
  /// Everything on the CPU again, for a skin of n nodes (a reset, a restored snapshot).
  void onCpu(int n) {
    holds_ = mirrorStale_ = startStale_ = false;
    pulledAt_.assign(size_t(n), -1);
  }
  /// The solver changed the skin it holds (a pass that writes q or qdot).
  void changedOnSolver() {
    holds_ = mirrorStale_ = true;
    ++version_;
  }
  /// The solver loaded the CPU's skin: its copy is the state, the mirror still current.
  void loadedOnSolver() { holds_ = true; }
  /// The CPU's copy changed (the caller read it back first): the solver's is behind.
  void writtenOnCpu() { holds_ = false; }
  /// The whole skin was read back.
  void mirrorRead() { mirrorStale_ = false; }
  /// Of `nodes`, those not read back at this version yet (each once), marked read.
  std::vector<int> unread(const std::vector<int>& nodes) {
    std::vector<int> wanted;
    for (int i : nodes)
      if (pulledAt_[size_t(i)] != version_) {
        pulledAt_[size_t(i)] = version_;
        wanted.push_back(i);
      }
    return wanted;
  }
  /// A step starts from the current skin: its start is the solver's only if the mirror is stale.
  void stepStarted() { startStale_ = mirrorStale_; }
  void keepMoments(const SkinSummary& s) {
    moments_ = s;
    momentsAt_ = version_;
  }
  /// The solver failed (why): it is dropped, everything is on the CPU.
  void drop(const std::string& why, int n) {
    failure_ = why;
    solver_.reset();
    onCpu(n);
  }
  /// Why the solver was dropped since the last call (then cleared); empty if it was not.
  std::string takeFailure() {
    std::string s;
    s.swap(failure_);
    return s;
  }
  void addToFailure(const std::string& more) { failure_ += more; }

 private:
  std::shared_ptr<FreeMotionSolver> solver_;
  bool holds_ = false;        // the solver's copy is the current skin
  bool mirrorStale_ = false;  // ... and the CPU's is behind it
  bool startStale_ = false;   // the step's start displacements are the solver's only
  long version_ = 0;          // of the solver's skin: bumped by every change there
  std::vector<long> pulledAt_;  // (nnode) the version each node was read back at
  SkinSummary moments_;         // the solver's sum m u, sum m qdot at momentsAt_
  long momentsAt_ = -1;
  std::string failure_;
};

}  // namespace d2t
