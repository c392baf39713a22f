#include "sim/contact/patch_friction.h"

#include <map>

#include "sim/contact/body_contact.h"

namespace d2t {

namespace {

// a rigidified body's spatial quantities at a point: [linear; angular]
using SpatialMatrix = Eigen::Matrix<double, 6, 6>;
using SpatialVector = Eigen::Matrix<double, 6, 1>;

// Mobility of a rigidified body at x: [F; C] (an impulse at x and an angular
// impulse) to the change of [velocity at x; angular velocity]. Symmetric, PSD.
SpatialMatrix mobility(const RigidMotion& b, const Vec3& x) {
  const Mat3 rx = skew(x - b.com);
  SpatialMatrix k;
  k.block<3, 3>(0, 0) = Mat3::Identity() / b.mass - rx * b.invInertia * rx;
  k.block<3, 3>(0, 3) = -rx * b.invInertia;
  k.block<3, 3>(3, 0) = b.invInertia * rx;
  k.block<3, 3>(3, 3) = b.invInertia;
  return k;
}

// The rigidified motion of each body in the patches, kept up to date as the
// sweeps apply impulses (a body's own sums are O(nodes): taken once per step).
struct Motion {
  RigidMotion now;
  Vec3 dv = Vec3::Zero(), dw = Vec3::Zero();  // change of v_com and (world) omega so far
  void apply(const Vec3& force, const Vec3& at, const Vec3& angular) {
    const Vec3 dvi = force / now.mass, dwi = now.invInertia * (angular + (at - now.com).cross(force));
    now.vcom += dvi;
    now.omega += dwi;
    dv += dvi;
    dw += dwi;
  }
};

struct Pair {
  SpatialMatrix k;  // the pair's relative mobility at P
  SpatialVector u;  // relative [velocity at P; angular velocity], self against other
  double radius = 0;
};

// (radius <= 0: the patch is not between the centres)
Pair pairAt(const Motion& self, const Motion* other, const ContactPatch& patch) {
  Pair q;
  const Vec3& p = patch.point;
  const RigidMotion& a = self.now;
  q.radius = patch.normal.dot(a.com - p);
  q.k = mobility(a, p);
  q.u << a.velocityAt(p) - patch.surfaceVelocity, a.omega;
  if (other) {
    const RigidMotion& b = other->now;
    const double rb = patch.normal.dot(p - b.com);
    q.radius = rb > 0 ? q.radius * rb / (q.radius + rb) : 0;
    q.k += mobility(b, p);
    q.u << a.velocityAt(p) - b.velocityAt(p), a.omega - b.omega;
  }
  return q;
}

// The share s in [0, 1] of the impulse x1 to apply: the kinetic energy changes by
// s x1.u + s^2/2 x1.k x1, least at s = -x1.u / x1.k x1 (1 for an impulse that
// exactly stops what it targets); beyond that the impulse would give energy back.
double energyShare(const SpatialVector& x1, const Pair& q) {
  const double lin = x1.dot(q.u), quad = x1.dot(q.k * x1);
  if (!(lin < 0) || !(quad > 0)) return 0;
  return std::min(1.0, -lin / quad);
}

// One Gauss-Seidel visit of a patch: friction, then rolling resistance. Returns
// how much it changed, relative to the patch's normal impulse (force / J,
// couple / J r).
double visit(PatchFriction& f, Motion& self, Motion* other) {
  const ContactPatch& patch = f.patch;
  const Vec3& n = patch.normal;
  const Vec3& p = patch.point;
  double change = 0;
  // a change x = [F; C] when it takes energy out: share -x.u / x.k x of it at most
  auto apply = [&](const SpatialVector& x, const Pair& q) {
    const double share = energyShare(x, q);
    if (!(share > 0)) return SpatialVector(SpatialVector::Zero());
    const SpatialVector y = share * x;
    self.apply(y.head<3>(), p, y.tail<3>());
    if (other) other->apply(-y.head<3>(), p, -y.tail<3>());
    return y;
  };
  // (1) Coulomb: the tangential impulse that stops the sliding at P, its total
  //     within what eq. 14 left of the cone
  Pair q = pairAt(self, other, patch);
  if (!(q.radius > 0)) return 0;
  const double budget = patch.cone - patch.tangentialImpulse.norm();
  const Vec3 vt = q.u.head<3>() - n.dot(q.u.head<3>()) * n;
  if (budget > 0 && vt.squaredNorm() > 0) {
    Eigen::Matrix<double, 3, 2> t;
    t.col(0) = vt.normalized();
    t.col(1) = n.cross(t.col(0));
    const Eigen::Matrix2d kt = t.transpose() * q.k.topLeftCorner<3, 3>() * t;
    Vec3 total = f.friction - t * kt.ldlt().solve(t.transpose() * vt);
    if (total.norm() > budget) total *= budget / total.norm();
    SpatialVector x = SpatialVector::Zero();
    x.head<3>() = total - f.friction;
    const Vec3 dF = apply(x, q).head<3>();
    f.friction += dF;
    change = dF.norm() / patch.impulse;
    q = pairAt(self, other, patch);
  }
  // (2) rolling resistance: a couple C with the force that keeps the relative
  //     velocity at P (k_tt F + k_tr C = 0), aiming at k [F; C] = [0; -w_t], its
  //     total at most C_rr J r
  if (!(f.crr > 0)) return change;
  const Vec3 w = q.u.tail<3>();
  const Vec3 wt = w - n.dot(w) * n;
  if (wt.squaredNorm() == 0) return change;
  SpatialVector target;
  target << Vec3::Zero(), -wt;
  const SpatialVector stop = q.k.ldlt().solve(target);
  Vec3 total = f.couple + stop.tail<3>();
  const double cap = f.crr * patch.impulse * q.radius;
  if (total.norm() > cap) total *= cap / total.norm();
  const Vec3 dc = total - f.couple;
  SpatialVector x;
  x << -q.k.topLeftCorner<3, 3>().ldlt().solve(q.k.topRightCorner<3, 3>() * dc), dc;
  const Vec3 dC = apply(x, q).tail<3>();
  f.couple += dC;
  return std::max(change, dC.norm() / (patch.impulse * q.radius));
}

}  // namespace

PatchFriction colliderPatch(LayeredBody& body, const std::vector<NodeContact>& contacts) {
  PatchFriction f;
  f.self = &body;
  f.crr = body.desc().material.rollingResistance;
  if (!body.settings().fixedCore) f.patch = contactPatch(body, contacts, [](const NodeContact& c) { return c.other < 0; });
  return f;
}

PatchFriction pairPatch(LayeredBody& a, int aIndex, const std::vector<NodeContact>& aContacts, LayeredBody& b,
                        int bIndex, const std::vector<NodeContact>& bContacts) {
  PatchFriction f;
  f.crr = std::sqrt(a.desc().material.rollingResistance * b.desc().material.rollingResistance);
  const bool heldA = a.settings().fixedCore, heldB = b.settings().fixedCore;
  if (heldA && heldB) return f;
  if (!heldA && !heldB) {
    f.self = &b;
    f.other = &a;
    f.patch = contactPatch(b, bContacts, [aIndex](const NodeContact& c) { return c.other == aIndex; });
    return f;
  }
  // one core held: it takes whatever reaches it, as a collider does, so the free body's
  // patch is solved against it as against a collider moving with the held core
  LayeredBody &held = heldA ? a : b, &free = heldA ? b : a;
  const int heldIndex = heldA ? aIndex : bIndex;
  f.self = &free;
  f.patch = contactPatch(free, heldA ? bContacts : aContacts,
                         [heldIndex](const NodeContact& c) { return c.other == heldIndex; });
  if (f.patch.impulse > 0) {
    const CoreState& c = held.core();
    f.patch.surfaceVelocity = c.velocity + (c.orientation * c.angularVelocity).cross(f.patch.point - c.position);
  }
  return f;
}

void solvePatchFriction(std::vector<PatchFriction>& patches, int maxRounds, double tolerance, double dt) {
  std::map<LayeredBody*, Motion> motions;
  auto motion = [&](LayeredBody* b) -> Motion& {
    auto [it, fresh] = motions.try_emplace(b);
    if (fresh) it->second.now = rigidMotion(*b);
    return it->second;
  };
  std::vector<PatchFriction*> active;
  for (PatchFriction& f : patches)
    if (f.patch.impulse > 0 && f.patch.cone > 0) {
      motion(f.self);
      if (f.other) motion(f.other);
      active.push_back(&f);
    }
  for (int round = 0; round < maxRounds && !active.empty(); ++round) {
    double change = 0;
    for (PatchFriction* f : active)
      change = std::max(change, visit(*f, motions.at(f->self), f->other ? &motions.at(f->other) : nullptr));
    if (change <= tolerance) break;
  }
  for (auto& [body, m] : motions) body->changeRigidVelocity(m.dv, m.dw, dt);
}

}  // namespace d2t
