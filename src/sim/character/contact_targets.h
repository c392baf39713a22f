#pragma once
// The surfaces a character's skin meets besides planes and height fields (dissertation
// 4.3, 4.5): mesh colliders (rigid, keyframed or dragged), the skins of ch. 3's bodies and
// those of other characters. Each is a snapshot taken before the characters step: the world
// positions and velocities of its nodes, smooth normals and a hierarchy over its triangles,
// and what the other side of a contact weighs there (its effective mass along the normal:
// infinite for a collider, the rigidified body's for a body, the touched bone's with its
// skin for a character). A node's contact is its nearest surface point: inside when the
// node is behind the surface's smooth normal there (a collider's normal: the direction to
// that point, the gradient of its distance), up to `maxDepth` deep. A collider is queried
// through its shape's signed distance instead (exact sign for any closed shape, the unions of
// ellipsoids whose parts' meshes overlap included).
#include <array>
#include <vector>

#include "sim/base/triangle_bvh.h"
#include "sim/contact/body_contact.h"
#include "sim/scene/shape.h"

namespace d2t {

class ArticulatedBody;
struct CharacterModel;
struct Influences;
class Collider;
class LayeredBody;

struct SurfaceTarget {
  enum class Kind { Collider, Body, Character } kind = Kind::Collider;
  int index = -1;  ///< into the world's colliders, bodies or characters
  std::vector<Vec3> x, v;            ///< (nodes) world positions [m] and velocities [m/s]
  std::vector<Vec3i> triangles;      ///< outward
  std::vector<Vec3> normals;         ///< (nodes) smooth (area-weighted) unit normals
  TriangleBvh bvh;                   ///< over x
  Aabb box;                          ///< of x
  double maxSpeed = 0;               ///< largest |v| [m/s]
  double maxDepth = 0.05;            ///< deepest a node can be inside and be found [m]
  double friction = 0.5;
  // a collider: its shape in its frame, and its rigid motion
  ShapePtr shape;
  Vec3 position = Vec3::Zero(), linear = Vec3::Zero(), angular = Vec3::Zero();
  Mat3 rotation = Mat3::Identity();
  // the other side's mass: a body rigidified; a character's bones (dominant bone per node)
  RigidMotion rigid;
  std::vector<Eigen::Matrix<double, 6, 6>> boneInverse;  ///< (bones) M_c(b, b)^-1
  std::vector<Vec3> boneCentre;
  std::vector<Mat3> boneRotation;
  std::vector<int> dominantBone;  ///< (nodes)

  bool movable() const { return kind != Kind::Collider; }
  /// Whether stage 1 lets a node with these weights query this surface.
  bool reaches(const Influences& in) const;

  struct Hit {
    double distance = 0;      ///< signed: < 0 inside [m]
    Vec3 normal = Vec3::UnitY();  ///< out of the surface
    Vec3 point = Vec3::Zero();    ///< the nearest surface point
    Vec3 velocity = Vec3::Zero(); ///< of that point [m/s]
    int triangle = -1;
    std::array<double, 3> bary{};
  };
  /// Stage 1 (bone_proxies.h): the bones of the character querying this surface whose grown
  /// proxies came within reach of it; a node is looked up only when its dominant bone (the
  /// proxy it is in) is here. Empty: every node.
  std::vector<char> bones;
  /// A character's own skin (self_contact.h): each node's self-contact at the snapshot
  /// (triangle -1: none), found once for all its queries.
  bool self = false;
  std::vector<Hit> nodeHits;

  /// Which side of an open collider (a shape with open parts: its distance there unsigned) a
  /// node is on: the side whose normal it was last found clearly on (CharacterState::openSide;
  /// zero: none), else its inner point's.
  struct Side {
    Vec3 inner = Vec3::Zero();
    Vec3 remembered = Vec3::Zero();
  };
  /// The surface near x: found when x is within `outside` of it outside or `maxDepth` inside.
  /// An open collider is seen from `side`: x is inside it, by its distance, when the
  /// remembered normal turns away from the normal at x (facing within 60 degrees of it: the
  /// same part of the surface), or else when the inner point lies behind the tangent plane at
  /// x's nearest point.
  bool query(const Vec3& x, double outside, Hit* hit, const Side* side = nullptr) const;
  /// The same for node p at x: its self-contact (a self target), or query(x, side).
  bool queryNode(int p, const Vec3& x, double outside, Hit* hit, const Side* side = nullptr) const;
  /// The surface's effective mass at a hit along unit n [kg] (1e300: immovable).
  double effectiveMass(const Hit& hit, const Vec3& n) const;
  /// The nodes a hit's impulse reaches, with their shares (the triangle's corners; not for a
  /// collider).
  std::array<std::pair<int, double>, 3> corners(const Hit& hit) const;
};

/// A mesh collider at its current pose (its velocity: its rigid motion).
SurfaceTarget colliderTarget(const Collider& collider, int index);
/// A body's deformed skin as it is now.
SurfaceTarget bodyTarget(LayeredBody& body, int index);
/// A character's deformed skin as it is now: positions, velocities, normals, its bones' frames;
/// no hierarchy, no bone masses (what its own self-contacts need; addBoneMasses, pairedTarget).
SurfaceTarget characterSnapshot(const ArticulatedBody& character, int index);
/// The bones' inverse mass blocks of a character's snapshot (what the effective masses of its
/// hits need), once.
void addBoneMasses(const ArticulatedBody& character, SurfaceTarget& snapshot);
/// A copy of a character's snapshot with a hierarchy over `subset` (stage 2 on the paired
/// bones' patches; all triangles when empty).
SurfaceTarget pairedTarget(const SurfaceTarget& snapshot, const std::vector<int>& subset);
/// A character's whole skin now: the snapshot, its bone masses and a hierarchy over it all.
SurfaceTarget characterTarget(const ArticulatedBody& character, int index);
/// A character's skin as a surface for itself, from its snapshot: each node's self-contact (cut,
/// or near in the step dt) found for the bone pairs `pairs` (stage 1's self pairs;
/// self_contact.h). `self` false when there is none; when there is, the snapshot's bone masses
/// (if it had them) come along.
SurfaceTarget selfTarget(const CharacterModel& m, const SurfaceTarget& snapshot,
                         const std::vector<std::pair<int, int>>& pairs, double dt);
/// The union of the patches T_i of these bones (flags by bone), sorted.
std::vector<int> patchTriangles(const CharacterModel& m, const std::vector<char>& bones);

/// The effective mass of a rigid 6-dof body with inverse mass block Minv (linear velocity
/// world, angular velocity in the frame R) at world point x relative to its origin c along n.
double rigidEffectiveMass(const Eigen::Matrix<double, 6, 6>& Minv, const Vec3& c, const Mat3& R, const Vec3& x,
                          const Vec3& n);

}  // namespace d2t
