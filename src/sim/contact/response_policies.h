#pragma once
// The contact response's policies: what steps 6-15 do beyond the plain multiplier solve
// of eq. (12)-(13) (one row per colliding node, an equality, solved with the core by
// Sherman-Morrison-Woodbury). Each is one unit of the response, named after what it
// does, with its own function and its own test, and each can be switched off alone
// (a scene's "simulation": {"response": {...}}, the Simulation panel) to see what it
// adds. docs/contact.md describes them; the decisions cited give the measurements.
//
//   unit                  where                                   decision
//   one_sided             SkinResponse::roundRows (active set)    (the paper's lambda >= 0)
//   support               LayeredBody::computeSupport             0012, 0013, 0014
//   restitution           LayeredBody::colliderImpact,            0009
//                         World::pairImpacts
//   friction              eq. (14) per node, SkinResponse::friction
//   energy_guard          responseEnergyShare                     0017
//   shock_propagation     World::respondAll's last sweep          (Guendelman et al. 2003)
//   pair_support_balance  World::balancePairSupport               0015
//   pair_impulse_balance  World::balancePairImpulses              0016
//   patch_friction        solvePatchFriction                      0010, 0011
//   correction            LayeredBody::correct (step 15)
//   skin_on_core          LayeredBody::findCoreRows, correctLimits 0027
//                         World::separateCores

namespace d2t {

struct ResponsePolicies {
  /// Rows never pull: a row whose multiplier would be negative leaves the active set at
  /// its lowest value (lambda >= lo). Off: every row is an equality (the node sticks).
  bool oneSided = true;
  /// Colliders and bodies support the resting skin inside the free update, so the
  /// implicit solve spreads the contact force and a body at rest sinks as the static
  /// solve says. Off: the block-diagonal response alone holds it (it rests too high).
  bool support = true;
  /// A contact episode that starts faster than gravity explains gets one Newton impact
  /// on the rigidified body (or pair of bodies) with the pair's coefficient of
  /// restitution. Off: contacts are inelastic; only the skin's elasticity bounces.
  bool restitution = true;
  /// Coulomb friction on each node's tangential velocity, eq. (14). Off: frictionless rows.
  bool friction = true;
  /// Against colliders at rest (and against other bodies where the skin is crushed
  /// onto its core) the impulse is scaled so that the kinetic energy cannot grow in
  /// the frame of the surfaces' mean velocity.
  bool energyGuard = true;
  /// Under gravity, bodies in contact get a last sweep in which each lower body is
  /// immovable for the one above it, so a stack rests instead of sinking into itself.
  bool shockPropagation = true;
  /// Two bodies that support each other do so with equal and opposite totals along one
  /// line of action (Newton's third law), instead of each side's own estimate.
  bool pairSupportBalance = true;
  /// After the sweeps, what a pair's impulses add to the pair's momentum and angular
  /// momentum is taken out again, half from each body.
  bool pairImpulseBalance = true;
  /// Patch friction and rolling resistance: each contact patch's tangential impulse
  /// and torque about its normal solved as one, in Gauss-Seidel sweeps over the patches.
  bool patchFriction = true;
  /// Step 15: nodes still penetrating after the response move out by their share.
  bool correction = true;
  /// The skin bottoms out on its own core: a node keeps Material::minLayer of its layer
  /// thickness, by one-sided rows against the core that push on both (core_contact.h);
  /// the core keeps its crushed layer from the colliders, and both crushed layers from
  /// another body's core. Off: a soft skin may be crushed through its core, and the
  /// core sink through it.
  bool skinOnCore = true;

  bool operator==(const ResponsePolicies&) const = default;
};

}  // namespace d2t
