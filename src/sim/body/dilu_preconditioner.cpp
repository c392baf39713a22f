#include "sim/body/dilu_preconditioner.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace d2t {

namespace {
// chunks are swept in parallel only for large bodies (as the CG's other loops)
constexpr int kParallelNodes = 8192;
}  // namespace

void DiluPreconditioner::build(const std::vector<Stencil>& stencil,
                               const std::vector<std::array<Mat3, kStencilSlots>>& blocks) {
  const int n = int(stencil.size());
  rows_.assign(n, Row{});
  diagInverse_.resize(n);
  std::vector<int> chunk(n);
  for (int c = 0; c < kChunks; ++c)
    for (int i = chunkStart(c); i < chunkStart(c + 1); ++i) chunk[i] = c;
  // Dt in node order (each Dt_i needs the Dt_j of its lower neighbours)
  std::vector<Mat3> dtInverse(n);
  for (int i = 0; i < n; ++i) {
    Mat3 dt = blocks[i][0];
    for (int k = 1; k < kStencilSlots; ++k) {
      const int j = stencil[i][k];
      if (j < 0 || j >= i || chunk[j] != chunk[i]) continue;
      // A_ji = A_ij^T (symmetric A)
      dt -= blocks[i][k] * dtInverse[j] * blocks[i][k].transpose();
    }
    Eigen::FullPivLU<Mat3> lu(dt);
    if (!lu.isInvertible())
      throw std::invalid_argument("DiluPreconditioner: singular modified diagonal block at node " +
                                  std::to_string(i) + " (is the matrix positive definite?)");
    dtInverse[i] = lu.inverse();
    diagInverse_[i] = dtInverse[i].cast<float>();
  }
  for (int i = 0; i < n; ++i) {
    Row& row = rows_[i];
    int m = 0;
    for (int pass = 0; pass < 2; ++pass)  // lower, then upper
      for (int k = 1; k < kStencilSlots; ++k) {
        const int j = stencil[i][k];
        if (j < 0 || chunk[j] != chunk[i] || j == i || (j < i) != (pass == 0)) continue;
        row.node[m] = j;
        row.block[m] = (dtInverse[i] * blocks[i][k]).cast<float>();
        ++m;
        (pass == 0 ? row.lower : row.upper)++;
      }
  }
}

// forward:  (Dt + L) w = r   ->  w_i = Dt_i^-1 r_i - sum_(j < i) (Dt_i^-1 A_ij) w_j
// backward: (I + Dt^-1 U) z = w  ->  z_i = w_i - sum_(j > i) (Dt_i^-1 A_ij) z_j
// Each node waits for the one before it (the (-1, 0) neighbour), so one chunk's sweep
// is bound by that chain's latency; a thread sweeps chunks c and c + kChunks/2 in
// lockstep to run two chains at once (docs/decisions/0004-dilu-preconditioner.md).
double DiluPreconditioner::apply(const std::vector<Vec3>& r, std::vector<Vec3>& z, Sweep& sweep) const {
  static_assert(kChunks % 2 == 0, "chunks are swept in pairs");
  constexpr int kPairs = kChunks / 2;
  const int n = int(rows_.size());
  z.resize(n);
  sweep.resize(size_t(n));
  auto forward = [&](int i) {
    const Row& row = rows_[i];
    Vec3f s = diagInverse_[i] * r[i].cast<float>();
    for (int m = 0; m < row.lower; ++m) s -= row.block[m] * sweep[row.node[m]];
    sweep[i] = s;
  };
  auto backward = [&](int i) {
    const Row& row = rows_[i];
    Vec3f s = sweep[i];
    for (int m = row.lower; m < row.lower + row.upper; ++m) s -= row.block[m] * sweep[row.node[m]];
    sweep[i] = s;
    z[i] = s.cast<double>();
    return r[i].dot(z[i]);
  };
  // (each pair of chunks' r.z on its own, added in chunk order: the same bits on any
  // number of threads, as ordered_sum.h says why)
  std::array<double, kPairs> part{};
#pragma omp parallel for schedule(static, 1) if (n > kParallelNodes)
  for (int c = 0; c < kPairs; ++c) {
    double rz = 0;
    const int b1 = chunkStart(c), e1 = chunkStart(c + 1);
    const int b2 = chunkStart(c + kPairs), e2 = chunkStart(c + kPairs + 1);
    const int len = std::max(e1 - b1, e2 - b2);
    for (int t = 0; t < len; ++t) {
      if (b1 + t < e1) forward(b1 + t);
      if (b2 + t < e2) forward(b2 + t);
    }
    for (int t = len - 1; t >= 0; --t) {
      if (b1 + t < e1) rz += backward(b1 + t);
      if (b2 + t < e2) rz += backward(b2 + t);
    }
    part[size_t(c)] = rz;
  }
  double rz = 0;
  for (double p : part) rz += p;
  return rz;
}

}  // namespace d2t
