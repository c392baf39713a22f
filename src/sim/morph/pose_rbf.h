#pragma once
// Pose-space interpolation of the morph targets' weights (dissertation 5.1.2-5.1.3, eq. 5.2-
// 5.3): radial basis functions phi(r) = r with a constant term, solved once for all targets.
// The examples' poses are centred and projected on their principal components first
// (s_bar = U_s^T (s - s_mean), 5.1.3): coordinates along which no example differs change
// no weight. b(s)^T = [phi(|s_bar - s_bar_1|) ... phi(|s_bar - s_bar_m|), 1] B, with B the
// first m columns of the inverse of [Phi - rho I, 1; 1^T, 0] (the orthogonality condition
// sum w_j = 0 makes the weights sum to 1 everywhere: a partition of unity). phi(r) = r is
// conditionally negative definite, so the smoothing rho is subtracted (-rho keeps the
// system solvable where +rho may not). docs/decisions/0042-dynamic-morph-targets.md.
#include <Eigen/Dense>
#include <vector>

namespace d2t {

class PoseRbf {
 public:
  PoseRbf() = default;
  /// poses: one per example (equal lengths, pairwise distinct); smoothing rho >= 0;
  /// clamp: weights b <- max(b, 0) / sum max(b, 0) (exact at the examples).
  PoseRbf(const std::vector<std::vector<double>>& poses, double smoothing, bool clamp);

  /// The examples' weights at pose s (m values summing to 1); b = e_j exactly at example j
  /// (within 1e-12 in the projected pose) when rho = 0.
  Eigen::VectorXd weights(const std::vector<double>& s) const;
  /// The unclamped weights (negative ones possible for two or more pose dimensions).
  Eigen::VectorXd rawWeights(const std::vector<double>& s) const;

  int examples() const { return int(projected_.cols()); }
  /// The pose dimensions the examples span (d_s <= m - 1).
  int rank() const { return int(basis_.cols()); }
  bool clamped() const { return clamp_; }

 private:
  Eigen::VectorXd project(const std::vector<double>& s) const;
  Eigen::VectorXd mean_;       // s_mean
  Eigen::MatrixXd basis_;      // U_s (d x d_s)
  Eigen::MatrixXd projected_;  // s_bar_j (d_s x m)
  Eigen::MatrixXd B_;          // (m + 1) x m
  double smoothing_ = 0;
  bool clamp_ = true;
};

}  // namespace d2t
