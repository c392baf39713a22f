// GpuContactRows (gpu_contact_rows.h): the contact rows' passes.
#include "gpu/skin/gpu_contact_rows.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace d2t {

GpuContactRows::GpuContactRows(AtlasPasses& passes, const GpuOperators& ops)
    : passes_(passes), ops_(ops), n_(passes.size()) {
  const std::string v = "d2t/pass.vert";
  rowsPass_ = ShaderProgram(v, "d2t/rows.frag");
  roundPass_ = ShaderProgram(v, "d2t/rows_round.frag");
  impulsePass_ = ShaderProgram(v, "d2t/rows_impulse.frag");
  frictionPass_ = ShaderProgram(v, "d2t/rows_friction.frag");
  scatterPass_ = ShaderProgram("d2t/rows_scatter.vert", "d2t/scatter.frag");
}

GpuContactRows::~GpuContactRows() = default;

void GpuContactRows::set(const LayeredState& s, const std::vector<ContactRow>& rows, double dt, bool fixedCore,
                         const GlTexture& q, const GlTexture& qdot) {
  if (rows.size() > size_t(n_) * size_t(n_))
    throw GlError("more contact rows (" + std::to_string(rows.size()) + ") than the atlas has texels");
  if (!in_.id()) {
    in_ = GlTexture(n_, n_, D2T_ROW_IN_LAYERS, GL_RGBA32F);
    for (GlTexture* t : {&u_, &v_, &state_[0], &state_[1], &r_, &frictionImpulse_}) *t = passes_.newField();
  }
  count_ = int(rows.size());
  cur_ = 0;
  lo_.resize(rows.size());
  v0_ = s.velocity;
  w0_ = s.angularVelocity;
  if (rows.empty()) return;
  const Atlas& a = passes_.model().atlas;
  const int h = height();
  const size_t layer = size_t(h) * size_t(n_) * 4;
  std::vector<float> t(D2T_ROW_IN_LAYERS * layer, 0.0f);
  for (size_t k = 0; k < rows.size(); ++k) {
    const ContactRow& c = rows[k];
    float* p = &t[4 * k];
    float in[D2T_ROW_IN_LAYERS][4];
    const auto set = [&](int l, float x, float y, float z, float w) {
      in[l][0] = x, in[l][1] = y, in[l][2] = z, in[l][3] = w;
    };
    set(D2T_ROW_IN_NODE, float(a.nodeTexel[size_t(c.node)]), float(c.previous), float(c.next), c.release ? 1.0f : 0.0f);
    set(D2T_ROW_IN_NORMAL, float(c.normal.x()), float(c.normal.y()), float(c.normal.z()), float(c.depth));
    set(D2T_ROW_IN_SURFACE, float(c.surfaceVelocity.x()), float(c.surfaceVelocity.y()), float(c.surfaceVelocity.z()),
        float(c.startGap));
    set(D2T_ROW_IN_LIMITS, float(c.lo), float(c.friction), c.onCore ? 1.0f : 0.0f, 0.0f);
    for (size_t l = 0; l < D2T_ROW_IN_LAYERS; ++l) std::copy(in[l], in[l] + 4, p + l * layer);
    lo_[k] = c.lo;
  }
  glBindTexture(GL_TEXTURE_2D_ARRAY, in_.id());
  glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, n_, h, D2T_ROW_IN_LAYERS, GL_RGBA, GL_FLOAT, t.data());
  passes_.beginPass(rowsPass_);
  passes_.bind(rowsPass_, "uRowIn", in_);
  passes_.bind(rowsPass_, "uQ", q);
  passes_.bind(rowsPass_, "uQdot", qdot);
  passes_.bind(rowsPass_, "uHinv", ops_.responseInverse());
  glUniform1i(rowsPass_.uniform("uSize"), n_);
  glUniform1i(rowsPass_.uniform("uCount"), count_);
  rowsPass_.set("uR", s.orientation.toRotationMatrix());
  rowsPass_.set("uV", s.velocity);
  rowsPass_.set("uW", s.angularVelocity);
  glUniform1f(rowsPass_.uniform("uDt"), float(dt));
  glUniform1i(rowsPass_.uniform("uFixed"), fixedCore ? 1 : 0);
  passes_.draw(rowsPass_, {{u_.id(), -1}, {v_.id(), -1}, {state_[0].id(), -1}}, n_, h);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact rows pass");
}

static_assert(D2T_CORE_DOFS == Core::kDofs && D2T_ROUND_RHS == Core::kDofs * (Core::kDofs + 1) / 2 &&
                  D2T_ROUND_BELOW == D2T_ROUND_RHS + Core::kDofs,
              "layout.glsl's rows are packed for the rigid core");

RowSums GpuContactRows::round(const Core::Vector* dv, bool oneSided) {
  RowSums sums;
  if (count_ == 0) return sums;
  const int h = height();
  roundPass_.use();
  passes_.resetUnits();
  passes_.bind(roundPass_, "uRowIn", in_);
  passes_.bind(roundPass_, "uU", u_);
  passes_.bind(roundPass_, "uV", v_);
  passes_.bind(roundPass_, "uS", state_[cur_]);
  glUniform1i(roundPass_.uniform("uSize"), n_);
  glUniform1i(roundPass_.uniform("uCount"), count_);
  std::array<float, Core::kDofs> d{};
  if (dv)
    for (int j = 0; j < Core::kDofs; ++j) d[size_t(j)] = float((*dv)[j]);
  glUniform1fv(roundPass_.uniform("uDv[0]"), Core::kDofs, d.data());
  glUniform1i(roundPass_.uniform("uHaveDv"), dv ? 1 : 0);
  glUniform1i(roundPass_.uniform("uOneSided"), oneSided ? 1 : 0);
  cur_ = 1 - cur_;
  static_assert(D2T_ROUND_STATE == 0 && D2T_ROUND_TERMS == 1, "rows_round.frag's outputs");
  passes_.sumTerms(roundPass_, D2T_ROUND_OUTPUTS, {{state_[cur_].id(), -1}}, AtlasPasses::kMaxTerms, h);
  static_assert(D2T_ROUND_TERM_COUNT == 4 * D2T_ROUND_TERM_OUTPUTS && D2T_ROUND_OUTPUTS == D2T_ROUND_TERMS + D2T_ROUND_TERM_OUTPUTS);
  std::array<float, D2T_ROUND_TERM_COUNT> t{};
  for (int k = 0; k < D2T_ROUND_TERM_OUTPUTS; ++k) {
    const std::array<float, 4> v = passes_.sumTexel(D2T_ROUND_TERMS + k);
    std::copy(v.begin(), v.end(), t.begin() + 4 * k);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("a contact rows round");
  for (int i = 0, e = D2T_ROUND_S; i < Core::kDofs; ++i)
    for (int j = i; j < Core::kDofs; ++j, ++e) sums.S(i, j) = sums.S(j, i) = t[size_t(e)];
  for (int i = 0; i < Core::kDofs; ++i) sums.rhs[i] = t[size_t(D2T_ROUND_RHS + i)];
  sums.below = int(std::lround(t[D2T_ROUND_BELOW]));
  return sums;
}

void GpuContactRows::scatter(const GlTexture& values, const GlTexture& target) {
  passes_.bindTargets({{target.id(), -1}});
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, zero);
  if (count_ == 0) return;
  scatterPass_.use();
  passes_.resetUnits();
  passes_.bind(scatterPass_, "uRowIn", in_);
  passes_.bind(scatterPass_, "uValue", values);
  glUniform1i(scatterPass_.uniform("uSize"), n_);
  glEnablei(GL_BLEND, 0);
  glBlendEquationi(0, GL_FUNC_ADD);
  glBlendFunci(0, GL_ONE, GL_ONE);
  glBindVertexArray(passes_.vertexArray());
  glDrawArrays(GL_POINTS, 0, count_);
  glBindVertexArray(0);
  glDisablei(GL_BLEND, 0);
}

ImpulseSums GpuContactRows::impulse(const LayeredState& s, const GlTexture& q, const GlTexture& contact) {
  return impulses(s, q, false, contact);
}

ImpulseSums GpuContactRows::impulses(const LayeredState& s, const GlTexture& q, bool friction,
                                     const GlTexture& target) {
  ImpulseSums sums;
  if (count_ > 0) {
    const int h = height();
    passes_.beginPass(impulsePass_);
    passes_.bind(impulsePass_, "uRowIn", in_);
    passes_.bind(impulsePass_, "uQ", q);
    passes_.bind(impulsePass_, "uS", state_[cur_]);
    passes_.bind(impulsePass_, "uFrictionImpulse", frictionImpulse_);
    passes_.bind(impulsePass_, "uHinv", ops_.responseInverse());
    glUniform1i(impulsePass_.uniform("uSize"), n_);
    glUniform1i(impulsePass_.uniform("uCount"), count_);
    glUniform1i(impulsePass_.uniform("uFriction"), friction ? 1 : 0);
    impulsePass_.set("uR", s.orientation.toRotationMatrix());
    static_assert(D2T_IMPULSE_R == 0, "rows_impulse.frag's leading output");
    passes_.sumTerms(impulsePass_, D2T_IMPULSE_OUTPUTS, {{r_.id(), -1}}, AtlasPasses::kMaxTerms, h);
    sums.fc << passes_.sum(D2T_IMPULSE_SUM_F), passes_.sum(D2T_IMPULSE_SUM_UXR);
    sums.mt = passes_.sum(D2T_IMPULSE_SUM_MT);
    sums.mr = passes_.sum(D2T_IMPULSE_SUM_MR);
  }
  scatter(r_, target);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl(friction ? "the contact rows' friction impulse pass" : "the contact rows' impulse pass");
  return sums;
}

ImpulseSums GpuContactRows::friction(const LayeredState& s, double share, const Vec3& dvt, const Vec3& dw,
                                     const GlTexture& q, const GlTexture& qdot, const GlTexture& impulse,
                                     const GlTexture& extra) {
  if (count_ > 0) {
    passes_.beginPass(frictionPass_);
    passes_.bind(frictionPass_, "uRowIn", in_);
    passes_.bind(frictionPass_, "uQ", q);
    passes_.bind(frictionPass_, "uQdot", qdot);
    passes_.bind(frictionPass_, "uS", state_[cur_]);
    passes_.bind(frictionPass_, "uImpulse", impulse);
    passes_.bind(frictionPass_, "uHinv", ops_.responseInverse());
    glUniform1i(frictionPass_.uniform("uSize"), n_);
    glUniform1i(frictionPass_.uniform("uCount"), count_);
    frictionPass_.set("uR", s.orientation.toRotationMatrix());
    frictionPass_.set("uV0", v0_);
    frictionPass_.set("uW0", w0_);
    frictionPass_.set("uV1", s.velocity);
    frictionPass_.set("uW1", s.angularVelocity);
    frictionPass_.set("uDvt", dvt);
    frictionPass_.set("uDw", dw);
    glUniform1f(frictionPass_.uniform("uShare"), float(share));
    passes_.draw(frictionPass_, {{frictionImpulse_.id(), -1}}, n_, height());
    checkGl("the contact rows' friction pass");
  }
  return impulses(s, q, true, extra);
}

std::vector<RowResult> GpuContactRows::results() {
  std::vector<RowResult> out(static_cast<size_t>(count_));
  if (count_ == 0) return out;
  std::vector<float> st, fr;
  passes_.readRows(state_[cur_], frictionImpulse_, height(), &st, &fr, "reading the contact rows back");
  for (size_t k = 0; k < out.size(); ++k) {
    const float* a = &st[4 * k];
    // (a row out of the active set is exactly at its lo: not its float copy)
    out[k].lambda = a[1] > 0.5f ? double(a[0]) : lo_[k];
    out[k].startGap = a[2];
    out[k].frictionImpulse = Vec3(fr[4 * k], fr[4 * k + 1], fr[4 * k + 2]);
  }
  return out;
}

}  // namespace d2t
