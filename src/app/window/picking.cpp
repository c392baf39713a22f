#include "app/window/picking.h"

#include <algorithm>
#include <cmath>

namespace d2t {

Ray cursorRay(const Camera& camera, double x, double y, int width, int height) {
  const double w = std::max(width, 1), h = std::max(height, 1);
  // pixel centres to normalised device coordinates: x right, y up
  const double ndcX = 2.0 * x / w - 1.0, ndcY = 1.0 - 2.0 * y / h;
  Ray r;
  camera.ray(ndcX, ndcY, w / h, &r.origin, &r.dir);
  return r;
}

std::optional<TriangleHit> intersectTriangle(const Ray& ray, const Vec3& a, const Vec3& b, const Vec3& c) {
  // origin + t dir = a + u (b - a) + v (c - a), solved by Cramer's rule
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 p = ray.dir.cross(e2);
  const double det = e1.dot(p);
  if (std::abs(det) < 1e-14 * e1.norm() * e2.norm()) return std::nullopt;  // parallel or degenerate
  const double inv = 1.0 / det;
  const Vec3 s = ray.origin - a;
  const double u = s.dot(p) * inv;
  if (u < 0 || u > 1) return std::nullopt;
  const Vec3 q = s.cross(e1);
  const double v = ray.dir.dot(q) * inv;
  if (v < 0 || u + v > 1) return std::nullopt;
  const double t = e2.dot(q) * inv;
  if (t < 0) return std::nullopt;
  return TriangleHit{t, u, v};
}

std::optional<MeshHit> intersectMesh(const Ray& ray, const std::vector<Vec3>& positions,
                                     const std::vector<Vec3i>& triangles) {
  std::optional<MeshHit> best;
  const int n = int(positions.size());
  for (size_t i = 0; i < triangles.size(); ++i) {
    const Vec3i& tri = triangles[i];
    if (tri[0] < 0 || tri[1] < 0 || tri[2] < 0 || tri[0] >= n || tri[1] >= n || tri[2] >= n) continue;
    const auto h = intersectTriangle(ray, positions[size_t(tri[0])], positions[size_t(tri[1])],
                                     positions[size_t(tri[2])]);
    if (h && (!best || h->t < best->t)) best = MeshHit{h->t, int(i), h->u, h->v};
  }
  return best;
}

bool rayNearSphere(const Ray& ray, const Vec3& center, double radius) {
  const Vec3 d = center - ray.origin;
  const double along = d.dot(ray.dir);
  if (along < -radius) return false;  // behind the camera
  return (d - std::max(along, 0.0) * ray.dir).squaredNorm() <= radius * radius;
}

Pick pickWorld(World& world, const Ray& ray, bool planes) {
  Pick best;
  auto take = [&](Pick::Kind kind, int index, double t) {
    if (best && t >= best.t) return false;
    best = Pick{};
    best.kind = kind;
    best.index = index;
    best.t = t;
    best.point = ray.origin + t * ray.dir;
    return true;
  };
  // bodies: the deformed skin at the current state
  auto& bodies = world.bodies();
  for (size_t i = 0; i < bodies.size(); ++i) {
    Body& b = bodies[i];
    const double r = b.desc.shape->boundingRadius() * 1.5;  // room for the skin's deformation
    if (!rayNearSphere(ray, b.layered.core().position, r)) continue;
    b.layered.syncSkin();  // (from a GPU solver that holds it)
    const std::vector<Vec3> x = b.skinPositions();
    const auto& tris = b.model->atlas.triangles;
    const auto h = intersectMesh(ray, x, tris);
    if (!h || !take(Pick::Kind::Body, int(i), h->t)) continue;
    // the triangle's vertex nearest the hit (largest barycentric weight)
    const Vec3i& tri = tris[size_t(h->triangle)];
    const double w[3] = {1 - h->u - h->v, h->u, h->v};
    const int k = int(std::max_element(w, w + 3) - w);
    best.node = tri[k];
    best.texel = b.model->atlas.nodeTexel[size_t(best.node)];
  }
  // characters: the deformed skin (bounded by its nodes' box first)
  for (size_t i = 0; i < world.characters().size(); ++i) {
    const Character& c = world.characters()[i];
    const std::vector<Vec3> x = c.body->skinPositions();
    Aabb box;
    for (const Vec3& p : x) box.grow(p);
    if (box.empty() || !rayNearSphere(ray, box.center(), 0.5 * (box.hi - box.lo).norm())) continue;
    const auto h = intersectMesh(ray, x, c.model->triangles);
    if (!h || !take(Pick::Kind::Character, int(i), h->t)) continue;
    const Vec3i& tri = c.model->triangles[size_t(h->triangle)];
    const double w[3] = {1 - h->u - h->v, h->u, h->v};
    best.node = tri[int(std::max_element(w, w + 3) - w)];
  }
  // colliders: the ray in each collider's frame against its local mesh
  const auto& colliders = world.colliders();
  for (size_t i = 0; i < colliders.size(); ++i) {
    const Collider& c = colliders[i];
    if (c.type() == ColliderType::Plane) {
      if (!planes) continue;
      const double dn = c.desc().normal.dot(ray.dir);
      if (std::abs(dn) < 1e-12) continue;
      const double t = (c.desc().offset - c.desc().normal.dot(ray.origin)) / dn;
      if (t >= 0) take(Pick::Kind::Collider, int(i), t);
      continue;
    }
    const TriMesh& mesh = c.localMesh();
    const Quat inv = c.orientation().conjugate();
    const Ray local{inv * (ray.origin - c.position()), inv * ray.dir};
    const Aabb box = mesh.bounds();
    if (box.empty() || !rayNearSphere(local, box.center(), 0.5 * (box.hi - box.lo).norm())) continue;
    if (const auto h = intersectMesh(local, mesh.positions, mesh.triangles))
      take(Pick::Kind::Collider, int(i), h->t);  // rigid frame change: t is the world distance
  }
  return best;
}

DragPlane dragPlaneFacing(const Camera& camera, const Vec3& grab) {
  DragPlane p;
  p.point = grab;
  const Vec3 fwd = camera.target() - camera.eye();
  p.normal = fwd.norm() > 0 ? Vec3(fwd.normalized()) : Vec3(-Vec3::UnitZ());
  return p;
}

std::optional<Vec3> intersectPlane(const Ray& ray, const DragPlane& plane) {
  const double dn = plane.normal.dot(ray.dir);
  if (std::abs(dn) < 1e-9) return std::nullopt;
  const double t = plane.normal.dot(plane.point - ray.origin) / dn;
  if (t < 0) return std::nullopt;
  return Vec3(ray.origin + t * ray.dir);
}

ColliderDrag::ColliderDrag(int index, const Vec3& colliderPosition, const Vec3& grab, const Camera& camera)
    : index_(index), offset_(colliderPosition - grab), plane_(dragPlaneFacing(camera, grab)),
      target_(colliderPosition) {}

Vec3 ColliderDrag::follow(const Ray& cursor) {
  if (const auto p = intersectPlane(cursor, plane_)) target_ = *p + offset_;
  return target_;
}

Vec3 ColliderDrag::push(double steps, const Vec3& eye, const Ray& cursor) {
  // plane distance from the eye along its normal; keep it in front of the camera
  const double d = plane_.normal.dot(plane_.point - eye);
  const double move = steps * std::max(0.1 * std::abs(d), 0.01);
  const double moved = std::max(d + move, 0.05);
  plane_.point += (moved - d) * plane_.normal;
  return follow(cursor);
}

}  // namespace d2t
