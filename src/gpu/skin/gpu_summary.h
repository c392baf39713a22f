#pragma once
// The skin's summary on the GPU (SkinSummary; LayeredBody::summarize): one pass over the
// skin in the textures (summary.frag) whose sums and maxima are reduced on the GPU, the
// rest shape's parts of the sums added in double (GpuOperators::rest). It serves the
// end-of-step checks and statistics (the blow-up check, energy, centre of mass, lowest
// point) and, with its max |q| alone, the proxies' growth.
#include "gpu/skin/atlas_passes.h"
#include "gpu/skin/gpu_operators.h"

namespace d2t {

class GpuSummary {
 public:
  /// Compiles the pass. Throws GlError.
  GpuSummary(AtlasPasses& passes, const GpuOperators& ops);
  /// The summary of the skin (q, qdot), `up` a unit direction (body frame) for `lowest`.
  SkinSummary summarize(const GlTexture& q, const GlTexture& qdot, const Vec3& up);
  /// max |q| alone (one target to reduce, not seven).
  double maxDisplacement(const GlTexture& q, const GlTexture& qdot);

 private:
  // the pass's sums' and maxima's results (layout.glsl: D2T_SUMMARY_*), or with
  // `maxQOnly` its max |q| alone
  std::vector<std::array<float, 4>> run(const GlTexture& q, const GlTexture& qdot, const Vec3& up, bool maxQOnly);

  AtlasPasses& passes_;
  const GpuOperators& ops_;
  ShaderProgram program_;
};

}  // namespace d2t
