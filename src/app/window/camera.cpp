#include "app/window/camera.h"

#include <algorithm>
#include <cmath>

namespace d2t {

Camera::Camera(const Vec3& eye, const Vec3& target, double fovYDegrees)
    : target_(target), fovY_(fovYDegrees) {
  const Vec3 d = eye - target;
  distance_ = std::max(d.norm(), 1e-3);
  pitch_ = std::asin(std::clamp(d.y() / distance_, -1.0, 1.0));
  yaw_ = std::atan2(d.x(), d.z());
}

Vec3 Camera::eye() const {
  const double c = std::cos(pitch_);
  return target_ + distance_ * Vec3(c * std::sin(yaw_), std::sin(pitch_), c * std::cos(yaw_));
}

void Camera::orbit(double dYaw, double dPitch) {
  yaw_ += dYaw;
  pitch_ = std::clamp(pitch_ + dPitch, -1.5, 1.5);
}

void Camera::pan(double dx, double dy) {
  const Vec3 fwd = (target_ - eye()).normalized();
  const Vec3 right = fwd.cross(Vec3::UnitY()).normalized();
  const Vec3 up = right.cross(fwd);
  const double h = 2.0 * distance_ * std::tan(0.5 * fovY_ * kPi / 180.0);
  target_ += h * (-dx * right + dy * up);
}

void Camera::zoom(double factor) { distance_ = std::clamp(distance_ * factor, 0.05, 500.0); }

Eigen::Matrix4f Camera::view() const { return lookAt(eye(), target_, Vec3::UnitY()); }

Eigen::Matrix4f Camera::projection(double aspect) const {
  return perspective(fovY_ * kPi / 180.0, aspect, std::max(0.01, distance_ * 0.01),
                     std::max(100.0, distance_ * 20));
}

void Camera::ray(double ndcX, double ndcY, double aspect, Vec3* origin, Vec3* dir) const {
  const Vec3 e = eye();
  const Vec3 fwd = (target_ - e).normalized();
  const Vec3 right = fwd.cross(Vec3::UnitY()).normalized();
  const Vec3 up = right.cross(fwd);
  const double t = std::tan(0.5 * fovY_ * kPi / 180.0);
  *origin = e;
  *dir = (fwd + ndcX * t * aspect * right + ndcY * t * up).normalized();
}

Eigen::Matrix4f lookAt(const Vec3& eye, const Vec3& target, const Vec3& up) {
  const Eigen::Vector3f f = (target - eye).normalized().cast<float>();
  Eigen::Vector3f u = up.cast<float>();
  if (std::abs(f.dot(u)) > 0.999f) u = Eigen::Vector3f::UnitZ();
  const Eigen::Vector3f s = f.cross(u).normalized();
  const Eigen::Vector3f v = s.cross(f);
  const Eigen::Vector3f e = eye.cast<float>();
  Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
  m.block<1, 3>(0, 0) = s.transpose();
  m.block<1, 3>(1, 0) = v.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -s.dot(e);
  m(1, 3) = -v.dot(e);
  m(2, 3) = f.dot(e);
  return m;
}

Eigen::Matrix4f perspective(double fovY, double aspect, double n, double f) {
  const float t = float(1.0 / std::tan(0.5 * fovY));
  Eigen::Matrix4f m = Eigen::Matrix4f::Zero();
  m(0, 0) = t / float(aspect);
  m(1, 1) = t;
  m(2, 2) = float((f + n) / (n - f));
  m(2, 3) = float(2 * f * n / (n - f));
  m(3, 2) = -1;
  return m;
}

Eigen::Matrix4f orthographic(double l, double r, double b, double t, double n, double f) {
  Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
  m(0, 0) = float(2 / (r - l));
  m(1, 1) = float(2 / (t - b));
  m(2, 2) = float(-2 / (f - n));
  m(0, 3) = float(-(r + l) / (r - l));
  m(1, 3) = float(-(t + b) / (t - b));
  m(2, 3) = float(-(f + n) / (f - n));
  return m;
}

}  // namespace d2t
