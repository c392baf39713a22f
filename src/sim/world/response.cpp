// The world's contact response (steps 9-13 across bodies) and its units between bodies
// (response_policies.h): respondAll (every body's response in Gauss-Seidel sweeps, the
// last a shock-propagation sweep; then the pair impulse balance and patchFriction),
// pairImpacts (restitution between bodies), balancePairSupport (called by
// World::beginBodies) and balancePairImpulses (Newton's third law between bodies).

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "sim/contact/patch_friction.h"
#include "sim/world/world.h"

namespace d2t {

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
void syncPairNodes(LayeredBody& body, const std::vector<NodeContact>& list) {
  std::vector<int> nodes;
  for (const NodeContact& c : list)
    if (c.other >= 0) nodes.push_back(c.node);
  body.syncNodes(nodes);
}

}  // namespace

// Restitution between bodies: when two bodies begin touching and approach faster
// than gravity explains, one Newton impact on the two rigidified bodies, equal and
// opposite, at the depth-weighted centre of their contacts along the pair normal
// (the node constraints of the sweeps are then inelastic, as against colliders).
void World::pairImpacts(const std::vector<std::vector<NodeContact>>& contacts, double dt) {
  StageTimer timer(profile_, Stage::Impact);
  // (an episode goes on while the pair penetrates or supports each other; kept with the
  // policy off too, so that switching it on mid-contact starts no episode)
  std::set<std::pair<int, int>> touching = touchingPairs(contacts, true);
  for (const auto& pair : supportingPairs()) touching.insert(pair);
  if (!settings().response.restitution) {
    pairsInContact_ = touching;
    return;
  }
  const double threshold = 2 * settings().gravity.norm() * dt + 1e-3;
  for (const auto& [a, b] : touching) {
    if (pairsInContact_.count({a, b})) continue;  // not a new episode
    LayeredBody &la = bodies_[size_t(a)].layered, &lb = bodies_[size_t(b)].layered;
    syncPairNodes(la, contacts[size_t(a)]);
    syncPairNodes(lb, contacts[size_t(b)]);
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
    syncPairNodes(*body[0], contacts[size_t(a)]);
    syncPairNodes(*body[1], contacts[size_t(b)]);
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
  const Vec3 g = settings().gravity;
  const size_t nb = bodies_.size();
  // the bodies lowest first (along gravity), and each body's place in that order
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
  const ResponsePolicies& policy = settings().response;
  const int sweeps = pairs ? kRegularSweeps + (g.norm() > 0 && policy.shockPropagation ? 1 : 0) : 1;
  pairImpacts(contacts, dt);
  // the bodies that touch no other body (nor are touched) respond alone, in one sweep:
  // their own stage, across the threads; the others in the sweeps, in order
  std::vector<char> paired(nb, 0);
  for (size_t i = 0; i < nb; ++i)
    for (const NodeContact& c : contacts[i])
      if (c.other >= 0) paired[i] = paired[size_t(c.other)] = 1;
  std::vector<size_t> alone;
  for (size_t i : order)
    if (!paired[i]) alone.push_back(i);
  eachBody(alone, [&](size_t i, Profile& profile) { bodies_[i].layered.respond(contacts[i], dt, g, profile, true); });
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    const bool shock = sweep == kRegularSweeps;
    for (size_t i : order) {
      if (!paired[i]) continue;
      std::vector<NodeContact>& list = contacts[i];
      bool mine = false;
      for (const NodeContact& c : list) mine = mine || c.other >= 0;
      if (sweep > 0 && !mine) continue;
      std::vector<NodeContact> shockList;
      std::vector<size_t> shockFrom;  // the index in `list` of each shockList entry
      if (mine) {
        syncPairNodes(bodies_[i].layered, list);
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
  if (policy.pairImpulseBalance) balancePairImpulses(contacts, dt);
  if (policy.patchFriction) patchFriction(contacts, dt);
}

// The patches' friction and rolling resistance (patch_friction.h), against colliders
// and between bodies (from b's side: normals out of a into b), together in Gauss-Seidel
// sweeps, from the impulses of the responses.
void World::patchFriction(const std::vector<std::vector<NodeContact>>& contacts, double dt) {
  // The patches' friction converges slowly along a chain of patches (a sweep is a few
  // 6x6 solves per patch, no per-node work): to 1e-5 a stack rests, to 1e-3 it creeps
  // (docs/decisions/0011-patch-friction-sweeps.md; BodyContact.StackOfThreeComesToRest).
  constexpr int kPatchFrictionSweeps = 500;
  constexpr double kPatchFrictionTolerance = 1e-5;
  StageTimer t(profile_, Stage::Friction);
  std::vector<PatchFriction> patches;
  for (size_t a = 0; a < bodies_.size(); ++a) patches.push_back(colliderPatch(bodies_[a].layered, contacts[a]));
  for (const auto& [a, b] : touchingPairs(contacts))
    patches.push_back(pairPatch(bodies_[size_t(a)].layered, a, contacts[size_t(a)], bodies_[size_t(b)].layered, b,
                                contacts[size_t(b)]));
  solvePatchFriction(patches, kPatchFrictionSweeps, kPatchFrictionTolerance, dt);
}

}  // namespace d2t
