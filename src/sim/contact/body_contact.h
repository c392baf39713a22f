#pragma once
// Collision detection between deformable bodies, and between a body and a mesh
// collider (the fist, the bird), in two stages (DDT paper sec. 5.1, 5.3;
// dissertation 3.3, 3.5.4; docs/design.md sec. 5-6). A mesh collider is a rigid
// surface with a proxy of its own, taking part as a body of infinite stiffness.
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

#include "sim/contact/collider.h"
#include "sim/contact/convex_proxy.h"
#include "sim/body/layered_body.h"

namespace d2t {

/// A body's stage 1 proxy: about `maxPoints` of its rest skin nodes (body frame).
ConvexProxy makeProxy(const BakedBody& model, int maxPoints = 192);

/// A proxy placed in the world for stage 1.
struct PlacedProxy {
  std::vector<Vec3> points;  ///< world frame [m]
  double margin = 0;         ///< the proxy's margin + the largest skin displacement [m]
  Vec3 centre = Vec3::Zero();
  double radius = 0;         ///< bounding sphere about centre [m]
  double grow = 0;           ///< largest skin displacement |q| [m] (0: rigid)
  bool rigid = false;        ///< a collider: two rigid proxies are never a pair
  /// A collider's flat cluster (ColliderPiece::axis, world; zero otherwise): a pair with
  /// it takes this axis as its normal, towards the cluster from the body's side of it
  /// (double-sided) or from outside (one-sided).
  Vec3 axis = Vec3::Zero();
  Vec3 sheet = Vec3::Zero();  ///< ... a point on it (ColliderPiece::sheet, world)
  bool doubleSided = false;
  const ColliderPiece* piece = nullptr;  ///< ... the cluster (collider frame), and the collider's pose
  Vec3 position = Vec3::Zero();
  Mat3 rotation = Mat3::Identity();
  /// Grown by `by` [m] all round (what its surface may travel: stage 1 against a moving one).
  void sweep(double by) {
    margin += by;
    radius += by;
  }
};
PlacedProxy placeProxy(LayeredBody& body, const ConvexProxy& proxy);
/// A mesh collider's proxy at its current pose (Collider::detectedInStages): the whole
/// mesh's, or one piece's (stage 1 pairs a body with each piece it nears).
PlacedProxy placeProxy(const Collider& collider);
PlacedProxy placeProxy(const Collider& collider, int piece);

/// A pair of bodies (or a body and a mesh collider) whose grown proxies are
/// closer than the tolerance.
struct ProxyContact {
  int a = -1, b = -1;  ///< indices into the proxies searched, a < b
  Vec3 normal = Vec3::UnitY();  ///< unit, from A towards B
  Vec3 planePoint = Vec3::Zero();  ///< a point of the contact plane D (midway between the proxies)
  double gap = 0;  ///< distance between the grown proxies (< 0: they overlap) [m]
  double growA = 0, growB = 0;  ///< each body's largest skin displacement |q| [m] (the proxies' growth)
  /// Stage 2 reports the nodes up to this far outside the other skin too, with a
  /// negative depth [m] (findProxyContacts: its tolerance). A resting contact keeps
  /// its rows when a node lifts a little (LayeredBody::respond, computeSupport).
  double margin = 0;
};

/// What the detection between bodies did in one pass (for tests and panels).
struct PairStats {
  int broadPairs = 0;    ///< pairs whose bounding spheres overlap (sweep and prune)
  int proxyPairs = 0;    ///< pairs that passed stage 1 (stage 2 ran for them)
  int contactNodes = 0;  ///< colliding nodes found by stage 2, both bodies together
};

/// Stage 1: sweep and prune on bounding spheres, then GJK on the grown proxies;
/// pairs of two rigid proxies are skipped.
std::vector<ProxyContact> findProxyContacts(const std::vector<PlacedProxy>& placed, double tolerance,
                                            PairStats* stats);
/// ... for bodies only: `proxies[i]` belongs to `bodies[i]`.
std::vector<ProxyContact> findProxyContacts(const std::vector<LayeredBody*>& bodies,
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
RigidMotion rigidMotion(LayeredBody& body);

/// The velocity of the other surface at a contact at x with normal n between two
/// bodies: the pair's common velocity (effective-mass weighted), so that the
/// two responses exchange equal and opposite impulses; or, when the other body
/// is taken as immovable (shock propagation in a resting stack), its own.
Vec3 pairSurfaceVelocity(const RigidMotion& self, const RigidMotion& other, const Vec3& x, const Vec3& n,
                         bool otherImmovable = false);

/// A contact of node `node` (world position x) of `self` with triangle `tri` of
/// `other` at barycentric `bary`: the pair's surface velocity, friction,
/// restitution and the stiffness split of the correction.
NodeContact makePairContact(LayeredBody& self, const RigidMotion& rs, int node, const Vec3& x,
                            LayeredBody& other, const RigidMotion& ro, const Vec3i& tri,
                            const std::array<double, 3>& bary, const Vec3& normal, double depth);

/// One normal for a pair: the depth-weighted mean over the contact of the
/// surface normals (a coarse skin's normals tilt with its triangulation, which
/// differs between the two sides); A's contacts get -n, B's +n, so the two
/// responses are equal and opposite. Nodes within the margin (depth <= 0) weigh
/// next to nothing; `fallback` when there is no contact.
void unifyPairNormal(std::vector<NodeContact>& a, std::vector<NodeContact>& b, const Vec3& fallback);

/// One side of stage 2: a triangulated surface in the world, node i at
/// position + R (rest_i + q_i). A deformable body's skin (q_i: its displacements,
/// read node by node, LayeredBody::nodeLocal; its BakedBody::skinBvh, queried
/// grown by its largest |q_i|) or a mesh collider's surface (rigid: no q).
/// Refers to the body or collider, which must outlive it.
struct ContactSurface {
  ContactSurface(LayeredBody& body);    // NOLINT: a body is a contact surface
  /// A piece of a mesh collider, with its triangles as `triangles` lists them.
  ContactSurface(const Collider& collider, const ColliderPiece& piece, const std::vector<Vec3i>* triangles);
  LayeredBody* body;             ///< the deformable body, or null (rigid)
  const std::vector<Vec3>* rest;       ///< (nodes) surface frame [m]
  const std::vector<Vec3i>* triangles; ///< outward (counter-clockwise seen from outside)
  const SkinBvh* bvh;                  ///< over rest and triangles
  Vec3 position = Vec3::Zero();        ///< the surface frame in the world
  Mat3 rotation = Mat3::Identity();
  /// Node i in the surface frame, and in the world.
  Vec3 local(int i) const { return body ? body->nodeLocal(i) : (*rest)[size_t(i)]; }
  Vec3 node(int i) const { return position + rotation * local(i); }
};

/// Piece `piece` of mesh collider `c` as body A sees it along the pair normal n (from A
/// towards the collider): its triangles, those of a double-sided (open) piece wound to
/// face A, so that stage 2 meets an open sheet from the side A is on. Refers to the
/// collider, which must outlive it.
class ColliderSide {
 public:
  ColliderSide(const Collider& c, int piece, const Vec3& n);
  ColliderSide(const ColliderSide&) = delete;
  ColliderSide& operator=(const ColliderSide&) = delete;
  const ContactSurface& surface() const { return surface_; }
  const std::vector<Vec3i>& triangles() const { return *surface_.triangles; }

 private:
  std::vector<Vec3i> facing_;  // (double-sided pieces) the piece's triangles, wound to face A
  ContactSurface surface_;
};

/// The contact normal stage 2 gives node `node` of `self` behind triangle `tri` of
/// `other` at barycentric `bary`: the mean of the two surfaces' smooth (area-weighted)
/// normals there, out of `other` (a rigid `other` keeps its shape: its normal alone);
/// `fallback` where they cancel. The CPU's stage 2 and the contact camera both use it.
Vec3 pairNormal(const ContactSurface& self, int node, const ContactSurface& other, const Vec3i& tri,
                const std::array<double, 3>& bary, const Vec3& fallback);

/// The part of one skin that can touch the other body along the pair normal n.
struct SkinPatch {
  std::vector<int> triangles;  ///< facing the other body and reaching into the overlap slab
  std::vector<int> nodes;      ///< the nodes of those triangles, ascending
  std::vector<Vec3> x;         ///< their world positions, in the order of `nodes`
};

/// Stage 2's input for a pair: the slab where the two skins overlap along n and
/// each side's patch in it, reached through each skin's bounding-volume
/// hierarchy (BakedBody::skinBvh, grown by ProxyContact::growA/B): the work is
/// proportional to the patches, not to the skins. Where a solver holds a skin,
/// the nodes this can read (known from the rest surface and the growth before
/// any is read) come back in one gather, not the whole skin. False when the
/// skins do not overlap along n (stage 2 has nothing to do).
struct PairPatches {
  double hA = 0;  ///< max of n . x over A's skin [m]
  double hB = 0;  ///< min of n . x over B's skin [m]; the slab is (hB, hA), grown by the pair's margin
  SkinPatch a, b;
};
bool findPairPatches(const ContactSurface& a, const ContactSurface& b, const ProxyContact& pair,
                     PairPatches* out);

/// Stage 2 (CPU reference) for one pair: appends the colliding nodes of A to
/// `outA` and of B to `outB`, and those within the pair's margin outside the other
/// skin (depth < 0). Returns the number of colliding nodes (depth > 0).
int findSkinContacts(LayeredBody& a, LayeredBody& b, const ProxyContact& pair,
                     std::vector<NodeContact>* outA, std::vector<NodeContact>* outB);

/// A contact of node `node` (world position x) of `self` with the rigid collider
/// `c`: the collider's surface velocity there, the friction of the two, the body's
/// restitution; the collider takes none of the correction (stiffnessShare 1), and
/// other = -1 as for every collider.
NodeContact makeColliderContact(LayeredBody& self, int node, const Vec3& x, const Collider& c,
                                const Vec3& normal, double depth);

/// Stage 2 (CPU) between a body (the pair's A) and piece `piece` of a mesh collider (B):
/// A's patch is cast along n against the piece's triangles facing it (ColliderSide), as
/// against another skin; the normal is the collider's (it keeps its shape), unified
/// over the pair (makeColliderContact). Appends A's contacts (and those within the
/// margin); returns the colliding ones.
int findColliderContacts(LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                         std::vector<NodeContact>* outA);

/// The core of body A (the pair's) against piece `piece` of mesh collider B (policy `skin_on_core`,
/// core_point_rows.h): the core points within their crushed layer (keep h_i, keep =
/// Material::minLayer) of the collider, or within `margin` of that, cast along the pair
/// normal n against the piece's triangles facing A as stage 2 casts the skin's nodes;
/// depth = n . f_i + keep h_i - (the surface's height along n there), normal -n (out of
/// the collider, as the pair's skin contacts). The core points are rigid: the CPU finds
/// them for either backend. Appends them to `out`.
void findCoreColliderPoints(const LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                            double margin, std::vector<CorePointContact>* out);

/// Stage 2 for the pairs that stage 1 found, as another implementation does it
/// (the GPU's contact camera); the CPU reference is findSkinContacts and
/// findColliderContacts. Same contracts as those.
class PairContactFinder {
 public:
  virtual ~PairContactFinder() = default;
  virtual int find(LayeredBody& a, LayeredBody& b, const ProxyContact& pair,
                   std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) = 0;
  virtual int find(LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                   std::vector<NodeContact>* outA) = 0;
};

}  // namespace d2t
