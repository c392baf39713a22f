#pragma once
// Smoothed-aggregation algebraic multigrid (Vanek, Mandel and Brezina, "Algebraic
// multigrid by smoothed aggregation for second and fourth order elliptic problems",
// Computing 56, 1996) as the preconditioner of the CPU's CG on Mt_e.
//
// Why: CG's iterations grow with the ratio of the skin's stiffness to its mass over a
// node spacing, dt^2 K / M ~ (dt c / h)^2 (c the material's wave speed, h the node
// spacing), so they double with every doubling of the atlas; a single-level
// preconditioner (DILU, block Jacobi) only changes the constant. A V-cycle removes
// the smooth error on coarser levels, where it is rough, so its iterations do not
// grow with the resolution (docs/decisions/0029-multigrid-preconditioner.md).
//
// Setup, level by level (double, Eigen's sparse products):
//   - aggregates: greedy, over the matrix graph of 3x3 blocks (a node and its
//     neighbours; left-over nodes join a neighbouring aggregate). Only the graph is
//     read, so it works on any stencil: the cube map, the torus, a character's
//     surface layout;
//   - tentative prolongator P0: the identity block from each node to its aggregate
//     (the three translations, the near-null space of a skin on a core);
//   - smoothed prolongator P = (I - omega D^-1 A) P0, omega = kProlongatorDamping / lambdaMax
//     (lambdaMax: 1.1 x the power iterations' estimate of rho(D^-1 A));
//   - the next level A_c = P^T A P (Galerkin: the V-cycle stays symmetric);
//   until kCoarsestNodes nodes, which CHOLMOD factors.
// Apply (one V-cycle, z = B r): on each level a Chebyshev polynomial in D^-1 A of
// degree kSmootherDegree over [rho/30, 1.1 rho] before and after the coarse
// correction (the same polynomial: B is symmetric positive definite, as CG needs).
// The cycle runs in float (it only steers CG, which keeps its residual in double),
// rows in parallel on large levels. Nothing in it depends on the thread count.
#include <Eigen/CholmodSupport>
#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <array>
#include <memory>
#include <vector>

#include "sim/base/math.h"
#include "sim/model/atlas.h"

namespace d2t {

/// The scalar (3n x 3n) matrix of 3x3 blocks on the 7-slot stencil (`blocks[i][k]` couples
/// node i to stencil[i][k]; zeros left out): the direct solver's and the multigrid's input.
Eigen::SparseMatrix<double, Eigen::RowMajor> stencilMatrix(const std::vector<Stencil>& stencil,
                                                           const std::vector<std::array<Mat3, kStencilSlots>>& blocks);

/// A sparse matrix of 3x3 blocks in compressed rows, in float; where its rows have nearly
/// one length (the fine level's A: the 7-slot stencil) also packed for SIMD products.
struct BlockRows {
  using Vec3f = Eigen::Vector3f;
  /// Rows per group of the packed form (the lanes of an AVX-512 register of floats).
  static constexpr int kGroup = 16;
  /// The packed form is made for at least this many rows ...
  static constexpr int kPackMinRows = 1024;
  /// ... when padding every row to the longest adds at most this share of blocks.
  static constexpr double kPackMaxPadding = 0.25;

  int rows = 0, cols = 0;
  std::vector<int> start;                ///< (rows + 1) first block of each row
  std::vector<int> column;               ///< (blocks) block column
  std::vector<Eigen::Matrix3f> block;    ///< (blocks)
  /// ELLPACK by groups of kGroup rows (empty: not packed): a group's `slots` entries, each
  /// the columns of its kGroup rows (padding: column 0, a zero block), then the block
  /// entries (r, c) row-major, each across the rows: column[(g slots + k) kGroup + lane],
  /// value[((g slots + k) 9 + 3 r + c) kGroup + lane].
  struct Packed {
    int slots = 0;
    std::vector<int> column;
    std::vector<float> value;
  } packed;

  /// From a scalar (3 rows x 3 cols) sparse matrix.
  static BlockRows fromScalar(const Eigen::SparseMatrix<double, Eigen::RowMajor>& a);
  int groups() const { return (rows + kGroup - 1) / kGroup; }
  /// From this many blocks a product runs across the threads (18 flops a block: about
  /// 0.03 ms of work on one core, against a parallel region's few microseconds); by
  /// blocks, not rows: a coarse level has few rows of many blocks.
  static constexpr size_t kParallelBlocks = 16384;
  bool threaded() const { return block.size() >= kParallelBlocks; }
  /// Rows g kGroup ... of A x (those below `rows`) into out[0 ...].
  void multiplyGroup(int g, const std::vector<Vec3f>& x, Vec3f* out) const;
  /// y = A x, or y += A x where `accumulate`.
  void multiply(const std::vector<Vec3f>& x, std::vector<Vec3f>& y, bool accumulate = false) const;

 private:
  void pack();
};

class MultigridPreconditioner {
 public:
  using Vec3f = Eigen::Vector3f;
  using Mat3f = Eigen::Matrix3f;
  using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

  /// Levels are coarsened until they have at most this many nodes (by default) ...
  static constexpr int kCoarsestNodes = 400;
  /// ... or this many levels.
  static constexpr int kMaxLevels = 10;
  /// Degree of the Chebyshev smoother (products with A per smoothing).
  static constexpr int kSmootherDegree = 2;
  /// omega lambdaMax of the prolongator's smoothing: about 1.64 / rho(D^-1 A) with
  /// lambdaMax's margin, above the textbook 4/3 (docs/decisions/0029: 11 instead of 13
  /// iterations at 128^2, 13 instead of 15 at 256^2).
  static constexpr double kProlongatorDamping = 1.8;

  /// Builds the hierarchy of A given by its 7-slot stencil blocks (`blocks[i][k]`
  /// couples node i to stencil[i][k]; A symmetric positive definite). Throws
  /// std::invalid_argument where A is not (a singular diagonal block, a coarse level
  /// CHOLMOD cannot factor).
  /// `coarsest`: the most nodes of the factored level (a test's small atlas gets
  /// several levels with a small one).
  void build(const std::vector<Stencil>& stencil, const std::vector<std::array<Mat3, kStencilSlots>>& blocks,
             int coarsest = kCoarsestNodes);
  /// The same from a scalar (3n x 3n) symmetric positive definite matrix.
  void build(SparseRows a, int coarsest = kCoarsestNodes);
  bool empty() const { return levels_.empty() && !coarse_; }
  int nodeCount() const { return fineNodes_; }
  /// Levels, the coarsest (factored) one included.
  int levelCount() const { return int(levels_.size()) + 1; }
  /// Nodes of level l (0: the fine level).
  int levelNodes(int l) const;
  /// Blocks stored over all levels / the fine level's (the operator complexity).
  double operatorComplexity() const { return complexity_; }

  /// One V-cycle's working vectors (one per solve: apply() writes them).
  struct Workspace {
    std::vector<std::vector<Vec3f>> f, x, res, d, dn;
  };
  /// z = B r (one V-cycle from zero; z may not alias r); returns r . z.
  double apply(const std::vector<Vec3>& r, std::vector<Vec3>& z, Workspace& w) const;

  // ---- the parts of the cycle (the GPU's passes upload them and are tested against them)
  /// A smoothed level (l < levelCount() - 1).
  struct Level {
    BlockRows a, p, r;                 ///< A, the prolongator to this level from the next, R = P^T
    std::vector<Mat3f> diagInverse;    ///< (rows) A_ii^-1
    float lambdaMax = 0;               ///< upper bound of the spectrum of D^-1 A
  };
  const Level& level(int l) const { return levels_[size_t(l)]; }
  /// The coarsest level's A^-1, dense (3 x 3 blocks of its nodes): the GPU's coarse solve.
  Eigen::MatrixXd coarseInverse() const;
  /// The Chebyshev smoother's scalars for a level with this lambdaMax (smooth()): d =
  /// D^-1 res / theta to start, then per degree k < kSmootherDegree - 1 the next
  /// direction dn = cd[k] d + cr[k] D^-1 res.
  struct Chebyshev {
    float theta = 0;
    std::array<float, kSmootherDegree> cd{}, cr{};
  };
  static Chebyshev chebyshev(float lambdaMax);
  /// Level l's smoothing before the coarse correction, from x = 0: x and res = f - A_l x.
  void presmooth(int l, const std::vector<Vec3f>& f, std::vector<Vec3f>& x, std::vector<Vec3f>& res) const;

 private:
  void cycle(int l, Workspace& w) const;
  // Chebyshev smoothing of A x = f on level l, from x = 0 (zeroStart) or from x;
  // leaves f - A x in res when `residual`.
  void smooth(int l, Workspace& w, bool zeroStart, bool residual) const;

  std::vector<Level> levels_;
  std::unique_ptr<Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>>> coarse_;
  int coarseNodes_ = 0, fineNodes_ = 0;
  double complexity_ = 0;
};

}  // namespace d2t
