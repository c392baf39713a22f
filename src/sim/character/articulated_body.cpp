// A soft articulated character's step (articulated_body.h): the free update and the joints.
// The queries and controls are in articulated_queries.cpp, the contact response in
// articulated_contact.cpp.
//
// Sections: construction and pose, preparation (the skin's factor, the bone pairs, the KKT's
// elimination order), joint rows and their projection, the step (stage 3's condensation,
// block-diagonal or exact; freeVelocities: stages 1-6 with the joints' and bones' springs;
// factorKkt; step).
#include "sim/character/articulated_body.h"

#include <Eigen/OrderingMethods>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace d2t {

using Mat6 = Eigen::Matrix<double, 6, 6>;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat63 = Eigen::Matrix<double, 6, 3>;

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// the two unit vectors perpendicular to a hinge's axis
void perpendiculars(const Vec3& e, Vec3& p1, Vec3& p2) {
  const Vec3 a = std::abs(e.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  p1 = e.cross(a).normalized();
  p2 = e.cross(p1).normalized();
}

}  // namespace

// A node's pose: u_p (pose space), per influence u_pi (bone frame), P_p, x_p.
struct ArticulatedBody::NodeFrame {
  std::array<Vec3, 4> v;  // per influence: the node from the bone's origin, world (R_i u_pi)
  Mat3 P = Mat3::Zero();
};

ArticulatedBody::ArticulatedBody(CharacterModelPtr model, const CharacterPlacement& placement)
    : model_(std::move(model)), placement_(placement) {
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), n = m.nodeCount();
  state_.bones.resize(size_t(k));
  state_.q.assign(size_t(n), Vec3::Zero());
  state_.qdot.assign(size_t(n), Vec3::Zero());
  state_.touching.assign(size_t(n), 0);
  state_.support.assign(size_t(n), Vec3::Zero());
  state_.openSide.assign(size_t(n), Vec3::Zero());
  targets_.resize(m.skeleton.joints.size());
  for (size_t j = 0; j < targets_.size(); ++j) targets_[j] = m.skeleton.joints[j].target;
  for (const Joint& j : m.skeleton.joints) gains_.push_back({j.stiffness, j.damping});
  pose(std::vector<Quat>(m.skeleton.joints.size(), Quat::Identity()));
  worldAnchor_.resize(m.skeleton.joints.size());
  for (size_t j = 0; j < m.skeleton.joints.size(); ++j) {
    worldAnchor_[j] = placement_.position + placement_.orientation * m.skeleton.joints[j].anchor;
    pinned_ = pinned_ || m.skeleton.joints[j].parent < 0;
    limited_ = limited_ || m.skeleton.joints[j].limit > 0;
  }
  prepareBones();
  mu_ = Eigen::VectorXd::Zero(m.skeleton.rowCount());
}

void ArticulatedBody::pose(const std::vector<Quat>& relative) {
  const CharacterModel& m = *model_;
  const Skeleton& sk = m.skeleton;
  if (relative.size() != sk.joints.size())
    throw std::invalid_argument("ArticulatedBody::pose: " + std::to_string(relative.size()) + " rotations for " +
                                std::to_string(sk.joints.size()) + " joints");
  const Quat& W = placement_.orientation;
  for (int b = 0; b < sk.boneCount(); ++b) {  // every bone rigidly placed first (the roots stay so)
    CoreState& s = state_.bones[size_t(b)];
    s.orientation = W * sk.bones[size_t(b)].bindOrientation;
    s.position = placement_.position + W * sk.bones[size_t(b)].bindPosition;
  }
  for (int jn : sk.treeOrder(m.name)) {
    const Joint& j = sk.joints[size_t(jn)];
    const Bone& cb = sk.bones[size_t(j.child)];
    const Quat Pi = j.parent < 0 ? W : state_.bones[size_t(j.parent)].orientation * sk.bones[size_t(j.parent)].bindOrientation.conjugate();
    const Vec3 anchor = j.parent < 0 ? Vec3(placement_.position + W * j.anchor) : parentAnchor(jn);
    CoreState& s = state_.bones[size_t(j.child)];
    s.orientation = (Pi * relative[size_t(jn)] * cb.bindOrientation).normalized();
    s.position = anchor - s.orientation * (cb.bindOrientation.conjugate() * (j.anchor - cb.bindPosition));
  }
  for (CoreState& s : state_.bones) {
    s.velocity = placement_.velocity + placement_.angularVelocity.cross(s.position - placement_.position);
    s.angularVelocity = s.orientation.conjugate() * placement_.angularVelocity;
  }
  std::fill(state_.q.begin(), state_.q.end(), Vec3::Zero());
  std::fill(state_.qdot.begin(), state_.qdot.end(), Vec3::Zero());
  std::fill(state_.touching.begin(), state_.touching.end(), 0);
  std::fill(state_.support.begin(), state_.support.end(), Vec3::Zero());
  std::fill(state_.openSide.begin(), state_.openSide.end(), Vec3::Zero());
}

// ---- preparation ------------------------------------------------------------------------------

void ArticulatedBody::prepareSkin(double dt) {
  if (dt == preparedDt_) return;
  const CharacterModel& m = *model_;
  const int n = m.nodeCount();
  if (skinOrder_.empty()) {  // the nodes' elimination order: AMD on the stencil's graph
    std::vector<Eigen::Triplet<double>> g;
    g.reserve(m.stencil.column.size());
    for (int i = 0; i < n; ++i)
      for (int e = m.stencil.start[size_t(i)]; e < m.stencil.start[size_t(i) + 1]; ++e)
        g.emplace_back(i, m.stencil.column[size_t(e)], 1.0);
    Eigen::SparseMatrix<double> G(n, n);
    G.setFromTriplets(g.begin(), g.end());
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P;
    Eigen::AMDOrdering<int>()(G, P);
    skinOrder_.resize(size_t(n));
    for (int i = 0; i < n; ++i) skinOrder_[size_t(P.indices()[i])] = i;
  }
  // Mt_s = (1 + dt alpha) M + (dt beta + dt^2) K, its lower triangle in that order (a node's three
  // dofs together: the factor's supernodes are runs of whole nodes)
  const double a = 1 + dt * m.material.alpha, b = dt * m.material.beta + dt * dt;
  std::vector<std::pair<int, int>> entries;
  std::vector<double> values;
  entries.reserve(m.stencil.column.size() * 6);
  values.reserve(m.stencil.column.size() * 6);
  skinDiagInverse_.resize(size_t(n));
  for (int i = 0; i < n; ++i)
    for (int e = m.stencil.start[size_t(i)]; e < m.stencil.start[size_t(i) + 1]; ++e) {
      const int j = m.stencil.column[size_t(e)];
      Mat3 blk = b * m.stiffness[size_t(e)];
      if (j == i) {
        blk += a * m.nodeMass[size_t(i)] * Mat3::Identity();
        skinDiagInverse_[size_t(i)] = blk.inverse();
      }
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          const int I = 3 * skinOrder_[size_t(i)] + r, J = 3 * skinOrder_[size_t(j)] + c;
          if (I < J) continue;
          entries.push_back({I, J});
          values.push_back(blk(r, c));
        }
    }
  if (skinSlots_.empty()) skinSlots_ = skinFactor_.analyze(3 * n, entries);  // (one pattern for every dt)
  double* value = skinFactor_.clearStorage();
  for (size_t k = 0; k < values.size(); ++k) value[skinSlots_[k]] += values[k];
  if (!skinFactor_.factorize())
    throw std::runtime_error("character '" + m.name + "': the skin's implicit matrix could not be factored");
  preparedDt_ = dt;
}

Eigen::VectorXd ArticulatedBody::solveSkin(const Eigen::VectorXd& rhs) const {
  const int n = model_->nodeCount();
  Eigen::VectorXd p(rhs.size()), x(rhs.size());
  for (int i = 0; i < n; ++i) p.segment<3>(3 * skinOrder_[size_t(i)]) = rhs.segment<3>(3 * i);
  skinFactor_.solve(p);
  for (int i = 0; i < n; ++i) x.segment<3>(3 * i) = p.segment<3>(3 * skinOrder_[size_t(i)]);
  return x;
}

void ArticulatedBody::prepareBones() {
  const CharacterModel& m = *model_;
  const int k = m.boneCount();
  pairs_.clear();
  kktKeys_.clear();  // (a new pattern: analysed at the next factorization)
  pairIndex_.assign(size_t(k) * size_t(k), -1);
  const auto add = [&](int i, int j) {
    if (pairIndex_[size_t(i) * size_t(k) + size_t(j)] >= 0) return;
    pairIndex_[size_t(i) * size_t(k) + size_t(j)] = int(pairs_.size());
    pairs_.push_back({i, j});
  };
  for (int i = 0; i < k; ++i) add(i, i);
  if (exact_)  // (Mt_s^-1 couples every bone with every other)
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) add(i, j);
  for (const Influences& in : m.influence)
    for (int a = 0; a < in.count; ++a)
      for (int b = 0; b < in.count; ++b) add(in.bone[size_t(a)], in.bone[size_t(b)]);
  for (const Joint& j : m.skeleton.joints)
    if (j.parent >= 0) {
      add(j.parent, j.child);
      add(j.child, j.parent);
    }
  // the KKT's elimination order: from the leaves up, each bone's 6 dofs and then the rows of
  // its joint to its parent. A row's pivot then comes after its child's, -(eps + J_c Mh_c^-1
  // J_c^T), well away from zero (any order factors a quasi-definite matrix in exact
  // arithmetic, but a row first has the pivot -eps: 1e-7 of error in free fall); and the fill
  // stays that of the tree (the natural order, the bones first, made the rows' block dense:
  // 1.2 ms for the deer's 34 bones, now 0.15)
  const int nv = 6 * k;
  std::vector<int> rowStart(m.skeleton.joints.size() + 1, nv);
  for (size_t j = 0; j < m.skeleton.joints.size(); ++j) rowStart[j + 1] = rowStart[j] + m.skeleton.joints[j].rows();
  order_.assign(size_t(rowStart.back()), -1);
  int next = 0;
  std::vector<char> placed(static_cast<size_t>(k), 0);
  const auto placeBone = [&](int b) {
    if (placed[size_t(b)]) return;
    placed[size_t(b)] = 1;
    for (int c = 0; c < 6; ++c) order_[size_t(6 * b + c)] = next++;
  };
  std::vector<int> tree = m.skeleton.treeOrder("character '" + m.name + "'");
  for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
    placeBone(m.skeleton.joints[size_t(*it)].child);
    for (int r = rowStart[size_t(*it)]; r < rowStart[size_t(*it) + 1]; ++r) order_[size_t(r)] = next++;
  }
  for (int b = 0; b < k; ++b) placeBone(b);  // (the roots)
}

Eigen::VectorXd ArticulatedBody::solveKkt(const Eigen::VectorXd& rhs) const {
  Eigen::VectorXd p(rhs.size()), x(rhs.size());
  for (Eigen::Index i = 0; i < rhs.size(); ++i) p(order_[size_t(i)]) = rhs(i);
  kkt_.solve(p);
  for (Eigen::Index i = 0; i < rhs.size(); ++i) x(i) = p(order_[size_t(i)]);
  return x;
}

// M_c(i, i) (D2): [m_L + S_m, -[S_v]x R ; R^T [S_v]x, I_L + R^T S_vv R] in the bone's dofs
// (cdot world, omega bone frame), from the lumped skin's sums by the weights: S_m = sum m w,
// S_v = sum m w v, S_vv = sum m w [v]x^T [v]x, v = R_i u_pi (world).
Mat6 ArticulatedBody::massBlock(int i, double Sm, const Vec3& Sv, const Mat3& Svv, const Mat3& R) const {
  Mat6 M;
  M.topLeftCorner<3, 3>() = (model_->linkMass[size_t(i)] + Sm) * Mat3::Identity();
  M.topRightCorner<3, 3>() = -skew(Sv) * R;
  M.bottomLeftCorner<3, 3>() = R.transpose() * skew(Sv);
  M.bottomRightCorner<3, 3>() = model_->linkInertia[size_t(i)] + R.transpose() * Svv * R;
  return M;
}

// ---- joint rows -----------------------------------------------------------------------------------

std::vector<ArticulatedBody::JointRow> ArticulatedBody::jointRows() const {
  const Skeleton& sk = model_->skeleton;
  std::vector<JointRow> out;
  out.reserve(size_t(sk.rowCount()));
  const auto Rof = [&](int b) { return state_.bones[size_t(b)].orientation.toRotationMatrix(); };
  const auto Roof = [&](int b) { return sk.bones[size_t(b)].bindOrientation.conjugate().toRotationMatrix(); };
  for (size_t jn = 0; jn < sk.joints.size(); ++jn) {
    const Joint& j = sk.joints[jn];
    const int pi = j.parent, ci = j.child;
    const Mat3 Rc = Rof(ci), Roc = Roof(ci);
    const Mat3 Rp = pi >= 0 ? Rof(pi) : Mat3::Identity(), Rop = pi >= 0 ? Roof(pi) : Mat3::Identity();
    const Vec3 g = parentAnchor(int(jn)) - childAnchor(int(jn));
    const Mat3 Jc = Rc * skew(Roc * (j.anchor - sk.bones[size_t(ci)].bindPosition));
    const Mat3 Jp = pi >= 0 ? Mat3(-Rp * skew(Rop * (j.anchor - sk.bones[size_t(pi)].bindPosition))) : Mat3::Zero();
    for (int r = 0; r < 3; ++r) {
      JointRow x{pi, ci, {}, {}, g(r)};
      x.jp << Vec3::Unit(r).transpose(), Jp.row(r);
      x.jc << -Vec3::Unit(r).transpose(), Jc.row(r);
      out.push_back(x);
    }
    const Mat3 Pp = pi < 0 ? placement_.orientation.toRotationMatrix() : Mat3(Rp * Rop), Pc = Rc * Roc;
    if (j.type == JointType::Hinge) {
      Vec3 p1, p2;
      const Vec3 e = j.axis.normalized();
      perpendiculars(e, p1, p2);
      const Vec3 E = Pc * e;
      for (const Vec3& pk : {p1, p2}) {
        const Vec3 Pk = Pp * pk, a = Pk.cross(E);
        JointRow x{pi, ci, {}, {}, Pk.dot(E)};
        x.jp << 0, 0, 0, (Rp.transpose() * a).transpose();
        x.jc << 0, 0, 0, -(Rc.transpose() * a).transpose();
        out.push_back(x);
      }
    } else if (j.type == JointType::Fixed) {
      Joint fixed = j;
      fixed.target = Quat::Identity();
      const Vec3 phi = jointError(sk, fixed, state_.bones, placement_.orientation);
      for (int r = 0; r < 3; ++r) {
        JointRow x{pi, ci, {}, {}, phi(r)};
        x.jp << 0, 0, 0, -Rp.row(r);
        x.jc << 0, 0, 0, Rc.row(r);
        out.push_back(x);
      }
    }
  }
  return out;
}

// The joints' drift after the positions' update, taken out by one projection through the
// step's factored system: (dx, nu) with -J dx = g (post-stabilisation; the Baumgarte term of
// the velocity rows alone leaves a drift of order dt^2 |omega|^2 r per step).
void ArticulatedBody::projectJoints(int nv, int size) {
  // (a Newton step on the rotations is first order: repeated, at most 3 times, while a joint is
  // still more than 1e-7 m apart; each pass one solve with the factor already made)
  for (int pass = 0; pass < 3; ++pass) {
    const std::vector<JointRow> jr = jointRows();
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
    double worst = 0;
    for (size_t r = 0; r < jr.size(); ++r) {
      rhs(nv + int(r)) = jr[r].g;
      worst = std::max(worst, std::abs(jr[r].g));
    }
    if (pass > 0 && worst < 1e-7) return;
    const Eigen::VectorXd d = solveKkt(rhs);
    for (int b = 0; b < model_->boneCount(); ++b) {
      CoreState& s = state_.bones[size_t(b)];
      s.position += d.segment<3>(6 * b);
      s.orientation = integrateBodyRotation(s.orientation, d.segment<3>(6 * b + 3), 1.0);
    }
  }
}

// ---- the step -------------------------------------------------------------------------------------

// Stage 3's sums with the block-diagonal Mh_p^-1 (D4): in the world frame (rotational dofs
// Omega = R omega), B_pi = [P ; [v]x P] and with G = P Mh_p^-1 P^T the pair (a, c) of node p's
// influences gets m^2 w_a w_c [G, -G [v_c]x ; [v_a]x G, -[v_a]x G [v_c]x], summed over the nodes
// into the block of the bone pair (i, j), i <= j (a pair taken in that order: a on the lower
// bone, so that no block is added transposed), and bw = sum m w B Mh_p^-1 Ft_s. O(n s^2).
void ArticulatedBody::condenseBlockDiagonal(const std::vector<NodeFrame>& frame, const std::vector<Vec3>& Fs,
                                            std::vector<Mat6>& W, std::vector<Vec6>& bw) const {
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), n = m.nodeCount();
  for (int p = 0; p < n; ++p) {
    const Influences& in = m.influence[size_t(p)];
    const NodeFrame& f = frame[size_t(p)];
    const double mp = m.nodeMass[size_t(p)];
    const Mat3 G = f.P * skinDiagInverse_[size_t(p)] * f.P.transpose();
    const Vec3 y = f.P * (skinDiagInverse_[size_t(p)] * Fs[size_t(p)]);
    std::array<Mat3, 4> E;  // G [v_c]x = -([v_c]x G)^T (G symmetric): its columns' negatives are v_c x G's rows
    for (int a = 0; a < in.count; ++a) {
      const Vec3& v = f.v[size_t(a)];
      for (int r = 0; r < 3; ++r) E[size_t(a)].row(r) = -v.cross(G.col(r)).transpose();
      const double mw = mp * in.weight[size_t(a)];
      bw[size_t(in.bone[size_t(a)])].head<3>() += mw * y;
      bw[size_t(in.bone[size_t(a)])].tail<3>() += mw * v.cross(y);
    }
    for (int a = 0; a < in.count; ++a)
      for (int c = a; c < in.count; ++c) {
        const bool swap = in.bone[size_t(a)] > in.bone[size_t(c)];
        const int lo = swap ? c : a, hi = swap ? a : c;
        const double s2 = mp * mp * in.weight[size_t(a)] * in.weight[size_t(c)];
        Mat6& x = W[size_t(pairIndex_[size_t(in.bone[size_t(lo)]) * size_t(k) + size_t(in.bone[size_t(hi)])])];
        const Mat3& Eh = E[size_t(hi)];
        const Vec3& vl = f.v[size_t(lo)];
        x.topLeftCorner<3, 3>() += s2 * G;
        x.topRightCorner<3, 3>() -= s2 * Eh;
        x.bottomLeftCorner<3, 3>() -= s2 * E[size_t(lo)].transpose();  // [v_lo]x G = -(G [v_lo]x)^T
        for (int col = 0; col < 3; ++col)                              // -[v_lo]x G [v_hi]x
          x.block<3, 1>(3, 3 + col) -= s2 * vl.cross(Eh.col(col));
      }
  }
}

// The condensation with Mt_s^-1 itself (D4's "full"): M_sb's 6k columns (node p's rows for
// bone i: m_p w_pi P_p^T [I, -[v_pi]x], world rotational dofs) solved through the skin's
// factor, W = M_bs Mt_s^-1 M_sb pair by pair and bw = M_bs Mt_s^-1 Ft_s. 6k + 1 solves a step.
void ArticulatedBody::condenseExactly(const std::vector<NodeFrame>& frame, const std::vector<Vec3>& Fs,
                                      std::vector<Mat6>& W, std::vector<Vec6>& bw) const {
  const CharacterModel& m = *model_;
  const int k = m.boneCount(), n = m.nodeCount();
  Eigen::MatrixXd Msb = Eigen::MatrixXd::Zero(3 * n, 6 * k);
  Eigen::VectorXd f(3 * n);
  for (int p = 0; p < n; ++p) {
    const Influences& in = m.influence[size_t(p)];
    const NodeFrame& fr = frame[size_t(p)];
    for (int a = 0; a < in.count; ++a) {
      const int b = in.bone[size_t(a)];
      const double mw = m.nodeMass[size_t(p)] * in.weight[size_t(a)];
      Msb.block<3, 3>(3 * p, 6 * b) += mw * fr.P.transpose();
      Msb.block<3, 3>(3 * p, 6 * b + 3) -= mw * fr.P.transpose() * skew(fr.v[size_t(a)]);
    }
    f.segment<3>(3 * p) = Fs[size_t(p)];
  }
  Eigen::MatrixXd Z(3 * n, 6 * k);
  for (int c = 0; c < 6 * k; ++c) Z.col(c) = solveSkin(Msb.col(c));
  const Eigen::MatrixXd full = Msb.transpose() * Z;
  const Eigen::VectorXd y = Msb.transpose() * solveSkin(f);
  for (size_t e = 0; e < pairs_.size(); ++e) {
    const auto [i, j] = pairs_[e];
    if (i <= j) W[e] = full.block<6, 6>(6 * i, 6 * j);
  }
  for (int b = 0; b < k; ++b) bw[size_t(b)] = y.segment<6>(6 * b);
}

void ArticulatedBody::freeVelocities(double dt, const Vec3& gravity) {
  const auto t0 = std::chrono::steady_clock::now();
  const CharacterModel& m = *model_;
  const Skeleton& sk = m.skeleton;
  const int k = m.boneCount(), n = m.nodeCount(), rows = sk.rowCount();
  prepareSkin(dt);
  std::vector<Mat3> R(static_cast<size_t>(k)), Ro(static_cast<size_t>(k));
  for (int b = 0; b < k; ++b) {
    R[size_t(b)] = state_.bones[size_t(b)].orientation.toRotationMatrix();
    Ro[size_t(b)] = sk.bones[size_t(b)].bindOrientation.conjugate().toRotationMatrix();
  }

  // ---- stage 1-2: the pose, the forces (Ft_c, Ft_s) ---------------------------------------------
  // (the bones' sums in the world frame: force, torque about the origin, the lumped mass's
  // sum m w, first sum m w v and second sum m w [v]x^T [v]x, v = R_i u_pi)
  std::vector<Mat3> Pb(static_cast<size_t>(k));
  std::vector<Vec3> Om(static_cast<size_t>(k)), Ft(static_cast<size_t>(k)), Tq(static_cast<size_t>(k), Vec3::Zero()),
      Sv(static_cast<size_t>(k), Vec3::Zero());
  std::vector<double> Sm(static_cast<size_t>(k), 0.0);
  std::vector<Mat3> Svv(static_cast<size_t>(k), Mat3::Zero());
  for (int b = 0; b < k; ++b) {
    Pb[size_t(b)] = R[size_t(b)] * Ro[size_t(b)];
    Om[size_t(b)] = R[size_t(b)] * state_.bones[size_t(b)].angularVelocity;
    Ft[size_t(b)] = m.linkMass[size_t(b)] * gravity;
  }
  std::vector<NodeFrame> frame(static_cast<size_t>(n));
  std::vector<Vec3> Fs(static_cast<size_t>(n)), tmp(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) {
    const Influences& in = m.influence[size_t(p)];
    NodeFrame& f = frame[size_t(p)];
    const Vec3 u = m.restSkin[size_t(p)] + state_.q[size_t(p)];
    const Vec3& qd = state_.qdot[size_t(p)];
    const double mp = m.nodeMass[size_t(p)];
    Vec3 accel = Vec3::Zero();  // a_p = sum w R_i [w x (w x u_pi) + 2 w x Ro_i qdot_p]: the quadratic velocity terms
    for (int a = 0; a < in.count; ++a) {
      const size_t b = size_t(in.bone[size_t(a)]);
      const double w = in.weight[size_t(a)];
      const Vec3 v = Pb[b] * (u - sk.bones[b].bindPosition);
      f.v[size_t(a)] = v;
      f.P += w * Pb[b];
      accel += w * (Om[b].cross(Om[b].cross(v)) + 2.0 * Om[b].cross(Pb[b] * qd));
    }
    const Vec3 fp = gravity - accel + state_.support[size_t(p)] / mp;  // (L_p^T f / m_p: the support)
    for (int a = 0; a < in.count; ++a) {
      const size_t b = size_t(in.bone[size_t(a)]);
      const double mw = mp * in.weight[size_t(a)];
      const Vec3& v = f.v[size_t(a)];
      Ft[b] += mw * fp;
      Tq[b] += mw * v.cross(fp);
      Sm[b] += mw;
      Sv[b] += mw * v;
      Svv[b] += mw * (v.squaredNorm() * Mat3::Identity() - v * v.transpose());  // [v]x^T [v]x
    }
    Fs[size_t(p)] = mp * (f.P.transpose() * fp) - mp * m.material.alpha * qd;
    tmp[size_t(p)] = state_.q[size_t(p)] + (m.material.beta + dt) * qd;
  }
  std::vector<Vec3> kq;  // the skin's elastic force -K_s (q + (beta + dt) qdot) (4.16)
  m.multiplyK(tmp, kq);
  for (int p = 0; p < n; ++p) Fs[size_t(p)] -= kq[size_t(p)];
  std::vector<Vec6> Fc(static_cast<size_t>(k));
  for (int b = 0; b < k; ++b) {
    const CoreState& s = state_.bones[size_t(b)];
    Fc[size_t(b)] << Ft[size_t(b)], R[size_t(b)].transpose() * Tq[size_t(b)] -
                                        s.angularVelocity.cross(m.linkInertia[size_t(b)] * s.angularVelocity);
  }
  // M_c (lumped, D2) and the condensed blocks, pair by pair
  std::vector<Mat6> blocks(pairs_.size(), Mat6::Zero());
  const auto blockOf = [&](int i, int j) -> Mat6& { return blocks[size_t(pairIndex_[size_t(i) * size_t(k) + size_t(j)])]; };
  for (int b = 0; b < k; ++b) blockOf(b, b) += massBlock(b, Sm[size_t(b)], Sv[size_t(b)], Svv[size_t(b)], R[size_t(b)]);
  // joint springs, implicit (G = [0, -R_i | 0, R_j])
  for (size_t jn = 0; jn < sk.joints.size(); ++jn) {
    const Joint& j = sk.joints[jn];
    const auto [stiffness, damping] = gains_[jn];
    if (stiffness <= 0 && damping <= 0) continue;
    Joint jt = j;
    jt.target = targets_[jn];
    const Vec3 phi = jointError(sk, jt, state_.bones, placement_.orientation);
    const CoreState& sc = state_.bones[size_t(j.child)];
    Vec3 rel = R[size_t(j.child)] * sc.angularVelocity;
    if (j.parent >= 0) rel -= R[size_t(j.parent)] * state_.bones[size_t(j.parent)].angularVelocity;
    const Vec3 torque = -stiffness * phi - (damping + dt * stiffness) * rel;  // on the child, world
    const double h = dt * damping + dt * dt * stiffness;
    Fc[size_t(j.child)].tail<3>() += R[size_t(j.child)].transpose() * torque;
    blockOf(j.child, j.child).bottomRightCorner<3, 3>() += h * Mat3::Identity();  // R^T R
    if (j.parent >= 0) {
      Fc[size_t(j.parent)].tail<3>() -= R[size_t(j.parent)].transpose() * torque;
      blockOf(j.parent, j.parent).bottomRightCorner<3, 3>() += h * Mat3::Identity();
      const Mat3 x = -h * R[size_t(j.parent)].transpose() * R[size_t(j.child)];
      blockOf(j.parent, j.child).bottomRightCorner<3, 3>() += x;
      blockOf(j.child, j.parent).bottomRightCorner<3, 3>() += x.transpose();
    }
  }

  // springs on bones, implicit: the point's world velocity is J (cdot, omega), J = [I, -R [r]x]
  // (r: the point in the bone's frame), so K = k J^T J, D = c J^T J as the joints' springs
  for (const BoneSpring& sp : springs_) {
    const int b = sp.bone;
    const CoreState& s = state_.bones[size_t(b)];
    const Vec3 r = sk.bones[size_t(b)].bindOrientation.conjugate() * (sp.point - sk.bones[size_t(b)].bindPosition);
    Eigen::Matrix<double, 3, 6> J;
    J << Mat3::Identity(), -R[size_t(b)] * skew(r);
    const Vec3 x = s.position + R[size_t(b)] * r, v = J * (Vec6() << s.velocity, s.angularVelocity).finished();
    const Vec3 f = -sp.stiffness * (x - sp.anchor) - (sp.damping + dt * sp.stiffness) * v;
    Fc[size_t(b)] += J.transpose() * f;
    blockOf(b, b) += (dt * sp.damping + dt * dt * sp.stiffness) * J.transpose() * J;
  }

  // ---- stage 3 (setup): condense the skin onto the bones ----------------------------------------
  // W = M_bs Mh_s^-1 M_sb pair by pair (world frame), taken to the bones' frames (diag(I, R_i)^T
  // W diag(I, R_j)) once per pair, and subtracted from Mt_c (4.24); bw likewise for b_c (4.25).
  // The exact condensation (Mt_s^-1) solves the free update; the response's rows (4.30)-(4.32)
  // take the skin block-diagonally, so they keep the block-diagonal Mh_cond (blocks_).
  const auto condense = [&](const std::vector<Mat6>& W, std::vector<Mat6>& to) {
    to = blocks;
    for (size_t e = 0; e < pairs_.size(); ++e) {
      const auto [i, j] = pairs_[e];
      if (i > j) continue;
      const Mat3 &Ri = R[size_t(i)], &Rj = R[size_t(j)];
      Mat6 x;
      x.topLeftCorner<3, 3>() = W[e].topLeftCorner<3, 3>();
      x.topRightCorner<3, 3>() = W[e].topRightCorner<3, 3>() * Rj;
      x.bottomLeftCorner<3, 3>() = Ri.transpose() * W[e].bottomLeftCorner<3, 3>();
      x.bottomRightCorner<3, 3>() = Ri.transpose() * W[e].bottomRightCorner<3, 3>() * Rj;
      if (i == j) x = 0.5 * (x + x.transpose());  // (symmetric to rounding)
      to[e] -= x;
      if (i != j) to[size_t(pairIndex_[size_t(j) * size_t(k) + size_t(i)])] -= x.transpose();
    }
  };
  std::vector<Mat6> W(pairs_.size(), Mat6::Zero());
  std::vector<Vec6> bw(static_cast<size_t>(k), Vec6::Zero());  // sum m w B H Ft_s (world)
  if (!rigidSkin_) condenseBlockDiagonal(frame, Fs, W, bw);  // (a rigid skin: the bones' M_c and Ft_c alone)
  condense(W, blocks_);
  std::vector<Mat6> exact;
  if (exact_ && !rigidSkin_) {
    std::fill(W.begin(), W.end(), Mat6::Zero());
    std::fill(bw.begin(), bw.end(), Vec6::Zero());
    condenseExactly(frame, Fs, W, bw);
    condense(W, exact);
  }
  std::vector<Vec6> bc(static_cast<size_t>(k));
  for (int b = 0; b < k; ++b) {
    bc[size_t(b)] = Fc[size_t(b)];
    bc[size_t(b)].head<3>() -= bw[size_t(b)].head<3>();
    bc[size_t(b)].tail<3>() -= R[size_t(b)].transpose() * bw[size_t(b)].tail<3>();
  }
  const auto t1 = std::chrono::steady_clock::now();
  times_.setup += std::chrono::duration<double, std::milli>(t1 - t0).count();

  // ---- stage 4 (bones): the KKT system of the condensed bones and the joints ----------------------
  const int nv = 6 * k, size = nv + rows;
  double trace = 0;
  for (int b = 0; b < k; ++b) trace += blocks_[size_t(pairIndex_[size_t(b) * size_t(k) + size_t(b)])].trace();
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
  for (int b = 0; b < k; ++b) rhs.segment<6>(6 * b) = dt * bc[size_t(b)];
  const double eps = 1e-10 * trace / nv, baumgarte = 0.2 / dt;  // (4.17)
  const std::vector<JointRow> jr = jointRows();
  rowTriplets_.clear();
  for (int r = 0; r < rows; ++r) {
    const JointRow& x = jr[size_t(r)];
    for (int side = 0; side < 2; ++side) {
      const int bone = side == 0 ? x.parent : x.child;
      if (bone < 0) continue;
      const Eigen::Matrix<double, 1, 6>& J = side == 0 ? x.jp : x.jc;
      const CoreState& b = state_.bones[size_t(bone)];
      for (int c = 0; c < 6; ++c) rowTriplets_.emplace_back(nv + r, 6 * bone + c, -J(c));
      rhs(nv + r) += J.head<3>().dot(b.velocity) + J.tail<3>().dot(b.angularVelocity);
    }
    rhs(nv + r) += baumgarte * x.g;
  }
  for (int r = nv; r < size; ++r) rowTriplets_.emplace_back(r, r, -eps);
  factorKkt(exact_ ? exact : blocks_);
  const Eigen::VectorXd sol = solveKkt(rhs);
  mu_ = sol.tail(rows);
  const auto t2 = std::chrono::steady_clock::now();
  times_.bones += std::chrono::duration<double, std::milli>(t2 - t1).count();

  // ---- stage 5 (skin): Mt_s dv_s = dt Ft_s - M_bs^T dv_c ------------------------------------------------
  Eigen::VectorXd srhs(3 * n);
  std::vector<Vec3> dOm(static_cast<size_t>(k));  // the bones' world angular velocity changes
  for (int b = 0; b < k; ++b) dOm[size_t(b)] = R[size_t(b)] * sol.segment<3>(6 * b + 3);
  for (int p = 0; p < n; ++p) {
    const Influences& in = m.influence[size_t(p)];
    const NodeFrame& f = frame[size_t(p)];
    Vec3 a = Vec3::Zero();  // sum w A_pi dv_c,i = sum w (dcdot_i + dOmega_i x v_i)
    for (int c = 0; c < in.count; ++c) {
      const size_t b = size_t(in.bone[size_t(c)]);
      a += in.weight[size_t(c)] * (sol.segment<3>(6 * int(b)) + dOm[b].cross(f.v[size_t(c)]));
    }
    srhs.segment<3>(3 * p) = dt * Fs[size_t(p)] - m.nodeMass[size_t(p)] * (f.P.transpose() * a);
  }
  const Eigen::VectorXd dvs = rigidSkin_ ? Eigen::VectorXd::Zero(3 * n) : solveSkin(srhs);
  times_.skin += msSince(t2);

  // ---- stage 6: the velocities (the positions follow in step()) -----------------------------------
  for (int b = 0; b < k; ++b) {
    CoreState& s = state_.bones[size_t(b)];
    s.velocity += sol.segment<3>(6 * b);
    s.angularVelocity += sol.segment<3>(6 * b + 3);
  }
  for (int p = 0; p < n; ++p) state_.qdot[size_t(p)] += dvs.segment<3>(3 * p);
}

void ArticulatedBody::integratePositions(const CharacterState& start, double dt) {
  for (size_t b = 0; b < state_.bones.size(); ++b) {
    CoreState& s = state_.bones[b];
    s.position = start.bones[b].position + dt * s.velocity;
    s.orientation = integrateBodyRotation(start.bones[b].orientation, s.angularVelocity, dt);
  }
  for (size_t p = 0; p < state_.q.size(); ++p) state_.q[p] = start.q[p] + dt * state_.qdot[p];
}

void ArticulatedBody::factorKkt(const std::vector<Mat6>& blocks) {
  const int size = 6 * model_->boneCount() + model_->skeleton.rowCount();
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(blocks.size() * 21 + rowTriplets_.size());
  for (size_t e = 0; e < pairs_.size(); ++e) {
    const auto [i, j] = pairs_[e];
    if (i < j) continue;  // (the lower triangle)
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        if (i != j || r >= c) t.emplace_back(6 * i + r, 6 * j + c, blocks[e](r, c));
  }
  t.insert(t.end(), rowTriplets_.begin(), rowTriplets_.end());
  bool same = kkt_.rows() == size && kktKeys_.size() == t.size();
  for (size_t k = 0; k < t.size(); ++k) {  // (into the elimination order, the lower triangle)
    const int r = order_[size_t(t[k].row())], c = order_[size_t(t[k].col())];
    t[k] = Eigen::Triplet<double>(std::max(r, c), std::min(r, c), t[k].value());
    same = same && kktKeys_[k] == std::make_pair(t[k].row(), t[k].col());
  }
  if (!same) {  // (a new pattern: its analysis; else the values into the last one's slots)
    kktKeys_.resize(t.size());
    for (size_t k = 0; k < t.size(); ++k) kktKeys_[k] = {t[k].row(), t[k].col()};
    kktSlots_ = kkt_.analyze(size, kktKeys_);
  }
  double* value = kkt_.clearStorage();
  for (size_t k = 0; k < t.size(); ++k) value[kktSlots_[k]] += t[k].value();
  ++times_.kktFactorizations;
  times_.kktAnalyses = kkt_.analyses();
  if (!kkt_.factorize())
    throw std::runtime_error("character '" + model_->name + "': the bones' system could not be factored");
}

void ArticulatedBody::step(double dt, const Vec3& gravity, const std::vector<const Collider*>& colliders,
                           const std::vector<const SurfaceTarget*>& targets) {
  const CharacterModel& m = *model_;
  const CharacterState start = state_;
  gravity_ = gravity;
  const Vec3 P0 = pinned_ ? Vec3::Zero() : linearMomentum();
  freeVelocities(dt, gravity);
  integratePositions(start, dt);
  contacts_.clear();
  rowImpulse_.setZero();
  if (!colliders.empty() || !targets.empty() || limited_ || drag_.node >= 0) {
    const auto t0 = std::chrono::steady_clock::now();
    respond(dt, start, colliders, targets);
    times_.response += msSince(t0);
  }
  Vec3 impulse = rowImpulse_;  // (the velocity rows' only: the correction's are displacements)
  for (const Vec3& f : start.support) impulse += dt * f;
  updateSupport(dt);
  const int nv = 6 * m.boneCount();
  projectJoints(nv, nv + m.skeleton.rowCount());
  if (!contacts_.empty() || limited_) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<const SurfaceTarget*> rigid;  // (the movable: World's correctAgainst, after the exchange)
    for (const SurfaceTarget* t : targets)
      if (!t->movable()) rigid.push_back(t);
    correct(colliders, rigid, 1.0);
    projectJoints(nv, nv + m.skeleton.rowCount());  // (the correction's rows are linear: its drift, out)
    times_.response += msSince(t0);
  }
  rememberOpenSides(targets);
  // the linear momentum that gravity and the rows (contacts, drag) give, on every bone alike; not
  // with a spring on a bone (its impulse, k dt times a position, is not known to the rounding
  // that the projection needs: with k = 1e7 N/m it blew the step up) nor a joint to the world
  if (!pinned_ && springs_.empty()) {
    const Vec3 fix = (P0 + dt * m.totalMass * gravity + impulse - linearMomentum()) / m.totalMass;
    for (CoreState& s : state_.bones) {  // (x_n+1 = x_n + dt v_n+1 kept: the positions move with it)
      s.velocity += fix;
      s.position += dt * fix;
    }
  }
  ++times_.steps;
  times_.maxContacts = std::max(times_.maxContacts, int(contacts_.size()));
}

}  // namespace d2t
