#pragma once
// A body rolling down an incline, measured: the least-squares fit of its centre's
// downhill position x(t) = a t^2 / 2 + v0 t + x0 over the samples given, and its mean
// height over the incline (the loaded rolling radius the closed form takes).
#include <Eigen/Dense>

#include "sim/base/math.h"

namespace d2t::test {

class InclineFit {
 public:
  /// The incline through the origin with unit normal n, downhill the unit direction along it.
  InclineFit(const Vec3& n, const Vec3& downhill) : n_(n), downhill_(downhill) {}
  void add(double t, const Vec3& com) {
    const Eigen::Vector3d row(t * t / 2, t, 1);
    ata_ += row * row.transpose();
    atb_ += row * downhill_.dot(com);
    heightSum_ += n_.dot(com);
    ++samples_;
  }
  /// The fitted downhill acceleration a [m/s^2].
  double acceleration() const { return ata_.ldlt().solve(atb_)(0); }
  /// The centre's mean height over the incline [m].
  double radius() const { return heightSum_ / samples_; }

 private:
  Vec3 n_, downhill_;
  Eigen::Matrix3d ata_ = Eigen::Matrix3d::Zero();
  Eigen::Vector3d atb_ = Eigen::Vector3d::Zero();
  double heightSum_ = 0;
  int samples_ = 0;
};

}  // namespace d2t::test
