// A soft articulated character's contact (articulated_body.h; dissertation (4.27)-(4.32),
// 3.20-3.21) with planes, height fields and the surface targets (contact_targets.h).
//
// Sections: the rows at a node with the skeleton's response anticipated (contactRow,
// conjugateDirections); their active-set solve (solveRows); detection (nodeEffectiveMass,
// detect); joint limits' and the drag's rows; the response with friction (respond); the next
// step's support (updateSupport); the correction (correct); what the World's exchange calls
// (deepestPenetration, correctAgainst, applyNodeImpulses).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "sim/character/articulated_body.h"

namespace d2t {

using Mat6 = Eigen::Matrix<double, 6, 6>;

// A rigid skin's row compliance times the node's mass [-]: small against a bone's (1 / its
// effective mass: the row holds its target to about 1e-4 of the approach), not so small that the
// few mm/s by which the targets of a bone's rows differ become large impulses (a rigid bone cannot
// meet them all: 1e-6 threw a snake lying on the ground at 1.7 m/s; decision 0033).
constexpr double kRigidSkinCompliance = 1e-4;

// The correction starts when a node is deeper than kCorrectionStart [m] (or a limit passed);
// its passes stop once no node is deeper than kCorrectionSlack [m] and no limit passed by more
// than kLimitSlack [rad]. (A rigid skin puts many rows on one bone's 6 dofs: its active set drops
// those that pull, and one pass left the snake_fish_rigid_skin's tail 6 mm into the ground where
// it landed; a pass at the corrected state takes those rows back. Starting at 0.1 mm rather than
// at any depth spares deer_bird 0.9 of its 7.1 factorizations a step.)
constexpr double kCorrectionStart = 1e-4, kCorrectionSlack = 2e-4, kLimitSlack = 1e-4;

// The rows that may change in solveRows' active set before it refactors rather than carry them
// as rank-one terms (a term costs a solve with the factor, about an eighth of a factorization).
constexpr int kRankUpdates = 8;

// ---- contact with planes and height fields (4.27)-(4.32) ---------------------------------------


// A contact row at node p (4.27)-(4.29), at the current configuration: j_s = n^T P_p,
// M_lambda = j_s Mh_p^-1 j_s^T, J_cond(k, i) = w_pi (n - m_p P Mh_p^-1 P^T n)^T A_pi, and its
// right-hand side b (the row asks J_cond dv_c + M_lambda lambda = -b).
struct ArticulatedBody::ContactRow {
  enum class Kind { Contact, Limit, Drag } kind = Kind::Contact;
  int node;
  Vec3 normal, vo;
  double target = 0, depth = 0, mlambda = 0, b = 0, friction = 0;
  int count = 0;
  std::array<int, 4> bone{};
  std::array<Eigen::Matrix<double, 1, 6>, 4> j;
  bool active = true;
  double lambda = 0;
  double upper = 1e300;  // (friction rows: mu times the node's normal impulse)
  double lower = 0;      // (friction rows: -upper, a two-sided row; contacts and limits: 0, one-sided)
  bool fixed = false;    // at its bound: a given impulse
  bool dropped = false;  // left the active set in this solve (not taken back in it)
  int surface = -1;      // (contacts) -1: a plane or height field; else the step's target
  SurfaceTarget::Hit hit;  // (contacts with a target) where
};

ArticulatedBody::ContactRow ArticulatedBody::contactRow(const BoneFrames& f, int p, const Vec3& normal) const {
  const CharacterModel& m = *model_;
  ContactRow r;
  r.node = p;
  r.normal = normal;
  const Influences& in = m.influence[size_t(p)];
  Mat3 P;
  nodeAt(f, p, nullptr, nullptr, &P);
  const Vec3 h = rigidSkin_ ? Vec3::Zero() : Vec3(P * (skinDiagInverse_[size_t(p)] * (P.transpose() * normal)));
  r.mlambda = rigidSkin_ ? kRigidSkinCompliance / m.nodeMass[size_t(p)] : normal.dot(h);
  const Vec3 nt = normal - m.nodeMass[size_t(p)] * h;
  const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
  r.count = in.count;
  for (int a = 0; a < in.count; ++a) {
    const size_t b = size_t(in.bone[size_t(a)]);
    const Vec3 lever = f.P[b] * (u - m.skeleton.bones[b].bindPosition);  // R u_pi: u x R^T n = R^T (R u x n)
    r.bone[size_t(a)] = int(b);
    r.j[size_t(a)] << in.weight[size_t(a)] * nt.transpose(),
        in.weight[size_t(a)] * (f.R[b].transpose() * lever.cross(nt)).transpose();
  }
  return r;
}

// The compliance of node p's skin, G = P Mh_p^-1 P^T (world), and three directions from a, b,
// c made G-conjugate (each less its G-projections on the ones before): rows at one node along
// them are exactly independent through its skin, as solveRows takes them (its M_lambda is a
// row's diagonal only). Friction and the drag use it.
std::array<Vec3, 3> ArticulatedBody::conjugateDirections(const BoneFrames& f, int p, const Vec3& a, const Vec3& b,
                                                         const Vec3& c) const {
  Mat3 P;
  nodeAt(f, p, nullptr, nullptr, &P);
  // (a rigid skin has no compliance of its own: any metric will do, the rows meet in the bones)
  const Mat3 G = rigidSkin_ ? Mat3::Identity() : Mat3(P * skinDiagInverse_[size_t(p)] * P.transpose());
  const auto conj = [&](const Vec3& d, const Vec3& e) { return Vec3(d - (e.dot(G * d) / e.dot(G * e)) * e); };
  const Vec3 d1 = conj(b, a);
  return {a, d1, conj(conj(c, a), d1)};
}

// The rows with the skeleton's response anticipated: M_c* = Mh_cond + sum_k J_cond,k^T
// J_cond,k / M_lambda,k, b_c* = -sum J^T b / M_lambda (4.31), the joints' rows keeping J dv_c =
// 0; lambda_k = -(J_cond,k dv_c + b_k) / M_lambda,k (4.30); one-sided rows pulling (lambda < 0)
// leave, a row past a bound [lower, upper] becomes that given impulse; at most 8 rounds. A
// round after the first solves with the last factorization and the rows that changed since as
// rank-one terms (Woodbury: M_c* = A + U C U^T, U's columns the rows' J_cond, C their +-1 /
// M_lambda; x = y - Z (C^-1 + U^T Z)^-1 U^T y, y = A^-1 rhs, Z = A^-1 U: a solve a changed row),
// refactoring once more than kRankUpdates rows changed. Returns dv_c (6k) and the rows' lambdas,
// their impulses added to `impulse`; the skin's change follows from both (addSkinChange).
Eigen::VectorXd ArticulatedBody::solveRows(std::vector<ContactRow>& rows, std::vector<Vec3>& impulse) {
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), nv = 6 * k, size = nv + m.skeleton.rowCount();
  // a row's part of M_c* and b_c* (sign +1: add, -1: take out), or of a given impulse
  std::vector<Mat6> blocks = blocks_;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
  // the rank-one terms since the last factorization: u (J_cond on the bones' dofs), A^-1 u, and
  // their weights; those still to be solved for (from `pending` on)
  std::vector<Eigen::VectorXd> U, Z;
  std::vector<double> C;
  size_t pending = 0;
  bool factored = false;
  const auto fold = [&](const ContactRow& r, double sign) {
    if (factored && !r.fixed) {
      Eigen::VectorXd u = Eigen::VectorXd::Zero(size);
      for (int a = 0; a < r.count; ++a) u.segment<6>(6 * r.bone[size_t(a)]) += r.j[size_t(a)].transpose();
      U.push_back(std::move(u));
      C.push_back(sign / r.mlambda);
    }
    for (int a = 0; a < r.count; ++a) {
      if (r.fixed) {  // a given impulse: J_cond^T lambda on the bones
        rhs.segment<6>(6 * r.bone[size_t(a)]) += sign * r.j[size_t(a)].transpose() * r.lambda;
        continue;
      }
      rhs.segment<6>(6 * r.bone[size_t(a)]) -= sign * r.j[size_t(a)].transpose() * (r.b / r.mlambda);
      for (int c = 0; c < r.count; ++c)
        blocks[size_t(pairIndex_[size_t(r.bone[size_t(a)]) * size_t(k) + size_t(r.bone[size_t(c)])])] +=
            (sign / r.mlambda) * r.j[size_t(a)].transpose() * r.j[size_t(c)];
    }
  };
  for (const ContactRow& r : rows)
    if (r.active) fold(r, 1);
  const auto t0 = std::chrono::steady_clock::now();
  Eigen::VectorXd sol;
  for (int round = 0; round < 8; ++round) {
    if (!factored || U.size() > size_t(kRankUpdates)) {
      factorKkt(blocks);
      factored = true;
      U.clear();
      Z.clear();
      C.clear();
      pending = 0;
    }
    for (; pending < U.size(); ++pending) Z.push_back(solveKkt(U[pending]));
    sol = solveKkt(rhs);
    if (!U.empty()) {
      const Eigen::Index t = Eigen::Index(U.size());
      Eigen::MatrixXd S(t, t);
      Eigen::VectorXd uy(t);
      for (Eigen::Index i = 0; i < t; ++i) {
        uy(i) = U[size_t(i)].dot(sol);
        for (Eigen::Index j = 0; j < t; ++j) S(i, j) = U[size_t(i)].dot(Z[size_t(j)]) + (i == j ? 1 / C[size_t(i)] : 0.0);
      }
      const Eigen::VectorXd w = S.partialPivLu().solve(uy);
      for (Eigen::Index j = 0; j < t; ++j) sol -= w(j) * Z[size_t(j)];
    }
    bool changed = false;
    for (ContactRow& r : rows) {
      if (r.fixed) continue;
      double jv = 0;
      for (int a = 0; a < r.count; ++a) jv += r.j[size_t(a)].dot(sol.segment<6>(6 * r.bone[size_t(a)]));
      if (!r.active) {  // a row left out whose node would cross its target: in (once: no cycling)
        if (!r.dropped && jv + r.b < -1e-12 * std::max(1.0, std::abs(r.b))) {
          r.active = true;
          fold(r, 1);
          changed = true;
        }
        continue;
      }
      r.lambda = -(jv + r.b) / r.mlambda;
      if (r.lambda < r.lower && r.lower == 0) {  // a one-sided row that pulls: out
        fold(r, -1);
        r.active = false;
        r.dropped = true;
        r.lambda = 0;
        changed = true;
      } else if (r.lambda > r.upper || r.lambda < r.lower) {  // past a bound: that impulse, given
        fold(r, -1);
        r.fixed = true;
        r.lambda = r.lambda > r.upper ? r.upper : r.lower;
        fold(r, 1);
        changed = true;
      }
    }
    if (!changed) break;
    if (round + 1 == 8) {  // (the last set, solved once more so that dv_c and the lambdas agree)
      factorKkt(blocks);
      factored = false;
      sol = solveKkt(rhs);
      for (ContactRow& r : rows) {
        if (!r.active || r.fixed) continue;
        double jv2 = 0;
        for (int a = 0; a < r.count; ++a) jv2 += r.j[size_t(a)].dot(sol.segment<6>(6 * r.bone[size_t(a)]));
        r.lambda = std::clamp(-(jv2 + r.b) / r.mlambda, r.lower, r.upper);
      }
    }
  }
  times_.responseBones += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (const ContactRow& r : rows) {
    if (r.node >= 0) impulse[size_t(r.node)] += r.lambda * r.normal;
    rowImpulse_ += r.lambda * r.normal;
  }
  return sol.head(nv);
}

// (4.32): Mh_p^-1 (P^T J_p - m_p sum_i w_pi B_pi^T dv_c,i) at node p, J_p its impulse (linear in
// both: the response's two solves give their sums' change in one pass)
void ArticulatedBody::addSkinChange(const Eigen::VectorXd& dvc, const std::vector<Vec3>& impulse,
                                    std::vector<Vec3>& to, const std::vector<int>* nodes) {
  if (rigidSkin_) return;
  const auto t0 = std::chrono::steady_clock::now();
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), n = m.nodeCount();
  const BoneFrames f = frames();
  std::vector<Vec3> dW(static_cast<size_t>(k));  // the bones' world angular velocity changes
  for (int b = 0; b < k; ++b) dW[size_t(b)] = f.R[size_t(b)] * dvc.segment<3>(6 * b + 3);
  const auto node = [&](int p) {
    const Influences& in = m.influence[size_t(p)];
    const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
    Mat3 P = Mat3::Zero();
    Vec3 a = Vec3::Zero();  // sum_i w_pi A_pi dv_c,i (world)
    for (int c = 0; c < in.count; ++c) {
      const size_t b = size_t(in.bone[size_t(c)]);
      const double w = in.weight[size_t(c)];
      P += w * f.P[b];
      a += w * (dvc.segment<3>(6 * int(b)) + dW[b].cross(f.P[b] * (u - m.skeleton.bones[b].bindPosition)));
    }
    to[size_t(p)] += skinDiagInverse_[size_t(p)] * (P.transpose() * (impulse[size_t(p)] - m.nodeMass[size_t(p)] * a));
  };
  if (nodes)
    for (int p : *nodes) node(p);
  else
    for (int p = 0; p < n; ++p) node(p);
  times_.responseSkin += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double ArticulatedBody::nodeEffectiveMass(const std::vector<Mat6>& inverse, int p, const Vec3& x, const Vec3& n) const {
  const size_t b = size_t(model_->influence[size_t(p)].dominant());
  const CoreState& s = state_.bones[b];
  return rigidEffectiveMass(inverse[b], s.position, s.orientation.toRotationMatrix(), x, n);
}

// The deepest surface under (or within `margin` of) each node: the planes and height fields,
// queried exactly, and the targets (contact_targets.h), the nearest point of each. Against a
// movable target the surface moves at the pair's common velocity at the node, v_o = (m_s v_p +
// m_o v_t) / (m_s + m_o) with each side's effective mass along the normal (ch. 3's
// rigidification, pairSurfaceVelocity; here the touched bones with their skin), so that the
// node's row and the impulse given back to the target (World: the exchange) meet there.
std::vector<ArticulatedBody::ContactRow> ArticulatedBody::detect(const std::vector<const Collider*>& colliders,
                                                                 const std::vector<const SurfaceTarget*>& targets,
                                                                 double dt, bool speculative, double reach) const {
  const CharacterModel& m = *model_;
  std::vector<ContactRow> rows;
  const BoneFrames f = frames();
  std::vector<Mat6> inverse;  // (bones) M_c(b, b)^-1, for the velocity rows against a movable target
  for (const SurfaceTarget* t : targets)
    if (speculative && t->movable() && inverse.empty())
      for (const Mat6& M : boneMassMatrices()) inverse.push_back(M.inverse());
  for (int p = 0; p < m.nodeCount(); ++p) {
    Vec3 x, v;
    nodeAt(f, p, &x, speculative ? &v : nullptr, nullptr);
    const double margin = speculative ? 0.01 + dt * v.norm() : reach;
    const Collider* best = nullptr;
    SurfaceHit hit;
    for (const Collider* c : colliders) {
      if (c->detectedInStages()) continue;  // (mesh colliders: through their targets)
      const SurfaceHit h = c->query(x);
      if (h.distance < margin && (!best || h.distance < hit.distance)) {
        best = c;
        hit = h;
      }
    }
    int bestTarget = -1;
    SurfaceTarget::Hit th;
    for (size_t i = 0; i < targets.size(); ++i) {
      if (!targets[i]->reaches(m.influence[size_t(p)])) continue;  // (stage 1: p's proxy not near it)
      SurfaceTarget::Hit h;
      const double within = speculative ? margin + dt * targets[i]->maxSpeed : margin;
      // (an open collider's side for the node: the one it was last clearly on, else its inner
      // point's; contact_targets.h)
      const SurfaceTarget::Side side{innerPointAt(f, p), state_.openSide[size_t(p)]};
      if (!targets[i]->queryNode(p, x, within, &h, &side) || !(h.distance < within)) continue;
      if ((best && !(h.distance < hit.distance)) || (bestTarget >= 0 && !(h.distance < th.distance))) continue;
      bestTarget = int(i);
      th = h;
    }
    if (bestTarget >= 0) {
      const SurfaceTarget& t = *targets[size_t(bestTarget)];
      ContactRow r = contactRow(f, p, th.normal);
      r.surface = bestTarget;
      r.hit = th;
      r.depth = -th.distance;
      r.vo = th.velocity;
      if (t.movable() && !inverse.empty()) {
        const double ms = nodeEffectiveMass(inverse, p, x, th.normal), mo = t.effectiveMass(th, th.normal);
        r.vo = (ms * v + mo * th.velocity) / (ms + mo);
        // at most what stops the other side's approach there: the pair's impulse for two free
        // sides, ms mo a / (ms + mo), is less; a side held from behind (a tube under another,
        // on the ground) cannot reach v_o, and its row, asking for it, would push it into the
        // ground as hard as its compliance lets (a rigid skin's: 900 N s, which the exchange
        // gave the other tube)
        r.upper = mo * std::max(0.0, th.normal.dot(th.velocity - v));
      }
      r.friction = std::sqrt(m.material.friction * t.friction);
      rows.push_back(r);
      continue;
    }
    if (!best) continue;
    ContactRow r = contactRow(f, p, hit.normal);
    r.vo = hit.velocity;
    r.depth = -hit.distance;
    r.friction = std::sqrt(m.material.friction * best->desc().friction);
    rows.push_back(r);
  }
  return rows;
}

// Joint limits (not in the thesis): a one-sided angular row at each joint whose angle theta
// away from the bind pose is at or near its limit, on the axis u of the relative rotation
// rho (world: P_i u). The row's measure is s = -u . (Omega_j - Omega_i) (un-bending), so
// that a limit pushes as a contact does: theta_start + dt theta' <= limit asks s >= target =
// -(limit - theta_start) / dt, and b = s - target; at the position level (dt = 0), theta <=
// limit asks the bones to turn back by theta - limit (b = limit - theta). The rows carry no
// skin (M_lambda: 1e-6 of the joint's inverse inertia about u, a hard row in practice).
std::vector<ArticulatedBody::ContactRow> ArticulatedBody::limitRows(const CharacterState* start, double dt) const {
  const Skeleton& sk = model_->skeleton;
  std::vector<ContactRow> rows;
  const BoneFrames f = frames();
  for (size_t jj = 0; jj < sk.joints.size(); ++jj) {
    const Joint& j = sk.joints[jj];
    if (!(j.limit > 0)) continue;
    const Quat rho = relativeRotation(sk, j, state_.bones, placement_.orientation);
    const Vec3 phi = rotationVector(rho);
    const double theta = phi.norm();
    const double theta0 = start ? d2t::jointAngle(sk, j, start->bones, placement_.orientation) : theta;
    const Mat3 Pi = j.parent < 0 ? placement_.orientation.toRotationMatrix() : f.P[size_t(j.parent)];
    const Vec3 u = theta > 1e-9 ? Vec3(Pi * phi / theta) : Vec3::UnitX();
    const Vec3 Wi = j.parent < 0 ? Vec3::Zero() : f.W[size_t(j.parent)];
    const double rate = u.dot(f.W[size_t(j.child)] - Wi);  // theta'
    // (speculative: rows within the step's travel of the limit, or 0.05 rad of it at the position
    // level; the active set keeps those needed)
    if (theta0 + (start ? dt * std::abs(rate) : 0.05) < j.limit && theta < j.limit) continue;
    ContactRow r;
    r.kind = ContactRow::Kind::Limit;
    r.node = -1;
    r.normal = Vec3::Zero();
    r.vo = Vec3::Zero();
    double inverseInertia = 0;
    const auto side = [&](int bone, double sign) {
      const Mat3& R = f.R[size_t(bone)];
      const Vec3 a = R.transpose() * u;  // u in the bone's frame
      r.bone[size_t(r.count)] = bone;
      r.j[size_t(r.count)] << 0, 0, 0, sign * a.transpose();
      inverseInertia += a.dot(model_->linkInertia[size_t(bone)].ldlt().solve(a));
      ++r.count;
    };
    side(j.child, -1);
    if (j.parent >= 0) side(j.parent, 1);
    r.mlambda = 1e-6 * inverseInertia;
    if (start) {
      r.target = -(j.limit - theta0) / dt;
      r.b = -rate - r.target;
      r.active = theta0 >= j.limit;
    } else {
      r.b = j.limit - theta;
      r.active = true;
    }
    r.depth = theta - j.limit;
    rows.push_back(r);
  }
  return rows;
}

// The mouse's drag spring at node p, implicit: with h = dt c + dt^2 k, the spring's impulse
// along a direction d is lambda = -(dt k d . (x_start - a) + h s), s = d . xdot+ the node's new
// velocity along d; with the row's s = s_o + J_cond dv_c + M_lambda lambda that is a row of
// compliance M_lambda + 1 / h and b = s_o + dt k d . (x_start - a) / h, two-sided. Three rows
// along G-conjugate directions (friction's reason: the rows of a node are then independent).
std::vector<ArticulatedBody::ContactRow> ArticulatedBody::dragRows(const CharacterState& start, double dt) const {
  std::vector<ContactRow> rows;
  if (drag_.node < 0) return rows;
  const int p = drag_.node;
  const BoneFrames f = frames();
  Vec3 v;
  nodeAt(f, p, nullptr, &v, nullptr);
  const Vec3 e = nodePositionIn(start, p) - drag_.target;
  const double h = dt * drag_.damping + dt * dt * drag_.stiffness;
  for (const Vec3& d : conjugateDirections(f, p, Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ())) {
    ContactRow r = contactRow(f, p, d);
    r.kind = ContactRow::Kind::Drag;
    r.mlambda += 1 / h;
    r.b = d.dot(v) + dt * drag_.stiffness * d.dot(e) / h;
    r.lower = -1e300;
    r.upper = 1e300;
    r.active = true;
    rows.push_back(r);
  }
  return rows;
}

void ArticulatedBody::respond(double dt, const CharacterState& start, const std::vector<const Collider*>& colliders,
                              const std::vector<const SurfaceTarget*>& targets) {
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), n = m.nodeCount();
  // detection at the predicted state, with speculative rows within 1 cm and the node's travel
  // in a step (the active set drops those that the free motion keeps off the surface)
  state_.touching.resize(size_t(n), 0);
  std::vector<ContactRow> rows = detect(colliders, targets, dt, true);
  const auto movable = [&](const ContactRow& r) { return r.surface >= 0 && targets[size_t(r.surface)]->movable(); };
  for (ContactRow& r : rows) {
    double d0 = 1e300;  // the node's distance at the start of the step
    const Vec3 x0 = nodePositionIn(start, r.node);
    if (r.surface >= 0) {
      SurfaceTarget::Hit h;
      d0 = targets[size_t(r.surface)]->queryNode(r.node, x0, 1.0, &h) ? h.distance : 1.0;
    } else {
      for (const Collider* x : colliders)
        if (!x->detectedInStages()) d0 = std::min(d0, x->query(x0).distance);
    }
    // (a node above the surface at the start may land on it; on another character's, which
    // lands on this one's likewise, half the way: the two close the gap together)
    const bool shared = r.surface >= 0 && targets[size_t(r.surface)]->kind == SurfaceTarget::Kind::Character;
    r.target = -(shared ? 0.5 : 1.0) * std::max(d0, 0.0) / dt;
    r.b = r.normal.dot(nodeVelocity(r.node) - r.vo) - r.target;
    // the active set starts from the nodes under a surface and those that touched in the last
    // step; solveRows adds the others that the response would carry across their target
    r.active = r.depth > 0 || state_.touching[size_t(r.node)];
  }
  // the support of the free update (ch. 3's, LayeredBody::addSupportRows): a supported node's
  // row starts active with the support as its impulse, which the response may take back (lower
  // bound -dt s) but not turn into a pull; a supported node not found against a surface now
  // gets its support taken back (a given impulse -dt s along it)
  std::vector<char> found(static_cast<size_t>(n), 0);
  for (ContactRow& r : rows) {
    const double s = state_.support[size_t(r.node)].dot(r.normal);
    if (!(s > 0) || found[size_t(r.node)] || movable(r)) continue;
    r.lower = -dt * s;
    r.active = true;
    found[size_t(r.node)] = 1;
  }
  {
    const BoneFrames f = frames();
    for (int p = 0; p < n; ++p) {
      const double s = state_.support[size_t(p)].norm();
      if (found[size_t(p)] || !(s > 0)) continue;
      ContactRow r = contactRow(f, p, state_.support[size_t(p)] / s);
      r.lambda = r.lower = -dt * s;
      r.fixed = true;
      rows.push_back(r);
    }
  }
  // a row's normal impulse with the support's share: lambda + dt s
  const auto total = [&](const ContactRow& r) {
    return r.lambda + (movable(r) ? 0.0 : dt * std::max(0.0, state_.support[size_t(r.node)].dot(r.normal)));
  };
  for (const ContactRow& r : limitRows(&start, dt)) rows.push_back(r);
  for (const ContactRow& r : dragRows(start, dt)) rows.push_back(r);
  if (rows.empty()) {
    std::fill(state_.touching.begin(), state_.touching.end(), 0);
    return;
  }
  std::vector<Vec3> impulse(size_t(n), Vec3::Zero());
  Eigen::VectorXd dv = solveRows(rows, impulse);
  for (int b = 0; b < k; ++b) {
    state_.bones[size_t(b)].velocity += dv.segment<3>(6 * b);
    state_.bones[size_t(b)].angularVelocity += dv.segment<3>(6 * b + 3);
  }
  // the skin's change at the rows' nodes now (friction starts from their velocities); at every
  // node once both solves are done (4.32 is linear: one pass with their sums), less this
  std::vector<int> at;
  for (const ContactRow& r : rows)
    if (r.node >= 0) at.push_back(r.node);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::vector<Vec3> early(size_t(n), Vec3::Zero());
  addSkinChange(dv, impulse, early, &at);
  for (int p : at) state_.qdot[size_t(p)] += early[size_t(p)];
  // friction (3.20) with the skeleton's response anticipated as for the normal rows (below),
  // solved with the normal rows holding their targets (a friction impulse on the skin alone,
  // P^-1 dx_t, strains a stiff skin by the whole slip)
  std::fill(state_.touching.begin(), state_.touching.end(), 0);
  for (const ContactRow& r : rows) {
    if (!r.active || r.kind != ContactRow::Kind::Contact || !(total(r) > 0)) continue;
    state_.touching[size_t(r.node)] = 1;
    CharacterContact c;
    c.node = r.node;
    c.normal = r.normal;
    c.depth = r.depth;
    c.lambda = total(r);
    c.residual = r.normal.dot(nodeVelocity(r.node) - r.vo) - r.target;
    c.landing = r.target * dt < -kLandingGap;
    c.target = r.surface;
    c.triangle = r.hit.triangle;
    c.bary = r.hit.bary;
    c.movable = movable(r);
    contacts_.push_back(c);
  }
  std::vector<ContactRow> fr;
  const BoneFrames f = frames();
  for (const ContactRow& r : rows) {
    if (!r.active || r.friction <= 0 || r.kind != ContactRow::Kind::Contact || !(total(r) > 0)) continue;
    const Vec3 rel = nodeVelocity(r.node) - r.vo;
    const Vec3 xt = rel - r.normal * r.normal.dot(rel);
    ContactRow n = contactRow(f, r.node, r.normal);
    n.vo = r.vo;
    n.target = r.target;
    n.surface = r.surface;
    n.depth = r.depth;
    n.b = r.normal.dot(rel) - r.target;
    n.lower = -total(r);  // (it may take back what the node has, not pull)
    n.upper = r.upper - r.lambda;  // (against a movable surface: its bound, as above)
    fr.push_back(n);
    // two two-sided rows against the slip and across it, each at most mu times the node's
    // normal impulse (the cone's box: a node that sticks holds in both directions). The three
    // rows of a node are coupled through its skin, G = P Mh_p^-1 P^T (the rows' M_lambda
    // are its diagonal only): their directions are made G-conjugate (d_k = t_k less its G-
    // projections on n and d_1), so that the rows are exactly independent, each asking
    // d_k . v = d_k . (target n), the velocity that sticks at the normal row's target.
    const Vec3 t1 = xt.norm() > 1e-9 ? Vec3(xt.normalized()) : r.normal.unitOrthogonal();
    const std::array<Vec3, 3> dir = conjugateDirections(f, r.node, r.normal, t1, r.normal.cross(t1));
    for (Vec3 d : {dir[1], dir[2]}) {
      d /= (d - r.normal * r.normal.dot(d)).norm();  // (a unit tangential part: lambda is the friction impulse)
      ContactRow t = contactRow(f, r.node, -d);
      t.target = -r.target * d.dot(r.normal);
      t.b = -d.dot(rel) - t.target;
      t.upper = r.friction * total(r);
      t.lower = -t.upper;
      fr.push_back(t);
    }
  }
  // (the normal rows of the friction solve take back at most what the node has: their
  // impulse, with the first solve's, is the node's total)
  if (!fr.empty()) {
    const Eigen::VectorXd dvf = solveRows(fr, impulse);
    for (int b = 0; b < k; ++b) {
      state_.bones[size_t(b)].velocity += dvf.segment<3>(6 * b);
      state_.bones[size_t(b)].angularVelocity += dvf.segment<3>(6 * b + 3);
    }
    dv += dvf;
  }
  for (int p : at) state_.qdot[size_t(p)] -= early[size_t(p)];
  addSkinChange(dv, impulse, state_.qdot);
  for (CharacterContact& c : contacts_) c.impulse = impulse[size_t(c.node)];
  integratePositions(start, dt);
}

// The next step's support (ch. 3's, LayeredBody::computeSupport): each node in contact
// carried lambda / dt in this step (its support and the response's impulse together), and its
// own forces at the end of the step, f = P (-K_s (q + (beta + dt) qdot) - m alpha qdot)_p + m_p
// (g - a_p), press it on the surface by -n . f; the target is the smaller (a node that unloads,
// at the back of a rolling patch, is not pushed off it: without the cap a 64^2 ball rolled
// away from its rest; docs/decisions/0014). A node that landed in this step (it started more
// than kLandingGap above the surface) carried an impact, not a weight: none (carried on, a stiff
// tube's impact forces threw it about and opened its joints by 2.7 cm). The support moves
// towards the target by theta = min(1, max(1 / sqrt(r_p), 2.5 / sqrt(N))), r_p = n . Mt_pp n /
// ((1 + dt alpha) m_p), N the nodes in contact: ch. 3's relaxation (decision 0013), a Jacobi
// sweep on the contact forces, one a step, damped where the skin couples the nodes strongly.
void ArticulatedBody::updateSupport(double dt) {
  const CharacterModel& m = *model_;
  std::vector<Vec3> next(state_.support.size(), Vec3::Zero());
  if (supportOn_ && !contacts_.empty()) {
    const BoneFrames f = frames();
    const double alpha = m.material.alpha, beta = m.material.beta;
    const double patch = 2.5 / std::sqrt(double(contacts_.size()));
    for (const CharacterContact& c : contacts_) {
      if (c.landing || c.movable) continue;  // (a body or character: its impulse is exchanged instead)
      const size_t p = size_t(c.node);
      const Influences& in = m.influence[p];
      Vec3 kz = Vec3::Zero();
      for (int e = m.stencil.start[p]; e < m.stencil.start[p + 1]; ++e) {
        const size_t j = size_t(m.stencil.column[size_t(e)]);
        kz += m.stiffness[size_t(e)] * (state_.q[j] + (beta + dt) * state_.qdot[j]);
      }
      const Vec3& qd = state_.qdot[p];
      Mat3 P = Mat3::Zero();
      Vec3 accel = Vec3::Zero();  // (the quadratic velocity terms, as freeVelocities)
      for (int a = 0; a < in.count; ++a) {
        const size_t b = size_t(in.bone[size_t(a)]);
        const double w = in.weight[size_t(a)];
        const Vec3 v = f.P[b] * (m.restSkin[p] + state_.q[p] - m.skeleton.bones[b].bindPosition);
        P += w * f.P[b];
        accel += w * (f.W[b].cross(f.W[b].cross(v)) + 2.0 * f.W[b].cross(f.P[b] * qd));
      }
      const Vec3 force = P * (-kz - m.nodeMass[p] * alpha * qd) + m.nodeMass[p] * (gravity_ - accel);
      const double target = std::min(c.lambda / dt, -c.normal.dot(force));
      const double old = state_.support[p].dot(c.normal);
      const double r = c.normal.dot(skinDiagInverse_[p].inverse() * c.normal) / ((1 + dt * alpha) * m.nodeMass[p]);
      const double theta = std::min(1.0, std::max(1 / std::sqrt(std::max(r, 1.0)), patch));
      const double push = old + theta * (target - old);
      if (push > 0 && std::isfinite(push)) next[p] = push * c.normal;
    }
  }
  state_.support.swap(next);
}

// Stage 18 (3.21): the nodes still under a surface after the step are moved onto it by the
// same rows at the position level (n . dx_p = depth, pushes only): the skeleton takes what
// the skin's stiffness gives it, the skin the rest (moving the skin alone, dq = P^-1 dx,
// stores the whole depth as strain: with a stiff skin and a long step, more energy than the
// fall had).
void ArticulatedBody::correct(const std::vector<const Collider*>& colliders,
                              const std::vector<const SurfaceTarget*>& targets, double share) {
  // (a limit's correction turns the bones beyond it, which may carry the next joint past its
  // own: the limits near theirs are rows too, taken in if the correction would cross them; the
  // passes repeat, each at the state the last left, while a limit is still past its slack, or a
  // node the last pass left out of its active set would still be deeper than its slack (by the
  // rows' linear prediction: then the contacts are detected again)
  bool contacts = true;
  for (int pass = 0; pass < 3; ++pass) {
    // (the nodes within 1 cm of a surface too, their rows out until the correction would carry
    // them into it: moved out of one surface, a node is not pushed into another)
    std::vector<ContactRow> rows = contacts ? detect(colliders, targets, 0, false, 0.01) : std::vector<ContactRow>{};
    double deepest = 0, worst = 0;
    for (ContactRow& r : rows) {
      r.active = r.depth > 0;
      deepest = std::max(deepest, r.depth);
      r.b = -(r.surface >= 0 && targets[size_t(r.surface)]->kind == SurfaceTarget::Kind::Character ? share : 1.0) *
            r.depth;
    }
    for (ContactRow& r : limitRows(nullptr, 0)) {
      r.active = r.depth > 0;
      worst = std::max(worst, r.depth);
      rows.push_back(r);
    }
    // (nothing under a surface or past a limit: nothing to correct; after a pass, what is left
    // within the slack stays)
    if (pass == 0 ? deepest <= kCorrectionStart && worst <= 0 : deepest <= kCorrectionSlack && worst <= kLimitSlack) return;
    std::vector<Vec3> moved(size_t(model_->nodeCount()), Vec3::Zero());  // (the rows' displacements)
    const Eigen::VectorXd dx = solveRows(rows, moved);
    addSkinChange(dx, moved, state_.q);  // (at the bones' frames the rows were made at)
    for (int b = 0; b < model_->boneCount(); ++b) {
      CoreState& s = state_.bones[size_t(b)];
      s.position += dx.segment<3>(6 * b);
      s.orientation = integrateBodyRotation(s.orientation, dx.segment<3>(6 * b + 3), 1.0);
    }
    contacts = false;
    for (const ContactRow& r : rows) {
      if (r.kind != ContactRow::Kind::Contact || r.active || r.fixed) continue;
      double moved = 0;  // (out of the surface)
      for (int a = 0; a < r.count; ++a) moved += r.j[size_t(a)].dot(dx.segment<6>(6 * r.bone[size_t(a)]));
      contacts = contacts || r.depth - moved > kCorrectionSlack;
    }
  }
}

double ArticulatedBody::deepestPenetration(const std::vector<const Collider*>& colliders,
                                           const std::vector<const SurfaceTarget*>& targets) const {
  double deepest = 0;
  for (const ContactRow& r : detect(colliders, targets, 0, false)) deepest = std::max(deepest, r.depth);
  return deepest;
}

void ArticulatedBody::correctAgainst(const std::vector<const Collider*>& colliders,
                                     const std::vector<const SurfaceTarget*>& targets, double share) {
  if (targets.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const Vec3 P0 = linearMomentum();
  correct(colliders, targets, share);
  const int nv = 6 * model_->boneCount();
  projectJoints(nv, nv + model_->skeleton.rowCount());
  // (moving the bones and the skin changes what the velocities carry, (4.5)'s omega x r: the
  // momentum is put back, as the step's projection does after its own correction)
  if (!pinned_ && springs_.empty()) {
    const Vec3 fix = (P0 - linearMomentum()) / model_->totalMass;
    for (CoreState& s : state_.bones) s.velocity += fix;
  }
  times_.response += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Given impulses: fixed rows at the nodes, each along its impulse (solveRows folds J_cond^T
// lambda into the bones' right-hand side and gives the skin its share, (4.32)).
void ArticulatedBody::applyNodeImpulses(const std::vector<std::pair<int, Vec3>>& impulses, double moveDt) {
  if (impulses.empty() || blocks_.empty()) return;
  const BoneFrames f = frames();
  std::vector<ContactRow> rows;
  for (const auto& [p, J] : impulses) {
    const double size = J.norm();
    if (!(size > 0)) continue;
    ContactRow r = contactRow(f, p, J / size);
    r.lambda = r.lower = size;
    r.fixed = true;
    rows.push_back(r);
  }
  if (rows.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const Vec3 P0 = linearMomentum();
  Vec3 total = Vec3::Zero();
  for (const auto& [p, J] : impulses) total += J;
  const int n = model_->nodeCount();
  std::vector<Vec3> given(size_t(n), Vec3::Zero()), dq(size_t(n), Vec3::Zero());
  const Eigen::VectorXd dv = solveRows(rows, given);
  addSkinChange(dv, given, dq);
  for (int b = 0; b < model_->boneCount(); ++b) {
    CoreState& s = state_.bones[size_t(b)];
    s.velocity += dv.segment<3>(6 * b);
    s.angularVelocity += dv.segment<3>(6 * b + 3);
    s.position += moveDt * dv.segment<3>(6 * b);
    s.orientation = integrateBodyRotation(s.orientation, dv.segment<3>(6 * b + 3), moveDt);
  }
  for (int p = 0; p < n; ++p) {
    state_.qdot[size_t(p)] += dq[size_t(p)];
    state_.q[size_t(p)] += moveDt * dq[size_t(p)];
  }
  // the linear momentum the impulses give, exactly (the step's projection, for the same reason)
  if (!pinned_ && springs_.empty()) {
    const Vec3 fix = (P0 + total - linearMomentum()) / model_->totalMass;
    for (CoreState& s : state_.bones) {
      s.velocity += fix;
      s.position += moveDt * fix;
    }
  }
  times_.response += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void ArticulatedBody::rememberOpenSides(const std::vector<const SurfaceTarget*>& targets) {
  const CharacterModel& m = *model_;
  std::vector<const SurfaceTarget*> open;
  for (const SurfaceTarget* t : targets)
    if (t->shape && !t->shape->hasInside()) open.push_back(t);
  state_.openSide.resize(size_t(m.nodeCount()), Vec3::Zero());
  if (open.empty()) {
    std::fill(state_.openSide.begin(), state_.openSide.end(), Vec3::Zero());
    return;
  }
  const BoneFrames f = frames();
  for (int p = 0; p < m.nodeCount(); ++p) {
    Vec3 x;
    nodeAt(f, p, &x, nullptr, nullptr);
    const SurfaceTarget::Side side{innerPointAt(f, p), state_.openSide[size_t(p)]};
    SurfaceTarget::Hit nearest;
    bool found = false;
    for (const SurfaceTarget* t : open) {
      SurfaceTarget::Hit h;
      if (!t->reaches(m.influence[size_t(p)]) || !t->query(x, 0.02, &h, &side)) continue;
      if (!found || std::abs(h.distance) < std::abs(nearest.distance)) nearest = h;
      found = true;
    }
    // (clearly outside: that side; within 1 mm of it, or inside: the side it had)
    if (!found)
      state_.openSide[size_t(p)] = Vec3::Zero();
    else if (nearest.distance > 1e-3)
      state_.openSide[size_t(p)] = nearest.normal;
  }
}

}  // namespace d2t
