#pragma once
// The static skin of a held core, K_e q = f, by a direct solve of K_e assembled from the
// baked stencil blocks (nothing shared with the dynamic solver's operator or CG), and
// the relative difference of two skin fields.
#include <Eigen/SparseCholesky>

#include <algorithm>
#include <vector>

#include "sim/model/baked_body.h"

namespace d2t::test {

/// q with K q = f for the stencil blocks K of m's atlas (f: one force per node, body frame [N]).
inline std::vector<Vec3> solveStatic(const BakedBody& m, const std::vector<std::array<Mat3, kStencilSlots>>& blocks,
                                     const std::vector<Vec3>& f) {
  const int n = m.nodeCount();
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < kStencilSlots; ++k) {
      const int j = m.atlas.stencil[i][k];
      if (j < 0) continue;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) t.emplace_back(3 * i + r, 3 * j + c, blocks[size_t(i)][size_t(k)](r, c));
    }
  Eigen::SparseMatrix<double> K(3 * n, 3 * n);
  K.setFromTriplets(t.begin(), t.end());
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(K);
  Eigen::VectorXd fv(3 * n);
  for (int i = 0; i < n; ++i) fv.segment<3>(3 * i) = f[size_t(i)];
  const Eigen::VectorXd q = ldlt.solve(fv);
  std::vector<Vec3> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[size_t(i)] = q.segment<3>(3 * i);
  return out;
}

/// q with K_e q = f (f: one force per node, body frame [N]).
inline std::vector<Vec3> solveStatic(const BakedBody& m, const std::vector<Vec3>& f) {
  return solveStatic(m, m.stiffness, f);
}

/// max_i |a_i - b_i| / max_i |b_i|.
inline double fieldError(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double e = 0, r = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    e = std::max(e, (a[i] - b[i]).norm());
    r = std::max(r, b[i].norm());
  }
  return e / r;
}

}  // namespace d2t::test
