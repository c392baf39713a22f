#pragma once
// The implicit operator of the skin's step, Mt_e = (1 + dt alpha) M_e + (dt beta + dt^2)
// K_e (eq. 3.6 with D_e = alpha M_e + beta K_e; docs/design.md sec. 4), and how Mt_e x
// = b is solved: the product over the 7-slot stencil, CG with the multigrid (or the
// block DILU) preconditioner or the sparse LDL^T factor, six right-hand sides, and the
// projected warm start of the y solve. The CPU reference of the GPU's solve
// (gpu_skin_solve.cpp); the GPU reads its inverse diagonal and coupling columns.
#include <Eigen/CholmodSupport>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/body/core/rigid_core.h"
#include "sim/body/dilu_preconditioner.h"
#include "sim/body/elastic_model.h"
#include "sim/body/multigrid_preconditioner.h"

namespace d2t {

struct ModalBasis;

/// How Mt_e x = b is solved.
enum class SolverMethod {
  /// direct up to kDirectMaxNodes nodes, CG above; a body with a modal basis (morph targets'
  /// "reduction", ch. 5.4): the reduced solve (ImplicitOperator::reduced())
  Auto,
  CG,      ///< conjugate gradients on the stencil (the GPU's method), multigrid-preconditioned
  Direct,  ///< sparse LDL^T, factored when dt or the material changes
  CgDilu,  ///< CG with the block DILU preconditioner (the one before the multigrid; for A/B)
};

/// Largest node count for which SolverMethod::Auto picks the direct solver: below it
/// one factorization per dt beats CG's iterations, above it the factor's fill-in and
/// its seconds-long factorization lose (docs/decisions/0001-direct-solver-threshold.md).
constexpr int kDirectMaxNodes = 4000;

/// CG tolerances at or above this read Mt_e in float for the product A p (the 7 blocks
/// of a node in 252 instead of 504 bytes; the solve is bound by reading them). Rounding
/// the blocks leaves a true relative residual (about 3e-8) well under this; tighter
/// tolerances use the double blocks (docs/decisions/0003-cg-float-blocks.md).
constexpr double kFloatBlocksTolerance = 1e-6;
/// ... and only for bodies of at least this many nodes: while Mt_e fits in the cache,
/// the float-to-double conversions cost more than the reads they save (same decision).
constexpr int kFloatBlocksMinNodes = 16384;

/// The most iterations a coupling column's multigrid CG may take before the columns are
/// solved by block-Jacobi CG instead (they take 20-30 to 1e-12).
constexpr int kMultigridColumnIterations = 200;

/// Past solutions of the y solve that its warm start is projected from (ProjectedWarmStart).
constexpr int kWarmStartHistory = 3;

/// y = A x for a matrix of 3x3 blocks on the 7-slot stencil (x, y: one Vec3 per node).
void multiplyStencil(const std::vector<Stencil>& stencil, const StencilBlocks& blocks, const std::vector<Vec3>& x,
                     std::vector<Vec3>& y);

class ImplicitOperator {
 public:
  /// What an operator is built from; prepare() with another key rebuilds it.
  struct Key {
    double dt = -1;                            ///< time step [s] (-1: not built)
    SolverMethod method = SolverMethod::Auto;  ///< as asked for (direct() says what Auto chose)
    double alpha = 0, beta = 0;                ///< the material's Rayleigh damping
    uint64_t model = 0;                        ///< the model's fingerprint (masses, rest skin)
    uint64_t elastic = 0;                      ///< the elastic model's operatorVersion()
    bool operator==(const Key&) const = default;
  };
  /// The key of an operator for this model, elastic model, material, dt and method.
  static Key keyFor(const BakedBody& model, const ElasticModel& elastic, const Material& material, double dt,
                    SolverMethod method);

  /// Builds Mt_e for `key` (keyFor(*model, elastic, ...)): its blocks (and in float for
  /// big bodies), the inverse diagonal blocks, the direct factor or the multigrid (DILU)
  /// preconditioner, and the coupling columns W_t, W_r. Nothing to do (false) when the
  /// operator already has this key.
  bool prepare(const BakedBodyPtr& model, const ElasticModel& elastic, const Key& key);
  const Key& key() const { return key_; }
  /// Bumped by every rebuild: what is derived from the operator (the GPU's textures,
  /// a drag's compliance columns, the warm start's history) follows it.
  int version() const { return version_; }
  /// This operator's solves are exact: the direct factor's or the reduced one's (else CG).
  bool direct() const { return direct_; }
  /// The solves are the modal basis' Galerkin projection U (U^T Mt_e U)^-1 U^T (Auto on a
  /// body with a basis; a dense r x r Cholesky factor): every solution is in span U.
  bool reduced() const { return basis_ != nullptr; }
  /// (reduced()) the basis.
  const ModalBasis* basis() const { return basis_; }
  /// (reduced()) U^T Mt_e U's Cholesky factor (r x r).
  const Eigen::LLT<Eigen::MatrixXd>& reducedFactor() const { return reducedLlt_; }
  /// The CG's multigrid preconditioner (empty for the direct and the DILU solvers).
  const MultigridPreconditioner& multigrid() const { return multigrid_; }

  /// (nnode x 7) blocks of Mt_e, on the model's stencil.
  const StencilBlocks& blocks() const { return mt_; }
  const std::vector<Stencil>& stencil() const { return model_->atlas.stencil; }
  /// (nnode) inverse 3x3 diagonal blocks of Mt_e (Mh_e^-1: the contact response's
  /// block-diagonal operator, eq. 12).
  const std::vector<Mat3>& diagInverse() const { return diagInverse_; }
  /// (nnode x 3) columns of Mt_e^-1 [m_i I] (translational coupling, Y_t = W_t R^T).
  const std::vector<std::array<Vec3, 3>>& translationalCoupling() const { return wt_; }
  /// (nnode x 3) columns of Mt_e^-1 [-m_i [ub_i]x] (rotational coupling at rest).
  const std::vector<std::array<Vec3, 3>>& rotationalCoupling() const { return wr_; }
  /// sqrt(sum m_i^2) over the skin nodes [kg] (the scale of the gravity load, |M_e g| / |g|).
  double massNorm() const { return massNorm_; }
  /// The scale the y solve's residual is measured against, at the least: the norm of
  /// the skin's gravity load, |M_e g| = |g| sqrt(sum m_i^2) [N]. Gravity is solved
  /// exactly (the cached W_t), so the CG's right-hand side holds only the rest; in
  /// free fall that rest is rounding noise, which a tolerance relative to it alone
  /// would chase to the iteration cap. Relative to the whole load the step's accuracy
  /// is the same (docs/decisions/0006-residual-reference-norm.md).
  double solveReferenceNorm(const Vec3& g) const { return g.norm() * massNorm_; }

  /// y = Mt_e x.
  void multiply(const std::vector<Vec3>& x, std::vector<Vec3>& y) const;
  /// Mt_e x = b: the direct factor, or CG from x (warm start) to |r| <= tolerance
  /// max(|b|, referenceNorm), at most maxIterations. Returns the iterations; the final
  /// relative residual into *residual.
  int solve(const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations, double tolerance,
            double* residual, double referenceNorm = 0) const;
  /// CG from x whose residual b - Mt_e x the caller has (taken from *startResidual).
  int solveFromResidual(const std::vector<Vec3>& b, std::vector<Vec3>& x, std::vector<Vec3>& startResidual,
                        int maxIterations, double tolerance, double* residual, double referenceNorm) const;
  /// A node's block of kColumns right-hand sides solved at once (solveColumns): one per
  /// core dof (the coupling columns of M_ec).
  static constexpr int kColumns = Core::kDofs;
  using Columns = Core::Columns;
  /// kColumns right-hand sides: per column by the factor or the multigrid's CG, else
  /// kColumns block-Jacobi CG recurrences sharing one sweep over the blocks per iteration.
  void solveColumns(const std::vector<Columns>& b, std::vector<Columns>& x, int maxIterations,
                    double tolerance) const;

 private:
  int conjugateGradients(const std::vector<Vec3>& b, std::vector<Vec3>& x, std::vector<Vec3>* startResidual,
                         int maxIterations, double tolerance, double* residual, double referenceNorm) const;
  template <class Block>  // Mat3 or Mat3f blocks for the product A p
  int conjugateGradients(const std::vector<std::array<Block, kStencilSlots>>& blocks, const std::vector<Vec3>& b,
                         std::vector<Vec3>& x, std::vector<Vec3>* startResidual, int maxIterations,
                         double tolerance, double* residual, double referenceNorm) const;
  void factor();  // the direct solver's LDL^T of mt_ (direct_ false where it fails)
  void reduce(const ElasticModel& elastic);  // the reduced solver's U^T Mt_e U, its factor, W_t and W_r

  BakedBodyPtr model_;
  Key key_;
  int version_ = 0;
  bool direct_ = false;
  double massNorm_ = 0;
  StencilBlocks mt_;
  std::vector<std::array<Eigen::Matrix3f, kStencilSlots>> mtFloat_;  // the same in float (big bodies)
  std::vector<Mat3> diagInverse_;
  std::vector<std::array<Vec3, 3>> wt_, wr_;
  DiluPreconditioner dilu_;
  MultigridPreconditioner multigrid_;
  std::unique_ptr<Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>>> ldlt_;
  Eigen::SparseMatrix<double> analyzed_;  // the matrix ldlt_'s symbolic analysis was made for (its pattern)
  const ModalBasis* basis_ = nullptr;     // (reduced) the model's
  Eigen::LLT<Eigen::MatrixXd> reducedLlt_;  // (reduced) U^T Mt_e U factored
};

/// The y solve Mt_e y = b of every step, warm-started by projection (Fischer,
/// "Projection techniques for iterative solution of Ax = b with successive right-hand
/// sides", 1998): the start is the A-norm-best combination of the last kWarmStartHistory
/// solutions (docs/decisions/0005-cg-warm-start-projection.md). What it keeps from one
/// step to the next is part of the body's snapshot.
class ProjectedWarmStart {
 public:
  struct History {
    std::vector<Vec3> y;                               ///< (nnode) the last solution
    std::vector<std::vector<Vec3>> solutions;          ///< (<= kWarmStartHistory) newest first
    std::vector<std::vector<Vec3>> products;           ///< Mt_e solutions[a], for all but the newest
  };
  /// Solves with op (its CG settings as given); returns the iterations. A history from
  /// another version of op is dropped first.
  int solve(const ImplicitOperator& op, const std::vector<Vec3>& b, int maxIterations, double tolerance,
            double referenceNorm, double* residual);
  /// The last solution.
  const std::vector<Vec3>& solution() const { return h_.y; }
  /// No history: the next solve starts from zero.
  void reset(int nodeCount);
  const History& history() const { return h_; }
  /// A history kept with snapshot(), for op as it is now (restored with its operator).
  void restore(History h, const ImplicitOperator& op) {
    h_ = std::move(h);
    opVersion_ = op.version();
  }

 private:
  History h_;
  int opVersion_ = -1;
};

}  // namespace d2t
