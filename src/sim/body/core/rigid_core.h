#pragma once
// The core seam: what a layered body's step needs of the part that carries the skin
// (docs/design.md sec. 2-4; docs/decisions/0026-core-seam-compile-time.md).
//
// A core has kDofs generalised velocities v_c. A skin node's world velocity is
// L_i v_c + R qdot_i; the mass matrix has the core's block M_c and the coupling
// M_ce(i) between the core and node i; step 3 condenses the skin onto v_c (3.8) and
// step 4 takes the core's change back out of the skin's (3.9). The step (integrateFree,
// applyDrag, respondThrough, the GPU's integrate) is written against `Core` and the
// operations below, and contains no core dimension of its own.
//
// Today's bodies have one rigid core, RigidCore: 6 dofs v_c = (cdot world, omega body),
// L_i = [I, -R [u_i]x], M_ce(i) = [m_i R ; m_i [u_i]x] (appendix B, B.9). Chapter 4's
// skeleton of k bones is the 6k case of the same operations (SkeletonCore, part of the
// articulated-character issue). The core is chosen at compile time: the rigid core keeps
// fixed sizes and its arithmetic, and the choice at run time is between kinds of body,
// one level up (the decision above, with what a virtual or run-time-sized core costs).
#include <array>

#include "sim/base/math.h"

namespace d2t {

/// The rigid core's state.
struct CoreState {
  Vec3 position = Vec3::Zero();          ///< c: world position of the body-frame origin [m]
  Quat orientation = Quat::Identity();   ///< R: body-to-world rotation
  Vec3 velocity = Vec3::Zero();          ///< cdot: world linear velocity of the origin [m/s]
  Vec3 angularVelocity = Vec3::Zero();   ///< omega: angular velocity in the BODY frame [rad/s]
};

/// The skin's sums over its nodes that the rigid core's equations need (body frame;
/// u_i = ub_i + q_i, a_i the quadratic velocity vector w x (w x u_i) + 2 w x qdot_i).
struct SkinCoreSums {
  Vec3 mu = Vec3::Zero();    ///< S_t = sum m_i u_i
  Mat3 muu = Mat3::Zero();   ///< M_uu = sum m_i [u_i]x^T [u_i]x
  Vec3 ma = Vec3::Zero();    ///< S_a = sum m_i a_i
  Vec3 muxa = Vec3::Zero();  ///< S_ua = sum m_i u_i x a_i
};

/// The sums over every skin node that condense the block-diagonal contact response onto
/// the core (Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ec(i)), for RigidCore::condensed.
struct CondensedSums {
  Mat3 tt = Mat3::Zero();  ///< sum m_i^2 Mh_i^-1
  Mat3 tr = Mat3::Zero();  ///< sum m_i^2 Mh_i^-1 [u_i]x
  Mat3 rr = Mat3::Zero();  ///< sum [u_i]x m_i^2 Mh_i^-1 [u_i]x
};

/// One rigid core: the k = 1 case of the core seam.
struct RigidCore {
  static constexpr int kDofs = 6;
  /// v_c, dv_c or a generalised force: (linear part world; angular part body frame).
  using Vector = Eigen::Matrix<double, kDofs, 1>;
  /// M_c, the condensed Mcond, the response's S.
  using Matrix = Eigen::Matrix<double, kDofs, kDofs>;
  /// A node's block of Y = Mt_e^-1 M_ec: one body-frame vector per core dof.
  using Columns = std::array<Vec3, kDofs>;
  /// A point's velocity map J (pdot = J v_c, world).
  using PointMap = Eigen::Matrix<double, 3, kDofs>;

  static Vec3 linear(const Vector& v) { return v.head<3>(); }
  static Vec3 angular(const Vector& v) { return v.tail<3>(); }
  /// v_c += dv.
  static void addVelocity(CoreState& s, const Vector& dv) {
    s.velocity += dv.head<3>();
    s.angularVelocity += dv.tail<3>();
  }
  /// Step 5's core part: c = c0 + dt cdot, R = R0 exp(dt [omega]x) from the start state.
  static void integratePositions(CoreState& s, const CoreState& start, double dt) {
    s.position = start.position + dt * s.velocity;
    s.orientation = integrateBodyRotation(start.orientation, s.angularVelocity, dt);
  }

  /// M_c, the core block of the mass matrix (B.9) with S_t (B.10) and the inertia
  /// about the origin: [m I, -R [S_t]x ; [S_t]x R^T, I_c + M_uu], m the body's total mass.
  static Matrix massMatrix(double totalMass, const Mat3& coreInertia, const Mat3& R, const Vec3& St,
                           const Mat3& Muu);
  /// The generalised free forces on the core, Ft_c of (3.8): gravity and the nodes'
  /// external force and torque by virtual work (sec. B.4; world force, body-frame torque
  /// about c), the skin's quadratic velocity terms and the gyroscopic term (sec. B.5.1).
  /// gb = R^T g.
  static Vector freeForce(double totalMass, const Mat3& coreInertia, const Mat3& R, const Vec3& g, const Vec3& gb,
                          const Vec3& omega, const SkinCoreSums& sums, const Vec3& force, const Vec3& torque);
  /// The body's linear momentum m cdot + R (omega x S_t + sum m_i qdot_i).
  static Vec3 linearMomentum(double totalMass, const CoreState& s, const Vec3& mu, const Vec3& mqdot) {
    return totalMass * s.velocity + s.orientation * (s.angularVelocity.cross(mu) + mqdot);
  }

  /// L_i^T f: the generalised force of a world force f (fb = R^T f) at body-frame u.
  static Vector generalizedForce(const Vec3& f, const Vec3& fb, const Vec3& u) {
    Vector v;
    v << f, u.cross(fb);
    return v;
  }
  /// J = [I, -R [r]x]: the map from v_c to the world velocity of the core point r (body
  /// frame, from c).
  static PointMap pointMap(const Mat3& R, const Vec3& r) {
    PointMap J;
    J.leftCols<3>() = Mat3::Identity();
    J.rightCols<3>() = -R * skew(r);
    return J;
  }
  /// Column k of M_ec at node i (body frame): m_i R^T e_k (k < 3), -m_i u_i x e_(k-3).
  static Vec3 couplingColumn(int k, double mi, const Vec3& u, const Mat3& R) {
    return k < 3 ? Vec3(mi * R.row(k).transpose()) : Vec3(-mi * u.cross(Vec3::Unit(k - 3)));
  }
  /// Node i's block of Y from the operator's cached columns (ImplicitOperator): Y_t = W_t
  /// R^T exactly (Mt_e is constant in the body frame), Y_r = W_r (the rest shape) +
  /// Mh_i^-1 [-m_i [q_i]x] (the displacement's part, block-diagonal).
  static Columns cachedColumns(const std::array<Vec3, 3>& wt, const std::array<Vec3, 3>& wr, const Mat3& hinv,
                               double mi, const Vec3& q, const Mat3& R) {
    Columns Y;
    for (int k = 0; k < 3; ++k) {
      Y[k] = wt[0] * R(k, 0) + wt[1] * R(k, 1) + wt[2] * R(k, 2);  // (W_t R^T) col k
      Y[3 + k] = wr[k] - mi * (hinv * q.cross(Vec3::Unit(k)));
    }
    return Y;
  }
  /// Y_i dv from the same cached columns without forming them.
  static Vec3 cachedTimes(const std::array<Vec3, 3>& wt, const std::array<Vec3, 3>& wr, const Mat3& hinv,
                          double mi, const Vec3& q, const Mat3& Rt, const Vector& dv) {
    const Vec3 a = Rt * dv.head<3>();
    const Vec3 w = dv.tail<3>();
    Vec3 r = Vec3::Zero();
    for (int k = 0; k < 3; ++k) r += wt[k] * a[k] + wr[k] * w[k];
    return r - mi * (hinv * q.cross(w));
  }
  /// v - Y_i dv (3.9: dv_e = dt y - Y dv_c), summed dof after dof.
  static Vec3 minusCoupled(Vec3 v, const Columns& Y, const Vector& dv) {
    for (int k = 0; k < kDofs; ++k) v -= Y[k] * dv[k];
    return v;
  }

  /// M_ce x = sum_i M_ce(i) x_i of a skin field x (body frame), summed node by node.
  struct CouplingSum {
    Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();
    void add(double mi, const Vec3& u, const Vec3& x) {
      linear += mi * x;
      angular += mi * u.cross(x);
    }
    Vector value(const Mat3& R) const {
      Vector v;
      v << R * linear, angular;
      return v;
    }
  };
  /// M_ce Y, the same over every dof's column.
  struct CouplingColumnsSum {
    Matrix sums = Matrix::Zero();
    void add(double mi, const Vec3& u, const Columns& Y) {
      for (int k = 0; k < kDofs; ++k) {
        sums.block<3, 1>(0, k) += mi * Y[k];
        sums.block<3, 1>(3, k) += mi * u.cross(Y[k]);
      }
    }
    Matrix value(const Mat3& R) const {
      Matrix v = sums;
      v.topRows<3>() = R * sums.topRows<3>();
      return v;
    }
  };

  /// The contact response's condensed matrix Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ec(i).
  static Matrix condensed(Matrix Mc, const CondensedSums& P, const Mat3& R) {
    const Mat3 Rt = R.transpose();
    Mc.block<3, 3>(0, 0) -= R * P.tt * Rt;
    Mc.block<3, 3>(0, 3) -= -R * P.tr;
    Mc.block<3, 3>(3, 0) -= -(R * P.tr).transpose();
    Mc.block<3, 3>(3, 3) -= -P.rr;
    return Mc;
  }
  /// A contact row's coupling U_k = L_i^T n - M_ce(i) Mh_i^-1 R^T n (12) for the world
  /// normal n (nb = R^T n) at node i (u, m_i; hn = Mh_i^-1 nb).
  static Vector rowCoupling(const Vec3& n, const Vec3& nb, const Vec3& u, double mi, const Vec3& hn, const Mat3& R) {
    return generalizedForce(n, nb, u) + skinRowCoupling(u, mi, hn, R);
  }
  /// The coupling of a row against the body's own core (the skin bottoming out, issue
  /// 26): the row's force on the node and its reaction on the core act at the same point,
  /// so their generalised forces on the core cancel (no L_i^T n) and only the mass
  /// coupling is left, U_k = -M_ce(i) Mh_i^-1 nb.
  static Vector skinRowCoupling(const Vec3& u, double mi, const Vec3& hn, const Mat3& R) {
    Vector g;
    g << -(mi * (R * hn)), -(mi * u.cross(hn));
    return g;
  }
  /// The right-hand side of step 11's core solve: f_c - sum_i M_ce(i) Mh_i^-1 r_i from the
  /// rows' generalised force fc and the skin's sums mt = sum m_i Mh_i^-1 r_i, mr = sum m_i
  /// u_i x Mh_i^-1 r_i (body frame).
  static Vector impulseRhs(const Vector& fc, const Vec3& mt, const Vec3& mr, const Mat3& R) {
    Vector v;
    v << fc.head<3>() - R * mt, fc.tail<3>() - mr;
    return v;
  }
  /// The core's own kinetic energy along a velocity change, KE(t) = k0 + ka t + kb t^2 for
  /// velocities (vb + t dvt, w + t dw), all body frame: (k0, ka, kb).
  static Vec3 kineticEnergyAlong(double coreMass, const Mat3& coreInertia, const Vec3& vb, const Vec3& w,
                                 const Vec3& dvt, const Vec3& dw) {
    const Vec3 icw = coreInertia * w, icdw = coreInertia * dw;
    return {0.5 * (coreMass * vb.squaredNorm() + w.dot(icw)), coreMass * vb.dot(dvt) + w.dot(icdw),
            0.5 * (coreMass * dvt.squaredNorm() + dw.dot(icdw))};
  }
};

/// The core of today's layered bodies.
using Core = RigidCore;

}  // namespace d2t
