#include "app/session.h"

#include <chrono>
#include <iostream>

#include "app/options.h"

namespace d2t {

void Session::load(const std::string& path, const Options* o) {
  Scene scene = loadScene(path);
  if (o && o->dt) scene.simulation.dt = *o->dt;
  if (o && o->backend) scene.simulation.backend = *o->backend;
  if (o && o->resolution)
    for (BodyDesc& b : scene.bodies) b.atlasResolution = *o->resolution;
  backendNote.clear();
  if (scene.simulation.backend == "gpu") {
    // the GPU solver arrives with its own stage; until then the CPU runs the step
    backendNote = "the GPU solver backend is not built yet: running the CPU backend";
    std::cerr << "d2tsim: warning: " << backendNote << "\n";
    scene.simulation.backend = "cpu";
  }
  auto w = std::make_unique<World>(scene);
  world = std::move(w);
  scenePath = path;
  log.clear();
  accumulator = 0;
  lastWarning.clear();
}

void Session::step() {
  const auto t0 = std::chrono::steady_clock::now();
  world->step();
  const auto t1 = std::chrono::steady_clock::now();
  log.record(world->profile(), std::chrono::duration<double, std::milli>(t1 - t0).count());
  for (const std::string& w : world->takeWarnings()) {
    std::cerr << "d2tsim: warning: " << w << "\n";
    lastWarning = w;
  }
}

int Session::advance(double wallSeconds, int maxSteps) {
  if (paused) return 0;
  const double dt = world->settings().dt;
  accumulator += wallSeconds * realTimeFactor;
  int n = 0;
  while (accumulator >= dt && n < maxSteps) {
    step();
    accumulator -= dt;
    ++n;
  }
  if (n == maxSteps) accumulator = 0;  // cannot keep up: slow down instead of spiralling
  return n;
}

void Session::reset() {
  world->reset();
  log.clear();
  accumulator = 0;
}

}  // namespace d2t
