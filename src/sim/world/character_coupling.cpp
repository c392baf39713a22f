// The characters in the world (dissertation 4.3-4.5): each steps against the ground (planes,
// height fields) and the surfaces it may meet (contact_targets.h) as they were before any
// character stepped, so that the order of the characters does not matter (two characters
// meeting head-on see each other's same state: the run keeps a scene's mirror symmetry);
// then Newton's third law between every pair, and the correction of the contacts between
// movable surfaces at their end-of-step states.
//
// The exchange (docs/decisions/0031): in a pair (A, B), A's rows took I_A from B's surface and
// B's rows I_B from A's (zero for a body: its own response does not see characters). Each side's
// rows drove its nodes to the pair's common velocity, so each I is the pair's impulse as that
// side sees it; the pair's is J = (|I_A| I_A - |I_B| I_B) / (|I_A| + |I_B|) on A, -J on B (one
// side's when only one side touched, either when the two agree, as in a symmetric collision), and
// each side gets the difference, J - I_A and -J - I_B, at its contact nodes in proportion to
// their impulses (or, a side without rows, at the surface points the other's nodes touched): the
// pair's linear momentum is then conserved exactly.
#include <algorithm>
#include <map>
#include <optional>

#include "sim/character/bone_proxies.h"
#include "sim/world/world.h"

namespace d2t {

namespace {

// The correction between characters: each side moves its nodes out by this share of their
// depth, in this many passes, each at the end states of the last, with the ground's and the
// colliders' rows in the same solve (decision 0031: where a tube lands on another lying on the
// ground, half in one pass left 15 mm, all of it in one pass 3.8 mm, half in two 5 mm, all of
// it in two 0.3 mm)
constexpr double kCorrectionShare = 1.0;
constexpr int kCorrectionPasses = 2;

// The reach stage 1 asks of a pair: the correction's and the rows' 1 cm (and a mm to spare);
// each side's proxy is grown by what it may travel in dt, twice (a bone: its patch's fastest
// node, sweepBoneProxies).
constexpr double kPairReach = 0.011;

// The flags of the bones on one side of bone pairs.
std::vector<char> bonesOf(int count, const std::vector<std::pair<int, int>>& pairs, bool first) {
  std::vector<char> f(size_t(count), 0);
  for (const auto& [i, j] : pairs) f[size_t(first ? i : j)] = 1;
  return f;
}

}  // namespace

std::vector<std::vector<SurfaceTarget>> World::characterTargets(double dt) {
  const size_t nc = characters_.size();
  const double off = characterPruning_ ? 1.0 : 1e300;  // (pruning off: every pair within reach)
  const double reach = off * kPairReach;
  std::vector<std::vector<PlacedProxy>> placed(nc);
  std::vector<SurfaceTarget> skin(nc);  // each character's skin now, taken once (bone masses when asked)
  for (size_t i = 0; i < nc; ++i) {
    const ArticulatedBody& b = *characters_[i].body;
    skin[i] = characterSnapshot(b, int(i));
    placed[i] = placeBoneProxies(b.model(), b.state().bones, b.state().q);
    sweepBoneProxies(b.model(), skin[i].v, 2 * dt, placed[i]);
  }
  const auto massed = [&](size_t j) -> const SurfaceTarget& {
    addBoneMasses(*characters_[j].body, skin[j]);
    return skin[j];
  };
  std::vector<std::vector<SurfaceTarget>> out(nc);
  std::vector<std::vector<char>> paired(nc);  // (bones) paired with anything
  for (size_t i = 0; i < nc; ++i) paired[i].assign(size_t(characters_[i].model->boneCount()), 0);
  // one surface: snapshot once (`make`), copied to each character it reaches, with its bones
  const auto offer = [&](const PlacedProxy& proxy, double surfaceSpeed, auto&& make) {
    std::optional<SurfaceTarget> t;
    PlacedProxy moving = proxy;
    moving.sweep(2 * dt * surfaceSpeed);
    for (size_t i = 0; i < nc; ++i) {
      const auto pairs = proxyPairs(placed[i], {moving}, reach);
      if (pairs.empty()) continue;
      if (!t) t = make();
      out[i].push_back(*t);
      out[i].back().bones = bonesOf(characters_[i].model->boneCount(), pairs, true);
      for (const auto& pr : pairs) paired[i][size_t(pr.first)] = 1;
    }
  };
  for (size_t i = 0; i < colliders_.size(); ++i) {
    const Collider& c = colliders_[i];
    if (!c.detectedInStages()) continue;
    const double reach = c.desc().shape->boundingRadius();
    offer(placeProxy(c), c.velocity().norm() + c.angularVelocity().norm() * reach,
          [&] { return colliderTarget(c, int(i)); });
  }
  for (size_t i = 0; i < bodies_.size(); ++i) {
    LayeredBody& b = bodies_[i].layered;
    double reach = 0;  // (the rest skin's radius; its layer may swell it by a fifth)
    for (const Vec3& x : b.model().restSkin) reach = std::max(reach, 1.2 * x.norm());
    offer(placeProxy(b, bodies_[i].proxy), b.core().velocity.norm() + b.core().angularVelocity.norm() * reach,
          [&] { return bodyTarget(b, int(i)); });
  }
  for (size_t i = 0; i < nc; ++i) {
    const ArticulatedBody& a = *characters_[i].body;
    for (size_t j = 0; j < nc; ++j) {
      if (j == i) continue;
      const auto pairs = proxyPairs(placed[i], placed[j], reach);
      if (pairs.empty()) continue;
      const CharacterModel& mj = *characters_[j].model;
      out[i].push_back(pairedTarget(massed(j), patchTriangles(mj, bonesOf(mj.boneCount(), pairs, false))));
      out[i].back().bones = bonesOf(a.model().boneCount(), pairs, true);
      for (const auto& pr : pairs) paired[i][size_t(pr.first)] = 1;
    }
    // itself (two of its bones close at the sum of their speeds: both proxies are swept)
    const auto self = characters_[i].spec.selfCollision
                          ? selfProxyPairs(a.model(), a.state().bones, placed[i], reach)
                          : std::vector<std::pair<int, int>>{};
    if (!self.empty()) {
      SurfaceTarget t = selfTarget(a.model(), skin[i], self, dt);
      if (t.self) {  // (none: no node in self-contact)
        t.boneInverse = massed(i).boneInverse;
        out[i].push_back(std::move(t));
      }
    }
    CharacterStats& st = characters_[i].stats;
    st.triangles = int(a.model().triangles.size());
    st.pairedTriangles = int(patchTriangles(a.model(), paired[i]).size());
    st.selfPairs = int(self.size());
  }
  return out;
}

void World::stepCharacters(double dt) {
  if (characters_.empty()) return;
  StageTimer timer(profile_, Stage::Characters);
  std::vector<const Collider*> ground;
  for (const Collider& c : colliders_)
    if (!c.detectedInStages()) ground.push_back(&c);
  const auto pointers = [](const std::vector<SurfaceTarget>& list) {
    std::vector<const SurfaceTarget*> p;
    for (const SurfaceTarget& t : list) p.push_back(&t);
    return p;
  };
  const std::vector<std::vector<SurfaceTarget>> seen = characterTargets(dt);
  bool movable = false;
  for (size_t i = 0; i < characters_.size(); ++i) {
    Character& c = characters_[i];
    // (the response's `support` unit rules the characters' as the bodies': response_policies.h)
    const bool support = settings().response.support && !c.body->rigidSkin();
    if (c.body->contactSupport() != support) c.body->setContactSupport(support);
    c.step(time_, dt, settings().gravity, ground, pointers(seen[i]));
    for (const SurfaceTarget& t : seen[i]) movable = movable || t.movable();
  }
  exchangeCharacterImpulses(seen, dt);
  // the contacts between movable surfaces corrected at their end-of-step states (each side
  // its own nodes: kCorrectionShare)
  for (int pass = 0; movable && pass < kCorrectionPasses; ++pass) {
    const std::vector<std::vector<SurfaceTarget>> after = characterTargets(0);
    for (size_t i = 0; i < characters_.size(); ++i) {
      bool any = false;
      for (const SurfaceTarget& t : after[i]) any = any || t.movable();
      if (any) characters_[i].body->correctAgainst(ground, pointers(after[i]), kCorrectionShare);
    }
  }
  const std::vector<std::vector<SurfaceTarget>> after = movable ? characterTargets(0) : seen;
  for (size_t i = 0; i < characters_.size(); ++i) {
    // (what the run reports: the deepest a node ends a step inside anything; its nodes in
    // contact with itself)
    CharacterStats& st = characters_[i].stats;
    st.selfContacts = 0;
    for (const CharacterContact& c : characters_[i].body->contacts())
      st.selfContacts += c.target >= 0 && seen[i][size_t(c.target)].self;
    st.maxPenetration =
        std::max(st.maxPenetration, characters_[i].body->deepestPenetration(ground, pointers(after[i])));
  }
  for (Character& c : characters_)
    if (recordTrajectory_) {
      const Vec3 x = c.body->centreOfMass();
      c.stats.trajectory.push_back({time_ + dt, x.x(), x.y(), x.z()});
    }
}

void World::exchangeCharacterImpulses(const std::vector<std::vector<SurfaceTarget>>& seen, double dt) {
  // one side of a pair: a character (its contacts with the other) or a body
  struct Touch {
    const CharacterContact* contact;
    const SurfaceTarget* surface;  // what it touched
  };
  struct Side {
    Vec3 total = Vec3::Zero();
    std::vector<Touch> touches;
  };
  // key: (character, kind of the other, its index)
  std::map<std::tuple<int, int, int>, Side> sides;
  for (size_t i = 0; i < characters_.size(); ++i)
    for (const CharacterContact& c : characters_[i].body->contacts()) {
      if (!c.movable) continue;
      const SurfaceTarget* t = &seen[i][size_t(c.target)];
      Side& s = sides[{int(i), int(t->kind), t->index}];
      s.total += c.impulse;
      s.touches.push_back({&c, t});
    }
  // an impulse on character i at its own contact nodes (in proportion to their impulses) or,
  // with none, at the surface points of i the other side's nodes touched
  const auto onCharacter = [&](int i, const Side* own, const Side* other, const Vec3& d) {
    if (!(d.norm() > 0)) return;
    std::vector<std::pair<int, Vec3>> list;
    double w = 0;
    if (own && own->total.norm() > 0) {
      for (const Touch& t : own->touches) w += t.contact->impulse.norm();
      for (const Touch& t : own->touches) list.push_back({t.contact->node, d * (t.contact->impulse.norm() / w)});
    } else if (other) {
      for (const Touch& t : other->touches) w += t.contact->impulse.norm();
      for (const Touch& t : other->touches) {
        SurfaceTarget::Hit h;
        h.triangle = t.contact->triangle;
        h.bary = t.contact->bary;
        for (const auto& [node, share] : t.surface->corners(h))
          list.push_back({node, d * (share * t.contact->impulse.norm() / w)});
      }
    }
    characters_[size_t(i)].body->applyNodeImpulses(list, dt);
  };
  const int kChar = int(SurfaceTarget::Kind::Character), kBody = int(SurfaceTarget::Kind::Body);
  for (const auto& [key, a] : sides) {
    const auto [i, kind, j] = key;
    if (kind == kChar && i == j) {
      // itself: its rows' impulses sum to an internal force's, zero; what they do not, the
      // touched points take back
      onCharacter(i, nullptr, &a, -a.total);
    } else if (kind == kChar) {
      if (j < i && sides.count({j, kChar, i})) continue;  // (the pair, once)
      const auto bi = sides.find({j, kChar, i});
      const Side* b = bi == sides.end() ? nullptr : &bi->second;
      const Vec3 IB = b ? b->total : Vec3::Zero();
      const double wa = a.total.norm(), wb = IB.norm();
      if (!(wa + wb > 0)) continue;
      const Vec3 J = (wa * a.total - wb * IB) / (wa + wb);
      onCharacter(i, &a, b, J - a.total);
      onCharacter(j, b, &a, -J - IB);
    } else if (kind == kBody) {
      // the body's rows do not see characters: -I_A at the impulse-weighted contact point
      Vec3 at = Vec3::Zero();
      double w = 0;
      for (const Touch& t : a.touches) {
        const double s = t.contact->impulse.norm();
        at += s * characters_[size_t(i)].body->nodePosition(t.contact->node);
        w += s;
      }
      if (w > 0) bodies_[size_t(j)].layered.applyRigidImpulse(-a.total, at / w, dt);
    }
  }
}

}  // namespace d2t
