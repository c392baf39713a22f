#pragma once
// Collision detection between deformable bodies, in two stages (DDT paper
// sec. 5.1, 5.3; dissertation 3.3, 3.5.4; DESIGN.md sec. 5-6).
//
// Stage 1 (object space): each body has a low-resolution convex proxy, the
// convex hull of a subset of its rest skin grown by a margin that covers the
// rest of the skin, plus the body's largest current skin displacement at run
// time. Proxies closer than a tolerance are potential contacts; GJK gives their
// closest points, the contact normal n (from A to B) and the contact plane
// between them.
//
// Stage 2 (the CPU reference of the image-space passes): the skin of A facing B
// and the skin of B facing A are compared along n, as the contact camera does
// with its two depth textures: each candidate node of A is cast along +n
// against B's triangles that face A (binned on a grid over the contact plane,
// the camera's window), each node of B along -n against A's. A node behind the
// other surface is colliding, with that surface's normal and its distance to
// it as the depth. Only the slab where the two skins overlap along n is
// examined, so the work follows the contact area.
//
// Response: both bodies get constraints. The other surface moves at the pair's
// common velocity at the contact, the effective-mass-weighted mean of the two
// rigidified bodies' velocities there (Mirtich's rigidification, sec. 5.3.1),
// so the two responses exchange equal and opposite impulses; the position
// correction is split by local stiffness, dx_i = -k_j / (k_i + k_j) d n.
#include <array>
#include <vector>

#include "sim/layered_body.h"

namespace d2t {

/// Stage 1 proxy: the convex hull of `points` (body frame) grown by `margin`
/// contains the rest skin.
struct ConvexProxy {
  std::vector<Vec3> points;  ///< (<= maxPoints) body frame [m]
  double margin = 0;         ///< [m]
};

/// Builds a proxy of about `maxPoints` rest-skin nodes (a regular subset of the atlas).
ConvexProxy makeProxy(const BakedBody& model, int maxPoints = 192);

/// Distance between the convex hulls of two point sets (GJK).
struct HullDistance {
  double distance = 0;  ///< 0 when the hulls overlap
  Vec3 onA = Vec3::Zero(), onB = Vec3::Zero();  ///< closest points (equal when overlapping)
  bool overlap = false;
  int iterations = 0;
};
HullDistance hullDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b);

/// A pair of bodies whose grown proxies are closer than the tolerance.
struct ProxyContact {
  int a = -1, b = -1;
  Vec3 normal = Vec3::UnitY();  ///< unit, from A towards B
  Vec3 planePoint = Vec3::Zero();  ///< a point of the contact plane D (midway between the proxies)
  double gap = 0;  ///< distance between the grown proxies (< 0: they overlap) [m]
  double growA = 0, growB = 0;  ///< each body's largest skin displacement |q| [m] (the proxies' growth)
  /// Stage 2 reports the nodes up to this far outside the other skin too, with a
  /// negative depth [m] (findProxyContacts: its tolerance). A resting contact keeps
  /// its rows when a node lifts a little (LayeredBody::respond, supportLoad).
  double margin = 0;
};

/// What the detection between bodies did in one pass (for tests and panels).
struct PairStats {
  int broadPairs = 0;    ///< pairs whose bounding spheres overlap (sweep and prune)
  int proxyPairs = 0;    ///< pairs that passed stage 1 (stage 2 ran for them)
  int contactNodes = 0;  ///< colliding nodes found by stage 2, both bodies together
};

/// Stage 1 for all bodies: sweep and prune on bounding spheres, then GJK on the
/// grown proxies. `proxies[i]` belongs to `bodies[i]`.
std::vector<ProxyContact> findProxyContacts(const std::vector<const LayeredBody*>& bodies,
                                            const std::vector<ConvexProxy>& proxies, double tolerance,
                                            PairStats* stats);

/// A body's motion rigidified (Mirtich; DDT sec. 5.3.1): the velocity of its
/// centre of mass and its angular velocity, world frame.
struct RigidMotion {
  Vec3 com = Vec3::Zero(), vcom = Vec3::Zero(), omega = Vec3::Zero();
  Mat3 invInertia = Mat3::Identity();  ///< world, about com
  double mass = 1;
  Vec3 velocityAt(const Vec3& x) const { return vcom + omega.cross(x - com); }
  /// Effective mass of the rigidified body at x along the unit direction n.
  double effectiveMass(const Vec3& x, const Vec3& n) const {
    const Vec3 rn = (x - com).cross(n);
    return 1 / (1 / mass + rn.dot(invInertia * rn));
  }
};
RigidMotion rigidMotion(const LayeredBody& body);

/// The velocity of the other surface at a contact at x with normal n between two
/// bodies: the pair's common velocity (effective-mass weighted), so that the
/// two responses exchange equal and opposite impulses; or, when the other body
/// is taken as immovable (shock propagation in a resting stack), its own.
Vec3 pairSurfaceVelocity(const RigidMotion& self, const RigidMotion& other, const Vec3& x, const Vec3& n,
                         bool otherImmovable = false);

/// A contact of node `node` (world position x) of `self` with triangle `tri` of
/// `other` at barycentric `bary`: the pair's surface velocity, friction,
/// restitution and the stiffness split of the correction.
NodeContact makePairContact(const LayeredBody& self, const RigidMotion& rs, int node, const Vec3& x,
                            const LayeredBody& other, const RigidMotion& ro, const Vec3i& tri,
                            const std::array<double, 3>& bary, const Vec3& normal, double depth);

/// One normal for a pair: the depth-weighted mean over the contact of the
/// surface normals (a coarse skin's normals tilt with its triangulation, which
/// differs between the two sides); A's contacts get -n, B's +n, so the two
/// responses are equal and opposite. Nodes within the margin (depth <= 0) weigh
/// next to nothing; `fallback` when there is no contact.
void unifyPairNormal(std::vector<NodeContact>& a, std::vector<NodeContact>& b, const Vec3& fallback);

/// The part of one skin that can touch the other body along the pair normal n.
struct SkinPatch {
  std::vector<int> triangles;  ///< facing the other body and reaching into the overlap slab
  std::vector<int> nodes;      ///< the nodes of those triangles, ascending
  std::vector<Vec3> x;         ///< their world positions, in the order of `nodes`
};

/// Stage 2's input for a pair: the slab where the two skins overlap along n and
/// each side's patch in it, reached through each skin's bounding-volume
/// hierarchy (BakedBody::skinBvh, grown by ProxyContact::growA/B): the work is
/// proportional to the patches, not to the skins. False when the skins do not
/// overlap along n (stage 2 has nothing to do).
struct PairPatches {
  double hA = 0;  ///< max of n . x over A's skin [m]
  double hB = 0;  ///< min of n . x over B's skin [m]; the slab is (hB, hA), grown by the pair's margin
  SkinPatch a, b;
};
bool findPairPatches(const LayeredBody& a, const LayeredBody& b, const ProxyContact& pair, PairPatches* out);

/// Stage 2 (CPU reference) for one pair: appends the colliding nodes of A to
/// `outA` and of B to `outB`, and those within the pair's margin outside the other
/// skin (depth < 0). Returns the number of colliding nodes (depth > 0).
int findSkinContacts(const LayeredBody& a, const LayeredBody& b, const ProxyContact& pair,
                     std::vector<NodeContact>* outA, std::vector<NodeContact>* outB);

}  // namespace d2t
