// GpuSkin's contact response in fragment passes (steps 9-13 and 15: condense, the rows'
// stages through GpuContactRows, energy guard, apply, correct), the state loaded and read
// back, the last good state kept on the GPU, and the summary through GpuSummary.

#include "gpu/skin/gpu_skin.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <stdexcept>

#include "gpu/gl/render_target.h"
#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;

// ---- the contact response's passes -------------------------------------------------------------

void GpuSkin::load(const BodyView& body, const LayeredState& s, const std::vector<Vec3>& startQ) {
  ops_.sync(body);
  uploadNodes(q_, startQ);
  uploadNodes(qNew_, s.q);
  uploadNodes(qdotNew_, s.qdot);
  ++stateUploads_;
  holder_ = body.id;
  momentsAre_ = Moments::Unknown;
}

void GpuSkin::readSkin(const BodyView& body, LayeredState& s) {
  requireHeld(body);
  s.q = downloadNodes(qNew_);
  s.qdot = downloadNodes(qdotNew_);
  ++stateDownloads_;
}

SkinSummary GpuSkin::moments(const BodyView& body) {
  requireHeld(body);
  if (momentsAre_ == Moments::InTextures) {
    moments_ = SkinSummary{};
    moments_.mu = ops_.rest().st + passes_.readSum(momentSums_[0]);
    moments_.mqdot = passes_.readSum(momentSums_[1]);
  } else if (momentsAre_ == Moments::Unknown) {
    const LayeredState unused;  // (the pass reads the textures)
    moments_ = summarize(body, unused, Vec3::UnitY());
    momentShift_.setZero();
    momentQdotShift_.setZero();
  }
  momentsAre_ = Moments::Known;
  SkinSummary r = moments_;
  r.mu += momentShift_;
  r.mqdot += momentQdotShift_;
  return r;
}

void GpuSkin::readNodes(const BodyView& body, const std::vector<int>& nodes, LayeredState& s) {
  requireHeld(body);
  if (nodes.empty()) return;
  const Atlas& a = model_->atlas;
  if (!gatherVao_) {
    gatherQ_ = newField();
    gatherQdot_ = newField();
    glGenVertexArrays(1, &gatherVao_);
    glGenBuffers(1, &gatherBuffer_);
    glBindVertexArray(gatherVao_);
    glBindBuffer(GL_ARRAY_BUFFER, gatherBuffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 2, GL_INT, 0, nullptr);
    glBindVertexArray(0);
  }
  std::vector<GLint> sources;
  sources.reserve(2 * nodes.size());
  for (int i : nodes) sources.insert(sources.end(), {a.nodeTexel[size_t(i)] % n_, a.nodeTexel[size_t(i)] / n_});
  passes_.bindTargets({{gatherQ_.id(), -1}, {gatherQdot_.id(), -1}});
  gather_.use();
  passes_.resetUnits();
  passes_.bind(gather_, "uQ", qNew_);
  passes_.bind(gather_, "uQdot", qdotNew_);
  glUniform1i(gather_.uniform("uWidth"), n_);
  streamPoints(gatherVao_, gatherBuffer_, sources.data(), sources.size() * sizeof(GLint), int(nodes.size()));
  // the rows the points wrote, from both targets
  std::vector<float> q, qdot;
  passes_.readRows(gatherQ_, gatherQdot_, int((nodes.size() + size_t(n_) - 1) / size_t(n_)), &q, &qdot, "the gather pass");
  for (size_t k = 0; k < nodes.size(); ++k) {
    s.q[size_t(nodes[k])] = Vec3(q[4 * k], q[4 * k + 1], q[4 * k + 2]);
    s.qdot[size_t(nodes[k])] = Vec3(qdot[4 * k], qdot[4 * k + 1], qdot[4 * k + 2]);
  }
  gatheredNodes_ += long(nodes.size());
}

void GpuSkin::saveGood(const BodyView& body) {
  requireHeld(body);
  if (!goodQ_.id()) goodQ_ = newField();
  glCopyImageSubData(qNew_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, goodQ_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, n_, n_, 1);
  checkGl("keeping the last good state");
  goodOf_ = body.id;
}

void GpuSkin::restoreGood(const BodyView& body) {
  if (goodOf_ != body.id) throw GlError("the GPU solver keeps no good state of this body");
  glCopyImageSubData(goodQ_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, qNew_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, n_, n_, 1);
  passes_.bindTargets({{qdotNew_.id(), -1}});
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, zero);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("restoring the last good state");
  holder_ = body.id;
  momentsAre_ = Moments::Unknown;
}

CondensedSums GpuSkin::condense(const BodyView& body, const LayeredState&) {
  requireHeld(body);
  ops_.sync(body);
  const PassTimer timer(passes_, Stage::Rows);
  passes_.beginPass(condense_);
  passes_.bind(condense_, "uQ", qNew_);
  passes_.bind(condense_, "uHinv", ops_.responseInverse());
  passes_.sumTerms(condense_, D2T_CONDENSE_OUTPUTS);
  Mat3 hq, bhq, qhq;
  std::array<double, 6> sym{};
  for (int k = 0; k < 3; ++k) {
    const std::array<float, 4> a = passes_.sumTexel(D2T_CONDENSE_HQ + k), b = passes_.sumTexel(D2T_CONDENSE_BHQ + k);
    hq.row(k) << a[0], a[1], a[2];
    bhq.row(k) << b[0], b[1], b[2];
    sym[size_t(k)] = a[3];
    sym[size_t(3 + k)] = b[3];
  }
  qhq << sym[0], sym[1], sym[2], sym[1], sym[3], sym[4], sym[2], sym[4], sym[5];
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // u = ub + q: H [u]x = H [ub]x + H [q]x, [u]x H [u]x = rest + [ub]x H [q]x + its transpose + [q]x H [q]x
  CondensedSums c = ops_.responseCondensed();
  c.tr += hq;
  c.rr += bhq + bhq.transpose() + qhq;
  return c;
}

void GpuSkin::drawPoints(const std::vector<ScatterPoint>& points) {
  if (points.empty()) return;
  scatter_.use();
  glUniform1i(scatter_.uniform("uSize"), n_);
  streamPoints(scatterVao_, scatterBuffer_, points.data(), points.size() * sizeof(ScatterPoint), int(points.size()));
}

void GpuSkin::streamPoints(GLuint vao, GLuint buffer, const void* data, size_t bytes, int count) {
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_STREAM_DRAW);
  glDrawArrays(GL_POINTS, 0, GLsizei(count));
  glBindVertexArray(0);
}

void GpuSkin::setRows(const BodyView& body, const LayeredState& s, const std::vector<ContactRow>& rows, double dt,
                      bool fixedCore) {
  requireHeld(body);
  ops_.sync(body);
  const PassTimer timer(passes_, Stage::Rows);
  rows_.set(s, rows, dt, fixedCore, qNew_, qdotNew_);
}

RowSums GpuSkin::roundRows(const Core::Vector* dv, bool oneSided) {
  if (rows_.count() == 0) return RowSums{};
  const PassTimer timer(passes_, Stage::Multipliers);
  return rows_.round(dv, oneSided);
}

ImpulseSums GpuSkin::impulse(const BodyView& body, const LayeredState& s) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Impulse);
  return rows_.impulse(s, qNew_, impulseR_);
}

ImpulseSums GpuSkin::friction(const BodyView& body, const LayeredState& s, double share, const Vec3& dvt,
                              const Vec3& dw) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Friction);
  return rows_.friction(s, share, dvt, dw, qNew_, qdotNew_, impulseR_, impulseExtra_);
}

std::vector<RowResult> GpuSkin::rowResults() { return rows_.results(); }

Vec3 GpuSkin::energy(const BodyView& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) {
  requireHeld(body);
  ops_.sync(body);
  const PassTimer timer(passes_, Stage::Impulse);
  const Vec3 vb = s.orientation.conjugate() * s.velocity, w = s.angularVelocity;
  passes_.beginPass(responseEnergy_);
  passes_.bind(responseEnergy_, "uQ", qNew_);
  passes_.bind(responseEnergy_, "uQdot", qdotNew_);
  passes_.bind(responseEnergy_, "uR", impulseR_);
  passes_.bind(responseEnergy_, "uHinv", ops_.responseInverse());
  responseEnergy_.set("uVb", vb);
  responseEnergy_.set("uW", w);
  responseEnergy_.set("uDvt", dvt);
  responseEnergy_.set("uDw", dw);
  passes_.sumTerms(responseEnergy_, 1);
  const Vec3 k = passes_.sum(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact response's energy pass");
  return k;
}

void GpuSkin::apply(const BodyView& body, const std::vector<Vec3>&, const Vec3& dvt, const Vec3& dw,
                    double share, const Vec3& frictionDvt, const Vec3& frictionDw, double dt, LayeredState&) {
  requireHeld(body);
  ops_.sync(body);
  const PassTimer timer(passes_, Stage::Apply);
  passes_.beginPass(apply_);
  passes_.bind(apply_, "uQ0", q_);
  passes_.bind(apply_, "uQ", qNew_);
  passes_.bind(apply_, "uQdot", qdotNew_);
  passes_.bind(apply_, "uR", impulseR_);
  passes_.bind(apply_, "uExtra", impulseExtra_);
  passes_.bind(apply_, "uHinv", ops_.responseInverse());
  apply_.set("uDvt", dvt);
  apply_.set("uDw", dw);
  apply_.set("uFrictionDvt", frictionDvt);
  apply_.set("uFrictionDw", frictionDw);
  glUniform1f(apply_.uniform("uShare"), float(share));
  glUniform1f(apply_.uniform("uDt"), float(dt));
  // (z_, ma_: scratch, swapped in below)
  // (the state's layout of velocities.frag; the moments' sums kept apart from sums_)
  static_assert(D2T_STATE_SUM_MQDOT == D2T_STATE_SUM_MQ + 1 && D2T_STATE_OUTPUTS == D2T_STATE_SUM_MQDOT + 1,
                "response_apply.frag's outputs");
  std::vector<Target> targets(D2T_STATE_OUTPUTS);
  targets[D2T_STATE_QDOT] = {z_.id(), -1};
  targets[D2T_STATE_Q] = {ma_.id(), -1};
  targets[D2T_STATE_SUM_MQ] = {passes_.terms(D2T_STATE_SUM_MQ).id(), -1};
  targets[D2T_STATE_SUM_MQDOT] = {passes_.terms(D2T_STATE_SUM_MQDOT).id(), -1};
  passes_.draw(apply_, targets);
  std::swap(qdotNew_, z_);
  std::swap(qNew_, ma_);
  passes_.reduce({&passes_.terms(D2T_STATE_SUM_MQ), &passes_.terms(D2T_STATE_SUM_MQDOT)}, {&momentSums_[0], &momentSums_[1]});
  momentsAre_ = Moments::InTextures;
  momentShift_.setZero();
  momentQdotShift_.setZero();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact response's apply pass");
  ++appliedImpulses_;
}

void GpuSkin::holdOnCore(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) {
  ops_.hold(body, held);
}

void GpuSkin::findCoreContacts(const BodyView& body, const LayeredState&, double keep, double margin, double reach,
                               std::vector<CoreContact>* out) {
  requireHeld(body);
  detection_.detectCore(qNew_, keep, margin, reach, out);
}

// One point per listed node, scale * value added into its texel of target (its gutter
// copies are not read: every pass reads a node's values at its own texel).
void GpuSkin::scatterAdd(const GlTexture& target, const std::vector<std::pair<int, Vec3>>& values, double scale) {
  const Atlas& a = model_->atlas;
  std::vector<ScatterPoint> points;
  points.reserve(values.size());
  for (const auto& [i, v] : values) {
    const int texel = a.nodeTexel[size_t(i)];
    const Vec3 d = scale * v;
    points.push_back({{texel % n_, texel / n_}, {GLfloat(d.x()), GLfloat(d.y()), GLfloat(d.z()), 0}});
  }
  passes_.bindTargets({{target.id(), -1}});
  glEnablei(GL_BLEND, 0);
  glBlendEquationi(0, GL_FUNC_ADD);
  glBlendFunci(0, GL_ONE, GL_ONE);
  drawPoints(points);
  glDisablei(GL_BLEND, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void GpuSkin::correct(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dq, LayeredState& s) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Correct);
  scatterAdd(qNew_, dq, 1.0);
  checkGl("the position correction's scatter");
  for (const auto& [i, d] : dq) {
    s.q[size_t(i)] += d;  // the CPU's copy takes the same change
    momentShift_ += model_->nodeMass[size_t(i)] * d;
  }
}

void GpuSkin::changeVelocities(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dqdot, double dt,
                               LayeredState& s) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Neighbours);
  scatterAdd(qdotNew_, dqdot, 1.0);
  scatterAdd(qNew_, dqdot, dt);
  checkGl("the velocity correction's scatter");
  for (const auto& [i, d] : dqdot) {
    s.qdot[size_t(i)] += d;  // the CPU's copy takes the same change
    s.q[size_t(i)] += dt * d;
    momentShift_ += model_->nodeMass[size_t(i)] * dt * d;
    momentQdotShift_ += model_->nodeMass[size_t(i)] * d;
  }
}

SkinSummary GpuSkin::summarize(const BodyView& body, const LayeredState&, const Vec3& up) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Check);
  ++summaries_;
  return summary_.summarize(qNew_, qdotNew_, up);
}

double GpuSkin::maxDisplacement(const BodyView& body, const LayeredState&) {
  requireHeld(body);
  const PassTimer timer(passes_, Stage::Proxies);
  return summary_.maxDisplacement(qNew_, qdotNew_);
}

}  // namespace d2t
