// A run's timeline: snapshots, inputs, scrubbing and editing the past (timeline.h).
#include "sim/world/timeline.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/world/world.h"

namespace d2t {

namespace {

// The world's settings as a timeline compares and records them: the backend is the
// front end's choice of solver, not an input of the run (a recording replays on either).
SimulationSettings runSettings(const World& w, const SimulationSettings& known) {
  SimulationSettings s = w.settings();
  s.backend = known.backend;
  return s;
}

std::vector<Material> materialsOf(const World& w) {
  std::vector<Material> m;
  for (const Body& b : w.bodies()) m.push_back(b.desc.material);
  return m;
}

std::vector<PoseControl> posesOf(const World& w) {
  std::vector<PoseControl> p;
  for (const Body& b : w.bodies()) p.push_back(b.pose);
  return p;
}

}  // namespace

Timeline::Timeline(World& world, size_t budgetBytes, int interval)
    : settings_(world.settings()), materials_(materialsOf(world)), metaphors_(world.metaphorDescs()),
      poses_(posesOf(world)),
      first_(world.steps()), head_(world.steps()),
      budget_(budgetBytes) {
  snapshot(world);
  // 20 s of simulation in the budget, at kMinInterval steps at least
  const double perStep = double(snapshots_.begin()->second.bytes) * (20.0 / world.settings().dt) / double(budget_);
  interval_ = interval > 0 ? interval : std::max(kMinInterval, int(std::min(1e9, std::ceil(perStep))));
}

void Timeline::input(World& world, const WorldInput& in) {
  noteChanges(world);
  applyRecorded(world);
  applyInput(world, in);  // (first: an input the world refuses cuts and records nothing)
  cut(world);
  record(world, in);
}

void Timeline::step(World& world) {
  noteChanges(world);
  applyRecorded(world);
  world.step();
  const long k = world.steps();
  if (k > head_) {
    head_ = k;
    if ((k - first_) % interval_ == 0) snapshot(world);
    return;
  }
  const auto it = snapshots_.find(k);  // re-stepping the recorded past: check it
  if (it != snapshots_.end() && stateHash(world.capture()) != it->second.hash) ++divergences_;
}

void Timeline::seek(World& world, long k) {
  noteChanges(world);  // (an edit not yet recorded cuts the future here first)
  k = std::clamp(k, first_, head_);
  auto it = snapshots_.upper_bound(k);
  --it;  // (the first snapshot is never dropped)
  if (world.steps() > k || world.steps() < it->first) {
    const Snapshot& s = it->second;
    WorldInput settings;  // (as a recorded settings input: the front end's backend kept)
    settings.kind = WorldInput::Kind::Settings;
    settings.settings = s.settings;
    applyInput(world, settings);
    for (size_t i = 0; i < world.bodies().size(); ++i)
      if (!(world.bodies()[i].desc.material == s.materials[i])) world.setMaterial(i, s.materials[i]);
    if (!(world.metaphorDescs() == s.metaphors)) world.setMetaphors(s.metaphors);
    for (size_t i = 0; i < world.bodies().size(); ++i)
      if (!(world.bodies()[i].pose == s.poses[i])) world.setPoseControl(i, s.poses[i]);
    world.restore(s.state);
    settings_ = s.settings;
    materials_ = s.materials;
    metaphors_ = s.metaphors;
    poses_ = s.poses;
    appliedAt_ = -1;
  }
  while (world.steps() < k) step(world);
}

std::vector<std::pair<long, uint64_t>> Timeline::checkpoints() const {
  std::vector<std::pair<long, uint64_t>> c;
  for (const auto& [k, s] : snapshots_) c.emplace_back(k, s.hash);
  return c;
}

std::string Timeline::takeNotice() {
  std::string n;
  n.swap(notice_);
  return n;
}

void Timeline::snapshot(World& world) {
  Snapshot s;
  s.state = world.capture();
  s.hash = stateHash(s.state);
  s.bytes = stateBytes(s.state);
  s.settings = settings_;
  s.materials = materials_;
  s.metaphors = metaphors_;
  s.poses = poses_;
  bytes_ += s.bytes;
  snapshots_[world.steps()] = std::move(s);
  thin();
}

void Timeline::noteChanges(World& world) {
  const SimulationSettings now = runSettings(world, settings_);
  if (!(now == settings_)) {
    WorldInput in;
    in.kind = WorldInput::Kind::Settings;
    in.settings = now;
    applyRecorded(world);
    cut(world);
    record(world, in);
  }
  for (size_t i = 0; i < world.bodies().size(); ++i) {
    if (world.bodies()[i].desc.material == materials_[i]) continue;
    WorldInput in;
    in.kind = WorldInput::Kind::Material;
    in.index = int(i);
    in.material = world.bodies()[i].desc.material;
    applyRecorded(world);
    cut(world);
    record(world, in);
  }
  for (size_t i = 0; i < world.bodies().size(); ++i) {
    if (world.bodies()[i].pose == poses_[i]) continue;
    WorldInput in;
    in.kind = WorldInput::Kind::Pose;
    in.index = int(i);
    in.pose = world.bodies()[i].pose.manual;
    in.morphOn = world.bodies()[i].pose.enabled;
    applyRecorded(world);
    cut(world);
    record(world, in);
  }
  if (!(world.metaphorDescs() == metaphors_)) {
    WorldInput in;
    in.kind = WorldInput::Kind::Metaphors;
    in.metaphors = world.metaphorDescs();
    applyRecorded(world);
    cut(world);
    record(world, in);
  }
}

void Timeline::applyRecorded(World& world) {
  const long k = world.steps();
  if (appliedAt_ == k) return;
  appliedAt_ = k;
  const auto from = std::lower_bound(inputs_.begin(), inputs_.end(), k,
                                     [](const Entry& e, long step) { return e.step < step; });
  for (auto it = from; it != inputs_.end() && it->step == k; ++it) {
    applyInput(world, it->input);
    if (it->input.kind == WorldInput::Kind::Settings) settings_ = runSettings(world, settings_);
    if (it->input.kind == WorldInput::Kind::Material) materials_ = materialsOf(world);
    if (it->input.kind == WorldInput::Kind::Metaphors) metaphors_ = world.metaphorDescs();
    if (it->input.kind == WorldInput::Kind::Pose) poses_ = posesOf(world);
  }
}

void Timeline::cut(World& world) {
  const long k = world.steps();
  if (k >= head_) return;
  std::erase_if(inputs_, [k](const Entry& e) { return e.step > k; });
  for (auto it = snapshots_.upper_bound(k); it != snapshots_.end();) {
    bytes_ -= it->second.bytes;
    it = snapshots_.erase(it);
  }
  std::ostringstream n;
  n << "edited at t = " << world.time() << " s (step " << k << "): the recorded future after it (to step " << head_
    << ") is discarded";
  notice_ = n.str();
  head_ = k;
}

void Timeline::record(World& world, const WorldInput& in) {
  appliedAt_ = world.steps();  // (what was recorded at this step before is applied)
  // the mouse moves many times a step: of moves that only set a target, the last one counts
  const auto sets = [](const WorldInput& a) {
    return a.kind == WorldInput::Kind::DragMove || (a.kind == WorldInput::Kind::ColliderDrag && a.dt == 0);
  };
  if (!inputs_.empty() && inputs_.back().step == world.steps() && sets(in) && sets(inputs_.back().input) &&
      inputs_.back().input.kind == in.kind && inputs_.back().input.index == in.index) {
    inputs_.back().input = in;
    return;
  }
  inputs_.push_back({world.steps(), in});
  if (in.kind == WorldInput::Kind::Settings) settings_ = runSettings(world, settings_);
  if (in.kind == WorldInput::Kind::Material) materials_ = materialsOf(world);
  if (in.kind == WorldInput::Kind::Metaphors) metaphors_ = world.metaphorDescs();
  if (in.kind == WorldInput::Kind::Pose) poses_ = posesOf(world);
}

void Timeline::thin() {
  while (bytes_ > budget_ && snapshots_.size() > 1) {
    interval_ *= 2;
    for (auto it = snapshots_.begin(); it != snapshots_.end();) {
      if ((it->first - first_) % interval_ == 0) {
        ++it;
      } else {
        bytes_ -= it->second.bytes;
        it = snapshots_.erase(it);
      }
    }
  }
}

}  // namespace d2t
