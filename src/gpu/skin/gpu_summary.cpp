// GpuSummary (gpu_summary.h): the skin's summary in one pass and its reductions.
#include "gpu/skin/gpu_summary.h"

#include <limits>

namespace d2t {

GpuSummary::GpuSummary(AtlasPasses& passes, const GpuOperators& ops) : passes_(passes), ops_(ops) {
  program_ = ShaderProgram("d2t/pass.vert", "d2t/summary.frag");
}

std::vector<std::array<float, 4>> GpuSummary::run(const GlTexture& q, const GlTexture& qdot, const Vec3& up,
                                                   bool maxQOnly) {
  passes_.beginPass(program_);
  passes_.bind(program_, "uQ", q);
  passes_.bind(program_, "uQdot", qdot);
  passes_.bind(program_, "uLayer", passes_.layer());
  passes_.bind(program_, "uK", ops_.stiffness());
  passes_.bind(program_, "uRestForce", ops_.restForce());
  glUniform1i(program_.uniform("uHasRestForce"), ops_.hasRestForce() ? 1 : 0);
  program_.set("uUp", up);
  glUniform1i(program_.uniform("uMaxQOnly"), maxQOnly);
  const int outputs = maxQOnly ? 1 : D2T_SUMMARY_OUTPUTS;
  passes_.sumTerms(program_, outputs, {}, maxQOnly ? 0 : D2T_SUMMARY_SUMS);
  std::vector<std::array<float, 4>> v;
  for (int l = 0; l < outputs; ++l) v.push_back(passes_.sumTexel(l));
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the skin summary pass");
  return v;
}

SkinSummary GpuSummary::summarize(const GlTexture& q, const GlTexture& qdot, const Vec3& up) {
  const std::vector<std::array<float, 4>> v = run(q, qdot, up, false);
  SkinSummary r;
  const auto &mq = v[D2T_SUMMARY_MQ], &mqdot = v[D2T_SUMMARY_MQDOT], &muxqdot = v[D2T_SUMMARY_MUXQDOT],
             &ma = v[D2T_SUMMARY_UU_A], &mb = v[D2T_SUMMARY_UU_B], &max = v[D2T_SUMMARY_MAX];
  r.finite = v[D2T_SUMMARY_BAD][0] == 0;
  r.mu = ops_.rest().st + Vec3(mq[0], mq[1], mq[2]);
  r.mqdot2 = mq[3];
  r.mqdot = Vec3(mqdot[0], mqdot[1], mqdot[2]);
  r.elastic = double(mqdot[3]) + double(muxqdot[3]) + ops_.restEnergy();
  r.muxqdot = Vec3(muxqdot[0], muxqdot[1], muxqdot[2]);
  Mat3 uu;  // sum m (u u^T - ub ub^T)
  uu << ma[0], ma[3], mb[0], ma[3], ma[1], mb[1], mb[0], mb[1], ma[2];
  r.muu = ops_.rest().uu + uu;
  r.maxQ = max[0];
  r.maxStretch = max[1];
  r.maxQdot = max[2];
  r.maxCrush = v[D2T_SUMMARY_BAD][1];
  r.lowest = -max[3];
  if (!r.finite) {  // (as the CPU's: the sums are meaningless then)
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.elastic = r.mqdot2 = nan;
  }
  return r;
}

double GpuSummary::maxDisplacement(const GlTexture& q, const GlTexture& qdot) {
  return run(q, qdot, Vec3::UnitY(), true)[0][0];
}

}  // namespace d2t
