#pragma once
// Friction and rolling resistance of a contact patch, one mechanism for a body
// on a collider and for two bodies on each other.
//
// Eq. 14 of the paper stops each contact node's tangential SKIN velocity, with
// that node's normal velocity change as its budget. The body as a whole then
// feels about a tenth of Coulomb friction: a box with mu = 1 sliding at 2 m/s
// stopped after 1.5 m instead of 0.2 m, and a ball on a ball slid off. Here, after
// eq. 14, the patch is rigidified at the centroid P of its normal impulses
// (total J): (1) Coulomb friction: a tangential impulse at P stops the relative
// sliding of the two rigidified bodies at P, within what is left of the cone
// mu J after eq. 14's own tangential impulses; (2) rolling resistance: an
// impulse pair at P (a couple C and a force, the opposite on the other body)
// takes the relative rolling angular velocity (without its part along the
// patch normal n) towards zero while keeping the relative velocity at P, |C| at
// most C_rr J r (r the rolling radius, 1/r = 1/r_self + 1/r_other). A rubber
// skin loses energy to hysteresis in its patch: the reaction sits ahead of the
// patch centre, a couple of C_rr N r (C_rr about 0.01 for a tyre on concrete).
// Both impulses are scaled so the pair's kinetic energy cannot grow. Rolling
// resistance holds a body against torques below C_rr N r (on a slope, or the
// faceted skin's own: a 32^2 ball's rest energy differs by ~1 J between
// orientations) and slows a rolling one: on an incline a ball accelerates at
// g (sin - C_rr cos) / (1 + I / m r^2).
#include <vector>

#include "sim/body/layered_body.h"

namespace d2t {

/// A contact patch of `self`, summed over its contacts.
struct ContactPatch {
  Vec3 point = Vec3::Zero();            ///< normal-impulse-weighted centroid P [m]
  Vec3 normal = Vec3::UnitY();          ///< unit normal, out of the other surface into self
  double impulse = 0;                   ///< the step's normal impulse on self, J [N s]
  double cone = 0;                      ///< sum of mu_i J_i [N s]
  Vec3 tangentialImpulse = Vec3::Zero();  ///< eq. 14's tangential impulses on self [N s]
  Vec3 surfaceVelocity = Vec3::Zero();  ///< a collider's surface velocity at P [m/s] (no other body)
};

/// The patch of the contacts of `self` for which `select(c)` holds, from the
/// impulses the response recorded in them; impulse 0: none.
template <class Select>
ContactPatch contactPatch(LayeredBody& self, const std::vector<NodeContact>& contacts, Select select) {
  ContactPatch p;
  Vec3 nsum = Vec3::Zero();
  std::vector<int> nodes;  // (read back together from a GPU solver that holds the skin)
  for (const NodeContact& c : contacts)
    if (c.impulse > 0 && select(c)) nodes.push_back(c.node);
  self.syncNodes(nodes);
  for (const NodeContact& c : contacts) {
    if (!(c.impulse > 0) || !select(c)) continue;
    p.impulse += c.impulse;
    p.cone += c.friction * c.impulse;
    p.tangentialImpulse += c.frictionImpulse;
    p.point += c.impulse * self.nodePosition(c.node);
    p.surfaceVelocity += c.impulse * c.surfaceVelocity;
    nsum += c.impulse * c.normal;
  }
  if (!(p.impulse > 0) || nsum.norm() < 1e-12 * p.impulse) return ContactPatch{};
  p.point /= p.impulse;
  p.surfaceVelocity /= p.impulse;
  p.normal = nsum.normalized();
  return p;
}

/// A patch's friction and rolling resistance within one step: the two bodies (other:
/// nullptr for a collider), the patch, and what was applied so far.
struct PatchFriction {
  LayeredBody* self = nullptr;
  LayeredBody* other = nullptr;
  ContactPatch patch;
  double crr = 0;                ///< rolling resistance coefficient of the pair [-]
  Vec3 friction = Vec3::Zero();  ///< tangential impulse given to self so far [N s]
  Vec3 couple = Vec3::Zero();    ///< rolling resistance's angular impulse given to self so far [N m s]
};

/// The patch of a body's contacts with colliders (inactive for a held core).
PatchFriction colliderPatch(LayeredBody& body, const std::vector<NodeContact>& contacts);
/// The patch between bodies a (world index aIndex) and b: from b's contacts with a; where
/// one core is held, from the free body's contacts, against the held body as against a
/// collider (inactive when both are held).
PatchFriction pairPatch(LayeredBody& a, int aIndex, const std::vector<NodeContact>& aContacts, LayeredBody& b,
                        int bIndex, const std::vector<NodeContact>& bContacts);

/// Applies the patches' Coulomb friction and rolling resistance to the rigid
/// motion of their bodies, in Gauss-Seidel sweeps over the patches (a body in
/// several patches, as in a stack, feels them all), until a sweep changes no
/// impulse by more than `tolerance` of its patch's normal impulse (force / J,
/// couple / J r), or maxRounds. Each visit aims at stopping what slides and rolls
/// at its patch; the totals stay within the cone and the rolling cap, and a
/// change that would add kinetic energy is not made. The step's positions were
/// already integrated: they move with the velocity change over dt.
void solvePatchFriction(std::vector<PatchFriction>& patches, int maxRounds, double tolerance, double dt);

}  // namespace d2t
