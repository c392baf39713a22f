#pragma once
// Mt_e y = b on the GPU (DDT paper sec. 6; dissertation 3.5): conjugate gradients
// preconditioned by a V-cycle of the multigrid (GpuMultigrid, issue 32), or by the
// block-Jacobi Mh_e^-1 of the paper (a body whose CPU solver is "cg_dilu", whose
// single-level preconditioner is sequential, gets it), every product through the
// 7-block stencil pass (stencil.frag), the CG's scalars kept on the GPU in 1 x 1
// textures and the residual read back every few iterations (each read is a GPU-CPU sync).
#include "gpu/skin/atlas_passes.h"
#include "gpu/skin/gpu_multigrid.h"
#include "gpu/skin/gpu_operators.h"

namespace d2t {

/// CG residual read back every this many iterations with the block-Jacobi preconditioner
/// (it takes tens) ...
constexpr int kResidualCheck = 8;
/// ... and with the multigrid (about ten, each a V-cycle of tens of passes).
constexpr int kResidualCheckMultigrid = 2;

class GpuCg {
 public:
  /// Compiles the passes, allocates the fields. Throws GlError.
  GpuCg(AtlasPasses& passes, const GpuOperators& ops);
  /// Follows the body's operator: the multigrid's hierarchy, unless the body asks for
  /// the single-level preconditioner (SolverMethod::CgDilu).
  void sync(const BodyView& body);
  /// The V-cycle preconditions the solves (else block Jacobi).
  bool multigrid() const { return useMultigrid_ && multigrid_.ready(); }
  GpuMultigrid& multigridPasses() { return multigrid_; }
  /// out = sk K x + sm M_e x + sa addend, and the terms of x . out into passes.terms(0); K
  /// the implicit operator's K_e (GpuOperators::operatorStiffness), or with `exact` the
  /// elastic model's (the step's forces).
  void stencilPass(const GlTexture& x, const GlTexture& addend, double sk, double sm, double sa,
                   const GlTexture& out, bool exact = false);
  /// The right-hand side b (a pass writes it, or uploadNodes).
  const GlTexture& rhs() const { return rhs_; }
  /// The iterate: the start guess before solve(), the solution after.
  const GlTexture& x() const { return x_[cur_]; }
  /// Solves Mt_e x = rhs() from x() with the operators' scales; stops at |r| <= tolerance
  /// max(|b|, referenceNorm) or after maxIterations. Returns the iterations; *residual:
  /// |r| / max(|b|, referenceNorm).
  int solve(int maxIterations, double tolerance, double* residual, double referenceNorm = 0);

 private:
  AtlasPasses& passes_;
  const GpuOperators& ops_;
  ShaderProgram stencil_, precondition_, update_, direction_, dots_;
  GpuMultigrid multigrid_;
  bool useMultigrid_ = true;
  GlTexture rhs_, x_[2], r_[2], p_[2], z_, ap_;
  GlTexture rz_[2], pap_;  // the dot products (layout.glsl: D2T_CG_*), 1 x 1
  int cur_ = 0;            // x_[cur_] is the iterate
};

}  // namespace d2t
