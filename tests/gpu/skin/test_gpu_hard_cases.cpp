// The GPU solver against the CPU reference at the cases the first comparisons
// (test_gpu_skin.cpp) leave out: the torus atlas (wrapping gutters) through the stencil,
// the CG solve and a whole free step; step 3's coupling pass and steps 4-5's velocities
// pass each alone (end to end, a dropped term in either stays within the free step's
// bounds); the response's rows with a fixed core (rows.frag's uFixed) and as
// equalities (rows_round.frag, oneSided off); a fixed core in whole steps; a free step
// at atlas resolution 128; a stack of three balls on the ground on both backends.
//
// Sections: helpers; 1. the torus atlas; 2. the coupling and velocities passes;
// 3. the response's rows (fixed core, equalities, a held ball in whole steps);
// 5. atlas resolution 128; 6. a stack of three on both backends (4., the contact
// camera at the cube map's seams, is tests/gpu/contact/test_contact_camera_seams.cpp).
//
// Errors of vector-valued stages: max_i |gpu_i - cpu_i| / max_i |cpu_i| (as in
// test_gpu_skin.cpp). Each bound is a small multiple of the figure measured on Mesa
// llvmpipe, which the comment next to it gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "gl_test.h"
#include "gpu_pair.h"
#include "gpu/skin/gpu_skin.h"
#include "sim/one_body.h"
#include "sim/test_shapes.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

using GpuHardCaseTest = test::GlTest;
using test::Pair;
using test::randomField;
using test::relativeError;
using test::torus;

// ... and the largest error at a node of the torus atlas's wrapping seams (a node whose
// stencil reads a gutter texel), relative to the same scale
double seamError(const Atlas& a, const std::vector<Vec3>& gpu, const std::vector<Vec3>& cpu) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < cpu.size(); ++i) ref = std::max(ref, cpu[i].norm());
  const int n = a.resolution;
  for (int i = 0; i < a.nodeCount(); ++i) {
    const int t = a.nodeTexel[size_t(i)], x = t % n, y = t / n;
    bool seam = false;
    for (int k = 1; k < kStencilSlots; ++k) {
      const int xs = x + kStencilDx[k], ys = y + kStencilDy[k];
      seam |= a.texelKind[size_t(ys * n + xs)] == TexelKind::Gutter;
    }
    if (seam) err = std::max(err, (gpu[size_t(i)] - cpu[size_t(i)]).norm());
  }
  return ref > 0 ? err / ref : err;
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// One collision-free step from a random skin state on a spinning, moving body, both
// backends; errors of q, qdot, the core's v and omega.
struct FreeStepErrors {
  double q = 0, qdot = 0, v = 0, w = 0, seamQ = 0;
  int gpuIterations = 0, cpuIterations = 0;
};
FreeStepErrors freeStep(Pair& p, double scaleQ, unsigned seed) {
  p.settings([](SimulationSettings& s) { s.solver = {.method = "cg", .iterations = 400, .tolerance = 1e-7}; });
  const int n = p.cpu.nodeCount();
  for (LayeredBody* b : {&p.cpu, &p.gpu}) {
    LayeredState& s = b->editState();
    s.q = randomField(n, scaleQ, seed);
    s.qdot = randomField(n, 0.05, seed + 1);
    s.velocity = Vec3(0.3, -1, 0.2);
    s.angularVelocity = Vec3(1.5, -0.4, 3);
    s.orientation = Quat(Eigen::AngleAxisd(0.6, Vec3(1, 2, 3).normalized()));
  }
  p.step(1.0 / 60, kG);
  const LayeredState &c = p.cpu.state(), &g = p.gpu.state();
  FreeStepErrors e;
  e.q = relativeError(g.q, c.q);
  e.qdot = relativeError(g.qdot, c.qdot);
  e.v = (g.velocity - c.velocity).norm() / c.velocity.norm();
  e.w = (g.angularVelocity - c.angularVelocity).norm() / c.angularVelocity.norm();
  e.seamQ = p.model->atlas.layout == AtlasLayout::Torus ? seamError(p.model->atlas, g.q, c.q) : 0;
  e.gpuIterations = p.gpu.lastStep().cgIterations;
  e.cpuIterations = p.cpu.lastStep().cgIterations;
  return e;
}

// ---- 1. the torus atlas: wrapping gutters --------------------------------------------------------

// K x and Mt x on the torus atlas (every node's stencil, the seams' through the
// wrapping gutters), as StencilProductsMatchTheCpu does on the ball.
TEST_F(GpuHardCaseTest, TorusStencilProductsMatchTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  BodyDesc d = torus(48, 1e6);
  d.material.alpha = 0.3;
  d.material.beta = 0.01;
  Pair p(d);
  ASSERT_EQ(p.model->atlas.layout, AtlasLayout::Torus);
  p.step(0.01, Vec3::Zero());  // prepares Mt_e for dt
  const std::vector<Vec3> x = randomField(p.cpu.nodeCount(), 1e-3, 1);
  std::vector<Vec3> kx, mtx;
  multiplyStencil(p.cpu.model().atlas.stencil, p.cpu.elastic().stiffness(), x, kx);
  p.cpu.implicitOperator().multiply(x, mtx);
  const double dt = 0.01;
  const double c1 = 1 + dt * d.material.alpha, c2 = dt * d.material.beta + dt * dt;
  const std::vector<Vec3> gk = p.skin->stencilProduct(x, 1, 0), gmt = p.skin->stencilProduct(x, c2, c1);
  const double eK = relativeError(gk, kx), eMt = relativeError(gmt, mtx);
  const double sK = seamError(p.model->atlas, gk, kx), sMt = seamError(p.model->atlas, gmt, mtx);
  std::printf("torus 48^2 (%d nodes) stencil pass vs CPU: K x %.2e (seams %.2e), Mt x %.2e (seams %.2e); %.1f s\n",
              p.cpu.nodeCount(), eK, sK, eMt, sMt, seconds(t0));
  // (measured: K x 1.30e-7, Mt x 1.72e-7; at the seams 1.03e-7, 9.5e-8)
  EXPECT_LT(eK, 5e-7);
  EXPECT_LT(eMt, 5e-7);
}

TEST_F(GpuHardCaseTest, TorusConjugateGradientsSolveTheImplicitSystem) {
  const auto t0 = std::chrono::steady_clock::now();
  Pair p(torus(48, 1e6));
  p.step(1.0 / 60, Vec3::Zero());
  const int n = p.cpu.nodeCount();
  const std::vector<Vec3> b = randomField(n, 1e-2, 4);
  std::vector<Vec3> x(n, Vec3::Zero()), r;
  double residual = 0;
  const int it = p.skin->solve(p.cpu.view(), b, x, 300, 1e-5, &residual);
  p.cpu.implicitOperator().multiply(x, r);
  double rn = 0, bn = 0, seam = 0;
  for (int i = 0; i < n; ++i) {
    rn += (r[i] - b[i]).squaredNorm();
    bn += b[i].squaredNorm();
  }
  // and against the CPU's own solve to 1e-10 (the same system, in double)
  std::vector<Vec3> xc(n, Vec3::Zero());
  p.cpu.implicitOperator().solve(b, xc, 20 * n, 1e-10, nullptr);
  const double eX = relativeError(x, xc);
  seam = seamError(p.model->atlas, x, xc);
  std::printf("torus 48^2 GPU CG: %d iterations, reported residual %.2e, true residual (double) %.2e; x vs the "
              "CPU's solve %.2e (seams %.2e); %.1f s\n",
              it, residual, std::sqrt(rn / bn), eX, seam, seconds(t0));
  EXPECT_LE(residual, 1e-5);
  // (measured: 72 iterations, true residual 3.59e-6, x 8.37e-6 (seams 8.30e-6))
  EXPECT_LT(std::sqrt(rn / bn), 1e-5);
  EXPECT_LT(eX, 3e-5);
  EXPECT_LT(it, 300);
}

TEST_F(GpuHardCaseTest, TorusFreeStepMatchesTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  BodyDesc d = torus(48, 1e6);
  d.material.alpha = 0.1;
  d.material.beta = 0.002;
  Pair p(d);
  const FreeStepErrors e = freeStep(p, 2e-3, 5);
  std::printf("torus 48^2 free step GPU vs CPU: q %.2e (seams %.2e), qdot %.2e, core v %.2e, omega %.2e (CG %d / %d "
              "iterations); %.1f s\n",
              e.q, e.seamQ, e.qdot, e.v, e.w, e.gpuIterations, e.cpuIterations, seconds(t0));
  // (measured: q 1.48e-5 (seams 1.19e-5; q(t) + dt qdot nearly cancels on this stiff skin: 5.4e-9 m of a
  // largest |q| of 3.7e-4 m), qdot 1.85e-6, v 8.1e-9, omega 1.3e-8; CG 80 / 40 iterations. The ball's
  // FreeStepMatchesTheCpu measures 2.25e-5, 3.3e-6, 6.6e-8, 8.7e-8.)
  EXPECT_LT(e.q, 5e-5);
  EXPECT_LT(e.qdot, 6e-6);
  EXPECT_LT(e.v, 3e-8);
  EXPECT_LT(e.w, 5e-8);
}

// ---- 2. step 3's coupling pass and steps 4-5's velocities pass, each alone -------------------------

// The operators of a body prepared for dt, a random skin state, a random y'
// (Mt_e y' = Ft_e' as the CG leaves it), a rotated body under gravity.
struct CouplingCase {
  explicit CouplingCase(const BodyDesc& d) : p(d) {
    p.step(dt, Vec3::Zero());  // prepares Mt_e, W_t, W_r, Mh_e^-1 for dt
    const int n = p.cpu.nodeCount();
    q = randomField(n, 3e-3, 31);
    qdot = randomField(n, 0.05, 32);
    y = randomField(n, 0.5, 33);  // [m/s^2]
  }
  Pair p;
  const double dt = 0.01;
  std::vector<Vec3> q, qdot, y;
  const Quat orientation = Quat(Eigen::AngleAxisd(0.9, Vec3(1, -2, 0.7).normalized()));
  // M_ce Y and M_ce y on the CPU (LayeredBody::integrateFree, step 3), from the cached columns
  std::pair<Core::Matrix, Core::Vector> cpuCoupling(const std::vector<Vec3>& qs, const std::vector<Vec3>& ys) const {
    const BakedBody& m = *p.model;
    const ImplicitOperator& op = p.gpu.implicitOperator();
    const Mat3 R = orientation.toRotationMatrix();
    const Vec3 gb = R.transpose() * kG;
    Core::CouplingSum my;
    Core::CouplingColumnsSum mY;
    for (int i = 0; i < m.nodeCount(); ++i) {
      const auto& wt = op.translationalCoupling()[size_t(i)];
      const Vec3 u = m.restSkin[size_t(i)] + qs[size_t(i)];
      my.add(m.nodeMass[size_t(i)], u, ys[size_t(i)] + wt[0] * gb[0] + wt[1] * gb[1] + wt[2] * gb[2]);
      mY.add(m.nodeMass[size_t(i)], u,
             Core::cachedColumns(wt, op.rotationalCoupling()[size_t(i)], op.diagInverse()[size_t(i)],
                                 m.nodeMass[size_t(i)], qs[size_t(i)], R));
    }
    return {mY.value(R), my.value(R)};
  }
};

// coupling.frag (passes A and B) summed into M_ce Y and M_ce y, against the CPU's sums;
// errors relative to the parts that depend on the skin state (the rest shape's are
// summed in double on both).
TEST_F(GpuHardCaseTest, CouplingPassMatchesTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const BodyDesc& d : {test::ball(kR, 48, 1e6), torus(32, 1e6)}) {
    CouplingCase c(d);
    const int n = c.p.cpu.nodeCount();
    const auto [MceY, Mcey] = c.cpuCoupling(c.q, c.y);
    const auto [restY, resty] = c.cpuCoupling(std::vector<Vec3>(size_t(n), Vec3::Zero()),
                                              std::vector<Vec3>(size_t(n), Vec3::Zero()));
    const GpuSkin::CouplingProducts g = c.p.skin->coupling(c.p.gpu.view(), c.q, c.y, c.orientation, kG);
    // by block: the translational columns (rows of M_ce: linear, angular) and the rotational ones
    auto blockError = [&](int r, int k) {
      return (g.MceY.block<3, 3>(r, k) - MceY.block<3, 3>(r, k)).norm() /
             std::max((MceY.block<3, 3>(r, k) - restY.block<3, 3>(r, k)).norm(), 1e-300);
    };
    const double eTt = (g.MceY.block<3, 3>(0, 0) - MceY.block<3, 3>(0, 0)).norm() / MceY.block<3, 3>(0, 0).norm();
    const double eRt = blockError(3, 0), eTr = blockError(0, 3), eRr = blockError(3, 3);
    const double eY = (g.Mcey - Mcey).norm() / (Mcey - resty).norm();
    const double stateY = (MceY - restY).norm() / MceY.norm();
    std::printf("coupling pass (%s, %d nodes) vs CPU, relative to the skin state's parts (%.1e of M_ce Y): M_ce Y "
                "blocks tt %.2e (no state part), rt %.2e, tr %.2e, rr %.2e; M_ce y %.2e\n",
                d.shape->type().c_str(), n, stateY, eTt, eRt, eTr, eRr, eY);
    // (measured, ball / torus: tt 1.5e-15 / 7.4e-16, rt 1.35e-7 / 1.36e-7, tr 1.06e-7 / 1.38e-7, rr 1.04e-7 /
    // 1.45e-7; M_ce y 6.7e-8 / 1.50e-7)
    EXPECT_LT(eTt, 1e-12);  // (no skin-state part: the same double sum)
    EXPECT_LT(std::max({eRt, eTr, eRr}), 5e-7);
    EXPECT_LT(eY, 5e-7);
  }
  std::printf("%.1f s\n", seconds(t0));
}

// velocities.frag: dv_e = dt y - Y dv_c and q = q(t) + dt qdot for a given core change,
// against LayeredBody::integrateFree's steps 4-5 (Core::minusCoupled of the cached columns).
TEST_F(GpuHardCaseTest, VelocitiesPassMatchesTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const BodyDesc& d : {test::ball(kR, 48, 1e6), torus(32, 1e6)}) {
    CouplingCase c(d);
    const BakedBody& m = *c.p.model;
    const ImplicitOperator& op = c.p.gpu.implicitOperator();
    const int n = c.p.cpu.nodeCount();
    Core::Vector dvc;
    dvc << 0.02, -0.05, 0.01, 0.3, -0.2, 0.1;
    const Mat3 R = c.orientation.toRotationMatrix();
    const Vec3 gb = R.transpose() * kG;
    std::vector<Vec3> dvCpu(n), qCpu(n);
    Vec3 mqdot = Vec3::Zero(), mq = Vec3::Zero();
    double scaleQdot = 0, scaleQ = 0;
    for (int i = 0; i < n; ++i) {
      const auto& wt = op.translationalCoupling()[size_t(i)];
      const Vec3 y = c.y[size_t(i)] + wt[0] * gb[0] + wt[1] * gb[1] + wt[2] * gb[2];
      const Core::Columns Y = Core::cachedColumns(wt, op.rotationalCoupling()[size_t(i)], op.diagInverse()[size_t(i)],
                                                  m.nodeMass[size_t(i)], c.q[size_t(i)], R);
      dvCpu[size_t(i)] = Core::minusCoupled(c.dt * y, Y, dvc);
      const Vec3 qdot = c.qdot[size_t(i)] + dvCpu[size_t(i)];
      qCpu[size_t(i)] = c.q[size_t(i)] + c.dt * qdot;
      mqdot += m.nodeMass[size_t(i)] * qdot;
      mq += m.nodeMass[size_t(i)] * qCpu[size_t(i)];
      scaleQdot += m.nodeMass[size_t(i)] * qdot.norm();
      scaleQ += m.nodeMass[size_t(i)] * qCpu[size_t(i)].norm();
    }
    LayeredState out;
    Vec3 gMqdot, gMq;
    c.p.skin->velocities(c.p.gpu.view(), c.q, c.qdot, c.y, c.orientation, kG, dvc, c.dt, out, &gMqdot, &gMq);
    std::vector<Vec3> dvGpu(n);
    for (int i = 0; i < n; ++i) dvGpu[size_t(i)] = out.qdot[size_t(i)] - c.qdot[size_t(i)];
    const double eDv = relativeError(dvGpu, dvCpu), eQ = relativeError(out.q, qCpu);
    const double eMqdot = (gMqdot - mqdot).norm() / scaleQdot, eMq = (gMq - mq).norm() / scaleQ;
    std::printf("velocities pass (%s) vs CPU: dv_e %.2e, q %.2e; sum m qdot %.2e, sum m q %.2e (of sum m |.|)\n",
                d.shape->type().c_str(), eDv, eQ, eMqdot, eMq);
    // (measured, ball / torus: dv_e 2.08e-7 / 3.66e-7, q 6.3e-8 / 5.7e-8, sum m qdot 2.2e-8 / 2.2e-9, sum m q
    // 4.8e-9 / 7.0e-9)
    EXPECT_LT(eDv, 1e-6);
    EXPECT_LT(eQ, 2e-7);
    EXPECT_LT(eMqdot, 1e-7);
    EXPECT_LT(eMq, 3e-8);
  }
  std::printf("%.1f s\n", seconds(t0));
}

// ---- 3. the response's rows with a fixed core, and as equalities --------------------------------

// Random rows at ~5% of the nodes of a random skin state (as ContactResponsePassesMatchTheCpu:
// chained rows, release rows, rows on the core, nodes held on the core), the rows set
// with `fixedCore` and solved in rounds with `oneSided`, on both; then the impulse, the
// energy, the friction and apply, the GPU fed the CPU's core changes.
struct RowErrors {
  double S = 0, rhs = 0, lambda = 0, gap = 0, fc = 0, mt = 0, mr = 0, energy = 0, friction = 0,
         frictionSums = 0, qdot = 0, q = 0;
  double gpuS = 0, gpuRhs = 0;  // |S|, |rhs| of the GPU's rounds (a fixed core: exactly 0)
  int rows = 0, rounds = 0, below = 0, belowMismatch = 0, negative = 0;
};
RowErrors compareRows(const BodyDesc& base, bool fixedCore, bool oneSided) {
  BodyDesc d = base;
  d.material.alpha = 0.2;
  d.material.beta = 0.005;
  Pair p(d);
  p.step(0.01, Vec3::Zero());  // prepares Mt_e (and Mh_e^-1) for dt
  p.cpu.settings().fixedCore = p.gpu.settings().fixedCore = fixedCore;
  const test::ResponseInput in = test::randomResponseInput(p.gpu.state(), !fixedCore);
  const LayeredState& s = in.s;
  const std::vector<Vec3>& startQ = in.startQ;
  const std::vector<ContactRow>& rows = in.rows;
  const std::vector<std::pair<int, Vec3>>& held = in.held;
  const double dt = 0.01;
  RowErrors e;
  e.rows = int(rows.size());
  EXPECT_GT(rows.size(), 30u);
  CpuSkinResponse cpu;
  p.skin->load(p.gpu.view(), s, startQ);
  EXPECT_TRUE(p.skin->holds(p.gpu.id()));
  cpu.holdOnCore(p.gpu.view(), held);
  p.skin->holdOnCore(p.gpu.view(), held);

  // step 9 and the rounds as respondThrough runs them: dv = 0 with a fixed core; the
  // rounds repeat only while one-sided rows leave the set
  cpu.setRows(p.gpu.view(), s, rows, dt, fixedCore);
  p.skin->setRows(p.gpu.view(), s, rows, dt, fixedCore);
  const Core::Matrix A = fixedCore ? Core::Matrix(Core::Matrix::Zero()) : Core::Matrix(p.gpu.coreMassMatrix());
  auto compareResults = [&] {
    const std::vector<RowResult> rc = cpu.rowResults(), rg = p.skin->rowResults();
    double scale = 0, gaps = 0;
    for (const RowResult& r : rc) scale = std::max(scale, std::abs(r.lambda));
    for (const RowResult& r : rc) gaps = std::max(gaps, r.startGap);
    for (size_t k = 0; k < rc.size(); ++k) {
      e.lambda = std::max(e.lambda, std::abs(rg[k].lambda - rc[k].lambda) / scale);
      e.gap = std::max(e.gap, std::abs(rg[k].startGap - rc[k].startGap) / gaps);
    }
  };
  auto compareSums = [&](const RowSums& sg, const RowSums& sc) {
    e.gpuS = std::max(e.gpuS, sg.S.norm());
    e.gpuRhs = std::max(e.gpuRhs, sg.rhs.norm());
    if (!fixedCore) {
      e.S = std::max(e.S, (sg.S - sc.S).norm() / sc.S.norm());
      e.rhs = std::max(e.rhs, (sg.rhs - sc.rhs).norm() / sc.rhs.norm());
    }
    e.belowMismatch += sg.below != sc.below;
  };
  RowSums sc = cpu.roundRows(nullptr, oneSided), sg = p.skin->roundRows(nullptr, oneSided);
  compareSums(sg, sc);
  for (int round = 0; round < 20; ++round) {
    const Core::Vector dv = fixedCore ? Core::Vector(Core::Vector::Zero()) : Core::Vector((A + sc.S).ldlt().solve(sc.rhs));
    sc = cpu.roundRows(&dv, oneSided);
    sg = p.skin->roundRows(&dv, oneSided);
    compareSums(sg, sc);
    compareResults();
    e.below += sc.below;
    ++e.rounds;
    if (!oneSided || sc.below == 0) break;
  }
  // D_k and b_k: with a fixed core (U = 0) and as equalities every active row's first
  // lambda is b_k / D_k, which compareResults saw; the rows pulling (lambda < 0)
  for (const RowResult& r : cpu.rowResults()) e.negative += r.lambda < 0;
  // the impulse, and the core's change from it (none with a fixed core)
  const ImpulseSums ic = cpu.impulse(p.gpu.view(), s), ig = p.skin->impulse(p.gpu.view(), s);
  e.fc = (ig.fc - ic.fc).norm() / ic.fc.norm();
  e.mt = (ig.mt - ic.mt).norm() / ic.mt.norm();
  e.mr = (ig.mr - ic.mr).norm() / ic.mr.norm();
  Core::Vector dv = Core::Vector::Zero();
  if (!fixedCore) dv = A.ldlt().solve(Core::impulseRhs(ic.fc, ic.mt, ic.mr, s.orientation.toRotationMatrix()));
  const Vec3 dvt = s.orientation.conjugate() * Core::linear(dv), dw = Core::angular(dv);
  const Vec3 kc = cpu.energy(p.gpu.view(), s, dvt, dw), kg = p.skin->energy(p.gpu.view(), s, dvt, dw);
  e.energy = (kg - kc).cwiseAbs().cwiseQuotient(kc.cwiseAbs()).maxCoeff();
  const double share = 0.7;
  LayeredState after = s;
  after.velocity += share * dv.head<3>();
  after.angularVelocity += share * dw;
  const ImpulseSums fc = cpu.friction(p.gpu.view(), after, share, dvt, dw);
  const ImpulseSums fg = p.skin->friction(p.gpu.view(), after, share, dvt, dw);
  e.frictionSums = std::max({(fg.fc - fc.fc).norm() / fc.fc.norm(), (fg.mt - fc.mt).norm() / fc.mt.norm(),
                             (fg.mr - fc.mr).norm() / fc.mr.norm()});
  Core::Vector fdv = Core::Vector::Zero();
  if (!fixedCore) fdv = A.ldlt().solve(Core::impulseRhs(fc.fc, fc.mt, fc.mr, s.orientation.toRotationMatrix()));
  const Vec3 fdvt = s.orientation.conjugate() * Core::linear(fdv), fdw = Core::angular(fdv);
  const std::vector<RowResult> rc = cpu.rowResults(), rg = p.skin->rowResults();
  double fScale = 0;
  for (size_t k = 0; k < rc.size(); ++k) {
    fScale = std::max(fScale, rc[k].frictionImpulse.norm());
    e.friction = std::max(e.friction, (rg[k].frictionImpulse - rc[k].frictionImpulse).norm());
  }
  e.friction /= fScale;
  LayeredState sc1 = s, sg1 = s;
  cpu.apply(p.gpu.view(), startQ, dvt, dw, share, fdvt, fdw, dt, sc1);
  p.skin->apply(p.gpu.view(), startQ, dvt, dw, share, fdvt, fdw, dt, sg1);
  p.skin->readSkin(p.gpu.view(), sg1);
  e.qdot = relativeError(sg1.qdot, sc1.qdot);
  e.q = relativeError(sg1.q, sc1.q);
  std::printf("rows (%s, %s core, %s): %d rows, %d rounds, %d below lo (%d pulling at the end), |S| %.1e |rhs| %.1e "
              "on the GPU; S %.2e, rhs %.2e, lambda %.2e, gap %.2e; impulse fc %.2e, mt %.2e, mr %.2e; energy "
              "%.2e; friction %.2e, its sums %.2e; apply qdot %.2e, q %.2e\n",
              d.shape->type().c_str(), fixedCore ? "fixed" : "free", oneSided ? "one-sided" : "equalities", e.rows,
              e.rounds, e.below, e.negative, e.gpuS, e.gpuRhs, e.S, e.rhs, e.lambda, e.gap, e.fc, e.mt, e.mr,
              e.energy, e.friction, e.frictionSums, e.qdot, e.q);
  return e;
}

// rows.frag's uFixed: U_k = 0 (the core takes nothing: S = rhs = 0 on both, exactly),
// each row's lambda = b_k / D_k of the node alone.
TEST_F(GpuHardCaseTest, ResponseRowsWithAFixedCoreMatchTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const BodyDesc& d : {test::ball(kR, 48, 1e6), torus(32, 1e6)}) {
    const RowErrors e = compareRows(d, true, true);
    EXPECT_EQ(e.gpuS, 0.0);  // (U = 0 exactly)
    EXPECT_EQ(e.gpuRhs, 0.0);
    EXPECT_EQ(e.belowMismatch, 0);
    EXPECT_GT(e.below, 0);  // (some rows pulled and left the set)
    // (measured, ball / torus: 61 / 53 rows, 38 / 32 below lo; lambda 7.9e-8 / 1.43e-7, gap 7.8e-8 / 7.8e-8,
    // impulse (fc, mt, mr) 3.9e-7 / 1.9e-7, energy 8.1e-8 / 4.1e-8, friction 1.8e-7 / 2.1e-7, its sums
    // 2.3e-7 / 3.3e-7, apply qdot 9.9e-8 / 1.1e-7, q 6.1e-8 / 6.1e-8)
    EXPECT_LT(e.lambda, 5e-7);
    EXPECT_LT(e.gap, 3e-7);
    EXPECT_LT(std::max({e.fc, e.mt, e.mr}), 1e-6);
    EXPECT_LT(e.energy, 3e-7);
    EXPECT_LT(e.friction, 6e-7);
    EXPECT_LT(e.frictionSums, 1e-6);
    EXPECT_LT(e.qdot, 4e-7);
    EXPECT_LT(e.q, 2e-7);
  }
  std::printf("%.1f s\n", seconds(t0));
}

// rows_round.frag with oneSided off: every active row stays in the set, pulling ones
// too (negative lambda), in one round.
TEST_F(GpuHardCaseTest, EqualityRowsMatchTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const BodyDesc& d : {test::ball(kR, 48, 1e6), torus(32, 1e6)}) {
    const RowErrors e = compareRows(d, false, false);
    EXPECT_EQ(e.rounds, 1);
    EXPECT_EQ(e.belowMismatch, 0);
    EXPECT_GT(e.below, 5);  // rows below lo, kept in the set (they pull)
    // (measured, ball / torus: 61 / 53 rows, 39 / 37 below lo; S 4.4e-8 / 4.7e-8, rhs 7.4e-8 / 9.3e-8, lambda
    // 3.2e-7 / 1.8e-7, gap 1.4e-7 / 9.0e-8, impulse (fc, mt, mr) 1.5e-7 / 3.3e-7, energy 5.0e-8 / 6.9e-8,
    // friction 1.4e-7 / 2.3e-7, its sums 2.3e-7 / 1.9e-7, apply qdot 3.0e-7 / 2.5e-7, q 2.5e-7 / 1.9e-7)
    EXPECT_LT(e.S, 2e-7);
    EXPECT_LT(e.rhs, 3e-7);
    EXPECT_LT(e.lambda, 1e-6);
    EXPECT_LT(e.gap, 5e-7);
    EXPECT_LT(std::max({e.fc, e.mt, e.mr}), 1e-6);
    EXPECT_LT(e.energy, 3e-7);
    EXPECT_LT(e.friction, 7e-7);
    EXPECT_LT(e.frictionSums, 7e-7);
    EXPECT_LT(e.qdot, 1e-6);
    EXPECT_LT(e.q, 1e-6);
  }
  std::printf("%.1f s\n", seconds(t0));
}

// ... and a fixed core in whole steps: a ball held by its core (fixedCore) 1 cm into the
// ground, then lifted off it 0.5 mm a step (LayeredBody::liftCoreBy, on both): the rows
// (U = 0) carry the skin alone, some pulling as it leaves the ground.
TEST_F(GpuHardCaseTest, HeldBallLiftedOffTheGroundStaysWithTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.position = Vec3(0, kR - 0.01, 0);
    Pair p(d, true);
    p.cpu.settings().fixedCore = p.gpu.settings().fixedCore = true;
    p.settings([&](SimulationSettings& s) { s.solver.method = "cg"; });
    double maxQ = 0, maxPos = 0, largest = 0;
    int contacts = 0, pulling = 0, pullingCpu = 0;
    for (int k = 0; k < 80; ++k) {
      if (k >= 20)
        for (LayeredBody* b : {&p.cpu, &p.gpu}) b->liftCoreBy(Vec3(0, 5e-4, 0));
      p.step(0.005, kG);
      const LayeredState &c = p.cpu.state(), &g = p.gpu.state();
      maxPos = std::max(maxPos, (g.position - c.position).norm());
      for (int i = 0; i < p.cpu.nodeCount(); ++i) {
        maxQ = std::max(maxQ, (g.q[size_t(i)] - c.q[size_t(i)]).norm());
        largest = std::max(largest, c.q[size_t(i)].norm());
      }
      contacts += p.gpu.lastStep().contacts;
      pulling += p.gpu.lastStep().pulling;
      pullingCpu += p.cpu.lastStep().pulling;
    }
    double lowest = 1e300;  // the skin's lowest node at the end (the core's lowest is 4 cm up by then)
    for (int i = 0; i < p.cpu.nodeCount(); ++i) lowest = std::min(lowest, p.cpu.nodePosition(i).y());
    std::printf("held ball lifted off the ground, 80 steps GPU vs CPU: skin %.2e m (largest |q| %.2e m), core "
                "%.2e m; %d contacts, %d / %d rows pulling (GPU / CPU) over the run; lowest node %.2e m\n",
                maxQ, largest, maxPos, contacts, pulling, pullingCpu, lowest);
    EXPECT_EQ(p.gpu.freeMotionSolver(), p.skin.get());
    EXPECT_GT(p.skin->appliedImpulses(), 20);
    EXPECT_LT(maxPos, 1e-12);  // (held: both moved by the same lifts only)
    EXPECT_GT(largest, 5e-3);
    EXPECT_GT(pullingCpu, 0);
    // (measured: skin 6.4e-9 m of a largest |q| of 9.9e-3 m; 163 contacts, 79 rows pulling, on both)
    EXPECT_EQ(pulling, pullingCpu);
    EXPECT_LT(maxQ, 3e-8);
  }
  std::printf("%.1f s\n", seconds(t0));
}

// ---- 5. atlas resolution 128 --------------------------------------------------------------------

TEST_F(GpuHardCaseTest, FreeStepAt128MatchesTheCpu) {
  const auto t0 = std::chrono::steady_clock::now();
  BodyDesc d = test::ball(kR, 128, 1e6);
  d.material.alpha = 0.1;
  d.material.beta = 0.002;
  Pair p(d);
  const double baked = seconds(t0);
  const FreeStepErrors e = freeStep(p, 1e-3, 5);
  std::printf("128^2 (%d nodes) free step GPU vs CPU: q %.2e, qdot %.2e, core v %.2e, omega %.2e (CG %d / %d "
              "iterations); %.1f s (%.1f s the bakes)\n",
              p.cpu.nodeCount(), e.q, e.qdot, e.v, e.w, e.gpuIterations, e.cpuIterations, seconds(t0), baked);
  // (measured: q 1.09e-4 (of a q that is mostly q(t) + dt qdot cancelling: 5e-9 m), qdot 1.77e-5, v 1.45e-7,
  // omega 3.63e-7; 2.5x the 48^2 figures: the CG's stop at 1e-7 on a worse-conditioned Mt_e. With both solved
  // to 1e-12, qdot differs by 5.8e-6 at 128^2 and 3.4e-6 at 48^2.)
  EXPECT_LT(e.q, 3e-4);
  EXPECT_LT(e.qdot, 5e-5);
  EXPECT_LT(e.v, 5e-7);
  EXPECT_LT(e.w, 1e-6);
}

// ---- 6. a stack of three on both backends ---------------------------------------------------------

// Three 1 MPa balls (32^2, rolling resistance 0.05, as BodyContact.StackOfThreeComesToRest)
// set on the ground one above the other, stepped in a World on the CPU backend and in
// one on the GPU backend (every body's free update and response on its GpuSkin, the
// ground detected by the GPU's pass, the pairs by the CPU's stage 2 from the gathered
// nodes) for 240 steps (1.2 s: they land, bounce and settle); the core trajectories
// compared step by step, the solvers still attached, no warnings.
Scene stackOfThree() {
  Scene scene;
  ColliderDesc g;
  g.name = "ground";
  scene.colliders.push_back(g);
  for (int k = 0; k < 3; ++k) {
    BodyDesc d = test::ball(kR, 32, 1e6);
    d.name = "ball" + std::to_string(k);
    d.material.rollingResistance = 0.05;
    d.position = Vec3(0, kR + 0.002 + k * (2 * kR + 0.004), 0);
    scene.bodies.push_back(d);
  }
  return scene;
}

TEST_F(GpuHardCaseTest, StackOfThreeFollowsTheCpuBackend) {
  const auto t0 = std::chrono::steady_clock::now();
  const Scene scene = stackOfThree();
  World cpu(scene), gpu(scene);
  std::vector<std::shared_ptr<GpuSkin>> skins;
  for (Body& b : gpu.bodies()) {
    skins.push_back(std::make_shared<GpuSkin>(b.model));
    b.layered.setFreeMotionSolver(skins.back());
  }
  constexpr int kSteps = 240;
  double maxGap = 0;
  int worstStep = 0, worstBody = 0;
  std::vector<std::string> warnings;
  for (int k = 1; k <= kSteps; ++k) {
    cpu.step();
    gpu.step();
    for (std::string& w : gpu.takeWarnings()) warnings.push_back(w);
    for (int i = 0; i < 3; ++i) {
      const double gap = (gpu.bodies()[size_t(i)].layered.core().position -
                          cpu.bodies()[size_t(i)].layered.core().position).norm();
      if (gap > maxGap) {
        maxGap = gap;
        worstStep = k;
        worstBody = i;
      }
    }
  }
  double heightGap = 0, offAxis = 0, speed = 0;
  for (int i = 0; i < 3; ++i) {
    const Vec3 c = cpu.bodies()[size_t(i)].layered.core().position, g = gpu.bodies()[size_t(i)].layered.core().position;
    heightGap = std::max(heightGap, std::abs(g.y() - c.y()));
    offAxis = std::max(offAxis, Vec2(g.x(), g.z()).norm());
    speed = std::max(speed, gpu.bodies()[size_t(i)].layered.core().velocity.norm());
    std::printf("  ball %d after %d steps: height CPU %.5f m, GPU %.5f m\n", i, kSteps, c.y(), g.y());
  }
  for (const std::string& w : warnings) std::printf("  warning: %s\n", w.c_str());
  std::printf("stack of three, %d steps CPU vs GPU backend: core positions at most %.2e m apart (ball %d, step %d); "
              "final heights %.2e m apart; GPU stack off axis %.2e m, fastest core %.2e m/s; %.1f s\n",
              kSteps, maxGap, worstBody, worstStep, heightGap, offAxis, speed, seconds(t0));
  for (const Body& b : gpu.bodies()) {
    EXPECT_NE(b.layered.freeMotionSolver(), nullptr) << b.desc.name;
    EXPECT_EQ(b.stats.resets, 0) << b.desc.name;
  }
  EXPECT_TRUE(warnings.empty());
  // the ground found by the GPU's detection pass, every body every step (two detections a step)
  std::printf("  GPU detection passes %ld (of %d body-steps)\n", gpu.gpuStageRuns().detection, 3 * kSteps);
  EXPECT_EQ(gpu.gpuStageRuns().detection, 2 * 3 * kSteps);  // (1440)
  // (measured with the GPU's multigrid CG: 9.0e-5 m (the top ball, step 143), the heights after 240 steps
  // 2.2e-5 m apart while the balls still bounce (fastest core 0.13 m/s). The bouncing stack amplifies each
  // solve's float rounding: with block-Jacobi CG the same figures moved between 3.5e-5 / 6.6e-6 m at the
  // tolerance 1e-6 and 8.7e-5 / 6.6e-5 m at 1e-7. Run for 1000 steps (5 s, 71 s here) the stack rests
  // (fastest core 3e-4 m/s, 3.2 mm off axis) at the CPU's heights within 1.2e-6 m: docs/contact.md says
  // within 0.2 mm.)
  EXPECT_LT(maxGap, 2e-4);
  EXPECT_LT(heightGap, 1e-4);
}

}  // namespace
}  // namespace d2t
