#pragma once
// Mt_e y = b on the GPU (DDT paper sec. 6; dissertation 3.5): conjugate gradients with
// the block-Jacobi preconditioner Mh_e^-1, every product through the 7-block stencil
// pass (stencil.frag), the CG's scalars kept on the GPU in 1 x 1 textures and the
// residual read back every kResidualCheck iterations (each read is a GPU-CPU sync).
#include "gpu/skin/atlas_passes.h"
#include "gpu/skin/gpu_operators.h"

namespace d2t {

/// CG residual read back every this many iterations.
constexpr int kResidualCheck = 8;

class GpuCg {
 public:
  /// Compiles the passes, allocates the fields. Throws GlError.
  GpuCg(AtlasPasses& passes, const GpuOperators& ops);
  /// out = sk K_e x + sm M_e x + sa addend, and the terms of x . out into passes.terms(0).
  void stencilPass(const GlTexture& x, const GlTexture& addend, double sk, double sm, double sa,
                   const GlTexture& out);
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
  ShaderProgram stencil_, precondition_, update_, direction_;
  GlTexture rhs_, x_[2], r_[2], p_[2], z_, ap_;
  GlTexture rz_[2], pap_;  // the dot products (layout.glsl: D2T_CG_*), 1 x 1
  int cur_ = 0;            // x_[cur_] is the iterate
};

}  // namespace d2t
