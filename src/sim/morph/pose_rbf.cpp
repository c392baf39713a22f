// PoseRbf (pose_rbf.h): the examples' principal components, the RBF system solved once.
#include "sim/morph/pose_rbf.h"

#include <stdexcept>

namespace d2t {

PoseRbf::PoseRbf(const std::vector<std::vector<double>>& poses, double smoothing, bool clamp)
    : smoothing_(smoothing), clamp_(clamp) {
  const int m = int(poses.size());
  if (m < 1) throw std::invalid_argument("PoseRbf: no example");
  const int d = int(poses[0].size());
  Eigen::MatrixXd S(d, m);
  for (int j = 0; j < m; ++j) {
    if (int(poses[j].size()) != d) throw std::invalid_argument("PoseRbf: poses of different lengths");
    for (int k = 0; k < d; ++k) S(k, j) = poses[j][k];
  }
  mean_ = S.rowwise().mean();
  S.colwise() -= mean_;
  // the principal components: singular values above 1e-6 of the largest (5.1.3)
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(S, Eigen::ComputeThinU);
  const Eigen::VectorXd& sigma = svd.singularValues();
  int rank = 0;
  while (rank < sigma.size() && sigma[rank] > 1e-6 * sigma[0] && sigma[rank] > 0) ++rank;
  basis_ = svd.matrixU().leftCols(rank);
  projected_ = basis_.transpose() * S;
  // [Phi - rho I, 1; 1^T, 0] [W; c] = [I; 0]
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(m + 1, m + 1);
  for (int j = 0; j < m; ++j) {
    for (int k = 0; k < m; ++k) A(j, k) = (projected_.col(j) - projected_.col(k)).norm();
    A(j, j) -= smoothing;
    A(j, m) = A(m, j) = 1;
  }
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(m + 1, m);
  rhs.topRows(m).setIdentity();
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
  if (!lu.isInvertible()) throw std::invalid_argument("PoseRbf: the examples' system is singular (duplicate poses?)");
  B_ = lu.solve(rhs);
}

Eigen::VectorXd PoseRbf::project(const std::vector<double>& s) const {
  if (int(s.size()) != mean_.size())
    throw std::invalid_argument("PoseRbf: a pose of " + std::to_string(s.size()) + " values, expected " +
                                std::to_string(mean_.size()));
  const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(s.data(), Eigen::Index(s.size())) - mean_;
  return basis_.transpose() * v;
}

Eigen::VectorXd PoseRbf::rawWeights(const std::vector<double>& s) const {
  const int m = examples();
  const Eigen::VectorXd p = project(s);
  if (smoothing_ == 0)  // at an example: exactly its unit vector (the solve's rounding aside)
    for (int j = 0; j < m; ++j)
      if ((p - projected_.col(j)).norm() <= 1e-12) return Eigen::VectorXd::Unit(m, j);
  Eigen::RowVectorXd phi(m + 1);
  for (int j = 0; j < m; ++j) phi[j] = (p - projected_.col(j)).norm();
  phi[m] = 1;
  return (phi * B_).transpose();
}

Eigen::VectorXd PoseRbf::weights(const std::vector<double>& s) const {
  Eigen::VectorXd b = rawWeights(s);
  if (!clamp_) return b;
  const Eigen::VectorXd pos = b.cwiseMax(0.0);
  const double sum = pos.sum();
  if (sum > 0) return pos / sum;
  return b;
}

}  // namespace d2t
