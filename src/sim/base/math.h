#pragma once
// Common numeric types of the simulation layer (double precision on the CPU;
// the GPU layer converts to float at its boundary).
#include <Eigen/Core>
#include <Eigen/Geometry>

namespace d2t {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec3i = Eigen::Vector3i;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Quat = Eigen::Quaterniond;

constexpr double kPi = 3.14159265358979323846;

/// Cross-product matrix: skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

/// R exp(dt [w]x): the orientation after rotating at body-frame angular velocity w for dt.
inline Quat integrateBodyRotation(const Quat& q, const Vec3& wBody, double dt) {
  const double angle = wBody.norm() * dt;
  if (angle <= 0) return q;
  Quat r = q * Quat(Eigen::AngleAxisd(angle, wBody.normalized()));
  r.normalize();
  return r;
}

/// Axis-aligned box.
struct Aabb {
  Vec3 lo = Vec3::Constant(1e300);
  Vec3 hi = Vec3::Constant(-1e300);
  void grow(const Vec3& p) { lo = lo.cwiseMin(p); hi = hi.cwiseMax(p); }
  void grow(const Aabb& b) { lo = lo.cwiseMin(b.lo); hi = hi.cwiseMax(b.hi); }
  /// Whether the two boxes share a point (touching counts).
  bool overlaps(const Aabb& b) const { return (lo.array() <= b.hi.array()).all() && (b.lo.array() <= hi.array()).all(); }
  bool empty() const { return (hi.array() < lo.array()).any(); }
  bool contains(const Vec3& p) const { return (lo.array() <= p.array()).all() && (p.array() <= hi.array()).all(); }
  Vec3 center() const { return 0.5 * (lo + hi); }
};

}  // namespace d2t
