#pragma once
// Runtime rigid colliders: planes, height fields and meshes, static or
// kinematic (scripted by keyframes, or dragged by the user).
#include <memory>

#include "sim/contact/collider_pieces.h"
#include "sim/contact/convex_proxy.h"
#include "sim/contact/height_field.h"
#include "sim/scene/mesh_check.h"
#include "sim/scene/scene.h"

namespace d2t {

/// Result of a point query against a collider.
struct SurfaceHit {
  double distance = 0;                 ///< signed distance [m], negative = penetrating
  Vec3 normal = Vec3::UnitY();         ///< outward unit normal of the collider at the point
  Vec3 velocity = Vec3::Zero();        ///< velocity of the collider surface at the point [m/s]
};

class Collider {
 public:
  explicit Collider(const ColliderDesc& desc);

  const ColliderDesc& desc() const { return desc_; }
  const std::string& name() const { return desc_.name; }
  ColliderType type() const { return desc_.type; }

  /// Pose and velocity at simulation time t from the keyframes (no-op without keyframes
  /// or while dragged). Velocity is the keyframe path's derivative.
  void animate(double t);
  /// Moves the collider to a user-given pose over `dt` (drag): velocity = displacement / dt
  /// (dt = 0: placed at rest, e.g. while the simulation is paused).
  void dragTo(const Vec3& position, double dt);
  /// Ends a drag: the collider stays where it was released, at rest; its keyframed
  /// script (if any) stays off until reset().
  void endDrag();
  bool dragging() const { return dragging_; }
  /// Whether the user has moved it since the last reset (the script is off then).
  bool released() const { return released_; }
  /// Back to the scene's pose; the script runs again.
  void reset();

  /// Where it is and how it moves, with its drag flags (WorldState).
  struct Motion {
    Vec3 position = Vec3::Zero();
    Quat orientation = Quat::Identity();
    Vec3 velocity = Vec3::Zero();
    Vec3 angularVelocity = Vec3::Zero();
    bool dragging = false, released = false;
  };
  Motion motion() const { return {position_, orientation_, velocity_, angularVelocity_, dragging_, released_}; }
  void setMotion(const Motion& m) {
    position_ = m.position;
    orientation_ = m.orientation;
    velocity_ = m.velocity;
    angularVelocity_ = m.angularVelocity;
    dragging_ = m.dragging;
    released_ = m.released;
  }

  const Vec3& position() const { return position_; }
  const Quat& orientation() const { return orientation_; }
  const Vec3& velocity() const { return velocity_; }
  const Vec3& angularVelocity() const { return angularVelocity_; }

  /// Signed distance, normal and surface velocity at world point x: planes and
  /// height fields (a mesh collider throws std::logic_error: it is detected through
  /// the two stages, findColliderContacts).
  SurfaceHit query(const Vec3& x) const;
  /// Velocity of the collider's surface at world point x (its rigid motion) [m/s].
  Vec3 velocityAt(const Vec3& x) const { return velocity_ + angularVelocity_.cross(x - position_); }

  /// Mesh colliders go through the two-stage detection as bodies do (docs/design.md
  /// sec. 5), piece by piece (collider_pieces.h): each piece's convex proxy (stage 1)
  /// and the hierarchy over its triangles (stage 2), in the collider frame. Planes and
  /// height fields are queried exactly (query()) and have neither.
  bool detectedInStages() const { return desc_.type == ColliderType::Mesh; }
  /// Planes and height fields: the half-space n . x <= h (n a unit vector, world)
  /// that holds the whole solid, so that only points with n . x < h + margin can
  /// come within `margin` of it (the top of a height field's highest ridge).
  void boundingHalfSpace(Vec3* n, double* h) const;
  /// A mesh collider's pieces (one for a closed mesh close to its hull).
  const std::vector<ColliderPiece>& pieces() const { return pieces_; }
  /// The proxy of the whole mesh (a bound for pruning, where no pair normal is needed).
  const ConvexProxy& proxy() const { return proxy_; }
  /// What orientPieces found in the mesh (mesh colliders).
  const MeshReport& meshReport() const { return report_; }
  /// A height field's grid (in the collider frame); nullptr for the other types.
  const HeightField* heightField() const { return field_.get(); }

  /// World-space surface mesh for drawing (planes: a square of side `extent`).
  TriMesh worldMesh(double extent = 20) const;
  /// Local (collider-frame) surface mesh.
  const TriMesh& localMesh() const { return mesh_; }

 private:
  ColliderDesc desc_;
  std::unique_ptr<HeightField> field_;
  TriMesh mesh_;  // local frame
  ConvexProxy proxy_;  // mesh colliders: of mesh_'s vertices
  std::vector<ColliderPiece> pieces_;
  MeshReport report_;
  Vec3 position_, velocity_ = Vec3::Zero(), angularVelocity_ = Vec3::Zero();
  Quat orientation_;
  bool dragging_ = false;
  bool released_ = false;  // dragged and let go: keyframes ignored until reset()
};

}  // namespace d2t
