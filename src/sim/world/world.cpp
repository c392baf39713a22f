// The world: bodies and colliders stepped together (World::step is the list of the
// stages of Fig. 3.5). Sections, in file order:
//   Body, World lifetime, materials, reset, energy, the skin drag, health checks
//   (detection, steps 6-8 and 14, is in detection.cpp)
//   pair coupling  pairImpacts (restitution between bodies), balancePairSupport,
//                  balancePairImpulses (Newton's third law), respondAll (9-13 in sweeps)
//   the step       World::step and its stages: moveColliders, beginBodies, integrateFree,
//                  contactGroups, correctAll, checkHealth, updateStats

#include "sim/world/world.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "sim/contact/patch_friction.h"

namespace d2t {

Body::Body(const BodyDesc& d, BakedBodyPtr m) : desc(d), model(m), layered(m, d), proxy(makeProxy(*m)) {
  layered.saveGood();
  double radius = 0;
  for (int i = 0; i < m->nodeCount(); ++i) radius = std::max(radius, m->restSkin[i].norm());
  // 10% of the body's mechanical energy scale (its weight over its size, and its
  // motion): a blow-up grows without bound, while contact and correction may add a
  // little (the restitution impulse and the position correction are not conservative)
  energyTolerance = 0.1 * (m->totalMass * 9.81 * radius +
                            0.5 * m->totalMass * d.velocity.squaredNorm()) + 1e-9;
  refreshState();
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
}

double World::setMaterial(size_t index, const Material& material) {
  Body& b = bodies_.at(index);
  checkedMaterial(material, "body '" + b.desc.name + "'");
  BodyDesc d = b.desc;
  const Material old = d.material;
  for (MaterialRegion& r : d.regions) {
    r.young *= material.young / old.young;
    r.density *= material.density / old.density;
  }
  d.material = material;
  const auto t0 = std::chrono::steady_clock::now();
  BakedBodyPtr m = bake(d);  // validates the material; the atlas build is a small part of it
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double scale = b.energyTolerance / std::max(1e-300, b.model->totalMass);
  b.layered.replaceModel(m, d);
  b.model = m;
  b.desc = d;
  b.energyTolerance = scale * m->totalMass;
  rebaseEnergy();  // the energy's reference changed
  b.layered.saveGood();
  b.refreshState();
  return ms;
}

void World::reset() {
  skinDrag_ = -1;  // (resetToDesc ends the drag)
  time_ = 0;
  pairsInContact_.clear();
  lastContacts_.clear();
  steps_ = 0;
  for (Collider& c : colliders_) c.reset();
  for (Body& b : bodies_) {
    b.layered.resetToDesc();
    b.layered.saveGood();
    b.lastResetStep = -1;
    b.stats = BodyStats{};
    b.refreshState();
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

void World::moveSkinDrag(const Vec3& target) {
  if (skinDrag_ >= 0) bodies_[size_t(skinDrag_)].layered.moveDrag(target);
}

void World::endSkinDrag() {
  if (skinDrag_ < 0) return;
  bodies_[size_t(skinDrag_)].layered.endDrag();
  rebaseEnergy();  // the drag did work: the bound restarts
  skinDrag_ = -1;
}

// A state is healthy when it is finite, no node has moved by more than twice its
// layer thickness against the core (the linear model is meaningless long before),
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

bool World::energyBounded(const std::vector<size_t>& group, bool outsideWork,
                          std::map<std::vector<size_t>, double>* floors) {
  double e = 0, tolerance = 0;
  for (size_t i : group) {
    e += bodies_[i].stats.energy;
    tolerance += bodies_[i].energyTolerance;
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

namespace {

// The pairs of bodies (a < b) with contacts between them (penetrating only: not
// those within the margin).
std::set<std::pair<int, int>> touchingPairs(const std::vector<std::vector<NodeContact>>& contacts,
                                            bool penetrating = false) {
  std::set<std::pair<int, int>> touching;
  for (size_t a = 0; a < contacts.size(); ++a)
    for (const NodeContact& c : contacts[a])
      if (c.other >= 0 && (!penetrating || c.depth > 0))
        touching.insert({std::min(int(a), c.other), std::max(int(a), c.other)});
  return touching;
}

// The nodes of a body's contacts with other bodies, gathered from its GPU solver where
// it holds the skin: the pair bookkeeping reads their positions, and a node read
// without a gather reads the whole skin back.
void prefetchPairNodes(const LayeredBody& body, const std::vector<NodeContact>& list) {
  std::vector<int> nodes;
  for (const NodeContact& c : list)
    if (c.other >= 0) nodes.push_back(c.node);
  body.prefetchNodes(nodes);
}

}  // namespace

// Restitution between bodies: when two bodies begin touching and approach faster
// than gravity explains, one Newton impact on the two rigidified bodies, equal and
// opposite, at the depth-weighted centre of their contacts along the pair normal
// (the node constraints of the sweeps are then inelastic, as against colliders).
void World::pairImpacts(const std::vector<std::vector<NodeContact>>& contacts, double dt) {
  StageTimer timer(profile_, Stage::Impact);
  // (an episode goes on while the pair penetrates or supports each other)
  std::set<std::pair<int, int>> touching = touchingPairs(contacts, true);
  for (const auto& pair : supportingPairs()) touching.insert(pair);
  const double threshold = 2 * settings().gravity.norm() * dt + 1e-3;
  for (const auto& [a, b] : touching) {
    if (pairsInContact_.count({a, b})) continue;  // not a new episode
    LayeredBody &la = bodies_[size_t(a)].layered, &lb = bodies_[size_t(b)].layered;
    prefetchPairNodes(la, contacts[size_t(a)]);
    prefetchPairNodes(lb, contacts[size_t(b)]);
    Vec3 p = Vec3::Zero(), n = Vec3::Zero();
    double wsum = 0, eps = 0;
    for (const NodeContact& c : contacts[size_t(b)]) {  // B's contacts with A: normal from A to B
      if (c.other != a || c.depth <= 0) continue;
      p += c.depth * lb.nodePosition(c.node);
      n += c.depth * c.normal;
      eps += c.depth * c.restitution;
      wsum += c.depth;
    }
    for (const NodeContact& c : contacts[size_t(a)]) {
      if (c.other != b || c.depth <= 0) continue;
      p += c.depth * la.nodePosition(c.node);
      n -= c.depth * c.normal;
      eps += c.depth * c.restitution;
      wsum += c.depth;
    }
    if (wsum <= 0 || n.norm() < 1e-12) continue;
    p /= wsum;
    eps /= wsum;
    n.normalize();
    const RigidMotion ra = rigidMotion(la), rb = rigidMotion(lb);
    const double approach = n.dot(ra.velocityAt(p) - rb.velocityAt(p));
    if (approach <= threshold) continue;
    const double j = (1 + eps) * approach / (1 / ra.effectiveMass(p, n) + 1 / rb.effectiveMass(p, n));
    la.applyRigidImpulse(-j * n, p);
    lb.applyRigidImpulse(j * n, p);
  }
  pairsInContact_ = touching;
}

// Bodies in contact support each other in the free update (LayeredBody::computeSupport),
// each side by its own force into the other. While the contact loads, unloads or
// tilts, the two sides' supports differ, in their totals and in where they act, and
// the couple between them topples a stack (docs/decisions/0015-pair-support-balance.md). So the pair's
// support follows Newton's third law: both totals are taken down to the smaller
// one, and both distributions are reweighted (linearly across the patch, f_i (1 +
// g . d_i)) so that they act at one centre, the mean of the two weighted by how far
// each patch can move its centre (a patch of one node cannot). Along the pair's one
// normal (unifyPairNormal) the support then conserves the pair's linear and angular
// momentum.
std::set<std::pair<int, int>> World::supportingPairs() const {
  std::set<std::pair<int, int>> pairs;
  for (int a = 0; a < int(bodies_.size()); ++a)
    for (int b : bodies_[size_t(a)].layered.supportPartners()) pairs.insert({std::min(a, b), std::max(a, b)});
  return pairs;
}

void World::balancePairSupport() {
  using Entries = std::vector<LayeredBody::SupportEntry>;
  struct Side {
    Entries e;
    double total = 0;
    Vec3 centre = Vec3::Zero();
    Eigen::Matrix2d spread = Eigen::Matrix2d::Zero();  // sum f_i d_i d_i^T over the patch
  };
  for (const auto& [a, b] : supportingPairs()) {
    LayeredBody &la = bodies_[size_t(a)].layered, &lb = bodies_[size_t(b)].layered;
    Side side[2] = {{la.supportFrom(b)}, {lb.supportFrom(a)}};
    Vec3 n = Vec3::Zero();  // from A towards B
    for (const auto& x : side[0].e) n -= x.force * x.normal;
    for (const auto& x : side[1].e) n += x.force * x.normal;
    if (side[0].e.empty() || side[1].e.empty() || n.norm() < 1e-12) {  // one side alone: none
      la.setSupportFrom(b, std::vector<double>(side[0].e.size(), 0.0));
      lb.setSupportFrom(a, std::vector<double>(side[1].e.size(), 0.0));
      continue;
    }
    n.normalize();
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    auto tangent = [&](const Vec3& v) { return Eigen::Vector2d(t1.dot(v), t2.dot(v)); };
    auto measure = [&](Side& s) {
      s.total = 0;
      s.centre.setZero();
      for (const auto& x : s.e) {
        s.total += x.force;
        s.centre += x.force * x.x;
      }
      s.centre /= s.total;
      s.spread.setZero();
      for (const auto& x : s.e) {
        const Eigen::Vector2d d = tangent(x.x - s.centre);
        s.spread += x.force * d * d.transpose();
      }
    };
    for (Side& s : side) measure(s);
    const double total = std::min(side[0].total, side[1].total);
    const double m0 = side[0].spread.trace() / side[0].total, m1 = side[1].spread.trace() / side[1].total;
    const Vec3 centre = m0 + m1 > 0 ? Vec3((m0 * side[0].centre + m1 * side[1].centre) / (m0 + m1))
                                    : Vec3(0.5 * (side[0].centre + side[1].centre));
    for (Side& s : side) {
      // f_i (1 + g . d_i) moves the centre by spread g / total; clamped at 0, so
      // a few passes
      for (int pass = 0; pass < 4; ++pass) {
        const Eigen::Vector2d shift = tangent(centre - s.centre);
        if (shift.norm() < 1e-7 || s.spread.trace() <= 0) break;
        const Eigen::Vector2d g = s.spread.ldlt().solve(s.total * shift);
        if (!g.allFinite()) break;
        for (auto& x : s.e) x.force *= std::max(0.0, 1 + g.dot(tangent(x.x - s.centre)));
        measure(s);
        if (!(s.total > 0)) break;
      }
    }
    for (int k = 0; k < 2; ++k) {
      std::vector<double> f;
      for (const auto& x : side[k].e) f.push_back(side[k].total > 0 ? x.force * total / side[k].total : 0.0);
      (k == 0 ? la : lb).setSupportFrom(k == 0 ? b : a, f);
    }
  }
}

// Newton's third law for the impulses between bodies. Each body's response to another
// is solved against the other's rigidified motion (sec. 5.3.1), and the two sides
// agree only as far as that estimate holds, and the couple between the two sides
// topples a stack (docs/decisions/0016-pair-impulse-balance.md). So after the sweeps,
// what a pair's impulses (normal and
// eq. 14's tangential) add to the pair's momentum and to its angular momentum
// about their common centre P is taken out again, half from each body, as a
// rigid impulse at P: the interaction is then equal and opposite, along one line.
void World::balancePairImpulses(const std::vector<std::vector<NodeContact>>& contacts, double dt) {
  StageTimer timer(profile_, Stage::Impulse);
  for (const auto& [a, b] : touchingPairs(contacts)) {
    LayeredBody* body[2] = {&bodies_[size_t(a)].layered, &bodies_[size_t(b)].layered};
    const int other[2] = {b, a};
    // (a held core takes whatever reaches it, as a collider does: nothing to balance)
    if (body[0]->settings().fixedCore || body[1]->settings().fixedCore) continue;
    prefetchPairNodes(*body[0], contacts[size_t(a)]);
    prefetchPairNodes(*body[1], contacts[size_t(b)]);
    struct Hit {
      Vec3 x, f;
    };
    std::vector<Hit> hits;
    Vec3 centre = Vec3::Zero();
    double weight = 0;
    for (int k = 0; k < 2; ++k)
      for (const NodeContact& c : contacts[size_t(k == 0 ? a : b)]) {
        if (c.other != other[k] || !(c.impulse > 0)) continue;
        const Vec3 x = body[k]->nodePosition(c.node);
        hits.push_back({x, c.impulse * c.normal + c.frictionImpulse});
        centre += c.impulse * x;
        weight += c.impulse;
      }
    if (!(weight > 0)) continue;
    centre /= weight;
    Vec3 net = Vec3::Zero(), moment = Vec3::Zero();
    for (const Hit& h : hits) {
      net += h.f;
      moment += (h.x - centre).cross(h.f);
    }
    for (LayeredBody* l : body) {
      const RigidMotion r = rigidMotion(*l);
      const Vec3 dJ = -0.5 * net, dM = -0.5 * moment;
      l->changeRigidVelocity(dJ / r.mass, r.invInertia * (dM + (centre - r.com).cross(dJ)), dt);
    }
  }
}

// Steps 6-13 for every body. Bodies in contact with each other are solved body by
// body (Gauss-Seidel, lowest first), each sweep with the partners' current
// velocities: the first sweep exchanges the impacts (equal and opposite, see
// pairSurfaceVelocity), kRegularSweeps - 1 more propagate them, and under
// gravity a last shock-propagation sweep (Guendelman et al. 2003) takes each
// lower body as immovable for the one above, so that a stack comes to rest
// instead of sinking a little into itself every step.
void World::respondAll(std::vector<std::vector<NodeContact>>& contacts, double dt) {
  constexpr int kRegularSweeps = 3;
  // The patches' friction converges slowly along a chain of patches (a sweep is a few
  // 6x6 solves per patch, no per-node work): to 1e-5 a stack rests, to 1e-3 it creeps
  // (docs/decisions/0011-patch-friction-sweeps.md; BodyContact.StackOfThreeComesToRest).
  constexpr int kPatchFrictionSweeps = 500;
  constexpr double kPatchFrictionTolerance = 1e-5;
  const Vec3 g = settings().gravity;
  const size_t nb = bodies_.size();
  std::vector<size_t> order(nb);
  std::iota(order.begin(), order.end(), size_t(0));
  std::vector<double> height(nb);
  for (size_t i = 0; i < nb; ++i) height[i] = -g.dot(bodies_[i].layered.centerOfMass());
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return height[a] < height[b]; });
  std::vector<size_t> rank(nb);
  for (size_t k = 0; k < nb; ++k) rank[order[k]] = k;
  bool pairs = false;
  for (const auto& list : contacts)
    for (const NodeContact& c : list) pairs = pairs || c.other >= 0;
  const int sweeps = pairs ? kRegularSweeps + (g.norm() > 0 ? 1 : 0) : 1;
  pairImpacts(contacts, dt);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    const bool shock = sweep == kRegularSweeps;
    for (size_t i : order) {
      std::vector<NodeContact>& list = contacts[i];
      bool mine = false;
      for (const NodeContact& c : list) mine = mine || c.other >= 0;
      if (sweep > 0 && !mine) continue;
      std::vector<NodeContact> shockList;
      std::vector<size_t> shockFrom;  // the index in `list` of each shockList entry
      if (mine) {
        prefetchPairNodes(bodies_[i].layered, list);
        const RigidMotion self = rigidMotion(bodies_[i].layered);
        std::vector<RigidMotion> partner(nb);
        std::vector<char> known(nb, 0);
        for (NodeContact& c : list) {
          if (c.other < 0) continue;
          const size_t o = size_t(c.other);
          if (!known[o]) {
            partner[o] = rigidMotion(bodies_[o].layered);
            known[o] = 1;
          }
          const bool lower = rank[o] < rank[i];
          c.surfaceVelocity = pairSurfaceVelocity(self, partner[o], bodies_[i].layered.nodePosition(c.node),
                                                  c.normal, shock && lower);
        }
        if (shock)  // the body above does not push back in this sweep
          for (size_t k = 0; k < list.size(); ++k)
            if (list[k].other < 0 || rank[size_t(list[k].other)] < rank[i]) {
              shockList.push_back(list[k]);
              shockFrom.push_back(k);
            }
      }
      bodies_[i].layered.respond(shock ? shockList : list, dt, g, profile_, sweep == 0);
      if (shock && !shockList.empty()) {  // the impulses of the shock sweep count too
        // (respond drops entries without depth or impulse, keeping the order; a node may
        // touch a collider and a body: match by both)
        size_t k = 0;
        for (const NodeContact& c : shockList) {
          while (k < shockFrom.size() && (list[shockFrom[k]].node != c.node || list[shockFrom[k]].other != c.other))
            ++k;
          if (k == shockFrom.size()) break;
          list[shockFrom[k]].impulse = c.impulse;
          list[shockFrom[k]].frictionImpulse = c.frictionImpulse;
        }
      }
    }
  }
  balancePairImpulses(contacts, dt);
  // the patches' friction and rolling resistance (patch_friction.h), against
  // colliders and between bodies (from b's side: normals out of a into b),
  // together in Gauss-Seidel sweeps, from the impulses of the responses
  StageTimer t(profile_, Stage::Friction);
  std::vector<PatchFriction> patches;
  for (size_t a = 0; a < nb; ++a) patches.push_back(colliderPatch(bodies_[a].layered, contacts[a]));
  for (const auto& [a, b] : touchingPairs(contacts))
    patches.push_back(pairPatch(bodies_[size_t(a)].layered, a, bodies_[size_t(b)].layered, contacts[size_t(b)]));
  solvePatchFriction(patches, kPatchFrictionSweeps, kPatchFrictionTolerance, dt);
}

// One step of Fig. 3.5 (dissertation; Fig. 5 of the DDT paper) across the bodies:
// every body's collision-free update, then the contacts found at all the predicted
// states, every response, the contacts again and every correction, so that bodies in
// contact see each other at the same stage. Each stage is timed into profile_.
void World::step(double dt) {
  profile_.clear();
  moveColliders(dt);                     // kinematic colliders to t + dt
  beginBodies(dt);                       // start states; the contact support planned
  integrateFree(dt);                     // 1-5  collision-free update
  std::vector<std::vector<NodeContact>> contacts = findAllContacts(false);  // 6-8
  const std::vector<std::vector<size_t>> groups = contactGroups(contacts);
  respondAll(contacts, dt);              // 9-13 contact response
  lastContacts_ = contacts;              // (respond dropped the ones without depth)
  contacts = findAllContacts(true);      // 14   detection again
  correctAll(contacts, dt);              // 15   constraint correction
  const std::vector<SkinSummary> skins = checkHealth(groups, dt);  // blow-up: rollback
  time_ += dt;
  ++steps_;
  updateStats(skins);
}

void World::moveColliders(double dt) {
  StageTimer t(profile_, Stage::Colliders);
  for (Collider& c : colliders_) c.animate(time_ + dt);
}

void World::beginBodies(double dt) {
  for (Body& b : bodies_) {
    LayeredSettings& ls = b.layered.settings();
    ls.cgIterations = settings().solver.iterations;
    ls.cgTolerance = settings().solver.tolerance;
    ls.oneSided = settings().oneSidedContact;
    ls.contactSupport = settings().contactSupport;
    const std::string& method = settings().solver.method;
    ls.method = method == "cg" ? SolverMethod::CG : method == "direct" ? SolverMethod::Direct
                                                                       : SolverMethod::Auto;
    b.layered.startStep(dt, settings().gravity, profile_);
  }
  StageTimer t(profile_, Stage::Support);
  balancePairSupport();
}

void World::integrateFree(double dt) {
  for (Body& b : bodies_) {
    b.layered.integrateStep(dt, settings().gravity, profile_);
    const std::string failure = b.layered.takeBackendFailure();
    if (!failure.empty())
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
  for (size_t i = 0; i < bodies_.size(); ++i) bodies_[i].layered.correct(contacts[i], dt, profile_);
}

// A non-finite or runaway state, or energy that grew without outside work, is reported
// and rolled back. One summary of each body's skin at the end of the step (a pass on
// the backend that holds it) serves the checks and the statistics; its lowest point is
// along world y.
std::vector<SkinSummary> World::checkHealth(const std::vector<std::vector<size_t>>& groups, double dt) {
  StageTimer timer(profile_, Stage::Check);
  // kinematic colliders in motion do work on the bodies: no energy bound then
  bool outsideWork = false;
  for (const Collider& c : colliders_)
    outsideWork = outsideWork || c.velocity().squaredNorm() > 0 || c.angularVelocity().squaredNorm() > 0;
  std::vector<char> finite(bodies_.size()), bounded(bodies_.size());
  std::vector<SkinSummary> skins(bodies_.size());
  auto summarize = [&](size_t i) {
    LayeredBody& l = bodies_[i].layered;
    skins[i] = l.summarize(l.core().orientation.conjugate() * Vec3::UnitY(), profile_);
  };
  std::map<std::vector<size_t>, double> floors;
  for (const std::vector<size_t>& group : groups) {
    bool work = outsideWork, allFinite = true;
    for (size_t i : group) {
      summarize(i);
      finite[i] = healthy(bodies_[i], skins[i]);
      allFinite = allFinite && finite[i];
      if (finite[i]) bodies_[i].stats.energy = energy(bodies_[i], skins[i]).total();
      // (the mouse's spring and the node loads do work; the core springs' potential is in the energy)
      work = work || bodies_[i].layered.dragging() || !bodies_[i].layered.loads().empty();
    }
    const bool ok = allFinite && energyBounded(group, work, &floors);
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
      summarize(bi);
      b.stats.energy = energy(b, skins[bi]).total();
    } else {
      b.layered.saveGood();  // (on the GPU solver where it holds the skin: a texture copy)
    }
  }
  return skins;
}

// The statistics seen by --metrics and the panels.
void World::updateStats(const std::vector<SkinSummary>& skins) {
  StageTimer t(profile_, Stage::Stats);
  for (size_t bi = 0; bi < bodies_.size(); ++bi) {
    Body& b = bodies_[bi];
    const LayeredStepInfo& info = b.layered.lastStep();
    b.stats.cgIterations = info.cgIterations;
    b.stats.cgResidual = info.cgResidual;
    b.stats.contacts = info.contacts;
    b.stats.maxPenetrationDetected = std::max(b.stats.maxPenetrationDetected, info.maxPenetration);
    b.refreshState(skins[bi]);
    // (the correction stage measured what penetration it left)
    const double pen = info.finalPenetration;
    // (the height of node i is c_y + (R^T e_y) . u_i)
    const double low = std::min(b.stats.minHeight, b.layered.core().position.y() + skins[bi].lowest);
    b.stats.minHeight = low;
    b.stats.finalMaxPenetration = pen;
    b.stats.maxPenetration = std::max(b.stats.maxPenetration, pen);
    if (recordTrajectory_)
      b.stats.trajectory.push_back({time_, b.state.position.x(), b.state.position.y(), b.state.position.z()});
  }
}

}  // namespace d2t
