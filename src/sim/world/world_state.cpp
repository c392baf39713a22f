// World::capture / World::restore and the hash of a WorldState (world_state.h).
#include "sim/world/world_state.h"

#include <stdexcept>

#include "sim/base/hash.h"
#include "sim/world/world.h"

namespace d2t {

WorldState World::capture() {
  WorldState s;
  s.time = time_;
  s.steps = steps_;
  for (const Collider& c : colliders_) s.colliders.push_back(c.motion());
  for (Body& b : bodies_) {
    BodySnapshot e{b.layered.snapshot(), b.stats, b.lastResetStep, b.energyFloor};
    e.stats.trajectory.clear();  // (restore cuts the body's own back instead)
    s.bodies.push_back(std::move(e));
  }
  for (const Character& c : characters_) {
    s.characters.push_back(c.body->state());
    s.characterStats.push_back(c.stats);
    s.characterStats.back().trajectory.clear();
  }
  s.groupFloors = groupFloors_;
  s.pairsInContact = pairsInContact_;
  s.lastContacts = lastContacts_;
  s.skinDrag = skinDrag_;
  s.characterDrag = characterDrag_;
  for (const Character& c : characters_) s.characterDrags.push_back(c.body->drag());
  return s;
}

void World::restore(const WorldState& s) {
  if (s.characters.size() != characters_.size())
    throw std::invalid_argument("World::restore: the state has " + std::to_string(s.characters.size()) +
                                " characters, this world " + std::to_string(characters_.size()));
  for (size_t i = 0; i < characters_.size(); ++i)
    if (s.characters[i].q.size() != size_t(characters_[i].model->nodeCount()))
      throw std::invalid_argument("World::restore: character '" + characters_[i].spec.name + "' has another model");
  if (s.bodies.size() != bodies_.size() || s.colliders.size() != colliders_.size())
    throw std::invalid_argument("World::restore: the state has " + std::to_string(s.bodies.size()) + " bodies and " +
                                std::to_string(s.colliders.size()) + " colliders, this world " +
                                std::to_string(bodies_.size()) + " and " + std::to_string(colliders_.size()));
  for (size_t i = 0; i < bodies_.size(); ++i)
    if (s.bodies[i].layered.model != bodies_[i].model->fingerprint)
      throw std::invalid_argument("World::restore: body '" + bodies_[i].desc.name +
                                  "' has another model than in the state (its material changed since)");
  time_ = s.time;
  steps_ = s.steps;
  for (size_t i = 0; i < colliders_.size(); ++i) colliders_[i].setMotion(s.colliders[i]);
  for (size_t i = 0; i < bodies_.size(); ++i) {
    Body& b = bodies_[i];
    const BodySnapshot& e = s.bodies[i];
    b.layered.restore(e.layered);
    b.layered.saveGood();  // (the blow-up check's good state is this one, not one from later)
    std::vector<std::array<double, 4>> trajectory = std::move(b.stats.trajectory);
    std::erase_if(trajectory, [&](const std::array<double, 4>& row) { return row[0] > s.time; });
    b.stats = e.stats;
    b.stats.trajectory = std::move(trajectory);
    b.lastResetStep = e.lastResetStep;
    b.energyFloor = e.energyFloor;
    b.refreshState();
  }
  for (size_t i = 0; i < characters_.size(); ++i) {
    Character& c = characters_[i];
    c.body->state() = s.characters[i];
    std::vector<std::array<double, 4>> trajectory = std::move(c.stats.trajectory);
    std::erase_if(trajectory, [&](const std::array<double, 4>& row) { return row[0] > s.time; });
    c.stats = s.characterStats[i];
    c.stats.trajectory = std::move(trajectory);
  }
  groupFloors_ = s.groupFloors;
  pairsInContact_ = s.pairsInContact;
  lastContacts_ = s.lastContacts;
  skinDrag_ = s.skinDrag;
  characterDrag_ = s.characterDrag;
  for (size_t i = 0; i < characters_.size() && i < s.characterDrags.size(); ++i)
    characters_[i].body->setDrag(s.characterDrags[i]);
}

size_t stateBytes(const WorldState& s) {
  const auto of = [](const auto& v) { return v.size() * sizeof(v[0]); };
  size_t n = sizeof s + of(s.colliders) + of(s.bodies) + of(s.characters);
  for (const BodySnapshot& b : s.bodies) {
    const LayeredBody::Snapshot& l = b.layered;
    n += of(l.state.q) + of(l.state.qdot) + of(l.supported) + of(l.warmStart.y);
    for (const auto& x : l.warmStart.solutions) n += of(x);
    for (const auto& x : l.warmStart.products) n += of(x);
  }
  for (const CharacterState& c : s.characters)
    n += of(c.bones) + of(c.q) + of(c.qdot) + of(c.touching) + of(c.support) + of(c.openSide);
  for (const auto& c : s.lastContacts) n += of(c);
  return n;
}

namespace {

void add(Fnv1a& h, const Vec3& v) { h.numbers(v.data(), 3); }
void add(Fnv1a& h, const Quat& q) { h.numbers(q.coeffs().data(), 4); }
void add(Fnv1a& h, const CoreState& c) {
  add(h, c.position);
  add(h, c.orientation);
  add(h, c.velocity);
  add(h, c.angularVelocity);
}
void add(Fnv1a& h, const std::vector<Vec3>& q, const std::vector<Vec3>& qdot) {
  for (const Vec3& x : q) add(h, x);
  for (const Vec3& v : qdot) add(h, v);
}

}  // namespace

uint64_t stateHash(const WorldState& s) {
  Fnv1a h;
  h.numbers(&s.time, 1);
  h.bytes(&s.steps, sizeof s.steps);
  for (const Collider::Motion& c : s.colliders) {
    add(h, c.position);
    add(h, c.orientation);
    add(h, c.velocity);
    add(h, c.angularVelocity);
  }
  for (const BodySnapshot& b : s.bodies) {
    const LayeredState& l = b.layered.state;
    add(h, static_cast<const CoreState&>(l));
    add(h, l.q, l.qdot);
  }
  for (const CharacterState& c : s.characters) {
    for (const CoreState& b : c.bones) add(h, b);
    add(h, c.q, c.qdot);
    for (const Vec3& f : c.support) add(h, f);
    for (const Vec3& s : c.openSide) add(h, s);
  }
  return h.value();
}

}  // namespace d2t
