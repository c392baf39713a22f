#include "sim/model/static_reference.h"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace d2t {

namespace {

using SpMat = Eigen::SparseMatrix<double>;
using Eigen::VectorXd;

std::vector<Vec3> toNodes(const VectorXd& x) {
  std::vector<Vec3> out(x.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = x.segment<3>(3 * i);
  return out;
}

// (3n x 3n) block diagonal matrix with the same 3x3 block b on every node
SpMat blockDiagonal(int n, const Mat3& b) {
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(9 * n);
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        if (b(r, c) != 0) t.emplace_back(3 * i + r, 3 * i + c, b(r, c));
  SpMat m(3 * n, 3 * n);
  m.setFromTriplets(t.begin(), t.end());
  return m;
}

}  // namespace

// ---- steady spin ------------------------------------------------------------------

std::vector<Vec3> staticSpinBulge(const BakedBody& body, const Vec3& omegaBody, bool geometric) {
  const int n = body.nodeCount();
  // rotating frame at rest: 0 = Q_v,e - K_e q with a_i = omega x (omega x u_i)
  //   K_e q = -m_i w x (w x (ub_i + q_i))
  //   (K_e + m_i [w]x [w]x) q = -m_i w x (w x ub_i)       (geometric: u_i = ub_i + q_i)
  const Mat3 ww = skew(omegaBody) * skew(omegaBody);
  VectorXd f(3 * n);
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < n; ++i) {
    f.segment<3>(3 * i) = -body.nodeMass[i] * (ww * body.restSkin[i]);
    if (geometric)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) t.emplace_back(3 * i + r, 3 * i + c, body.nodeMass[i] * ww(r, c));
  }
  SpMat a = assembleK(body);
  if (geometric) {
    SpMat centrifugal(3 * n, 3 * n);
    centrifugal.setFromTriplets(t.begin(), t.end());
    a += centrifugal;
  }
  Eigen::SimplicialLDLT<SpMat> solver(a);
  if (solver.info() != Eigen::Success)
    throw std::runtime_error(body.name + ": staticSpinBulge: K_e + centrifugal softening is singular "
                             "(spin faster than the lowest skin mode?)");
  return toNodes(solver.solve(f));
}

// ---- modes ------------------------------------------------------------------------

std::vector<SkinMode> skinModes(const BakedBody& body, int count) {
  const int n = body.nodeCount(), dof = 3 * n;
  count = std::clamp(count, 0, dof);
  // K phi = w^2 M phi with M = diag(m_i): A = M^-1/2 K M^-1/2, A v = w^2 v, phi = M^-1/2 v
  VectorXd s(dof);
  for (int i = 0; i < n; ++i) s.segment<3>(3 * i).setConstant(1.0 / std::sqrt(body.nodeMass[i]));
  Eigen::MatrixXd a = Eigen::MatrixXd(assembleK(body));
  a = s.asDiagonal() * a * s.asDiagonal();
  a = 0.5 * (a + a.transpose()).eval();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a);
  if (eig.info() != Eigen::Success) throw std::runtime_error(body.name + ": skinModes: eigen solve failed");
  std::vector<SkinMode> modes(count);
  for (int k = 0; k < count; ++k) {
    modes[k].omega = std::sqrt(std::max(0.0, eig.eigenvalues()(k)));
    modes[k].shape = toNodes(s.asDiagonal() * eig.eigenvectors().col(k));
  }
  return modes;
}

// ---- rest on a plane ------------------------------------------------------------------

namespace {

// The contact problem at a fixed core height h, in world-oriented skin
// displacements z_i = R q_i (so the plane normal is the y dof of every node):
//   K' z = f + r + s,  K' = R K_e R^T (blockwise),  f_i = m_i g,
// r: reactions of the plane, nonzero only on held dofs; s: with a crushed layer
// (keep >= 0), s_i = lambda_i e_i, e_i = R d_i, lambda_i >= 0, on the nodes held at
// e_i . z_i = -(1 - keep) h_i (internal: the core takes -s_i).
class PlaneProblem {
 public:
  PlaneProblem(const BakedBody& body, const Vec3& skinGravity, double load, double plane,
               const Quat& orientation, PlaneContact contact, double keep)
      : body_(body), n_(body.nodeCount()), plane_(plane), contact_(contact),
        R_(orientation.normalized().toRotationMatrix()), g_(skinGravity), load_(load), keep_(keep) {
    const SpMat rot = blockDiagonal(n_, R_);
    k_ = (rot * assembleK(body) * SpMat(rot.transpose())).pruned();
    f_.resize(3 * n_);
    restY_.resize(n_);
    for (int i = 0; i < n_; ++i) {
      f_.segment<3>(3 * i) = body.nodeMass[i] * skinGravity;
      restY_[i] = (R_ * body.restSkin[i]).y();
    }
    held_.assign(n_, kFree);
    crushed_.assign(n_, 0);
    lambda_.assign(n_, 0.0);
    for (const Vec3& x : body.restSkin) scale_ = std::max(scale_, x.norm());
  }

  bool crushes() const { return keep_ >= 0; }
  // e_i . z_i - (its limit): < 0 past the crushed layer [m]
  double crushGap(int i) const {
    const double h = (body_.restSkin[i] - body_.core[i]).norm();
    const Vec3 e = R_ * (body_.restSkin[i] - body_.core[i]) / h;
    return e.dot(z_.segment<3>(3 * i)) + (1 - keep_) * h;
  }
  // the lowest core height at which every core point keeps keep h_i from the plane
  double crushedLayerHeight() const {
    double h = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n_; ++i) {
      const double layer = (body_.restSkin[i] - body_.core[i]).norm();
      h = std::max(h, plane_ + keep_ * layer - (R_ * body_.core[i]).y());
    }
    return h;
  }

  // free sag (no contact): the height of c at which the sagging skin just touches
  double freeTouchHeight() {
    Eigen::SimplicialLDLT<SpMat> s(k_);
    const VectorXd z = s.solve(f_);
    double low = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n_; ++i) low = std::min(low, restY_[i] + z(3 * i + 1));
    return plane_ - low;
  }
  double undeformedTouchHeight() const {
    return plane_ - *std::min_element(restY_.begin(), restY_.end());
  }

  // Solves the active-set problem at core height h (warm-started from the
  // previous active set); returns the sum of the vertical reactions [N].
  //
  // Node states: free, held on the plane (y only), stuck (x, y, z: no-slip).
  // Pinning x, z at zero tangential displacement is not a convex constraint: a
  // node may penetrate when free yet pull when stuck. Such a node is demoted to
  // held-y (it slides, as a node with too little normal force would) for the
  // rest of this solve; what remains is the frictionless contact LCP with a
  // positive definite matrix, for which the active-set iteration below (all
  // changes at once, then one release at a time) terminates.
  double solve(double h) {
    h_ = h;
    std::vector<char> slid(n_, 0);
    // tolerances: a node counts as penetrating / pulling beyond round-off only
    const double gapTol = 1e-12 * scale_, forceTol = 1e-12 * load_;
    for (int pass = 0; pass < 1000; ++pass) {
      solveHeld();
      // hold all penetrating nodes, and those past their crushed layer
      bool changed = false;
      for (int i = 0; i < n_; ++i) {
        const double y = h_ + restY_[i] + z_(3 * i + 1);
        if (held_[i] == kFree && y < plane_ - gapTol) {
          held_[i] = contact_ == PlaneContact::NoSlip && !slid[i] ? kStuck : kHeldY;
          changed = true;
        }
        if (crushes() && !crushed_[i] && crushGap(i) < -gapTol) {
          if (held_[i] == kStuck) {  // (pinned across the plane into its crushed layer: it slides)
            demote(i, slid);
            changed = true;
          }
          if (crushRowFor(i)) {
            crushed_[i] = 1;
            changed = true;
          }
        }
      }
      if (changed) continue;
      // none penetrates: demote / release pulling nodes (all in the first
      // passes, then only the most pulling one); the same for the crushed layer's
      int worst = -1, worstCrushed = -1;
      for (int i = 0; i < n_; ++i) {
        if (crushed_[i] && lambda_[i] < -forceTol) {
          if (pass < 20) { crushed_[i] = 0; changed = true; }
          else if (worstCrushed < 0 || lambda_[i] < lambda_[worstCrushed]) worstCrushed = i;
        }
        if (held_[i] == kFree || r_(3 * i + 1) >= -forceTol) continue;
        if (pass < 20) { demote(i, slid); changed = true; }
        else if (worst < 0 || r_(3 * i + 1) < r_(3 * worst + 1)) worst = i;
      }
      if (worst >= 0) { demote(worst, slid); changed = true; }
      if (worstCrushed >= 0) { crushed_[worstCrushed] = 0; changed = true; }
      if (!changed) return verticalReaction();
    }
    throw std::runtime_error(body_.name + ": staticRestOnPlane: active set does not converge");
  }

  double verticalReaction() const {
    double s = 0;
    for (int i = 0; i < n_; ++i) s += r_(3 * i + 1);
    return s;
  }

  void fill(RestOnPlane& out) const {
    out.coreHeight = h_;
    out.horizontalShift = shift_;
    out.weight = load_;
    out.contactForce = verticalReaction();
    out.contactNodes = n_ - static_cast<int>(std::count(held_.begin(), held_.end(), kFree));
    out.slidingNodes = static_cast<int>(std::count(held_.begin(), held_.end(), kHeldY));
    out.crushedNodes = static_cast<int>(std::count(crushed_.begin(), crushed_.end(), 1));
    if (crushes())
      for (int i = 0; i < n_; ++i) out.crushViolation = std::max(out.crushViolation, -crushGap(i));
    out.q.resize(n_);
    out.minNodeHeight = std::numeric_limits<double>::infinity();
    const Vec3 c(0, h_, 0);
    Vec3 force = -load_ * Vec3::UnitY(), torque = Vec3::Zero();
    for (int i = 0; i < n_; ++i) {
      const Vec3 z = z_.segment<3>(3 * i), r = r_.segment<3>(3 * i);
      out.q[i] = R_.transpose() * z;
      const Vec3 arm = R_ * body_.restSkin[i] + z;  // x_i - c
      out.minNodeHeight = std::min(out.minNodeHeight, c.y() + arm.y());
      force += r;
      torque += arm.cross(r + body_.nodeMass[i] * g_);
    }

    out.residualForce = force;
    out.residualTorque = torque;
  }

 private:
  enum : char { kFree = 0, kHeldY = 1, kStuck = 2 };
  void demote(int i, std::vector<char>& slid) {
    if (held_[i] == kStuck) { held_[i] = kHeldY; slid[i] = 1; }
    else held_[i] = kFree;
  }
  bool isHeldDof(int d) const {
    const char s = held_[d / 3];
    return s == kStuck || (s == kHeldY && d % 3 == 1);
  }
  // Whether node i's crushed layer can be a row of its own: not where the plane holds
  // it (stuck, or held in y along a direction mostly vertical: the plane row and the
  // crush row would be one; there the core's own distance from the plane,
  // crushedLayerHeight, keeps the layer)
  bool crushRowFor(int i) const {
    if (held_[i] == kStuck) return false;
    if (held_[i] == kFree) return true;
    const Vec3 e = R_ * (body_.restSkin[i] - body_.core[i]).normalized();
    return std::hypot(e.x(), e.z()) > 0.3;
  }

  // z = T w + z0: w = [free dofs; t_x; t_z], z0 = the prescribed y of held
  // nodes. Stuck nodes share one tangential displacement t (the core is free to
  // shift horizontally against the stuck patch, so the tangential reactions sum
  // to zero). (T^T K' T) w = T^T (f - K' z0); r = K' z - f.
  void solveHeld() {
    const int dof = 3 * n_;
    std::vector<int> column(dof, -1);
    int nf = 0;
    bool anyStuck = false;
    z_ = VectorXd::Zero(dof);
    for (int d = 0; d < dof; ++d) {
      if (!isHeldDof(d)) column[d] = nf++;
      else if (d % 3 == 1) z_(d) = plane_ - h_ - restY_[d / 3];  // on the plane
      else anyStuck = true;
    }
    const int nw = nf + (anyStuck ? 2 : 0);
    for (int d = 0; d < dof; ++d)
      if (isHeldDof(d) && d % 3 != 1) column[d] = nf + d % 3 / 2;  // x -> t_x, z -> t_z
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(k_.nonZeros());
    VectorXd rhs = VectorXd::Zero(nw);
    for (int d = 0; d < dof; ++d)
      if (column[d] >= 0) rhs(column[d]) += f_(d);
    for (int col = 0; col < k_.outerSize(); ++col)
      for (SpMat::InnerIterator it(k_, col); it; ++it) {
        const int cr = column[it.row()], cc = column[col];
        if (cr < 0) continue;
        if (cc >= 0) t.emplace_back(cr, cc, it.value());
        else rhs(cr) -= it.value() * z_(col);
      }
    // the crushed layer's rows, e_i . z_i = -(1 - keep) h_i, on the reduced unknowns
    std::vector<int> rows;
    for (int i = 0; i < n_; ++i) {
      if (!crushed_[i]) continue;
      if (!crushRowFor(i)) { crushed_[i] = 0; continue; }  // (the plane took the node)
      rows.push_back(i);
    }
    const int m = static_cast<int>(rows.size());
    VectorXd w;
    std::fill(lambda_.begin(), lambda_.end(), 0.0);
    if (m == 0) {
      SpMat a(nw, nw);
      a.setFromTriplets(t.begin(), t.end());
      Eigen::SimplicialLDLT<SpMat> s(a);
      if (s.info() != Eigen::Success)
        throw std::runtime_error(body_.name + ": staticRestOnPlane: reduced stiffness is singular");
      w = s.solve(rhs);
    } else {
      // [A B^T; B 0] [w; nu] = [rhs; c]: the multipliers' reactions lambda = -nu
      VectorXd b(nw + m);
      b.head(nw) = rhs;
      for (int k = 0; k < m; ++k) {
        const int i = rows[size_t(k)];
        const double h = (body_.restSkin[i] - body_.core[i]).norm();
        const Vec3 e = R_ * (body_.restSkin[i] - body_.core[i]) / h;
        double c = -(1 - keep_) * h;
        for (int j = 0; j < 3; ++j) {
          const int d = 3 * i + j;
          if (column[d] >= 0) {
            t.emplace_back(nw + k, column[d], e(j));
            t.emplace_back(column[d], nw + k, e(j));
          } else {
            c -= e(j) * z_(d);
          }
        }
        b(nw + k) = c;
      }
      SpMat a(nw + m, nw + m);
      a.setFromTriplets(t.begin(), t.end());
      Eigen::SparseLU<SpMat> lu(a);
      if (lu.info() != Eigen::Success)
        throw std::runtime_error(body_.name + ": staticRestOnPlane: the crushed layer's system is singular");
      const VectorXd x = lu.solve(b);
      w = x.head(nw);
      for (int k = 0; k < m; ++k) lambda_[size_t(rows[size_t(k)])] = -x(nw + k);
    }
    for (int d = 0; d < dof; ++d)
      if (column[d] >= 0) z_(d) = w(column[d]);
    shift_ = anyStuck ? Vec3(-w(nf), 0, -w(nf + 1)) : Vec3::Zero();
    r_ = k_ * z_ - f_;
    for (int d = 0; d < dof; ++d)
      if (!isHeldDof(d)) r_(d) = 0;  // round-off of the free rows
    for (int i : rows)  // (a held node's crushed layer pushes along e_i: not the plane's)
      if (held_[i] == kHeldY) r_(3 * i + 1) -= lambda_[size_t(i)] * (R_ * (body_.restSkin[i] - body_.core[i]).normalized()).y();
  }

  const BakedBody& body_;
  int n_;
  double plane_;
  PlaneContact contact_;
  Mat3 R_;
  Vec3 g_;  // load per kg of skin [m/s^2]
  SpMat k_;
  VectorXd f_;
  std::vector<double> restY_;  // (nnode) y of R ub_i
  std::vector<char> held_;     // (nnode) kFree / kHeldY / kStuck
  std::vector<char> crushed_;  // (nnode) held at the crushed layer
  std::vector<double> lambda_; // (nnode) ... its push along e_i [N]
  double load_ = 0, scale_ = 0;  // the load the plane carries [N], body size [m]
  double keep_ = -1;             // the crushed layer's fraction (< 0: none)
  double h_ = 0;
  Vec3 shift_ = Vec3::Zero();  // horizontal shift of c against the stuck patch [m]
  VectorXd z_, r_;             // (3n) world-oriented displacement and reaction
};

}  // namespace

RestOnPlane staticRestOnPlane(const BakedBody& body, const Vec3& gravity, double planeHeight,
                              const Quat& orientation, PlaneContact contact, double keep) {
  if (!(gravity.y() < 0) || std::abs(gravity.x()) + std::abs(gravity.z()) > 1e-12 * gravity.norm())
    throw std::invalid_argument(body.name + ": staticRestOnPlane: gravity must point along -Y");
  return staticPressOnPlane(body, gravity, body.totalMass * gravity.norm(), planeHeight, orientation, contact, keep);
}

RestOnPlane staticPressOnPlane(const BakedBody& body, const Vec3& skinGravity, double load, double planeHeight,
                               const Quat& orientation, PlaneContact contact, double keep) {
  if (!(skinGravity.y() <= 0) || std::abs(skinGravity.x()) + std::abs(skinGravity.z()) > 1e-12 * skinGravity.norm())
    throw std::invalid_argument(body.name + ": staticPressOnPlane: the skin's gravity must point along -Y (or be 0)");
  double skinWeight = 0;
  for (double mi : body.nodeMass) skinWeight += mi * -skinGravity.y();
  if (!(load > 0) || load < skinWeight * (1 - 1e-12))
    throw std::invalid_argument(body.name + ": staticPressOnPlane: the load must be > 0 and at least the skin's weight");
  if (keep >= 1) throw std::invalid_argument(body.name + ": staticPressOnPlane: keep must be < 1");
  PlaneProblem p(body, skinGravity, load, planeHeight, orientation, contact, keep);
  const double weight = load;
  // F(h) = sum of vertical reactions - weight: -weight for h >= hTop, decreasing in h
  auto F = [&](double h) { return p.solve(h) - weight; };
  auto finish = [&](int iterations) {
    RestOnPlane out;
    p.fill(out);
    out.iterations = iterations;
    out.undeformedHeight = p.undeformedTouchHeight();
    out.sinking = out.undeformedHeight - out.coreHeight;
    return out;
  };

  // bracket: hTop (sagging skin just touches) and a height low enough to carry the weight
  double step = 1e-9;  // first trial sinking: 1e-4 of the body's size [m]
  for (const Vec3& x : body.restSkin) step = std::max(step, 1e-4 * x.norm());
  double hTop = p.freeTouchHeight(), fTop = -weight;
  if (p.crushes()) {  // (the free sag with the crushed layer is not the linear one: touching above it)
    while ((fTop = F(hTop)) > -weight * (1 - 1e-12)) hTop += step;
  }
  // with a crushed layer the core goes no lower than crushedLayerHeight: where the skin
  // has not carried the load by then, the core rests on its crushed layer there
  const double floor = p.crushes() ? p.crushedLayerHeight() : -std::numeric_limits<double>::infinity();
  double hi = hTop, fhi = fTop, lo = std::max(hTop - step, floor), flo = F(lo);
  int iterations = 1;
  while (flo < 0) {
    if (lo <= floor) {
      RestOnPlane out = finish(iterations);
      out.onCrushedLayer = true;
      out.contactForce = weight;  // (the skin's reactions carry part; the core on its crushed layer the rest)
      return out;
    }
    hi = lo;
    fhi = flo;
    step *= 2;
    lo = std::max(hTop - step, floor);
    flo = F(lo);
    if (++iterations > 200)
      throw std::runtime_error(body.name + ": staticRestOnPlane: cannot carry the weight");
  }
  // Illinois regula falsi (F is piecewise linear in h: a few steps once the active set settles)
  double h = lo;
  int side = 0;
  for (int it = 0; it < 200; ++it, ++iterations) {
    h = (lo * fhi - hi * flo) / (fhi - flo);
    const double fh = F(h);
    if (std::abs(fh) <= 1e-11 * weight || hi - lo < 1e-14) break;
    if (fh > 0) {
      lo = h; flo = fh;
      if (side == +1) fhi *= 0.5;
      side = +1;
    } else {
      hi = h; fhi = fh;
      if (side == -1) flo *= 0.5;
      side = -1;
    }
  }
  F(h);
  return finish(iterations);
}

}  // namespace d2t
