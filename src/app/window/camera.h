#pragma once
// Orbit camera: rotates about a target point, pans in the view plane, zooms
// along the view direction. Y is up.
#include <Eigen/Core>

#include "sim/base/math.h"

namespace d2t {

class Camera {
 public:
  Camera() = default;
  Camera(const Vec3& eye, const Vec3& target, double fovYDegrees);

  Vec3 eye() const;
  const Vec3& target() const { return target_; }
  double fovY() const { return fovY_; }

  /// Orbit by yaw/pitch increments [rad]; pitch is kept away from the poles.
  void orbit(double dYaw, double dPitch);
  /// Moves eye and target in the view plane by a fraction of the view height.
  void pan(double dx, double dy);
  /// Scales the distance to the target (factor < 1 moves closer).
  void zoom(double factor);

  Eigen::Matrix4f view() const;
  Eigen::Matrix4f projection(double aspect) const;
  /// World-space ray through normalised device coordinates (x, y in [-1, 1]).
  void ray(double ndcX, double ndcY, double aspect, Vec3* origin, Vec3* dir) const;

 private:
  Vec3 target_ = Vec3::Zero();
  double yaw_ = 0, pitch_ = 0.3, distance_ = 5, fovY_ = 45;
};

/// Right-handed look-at and perspective matrices (OpenGL clip conventions).
Eigen::Matrix4f lookAt(const Vec3& eye, const Vec3& target, const Vec3& up);
Eigen::Matrix4f perspective(double fovYRadians, double aspect, double zNear, double zFar);
Eigen::Matrix4f orthographic(double l, double r, double b, double t, double n, double f);

}  // namespace d2t
