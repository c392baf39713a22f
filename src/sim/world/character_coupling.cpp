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

// The box of a character's skin now, grown by 2 cm and twice its fastest node's travel in dt.
Aabb skinBox(const ArticulatedBody& body, double dt) {
  Aabb box;
  for (const Vec3& x : body.skinPositions()) box.grow(x);
  double v = 0;
  for (const Vec3& u : body.skinVelocities()) v = std::max(v, u.norm());
  const double grow = 0.02 + 2 * dt * v;
  box.lo -= Vec3::Constant(grow);
  box.hi += Vec3::Constant(grow);
  return box;
}

bool overlap(const Aabb& a, const Aabb& b) {
  return (a.lo.array() <= b.hi.array()).all() && (b.lo.array() <= a.hi.array()).all();
}

}  // namespace

std::vector<SurfaceTarget> World::characterTargets(double dt, bool characters, std::vector<Aabb>* skinBoxes) {
  std::vector<Aabb> boxes;
  for (const Character& c : characters_) boxes.push_back(skinBox(*c.body, dt));
  if (skinBoxes) *skinBoxes = boxes;
  const auto nearAny = [&](const Aabb& box, int except) {
    for (size_t i = 0; i < boxes.size(); ++i)
      if (int(i) != except && overlap(boxes[i], box)) return true;
    return false;
  };
  std::vector<SurfaceTarget> out;
  for (size_t i = 0; i < colliders_.size(); ++i) {
    if (!colliders_[i].detectedInStages()) continue;
    SurfaceTarget t = colliderTarget(colliders_[i], int(i));
    if (nearAny(t.box, -1)) out.push_back(std::move(t));
  }
  for (size_t i = 0; i < bodies_.size(); ++i) {
    LayeredBody& b = bodies_[i].layered;
    Aabb box;
    double r = 0;  // (the rest skin's radius; its layer may swell it by a fifth)
    for (const Vec3& x : b.model().restSkin) r = std::max(r, x.norm());
    r = 1.2 * r + 0.02;
    box.grow(b.core().position - Vec3::Constant(r));
    box.grow(b.core().position + Vec3::Constant(r));
    if (nearAny(box, -1)) out.push_back(bodyTarget(b, int(i)));
  }
  if (characters)
    for (size_t i = 0; i < characters_.size(); ++i)
      if (nearAny(boxes[i], int(i))) out.push_back(characterTarget(*characters_[i].body, int(i)));
  return out;
}

void World::stepCharacters(double dt) {
  if (characters_.empty()) return;
  StageTimer timer(profile_, Stage::Characters);
  std::vector<const Collider*> ground;
  for (const Collider& c : colliders_)
    if (!c.detectedInStages()) ground.push_back(&c);
  std::vector<Aabb> boxes;
  const std::vector<SurfaceTarget> targets = characterTargets(dt, characters_.size() > 1, &boxes);
  std::vector<std::vector<const SurfaceTarget*>> seen(characters_.size());
  for (size_t i = 0; i < characters_.size(); ++i) {
    Character& c = characters_[i];
    const Aabb& box = boxes[i];
    for (const SurfaceTarget& t : targets)
      if (!(t.kind == SurfaceTarget::Kind::Character && t.index == int(i)) && overlap(box, t.box))
        seen[i].push_back(&t);
    // (the response's `support` unit rules the characters' as the bodies': response_policies.h)
    const bool support = settings().response.support && !c.body->rigidSkin();
    if (c.body->contactSupport() != support) c.body->setContactSupport(support);
    c.step(time_, dt, settings().gravity, ground, seen[i]);
  }
  exchangeCharacterImpulses(seen, dt);
  // the contacts between movable surfaces corrected at their end-of-step states (each side
  // its own nodes: kCorrectionShare)
  bool movable = false;
  for (const SurfaceTarget& t : targets) movable = movable || t.movable();
  for (int pass = 0; movable && pass < kCorrectionPasses; ++pass) {
    const std::vector<SurfaceTarget> after = characterTargets(0, characters_.size() > 1);
    for (size_t i = 0; i < characters_.size(); ++i) {
      std::vector<const SurfaceTarget*> all;
      bool any = false;
      for (const SurfaceTarget& t : after) {
        if (t.kind == SurfaceTarget::Kind::Character && t.index == int(i)) continue;
        all.push_back(&t);
        any = any || t.movable();
      }
      if (any) characters_[i].body->correctAgainst(ground, all, kCorrectionShare);
    }
  }
  const std::vector<SurfaceTarget> after = movable ? characterTargets(0, characters_.size() > 1) : targets;
  for (size_t i = 0; i < characters_.size(); ++i) {
    std::vector<const SurfaceTarget*> all;
    for (const SurfaceTarget& t : after)
      if (!(t.kind == SurfaceTarget::Kind::Character && t.index == int(i))) all.push_back(&t);
    ArticulatedBody& b = *characters_[i].body;
    // (what the run reports: the deepest a node ends a step inside anything)
    CharacterStats& st = characters_[i].stats;
    st.maxPenetration = std::max(st.maxPenetration, b.deepestPenetration(ground, all));
  }
  for (Character& c : characters_)
    if (recordTrajectory_) {
      const Vec3 x = c.body->centreOfMass();
      c.stats.trajectory.push_back({time_ + dt, x.x(), x.y(), x.z()});
    }
}

void World::exchangeCharacterImpulses(const std::vector<std::vector<const SurfaceTarget*>>& seen, double dt) {
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
      const SurfaceTarget* t = seen[i][size_t(c.target)];
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
    if (kind == kChar) {
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
