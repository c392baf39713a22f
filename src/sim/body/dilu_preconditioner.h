#pragma once
// Block DILU preconditioner of a symmetric 7-slot stencil matrix A (Mt_e), for the
// CPU's conjugate gradients.
//
// A = D_A + L + U (3x3 blocks; L, U strictly lower and upper in node order). DILU
// keeps the pattern of A and changes only the diagonal:
//   M = (Dt + L) Dt^-1 (Dt + U),  Dt_i = A_ii - sum_(j < i) A_ij Dt_j^-1 A_ji,
// so M has A's diagonal blocks and needs no storage beyond A's pattern and Dt
// (IC(0) would also match A's off-diagonal blocks, at the price of a second set of
// factor blocks). Applying M^-1 is a forward and a backward sweep over the nodes.
//
// The sweeps run in kChunks contiguous ranges of nodes, couplings between chunks
// left out of M (block Jacobi over the chunks), so the chunks run in parallel and
// M does not depend on the number of threads; it costs a few iterations against DILU
// over the whole range, far fewer than block Jacobi or multicolour Gauss-Seidel lose
// (docs/decisions/0004-dilu-preconditioner.md).
//
// The sweeps work in float: M only steers CG (rounding M changes its iterates,
// not what it converges to); the blocks are stored pre-scaled by Dt^-1 so that
// each node's step of the sweep is one product per neighbour.
#include <Eigen/Dense>

#include <array>
#include <cstdint>
#include <vector>

#include "sim/model/atlas.h"
#include "sim/base/math.h"

namespace d2t {

class DiluPreconditioner {
 public:
  /// Contiguous node ranges swept independently (and in parallel).
  static constexpr int kChunks = 16;

  /// Factors M from A's stencil blocks (`blocks[i][k]` couples node i to
  /// stencil[i][k]; A must be symmetric: the block of (j, i) is that of (i, j)
  /// transposed). Throws std::invalid_argument if a modified diagonal block is
  /// singular.
  void build(const std::vector<Stencil>& stencil, const std::vector<std::array<Mat3, kStencilSlots>>& blocks);
  bool empty() const { return rows_.empty(); }
  int nodeCount() const { return int(rows_.size()); }

  /// The sweeps' working vector, in float (one per solve: apply() writes it).
  using Sweep = std::vector<Eigen::Vector3f>;
  /// z = M^-1 r (z may not alias r), with `sweep` as the sweeps' working vector;
  /// returns r . z.
  double apply(const std::vector<Vec3>& r, std::vector<Vec3>& z, Sweep& sweep) const;

  /// First node of chunk c (c = kChunks: the node count).
  int chunkStart(int c) const { return int(long(rows_.size()) * c / kChunks); }

 private:
  using Mat3f = Eigen::Matrix3f;
  using Vec3f = Eigen::Vector3f;
  // one node's couplings inside its chunk: `lower` blocks Dt_i^-1 A_ij with j < i,
  // then `upper` blocks Dt_i^-1 A_ij with j > i
  struct Row {
    std::array<int, kStencilSlots - 1> node{};
    std::array<Mat3f, kStencilSlots - 1> block;
    uint8_t lower = 0, upper = 0;
  };
  std::vector<Row> rows_;             // (nnode)
  std::vector<Mat3f> diagInverse_;    // (nnode) Dt_i^-1
};

}  // namespace d2t
