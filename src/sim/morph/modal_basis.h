#pragma once
// The reduced skin of a body with morph targets (dissertation ch. 5.4-5.5; design sec. 1,
// "Reduction"): one basis U for all targets, the skin u = U z with U^T M U = I (M the lumped
// node masses, the core fixed: the skin's K_e is positive definite).
//   1 LMA (5.9): per distinct target, its k lowest modes K_i phi = lambda M phi (Spectra's
//     Lanczos, shift-invert at 0 on a sparse Cholesky factor of M^-1/2 K_i M^-1/2);
//   2 mass-PCA (5.10, the OCR's scale corrected): v_ij = (lambda_1^i / lambda_j^i) phi_ij, the
//     M-Gram matrix G = V^T M V = W S^2 W^T, U* = V W_(:,1..r*) S^-1 (the r* directions that
//     carry most of every target's scaled modes, M-orthonormal);
//   3 augmentation: each target's shape d_i (i = 2..m), M-Gram-Schmidt against U twice, kept
//     where its residual exceeds 1e-8 |d_i|_M, so that r = r* + m - 1 and every target shape
//     is exactly in span U (Table 5.1's counts: 13 = 10 + 3).
//   4 (optional, "load_modes") the body's static responses K_1^-1 C_k to the core's six unit
//     loads at rest (C = M_ec: gravity and the core's accelerations, the skin's main loads),
//     added the same way (the mode-acceleration correction of modal truncation).
// The step then solves the Galerkin projection of its operator, U (U^T Mt_e U)^-1 U^T
// (ImplicitOperator::reduced(), chosen by SolverMethod::Auto): docs/decisions/0043-modal-reduction.md.
#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/morph/reduced_stvk.h"

namespace d2t {

struct BakedBody;
struct MorphTargetSet;
struct ReductionDesc;

/// The floating frame's inertia invariants of a basis (design 3.2): the sums over the skin
/// nodes that the reduced step needs, as polynomials in z (u_i = ub_i + Phi_i z, Phi_i the
/// node's 3 rows of U, U_a the rows of axis a), so that the step never loops over the nodes.
struct FrameInvariants {
  Vec3 s0 = Vec3::Zero();     ///< sum m_i ub_i
  Mat3 suu0 = Mat3::Zero();   ///< sum m_i ub_i ub_i^T
  Eigen::MatrixXd ubar;       ///< (3 x r) sum m_i Phi_i: S_t = s0 + ubar z
  /// U^T M [e_k]x U (r x r, skew): U^T M (w x Phi z) = sum_k w_k A_k z.
  std::array<Eigen::MatrixXd, 3> A;
  /// G[3a + b] = U_a^T M U_b (r x r; G[3b + a] = G[3a + b]^T; sum_a G[4a] = I).
  std::array<Eigen::MatrixXd, 9> G;
  /// (r x 9) column 3a + b: U_a^T M ub_b (ub_b: the rest points' axis b).
  Eigen::MatrixXd B;
};

struct ModalBasis {
  /// (3n x r) the basis, node-major rows (3 i + axis), body frame; U^T M U = I.
  Eigen::MatrixXd U;
  int rStar = 0;  ///< the principal components kept (r*)
  int shapeModes = 0;  ///< the target shapes added (those not already in the span; m - 1 at most)
  int r = 0;           ///< the basis' size: r*, the shapes, the load modes
  /// Per target: its lowest eigenvalues lambda (omega^2 = lambda, ascending; empty for a
  /// target equal to an earlier one).
  std::vector<Eigen::VectorXd> eigenvalues;
  /// Per target: |d_i - U U^T M d_i|_M / |d_i|_M (0 for a target without a shape).
  std::vector<double> reproduction;
  /// The share of the scaled modes' M-norm^2 that the r* components carry (PCA energy).
  double pcaEnergy = 0;
  /// Per target: U^T K_i U (r x r; empty for a target equal to an earlier one, whose
  /// weight the blend gives to that one).
  std::vector<Eigen::MatrixXd> stiffness;
  /// (r x 6) U^T M_ec at rest: the core's six unit loads (m_i e_k; -m_i ub_i x e_k) projected.
  Eigen::MatrixXd coupling;
  /// (r x m) the target shapes' coordinates d~_i = U^T M d_i (exact: d_i is in span U).
  Eigen::MatrixXd shapes;
  FrameInvariants inertia;
  /// ("elasticity": "stvk") per distinct target its reduced St. Venant-Kirchhoff energy
  /// polynomial (appendix D) in z: W_i(z - d~_i), shifted (D.1'); empty: linear (stiffness).
  std::vector<ReducedStvk> stvk;
  double stvkSeconds = 0;  ///< ... their build [s]
  double modeSeconds = 0;  ///< the bake's LMA [s]
  double pcaSeconds = 0;   ///< ... its PCA, augmentation and reduced coefficients [s]

  /// z = U^T M q (M-orthogonal projection's coordinates), q node-major body frame.
  Eigen::VectorXd project(const std::vector<Vec3>& q, const std::vector<double>& nodeMass) const;
  /// q = U z.
  void expand(const Eigen::VectorXd& z, std::vector<Vec3>& q) const;
};

/// The invariants of basis U (3n x r, node-major) for the masses and rest points.
FrameInvariants frameInvariants(const Eigen::MatrixXd& U, const std::vector<double>& nodeMass,
                                const std::vector<Vec3>& restSkin);

/// Builds the basis of a body's targets (bakeMorphTargets calls it where the scene asks
/// for "reduction"). Throws InputError naming the body where a target's stiffness is not
/// positive definite or the eigen solver does not converge.
ModalBasis buildModalBasis(const BakedBody& body, const MorphTargetSet& targets, const ReductionDesc& desc,
                           const std::string& owner);

}  // namespace d2t
