#include "sim/model/baked_body.h"

namespace d2t {

Eigen::SparseMatrix<double> assembleK(const BakedBody& body) {
  const int n = body.nodeCount();
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(static_cast<size_t>(n) * kStencilSlots * 9);
  for (int i = 0; i < n; ++i)
    for (int s = 0; s < kStencilSlots; ++s) {
      const int j = body.atlas.stencil[i][s];
      const Mat3& k = body.stiffness[i][s];
      if (j < 0 || (k.array() == 0).all()) continue;
      for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) trip.emplace_back(3 * i + r, 3 * j + c, k(r, c));
    }
  Eigen::SparseMatrix<double> mat(3 * n, 3 * n);
  mat.setFromTriplets(trip.begin(), trip.end());
  return mat;
}

void multiplyK(const BakedBody& body, const double* x, double* y) {
  const int n = body.nodeCount();
  // y_i = sum over slots s of K[i][s] x_{stencil[i][s]} (Fragment Programs E.1-E.2)
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    Vec3 acc = Vec3::Zero();
    for (int s = 0; s < kStencilSlots; ++s) {
      const int j = body.atlas.stencil[i][s];
      if (j >= 0) acc += body.stiffness[i][s] * Eigen::Map<const Vec3>(x + 3 * j);
    }
    Eigen::Map<Vec3>(y + 3 * i) = acc;
  }
}

}  // namespace d2t
