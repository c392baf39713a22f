// The world: bodies and colliders stepped together (World::step is the list of the
// stages of Fig. 3.5). Sections, in file order:
//   Body, World lifetime, materials, reset, energy, the skin drag, health checks
//   (detection, steps 6-8 and 14, is in detection.cpp)
//   (the response across bodies, steps 9-13 in sweeps with the pair units, is in response.cpp)
//   the step       World::step and its stages: moveColliders, beginBodies, integrateFree,
//                  contactGroups, correctAll, summarizeAll, correctLimitsAll, checkHealth,
//                  updateStats

#include "sim/world/world.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>


namespace d2t {

Body::Body(const BodyDesc& d, BakedBodyPtr m) : desc(d), model(m), layered(m, d), proxy(makeProxy(*m)) {
  layered.settings().fixedCore = d.fixedCore;
  applyPose(0);
  layered.saveGood();
  energyTolerance = baseTolerance(*m, d);
  refreshState();
}

bool Body::applyPose(double time) {
  MorphElasticity* m = layered.morphTargets();
  if (!m) return false;
  const uint64_t before = m->version();
  m->setEnabled(pose.enabled);
  m->setPose(pose.manual.empty() ? desc.morph->poseAt(time) : pose.manual);
  return m->version() != before;
}

double Body::baseTolerance(const BakedBody& m, const BodyDesc& d) {
  double radius = 0;
  for (int i = 0; i < m.nodeCount(); ++i) radius = std::max(radius, m.restSkin[i].norm());
  // 10% of the body's mechanical energy scale (its weight over its size, and its
  // motion): a blow-up grows without bound, while contact and correction may add a
  // little (the restitution impulse and the position correction are not conservative)
  return 0.1 * (m.totalMass * 9.81 * radius + 0.5 * m.totalMass * d.velocity.squaredNorm()) + 1e-9;
}

std::vector<Vec3> Body::skinPositions() const {
  std::vector<Vec3> x(nodes());
  for (int i = 0; i < nodes(); ++i) x[i] = layered.nodePosition(i);
  return x;
}

void Body::refreshState(const SkinSummary& skin) {
  const CoreState& s = layered.core();
  state.position = layered.centerOfMass(skin);
  state.orientation = s.orientation;
  state.velocity = layered.linearMomentum(skin) / mass();
  state.angularVelocity = s.orientation * s.angularVelocity;
}

World::World(const Scene& scene) : scene_(scene) {
  for (const ColliderDesc& c : scene_.colliders) colliders_.emplace_back(c);
  bodies_.reserve(scene_.bodies.size());
  for (const BodyDesc& d : scene_.bodies) bodies_.emplace_back(d, bake(d));
  characters_.reserve(scene_.characters.size());
  for (const CharacterSpec& c : scene_.characters) characters_.emplace_back(c, bakeCharacter(characterDesc(c)));
  metaphors_ = makeMetaphors(scene_.metaphors, scene_.file + ": /metaphors/");
  for (const auto& m : metaphors_) bodyNamed(m->desc().body)->layered.addLoad(m);
}

Body* World::bodyNamed(const std::string& name) {
  const auto it = std::find_if(bodies_.begin(), bodies_.end(), [&](const Body& b) { return b.desc.name == name; });
  return it == bodies_.end() ? nullptr : &*it;
}

std::vector<std::shared_ptr<Metaphor>> World::makeMetaphors(const std::vector<MetaphorDesc>& list,
                                                            const std::string& where) {
  std::vector<std::shared_ptr<Metaphor>> made;
  for (size_t k = 0; k < list.size(); ++k) {
    const MetaphorDesc& m = list[k];
    const std::string at = where + std::to_string(k);
    const Body* body = bodyNamed(m.body);
    if (!body) throw InputError(at + "/body: no body is named \"" + m.body + "\"");
    for (size_t j = 0; j < k; ++j)
      if (list[j].name == m.name) throw InputError(at + "/name: another metaphor is named \"" + m.name + "\"");
    try {
      made.push_back(std::make_shared<Metaphor>(m, *body->model));
    } catch (const InputError& e) {
      throw InputError(at + ": " + e.what());
    }
  }
  return made;
}

void World::setMetaphors(const std::vector<MetaphorDesc>& list) {
  std::vector<MetaphorDesc> checked;
  for (size_t k = 0; k < list.size(); ++k)
    checked.push_back(checkedMetaphor(list[k], "metaphors/" + std::to_string(k) + " ('" + list[k].name + "')"));
  std::vector<std::shared_ptr<Metaphor>> made = makeMetaphors(checked, "metaphors/");  // (throws: nothing changed)
  for (const auto& m : metaphors_) bodyNamed(m->desc().body)->layered.removeLoad(m.get());
  metaphors_ = std::move(made);
  for (const auto& m : metaphors_) {
    m->setTime(time_);
    bodyNamed(m->desc().body)->layered.addLoad(m);
  }
}

std::vector<MetaphorDesc> World::metaphorDescs() const {
  std::vector<MetaphorDesc> out;
  for (const auto& m : metaphors_) out.push_back(m->desc());
  return out;
}

double World::setMaterial(size_t index, const Material& material) {
  Body& b = bodies_.at(index);
  checkedMaterial(material, "body '" + b.desc.name + "'");
  // the regions' ratios to the body's material are the scene's: scaled from the scene's own
  // values, not from the last edit's (a material set back is the scene's model bit for bit,
  // which a timeline's restore of an older state asks for)
  BodyDesc d = b.desc;
  const BodyDesc& base = scene_.bodies.at(index);
  d.regions = base.regions;
  for (MaterialRegion& r : d.regions) {
    r.young *= material.young / base.material.young;
    r.density *= material.density / base.material.density;
  }
  d.material = material;
  const auto t0 = std::chrono::steady_clock::now();
  BakedBodyPtr m = bake(d);  // validates the material; the atlas build is a small part of it
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  b.layered.replaceModel(m, d);
  b.model = m;
  b.desc = d;
  b.applyPose(time_);  // (the new model's targets at the pose)
  b.energyTolerance = Body::baseTolerance(*m, d);
  rebaseEnergy();  // the energy's reference changed
  b.layered.saveGood();
  b.refreshState();
  return ms;
}

void World::reset() {
  skinDrag_ = -1;  // (resetToDesc ends the drag)
  characterDrag_ = -1;
  time_ = 0;
  pairsInContact_.clear();
  lastContacts_.clear();
  steps_ = 0;
  for (Collider& c : colliders_) c.reset();
  for (Body& b : bodies_) {
    b.layered.resetToDesc();
    b.applyPose(0);
    b.layered.saveGood();
    b.lastResetStep = -1;
    b.stats = BodyStats{};
    b.refreshState();
  }
  for (Character& c : characters_) {
    c.stats = CharacterStats{};
    c.start();
  }
  rebaseEnergy();
}

std::vector<std::string> World::takeWarnings() {
  std::vector<std::string> w;
  w.swap(warnings_);
  return w;
}

Energy World::energy(const Body& b, const SkinSummary& skin) const {
  Energy e;
  e.kinetic = b.layered.kineticEnergy(skin);
  e.gravitational = b.layered.gravitationalEnergy(skin, settings().gravity);
  e.elastic = skin.elastic;
  e.spring = b.layered.springEnergy();
  return e;
}

void World::beginSkinDrag(size_t body, int node, const Vec3& target, double stiffness, double damping) {
  Body& b = bodies_.at(body);
  if (node < 0 || node >= b.nodes())
    throw std::out_of_range("beginSkinDrag: body '" + b.desc.name + "' has no node " + std::to_string(node));
  if (stiffness <= 0) {
    const double own = b.model->stiffness[size_t(node)][0].trace() / 3;  // slot 0: the node itself
    stiffness = std::min(b.mass() * std::pow(2 * kPi * kDragFrequency, 2), own);
  }
  endSkinDrag();
  b.layered.beginDrag(node, target, stiffness);
  if (damping < 0) b.layered.beginDrag(node, target, stiffness, -damping * b.layered.drag().damping);
  skinDrag_ = int(body);
}

void World::beginCharacterDrag(size_t character, int node, const Vec3& target, double stiffness) {
  Character& c = characters_.at(character);
  if (node < 0 || node >= c.model->nodeCount())
    throw std::out_of_range("beginCharacterDrag: character '" + c.spec.name + "' has no node " + std::to_string(node));
  const CharacterModel& m = *c.model;
  if (stiffness <= 0) {
    const int e = m.stencil.start[size_t(node)];  // (the node itself: its first stencil entry)
    stiffness = std::min(m.totalMass * std::pow(2 * kPi * kDragFrequency, 2), m.stiffness[size_t(e)].trace() / 3);
  }
  endSkinDrag();
  c.body->beginDrag(node, target, stiffness, 2 * std::sqrt(stiffness * m.totalMass));
  characterDrag_ = int(character);
}

void World::moveSkinDrag(const Vec3& target) {
  if (skinDrag_ >= 0) bodies_[size_t(skinDrag_)].layered.moveDrag(target);
  if (characterDrag_ >= 0) characters_[size_t(characterDrag_)].body->moveDrag(target);
}

void World::endSkinDrag() {
  if (characterDrag_ >= 0) {
    characters_[size_t(characterDrag_)].body->endDrag();
    characterDrag_ = -1;
  }
  if (skinDrag_ < 0) return;
  bodies_[size_t(skinDrag_)].layered.endDrag();
  rebaseEnergy();  // the drag did work: the bound restarts
  skinDrag_ = -1;
}

// A state is healthy when it is finite, no node has moved by more than twice its
// layer thickness against the core (stretchPart: the linear model is meaningless long
// before),
// and nothing moves faster than 1 km/s.
bool World::healthy(const Body& b, const SkinSummary& skin) const {
  const CoreState& s = b.layered.core();
  if (!s.position.allFinite() || !s.velocity.allFinite() || !s.angularVelocity.allFinite() ||
      !s.orientation.coeffs().allFinite())
    return false;
  if (s.velocity.norm() > 1e3 || s.angularVelocity.norm() > 1e4 || s.position.norm() > 1e6) return false;
  // (written so that a NaN fails)
  return skin.finite && skin.maxStretch <= 2 && skin.maxQdot <= 1e3;
}

bool World::energyBounded(const std::vector<size_t>& group, bool outsideWork, const std::vector<double>& kinetic,
                          std::map<std::vector<size_t>, double>* floors) {
  double e = 0, tolerance = 0;
  for (size_t i : group) {
    e += bodies_[i].stats.energy;
    tolerance += bodies_[i].energyTolerance + kKineticTolerance * kinetic[i];
  }
  if (group.size() == 1) {
    Body& b = bodies_[group[0]];
    if (outsideWork || b.energyFloor >= 1e299) {
      b.energyFloor = e;
      return true;
    }
    if (e > b.energyFloor + tolerance) return false;
    b.energyFloor = std::min(b.energyFloor, e);
    return true;
  }
  // a group: its floor is kept while the same bodies stay in contact; a body that
  // leaves a group starts a floor of its own (it may have gained energy in it)
  for (size_t i : group) bodies_[i].energyFloor = 1e300;
  auto it = groupFloors_.find(group);
  double floor = it == groupFloors_.end() || outsideWork ? e : std::min(it->second, e);
  if (it != groupFloors_.end() && !outsideWork && e > it->second + tolerance) return false;
  (*floors)[group] = floor;
  return true;
}

// One step of Fig. 3.5 (dissertation; Fig. 5 of the DDT paper) across the bodies:
// every body's collision-free update, then the contacts found at all the predicted
// states, every response, the contacts again and every correction, so that bodies in
// contact see each other at the same stage. Each stage is timed into profile_.
void World::step(double dt) {
  profile_.clear();
  for (const auto& m : metaphors_) m->setTime(time_);  // (their forces at the step's start)
  moveColliders(dt);                     // kinematic colliders to t + dt
  poseBodies(dt);                        // morph targets: the pose at t + dt, K_e(s) and f0(s)
  beginBodies(dt);                       // start states; the contact support planned
  integrateFree(dt);                     // 1-5  collision-free update
  std::vector<std::vector<NodeContact>> contacts = findAllContacts(false);  // 6-8
  const std::vector<std::vector<size_t>> groups = contactGroups(contacts);
  respondAll(contacts, dt);              // 9-13 contact response
  lastContacts_ = contacts;              // (respond dropped the ones without depth)
  contacts = findAllContacts(true);      // 14   detection again
  correctAll(contacts, dt);              // 15   constraint correction
  separateCores();                       // 15   ... and the cores of two bodies apart
  std::vector<SkinSummary> skins = summarizeAll();  // (one pass a body: the limits, checks, statistics)
  correctLimitsAll(&skins);              // 15   ... the nodes past a limit on the core
  checkHealth(groups, dt, &skins);       // blow-up: rollback
  stepCharacters(dt);                    // the characters (ch. 4): character_coupling.cpp
  time_ += dt;
  ++steps_;
  updateStats(skins);
}

void World::moveColliders(double dt) {
  StageTimer t(profile_, Stage::Colliders);
  for (Collider& c : colliders_) c.animate(time_ + dt);
}

// The morph targets' pose at the step's end (a kinematic source, ch. 5 sec. 2: s(t_{n+1}))
// or the one the user holds; the weights, K_e(s) and f0(s) follow (MorphElasticity). A
// change of the weights changes W(q, s) at fixed q: outside work for the energy check.
void World::poseBodies(double dt) {
  StageTimer t(profile_, Stage::Pose);
  for (Body& b : bodies_) b.poseChanged = b.applyPose(time_ + dt);
}

void World::setPoseControl(size_t body, const PoseControl& control) {
  Body& b = bodies_.at(body);
  const std::string at = "body '" + b.desc.name + "': morph_targets pose";
  if (!b.desc.morph) throw InputError(at + ": the body has no morph targets");
  const size_t channels = b.desc.morph->channels.size();
  if (!control.manual.empty() && control.manual.size() != channels)
    throw InputError(at + ": expected " + std::to_string(channels) + " values (one per channel), got " +
                     std::to_string(control.manual.size()));
  for (double v : control.manual)
    if (!std::isfinite(v)) throw InputError(at + ": a pose value is not finite");
  b.pose = control;
}

void World::beginBodies(double dt) {
  for (Body& b : bodies_) {
    LayeredSettings& ls = b.layered.settings();
    ls.cgIterations = settings().solver.iterations;
    ls.cgTolerance = settings().solver.tolerance;
    ls.response = settings().response;
    const std::string& method = settings().solver.method;
    ls.method = method == "cg"       ? SolverMethod::CG
                : method == "direct" ? SolverMethod::Direct
                : method == "cg_dilu" ? SolverMethod::CgDilu
                                      : SolverMethod::Auto;
    b.layered.startStep(dt, settings().gravity, profile_);
  }
  StageTimer t(profile_, Stage::Support);
  if (settings().response.pairSupportBalance) balancePairSupport();
}

bool World::bodiesInParallel() const {
  if (bodies_.size() < 2) return false;
  for (const Body& b : bodies_)
    if (b.layered.freeMotionSolver() != nullptr) return false;
  return true;
}

void World::runTasks(const std::vector<size_t>& tasks, bool parallel,
                     const std::function<void(size_t, Profile&)>& task) {
  const int threads = std::min(omp_get_max_threads(), int(tasks.size()));
  if (!parallel || threads < 2) {
    for (size_t k : tasks) task(k, profile_);
    return;
  }
  std::vector<Profile> profiles(size_t(threads), Profile{});
  std::vector<std::exception_ptr> errors(tasks.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (size_t j = 0; j < tasks.size(); ++j) {
    try {
      task(tasks[j], profiles[size_t(omp_get_thread_num())]);
    } catch (...) {
      errors[j] = std::current_exception();
    }
  }
  profile_.mergeBusiest(profiles);
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

void World::eachBody(const std::vector<size_t>& which, const std::function<void(size_t, Profile&)>& task) {
  if (!bodiesInParallel()) {  // (in order)
    runTasks(which, false, task);
    return;
  }
  // a large body's node loops use the threads themselves (LayeredBody::threadsNodeLoops):
  // those bodies one after another, the others side by side, the largest first. (By
  // size, not by last step's cost: the choice, and with it every rounding, must not
  // depend on timing, for replays to repeat bit for bit.)
  std::vector<size_t> beside;
  for (size_t i : which)
    if (bodies_[i].layered.threadsNodeLoops())
      task(i, profile_);
    else
      beside.push_back(i);
  std::stable_sort(beside.begin(), beside.end(),
                   [&](size_t a, size_t b) { return bodies_[a].nodes() > bodies_[b].nodes(); });
  runTasks(beside, true, task);
}

void World::eachBody(const std::function<void(size_t, Profile&)>& task) {
  std::vector<size_t> all(bodies_.size());
  std::iota(all.begin(), all.end(), size_t(0));
  eachBody(all, task);
}

// Steps 1-5 of every body: each body's own, so across the threads (eachBody).
void World::integrateFree(double dt) {
  eachBody([&](size_t i, Profile& profile) { bodies_[i].layered.integrateStep(dt, settings().gravity, profile); });
  for (Body& b : bodies_) {
    const std::string failure = b.layered.takeBackendFailure();
    if (failure.empty()) continue;
    ++backendFailures_;
    warnings_.push_back("body '" + b.desc.name + "': the GPU solver failed (" + failure +
                        "); this body runs on the CPU from now on");
  }
}

std::vector<std::vector<size_t>> World::contactGroups(const std::vector<std::vector<NodeContact>>& contacts) const {
  // bodies touching each other exchange energy: the energy bound covers each group of
  // bodies in contact (connected through their contacts) as one
  std::vector<size_t> root(bodies_.size());
  std::iota(root.begin(), root.end(), size_t(0));
  auto find = [&](size_t i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (size_t i = 0; i < bodies_.size(); ++i)
    for (const NodeContact& c : contacts[i])
      if (c.other >= 0) root[find(i)] = find(size_t(c.other));
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < bodies_.size(); ++i) groups[find(i)].push_back(i);
  std::vector<std::vector<size_t>> out;
  for (auto& [r, group] : groups) out.push_back(std::move(group));
  return out;
}

void World::correctAll(const std::vector<std::vector<NodeContact>>& contacts, double dt) {
  eachBody([&](size_t i, Profile& profile) { bodies_[i].layered.correct(contacts[i], dt, profile); });
}

// One summary of each body's skin at the end of the step (a pass on the backend that
// holds it) serves the skin's limits, the checks and the statistics; its lowest point is
// along world y.
SkinSummary World::summarize(size_t i, Profile& profile) {
  LayeredBody& l = bodies_[i].layered;
  return l.summarize(l.core().orientation.conjugate() * Vec3::UnitY(), profile);
}

std::vector<SkinSummary> World::summarizeAll() {
  std::vector<SkinSummary> skins(bodies_.size());
  eachBody([&](size_t i, Profile& profile) {
    StageTimer timer(profile, Stage::Check);
    skins[i] = summarize(i, profile);
  });
  return skins;
}

void World::correctLimitsAll(std::vector<SkinSummary>* skins) {
  eachBody([&](size_t i, Profile& profile) {
    if (bodies_[i].layered.correctLimits((*skins)[i], profile)) {
      StageTimer timer(profile, Stage::Check);
      (*skins)[i] = summarize(i, profile);
    }
  });
}

// A non-finite or runaway state, or energy that grew without outside work, is reported
// and rolled back (`skins`: the summaries of the step's end, those of the bodies rolled
// back replaced).
void World::checkHealth(const std::vector<std::vector<size_t>>& groups, double dt, std::vector<SkinSummary>* summaries) {
  StageTimer timer(profile_, Stage::Check);
  std::vector<SkinSummary>& skins = *summaries;
  // the mouse's spring's energy reads its node: from the solver where it holds the skin
  for (Body& b : bodies_)
    if (b.layered.dragging()) b.layered.syncNodes({b.layered.drag().node});
  // kinematic colliders in motion do work on the bodies: no energy bound then
  bool outsideWork = false;
  for (const Collider& c : colliders_)
    outsideWork = outsideWork || c.velocity().squaredNorm() > 0 || c.angularVelocity().squaredNorm() > 0;
  std::vector<char> finite(bodies_.size()), bounded(bodies_.size());
  std::vector<double> kinetic(bodies_.size(), 0.0);
  std::map<std::vector<size_t>, double> floors;
  for (const std::vector<size_t>& group : groups) {
    bool work = outsideWork, allFinite = true;
    for (size_t i : group) {
      finite[i] = healthy(bodies_[i], skins[i]);
      allFinite = allFinite && finite[i];
      if (finite[i]) {
        const Energy e = energy(bodies_[i], skins[i]);
        bodies_[i].stats.energy = e.total();
        kinetic[i] = e.kinetic;
      }
      // (the mouse's spring and the node loads do work; the core springs' potential is in the energy)
      work = work || bodies_[i].layered.dragging() || bodies_[i].poseChanged;
      for (const auto& load : bodies_[i].layered.loads()) work = work || load->working();
    }
    const bool ok = allFinite && energyBounded(group, work, kinetic, &floors);
    for (size_t i : group) bounded[i] = ok;
  }
  groupFloors_ = std::move(floors);
  for (size_t bi = 0; bi < bodies_.size(); ++bi) {
    Body& b = bodies_[bi];
    const bool finiteState = finite[bi];
    if (!bounded[bi]) {
      // Back to the last good state, at rest; if that fails again within
      // kResetRepeatSteps (a material too soft to carry the body: the skin's linear
      // model is past its range, and the last good state is already on the way
      // there), back to the scene's initial state instead of failing every step.
      const bool again = b.lastResetStep >= 0 && steps_ + 1 - b.lastResetStep <= kResetRepeatSteps;
      std::ostringstream w;
      w << "body '" << b.desc.name << "': numerical blow-up at t = " << time_ + dt << " s ("
        << (finiteState ? "energy grew without outside work"
                        : "non-finite, runaway velocity or skin displacement beyond twice the "
                          "layer thickness")
        << "; E = " << b.desc.material.young << " Pa, dt = " << dt << " s); "
        << (again ? "it failed again from its last good state: reset to its initial state"
                  : "reset to its last good state, at rest");
      warnings_.push_back(w.str());
      if (again) {
        b.layered.resetToDesc();
        rebaseEnergy(bi);  // (it starts again from the scene's height)
      } else {
        b.layered.restoreGood();
      }
      b.layered.saveGood();
      b.lastResetStep = steps_ + 1;
      ++b.stats.resets;
      skins[bi] = summarize(bi, profile_);
      b.stats.energy = energy(b, skins[bi]).total();
    } else {
      b.layered.saveGood();  // (on the GPU solver where it holds the skin: a texture copy)
    }
  }
}

// The statistics seen by --metrics and the panels.
void World::updateStats(const std::vector<SkinSummary>& skins) {
  StageTimer t(profile_, Stage::Stats);
  for (size_t bi = 0; bi < bodies_.size(); ++bi) {
    Body& b = bodies_[bi];
    const LayeredStepInfo& info = b.layered.lastStep();
    b.stats.cgIterations = info.cgIterations;
    b.stats.cgResidual = info.cgResidual;
    if (info.cgResidual > settings().solver.tolerance && b.stats.cappedSolves++ == 0) {
      // (once per body: a solve short of its tolerance is a step of lower accuracy, not
      // a failure; the count is in the body's statistics)
      std::ostringstream w;
      w << "body '" << b.desc.name << "': " << kCappedSolveWarning << " of " << settings().solver.iterations
        << " iterations with a relative residual of " << info.cgResidual << " > its tolerance "
        << settings().solver.tolerance << " at t = " << time_ << " s (raise \"solver\": {\"iterations\"}; "
        << "later capped steps are counted in the body's statistics)";
      warnings_.push_back(w.str());
    }
    b.stats.contacts = info.contacts;
    b.stats.maxPenetrationDetected = std::max(b.stats.maxPenetrationDetected, info.maxPenetration);
    b.refreshState(skins[bi]);
    // (the correction stage measured what penetration it left)
    const double pen = info.finalPenetration;
    // (the height of node i is c_y + (R^T e_y) . u_i)
    const double low = std::min(b.stats.minHeight, b.layered.core().position.y() + skins[bi].lowest);
    b.stats.minHeight = low;
    b.stats.coreMinHeight = std::min(b.stats.coreMinHeight, b.layered.coreLowest(Vec3::UnitY()));
    b.stats.coreLimitSteps += info.coreContacts > 0;
    b.stats.finalMaxPenetration = pen;
    b.stats.maxPenetration = std::max(b.stats.maxPenetration, pen);
    if (recordTrajectory_)
      b.stats.trajectory.push_back({time_, b.state.position.x(), b.state.position.y(), b.state.position.z()});
  }
}

}  // namespace d2t
