#pragma once
// A loaded scene being simulated: the world, its step log, and the loop's
// controls. Shared by the windowed and the headless front ends.
#include <memory>
#include <string>

#include "app/step_log.h"
#include "sim/world.h"

namespace d2t {

struct Session {
  std::string scenePath;
  std::unique_ptr<World> world;
  StepLog log;
  bool paused = false;
  double realTimeFactor = 1.0;   ///< simulated seconds per wall-clock second
  double accumulator = 0;        ///< simulated time owed to the fixed-dt loop [s]
  std::string backendNote;       ///< why the requested backend is not the one running, if so
  std::string requestedBackend;  ///< what the scene or the command line asked for

  /// Loads and validates a scene; throws InputError (the session is unchanged then).
  /// With a GL context (glReady) the scene's backend is set up at once.
  void load(const std::string& path, const struct Options* overrides);
  /// Puts every body on the requested backend ("cpu" or "gpu"). Needs a current GL
  /// context for "gpu"; when the GPU solver cannot run (no context, a shader or
  /// framebuffer error) the bodies stay on the CPU and backendNote says why.
  void setBackend(const std::string& backend);
  /// Whether a GL context is current for the session's lifetime (set by the front ends).
  bool glReady = false;
  /// One fixed step, timed into the log; warnings go to stderr and `lastWarning`.
  void step();
  /// Steps owed for `wallSeconds` of real time (at most `maxSteps`, the rest dropped).
  int advance(double wallSeconds, int maxSteps);
  void reset();
  std::string lastWarning;
};

}  // namespace d2t
