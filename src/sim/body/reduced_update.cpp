// LayeredBody's collision-free update of a reduced skin (ch. 5.4; design 3.2): Fig. 3.5's
// steps 1-5 in the skin's modal coordinates z (u_i = ub_i + Phi_i z, U^T M U = I), the
// floating frame's sums from the basis' inertia invariants (modal_basis.h), the elastic force
// from the model's reduced form (ElasticModel::reducedForce: the targets' linear
// polynomials or reduced StVK). No pass over the nodes but the mirror q = U z at the end
// (what detection, the response and rendering read).
//
// The step is the Galerkin projection of integrateFree's (the reference, settings
// reducedNodal): with W the r x r operator (1 + dt alpha) I + (dt beta + dt^2) K~_T,
//   y = W^-1 U^T Ft_e,  Y = W^-1 C(z)  (C = U^T M_ec: the core's six columns in z),
//   Mcond = M_c - C^T Y,  dv_c = Mcond^-1 dt (Ft_c - C^T y),  zdot += dt y - Y dv_c,
// with U^T Ft_e = -R~(z) - (beta + dt) K~_T zdot - alpha zdot - U^T M a + U^T M R^T g + U^T f
// (a_i = w x (w x u_i) + 2 w x qdot_i, B.13). A linear model's W is the operator's factor
// (its frozen Jacobian, morph_elasticity.h); reduced StVK's tangent is refactored each step
// (r^3 / 3 flops).

#include <Eigen/Dense>
#include <stdexcept>

#include "sim/body/layered_body.h"
#include "sim/body/node_loops.h"
#include "sim/morph/modal_basis.h"

namespace d2t {

using namespace layered_detail;

bool LayeredBody::stepsInZ() const {
  return op_.reduced() && (!settings_.reducedNodal || !op_.basis()->stvk.empty());
}

FreeStepResult LayeredBody::integrateReduced(const LayeredState& start, double dt, const Vec3& g,
                                             Profile& profile) {
  const BakedBody& m = *model_;
  const ModalBasis& basis = *op_.basis();
  const FrameInvariants& inv = basis.inertia;
  const int r = basis.r;
  const double mass = m.totalMass;
  const double alpha = desc_.material.alpha, beta = desc_.material.beta;
  LayeredState& s = state_;
  const bool fixed = settings_.fixedCore;
  FreeStepResult result;

  const Mat3 R = rotation(s.orientation);
  const Vec3 gb = R.transpose() * g;
  const Vec3& w = s.angularVelocity;
  const Eigen::VectorXd z0 = z_;  // (the start's coordinates; z_ and zdot_ advance below)
  Eigen::VectorXd& zdot = zdot_;

  // 1 forces: the floating frame's sums from the invariants, U^T Ft_e
  SkinCoreSums sums;
  Eigen::VectorXd rhs(r);
  Eigen::MatrixXd tangent;
  Eigen::Matrix<double, Eigen::Dynamic, Core::kDofs> C(r, Core::kDofs);  // U^T M_ec(u)
  Vec3 Sqdot;
  {
    StageTimer t(profile, Stage::Forces);
    // S_t = sum m u, M_uu = sum m (|u|^2 I - u u^T) with sum m u u^T = suu0 + X + X^T + Z,
    // X_ab = sum m ub_a (Phi z)_b = z . B_(b,a), Z_ab = z^T G_ab z
    sums.mu = inv.s0 + inv.ubar * z0;
    Sqdot = inv.ubar * zdot;
    Mat3 Suu = inv.suu0, P;  // P = sum m qdot u^T
    std::array<Eigen::VectorXd, 9> Gz;
    for (int k = 0; k < 9; ++k) Gz[size_t(k)] = inv.G[size_t(k)] * z0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        Suu(a, b) += z0.dot(inv.B.col(3 * b + a)) + z0.dot(inv.B.col(3 * a + b)) + z0.dot(Gz[size_t(3 * a + b)]);
        P(a, b) = zdot.dot(inv.B.col(3 * a + b)) + zdot.dot(Gz[size_t(3 * a + b)]);
      }
    sums.muu = Suu.trace() * Mat3::Identity() - Suu;
    // S_a = w x (w x S_t) + 2 w x sum m qdot;  S_ua = w x (M_uu w) + 2 (w tr P - P w)
    sums.ma = w.cross(w.cross(sums.mu)) + 2 * w.cross(Sqdot);
    sums.muxa = w.cross(sums.muu * w) + 2 * (w * P.trace() - P * w);

    // U^T M a = U^T M (w (w . u) - |w|^2 u) + 2 sum_k w_k A_k zdot
    Eigen::VectorXd ma = -w.squaredNorm() * (inv.B.col(0) + inv.B.col(4) + inv.B.col(8) + z0);
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) ma += w[a] * w[b] * (inv.B.col(3 * a + b) + Gz[size_t(3 * a + b)]);
      ma += 2 * w[a] * (inv.A[size_t(a)] * zdot);
    }
    Eigen::VectorXd force;
    if (!elastic_->reducedForce(basis, z0, &force, &tangent, nullptr))
      throw std::logic_error("body '" + desc_.name + "': its elastic model has no reduced force for its basis");
    rhs = -force - (beta + dt) * (tangent * zdot) - alpha * zdot - ma + inv.ubar.transpose() * gb;
    for (size_t i = 0; i < forces_.nodes.size(); ++i)
      if (forces_.nodes[i] != Vec3::Zero())
        rhs.noalias() += basis.U.middleRows<3>(3 * Eigen::Index(i)).transpose() * forces_.nodes[i];
    // the core's columns in z: U^T (m_i R^T e_k) and U^T (m_i e_k x u_i)
    for (int k = 0; k < 3; ++k) {
      C.col(k) = inv.ubar.transpose() * R.row(k).transpose();
      C.col(3 + k) = basis.coupling.col(3 + k) + inv.A[size_t(k)] * z0;
    }
  }
  const Vec3 momentumStart = Core::linearMomentum(mass, s, sums.mu, Sqdot);

  // 2 solve: y = W^-1 U^T Ft_e, Y = W^-1 C
  Eigen::VectorXd y;
  Eigen::Matrix<double, Eigen::Dynamic, Core::kDofs> Y;
  {
    StageTimer t(profile, Stage::Solve);
    if (basis.stvk.empty()) {
      y = op_.reducedFactor().solve(rhs);
      if (!fixed) Y = op_.reducedFactor().solve(C);
    } else {  // reduced StVK: W at this step's tangent
      const Eigen::LLT<Eigen::MatrixXd> W((1 + dt * alpha) * Eigen::MatrixXd::Identity(r, r) +
                                          (dt * beta + dt * dt) * tangent);
      if (W.info() != Eigen::Success)
        throw std::runtime_error("body '" + desc_.name + "': the reduced StVK tangent is not positive definite");
      y = W.solve(rhs);
      if (!fixed) Y = W.solve(C);
    }
  }

  // 3 core velocities: Mcond = M_c - C^T Y, dv_c = Mcond^-1 dt (Ft_c - C^T y)
  const Core::Matrix Mc = Core::massMatrix(mass, m.coreInertia, R, sums.mu, sums.muu);
  Core::Vector dvc = Core::Vector::Zero();
  if (!fixed) {
    StageTimer t(profile, Stage::Core);
    const Core::Vector Fc = Core::freeForce(mass, m.coreInertia, R, g, gb, w, sums, forces_.force, forces_.torque);
    const Core::Matrix Mcond = Mc - C.transpose() * Y;
    dvc = result.keep(solveCoreWithSprings(state_, springs_, model_->comOffset, Mcond,
                                           dt * (Fc - C.transpose() * y), dt));
  }

  // 4-5 velocities and positions, the mirror q = U z
  {
    StageTimer t(profile, Stage::Velocities);
    zdot += dt * y;
    if (!fixed) zdot.noalias() -= Y * dvc;
    Core::addVelocity(s, dvc);
  }
  {
    StageTimer t(profile, Stage::Positions);
    Core::integratePositions(s, start, dt);
    z_ = z0 + dt * zdot;
    basis.expand(z_, s.q);
    basis.expand(zdot, s.qdot);
    // the linear momentum projected back through the core, as integrateFree does
    if (!fixed) {
      const Vec3 target = momentumStart + dt * (mass * g + forces_.force) + result.springImpulse;
      const Vec3 dcdot = (target - Core::linearMomentum(mass, s, inv.s0 + inv.ubar * z_, inv.ubar * zdot)) / mass;
      s.velocity += dcdot;
      s.position += dt * dcdot;
    }
  }
  result.coreMass = Mc;
  return result;
}

}  // namespace d2t
