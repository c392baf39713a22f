// LayeredBody's contact response (Fig. 3.5 steps 6-13) and the corrections of the skin:
// withResponse (the backend's passes, or the CPU's), respond, respondThrough (rows, SMW
// rounds, impulse, energy guard, friction, apply), applyCorrections (the loads' velocity
// corrections after step 5), correct (15).

#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "sim/body/layered_body.h"
#include "sim/body/node_loops.h"
#include "sim/contact/energy_guard.h"
#include "sim/contact/patch_friction.h"

namespace d2t {

using namespace layered_detail;

template <class F>
void LayeredBody::withResponse(Profile& profile, F f) {
  const bool done = skin_.solver() && skin_.solver()->response() && onSolver([&](FreeMotionSolver& solver) {
    if (!skinResident()) {
      StageTimer t(profile, Stage::Transfer);
      if (skin_.startStale()) throw std::logic_error("the start of the step is on the GPU only");
      solver.load(view(), state_, start_.q);
      skin_.loadedOnSolver();
    }
    struct TakeTimes {  // (also when f throws)
      SkinResponse& r;
      Profile& p;
      ~TakeTimes() { r.takeTimes(p); }
    } take{*solver.response(), profile};
    f(take.r);
  });
  if (!done) f(cpuResponse_);  // (no solver, or it failed: f again, on the CPU)
}

// Steps 6-13 from the collision-free prediction in state_; positions are
// re-integrated from the start of the step with the post-impact velocities. The
// stages in the order of Fig. 3.5, each a unit of its own (response_policies.h).
void LayeredBody::respond(std::vector<NodeContact>& contacts, double dt, const Vec3& g, Profile& profile,
                          bool firstSweep) {
  const ResponsePolicies& policy = settings_.response;
  std::vector<NodeContact>& cs = contacts;
  // 6-8: the contacts found at the predicted state. Finders report nodes within a
  // margin; penetrating ones collide here, and so do the nodes that colliders or
  // bodies supported in the free update (whatever their depth now).
  if (firstSweep) addSupportRows(cs, dt);
  cs.erase(std::remove_if(cs.begin(), cs.end(),
                          [](const NodeContact& c) { return c.depth <= 0 && c.impulse <= 0 && !c.release; }),
           cs.end());
  bool newEpisode = false;  // contacts with colliders begin this step
  if (firstSweep) {
    int colliding = 0, colliderContacts = 0;
    for (const NodeContact& c : cs) {
      if (c.release) continue;
      ++colliding;
      colliderContacts += c.other < 0;
      info_.maxPenetration = std::max(info_.maxPenetration, c.depth);
    }
    info_.contacts = colliding;
    newEpisode = previousContacts_ == 0;
    previousContacts_ = colliderContacts;
    findCoreRows(dt, profile);
  }
  if (cs.empty() && coreContacts_.empty() && corePoints_.empty()) return;

  LayeredState& s = state_;
  // 13 (below) integrates positions from the start of the step; a rigid impact
  // during the step adds the motion before the time of impact
  ImpactMotion impact;
  if (!settings_.fixedCore && newEpisode && policy.restitution) {
    StageTimer t(profile, Stage::Impact);
    impact = colliderImpact(cs, dt, g);
  }
  // 9-13: first (in the first sweep) the crushed nodes against their core (policy
  // `skin_on_core`), then the contacts, with the crushed nodes held on the core
  auto integrate = [&] {  // (13: the core's positions from the start of the step)
    s.position = start_.position + dt * (s.velocity + impact.velocity);
    s.orientation = integrateBodyRotation(start_.orientation, s.angularVelocity + impact.angularVelocity, dt);
  };
  if (firstSweep && !coreContacts_.empty()) {
    // (internal to the body: its linear momentum stays, which the block-diagonal
    // response only approximates: projected back through the core, as step 5 does)
    const Vec3 before = linearMomentum();
    respondRows(coreContacts_, true, dt, profile);
    integrate();
    restoreLinearMomentum(before);
  }
  if (!cs.empty() || !corePoints_.empty()) respondRows(cs, false, dt, profile);
  integrate();
}

// 9-13 for one list of contacts, through the backend that holds the skin (the rows;
// the core's solves here): the contacts of the world's list, or (onCore) the skin's
// rows against its own core.
void LayeredBody::respondRows(std::vector<NodeContact>& cs, bool onCore, double dt, Profile& profile) {
  const ResponsePolicies& policy = settings_.response;
  GuardFrame guard;
  std::vector<ContactRow> rows;
  {
    StageTimer t(profile, Stage::Rows);
    rows = contactRows(cs, onCore, policy.friction, &guard);
    if (!onCore)
      for (const CorePointContact& c : corePoints_) guard.on = guard.on && c.surfaceVelocity.isZero(0);
    // Against another body only where the skin is at its limits on the core (held
    // nodes, rows on the core, the core's own rows): there the held response pushes the
    // core through the crushed layer, and a soft stack's sweeps gained 35-90 J a step;
    // elsewhere the guard only left the pairs deeper in each other (decision 0017).
    const bool atLimits = !heldNodes_.empty() || !coreContacts_.empty() || !corePoints_.empty();
    guard.on = guard.on && policy.energyGuard && (!guard.againstBodies || atLimits);
  }
  const Vec3 v0 = state_.velocity, w0 = state_.angularVelocity;
  static const std::vector<std::pair<int, Vec3>> noneHeld;
  static const std::vector<CorePointContact> noPoints;
  const auto& held = onCore ? noneHeld : heldNodes_;  // (the rows on the core: neither)
  const auto& points = onCore ? noPoints : corePoints_;
  RowOutcome out;
  withResponse(profile, [&](SkinResponse& r) {
    r.holdOnCore(view(), held);
    out = respondThrough(r, rows, points, v0, w0, dt, guard, profile);
  });
  StageTimer t(profile, Stage::Apply);  // (the results taken back)
  if (onCore) {
    for (size_t k = 0; k < cs.size(); ++k) cs[k].impulse += out.share * out.rows[k].lambda;
  } else {
    takeRowResults(out, cs);
  }
  if (skinResident()) skin_.changedOnSolver();  // (the solver's apply: q, qdot are on the GPU)
}

// The support's share of the response (policy `support`): a node that a collider or a
// body supported in the free update starts its row with that support as its impulse
// (the response may take it back, but not pull); a supported node no longer found
// against the same surface gets a release row, its support taken back.
void LayeredBody::addSupportRows(std::vector<NodeContact>& cs, double dt) const {
  if (supported_.empty()) return;
  std::vector<char> found(supported_.size(), 0);
  for (NodeContact& c : cs) {
    const SupportedNode* hit = findSupported(supported_, c.node);
    const long k = hit && hit->other == c.other ? hit - supported_.data() : -1;
    if (k < 0 || found[size_t(k)]) continue;
    const double along = supported_[size_t(k)].normal.dot(c.normal);
    if (along <= 0) continue;
    c.impulse = dt * supported_[size_t(k)].force * along;
    found[size_t(k)] = 1;
  }
  for (size_t k = 0; k < supported_.size(); ++k) {
    if (found[k]) continue;
    NodeContact c;
    c.node = supported_[k].node;
    c.normal = supported_[k].normal;
    c.impulse = dt * supported_[k].force;
    c.friction = 0;
    c.other = supported_[k].other;
    c.release = true;
    cs.push_back(c);
  }
}

// Restitution (policy `restitution`; docs/decisions/0009-restitution-as-rigid-impact.md).
// A node-level restitution target (8) does not work with a layered skin: spread over
// the steps in which the skin comes into contact, it neither reverses a stiff body in
// time (no bounce: the first steps touch a node or two) nor stays out of a resting
// skin's vibration (which it pumps into bounces). Here the coefficient of restitution
// is the body's: when a contact episode begins (no contacts in the previous step) and
// the rigidified body (Mirtich's response, sec. 5.3.1) approaches the contact patch
// faster than gravity alone explains, one Newton impact law reverses the patch's
// normal speed by eps; the node constraints are then inelastic and keep the skin out
// of the collider. The skin's elasticity still dents, jiggles and carries the weight
// at rest. (Impacts between two bodies are the world's: World::pairImpacts.)
LayeredBody::ImpactMotion LayeredBody::colliderImpact(const std::vector<NodeContact>& cs, double dt,
                                                      const Vec3& g) {
  const BakedBody& m = *model_;
  const double mass = m.totalMass;
  LayeredState& s = state_;
  ImpactMotion impact;
  Vec3 p = Vec3::Zero(), nAvg = Vec3::Zero(), vo = Vec3::Zero();
  double wsum = 0, eps = 0;
  {  // (the nodes read below, from the solver where it holds the skin: a gather)
    std::vector<int> read;
    for (const NodeContact& c : cs)
      if (c.other < 0 && c.depth > 0) read.push_back(c.node);
    syncNodes(read);
  }
  for (const NodeContact& c : cs) {
    if (c.other >= 0 || c.depth <= 0) continue;
    const double wk = c.depth + 1e-9;
    p += wk * nodePosition(c.node);
    nAvg += wk * c.normal;
    vo += wk * c.surfaceVelocity;
    eps += wk * c.restitution;
    wsum += wk;
  }
  if (!(wsum > 0) || nAvg.norm() <= 1e-12) return impact;
  p /= wsum;
  vo /= wsum;
  eps /= wsum;
  nAvg.normalize();
  const Mat3 R = rotation(s.orientation);
  const Vec3 com = centerOfMass();
  const Vec3 vCom = linearMomentum() / mass;
  const Vec3 wWorld = R * s.angularVelocity;
  const Vec3 rp = p - com;
  const double vApproach = nAvg.dot(vCom + wWorld.cross(rp) - vo);
  const double threshold = 2 * g.norm() * dt + 1e-3;
  if (vApproach >= -threshold) return impact;
  const Mat3 invI = R * m.totalInertia.inverse() * R.transpose();
  const Vec3 rn = rp.cross(nAvg);
  const double j = -(1 + eps) * vApproach / (1 / mass + rn.dot(invI * rn));
  const Vec3 v0 = s.velocity, w0 = s.angularVelocity;
  applyRigidImpulse(j * nAvg, p);
  const Vec3 dcdot = s.velocity - v0, dwBody = s.angularVelocity - w0;
  // the body reaches the patch at t_i = dt - depth / |v| into the step and only
  // then turns: x(t + dt) = x + t_i v- + (dt - t_i) v+
  double deepest = 0;
  for (const NodeContact& c : cs)
    if (c.other < 0) deepest = std::max(deepest, c.depth);
  const double ti = std::clamp(dt - deepest / -vApproach, 0.0, dt);
  impact.velocity = -ti / dt * dcdot;
  impact.angularVelocity = -ti / dt * dwBody;
  return impact;
}

// Step 9's input: one row per contact, the rows of a node linked in list order;
// frictionless where the policy `friction` is off, and on the core (onCore: the
// skin's rows against its own core). guard: off where a collider moves; its frame the
// rows' mean surface velocity (the core is the body's own: at rest in the body's frame,
// as a collider at rest); whether a row is against another body.
std::vector<ContactRow> LayeredBody::contactRows(const std::vector<NodeContact>& cs, bool onCore, bool friction,
                                                 GuardFrame* guard) {
  std::vector<ContactRow> rows(cs.size());
  std::unordered_map<int, int> lastRowOf;  // node -> its last row so far
  for (int k = 0; k < int(cs.size()); ++k) {
    const NodeContact& c = cs[size_t(k)];
    ContactRow& row = rows[size_t(k)];
    row.onCore = onCore;
    row.node = c.node;
    row.normal = c.normal;
    row.surfaceVelocity = c.surfaceVelocity;
    row.depth = c.depth;
    row.startGap = c.startGap;
    row.lo = -c.impulse;
    row.friction = friction && !onCore ? c.friction : 0.0;
    row.release = c.release;
    auto [last, first] = lastRowOf.try_emplace(c.node, k);
    if (!first) {
      row.previous = last->second;
      rows[size_t(last->second)].next = k;
      last->second = k;
    }
    guard->on = guard->on && (c.other >= 0 || c.surfaceVelocity.isZero(0));
    guard->againstBodies = guard->againstBodies || c.other >= 0;
    guard->velocity += c.surfaceVelocity;
  }
  if (!cs.empty()) guard->velocity /= double(cs.size());
  return rows;
}

// The rows' results into the contacts (the release rows then leave the list), and each
// node's impulse kept for the next step's support (correct).
void LayeredBody::takeRowResults(const RowOutcome& out, std::vector<NodeContact>& cs) {
  info_.pulling += out.pulling;
  for (size_t k = 0; k < cs.size(); ++k) {
    NodeContact& c = cs[k];
    const RowResult& res = out.rows[k];
    info_.activeContacts += c.impulse + res.lambda > 0;
    c.startGap = res.startGap;
    c.impulse += out.share * res.lambda;
    c.frictionImpulse += res.frictionImpulse;
    info_.leastImpulse = std::min(info_.leastImpulse, c.impulse);
  }
  const size_t n = size_t(nodeCount());
  if (rowImpulse_.size() != n) {
    rowImpulse_.assign(n, 0.0);
    rowOther_.assign(n, kNoRow);
    rowNodes_.clear();
  }
  for (const NodeContact& c : cs) {
    if (c.release) continue;
    if (rowOther_[size_t(c.node)] == kNoRow) rowNodes_.push_back(c.node);
    rowImpulse_[size_t(c.node)] = c.impulse;
    rowOther_[size_t(c.node)] = c.other;
  }
  cs.erase(std::remove_if(cs.begin(), cs.end(), [](const NodeContact& c) { return c.release; }), cs.end());
}

// 9 the rows (the diagonal term D_k = nb^T Mh_i^-1 nb, the coupling rows U_k (12)) and
// Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ec(i) over all nodes (the whole skin rides on
// the core).
// 10 lambda by Sherman-Morrison-Woodbury on an active set: the core's change dv solves
//    (Mh_cond + sum_active U_k U_k^T / D_k) dv = sum_active U_k b_k / D_k + sum_out U_k lo_k
//    and the active rows take lambda_k = (b_k - U_k . dv) / D_k; this is (D + U A^-1 U^T)
//    l = b - U A^-1 U_out^T lo_out with l = D^-1 b - D^-1 U (A + U^T D^-1 U)^-1 U^T D^-1 b
//    written for dv. One-sided: a row whose total impulse (what it had: support, earlier
//    sweeps) would pull leaves the set with its total at zero, lambda = lo; release rows
//    are out from the start. The core's own rows against the colliders (corePoints:
//    core_point_rows.h, no skin, D = kCorePointCompliance / m) join the same rounds, and
//    their force the core's in step 11.
LayeredBody::RowOutcome LayeredBody::respondThrough(SkinResponse& r, const std::vector<ContactRow>& rows,
                                                    const std::vector<CorePointContact>& corePoints,
                                                    const Vec3& v0, const Vec3& w0, double dt,
                                                    const GuardFrame& guard, Profile& profile) {
  const BakedBody& m = *model_;
  const bool fixed = settings_.fixedCore;
  LayeredState& s = state_;
  s.velocity = v0;
  s.angularVelocity = w0;
  const Mat3 R = rotation(s.orientation);
  const Mat3 Rt = R.transpose();
  Core::Matrix A = free_.coreMass;  // Mh_cond
  RowOutcome out;
  {
    StageTimer t(profile, Stage::Rows);
    if (!fixed) A = Core::condensed(A, r.condense(view(), s), R);
    r.setRows(view(), s, rows, dt, fixed);
    corePointRows_.set(corePoints, m.core, s, m.totalMass, dt, fixed);
  }
  {
    StageTimer t(profile, Stage::Multipliers);
    const bool oneSided = settings_.response.oneSided;
    RowSums sums = r.roundRows(nullptr, oneSided);
    int entered = 0;  // (core rows that joined the set in a round)
    corePointRows_.round(nullptr, oneSided, sums.S, sums.rhs, sums.below, entered);
    for (int round = 0; round < 20; ++round) {
      const Core::Vector dv = fixed ? Core::Vector::Zero() : Core::Vector((A + sums.S).ldlt().solve(sums.rhs));
      sums = r.roundRows(&dv, oneSided);
      entered = 0;
      corePointRows_.round(&dv, oneSided, sums.S, sums.rhs, sums.below, entered);
      if (round == 0) out.pulling = sums.below;
      if (!settings_.response.oneSided || (sums.below == 0 && entered == 0)) break;
    }
  }
  // 11 the impulse J^T lambda as a velocity change through steps 3-4, with Mh_e as the
  //    multipliers were (so the constraints hold exactly):
  //    dv_c = Mh_cond^-1 (f_c - sum M_ce(i) Mh_i^-1 r_i), dqdot_i = Mh_i^-1 (r_i - M_ec(i) dv_c)
  std::optional<StageTimer> timer(std::in_place, profile, Stage::Impulse);
  ImpulseSums is = r.impulse(view(), s);
  is.fc += corePointRows_.force();
  std::optional<Eigen::LDLT<Core::Matrix>> solveA;
  if (!fixed) solveA.emplace(A);
  Core::Vector dv = Core::Vector::Zero();
  if (!fixed) dv = solveA->solve(Core::impulseRhs(is.fc, is.mt, is.mr, R));
  const Vec3 dvt = Rt * Core::linear(dv), dw = Core::angular(dv);
  // The energy guard (policy `energy_guard`; responseEnergyShare): the skin's part of
  // KE(t) from its pass, the core's here (body frame, as kineticEnergy), both relative to
  // the guard's frame: an inelastic push from surfaces moving at u cannot add kinetic
  // energy in u's frame. (Every point of the body moves with the core's velocity plus its
  // own: the core's taken as v - u shifts them all; restored exactly after.)
  if (guard.on) {
    const Vec3 v = s.velocity;
    s.velocity = v - guard.velocity;
    const Vec3 skin = r.energy(view(), s, dvt, dw);
    const Vec3 ke =
        Core::kineticEnergyAlong(m.coreMass, m.coreInertia, Rt * s.velocity, s.angularVelocity, dvt, dw) + skin;
    s.velocity = v;
    out.share = responseEnergyShare(ke[0], ke[1], ke[2]);
  }
  Core::addVelocity(s, out.share * dv);  // (from v0, w0)
  // 12 friction (14) on the node, from its tangential velocity after the normal impulse
  //    (which moves it tangentially too, through the coupling): the pre-impact one of
  //    (14) can overshoot and feed a resting body energy. Its impulse goes through the
  //    response as the rows' do (11): a velocity change of the node alone (dqdot_i = f_i /
  //    m_i) would move a stiff node dt |dqdot_i| against a spring of dt^2 k_i / m_i >> 1
  //    times its mass and feed the skin energy (docs/decisions/0027).
  timer.emplace(profile, Stage::Friction);
  const ImpulseSums fs = r.friction(view(), s, out.share, dvt, dw);
  Core::Vector fdv = Core::Vector::Zero();
  if (!fixed && (!fs.fc.isZero(0) || !fs.mt.isZero(0) || !fs.mr.isZero(0)))
    fdv = solveA->solve(Core::impulseRhs(fs.fc, fs.mt, fs.mr, R));
  Core::addVelocity(s, fdv);
  out.rows = r.rowResults();
  timer.emplace(profile, Stage::Apply);
  // 13 positions from the post-impact velocities: the skin's in the same pass as its
  //    velocities, from the start of the step
  r.apply(view(), start_.q, dvt, dw, out.share, Rt * Core::linear(fdv), Core::angular(fdv), dt, s);
  return out;
}

// The loads' corrections of the skin's velocity relative to the core (node_load.h), after
// step 5: computed here in double from the nodes' qdot, the change applied where the skin
// is (the GPU's scatter, or the CPU). They are internal, and the core is not touched: the
// momentum and angular momentum they take from the corrected nodes go to the load's
// absorbers (a metaphor's region) as a rigid velocity field v + w x u_j relative to the
// core, the one with the opposite momentum (6x6: the absorbers' rigid mass matrix about
// the core's centre). So the body's flight keeps its momentum, the core's velocity is
// left bit for bit, and the corrected nodes' qdot is exactly what the correction asked.
void LayeredBody::applyCorrections(double dt, Profile& profile) {
  struct Batch {
    std::vector<VelocityCorrection> list;
    std::vector<int> absorbers;
  };
  std::vector<Batch> batches;
  for (const auto& load : loads_) {
    Batch b;
    load->corrections(*this, dt, b.list, b.absorbers);
    if (!b.list.empty()) batches.push_back(std::move(b));
  }
  if (batches.empty()) return;
  StageTimer t(profile, Stage::Neighbours);
  std::vector<int> read;
  const auto check = [&](int node) {
    if (node < 0 || node >= nodeCount())
      throw std::invalid_argument("body '" + desc_.name + "': a node load asked for a velocity correction of node " +
                                  std::to_string(node) + ", which is not in [0, " + std::to_string(nodeCount()) + ")");
    read.push_back(node);
  };
  for (const Batch& b : batches) {
    for (const VelocityCorrection& c : b.list) {
      check(c.node);
      if (!(c.keep >= 0 && c.keep <= 1) || !(c.portion >= 0 && c.portion <= 1) || !c.direction.allFinite())
        throw std::invalid_argument("body '" + desc_.name + "': a node load asked for a velocity correction of node " +
                                    std::to_string(c.node) + " with a factor out of [0, 1]");
    }
    for (int j : b.absorbers) check(j);
  }
  syncNodes(read);
  // the nodes' qdot as corrected so far (in the loads' order: a node corrected twice takes
  // both, one after the other)
  std::unordered_map<int, Vec3> now;
  const auto qdot = [&](int i) -> Vec3& { return now.try_emplace(i, state_.qdot[size_t(i)]).first->second; };
  const auto u = [&](int i) { return Vec3(model_->restSkin[size_t(i)] + state_.q[size_t(i)]); };
  for (const Batch& b : batches) {
    Vec3 P = Vec3::Zero(), L = Vec3::Zero();  // the momentum the corrections change (body frame, about c)
    for (const VelocityCorrection& c : b.list) {
      Vec3& v = qdot(c.node);
      const Vec3 before = v;
      v *= c.keep;
      const double along = v.dot(c.direction);
      if (along > 0) v -= c.portion * along * c.direction;
      const Vec3 p = model_->nodeMass[size_t(c.node)] * (v - before);
      P += p;
      L += u(c.node).cross(p);
    }
    if (settings_.fixedCore || b.absorbers.empty()) continue;  // (a held core's anchor takes it)
    // [M, -[S]x; [S]x, J] (v; w) = -(P; L), M, S, J the absorbers' mass, first moment and
    // inertia about the core's centre
    double M = 0;
    Vec3 S = Vec3::Zero();
    Mat3 J = Mat3::Zero();
    for (int j : b.absorbers) {
      const double m = model_->nodeMass[size_t(j)];
      const Vec3 x = u(j);
      M += m;
      S += m * x;
      J += m * (x.squaredNorm() * Mat3::Identity() - x * x.transpose());
    }
    Eigen::Matrix<double, 6, 6> A;
    A << M * Mat3::Identity(), -skew(S), skew(S), J;
    Eigen::Matrix<double, 6, 1> rhs;
    rhs << -P, -L;
    // (a region on a line cannot take an angular momentum about it: the least-squares field)
    const Eigen::Matrix<double, 6, 1> vw = A.completeOrthogonalDecomposition().solve(rhs);
    const Vec3 v = vw.head<3>(), w = vw.tail<3>();
    for (int j : b.absorbers) qdot(j) += v + w.cross(u(j));
  }
  std::vector<std::pair<int, Vec3>> dqdot;
  dqdot.reserve(now.size());
  for (const auto& [i, v] : now) dqdot.emplace_back(i, v - state_.qdot[size_t(i)]);
  std::sort(dqdot.begin(), dqdot.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  withResponse(profile, [&](SkinResponse& r) { r.changeVelocities(view(), dqdot, dt, state_); });
  if (skinResident()) skin_.changedOnSolver();
}

// 15 constraint correction with the contacts found after the response: move
// penetrating nodes out by their share.
void LayeredBody::correct(const std::vector<NodeContact>& contacts, double dt, Profile& profile) {
  StageTimer t(profile, Stage::Correct);
  LayeredState& s = state_;
  const Mat3 Rt = rotation(s.orientation).transpose();
  // the nodes that the response held on a collider or a body (a positive impulse puts
  // them on its surface) are supported in the next step. (Not a test on the depth: a
  // threshold of microns flips with the GPU's float rounding and with it the node's
  // support.)
  s.touching.clear();
  for (const NodeContact& c : contacts) {
    const size_t i = size_t(c.node);
    const double impulse = rowImpulse_.empty() || rowOther_[i] != c.other ? 0.0 : rowImpulse_[i];
    if (impulse > 0) s.touching.push_back({c.node, c.normal, impulse / dt, c.surfaceVelocity, c.other});
  }
  for (int i : rowNodes_) {
    rowImpulse_[size_t(i)] = 0;
    rowOther_[size_t(i)] = kNoRow;
  }
  rowNodes_.clear();
  onSurfaces_.clear();  // (for correctLimits: every node the detection found at a surface)
  for (const NodeContact& c : contacts) onSurfaces_.push_back({c.node, Rt * c.normal, std::max(0.0, -c.depth)});
  std::stable_sort(onSurfaces_.begin(), onSurfaces_.end(),
                   [](const SurfaceNode& a, const SurfaceNode& b) { return a.node < b.node; });
  std::vector<std::pair<int, Vec3>> dq;  // (a node may have contacts with several surfaces)
  for (const NodeContact& c : contacts) {
    if (c.depth <= 0) continue;
    if (!settings_.response.correction) {  // (the policy is off: the penetration stays)
      info_.finalPenetration = std::max(info_.finalPenetration, c.depth);
      continue;
    }
    dq.emplace_back(c.node, Rt * (c.stiffnessShare * c.depth * c.normal));
    ++info_.corrected;
    info_.maxCorrection = std::max(info_.maxCorrection, c.stiffnessShare * c.depth);
    info_.finalPenetration = std::max(info_.finalPenetration, (1 - c.stiffnessShare) * c.depth);
  }
  if (!dq.empty()) {
    std::stable_sort(dq.begin(), dq.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t k = 0;
    for (size_t j = 1; j < dq.size(); ++j)
      if (dq[j].first == dq[k].first)
        dq[k].second += dq[j].second;
      else
        dq[++k] = dq[j];
    dq.resize(k + 1);
    withResponse(profile, [&](SkinResponse& r) { r.correct(view(), dq, s); });
    if (skinResident()) skin_.changedOnSolver();  // (the solver's correction: q is on the GPU)
  }
  liftCore();
}

// The skin on its core (policy `skin_on_core`, core_contact.h): the nodes crushed past
// their thinnest layer at the predicted state, each a frictionless one-sided row along
// its rest direction d_i (world: R d_i), found once per step (the first sweep) and kept
// with its impulse over the sweeps.
void LayeredBody::findCoreRows(double dt, Profile& profile) {
  coreContacts_.clear();
  heldNodes_.clear();
  if (!settings_.response.skinOnCore) return;
  std::vector<CoreContact> found;
  {
    StageTimer t(profile, Stage::Nodes);
    withResponse(profile, [&](SkinResponse& r) {
      r.findCoreContacts(view(), state_, desc_.material.minLayer, kCoreHoldMargin, dt * coreReachSpeed(), &found);
    });
  }
  const Mat3 R = rotation(state_.orientation);
  for (const CoreContact& k : found) {
    heldNodes_.emplace_back(k.node, k.normal);
    if (k.depth <= 0) continue;
    NodeContact c;
    c.node = k.node;
    c.normal = R * k.normal;
    c.depth = k.depth;
    c.friction = 0;
    c.restitution = 0;
    coreContacts_.push_back(c);
  }
  info_.coreContacts = int(coreContacts_.size());
}

std::pair<double, double> LayeredBody::coreExtent() const {
  if (coreRadius_ < 0) {
    coreRadius_ = 0;
    for (int i = 0; i < model_->nodeCount(); ++i) {
      coreRadius_ = std::max(coreRadius_, model_->core[size_t(i)].norm());
      maxLayer_ = std::max(maxLayer_, (model_->restSkin[size_t(i)] - model_->core[size_t(i)]).norm());
    }
  }
  return {coreRadius_, maxLayer_};
}

double LayeredBody::coreReachSpeed() const {
  return state_.velocity.norm() + state_.angularVelocity.norm() * coreExtent().first;
}

// Step 15's part on the core (policy `skin_on_core`): the core points still within their
// crushed layer of a collider lift the body (core and skin together) along their
// depth-weighted normal, as far as the deepest asks: the core never sinks through its
// crushed skin into a collider.
void LayeredBody::liftCore() {
  const ResponsePolicies& policy = settings_.response;
  if (!policy.skinOnCore || !policy.correction || settings_.fixedCore) return;
  Vec3 n = Vec3::Zero();
  for (const CorePointContact& c : corePoints_)
    if (c.depth > 0) n += c.depth * c.normal;
  if (n.norm() == 0) return;
  n.normalize();
  double lift = 0;
  for (const CorePointContact& c : corePoints_)
    if (c.depth > 0) lift = std::max(lift, c.depth / std::max(0.1, n.dot(c.normal)));
  state_.position += lift * n;
  info_.coreCorrection = std::max(info_.coreCorrection, lift);
}

// The end of step 15: what the response and the correction left past a limit moves out
// along n_i (the core is rigid: the node takes all of it; the core's own distance from
// the colliders leaves room for a crushed node between). The summary of the corrected
// skin says whether any node is past a limit, so the common step (none) costs no pass.
bool LayeredBody::correctLimits(const SkinSummary& skin, Profile& profile) {
  const ResponsePolicies& policy = settings_.response;
  if (!policy.skinOnCore || !policy.correction || !skin.finite) return false;
  // (the summary's maxima are floats on the GPU: a hair below the limits, the limits found
  // exactly as below)
  constexpr double kHair = 1e-4;
  const double keep = desc_.material.minLayer;
  if (skin.maxCrush < 1 - keep - kHair && skin.maxStretch < kMaxStretch - kHair) return false;
  StageTimer t(profile, Stage::Correct);
  std::vector<CoreContact> found;
  withResponse(profile, [&](SkinResponse& r) { r.findCoreContacts(view(), state_, keep, 0.0, 0.0, &found); });
  if (found.empty()) return false;
  std::vector<std::pair<int, Vec3>> dq;
  for (const CoreContact& k : found) {  // (a node past both limits: both, summed)
    if (!dq.empty() && dq.back().first == k.node)
      dq.back().second += k.depth * k.normal;
    else
      dq.emplace_back(k.node, k.depth * k.normal);
    info_.coreCorrection = std::max(info_.coreCorrection, k.depth);
  }
  // (a limit's correction never moves a node into a surface that the correction's
  // detection found it at: along that surface's normal it moves at most its gap towards
  // it. The core keeps its own crushed layer from the colliders, so such a node stays
  // between the two)
  for (auto& [i, d] : dq)
    for (auto it = std::lower_bound(onSurfaces_.begin(), onSurfaces_.end(), i,
                                    [](const SurfaceNode& a, int node) { return a.node < node; });
         it != onSurfaces_.end() && it->node == i; ++it)
      d -= std::min(0.0, d.dot(it->normal) + it->gap) * it->normal;
  // (a node moved in the spinning body frame moves with another speed: the linear
  // momentum, internal to the body, projected back through the core)
  const Vec3 before = linearMomentum();
  withResponse(profile, [&](SkinResponse& r) { r.correct(view(), dq, state_); });
  if (skinResident()) skin_.changedOnSolver();
  restoreLinearMomentum(before);
  return true;
}

// What the body's own rows and corrections take from its linear momentum (the
// block-diagonal response, a node moved in the spinning frame) given back through
// the core's velocity: they are internal.
void LayeredBody::restoreLinearMomentum(const Vec3& before) {
  if (!settings_.fixedCore) state_.velocity += (before - linearMomentum()) / model_->totalMass;
}

}  // namespace d2t
