// CpuSkinResponse: the CPU reference of the contact response's passes over every node
// and row (the GPU runs the same passes in shaders/d2t/: docs/architecture.md).

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "sim/base/ordered_sum.h"
#include "sim/body/layered_body.h"
#include "sim/body/node_loops.h"
#include "sim/contact/patch_friction.h"
#include "sim/morph/modal_basis.h"

namespace d2t {

using namespace layered_detail;

// ---- the contact response's passes over every node (CPU reference) ------------------------

namespace {
// Entries of the same node summed, sorted by node.
std::vector<std::pair<int, Vec3>> mergeByNode(std::vector<std::pair<int, Vec3>> v) {
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    if (out > 0 && v[out - 1].first == v[k].first)
      v[out - 1].second += v[k].second;
    else
      v[out++] = v[k];
  }
  v.resize(out);
  return v;
}

// dq_i without r_i: -Mh_i^-1 m_i (dvt - u_i x dw)
Vec3 coreShare(const Mat3& hinv, double mi, const Vec3& ui, const Vec3& dvt, const Vec3& dw) {
  return -mi * (hinv * (dvt - ui.cross(dw)));
}

// The entry of node i in a list sorted by node, else 0.
Vec3 entryOf(const std::vector<std::pair<int, Vec3>>& v, int i) {
  const auto at = std::lower_bound(v.begin(), v.end(), i, [](const auto& e, int node) { return e.first < node; });
  return at != v.end() && at->first == i ? at->second : Vec3::Zero();
}
}  // namespace

CondensedSums CpuSkinResponse::condense(const BodyView& body, const LayeredState& s) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const int n = m.nodeCount();
  cached_ = false;
  using Three = Eigen::Matrix<double, 3, 9>;  // [tt tr rr]
  const Three sums = orderedSum(n, Three(Three::Zero()), n > kParallelNodes, [&](int i) {
    const double m2 = m.nodeMass[i] * m.nodeMass[i];
    const Mat3 ux = skew(m.restSkin[i] + s.q[i]);
    const Mat3 hux = m2 * (hinv[i] * ux);
    Three t;
    t << m2 * hinv[i], hux, ux * hux;
    return t;
  });
  return {sums.leftCols<3>(), sums.middleCols<3>(3), sums.rightCols<3>()};
}

void CpuSkinResponse::setRows(const BodyView& body, const LayeredState& s, const std::vector<ContactRow>& rows,
                              double dt, bool fixedCore) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const Mat3 R = rotation(s.orientation), Rt = R.transpose();
  in_ = rows;
  rows_.assign(rows.size(), Row{});
  r_.clear();
  extra_.clear();
  cached_ = false;
  for (size_t k = 0; k < rows.size(); ++k) {
    const ContactRow& c = rows[k];
    Row& row = rows_[k];
    const int i = c.node;
    const double mi = m.nodeMass[size_t(i)];
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    const Vec3 nb = Rt * c.normal;
    const Vec3 hn = hinv[size_t(i)] * nb;
    row.D = nb.dot(hn);
    row.U = fixedCore  ? Core::Vector::Zero()
            : c.onCore ? Core::skinRowCoupling(ui, mi, hn, R)
                       : Core::rowCoupling(c.normal, nb, ui, mi, hn, R);
    // the pre-impact relative normal velocity; the node constraint (8), (13) is inelastic
    // here (restitution went into the rigid impact). Contacts are found at the predicted
    // end of the step; a node that was still a gap away from the surface at its start may
    // close that gap (speculative contact: target -gap/dt) and lands on the surface
    // instead of hovering (a stopped node above the surface would carry weight without
    // the skin compressing). Separating nodes are left alone (one-sided). A row on the
    // core takes the node's velocity relative to the core.
    row.before = c.onCore ? Vec3(R * s.qdot[size_t(i)])
                          : Vec3(s.velocity + R * (s.angularVelocity.cross(ui) + s.qdot[size_t(i)]));
    const double vn = c.normal.dot(row.before - c.surfaceVelocity);
    row.startGap = c.startGap < 0 ? std::max(0.0, -c.depth - dt * vn) : c.startGap;
    row.b = c.release ? 0.0 : -vn - row.startGap / dt;
    row.active = !c.release;
    row.lambda = c.release ? c.lo : 0.0;
  }
}

RowSums CpuSkinResponse::roundRows(const Core::Vector* dv, bool oneSided) {
  RowSums sums;
  for (size_t k = 0; k < rows_.size(); ++k) {
    Row& row = rows_[k];
    if (row.active && dv) {
      row.lambda = (row.b - row.U.dot(*dv)) / row.D;
      if (row.lambda < in_[k].lo) {
        ++sums.below;
        if (oneSided) {
          row.active = false;
          row.lambda = in_[k].lo;
        }
      }
    }
    if (row.active) {
      sums.S += row.U * row.U.transpose() / row.D;
      sums.rhs += row.U * (row.b / row.D);
    } else {
      sums.rhs += row.U * row.lambda;
    }
  }
  return sums;
}

ImpulseSums CpuSkinResponse::impulse(const BodyView& body, const LayeredState& s) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const Mat3 Rt = rotation(s.orientation).transpose();
  ImpulseSums sums;
  r_.clear();
  cached_ = false;
  for (size_t k = 0; k < rows_.size(); ++k) {
    const Vec3 f = rows_[k].lambda * in_[k].normal;  // world
    if (f.isZero(0)) continue;
    const int i = in_[k].node;
    const Vec3 fb = Rt * f;
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    r_.emplace_back(i, fb);
    if (!in_[k].onCore) {  // (on the core: the reaction cancels the core's part)
      sums.fc.head<3>() += f;
      sums.fc.tail<3>() += ui.cross(fb);
    }
    const Vec3 hr = hinv[size_t(i)] * fb;
    sums.mt += m.nodeMass[size_t(i)] * hr;
    sums.mr += m.nodeMass[size_t(i)] * ui.cross(hr);
  }
  r_ = mergeByNode(std::move(r_));
  return sums;
}

Vec3 CpuSkinResponse::energy(const BodyView& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const Vec3 vb = s.orientation.conjugate() * s.velocity, w = s.angularVelocity;
  const int n = m.nodeCount();
  dq_.resize(size_t(n));
  Vec3 k = orderedSum(n, Vec3(Vec3::Zero()), n > kParallelNodes, [&](int i) {
    const Vec3 ui = m.restSkin[i] + s.q[i];
    const double mi = m.nodeMass[i];
    const Vec3 vi = vb + w.cross(ui) + s.qdot[i];
    dq_[i] = coreShare(hinv[i], mi, ui, dvt, dw);
    const Vec3 di = dvt + dw.cross(ui) + dq_[i];
    return Vec3(0.5 * mi * vi.squaredNorm(), mi * vi.dot(di), 0.5 * mi * di.squaredNorm());
  });
  // the impulses' own part at their nodes: d_i gains h_i = Mh_i^-1 r_i
  for (const auto& [i, r] : r_) {
    const Vec3 ui = m.restSkin[i] + s.q[i], hr = hinv[i] * r;
    const double mi = m.nodeMass[i];
    const Vec3 vi = vb + w.cross(ui) + s.qdot[i], di = dvt + dw.cross(ui) + dq_[i];
    k += Vec3(0, mi * vi.dot(hr), mi * di.dot(hr) + 0.5 * mi * hr.squaredNorm());
    dq_[i] += hr;
  }
  dqDvt_ = dvt;
  dqDw_ = dw;
  cached_ = true;
  return k;
}

ImpulseSums CpuSkinResponse::friction(const BodyView& body, const LayeredState& s, double share, const Vec3& dvt,
                                      const Vec3& dw) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const Mat3 R = rotation(s.orientation), Rt = R.transpose();
  extra_.clear();
  ImpulseSums sums;
  std::unordered_map<int, Vec3> skinAfter;  // node -> its qdot after the impulse (and friction)
  for (size_t k = 0; k < rows_.size(); ++k) {
    const ContactRow& c = in_[k];
    Row& row = rows_[k];
    row.frictionImpulse.setZero();
    if (!(row.lambda > c.lo)) continue;  // (no positive total impulse)
    const int i = c.node;
    const Vec3 ui = m.restSkin[size_t(i)] + s.q[size_t(i)];
    const double mi = m.nodeMass[size_t(i)];
    auto [at, added] = skinAfter.try_emplace(i);
    Vec3& qdot = at->second;
    const Mat3& h = hinv[size_t(i)];
    if (added) qdot = s.qdot[size_t(i)] + share * (h * entryOf(r_, i) + coreShare(h, mi, ui, dvt, dw));
    const Vec3 after = s.velocity + R * (s.angularVelocity.cross(ui) + qdot);
    const Vec3 rel = after - c.surfaceVelocity;
    const Vec3 xt = rel - c.normal.dot(rel) * c.normal;
    const double speed = xt.norm();
    if (speed < 1e-12) continue;
    const double muHat = std::min(1.0, c.friction * (after - row.before).norm() / speed);
    const Vec3 f = -mi * muHat * xt, fb = Rt * f, hf = h * fb;
    qdot += hf;  // (the node's own share; the core's follows for all rows at once)
    extra_.emplace_back(i, fb);
    row.frictionImpulse = f;
    sums.fc.head<3>() += f;
    sums.fc.tail<3>() += ui.cross(fb);
    sums.mt += mi * hf;
    sums.mr += mi * ui.cross(hf);
  }
  extra_ = mergeByNode(std::move(extra_));
  return sums;
}

std::vector<RowResult> CpuSkinResponse::rowResults() {
  std::vector<RowResult> out(rows_.size());
  for (size_t k = 0; k < rows_.size(); ++k)
    out[k] = {rows_[k].lambda, rows_[k].startGap, rows_[k].frictionImpulse};
  return out;
}

void CpuSkinResponse::apply(const BodyView& body, const std::vector<Vec3>& startQ, const Vec3& dvt,
                            const Vec3& dw, double share, const Vec3& frictionDvt, const Vec3& frictionDw,
                            double dt, LayeredState& s) {
  const BakedBody& m = body.model;
  const std::vector<Mat3>& hinv = this->hinv(body);
  const int n = m.nodeCount();
  if (!cached_ || dvt != dqDvt_ || dw != dqDw_) {  // (else energy() left them)
    dq_.resize(size_t(n));
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
    for (int i = 0; i < n; ++i) dq_[i] = coreShare(hinv[i], m.nodeMass[i], m.restSkin[i] + s.q[i], dvt, dw);
    for (const auto& [i, r] : r_) dq_[i] += hinv[i] * r;
  }
  cached_ = false;
  for (const auto& [i, f] : extra_) s.qdot[i] += hinv[i] * f;
  const bool frictionOnCore = !frictionDvt.isZero(0) || !frictionDw.isZero(0);
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) {
    s.qdot[i] += share * dq_[i];
    if (frictionOnCore) s.qdot[i] += coreShare(hinv[i], m.nodeMass[i], m.restSkin[i] + s.q[i], frictionDvt, frictionDw);
    s.q[i] = startQ[i] + dt * s.qdot[i];
  }
}

void CpuSkinResponse::holdOnCore(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) {
  holding_ = !held.empty();
  if (!holding_) return;
  held_ = body.op.diagInverse();
  for (const auto& [i, h] : heldBlocks(held_, held)) held_[size_t(i)] = h;
}

void CpuSkinResponse::findCoreContacts(const BodyView& body, const LayeredState& s, double keep, double margin,
                                       double reach, std::vector<CoreContact>* out) {
  d2t::findCoreContacts(body.model, s.q, keep, margin, reach, out);
}

void CpuSkinResponse::correct(const BodyView&, const std::vector<std::pair<int, Vec3>>& dq, LayeredState& s) {
  for (const auto& [i, d] : dq) s.q[size_t(i)] += d;
}

void CpuSkinResponse::changeVelocities(const BodyView&, const std::vector<std::pair<int, Vec3>>& dqdot, double dt,
                                       LayeredState& s) {
  for (const auto& [i, d] : dqdot) {
    s.qdot[size_t(i)] += d;
    s.q[size_t(i)] += dt * d;
  }
}

// One pass in double, its sums added in a fixed order (ordered_sum.h: the same bits on any
// number of threads). 1/2 q^T K q: the diagonal terms plus twice those above it (K is
// symmetric: the slots of row i that read node j > i mirror those of row j that read i),
// without storing K q.
SkinSummary CpuSkinResponse::summarize(const BodyView& body, const LayeredState& s, const Vec3& up) {
  const BakedBody& m = body.model;
  const int n = m.nodeCount();
  const std::vector<Vec3>& q = s.q;
  // W = 1/2 q^T K q - q^T f0 + c; a reduced skin's is its model's in z (reduced StVK has no
  // nodal form), of the state's projection on the basis (what its next step starts from)
  const ModalBasis* basis = body.op.basis();
  double reducedEnergy = 0;
  const bool inZ = basis && body.elastic.reducedForce(*basis, basis->project(q, m.nodeMass), nullptr, nullptr,
                                                      &reducedEnergy);
  const StencilBlocks* K = inZ ? nullptr : &body.elastic.stiffness();
  static const std::vector<Vec3> noForce;
  const std::vector<Vec3>& f0 = inZ ? noForce : body.elastic.restForce();
  SkinSummary none;
  none.lowest = std::numeric_limits<double>::infinity();
  const auto add = [&](SkinSummary& p, int i) {
    const double mi = m.nodeMass[i];
    const Vec3& qi = q[i];
    const Vec3& vi = s.qdot[i];
    p.finite = p.finite && qi.allFinite() && vi.allFinite();
    const Vec3 u = m.restSkin[i] + qi;
    p.mu += mi * u;
    p.mqdot += mi * vi;
    p.muxqdot += mi * u.cross(vi);
    p.muu += mi * u * u.transpose();
    p.mqdot2 += mi * vi.squaredNorm();
    if (K) {
      const Stencil& st = m.atlas.stencil[i];
      Vec3 row = Vec3::Zero();
      for (int k = 0; k < kStencilSlots; ++k) {
        const int j = st[k];
        if (j == i) row += 0.5 * ((*K)[i][k] * qi);
        else if (j > i) row += (*K)[i][k] * q[j];
      }
      if (!f0.empty()) row -= f0[i];
      p.elastic += qi.dot(row);
    }
    const double qn = qi.norm();
    p.maxQ = std::max(p.maxQ, qn);
    p.maxStretch =
        std::max(p.maxStretch, stretchPart(qi, m.layerDirection[i]).norm() / std::max(1e-300, m.layer[i]));
    p.maxCrush = std::max(p.maxCrush, -m.layerDirection[i].dot(qi) / std::max(1e-300, m.layer[i]));
    p.maxQdot = std::max(p.maxQdot, vi.norm());
    p.lowest = std::min(p.lowest, up.dot(u));
  };
  const auto combine = [](SkinSummary& r, const SkinSummary& p) {
    r.mu += p.mu;
    r.mqdot += p.mqdot;
    r.muxqdot += p.muxqdot;
    r.muu += p.muu;
    r.mqdot2 += p.mqdot2;
    r.elastic += p.elastic;
    r.maxQ = std::max(r.maxQ, p.maxQ);
    r.maxStretch = std::max(r.maxStretch, p.maxStretch);
    r.maxCrush = std::max(r.maxCrush, p.maxCrush);
    r.maxQdot = std::max(r.maxQdot, p.maxQdot);
    r.lowest = std::min(r.lowest, p.lowest);
    r.finite = r.finite && p.finite;
  };
  SkinSummary r = orderedReduce(n, none, n > kParallelNodes, add, combine);
  r.elastic = inZ ? reducedEnergy : r.elastic + body.elastic.restEnergy();
  return r;
}

}  // namespace d2t
