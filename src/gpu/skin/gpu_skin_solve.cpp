// GpuSkin's collision-free update (Fig. 3.5 steps 1-5) in fragment passes: the forces,
// coupling and velocities passes around GpuCg's solve, in integrate.

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

// Step 1 on q_, qdot_: z_, ma_ and the core sums
GpuForceSums GpuSkin::forcesPass(const Vec3& w, double alpha, double beta, double dt, bool nodeForces) {
  passes_.beginPass(forces_);
  passes_.bind(forces_, "uQ", q_);
  passes_.bind(forces_, "uQdot", qdot_);
  passes_.bind(forces_, "uNodeForces", nodeForces_);
  glUniform1i(forces_.uniform("uHasNodeForces"), nodeForces ? 1 : 0);
  passes_.bind(forces_, "uRestForce", ops_.restForce());
  glUniform1i(forces_.uniform("uHasRestForce"), ops_.hasRestForce() ? 1 : 0);
  forces_.set("uOmega", w);
  glUniform1f(forces_.uniform("uAlpha"), float(alpha));
  glUniform1f(forces_.uniform("uBeta"), float(beta));
  glUniform1f(forces_.uniform("uDt"), float(dt));
  static_assert(D2T_FORCES_Z == 0 && D2T_FORCES_MA == 1, "forces.frag's leading outputs");
  passes_.sumTerms(forces_, D2T_FORCES_OUTPUTS, {{z_.id(), -1}, {ma_.id(), -1}});
  GpuForceSums f;
  f.mq = passes_.sum(D2T_FORCES_SUM_MQ);
  f.mqdot = passes_.sum(D2T_FORCES_SUM_MQDOT);
  f.ma = passes_.sum(D2T_FORCES_SUM_MA);
  f.muxa = passes_.sum(D2T_FORCES_SUM_MUXA);
  const Vec3 d = passes_.sum(D2T_FORCES_SUM_UU_DIAG), o = passes_.sum(D2T_FORCES_SUM_UU_OFF);
  f.uu << d.x(), o.x(), o.y(), o.x(), d.y(), o.z(), o.y(), o.z(), d.z();
  return f;
}

// Step 3's sums on q_ and y' (cg_.x()): M_ce Y and M_ce y with y = y' + W_t R^T g
GpuSkin::CouplingProducts GpuSkin::couplingProducts(const Mat3& R, const Vec3& gb) {
  auto couplingPass = [&](int part) {  // (each reduction rebinds the texture units)
    passes_.beginPass(coupling_);
    passes_.bind(coupling_, "uQ", q_);
    passes_.bind(coupling_, "uY", cg_.x());
    passes_.bind(coupling_, "uWt", ops_.translational());
    passes_.bind(coupling_, "uWr", ops_.rotational());
    passes_.bind(coupling_, "uHinv", ops_.diagInverse());
    glUniform1i(coupling_.uniform("uPart"), part);
  };
  couplingPass(0);
  passes_.sumTerms(coupling_, D2T_COUPLING_OUTPUTS);
  const Vec3 my = passes_.sum(D2T_COUPLING_MY), uy = passes_.sum(D2T_COUPLING_MUXY);
  Mat3 A1, B1, G, H;
  for (int j = 0; j < 3; ++j) {
    A1.col(j) = passes_.sum(D2T_COUPLING_QXWT + j);
    B1.col(j) = passes_.sum(D2T_COUPLING_QXWR + j);
  }
  couplingPass(1);
  passes_.sumTerms(coupling_, D2T_COUPLING_UXH + 3);
  for (int k = 0; k < 3; ++k) {
    G.col(k) = passes_.sum(D2T_COUPLING_H + k);
    H.col(k) = passes_.sum(D2T_COUPLING_UXH + k);
  }
  // M_ce Y: translational columns Y_t = W_t R^T, rotational Y_r = W_r - m Mh^-1 [q x e_k]
  const Mat3 uWt = ops_.rest().mubWt + A1;  // sum m u x W_t[j]
  Core::Matrix MceY;
  MceY.block<3, 3>(0, 0) = R * (ops_.rest().mWt * R.transpose());
  MceY.block<3, 3>(3, 0) = uWt * R.transpose();
  MceY.block<3, 3>(0, 3) = R * (ops_.rest().mWr - G);
  MceY.block<3, 3>(3, 3) = ops_.rest().mubWr + B1 - H;
  // M_ce y with y = y' + W_t R^T g
  Core::Vector Mcey;
  Mcey << R * (my + ops_.rest().mWt * gb), uy + uWt * gb;
  return {MceY, Mcey};
}

// Steps 4-5 on q_, qdot_ and y' (cg_.x()) into qdotNew_, qNew_: the momentum sums
void GpuSkin::velocitiesPass(const Vec3& tr, const Vec3& rot, double dt, Vec3* mqdotNew, Vec3* mqNew) {
  passes_.beginPass(velocities_);
  passes_.bind(velocities_, "uQ", q_);
  passes_.bind(velocities_, "uQdot", qdot_);
  passes_.bind(velocities_, "uY", cg_.x());
  passes_.bind(velocities_, "uWt", ops_.translational());
  passes_.bind(velocities_, "uWr", ops_.rotational());
  passes_.bind(velocities_, "uHinv", ops_.diagInverse());
  velocities_.set("uTranslation", tr);
  velocities_.set("uRotation", rot);
  glUniform1f(velocities_.uniform("uDt"), float(dt));
  static_assert(D2T_STATE_QDOT == 0 && D2T_STATE_Q == 1, "velocities.frag's leading outputs");
  passes_.sumTerms(velocities_, D2T_STATE_OUTPUTS, {{qdotNew_.id(), -1}, {qNew_.id(), -1}});
  *mqdotNew = passes_.sum(D2T_STATE_SUM_MQDOT);
  *mqNew = passes_.sum(D2T_STATE_SUM_MQ);
}

// ---- the step ----------------------------------------------------------------------------------

// Steps 1-5 on the GPU: the passes in the order of LayeredBody::integrateFree, block for
// block (one function for the same reason: the blocks share the step's sums).
FreeStepResult GpuSkin::integrate(const BodyView& body, LayeredState& s, double dt, const Vec3& g,
                                  Profile& profile) {
  if (&body.model != model_.get())  // re-assembled (a material change): K_e and masses are stale here
    throw GlError("the body's model changed under its GPU solver (make a new GpuSkin for it)");
  const BakedBody& m = *model_;
  // the state of the last step's end is still here (nothing wrote it on the CPU since):
  // it becomes this step's start instead of crossing again
  const bool resident = body.skinResident;
  const CoreState start = s;
  const double mass = m.totalMass;
  const bool fixed = body.settings.fixedCore;
  const Material& mat = body.material;
  FreeStepResult result;
  passes_.dropStamps();
  {
    StageTimer t(profile, Stage::Transfer);
    ops_.sync(body);
    cg_.sync(body);
    if (resident) {
      std::swap(q_, qNew_);
      std::swap(qdot_, qdotNew_);
    } else {
      uploadNodes(q_, s.q);
      uploadNodes(qdot_, s.qdot);
      ++stateUploads_;
    }
  }
  const NodeForces& loads = body.forces;  // the contact support and the node loads
  if (!loads.nodes.empty()) {
    StageTimer t(profile, Stage::Transfer);
    uploadNodes(nodeForces_, loads.nodes);
  }
  const Mat3 R = s.orientation.toRotationMatrix();
  const Vec3 gb = R.transpose() * g;
  const Vec3 w = s.angularVelocity;

  // 1 forces, the core sums, and Ft_e' = -K z - m (alpha qdot + a)
  SkinCoreSums sums;
  Vec3 momentumStart;
  {
    StageTimer t(profile, Stage::Forces);
    passes_.timestamp(Stage::Forces);
    const GpuForceSums f = forcesPass(w, mat.alpha, mat.beta, dt, !loads.nodes.empty());
    cg_.stencilPass(z_, ma_, -1.0, 0.0, -1.0, cg_.rhs(), true);  // Ft_e' = -K z - m (alpha qdot + a) (+ f0 in ma)
    sums.mu = ops_.rest().st + f.mq;
    sums.ma = f.ma;
    sums.muxa = f.muxa;
    const Mat3 uu = ops_.rest().uu + f.uu;  // sum m u u^T
    sums.muu = uu.trace() * Mat3::Identity() - uu;
    momentumStart = mass * s.velocity + R * (w.cross(sums.mu) + f.mqdot);  // (Core::linearMomentum, through R)
  }
  const Core::Matrix Mc = Core::massMatrix(mass, m.coreInertia, R, sums.mu, sums.muu);
  result.coreMass = Mc;

  // 2 Mt_e y' = Ft_e' (warm start: last step's y')
  {
    StageTimer t(profile, Stage::Solve);
    passes_.timestamp(Stage::Solve);
    result.cgIterations = cg_.solve(body.settings.cgIterations, body.settings.cgTolerance, &result.cgResidual,
                             body.op.solveReferenceNorm(g));
  }

  // 3 core velocities: the condensed core system (3.8), sums from the GPU
  Core::Vector dvc = Core::Vector::Zero();
  if (!fixed) {
    StageTimer t(profile, Stage::Core);
    passes_.timestamp(Stage::Core);
    const CouplingProducts mce = couplingProducts(R, gb);
    const Core::Vector Fc = Core::freeForce(mass, m.coreInertia, R, g, gb, w, sums, loads.force, loads.torque);
    dvc = result.keep(solveCoreWithSprings(s, body.springs, m.comOffset, Mc - mce.MceY, dt * (Fc - mce.Mcey), dt));  // (3.8)
  }

  // 4-5 skin velocities and positions
  Vec3 mqdotNew, mqNew;
  {
    StageTimer t(profile, Stage::Velocities);
    passes_.timestamp(Stage::Velocities);
    const Vec3 tr = dt * gb - R.transpose() * Core::linear(dvc);
    const Vec3 rot = Core::angular(dvc);
    velocitiesPass(tr, rot, dt, &mqdotNew, &mqNew);
  }
  passes_.timestamp(Stage::Count);
  {
    StageTimer t(profile, Stage::Positions);
    Core::addVelocity(s, dvc);
    Core::integratePositions(s, start, dt);
    // linear momentum projection (as on the CPU): internal forces cannot change it
    if (!fixed) {
      const Vec3 momentum = Core::linearMomentum(mass, s, ops_.rest().st + mqNew, mqdotNew);
      const Vec3 dcdot = (momentumStart + dt * (mass * g + loads.force) + result.springImpulse - momentum) / mass;
      s.velocity += dcdot;
      s.position += dt * dcdot;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the GPU solver step");
  holder_ = body.id;
  moments_ = SkinSummary{};
  moments_.mu = ops_.rest().st + mqNew;
  moments_.mqdot = mqdotNew;
  momentsAre_ = Moments::Known;
  momentShift_.setZero();
  momentQdotShift_.setZero();
  takeTimes(profile);
  return result;
}

}  // namespace d2t
