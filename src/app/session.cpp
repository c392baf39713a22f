#include "app/session.h"

#include <chrono>
#include <iostream>

#include "app/options.h"
#include "gpu/contact_camera.h"
#include "gpu/gpu_skin.h"

namespace d2t {

void Session::load(const std::string& path, const Options* o) {
  Scene scene = loadScene(path);
  if (o && o->dt) scene.simulation.dt = *o->dt;
  if (o && o->backend) scene.simulation.backend = *o->backend;
  if (o && o->resolution)
    for (BodyDesc& b : scene.bodies) b.atlasResolution = *o->resolution;
  requestedBackend = scene.simulation.backend;
  scene.simulation.backend = "cpu";  // until setBackend puts the bodies on the GPU
  auto w = std::make_unique<World>(scene);
  world = std::move(w);
  scenePath = path;
  log.clear();
  accumulator = 0;
  lastWarning.clear();
  backendNote.clear();
  if (glReady || requestedBackend == "cpu") setBackend(requestedBackend);
}

void Session::setBackend(const std::string& backend) {
  requestedBackend = backend;
  backendNote.clear();
  for (Body& b : world->bodies()) b.layered.setFreeMotionSolver(nullptr);
  world->setSkinContactFinder(nullptr);
  world->settings().backend = "cpu";
  if (backend != "gpu") return;
  if (!glReady) {
    backendNote = "no OpenGL context: the GPU solver cannot run, running the CPU backend";
  } else {
    try {
      std::vector<std::shared_ptr<GpuSkin>> skins;
      for (const Body& b : world->bodies()) skins.push_back(std::make_shared<GpuSkin>(b.model));
      std::shared_ptr<ContactCamera> camera;
      if (world->bodies().size() > 1) camera = std::make_shared<ContactCamera>();
      for (size_t i = 0; i < skins.size(); ++i) world->bodies()[i].layered.setFreeMotionSolver(skins[i]);
      if (camera)
        world->setSkinContactFinder([camera](const LayeredBody& a, const LayeredBody& b, const ProxyContact& p,
                                             std::vector<NodeContact>* ca, std::vector<NodeContact>* cb) {
          return camera->find(a, b, p, ca, cb);
        });
      world->settings().backend = "gpu";
      return;
    } catch (const GlError& e) {
      backendNote = std::string("the GPU solver cannot run (") + e.what() + "): running the CPU backend";
    }
  }
  std::cerr << "d2tsim: warning: " << backendNote << "\n";
}

void Session::step() {
  const auto t0 = std::chrono::steady_clock::now();
  world->step();
  const auto t1 = std::chrono::steady_clock::now();
  int contacts = 0, cgIterations = 0;
  for (const Body& b : world->bodies()) {
    contacts += b.stats.contacts;
    cgIterations += b.stats.cgIterations;
  }
  log.record(world->profile(), std::chrono::duration<double, std::milli>(t1 - t0).count(), contacts,
             cgIterations);
  bool allOnGpu = true;
  for (const Body& b : world->bodies()) allOnGpu = allOnGpu && b.layered.freeMotionSolver();
  if (world->settings().backend == "gpu" && !allOnGpu) {
    setBackend("cpu");  // the GPU solver failed during the step (warned): no body left on it
    backendNote = "the GPU solver failed: running the CPU backend";
  }
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
