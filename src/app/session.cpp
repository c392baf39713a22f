#include "app/session.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/options.h"
#include "gpu/contact/contact_camera.h"
#include "gpu/skin/gpu_skin.h"
#include "sim/morph/morph_targets.h"
#include "sim/scene/obj_loader.h"

namespace d2t {

void Session::load(const std::string& path, const Options* o) {
  load(readSceneFile(path), path, o);
}

void Session::load(const nlohmann::json& json, const std::string& path, const Options* o) {
  Scene scene = parseScene(json, path);
  if (o && o->dt) scene.simulation.dt = *o->dt;
  if (o && o->backend) scene.simulation.backend = *o->backend;
  if (o && o->solver) scene.simulation.solver.method = *o->solver;
  if (o && o->tolerance) scene.simulation.solver.tolerance = *o->tolerance;
  if (o && o->resolution)
    for (BodyDesc& b : scene.bodies) b.atlasResolution = *o->resolution;
  requestedBackend = scene.simulation.backend;
  start(scene);
  sceneJson = json;
  scenePath = path;
}

std::string Session::addMesh(const std::string& objPath, bool softBody, const Vec3& at, int nodes, int bones) {
  const std::string path = std::filesystem::absolute(objPath).lexically_normal().string();
  loadObjSoup(path);  // (throws naming the file)
  // a name of its own: the file's stem, numbered past the scene's names
  std::vector<std::string> names;
  for (const Body& b : world->bodies()) names.push_back(b.desc.name);
  for (const Character& c : world->characters()) names.push_back(c.spec.name);
  for (const Collider& c : world->colliders()) names.push_back(c.name());
  const std::string stem = std::filesystem::path(path).stem().string();
  std::string name = stem;
  for (int k = 2; std::find(names.begin(), names.end(), name) != names.end(); ++k) name = stem + std::to_string(k);
  nlohmann::json entry = {{"name", name}, {"shape", {{"type", "obj"}, {"path", path}}}};
  nlohmann::json json = sceneJson;
  if (softBody) {
    entry["mesh"] = {{"nodes", nodes}};
    if (bones > 0) entry["skeleton"] = {{"from", "medial_axis"}, {"bones", bones}};
    json["bodies"].push_back(entry);
  } else {
    entry["type"] = "mesh";
    entry["draggable"] = true;
    json["colliders"].push_back(entry);
  }
  Scene scene = parseScene(json, scenePath);  // (throws naming the scene, the field and the file)
  scene.simulation.dt = world->settings().dt;
  // placed with its lowest point at `at` (a body 2 cm above it), its box centred over it: the
  // shape as the reader made it (centred, closed, re-meshed) tells where that is in its frame
  const auto place = [&](const std::vector<Vec3>& surface, Vec3* position, nlohmann::json* field, double lift) {
    Aabb box;
    for (const Vec3& x : surface) box.grow(x);
    *position = at + Vec3(0, lift, 0) - Vec3(0.5 * (box.lo.x() + box.hi.x()), box.lo.y(), 0.5 * (box.lo.z() + box.hi.z()));
    (*field)["position"] = {position->x(), position->y(), position->z()};
  };
  for (BodyDesc& b : scene.bodies)
    if (b.name == name) place(b.shape->mesh(64).positions, &b.position, &json["bodies"].back(), 0.02);
  for (CharacterSpec& c : scene.characters)
    if (c.name == name) place(c.surface->positions, &c.position, &json["bodies"].back(), 0.02);
  for (ColliderDesc& c : scene.colliders)
    if (c.name == name) place(c.shape->mesh(64).positions, &c.position, &json["colliders"].back(), 0.0);
  start(scene);
  sceneJson = std::move(json);
  for (const Body& b : world->bodies())
    if (b.desc.name == name)
      return "body '" + name + "': " + (b.desc.repair.empty() ? path + ": closed and star-shaped" : b.desc.repair) +
             "; on the cube-map atlas (" + std::to_string(b.desc.atlasResolution) + "^2)";
  for (const Character& c : world->characters())
    if (c.spec.name == name)
      return "body '" + name + "': " + c.spec.repair + "; a mesh body on the general surface layout (" +
             std::to_string(c.model->nodeCount()) + " nodes, " + std::to_string(c.model->boneCount()) +
             (c.model->boneCount() == 1 ? " bone" : " bones") + ", CPU)";
  for (const Collider& c : world->colliders())
    if (c.name() == name)
      return "collider '" + name + "': " + path + ": " + std::to_string(c.pieces().size()) +
             (c.pieces().size() == 1 ? " piece" : " pieces") + " for stage 1 (draggable)";
  return name;
}

void Session::start(const Scene& desc) {
  Scene scene = desc;
  scene.simulation.backend = "cpu";  // until setBackend puts the bodies on the GPU
  auto w = std::make_unique<World>(scene);
  world = std::move(w);
  gpuFailures_ = 0;
  loadNotes.clear();
  for (const Body& b : world->bodies())
    if (!b.desc.repair.empty()) loadNotes.push_back("body '" + b.desc.name + "': " + b.desc.repair);
  for (const Character& c : world->characters())
    if (!c.spec.repair.empty()) loadNotes.push_back("body '" + c.spec.name + "': " + c.spec.repair);
  for (const std::string& n : loadNotes) std::cerr << "d2tsim: note: " << n << "\n";
  drag_ = -1;
  log.clear();
  accumulator = 0;
  lastWarning.clear();
  backendNote.clear();
  if (glReady || requestedBackend == "cpu") setBackend(requestedBackend);
  timeline.reset();
  timelineNotice.clear();
  setRecording(recording);
}

void Session::setRecording(bool on) {
  recording = on;
  if (!on) timeline.reset();
  if (on && !timeline && world) timeline = std::make_unique<Timeline>(*world);
}

void Session::saveScene(const std::string& path) {
  nlohmann::json json = sceneJson;
  json["metaphors"] = nlohmann::json::array();
  for (const MetaphorDesc& m : world->metaphorDescs()) json["metaphors"].push_back(toJson(m));
  if (json["metaphors"].empty()) json.erase("metaphors");
  parseScene(json, path);  // (what is written must load: the same checks as the file's)
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot be written (" + std::strerror(errno) + ")");
  out << json.dump(2) << "\n";
  if (!out) throw InputError(path + ": writing failed (" + std::strerror(errno) + ")");
  // (sceneJson stays the scene as it ran from the start: a recording's scene)
}

void Session::input(const WorldInput& in) {
  if (!timeline) {
    applyInput(*world, in);
    return;
  }
  timeline->input(*world, in);
  noteTimeline();
}

void Session::seek(long k) {
  if (!timeline) return;
  paused = true;
  if (drag_ >= 0) endDrag();
  timeline->seek(*world, k);
  noteTimeline();
  accumulator = 0;
}

void Session::noteTimeline() {
  const std::string notice = timeline->takeNotice();
  if (notice.empty()) return;
  std::cerr << "d2tsim: note: " << notice << "\n";
  lastWarning = timelineNotice = notice;
}

void Session::setBackend(const std::string& backend) {
  requestedBackend = backend;
  backendNote.clear();
  for (Body& b : world->bodies()) b.layered.setFreeMotionSolver(nullptr);
  world->setPairFinder(nullptr);
  contactCamera.reset();
  gpuSkins.clear();
  world->settings().backend = "cpu";
  if (backend != "gpu") return;
  if (!glReady) {
    backendNote = "no OpenGL context: the GPU solver cannot run, running the CPU backend";
  } else {
    try {
      std::vector<std::shared_ptr<GpuSkin>> skins;
      for (const Body& b : world->bodies()) skins.push_back(std::make_shared<GpuSkin>(b.model));
      std::shared_ptr<ContactCamera> camera;
      if (world->hasPairs()) camera = std::make_shared<ContactCamera>();
      for (size_t i = 0; i < skins.size(); ++i) world->bodies()[i].layered.setFreeMotionSolver(skins[i]);
      world->setPairFinder(camera);
      world->settings().backend = "gpu";
      contactCamera = camera;
      gpuSkins = std::move(skins);
      size_t reduced = 0;
      for (const Body& b : world->bodies()) reduced += b.model->morph && b.model->morph->basis;
      if (reduced > 0)
        std::cerr << "d2tsim: note: the reduced bodies (" << reduced
                  << ", morph targets' \"reduction\") step on the CPU: their solve is r x r\n";
      if (!world->characters().empty())
        std::cerr << "d2tsim: note: the characters (" << world->characters().size()
                  << ") solve their skins on the CPU; the GPU backend runs the other bodies\n";
      return;
    } catch (const GlError& e) {
      backendNote = std::string("the GPU solver cannot run (") + e.what() + "): running the CPU backend";
    }
  }
  std::cerr << "d2tsim: warning: " << backendNote << "\n";
}

void Session::step() {
  if (drag_ >= 0) moveDragged();
  const auto t0 = std::chrono::steady_clock::now();
  if (timeline) {
    timeline->step(*world);  // (a panel's edit since the last step is recorded first)
    noteTimeline();
  } else {
    world->step();
  }
  const auto t1 = std::chrono::steady_clock::now();
  // what the statistics panel plots besides the stage times, and the bench CSV's counts
  StepSummary sum;
  for (const Body& b : world->bodies()) {
    sum.cgIterations = std::max(sum.cgIterations, float(b.stats.cgIterations));
    sum.cgIterationsTotal += b.stats.cgIterations;
    sum.cgResidual = std::max(sum.cgResidual, float(b.stats.cgResidual));
    sum.contacts += float(b.stats.contacts);
    sum.energy += float(b.stats.energy);  // (the step's blow-up check computed it)
  }
  for (const Character& c : world->characters()) sum.contacts += float(c.stats.contacts);
  log.record(world->profile(), std::chrono::duration<double, std::milli>(t1 - t0).count(), sum);
  if (world->settings().backend == "gpu" && world->backendFailures() != gpuFailures_) {
    gpuFailures_ = world->backendFailures();
    setBackend("cpu");  // the GPU solver failed during the step (warned): no body left on it
    backendNote = "the GPU solver failed: running the CPU backend";
  }
  for (const std::string& w : world->takeWarnings()) {
    std::cerr << "d2tsim: warning: " << w << "\n";
    lastWarning = w;
  }
}

int Session::advance(double wallSeconds, int maxSteps, double budgetSeconds) {
  if (paused) return 0;
  const double dt = world->settings().dt;
  accumulator += wallSeconds * realTimeFactor;
  // the steps owed, counted first so that a drag is spread evenly over them
  int owed = 0;
  for (double a = accumulator; a >= dt && owed < maxSteps; a -= dt) ++owed;
  dragStepsLeft_ = owed;
  const auto start = std::chrono::steady_clock::now();
  int taken = 0;
  while (taken < owed) {
    step();
    accumulator -= dt;
    ++taken;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= budgetSeconds) break;
  }
  dragStepsLeft_ = 0;
  // cannot keep up: slow down instead of spiralling
  if (owed == maxSteps || taken < owed) accumulator = 0;
  return taken;
}

void Session::reset() {
  drag_ = -1;  // World::reset puts every collider back (drag ended, script on)
  world->reset();
  log.clear();
  accumulator = 0;
  timeline.reset();  // (a new run: its recording starts again)
  setRecording(recording);
}

bool Session::beginDrag(int index) {
  auto& cs = world->colliders();
  if (index < 0 || index >= int(cs.size()) || !cs[size_t(index)].desc().draggable) return false;
  if (drag_ >= 0 && drag_ != index) endDrag();
  drag_ = index;
  dragTarget_ = cs[size_t(index)].position();
  input(colliderDrag(index, dragTarget_, 0));  // held from now on: the script stops
  return true;
}

bool Session::beginSkinDrag(int body, int node, const Vec3& target) {
  const auto& bodies = world->bodies();
  if (body < 0 || body >= int(bodies.size()) || node < 0 || node >= bodies[size_t(body)].nodes()) return false;
  endDrag();
  input(WorldInput::make(WorldInput::Kind::SkinDrag, body, node, target));
  return true;
}

bool Session::beginCharacterDrag(int character, int node, const Vec3& target) {
  const auto& cs = world->characters();
  if (character < 0 || character >= int(cs.size()) || node < 0 || node >= cs[size_t(character)].model->nodeCount())
    return false;
  endDrag();
  input(WorldInput::make(WorldInput::Kind::CharacterDrag, character, node, target));
  return true;
}

void Session::dragTo(const Vec3& target) {
  if (world->skinDragBody() >= 0 || world->characterDrag() >= 0)  // the spring pulls it there while running
    input(WorldInput::make(WorldInput::Kind::DragMove, -1, -1, target));
  if (drag_ < 0) return;
  dragTarget_ = target;
  if (paused) input(colliderDrag(drag_, target, 0));  // placed, at rest
}

void Session::endDrag() {
  if (world->skinDragBody() >= 0 || world->characterDrag() >= 0) input(WorldInput::make(WorldInput::Kind::DragEnd));
  if (drag_ < 0) return;
  input(WorldInput::make(WorldInput::Kind::ColliderRelease, drag_));
  drag_ = -1;
}

WorldInput Session::colliderDrag(int index, const Vec3& target, double dt) {
  return WorldInput::make(WorldInput::Kind::ColliderDrag, index, -1, target, dt);
}

// One step's share of the way to the drag target: 1/k of it with k steps left in
// this advance() (all of it for a single step), capped at kMaxDragSpeed.
void Session::moveDragged() {
  Collider& c = world->colliders()[size_t(drag_)];
  const double dt = world->settings().dt;
  Vec3 move = (dragTarget_ - c.position()) / double(std::max(dragStepsLeft_, 1));
  const double cap = kMaxDragSpeed * dt;
  if (move.norm() > cap) move *= cap / move.norm();
  input(colliderDrag(drag_, c.position() + move, dt));
  if (dragStepsLeft_ > 0) --dragStepsLeft_;
}

}  // namespace d2t
