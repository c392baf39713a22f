#pragma once
// Mouse picking and dragging, as pure geometry (no GL, no window): the ray
// from the camera through the cursor, ray-triangle and ray-mesh hits, what a
// ray hits in a world (bodies' deformed skins, colliders), and the plane
// facing the camera in which a grabbed collider is dragged.
#include <optional>
#include <vector>

#include "app/window/camera.h"
#include "sim/world/world.h"

namespace d2t {

/// A half line origin + t dir, t >= 0 (dir unit).
struct Ray {
  Vec3 origin = Vec3::Zero();
  Vec3 dir = -Vec3::UnitZ();
};

/// The ray from the camera through cursor pixel (x, y) of a viewport of
/// width x height pixels (origin top left, y down, as GLFW reports the cursor).
Ray cursorRay(const Camera& camera, double x, double y, int width, int height);

/// Where a ray meets a triangle (both sides): distance along the ray and the
/// barycentric weights of b and c (a's is 1 - u - v). Moller-Trumbore.
struct TriangleHit {
  double t = 0;
  double u = 0, v = 0;
};
std::optional<TriangleHit> intersectTriangle(const Ray& ray, const Vec3& a, const Vec3& b, const Vec3& c);

/// The nearest hit of a ray with a triangle mesh (positions in the ray's frame).
struct MeshHit {
  double t = 0;        ///< distance along the ray [m]
  int triangle = -1;   ///< index into the triangles
  double u = 0, v = 0; ///< barycentric weights of the triangle's 2nd and 3rd vertex
};
std::optional<MeshHit> intersectMesh(const Ray& ray, const std::vector<Vec3>& positions,
                                     const std::vector<Vec3i>& triangles);

/// Whether a ray passes within `radius` of `center` (a cheap reject before a mesh test).
bool rayNearSphere(const Ray& ray, const Vec3& center, double radius);

/// What a click picked.
struct Pick {
  enum class Kind { None, Body, Collider, Character };
  Kind kind = Kind::None;
  int index = -1;            ///< body, collider or character index in the world
  double t = 0;              ///< distance from the camera along the ray [m]
  Vec3 point = Vec3::Zero(); ///< world point hit [m]
  // bodies and characters: the skin node nearest to the hit point and (bodies) its atlas texel
  // (the anchor of a skin-point spring drag)
  int node = -1;             ///< node index (LayeredBody / BakedBody numbering)
  int texel = -1;            ///< atlas texel index y * N + x of that node
  explicit operator bool() const { return kind != Kind::None; }
};

/// The nearest body or character skin (deformed, current state) or collider surface the ray hits.
/// Planes are picked only when `planes` is true (a click on the ground should orbit
/// the camera, not select the ground).
Pick pickWorld(World& world, const Ray& ray, bool planes = false);

/// The plane through `grab` facing the camera (normal along the view direction).
struct DragPlane {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  ///< unit, pointing away from the camera
};
DragPlane dragPlaneFacing(const Camera& camera, const Vec3& grab);
/// Where a ray meets a plane (nullopt when parallel or behind the origin).
std::optional<Vec3> intersectPlane(const Ray& ray, const DragPlane& plane);

/// A collider held by the mouse: the grab point's offset from the collider's
/// position is kept, the grab point follows the cursor in the drag plane, and
/// the wheel moves the plane towards or away from the camera.
class ColliderDrag {
 public:
  /// Starts a drag of collider `index` grabbed at world point `grab`.
  ColliderDrag(int index, const Vec3& colliderPosition, const Vec3& grab, const Camera& camera);
  int collider() const { return index_; }
  /// The collider position that puts the grab point under the cursor ray
  /// (the last one when the ray misses the plane).
  Vec3 follow(const Ray& cursor);
  /// Moves the drag plane along its normal by `steps` wheel notches (positive:
  /// away from the camera), each 10% of the plane's distance from `eye` (at
  /// least 1 cm). Returns the new collider position for the same cursor ray.
  Vec3 push(double steps, const Vec3& eye, const Ray& cursor);
  const DragPlane& plane() const { return plane_; }
  const Vec3& target() const { return target_; }

 private:
  int index_;
  Vec3 offset_;  // collider position - grab point
  DragPlane plane_;
  Vec3 target_;
};

}  // namespace d2t
