// GpuOperators (gpu_operators.h): a body's operators in the GPU's textures.
#include "gpu/skin/gpu_operators.h"

#include <stdexcept>

#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;

GpuOperators::GpuOperators(AtlasPasses& passes) : passes_(passes) {
  const BakedBody& m = passes_.model();
  const int n = passes_.size();
  for (int i = 0; i < m.nodeCount(); ++i) {
    rest_.st += m.nodeMass[i] * m.restSkin[i];
    rest_.uu += m.nodeMass[i] * m.restSkin[i] * m.restSkin[i].transpose();
  }
  k_ = GlTexture(n, n, D2T_BLOCK_LAYER(kStencilSlots, 0), GL_RGBA32F);
  uploadStiffness(k_, m.stiffness);
  stiffnessVersion_ = m.fingerprint;  // (ConstantStiffness's version of these blocks)
  f0_ = passes_.newField();
  hinv_ = GlTexture(n, n, 3, GL_RGBA32F);
  wt_ = GlTexture(n, n, 3, GL_RGBA32F);
  wr_ = GlTexture(n, n, 3, GL_RGBA32F);
}

// K_e's blocks into the stiffness texture (layout.glsl: D2T_BLOCK_LAYER).
void GpuOperators::uploadStiffness(const GlTexture& tex, const StencilBlocks& K) {
  const Atlas& a = passes_.model().atlas;
  for (int k = 0; k < kStencilSlots; ++k)
    for (int r = 0; r < 3; ++r) {
      std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
      for (int i = 0; i < a.nodeCount(); ++i)
        for (int c = 0; c < 3; ++c) t[size_t(a.nodeTexel[i]) * 4 + c] = float(K[i][k](r, c));
      uploadTexels(tex, D2T_BLOCK_LAYER(k, r), t);
    }
}

// The operators of the body's time step: K_e where the elastic model changed it,
// Mh_e^-1 and the coupling columns, and the constant parts of the core sums (in double).
void GpuOperators::sync(const BodyView& body) {
  if (stiffnessVersion_ != body.elastic.version()) {
    uploadStiffness(k_, body.elastic.stiffness());
    const std::vector<Vec3>& f0 = body.elastic.restForce();
    if (!f0.empty() || hasRestForce_)  // (zeroes once where it goes back to none)
      uploadTexels(f0_, 0, nodeTexels(passes_.model().atlas, f0.empty() ? std::vector<Vec3>(size_t(passes_.model().nodeCount()), Vec3::Zero()) : f0, false));
    hasRestForce_ = !f0.empty();
    restEnergy_ = body.elastic.restEnergy();
    stiffnessVersion_ = body.elastic.version();
  }
  // the implicit operator's K_e, where the model lets it lag behind (a frozen Jacobian)
  operatorLags_ = body.elastic.operatorVersion() != body.elastic.version();
  if (operatorLags_ && operatorStiffnessVersion_ != body.elastic.operatorVersion()) {
    const int n = passes_.size();
    if (kOp_.id() == 0) kOp_ = GlTexture(n, n, D2T_BLOCK_LAYER(kStencilSlots, 0), GL_RGBA32F);
    uploadStiffness(kOp_, body.elastic.operatorStiffness());
    operatorStiffnessVersion_ = body.elastic.operatorVersion();
  }
  const ImplicitOperator& op = body.op;
  const double dt = op.key().dt;  // Mt_e = (1 + dt alpha) M_e + (dt beta + dt^2) K_e
  scaleMass_ = 1 + dt * body.material.alpha;
  scaleStiffness_ = dt * body.material.beta + dt * dt;
  if (preparedBody_ == body.id && preparedVersion_ == op.version()) return;
  const BakedBody& m = passes_.model();
  const Atlas& a = m.atlas;
  const int nn = a.nodeCount();
  const auto& hinv = op.diagInverse();
  const auto& wt = op.translationalCoupling();
  const auto& wr = op.rotationalCoupling();
  if (hinv.size() != size_t(nn) || wt.size() != size_t(nn) || wr.size() != size_t(nn))
    throw std::logic_error("the GPU solver needs the body's operators for its time step (a step prepares them)");
  for (int j = 0; j < 3; ++j) {
    std::vector<Vec3> row(nn), ct(nn), cr(nn);
    for (int i = 0; i < nn; ++i) {
      row[i] = hinv[i].row(j).transpose();
      ct[i] = wt[i][j];
      cr[i] = wr[i][j];
    }
    uploadTexels(hinv_, j, nodeTexels(a, row, false));
    uploadTexels(wt_, j, nodeTexels(a, ct, false));
    uploadTexels(wr_, j, nodeTexels(a, cr, false));
  }
  rest_.mWt.setZero();
  rest_.mWr.setZero();
  rest_.mubWt.setZero();
  rest_.mubWr.setZero();
  rest_.condensed = CondensedSums{};
  for (int i = 0; i < nn; ++i) {
    const double mi = m.nodeMass[i];
    const Vec3& ub = m.restSkin[i];
    const Mat3 h = mi * mi * hinv[i], ubx = skew(ub);
    rest_.condensed.tt += h;
    rest_.condensed.tr += h * ubx;
    rest_.condensed.rr += ubx * h * ubx;
    for (int j = 0; j < 3; ++j) {
      rest_.mWt.col(j) += mi * wt[i][j];
      rest_.mWr.col(j) += mi * wr[i][j];
      rest_.mubWt.col(j) += mi * ub.cross(wt[i][j]);
      rest_.mubWr.col(j) += mi * ub.cross(wr[i][j]);
    }
  }
  preparedBody_ = body.id;
  preparedVersion_ = op.version();
  holding_ = false;  // (of the operator before)
}

void GpuOperators::hold(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) {
  sync(body);
  holding_ = !held.empty();
  if (!holding_) return;
  const BakedBody& m = passes_.model();
  const int n = passes_.size();
  const auto& hinv = body.op.diagInverse();
  if (!heldHinv_.id()) heldHinv_ = GlTexture(n, n, 3, GL_RGBA32F);
  glCopyImageSubData(hinv_.id(), GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, heldHinv_.id(), GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, n,
                     n, 3);
  glBindTexture(GL_TEXTURE_2D_ARRAY, heldHinv_.id());
  heldCondensed_ = rest_.condensed;
  for (const auto& [i, h] : heldBlocks(hinv, held)) {
    float rows[3][4];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) rows[r][c] = float(h(r, c));
      rows[r][3] = 0.0f;
    }
    const int t = m.atlas.nodeTexel[size_t(i)];
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, t % n, t / n, 0, 1, 1, 3, GL_RGBA, GL_FLOAT, rows);
    // (the state part of the condensation sums the texture; its rest part is in double)
    const double mi = m.nodeMass[size_t(i)];
    const Mat3 dh = mi * mi * (h - hinv[size_t(i)]), ubx = skew(m.restSkin[size_t(i)]);
    heldCondensed_.tt += dh;
    heldCondensed_.tr += dh * ubx;
    heldCondensed_.rr += ubx * dh * ubx;
  }
  checkGl("holding the crushed nodes on the core");
}

}  // namespace d2t
