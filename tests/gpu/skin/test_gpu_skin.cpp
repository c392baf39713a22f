// The GPU solver's passes against the CPU reference (LayeredBody), stage by
// stage on random inputs, then whole steps, then closed-form checks on the GPU
// backend. Headless: EGL (llvmpipe in CI), small atlases.
//
// Errors of vector-valued stages are measured as max_i |gpu_i - cpu_i| / max_i |cpu_i|
// (a per-entry relative error is meaningless where an entry is a cancellation
// of larger terms); the bound for float passes is 1e-6 (measured on llvmpipe: 3.6e-7 at
// most, a few float epsilons; a whole free step, whose CG stops at its tolerance, 1e-4).
//
// Sections: helpers (a height field, a ball over the ground; Pair, one body in two
// one-body Worlds, CPU and GPU, is in gpu_pair.h);
// single passes (gutter, stencil, reduction, forces, CG, free step, normals, the
// response's passes, the core contact pass and a soft ball at rest on its crushed skin,
// gather, World transfers, a soft stack, solver loss, blow-up, summary, detection);
// whole runs (ball drop, detection in a World, free fall, rest, bounce, springs, drag,
// World restore).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "sim/one_body.h"
#include "sim/morph/morph_bodies.h"
#include "sim/test_loads.h"
#include "sim/test_shapes.h"
#include "gl_test.h"
#include "gpu_pair.h"
#include "gpu/contact/contact_camera.h"
#include "gpu/skin/gpu_skin.h"
#include "sim/morph/morph_bodies.h"
#include "sim/loads/metaphor.h"
#include "sim/world/timeline.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

using GpuSkinTest = test::GlTest;
using test::ground;
using test::Pair;
using test::randomField;
using test::relativeError;
using test::torus;

// a height field collider of side `size` with ridges of `amplitude` every `wavelength`
ColliderDesc heightField(double size, double amplitude, double wavelength) {
  ColliderDesc c;
  c.type = ColliderType::HeightField;
  c.size = size;
  c.amplitude = amplitude;
  c.wavelength = wavelength;
  c.resolution = 64;
  return c;
}

// a World of one 32^2 ball (E 100 kPa) at height y with velocity v above the ground y = 0
Scene ballOnGround(double y, const Vec3& v = Vec3::Zero()) {
  Scene sc;
  BodyDesc d = test::ball(kR, 32, 1e5);
  d.position = Vec3(0, y, 0);
  d.velocity = v;
  sc.bodies.push_back(d);
  sc.colliders.push_back(ColliderDesc{});  // the ground
  return sc;
}

// ---- single passes -------------------------------------------------------------------------------

TEST_F(GpuSkinTest, GutterPassCopiesEachGutterTexelFromItsSourceNode) {
  for (const BodyDesc& d : {test::ball(kR, 32, 1e5), torus(24)}) {
    const BakedBodyPtr m = bake(d);
    GpuSkin skin(m);
    const Atlas& a = m->atlas;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> texels(size_t(a.texelCount()) * 4);
    for (float& v : texels) v = u(rng);  // gutters start as garbage
    std::vector<float> cpu = texels;
    fillGutter(a, cpu.data(), 4);
    const std::vector<float> gpu = skin.gutterFill(texels);
    int checked = 0;
    for (int t = 0; t < a.texelCount(); ++t) {
      if (a.texelKind[t] == TexelKind::Invalid || (a.texelKind[t] == TexelKind::Gutter && a.gutterSource[t] < 0))
        continue;
      for (int c = 0; c < 4; ++c) ASSERT_EQ(gpu[size_t(t) * 4 + c], cpu[size_t(t) * 4 + c]) << "texel " << t;
      checked += a.texelKind[t] == TexelKind::Gutter;
    }
    EXPECT_EQ(checked, int(a.gutterTexels.size())) << d.shape->type();
  }
}

TEST_F(GpuSkinTest, StencilProductsMatchTheCpu) {
  BodyDesc d = test::ball(kR, 48, 1e6);
  d.material.alpha = 0.3;
  d.material.beta = 0.01;
  Pair p(d);
  p.step(0.01, Vec3::Zero());  // prepares Mt_e for dt
  const std::vector<Vec3> x = randomField(p.cpu.nodeCount(), 1e-3, 1);
  std::vector<Vec3> kx, mtx;
  multiplyStencil(p.cpu.model().atlas.stencil, p.cpu.elastic().stiffness(), x, kx);
  p.cpu.implicitOperator().multiply(x, mtx);
  const double dt = 0.01;
  const double c1 = 1 + dt * d.material.alpha, c2 = dt * d.material.beta + dt * dt;
  const double eK = relativeError(p.skin->stencilProduct(x, 1, 0), kx);
  const double eMt = relativeError(p.skin->stencilProduct(x, c2, c1), mtx);
  std::printf("stencil pass vs CPU: K x %.2e, Mt x %.2e (relative to the largest entry)\n", eK, eMt);
  EXPECT_LT(eK, 1e-6);
  EXPECT_LT(eMt, 1e-6);
}

TEST_F(GpuSkinTest, ReductionPyramidSumsEveryNodeOnce) {
  for (int res : {32, 48, 64}) {
    const BakedBodyPtr m = bake(test::ball(kR, res, 1e5));
    GpuSkin skin(m);
    std::vector<Vec3> x = randomField(m->nodeCount(), 1.0, unsigned(res));
    for (Vec3& v : x) v += Vec3(1, 2, 3);  // a non-zero mean: gutter copies would show
    Vec3 cpu = Vec3::Zero();
    double scale = 0;
    for (const Vec3& v : x) {
      cpu += v;
      scale += v.norm();
    }
    const Vec3 gpu = skin.sum(x);
    EXPECT_LT((gpu - cpu).norm(), 1e-5 * scale) << "N = " << res << ": " << gpu.transpose() << " vs "
                                                 << cpu.transpose();
  }
}

TEST_F(GpuSkinTest, ForcesPassMatchesTheCpu) {
  const BakedBodyPtr m = bake(test::ball(kR, 48, 1e6));
  GpuSkin skin(m);
  const int n = m->nodeCount();
  const std::vector<Vec3> q = randomField(n, 5e-3, 2), qdot = randomField(n, 0.1, 3);
  const Vec3 w(0.7, -1.3, 2.1);
  const double alpha = 0.2, beta = 0.005, dt = 0.01;
  std::vector<Vec3> z, ma, zc(n), mac(n);
  const GpuForceSums f = skin.forces(q, qdot, w, alpha, beta, dt, &z, &ma);
  GpuForceSums c{Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Mat3::Zero()};
  double scaleQ = 0, scaleA = 0, scaleU = 0;
  for (int i = 0; i < n; ++i) {
    const double mi = m->nodeMass[i];
    const Vec3 ub = m->restSkin[i], u = ub + q[i];
    const Vec3 a = w.cross(w.cross(u)) + 2 * w.cross(qdot[i]);
    zc[i] = q[i] + (beta + dt) * qdot[i];
    mac[i] = mi * (alpha * qdot[i] + a);
    c.mq += mi * q[i];
    c.mqdot += mi * qdot[i];
    c.ma += mi * a;
    c.muxa += mi * u.cross(a);
    c.uu += mi * (u * u.transpose() - ub * ub.transpose());
    scaleQ += mi * (q[i].norm() + qdot[i].norm());
    scaleA += mi * a.norm() * u.norm();
    scaleU += mi * u.squaredNorm();
  }
  EXPECT_LT(relativeError(z, zc), 1e-6);
  EXPECT_LT(relativeError(ma, mac), 1e-6);
  EXPECT_LT((f.mq - c.mq).norm(), 1e-5 * scaleQ);
  EXPECT_LT((f.mqdot - c.mqdot).norm(), 1e-5 * scaleQ);
  EXPECT_LT((f.ma - c.ma).norm(), 1e-5 * scaleA);
  EXPECT_LT((f.muxa - c.muxa).norm(), 1e-5 * scaleA);
  EXPECT_LT((f.uu - c.uu).norm(), 1e-5 * scaleU);
}

TEST_F(GpuSkinTest, ConjugateGradientsSolveTheImplicitSystem) {
  BodyDesc d = test::ball(kR, 48, 1e6);
  Pair p(d);
  p.step(1.0 / 60, Vec3::Zero());
  const int n = p.cpu.nodeCount();
  const std::vector<Vec3> b = randomField(n, 1e-2, 4);
  std::vector<Vec3> x(n, Vec3::Zero()), r;
  double residual = 0;
  const int it = p.skin->solve(p.cpu.view(), b, x, 300, 1e-5, &residual);
  p.cpu.implicitOperator().multiply(x, r);
  double rn = 0, bn = 0;
  for (int i = 0; i < n; ++i) {
    rn += (r[i] - b[i]).squaredNorm();
    bn += b[i].squaredNorm();
  }
  std::printf("GPU CG: %d iterations, reported residual %.2e, true residual (double) %.2e\n", it, residual,
              std::sqrt(rn / bn));
  EXPECT_LE(residual, 1e-5);
  EXPECT_LT(std::sqrt(rn / bn), 2e-5);  // (measured 8.9e-6: the float recurrence tracks the true residual)
  EXPECT_LT(it, 300);
}

// One collision-free step from a random skin state on a spinning, moving body.
TEST_F(GpuSkinTest, FreeStepMatchesTheCpu) {
  BodyDesc d = test::ball(kR, 48, 1e6);
  d.material.alpha = 0.1;
  d.material.beta = 0.002;
  Pair p(d);
  p.settings([](SimulationSettings& s) { s.solver = {.method = "cg", .iterations = 400, .tolerance = 1e-7}; });
  const int n = p.cpu.nodeCount();
  for (LayeredBody* b : {&p.cpu, &p.gpu}) {
    LayeredState& s = b->editState();
    s.q = randomField(n, 2e-3, 5);
    s.qdot = randomField(n, 0.05, 6);
    s.velocity = Vec3(0.3, -1, 0.2);
    s.angularVelocity = Vec3(1.5, -0.4, 3);
    s.orientation = Quat(Eigen::AngleAxisd(0.6, Vec3(1, 2, 3).normalized()));
  }
  p.step(1.0 / 60, kG);
  const LayeredState &c = p.cpu.state(), &g = p.gpu.state();
  const double eQ = relativeError(g.q, c.q), eQdot = relativeError(g.qdot, c.qdot);
  const double eV = (g.velocity - c.velocity).norm() / c.velocity.norm();
  const double eW = (g.angularVelocity - c.angularVelocity).norm() / c.angularVelocity.norm();
  std::printf("free step GPU vs CPU: q %.2e, qdot %.2e, core v %.2e, omega %.2e (CG %d / %d iterations)\n", eQ,
              eQdot, eV, eW, p.gpu.lastStep().cgIterations, p.cpu.lastStep().cgIterations);
  EXPECT_LT(eQ, 1e-4);
  EXPECT_LT(eQdot, 1e-4);
  EXPECT_LT(eV, 5e-7);
  EXPECT_LT(eW, 5e-7);
}

// The drawing path: the deformed surface and its normals computed in textures
// against the CPU's area-weighted vertex normals of the same mesh.
TEST_F(GpuSkinTest, NormalsPassMatchesTheMeshNormals) {
  for (const BodyDesc& d : {test::ball(kR, 48, 1e5), torus(32)}) {
    const BakedBodyPtr m = bake(d);
    GpuSkin skin(m);
    const int n = m->nodeCount();
    std::vector<Vec3> q = randomField(n, 0.01, 9);
    skin.updateSurface(q);
    TriMesh mesh;
    for (int i = 0; i < n; ++i) mesh.positions.push_back(m->restSkin[size_t(i)] + q[size_t(i)]);
    mesh.triangles = m->atlas.triangles;
    const std::vector<Vec3> cpu = mesh.vertexNormals(), gpu = skin.readNormals();
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(gpu[size_t(i)].norm(), 1.0, 1e-5) << i;
      worst = std::max(worst, std::acos(std::clamp(gpu[size_t(i)].normalized().dot(cpu[size_t(i)]), -1.0, 1.0)));
    }
    std::printf("normals pass (%s): worst angle to the CPU mesh normals %.2e rad\n", d.shape->type().c_str(), worst);
    EXPECT_LT(worst, 1e-3);
  }
}

// The contact response's passes (condense; the rows: step 9, the active-set rounds, the
// impulse, energy, friction; apply) on a random skin state and random contact rows at
// random nodes (some nodes with 2-3 rows, some release rows, moving surfaces), against
// CpuSkinResponse. Each stage is fed the same inputs on both (the rounds the CPU's dv).
TEST_F(GpuSkinTest, ContactResponsePassesMatchTheCpu) {
  for (const BodyDesc& base : {test::ball(kR, 48, 1e6), torus(32)}) {
    BodyDesc d = base;
    d.material.alpha = 0.2;
    d.material.beta = 0.005;
    Pair p(d);
    p.step(0.01, Vec3::Zero());  // prepares Mt_e (and Mh_e^-1) for dt
    const int n = p.gpu.nodeCount();
    // a random skin state, rows at ~5% of the nodes, ~3% of the nodes held on the core
    // (gpu_pair.h)
    const test::ResponseInput in = test::randomResponseInput(p.gpu.state(), true);
    const LayeredState& s = in.s;
    const std::vector<Vec3>& startQ = in.startQ;
    const std::vector<ContactRow>& rows = in.rows;
    const std::vector<std::pair<int, Vec3>>& held = in.held;
    const double dt = 0.01;
    int chained = 0;
    for (const ContactRow& r : rows) chained += r.previous >= 0;
    ASSERT_GT(rows.size(), 30u);
    ASSERT_GT(chained, 3);

    CpuSkinResponse cpu;
    p.skin->load(p.gpu.view(), s, startQ);
    ASSERT_TRUE(p.skin->holds(p.gpu.id()));
    ASSERT_GT(held.size(), 10u);
    cpu.holdOnCore(p.gpu.view(), held);
    p.skin->holdOnCore(p.gpu.view(), held);
    int onCore = 0;
    for (const ContactRow& r : rows) onCore += r.onCore;
    ASSERT_GT(onCore, 10);
    // condensation: the skin-state parts (the rest-shape parts are summed in double)
    LayeredState rest = s;
    std::fill(rest.q.begin(), rest.q.end(), Vec3::Zero());
    CpuSkinResponse cpuRest;  // (the condensation's rest part, held as well)
    cpuRest.holdOnCore(p.gpu.view(), held);
    const CondensedSums c0 = cpuRest.condense(p.gpu.view(), rest), cc = cpu.condense(p.gpu.view(), s);
    const CondensedSums cg = p.skin->condense(p.gpu.view(), s);
    auto rel = [](const Mat3& g, const Mat3& c, const Mat3& r) { return (g - c).norm() / (c - r).norm(); };
    const double eTt = (cg.tt - cc.tt).norm() / cc.tt.norm();
    const double eTr = rel(cg.tr, cc.tr, c0.tr), eRr = rel(cg.rr, cc.rr, c0.rr);
    EXPECT_LT(eTt, 1e-12);  // (no skin-state part: the same double sum)
    EXPECT_LT(eTr, 1e-6);
    EXPECT_LT(eRr, 1e-6);

    // step 9 and the rounds, the GPU fed the CPU's dv
    cpu.setRows(p.gpu.view(), s, rows, dt, false);
    p.skin->setRows(p.gpu.view(), s, rows, dt, false);
    const Core::Matrix A = p.gpu.coreMassMatrix();
    double eS = 0, eRhs = 0, eLambda = 0, eGap = 0;
    int rounds = 0, left = 0;
    auto compareRows = [&] {
      const std::vector<RowResult> rc = cpu.rowResults(), rg = p.skin->rowResults();
      double scale = 0, gaps = 0;
      for (const RowResult& r : rc) scale = std::max(scale, std::abs(r.lambda));
      for (const RowResult& r : rc) gaps = std::max(gaps, r.startGap);
      for (size_t k = 0; k < rc.size(); ++k) {
        eLambda = std::max(eLambda, std::abs(rg[k].lambda - rc[k].lambda) / scale);
        eGap = std::max(eGap, std::abs(rg[k].startGap - rc[k].startGap) / gaps);
      }
    };
    RowSums sc = cpu.roundRows(nullptr, true), sg = p.skin->roundRows(nullptr, true);
    for (;;) {
      eS = std::max(eS, (sg.S - sc.S).norm() / sc.S.norm());
      eRhs = std::max(eRhs, (sg.rhs - sc.rhs).norm() / sc.rhs.norm());
      EXPECT_EQ(sg.below, sc.below) << rounds;
      if (rounds > 0 && sc.below == 0) break;
      ASSERT_LT(rounds, 20);
      left += sc.below;
      const Core::Vector dv = (A + sc.S).ldlt().solve(sc.rhs);
      sc = cpu.roundRows(&dv, true);
      sg = p.skin->roundRows(&dv, true);
      compareRows();
      ++rounds;
    }
    EXPECT_GT(left, 0);  // (some rows pulled and left the set)
    // the impulse
    const ImpulseSums ic = cpu.impulse(p.gpu.view(), s), ig = p.skin->impulse(p.gpu.view(), s);
    const double eFc = (ig.fc - ic.fc).norm() / ic.fc.norm();
    const double eMt = (ig.mt - ic.mt).norm() / ic.mt.norm(), eMr = (ig.mr - ic.mr).norm() / ic.mr.norm();
    const Core::Vector dv = A.ldlt().solve(Core::impulseRhs(ic.fc, ic.mt, ic.mr, s.orientation.toRotationMatrix()));
    const Vec3 dvt = s.orientation.conjugate() * Core::linear(dv), dw = Core::angular(dv);
    // energy along the impulse
    const Vec3 kc = cpu.energy(p.gpu.view(), s, dvt, dw), kg = p.skin->energy(p.gpu.view(), s, dvt, dw);
    const Vec3 eK = (kg - kc).cwiseAbs().cwiseQuotient(kc.cwiseAbs());
    // friction with the core's new velocities
    const double share = 0.7;
    LayeredState after = s;
    after.velocity += share * dv.head<3>();
    after.angularVelocity += share * dw;
    const ImpulseSums fc = cpu.friction(p.gpu.view(), after, share, dvt, dw);
    const ImpulseSums fg = p.skin->friction(p.gpu.view(), after, share, dvt, dw);
    const double eFf = (fg.fc - fc.fc).norm() / fc.fc.norm();
    const double eFm = std::max((fg.mt - fc.mt).norm() / fc.mt.norm(), (fg.mr - fc.mr).norm() / fc.mr.norm());
    // the core's change from the friction's impulses, as respondThrough takes it
    const Core::Vector fdv = A.ldlt().solve(Core::impulseRhs(fc.fc, fc.mt, fc.mr, s.orientation.toRotationMatrix()));
    const Vec3 fdvt = s.orientation.conjugate() * Core::linear(fdv), fdw = Core::angular(fdv);
    const std::vector<RowResult> rc = cpu.rowResults(), rg = p.skin->rowResults();
    double eF = 0, fScale = 0;
    int rubbing = 0;
    for (size_t k = 0; k < rc.size(); ++k) {
      fScale = std::max(fScale, rc[k].frictionImpulse.norm());
      eF = std::max(eF, (rg[k].frictionImpulse - rc[k].frictionImpulse).norm());
      rubbing += rc[k].frictionImpulse.norm() > 0;
    }
    eF /= fScale;
    EXPECT_GE(rubbing, 8);  // (the rows on the core are frictionless)
    // the impulse and friction applied, positions from the start
    LayeredState sc1 = s, sg1 = s;
    cpu.apply(p.gpu.view(), startQ, dvt, dw, share, fdvt, fdw, dt, sc1);
    p.skin->apply(p.gpu.view(), startQ, dvt, dw, share, fdvt, fdw, dt, sg1);
    p.skin->readSkin(p.gpu.view(), sg1);  // (the GPU's apply leaves the state in its textures)
    const double eQdot = relativeError(sg1.qdot, sc1.qdot), eQ = relativeError(sg1.q, sc1.q);
    std::printf("response passes (%s) vs CPU, %zu rows (%d on the core, %d behind another of their node; %zu "
                "nodes' directions held), %d rounds, %d rows out: "
                "condense tt %.2e, tr %.2e, rr %.2e (of the skin-state parts); rounds S %.2e, rhs %.2e, "
                "lambda %.2e, gap %.2e; impulse fc %.2e, mt %.2e, mr %.2e; energy k0 %.2e, ka %.2e, kb %.2e; "
                "friction %.2e (%d rows), its sums fc %.2e, mt/mr %.2e; apply qdot %.2e, q %.2e\n",
                d.shape->type().c_str(), rows.size(), onCore, chained, held.size(), rounds, left, eTt, eTr, eRr, eS,
                eRhs, eLambda, eGap,
                eFc, eMt, eMr, eK[0], eK[1], eK[2], eF, rubbing, eFf, eFm, eQdot, eQ);
    EXPECT_LT(eS, 1e-6);
    EXPECT_LT(eRhs, 1e-6);
    EXPECT_LT(eLambda, 1e-6);
    EXPECT_LT(eGap, 1e-6);
    EXPECT_LT(eFc, 1e-6);
    EXPECT_LT(eMt, 1e-6);
    EXPECT_LT(eMr, 1e-6);
    EXPECT_LT(eK.maxCoeff(), 1e-6);
    EXPECT_LT(eF, 1e-6);
    EXPECT_LT(eFf, 1e-6);
    EXPECT_LT(eFm, 1e-6);
    EXPECT_LT(eQdot, 1e-6);
    EXPECT_LT(eQ, 1e-6);
    // the textures now hold the state after the impulse: a second apply continues from it
    LayeredState sc2 = sc1, sg2 = sg1;
    cpu.apply(p.gpu.view(), startQ, dvt, dw, share, Vec3::Zero(), Vec3::Zero(), dt, sc2);
    p.skin->apply(p.gpu.view(), startQ, dvt, dw, share, Vec3::Zero(), Vec3::Zero(), dt, sg2);
    p.skin->readSkin(p.gpu.view(), sg2);
    EXPECT_LT(relativeError(sg2.qdot, sc2.qdot), 1e-6);
    // the position correction at ~5% of the nodes, added into the resident q
    std::mt19937 rng(15);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::pair<int, Vec3>> dq;
    for (int i = 0; i < n; ++i)
      if (0.5 * (u(rng) + 1) < 0.05) dq.emplace_back(i, 2e-3 * Vec3(u(rng), u(rng), u(rng)));
    ASSERT_GT(dq.size(), 20u);
    cpu.correct(p.gpu.view(), dq, sc2);
    p.skin->correct(p.gpu.view(), dq, sg2);
    const std::vector<Vec3> resident = p.skin->readResidentQ();
    double eCorr = 0, scale = 0;  // (at the corrected nodes, where the change is)
    for (const auto& [i, d] : dq) {
      eCorr = std::max(eCorr, (resident[size_t(i)] - sc2.q[size_t(i)]).norm());
      scale = std::max(scale, sc2.q[size_t(i)].norm());
    }
    std::printf("position correction (%s): the resident q vs the CPU at the %zu corrected nodes, %.2e of %.2e m; "
                "everywhere %.2e\n",
                d.shape->type().c_str(), dq.size(), eCorr, scale, relativeError(resident, sc2.q));
    EXPECT_LT(eCorr, 1e-6 * scale);
    EXPECT_LT(relativeError(resident, sc2.q), 1e-6);
    EXPECT_LT(relativeError(sg2.q, sc2.q), 1e-6);  // (the CPU's copy took the same change)
    // the moments of the state in the textures (the apply pass's sums and the
    // correction's change: the centre of mass and momentum without a readback)
    const SkinSummary mg = p.skin->moments(p.gpu.view());
    Vec3 mq = Vec3::Zero(), mqdot = Vec3::Zero();
    for (int i = 0; i < n; ++i) {
      mq += p.model->nodeMass[size_t(i)] * sc2.q[size_t(i)];
      mqdot += p.model->nodeMass[size_t(i)] * sc2.qdot[size_t(i)];
    }
    Vec3 mub = Vec3::Zero();
    for (int i = 0; i < n; ++i) mub += p.model->nodeMass[size_t(i)] * p.model->restSkin[size_t(i)];
    const double eMu = (mg.mu - mub - mq).norm() / mq.norm(), eMqdot = (mg.mqdot - mqdot).norm() / mqdot.norm();
    std::printf("moments after apply and correct (%s): sum m q %.1e, sum m qdot %.1e (relative)\n",
                d.shape->type().c_str(), eMu, eMqdot);
    EXPECT_LT(eMu, 1e-6);
    EXPECT_LT(eMqdot, 1e-6);
  }
}

// The core contact pass (core_contact.frag) against findCoreContacts: every node past a
// limit, or within the margin and reach of one, with its depth and direction.
TEST_F(GpuSkinTest, CoreContactPassMatchesTheCpu) {
  for (const BodyDesc& d : {test::ball(kR, 32, 1e5), torus(32)}) {
    Pair p(d);
    p.step(0.01, Vec3::Zero());
    const BakedBody& m = *p.model;
    const int n = m.nodeCount();
    LayeredState s = p.gpu.state();
    std::mt19937 rng(21);
    std::uniform_real_distribution<double> u(0, 1);
    // each node well inside its limits, crushed past its thinnest layer, slid past its
    // stretch, or within the margin (none near a threshold: float against double)
    for (int i = 0; i < n; ++i) {
      double h = 0;
      const Vec3 dir = restDirection(m, i, &h), t = dir.unitOrthogonal();
      const double a = u(rng);
      s.q[size_t(i)] = a < 0.6 ? Vec3(-0.3 * h * dir) : a < 0.75 ? Vec3(-(0.93 + 0.05 * u(rng)) * h * dir)
                       : a < 0.9 ? Vec3((1.05 + 0.3 * u(rng)) * h * t) : Vec3(-(0.87 + 0.01 * u(rng)) * h * dir);
    }
    p.skin->load(p.gpu.view(), s, s.q);
    CpuSkinResponse cpu;
    for (const double margin : {0.0, 0.05}) {
      std::vector<CoreContact> fc, fg;
      cpu.findCoreContacts(p.gpu.view(), s, 0.1, margin, 0.0, &fc);
      p.skin->findCoreContacts(p.gpu.view(), s, 0.1, margin, 0.0, &fg);
      ASSERT_EQ(fg.size(), fc.size()) << "margin " << margin;
      double eDepth = 0, eNormal = 0;
      int stretches = 0;
      for (size_t k = 0; k < fc.size(); ++k) {
        ASSERT_EQ(fg[k].node, fc[k].node);
        ASSERT_EQ(fg[k].stretch, fc[k].stretch);
        eDepth = std::max(eDepth, std::abs(fg[k].depth - fc[k].depth));
        eNormal = std::max(eNormal, (fg[k].normal - fc[k].normal).norm());
        stretches += fc[k].stretch;
      }
      std::printf("core contact pass (%s, margin %.2f): %zu limits (%d stretch) as on the CPU; depth %.1e m, "
                  "direction %.1e\n", d.shape->type().c_str(), margin, fc.size(), stretches, eDepth, eNormal);
      EXPECT_GT(fc.size(), size_t(n / 5));
      EXPECT_GT(stretches, n / 20);
      EXPECT_LT(eDepth, 1e-5);
      EXPECT_LT(eNormal, 1e-5);
    }
  }
}

// A ball too soft to carry itself on both backends: it rests on its crushed skin on the
// GPU as on the CPU (the GPU's solver still attached: no fallback compared the CPU with
// itself).
TEST_F(GpuSkinTest, SoftBallRestsOnItsCrushedSkinAsOnTheCpu) {
  BodyDesc d = test::ball(kR, 32, 3e3);
  d.position = Vec3(0, kR + 0.01, 0);
  Pair p(d, true);
  double lowCpu = 1e300, lowGpu = 1e300;
  int rows = 0;
  for (int n = 0; n < 240; ++n) {
    p.step(0.005, kG);
    lowCpu = std::min(lowCpu, p.cpu.coreLowest(Vec3::UnitY()));
    lowGpu = std::min(lowGpu, p.gpu.coreLowest(Vec3::UnitY()));
    rows += p.gpu.lastStep().coreContacts;
  }
  const double h = kR * (1 - d.coreScale), keep = d.material.minLayer;
  const double yc = p.cpu.core().position.y(), yg = p.gpu.core().position.y();
  std::printf("E = 3 kPa ball: the core %.2f mm above the ground on the GPU, %.2f on the CPU (lowest %.2f, "
              "%.2f; its crushed layer %.1f mm); core height %.4f / %.4f m; %d rows on the core (GPU)\n",
              1e3 * p.gpu.coreLowest(Vec3::UnitY()), 1e3 * p.cpu.coreLowest(Vec3::UnitY()), 1e3 * lowGpu,
              1e3 * lowCpu, 1e3 * keep * h, yg, yc, rows);
  EXPECT_NE(p.gpu.freeMotionSolver(), nullptr);
  EXPECT_GT(rows, 100);
  EXPECT_EQ(p.gpuWorld.world.bodies()[0].stats.resets, 0);
  EXPECT_GT(lowGpu, keep * h - 5e-3);
  EXPECT_NEAR(yg, yc, 0.01 * h + 1e-3);
}

// The gather pass (the listed nodes' q and qdot, read back without the rest) and the
// last good state kept and restored on the GPU, on a random state.
TEST_F(GpuSkinTest, GatherAndGoodStateMatchTheState) {
  Pair p(torus(32));
  p.step(0.01, Vec3::Zero());
  const int n = p.gpu.nodeCount();
  LayeredState s = p.gpu.state();
  s.q = randomField(n, 3e-3, 41);
  s.qdot = randomField(n, 0.1, 42);
  p.skin->load(p.gpu.view(), s, s.q);
  // every 3rd node, more than one row of the gather's target, in no particular order
  std::vector<int> nodes;
  for (int i = n - 1; i >= 0; i -= 3) nodes.push_back(i);
  ASSERT_GT(nodes.size(), size_t(p.model->atlas.resolution));
  LayeredState got = s;
  for (int i : nodes) got.q[size_t(i)] = got.qdot[size_t(i)] = Vec3::Constant(9.0);
  p.skin->readNodes(p.gpu.view(), nodes, got);
  double eQ = 0, eQdot = 0;
  for (int i : nodes) {
    eQ = std::max(eQ, (got.q[size_t(i)] - s.q[size_t(i)]).norm());
    eQdot = std::max(eQdot, (got.qdot[size_t(i)] - s.qdot[size_t(i)]).norm());
  }
  std::printf("gather of %zu of %d nodes: q %.1e m, qdot %.1e m/s from the state (float)\n", nodes.size(), n, eQ,
              eQdot);
  EXPECT_LT(eQ, 1e-9);
  EXPECT_LT(eQdot, 1e-8);
  EXPECT_EQ(p.skin->gatheredNodes(), long(nodes.size()));
  // kept, overwritten, restored: q as kept, qdot zero
  p.skin->saveGood(p.gpu.view());
  LayeredState other = s;
  other.q = randomField(n, 3e-3, 43);
  p.skin->load(p.gpu.view(), other, other.q);
  p.skin->restoreGood(p.gpu.view());
  LayeredState back = s;
  p.skin->readSkin(p.gpu.view(), back);
  double eGood = 0, qdot = 0;
  for (int i = 0; i < n; ++i) {
    eGood = std::max(eGood, (back.q[size_t(i)] - s.q[size_t(i)]).norm());
    qdot = std::max(qdot, back.qdot[size_t(i)].norm());
  }
  EXPECT_LT(eGood, 1e-9);
  EXPECT_EQ(qdot, 0.0);
}

// The World on the GPU backend keeps the skin on the GPU: a ball dropped on a plane
// (contacts, contact support, the response, the correction, the checks) reads back no
// whole skin state in its steps; its response and support read the nodes they use by the
// gather. The same drop with the CPU's copy read back every step (state() after each)
// and on the CPU backend: the same motion. Asked for, the state comes back whole.
TEST_F(GpuSkinTest, WorldStepsReadNoWholeSkinBack) {
  const Scene sc = ballOnGround(kR + 0.05, Vec3(0.5, 0, 0));
  World lazy(sc), eager(sc), cpu(sc);
  std::shared_ptr<GpuSkin> skin = std::make_shared<GpuSkin>(lazy.bodies()[0].model);
  lazy.bodies()[0].layered.setFreeMotionSolver(skin);
  eager.bodies()[0].layered.setFreeMotionSolver(std::make_shared<GpuSkin>(eager.bodies()[0].model));
  constexpr int kSteps = 150;
  double maxPos = 0;
  int touching = 0;
  for (int k = 0; k < kSteps; ++k) {
    lazy.step();
    eager.step();
    cpu.step();
    (void)eager.bodies()[0].layered.state();  // (the whole skin back: the mirror current)
    const Vec3 apart = lazy.bodies()[0].layered.core().position - eager.bodies()[0].layered.core().position;
    maxPos = std::max(maxPos, apart.norm());
    touching += lazy.bodies()[0].stats.contacts > 0;
  }
  const int downloads = skin->stateDownloads();
  const long gathered = skin->gatheredNodes();
  Body& b = lazy.bodies()[0];
  const Vec3 gpuEnd = b.state.position, cpuEnd = cpu.bodies()[0].state.position;
  std::printf("world on the GPU, %d steps (%d with contacts): %d whole-state readbacks, %ld nodes gathered "
              "(%.0f a step of %d); core %.1e m from the same steps with the state read back; centre of mass "
              "%.2e m from the CPU backend's\n",
              kSteps, touching, downloads, gathered, double(gathered) / kSteps, b.nodes(), maxPos,
              (gpuEnd - cpuEnd).norm());
  EXPECT_TRUE(lazy.takeWarnings().empty());
  EXPECT_EQ(b.layered.freeMotionSolver(), skin.get());
  EXPECT_GT(touching, 100);
  EXPECT_EQ(downloads, 0);
  EXPECT_GT(gathered, 0);
  // (reading the state back changes only where the centre of mass and momentum come
  // from: the GPU's float sums, or the CPU's double sums of the state read back)
  EXPECT_LT(maxPos, 1e-6);
  EXPECT_LT((gpuEnd - cpuEnd).norm(), 1e-4);
  // asked for, the state comes back whole, once
  const LayeredState& s = b.layered.state();
  EXPECT_EQ(skin->stateDownloads(), 1);
  double eQ = 0;
  for (int i = 0; i < b.nodes(); ++i)
    eQ = std::max(eQ, (s.q[size_t(i)] - eager.bodies()[0].layered.state().q[size_t(i)]).norm());
  EXPECT_LT(eQ, 1e-6);
}

// Two bodies apart on the ground: the pair detection's stage 1 runs every step (its
// proxies grown by each skin's largest displacement, the summary pass's max |q|) and
// finds no pair, so neither skin is read back whole.
TEST_F(GpuSkinTest, BodiesApartReadNoWholeSkinBack) {
  Scene sc = ballOnGround(kR + 0.05);
  sc.bodies.push_back(sc.bodies[0]);
  sc.bodies[1].position.x() = 1.5;  // (a radius between them)
  sc.bodies[1].velocity = Vec3(0.3, 0, 0);
  World w(sc);
  std::vector<std::shared_ptr<GpuSkin>> skins;
  for (Body& b : w.bodies()) {
    skins.push_back(std::make_shared<GpuSkin>(b.model));
    b.layered.setFreeMotionSolver(skins.back());
  }
  int touching = 0;
  for (int k = 0; k < 100; ++k) {
    w.step();
    touching += w.bodies()[0].stats.contacts > 0 && w.bodies()[1].stats.contacts > 0;
  }
  std::printf("two bodies apart, 100 steps (%d with both on the ground): %d and %d whole-state readbacks\n",
              touching, skins[0]->stateDownloads(), skins[1]->stateDownloads());
  EXPECT_TRUE(w.takeWarnings().empty());
  EXPECT_GT(touching, 60);
  for (const auto& skin : skins) EXPECT_EQ(skin->stateDownloads(), 0);
}

// A ball resting on another on the ground, both on the GPU: the two proxies overlap
// every step, and stage 2 (the CPU's, then the contact camera) reads the nodes it
// can reach, gathered before it reads any (the skins' hierarchies grown by the
// summary's max |q|), never a whole skin; the bodies find each other and rest.
TEST_F(GpuSkinTest, StackedBodiesReadOnlyTheirPatchesBack) {
  for (const bool camera : {false, true}) {
    const double r = 0.25;
    Scene sc;
    sc.colliders.push_back(ColliderDesc{});  // the ground
    sc.bodies.push_back(test::ball(r, 32, 1e6));
    sc.bodies[0].position = Vec3(0, r + 0.003, 0);
    sc.bodies.push_back(sc.bodies[0]);
    sc.bodies[1].position = Vec3(0.02, 3 * r + 0.01, -0.01);
    World w(sc);
    if (camera) w.setPairFinder(std::make_shared<ContactCamera>(64));
    std::vector<std::shared_ptr<GpuSkin>> skins;
    for (Body& b : w.bodies()) {
      skins.push_back(std::make_shared<GpuSkin>(b.model));
      b.layered.setFreeMotionSolver(skins.back());
    }
    const int steps = 100, n = w.bodies()[0].nodes();
    int stacked = 0;
    for (int k = 0; k < steps; ++k) {
      w.step();
      stacked += w.bodies()[1].stats.contacts > 0;  // (the upper ball touches only the lower one)
    }
    const double top = w.bodies()[1].state.position.y(), bottom = w.bodies()[0].state.position.y();
    std::printf("%s stage 2, %d steps (%d with the balls in contact), %d nodes each: %d and %d whole-state "
                "readbacks, %.1f and %.1f nodes gathered a step; centres %.4f m apart\n",
                camera ? "contact camera" : "CPU", steps, stacked, n, skins[0]->stateDownloads(),
                skins[1]->stateDownloads(), double(skins[0]->gatheredNodes()) / steps,
                double(skins[1]->gatheredNodes()) / steps, top - bottom);
    EXPECT_TRUE(w.takeWarnings().empty());
    EXPECT_GT(stacked, steps / 2);
    // the proxies overlap every step: the pair's stage 2 ran on the camera at both of
    // every step's detections (stages 6-8 and 14)
    EXPECT_EQ(w.gpuStageRuns().camera, camera ? 2 * steps : 0);
    for (const auto& skin : skins) {
      EXPECT_EQ(skin->stateDownloads(), 0);
      EXPECT_LT(double(skin->gatheredNodes()) / steps, 0.5 * n) << "a patch a step, not the skin";
    }
    // on each other, neither through the other: the centres a diameter apart, less the dents
    EXPECT_GT(top - bottom, 2 * r - 0.05);
    EXPECT_LT(top - bottom, 2 * r + 0.01);
  }
}

// Two soft balls (3 kPa) stacked on the ground on the GPU, as on the CPU
// (CoreContact.SoftBallsStacked...): the cores held apart by both crushed layers, the
// lower one on its own; no reset, the solvers still attached, no warning.
TEST_F(GpuSkinTest, SoftBallsStackedKeepTheirCoresApart) {
  const Scene sc = test::stackedBalls(test::ball(kR, 32, 3e3), kR, 0.005);
  World w(sc);
  for (Body& b : w.bodies()) b.layered.setFreeMotionSolver(std::make_shared<GpuSkin>(b.model));
  const double core = kR * sc.bodies[0].coreScale, crushed = sc.bodies[0].material.minLayer * (kR - core);
  const auto [gap, ground] = test::runStack(w, 200, core);
  std::printf("two 3 kPa balls stacked on the GPU: the cores' nearest %.2f mm apart (both crushed layers %.1f mm), "
              "the lower core %.2f mm above the ground; resets %d, %d\n",
              1e3 * gap, 2e3 * crushed, 1e3 * ground, w.bodies()[0].stats.resets, w.bodies()[1].stats.resets);
  for (const Body& b : w.bodies()) {
    EXPECT_NE(b.layered.freeMotionSolver(), nullptr);
    EXPECT_EQ(b.stats.resets, 0);
  }
  EXPECT_TRUE(w.takeWarnings().empty());
  EXPECT_GT(gap, 2 * crushed - 1e-3);
  EXPECT_GT(ground, crushed - 1e-3);
}

// The GPU solver failing while it alone holds the skin's state (here: another body's
// state loaded into it, so it no longer has this one's): the body goes on on the CPU,
// its skin from rest, with a warning that says so; nothing crashes, nothing turns NaN.
TEST_F(GpuSkinTest, SolverLostWithTheSkinOnItGoesOnOnTheCpuFromRest) {
  const Scene sc = ballOnGround(kR + 0.02);
  World w(sc);
  Body& b = w.bodies()[0];
  auto skin = std::make_shared<GpuSkin>(b.model);
  b.layered.setFreeMotionSolver(skin);
  for (int k = 0; k < 40; ++k) w.step();
  ASSERT_TRUE(w.takeWarnings().empty());
  ASSERT_GT(b.stats.contacts, 0);
  // another body's state into the solver
  test::OneBody other(sc.bodies[0]);
  other.step(w.settings().dt, w.settings().gravity);
  skin->load(other.body.view(), other.body.state(), other.body.state().q);
  w.step();
  const std::vector<std::string> warnings = w.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  std::printf("warning: %s\n", warnings[0].c_str());
  EXPECT_NE(warnings[0].find("the skin restarts at rest"), std::string::npos);
  EXPECT_EQ(b.layered.freeMotionSolver(), nullptr);
  World cpu(sc);  // the same drop on the CPU throughout
  for (int k = 0; k < 41 + 400; ++k) cpu.step();
  for (int k = 0; k < 400; ++k) w.step();
  EXPECT_TRUE(w.takeWarnings().empty());
  const LayeredState& s = b.layered.state();
  double maxQ = 0;
  for (const Vec3& q : s.q) {
    ASSERT_TRUE(q.allFinite());
    maxQ = std::max(maxQ, q.norm());
  }
  // it comes to rest on the ground as on the CPU
  std::printf("rest height after the loss %.5f m, on the CPU throughout %.5f m\n", b.state.position.y(),
              cpu.bodies()[0].state.position.y());
  EXPECT_NEAR(b.state.position.y(), cpu.bodies()[0].state.position.y(), 1e-3);
  EXPECT_GT(maxQ, 0);
  EXPECT_EQ(b.stats.resets, 0);
}

// A blow-up on the GPU backend: the World puts the body back to its last good state,
// kept on the GPU (a texture copy each step), at rest; as the CPU backend does from its
// copy on the CPU.
TEST_F(GpuSkinTest, BlowUpGoesBackToTheGoodStateKeptOnTheGpu) {
  const Scene sc = ballOnGround(kR + 0.02);
  World gpu(sc), cpu(sc);
  auto skin = std::make_shared<GpuSkin>(gpu.bodies()[0].model);
  gpu.bodies()[0].layered.setFreeMotionSolver(skin);
  for (int k = 0; k < 60; ++k) {
    gpu.step();
    cpu.step();
  }
  const std::vector<Vec3> good = gpu.bodies()[0].layered.state().q;  // (the last good state)
  for (World* w : {&gpu, &cpu}) w->bodies()[0].layered.editState().qdot[7] = Vec3(0, 5e3, 0);
  gpu.step();
  cpu.step();
  for (World* w : {&gpu, &cpu}) {
    const std::vector<std::string> warnings = w->takeWarnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("reset to its last good state, at rest"), std::string::npos) << warnings[0];
    EXPECT_EQ(w->bodies()[0].stats.resets, 1);
  }
  LayeredBody &g = gpu.bodies()[0].layered, &c = cpu.bodies()[0].layered;
  EXPECT_EQ(g.freeMotionSolver(), skin.get());
  double eGood = 0, eCpu = 0, qdot = 0;
  for (int i = 0; i < g.nodeCount(); ++i) {
    eGood = std::max(eGood, (g.state().q[size_t(i)] - good[size_t(i)]).norm());
    eCpu = std::max(eCpu, (g.state().q[size_t(i)] - c.state().q[size_t(i)]).norm());
    qdot = std::max(qdot, g.state().qdot[size_t(i)].norm());
  }
  std::printf("blow-up on the GPU backend: restored skin %.1e m from the good state, %.1e m from the CPU "
              "backend's; core %.1e m\n",
              eGood, eCpu, (g.core().position - c.core().position).norm());
  EXPECT_LT(eGood, 1e-9);
  EXPECT_LT(eCpu, 1e-6);
  EXPECT_EQ(qdot, 0.0);
  EXPECT_LT((g.core().position - c.core().position).norm(), 1e-6);
  EXPECT_EQ(g.core().velocity.norm(), 0.0);
  // and it goes on from there on the GPU as the CPU does
  for (int k = 0; k < 40; ++k) {
    gpu.step();
    cpu.step();
  }
  EXPECT_TRUE(gpu.takeWarnings().empty());
  EXPECT_LT((g.core().position - c.core().position).norm(), 1e-5);
}

// The summary pass (the sums and maxima of the end-of-step checks and statistics) on a
// random skin state, against the CPU's summary; then with a stretched node and a node
// that is not finite.
TEST_F(GpuSkinTest, SummaryPassMatchesTheCpu) {
  for (const BodyDesc& d : {test::ball(kR, 48, 1e6), torus(32)}) {
    Pair p(d);
    p.step(0.01, Vec3::Zero());  // (prepares the operators the GPU solver uploads)
    const int n = p.gpu.nodeCount();
    LayeredState& s = p.gpu.editState();
    s.q = randomField(n, 3e-3, 31);
    s.qdot = randomField(n, 0.1, 32);
    s.velocity = Vec3(0.4, -1.2, 0.3);
    s.angularVelocity = Vec3(-0.8, 2.0, 0.5);
    s.orientation = Quat(Eigen::AngleAxisd(1.1, Vec3(-1, 2, 0.5).normalized()));
    const Vec3 up = s.orientation.conjugate() * Vec3::UnitY();
    auto compare = [&](const char* what, bool upload = true) {
      if (upload) p.skin->load(p.gpu.view(), p.gpu.state(), p.gpu.state().q);
      const SkinSummary c = p.gpu.skinSummary(up), g = p.skin->summarize(p.gpu.view(), p.gpu.state(), up);
      SkinSummary rest;  // (the sums' rest-shape parts are summed in double on both)
      {
        LayeredBody r(p.model, d);
        rest = r.skinSummary(up);
      }
      auto rel = [](double gv, double cv) { return std::abs(gv - cv) / std::abs(cv); };
      const double eMu = (g.mu - c.mu).norm() / (c.mu - rest.mu).norm();
      const double eMuu = (g.muu - c.muu).norm() / (c.muu - rest.muu).norm();
      const double eMqdot = (g.mqdot - c.mqdot).norm() / c.mqdot.norm();
      const double eMuxqdot = (g.muxqdot - c.muxqdot).norm() / c.muxqdot.norm();
      const double eKinetic = rel(p.gpu.kineticEnergy(g), p.gpu.kineticEnergy(c));
      // (and the pass's max |q| alone: the proxies' growth)
      const double maxQ = p.skin->maxDisplacement(p.gpu.view(), p.gpu.state());
      const double eMax = std::max({rel(g.maxQ, c.maxQ), rel(maxQ, c.maxQ), rel(g.maxStretch, c.maxStretch),
                                    rel(g.maxCrush, c.maxCrush), rel(g.maxQdot, c.maxQdot), rel(g.lowest, c.lowest)});
      std::printf("summary pass (%s, %s) vs CPU: mu %.1e, muu %.1e (of the state's parts), mqdot %.1e, "
                  "u x qdot %.1e, |qdot|^2 %.1e, elastic %.1e, kinetic energy %.1e, maxima %.1e; stretch %.3f, "
                  "crush %.3f\n",
                  d.shape->type().c_str(), what, eMu, eMuu, eMqdot, eMuxqdot, rel(g.mqdot2, c.mqdot2),
                  rel(g.elastic, c.elastic), eKinetic, eMax, c.maxStretch, c.maxCrush);
      EXPECT_TRUE(g.finite);
      for (double e : {eMu, eMuu, eMqdot, eMuxqdot, rel(g.mqdot2, c.mqdot2), rel(g.elastic, c.elastic), eKinetic,
                       eMax})
        EXPECT_LT(e, 1e-6) << what;
    };
    compare("random");
    // after the position correction's scatter (it leaves q's gutter copies stale: the
    // summary's stencil reads the neighbours through the source map)
    std::vector<std::pair<int, Vec3>> dq;
    for (int i = 0; i < n; i += 7) dq.emplace_back(i, Vec3(2e-3, -1e-3, 3e-3));
    p.skin->correct(p.gpu.view(), dq, p.gpu.editState());  // (and the CPU's copy)
    compare("corrected", false);
    // one node pushed out to 3 layer thicknesses: the blow-up check's maximum
    const int k = n / 2;
    const double t = (p.model->restSkin[size_t(k)] - p.model->core[size_t(k)]).norm();
    p.gpu.editState().q[size_t(k)] = 3 * p.model->layerDirection[size_t(k)] * t;
    compare("stretched");
    EXPECT_NEAR(p.skin->summarize(p.gpu.view(), p.gpu.state(), up).maxStretch, 3.0, 1e-5);
    // ... and one crushed to 0.8 of its layer towards the core, the stretched one back
    // (it pointed inwards too): the skin limits' maximum
    const int j = n / 3;
    p.gpu.editState().q[size_t(k)].setZero();
    p.gpu.editState().q[size_t(j)] = -0.8 * (p.model->restSkin[size_t(j)] - p.model->core[size_t(j)]);
    compare("crushed");
    EXPECT_NEAR(p.skin->summarize(p.gpu.view(), p.gpu.state(), up).maxCrush, 0.8, 1e-5);
    // a node whose velocity is not finite
    p.gpu.editState().qdot[size_t(k / 2)].y() = std::numeric_limits<double>::infinity();
    p.skin->load(p.gpu.view(), p.gpu.state(), p.gpu.state().q);
    EXPECT_FALSE(p.gpu.skinSummary(up).finite);
    EXPECT_FALSE(p.skin->summarize(p.gpu.view(), p.gpu.state(), up).finite);
    p.gpu.editState().qdot[size_t(k / 2)].y() = std::numeric_limits<double>::quiet_NaN();
    p.skin->load(p.gpu.view(), p.gpu.state(), p.gpu.state().q);
    EXPECT_FALSE(p.skin->summarize(p.gpu.view(), p.gpu.state(), up).finite);
  }
}

// The detection pass against a tilted plane and a rotated height field in motion, on a
// random skin state, against Collider::query on the CPU (the deepest collider of each
// node within the margin, as World::findContacts).
TEST_F(GpuSkinTest, DetectionPassMatchesColliderQueries) {
  test::OneBody w(test::ball(kR, 48, 1e5));
  LayeredBody& body = w.body;
  const BakedBodyPtr m = w.world.bodies()[0].model;
  ColliderDesc planeDesc;
  planeDesc.normal = Vec3(0.25, 1, -0.1).normalized();
  planeDesc.offset = 0.02;
  ColliderDesc fieldDesc = heightField(3, 0.08, 0.3);
  const Quat tilt(Eigen::AngleAxisd(0.1, Vec3(1, 0, 0.3).normalized()));
  fieldDesc.keyframes = {{0, Vec3(0.1, -0.05, 0), tilt}, {1, Vec3(0.3, 0.0, -0.2), tilt * Quat(Eigen::AngleAxisd(0.8, Vec3::UnitY()))}};
  Collider plane(planeDesc), field(fieldDesc);
  field.animate(0.4);  // (in motion: its surface velocity differs from point to point)
  ASSERT_GT(field.angularVelocity().norm(), 0.1);
  // More than one pass takes (kMaxDetectedColliders): a second plane crossing the first
  // and the moving field in the second batch, another height field (its own grid: the
  // layers must not mix) and planes far below in the first.
  ColliderDesc crossingDesc;
  crossingDesc.normal = Vec3(-0.3, 1, 0.2).normalized();
  crossingDesc.offset = -0.02;
  ColliderDesc otherFieldDesc = heightField(3, 0.12, 0.45);
  otherFieldDesc.position = Vec3(0.05, -0.08, 0);
  Collider crossing(crossingDesc), otherField(otherFieldDesc);
  std::vector<Collider> farBelow;
  for (int k = 0; k < 6; ++k) {
    ColliderDesc d;
    d.normal = Vec3(0.1 * k, 1, -0.05 * k).normalized();
    d.offset = -5;
    farBelow.emplace_back(d);
  }
  std::vector<const Collider*> many{&plane, &otherField};
  for (const Collider& c : farBelow) many.push_back(&c);
  many.push_back(&crossing);
  many.push_back(&field);
  ASSERT_GT(many.size(), size_t(kMaxDetectedColliders));
  Profile profile;
  w.step(0.005, kG);  // (prepares the operators the GPU solver uploads)
  LayeredState& s = body.editState();
  s.q = randomField(body.nodeCount(), 3e-3, 21);
  s.position = Vec3(0.05, kR - 0.06, 0.02);
  s.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()));
  GpuSkin skin(m);
  skin.load(body.view(), s, s.q);
  for (const std::vector<const Collider*>& colliders : {std::vector<const Collider*>{&plane, &field}, many}) {
    std::vector<ColliderHit> gpu;
    ASSERT_TRUE(skin.detectColliders(body.view(), colliders, kContactMargin, &gpu, profile));
    // the CPU: every node, deepest collider within the margin
    std::vector<ColliderHit> cpu;
    int nearMargin = 0;  // nodes whose distance is within float rounding of the margin
    for (int i = 0; i < body.nodeCount(); ++i) {
      ColliderHit best;
      double deepest = -kContactMargin;
      for (size_t k = 0; k < colliders.size(); ++k) {
        const SurfaceHit h = colliders[k]->query(body.nodePosition(i));
        nearMargin += std::abs(h.distance - kContactMargin) < 1e-5;
        if (h.distance >= kContactMargin || (best.node >= 0 && -h.distance <= deepest)) continue;
        deepest = -h.distance;
        best = {i, int(k), -h.distance, h.normal, h.velocity};
      }
      if (best.node >= 0) cpu.push_back(best);
    }
    std::vector<int> perCollider(colliders.size(), 0);
    for (const ColliderHit& h : cpu) ++perCollider[size_t(h.collider)];
    // each collider that should be hit is, in both batches
    for (const Collider* c : {&plane, &field, &crossing, &otherField}) {
      const auto at = std::find(colliders.begin(), colliders.end(), c);
      if (at == colliders.end()) continue;
      const long k = long(at - colliders.begin());
      std::printf("  collider %ld (pass %ld): %d nodes\n", k, k / kMaxDetectedColliders + 1, perCollider[size_t(k)]);
      EXPECT_GT(perCollider[size_t(k)], 10) << "collider " << k;
    }
    // the same nodes (but for those at the margin within float rounding), each with the
    // same collider, depth, normal and surface velocity
    size_t a = 0, b = 0;
    int unmatched = 0, otherCollider = 0;
    double eDepth = 0, eNormal = 0, eVelocity = 0;
    while (a < cpu.size() || b < gpu.size()) {
      if (b == gpu.size() || (a < cpu.size() && cpu[a].node < gpu[b].node)) {
        ++unmatched, ++a;
      } else if (a == cpu.size() || gpu[b].node < cpu[a].node) {
        ++unmatched, ++b;
      } else {
        const ColliderHit &c = cpu[a++], &g = gpu[b++];
        if (c.collider != g.collider) {
          ++otherCollider;
          continue;
        }
        eDepth = std::max(eDepth, std::abs(g.depth - c.depth));
        eNormal = std::max(eNormal, (g.normal - c.normal).norm());
        eVelocity = std::max(eVelocity, (g.velocity - c.velocity).norm() / std::max(1e-3, c.velocity.norm()));
      }
    }
    std::printf("detection pass vs Collider::query, %zu colliders (%d passes): %zu / %zu hits, %d unmatched "
                "(%d nodes within 1e-5 m of the margin), %d with another collider; depth %.2e m, normal %.2e, "
                "surface velocity %.2e (relative)\n",
                colliders.size(), int((colliders.size() + kMaxDetectedColliders - 1) / kMaxDetectedColliders),
                gpu.size(), cpu.size(), unmatched, nearMargin, otherCollider, eDepth, eNormal, eVelocity);
    EXPECT_LE(unmatched, nearMargin);
    EXPECT_LE(otherCollider, 2);  // (where both are within float rounding of the same depth)
    EXPECT_LT(eDepth, 1e-5);
    EXPECT_LT(eNormal, 1e-6);
    EXPECT_LT(eVelocity, 1e-6);
  }
}

// ---- whole runs ----------------------------------------------------------------------------------

// A soft ball dropped on the ground, 200 steps on both backends (the GPU runs
// steps 1-5 and the response's passes over all nodes in float), with and without
// the colliders' support in the free update (the GPU reads it as a texture).
TEST_F(GpuSkinTest, BallDropStaysWithTheCpuFor200Steps) {
  for (bool support : {false, true}) {
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.position = Vec3(0, kR + 0.1, 0);
    d.angularVelocity = Vec3(0, 0, 1);
    Pair p(d, true);
    p.settings([&](SimulationSettings& s) {
      s.solver.method = "cg";
      s.response.support = support;
    });
    double maxPos = 0, maxQ = 0, maxV = 0;
    int supported = 0;
    std::set<Stage> timed;  // the stages the GPU's timer queries timed
    for (int k = 0; k < 200; ++k) {
      p.step(0.005, kG);
      const LayeredState &c = p.cpu.state(), &g = p.gpu.state();
      maxPos = std::max(maxPos, (g.position - c.position).norm());
      maxV = std::max(maxV, (g.velocity - c.velocity).norm());
      for (int i = 0; i < p.cpu.nodeCount(); ++i) maxQ = std::max(maxQ, (g.q[i] - c.q[i]).norm());
      supported += !p.gpu.nodeForces().nodes.empty();
      for (const Profile::Entry& e : p.profile().entries())
        if (e.gpu) timed.insert(e.stage);
    }
    std::printf("ball drop%s, 200 steps GPU vs CPU: core position %.2e m, core velocity %.2e m/s, skin %.2e m "
                "(%d steps with support)\n",
                support ? " with contact support" : "", maxPos, maxV, maxQ, supported);
    // the response ran on the GPU (no fallback to the CPU) in every step with contacts
    EXPECT_EQ(p.gpu.freeMotionSolver(), p.skin.get());
    EXPECT_GT(p.skin->appliedImpulses(), 100) << support;
    // (measured: 9e-9 m, 3e-7 m/s, 6e-8 m; before the coupling pass B read its own
    // inputs, 1.3e-4 m, 2.5e-4 m/s, 8.7e-5 m)
    EXPECT_LT(maxPos, 1e-6) << support;
    EXPECT_LT(maxV, 1e-5) << support;
    EXPECT_LT(maxQ, 1e-6) << support;
    if (support) {
      EXPECT_GT(supported, 100);  // it touches down at step ~40 and is supported from then on
    }
    // the state stayed on the GPU from step to step: uploaded once, at the first step;
    // drawing from it (no transfer) gives the surface of the CPU's copy of the state
    EXPECT_EQ(p.skin->stateUploads(), 1) << support;
    ASSERT_TRUE(p.gpu.skinResident());
    p.skin->updateSurface(p.gpu);
    const std::vector<Vec3> surface = p.skin->readSurface();
    double eSurface = 0;
    for (int i = 0; i < p.gpu.nodeCount(); ++i)
      eSurface = std::max(eSurface, (surface[size_t(i)] - p.gpu.model().restSkin[size_t(i)] -
                                     p.gpu.state().q[size_t(i)]).norm());
    std::printf("  %d state uploads; the surface drawn from the resident state vs the CPU's: %.2e m\n",
                p.skin->stateUploads(), eSurface);
    EXPECT_LT(eSurface, 1e-6);
    // every GPU pass of a step with contacts is timed by the GPU's timer queries
    GLint bits = 0;
    glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
    if (bits > 0) {
      for (Stage stage : {Stage::Forces, Stage::Solve, Stage::Core, Stage::Velocities, Stage::Rows,
                          Stage::Multipliers, Stage::Impulse, Stage::Friction, Stage::Apply, Stage::Correct})
        EXPECT_TRUE(timed.count(stage)) << stageName(stage);
    }
  }
}

// A ball rolling over a height field into a wall (a plane) on the GPU backend: the
// contacts found by the detection pass on the resident state, or on the CPU from the
// state read back, give the same motion.
TEST_F(GpuSkinTest, WorldDetectsOnTheGpuAsOnTheCpu) {
  Scene sc;
  BodyDesc d = test::ball(kR, 32, 1e5);
  d.position = Vec3(0.1, kR + 0.1, 0);
  d.velocity = Vec3(1.0, 0, 0);
  sc.bodies.push_back(d);
  ColliderDesc field = heightField(4, 0.04, 0.5);
  field.position = Vec3(0, -0.04, 0);
  sc.colliders.push_back(field);
  ColliderDesc wall;  // solid at x > 0.75
  wall.normal = Vec3(-1, 0, 0);
  wall.offset = -0.75;
  sc.colliders.push_back(wall);
  World onGpu(sc), onCpu(sc);
  const auto skin = std::make_shared<GpuSkin>(onGpu.bodies()[0].model);
  onGpu.bodies()[0].layered.setFreeMotionSolver(skin);
  onCpu.bodies()[0].layered.setFreeMotionSolver(std::make_shared<GpuSkin>(onCpu.bodies()[0].model));
  onCpu.setSolverDetection(false);
  double maxPos = 0, maxQ = 0, wallX = -1;
  // the statistics and the energy bound from the summary pass vs the CPU's sums of the
  // same state (its copy read back)
  double eEnergy = 0, eCom = 0, eMomentum = 0, lowest = 1e300, eLowest = 0;
  int touching = 0;
  for (int k = 0; k < 160; ++k) {
    onGpu.step();
    onCpu.step();
    Body& b = onGpu.bodies()[0];
    const LayeredState &g = b.layered.state(), &c = onCpu.bodies()[0].layered.state();
    maxPos = std::max(maxPos, (g.position - c.position).norm());
    for (size_t i = 0; i < g.q.size(); ++i) maxQ = std::max(maxQ, (g.q[i] - c.q[i]).norm());
    const Energy e = onGpu.energy(b);  // (World::energy: the CPU's summary)
    eEnergy = std::max(eEnergy, std::abs(b.stats.energy - e.total()) / (e.kinetic + e.elastic + 1e-12));
    eCom = std::max(eCom, (b.state.position - b.layered.centerOfMass()).norm());
    eMomentum = std::max(eMomentum, (b.state.velocity * b.mass() - b.layered.linearMomentum()).norm() /
                                        b.layered.linearMomentum().norm());
    for (const Vec3& x : b.skinPositions()) lowest = std::min(lowest, x.y());
    eLowest = std::max(eLowest, std::abs(b.stats.minHeight - lowest));
    touching += !onGpu.lastContacts()[0].empty();
    for (const NodeContact& n : onGpu.lastContacts()[0])
      if (n.normal.x() < -0.9) wallX = std::max(wallX, double(k));
  }
  std::printf("world on the GPU backend, detection on the GPU vs on the CPU: core %.2e m, skin %.2e m apart over "
              "160 steps (%d with contacts; the wall reached at step %.0f)\n",
              maxPos, maxQ, touching, wallX);
  std::printf("  statistics from the summary pass vs the CPU's: energy %.1e (of the kinetic + elastic), com %.1e m, "
              "momentum %.1e, lowest point %.1e m\n",
              eEnergy, eCom, eMomentum, eLowest);
  EXPECT_LT(eEnergy, 1e-4);
  EXPECT_LT(eCom, 1e-6);
  EXPECT_LT(eMomentum, 1e-4);
  EXPECT_LT(eLowest, 1e-6);
  EXPECT_TRUE(onGpu.takeWarnings().empty());
  EXPECT_TRUE(onCpu.takeWarnings().empty());
  EXPECT_GT(touching, 100);
  EXPECT_GE(wallX, 0);  // it reached the wall: both colliders were in play
  // the GPU's detection and summary ran every step (counted, not timed: timer queries
  // may be missing); the CPU world's detection never did
  std::printf("  GPU detection passes %ld, summary passes %ld\n", onGpu.gpuStageRuns().detection, skin->summaries());
  EXPECT_GE(onGpu.gpuStageRuns().detection, 160);
  EXPECT_GE(skin->summaries(), 160);
  EXPECT_EQ(onCpu.gpuStageRuns().detection, 0);
  EXPECT_LT(maxPos, 1e-5);
  EXPECT_LT(maxQ, 1e-5);
}

// Closed form 1 on the GPU backend: x_n = x_0 + n dt v_0 - g dt^2 n(n+1)/2.
TEST_F(GpuSkinTest, FreeFallFollowsTheDiscreteClosedForm) {
  BodyDesc d = test::ball(kR, 32, 1e5);
  d.velocity = Vec3(0.5, 2, -0.3);
  Pair p(d);
  const Vec3 x0 = p.gpu.centerOfMass(), v0 = p.gpu.linearMomentum() / p.gpu.totalMass();
  const double dt = 0.01;
  double worst = 0, skin = 0;
  for (int n = 1; n <= 100; ++n) {
    p.gpuWorld.step(dt, kG);
    const Vec3 expect = x0 + n * dt * v0 + kG * dt * dt * n * (n + 1) / 2;
    worst = std::max(worst, (p.gpu.centerOfMass() - expect).norm() / expect.norm());
    for (const Vec3& q : p.gpu.state().q) skin = std::max(skin, q.norm());
  }
  std::printf("GPU free fall: worst relative COM error %.2e, largest skin displacement %.2e m\n", worst, skin);
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(skin, 1e-9);
}


double maxNodeSpeed(LayeredBody& b) {
  double m = 0;
  for (int i = 0; i < b.nodeCount(); ++i) m = std::max(m, b.nodeVelocity(i).norm());
  return m;
}

// Closed form 5 on the GPU backend (the CPU test's scene): a soft ball dropped
// from 0.2 m comes to rest within 5 s without penetrating the ground.
TEST_F(GpuSkinTest, SoftBallComesToRestOnTheGround) {
  BodyDesc d = test::ball(kR, 32, 1e5);
  d.position = Vec3(0, kR + 0.2, 0);
  test::OneBody w(d, ground(d));
  LayeredBody& body = w.body;
  body.setFreeMotionSolver(std::make_shared<GpuSkin>(w.world.bodies()[0].model));
  w.world.setSolverDetection(false);  // (as the CPU test: the detection pass has its own)
  double restAt = -1, lowest = 0;
  for (int n = 1; n <= 1000; ++n) {
    w.step(0.005, kG);
    const double speed = maxNodeSpeed(body);
    if (speed < 1e-3 && restAt < 0) restAt = n * 0.005;
    if (speed >= 1e-3) restAt = -1;
  }
  for (int i = 0; i < body.nodeCount(); ++i) lowest = std::min(lowest, body.nodePosition(i).y());
  std::printf("GPU rest on plane: at rest from t = %.3f s, node speed %.2e m/s, penetration %.2e m\n", restAt,
              maxNodeSpeed(body), -lowest);
  EXPECT_GT(restAt, 0);
  EXPECT_LT(-lowest, 0.005 * kR);
  EXPECT_NE(body.freeMotionSolver(), nullptr);  // still on the GPU
}

// Closed form 6 on the GPU backend: a stiff ball bounces to eps^2 of its drop height (10%).
TEST_F(GpuSkinTest, StiffBallBouncesToEpsilonSquared) {
  const double eps = 0.5, drop = 0.3;
  BodyDesc d = test::ball(kR, 32, 1e7);
  d.material.restitution = eps;
  d.position = Vec3(0, kR + drop, 0);
  test::OneBody w(d, ground(d));
  LayeredBody& body = w.body;
  body.setFreeMotionSolver(std::make_shared<GpuSkin>(w.world.bodies()[0].model));
  w.world.setSolverDetection(false);
  auto bottom = [&] {
    double low = 1e300;
    for (int i = 0; i < body.nodeCount(); ++i) low = std::min(low, body.nodePosition(i).y());
    return low;
  };
  const double start = bottom();
  bool touched = false, rising = false;
  double apex = -1;
  for (int n = 1; n <= 1500 && apex < 0; ++n) {
    w.step(0.001, kG);
    if (body.lastStep().contacts > 0) touched = true;
    if (touched && body.state().velocity.y() > 0) rising = true;
    if (rising && body.state().velocity.y() <= 0) apex = bottom();
  }
  ASSERT_GT(apex, -1);
  std::printf("GPU restitution %.1f: bounce height ratio %.4f, eps^2 %.4f\n", eps, apex / start, eps * eps);
  EXPECT_NEAR(apex / start, eps * eps, 0.1 * eps * eps);
  EXPECT_NE(body.freeMotionSolver(), nullptr);  // still on the GPU (no fallback bounced on the CPU)
}

// Core springs on the GPU backend: its condensed core solve is the CPU's
// (LayeredBody::solveCore), so a ball hanging on a spring follows the CPU's
// trajectory and settles at the static extension m g / k; a very stiff spring
// (k = 1e8) at dt = 1/60 stays finite and converges there too.
TEST_F(GpuSkinTest, CoreSpringMatchesTheCpuAndSettlesAtMgOverK) {
  for (const double k : {5e4, 1e8}) {
    BodyDesc d = test::ball(kR, 32, 1e5);
    d.position = Vec3(0, 2, 0);
    d.material.alpha = 5;
    d.material.beta = 0.02;
    CoreSpringDesc spring;
    spring.stiffness = k;
    spring.damping = k < 1e6 ? 1e4 : 0;
    d.springs.push_back(spring);
    Pair p(d);
    const double dt = k < 1e6 ? 0.005 : 1.0 / 60;
    const double m = p.cpu.totalMass(), expect = m * 9.81 / k, y0 = p.cpu.coreSprings()[0].anchor.y();
    double worst = 0;
    for (int n = 0; n < 600; ++n) {
      p.step(dt, kG);
      ASSERT_TRUE(p.gpu.state().position.allFinite()) << n;
      worst = std::max(worst, (p.gpu.state().position - p.cpu.state().position).norm());
    }
    // (the spring's point is the shape's origin: c sits comOffset from it)
    const double ext = y0 - (p.gpu.state().position - p.gpu.state().orientation * p.model->comOffset).y();
    const double extCpu = y0 - (p.cpu.state().position - p.cpu.state().orientation * p.model->comOffset).y();
    std::printf("GPU core spring k = %.0e, dt = %.4f: extension %.6e m (CPU %.6e, m g / k %.6e, rel. %.2e), "
                "largest GPU-CPU gap %.2e m\n",
                k, dt, ext, extCpu, expect, std::abs(ext / expect - 1), worst);
    EXPECT_NEAR(ext, expect, 1e-4 * expect);
    EXPECT_LT(worst, 1e-3 * expect + 1e-7);
    EXPECT_NE(p.gpu.freeMotionSolver(), nullptr);  // still on the GPU
  }
}

// The drag spring runs after either backend's free update: the GPU body follows the CPU's.
TEST_F(GpuSkinTest, DragSpringMatchesTheCpu) {
  BodyDesc d = test::ball(kR, 32, 1e5);
  Pair p(d);
  int top = 0;
  for (int i = 0; i < p.cpu.nodeCount(); ++i)
    if (p.model->restSkin[i].y() > p.model->restSkin[top].y()) top = i;
  const Vec3 target = p.cpu.nodePosition(top) + Vec3(0.3, 0.2, 0);
  p.cpu.beginDrag(top, target, 2e4);
  p.gpu.beginDrag(top, target, 2e4);
  double worst = 0, moved = 0;
  for (int n = 0; n < 200; ++n) {
    p.step(0.005, Vec3::Zero());
    worst = std::max(worst, (p.gpu.nodePosition(top) - p.cpu.nodePosition(top)).norm());
    moved = std::max(moved, (p.cpu.nodePosition(top) - target).norm());
  }
  std::printf("GPU drag: node %.4f m from the target (CPU %.4f m), largest GPU-CPU gap %.2e m\n",
              (p.gpu.nodePosition(top) - target).norm(), (p.cpu.nodePosition(top) - target).norm(), worst);
  EXPECT_LT(worst, 1e-4);
  EXPECT_LT((p.cpu.nodePosition(top) - target).norm(), 0.5 * (Vec3(0.3, 0.2, 0)).norm());
}

// A node load enters the GPU's forces pass and core sums as it enters the CPU's free
// update: a pushed, falling body follows the CPU's, and gains the load's impulse.
TEST_F(GpuSkinTest, NodeLoadMatchesTheCpu) {
  Pair p(test::ball(kR, 32, 1e5));
  const auto load = std::make_shared<test::CapForce>(*p.model, Vec3::UnitX(), 0.5, Vec3(0, 0.01, 0.02));
  p.cpu.addLoad(load);
  p.gpu.addLoad(load);
  const double dt = 0.005;
  const int steps = 200;
  double worstCore = 0, worstSkin = 0;
  for (int n = 0; n < steps; ++n) {
    p.step(dt, kG);
    worstCore = std::max(worstCore, (p.gpu.state().position - p.cpu.state().position).norm());
    worstSkin = std::max(worstSkin, relativeError(p.gpu.state().q, p.cpu.state().q));
  }
  const Vec3 want = steps * dt * (load->total() + p.cpu.totalMass() * kG);
  const Vec3 got = p.gpu.linearMomentum();
  std::printf("GPU node load: largest GPU-CPU gap %.2e m (core), %.2e (skin, relative); momentum z %.6f "
              "(impulse %.6f)\n",
              worstCore, worstSkin, got.z(), want.z());
  EXPECT_NE(p.gpu.freeMotionSolver(), nullptr);  // still on the GPU
  EXPECT_LT(worstCore, 1e-5);
  EXPECT_LT(worstSkin, 1e-3);
  EXPECT_LT((got - want).norm(), 1e-5 * want.norm());
}

// A control metaphor (a node load fixed in the core's frame, eased) on the GPU as on the
// CPU: a wring twist eased in and out on a falling ball's band, its skin and core follow the
// CPU's; with its rings' damping and mitigation too (the GPU's scatter of the velocity
// corrections), which change the skin by far more than the backends differ.
TEST_F(GpuSkinTest, MetaphorMatchesTheCpu) {
  std::vector<std::vector<Vec3>> plainQ;  // (the CPU's skin at each step without the corrections)
  double effect = 0;                       // (... and how far the corrections move it)
  for (const bool corrected : {false, true}) {
    Pair p(test::ball(kR, 32, 1e5));
    MetaphorDesc d = test::bandMetaphor("ball", "twist", "wring", 3000);
    d.start = 0.1;
    d.end = 0.8;
    d.easeIn = 0.2;
    d.easeOut = 0.2;
    if (corrected) {
      d.neighborDamping = {0.5, 0.25};
      d.mitigation = 0.5;
    }
    const auto load = std::make_shared<Metaphor>(d, *p.model);
    p.cpu.addLoad(load);
    p.gpu.addLoad(load);
    const double dt = 0.005;
    double worstCore = 0, worstSkin = 0, peak = 0;  // (the skin's gap in metres: before the
    for (int n = 0; n < 200; ++n) {                  // twist |q| is rounding, 1e-18 m)
      load->setTime(n * dt);
      p.step(dt, kG);
      worstCore = std::max(worstCore, (p.gpu.state().position - p.cpu.state().position).norm());
      const std::vector<Vec3>& qc = p.cpu.state().q;
      const std::vector<Vec3>& qg = p.gpu.state().q;
      for (size_t i = 0; i < qc.size(); ++i) {
        worstSkin = std::max(worstSkin, (qg[i] - qc[i]).norm());
        peak = std::max(peak, qc[i].norm());
        if (corrected) effect = std::max(effect, (qc[i] - plainQ[size_t(n)][i]).norm());
      }
      if (!corrected) plainQ.push_back(qc);
    }
    std::printf("GPU metaphor (wring twist 3 kPa%s): largest GPU-CPU gap %.2e m (core), %.2e m (skin) of a largest "
                "|q| %.2e m\n", corrected ? ", rings damped and mitigated" : "", worstCore, worstSkin, peak);
    EXPECT_NE(p.gpu.freeMotionSolver(), nullptr);
    EXPECT_GT(peak, 1e-3);
    EXPECT_LT(worstCore, 1e-5);
    EXPECT_LT(worstSkin, 1e-4 * peak);
    if (!corrected) continue;
    std::printf("  the corrections moved the skin by up to %.2e m\n", effect);
    EXPECT_GT(effect, 100 * worstSkin);
  }
}

// Dynamic morph targets (ch. 5) on the GPU as on the CPU: the rest force f0 in the forces
// pass, the blended K_e for the forces and the lagging operator's for the CG (two textures
// while they differ), the energy's -q . f0 in the summary. A ball whose pose ramps through
// a stiffer bulge and a squash as it falls follows the CPU's, while the targets move its
// skin by centimetres; held at the bulge's pose with its core fixed, it settles on the
// example's shape.
TEST_F(GpuSkinTest, MorphTargetsMatchTheCpu) {
  Pair p(test::morphBall(test::kTargets));
  const double dt = 0.005;
  double worstCore = 0, worstSkin = 0, peak = 0, worstEnergy = 0, energy = 0;
  int lagging = 0;
  for (int n = 0; n < 200; ++n) {
    p.step(dt, kG);
    worstCore = std::max(worstCore, (p.gpu.state().position - p.cpu.state().position).norm());
    const std::vector<Vec3>&qc = p.cpu.state().q, &qg = p.gpu.state().q;
    for (size_t i = 0; i < qc.size(); ++i) {
      worstSkin = std::max(worstSkin, (qg[i] - qc[i]).norm());
      peak = std::max(peak, qc[i].norm());
    }
    const double ec = p.cpu.skinSummary().elastic, eg = p.gpu.skinSummary().elastic;
    worstEnergy = std::max(worstEnergy, std::abs(eg - ec));
    energy = std::max(energy, std::abs(ec));
    lagging += p.cpu.elastic().operatorVersion() != p.cpu.elastic().version();
  }
  std::printf("GPU morph targets (a ramped 0 -> 2 over 1 s, falling): largest GPU-CPU gap %.2e m (core), %.2e m "
              "(skin) of a largest |q| %.2e m; elastic energy %.2e J of %.2e J; operator lagging in %d of 200 steps\n",
              worstCore, worstSkin, peak, worstEnergy, energy, lagging);
  EXPECT_GT(peak, 0.02);
  EXPECT_GT(lagging, 10);
  EXPECT_LT(worstCore, 1e-5);
  EXPECT_LT(worstSkin, 1e-4 * peak);
  EXPECT_LT(worstEnergy, 1e-3 * energy);

  BodyDesc held = test::morphBall(test::kTargets);
  held.fixedCore = true;
  held.material.alpha = 4;
  test::OneBody w(held);
  w.body.setFreeMotionSolver(std::make_shared<GpuSkin>(w.world.bodies()[0].model));
  w.world.setPoseControl(0, PoseControl{true, {1}});
  for (int n = 0; n < 600; ++n) w.step(dt, Vec3::Zero());
  const MorphTarget& bulge = w.body.morphTargets()->targets().targets[1];
  double err = 0;
  for (size_t i = 0; i < bulge.d.size(); ++i) err = std::max(err, (w.body.state().q[i] - bulge.d[i]).norm());
  std::printf("  held 3 s at the bulge's pose on the GPU: %.2e m from the example (|d| %.3e m)\n", err,
              bulge.maxDisplacement);
  EXPECT_NE(w.body.freeMotionSolver(), nullptr);
  EXPECT_LT(err, 1e-5);
}

}  // namespace

// World::restore with the skin on the GPU: the state goes back to the solver at the
// next step, and the run from there follows the run from the capture (not bit for bit:
// the GPU's CG starts from its last solution, which the snapshot does not hold;
// measured 1e-9 m core, 5e-8 m skin).
TEST_F(GpuSkinTest, WorldRestoreLoadsTheStateBackOntoTheGpu) {
  const Scene sc = ballOnGround(kR + 0.1, Vec3(0.3, 0, 0));
  World w(sc);
  w.bodies()[0].layered.setFreeMotionSolver(std::make_shared<GpuSkin>(w.bodies()[0].model));
  for (int k = 0; k < 60; ++k) w.step();  // (landed: the skin is on the GPU, in contact)
  ASSERT_TRUE(w.bodies()[0].layered.skinResident());
  const WorldState at = w.capture();
  std::vector<LayeredState> first;
  for (int k = 0; k < 40; ++k) {
    w.step();
    first.push_back(w.bodies()[0].layered.state());
  }
  w.restore(at);
  EXPECT_EQ(stateHash(w.capture()), stateHash(at));
  double gapC = 0, gapQ = 0;
  for (int k = 0; k < 40; ++k) {
    w.step();
    const LayeredState& s = w.bodies()[0].layered.state();
    gapC = std::max(gapC, (s.position - first[size_t(k)].position).norm());
    for (size_t i = 0; i < s.q.size(); ++i) gapQ = std::max(gapQ, (s.q[i] - first[size_t(k)].q[i]).norm());
  }
  std::printf("GPU world restore: 40 steps from the restored state vs from the capture: core %.2e m, skin %.2e m\n",
              gapC, gapQ);
  EXPECT_TRUE(w.bodies()[0].layered.skinResident());
  EXPECT_LT(gapC, 1e-7);
  EXPECT_LT(gapQ, 1e-7);
  EXPECT_TRUE(w.takeWarnings().empty());
}

// The timeline on the GPU backend (issue 30): scrubbed back into a skin drag and played
// forward with the recorded inputs, the run follows the recorded one within 1e-6 m (not bit
// for bit: the GPU's CG warm start is not in a snapshot, and its sums are not in a fixed order).
TEST_F(GpuSkinTest, TimelineReSteppedOnTheGpuFollowsTheRecordedRun) {
  const Scene sc = ballOnGround(kR + 0.1, Vec3(0.3, 0, 0));
  World w(sc);
  w.bodies()[0].layered.setFreeMotionSolver(std::make_shared<GpuSkin>(w.bodies()[0].model));
  Timeline t(w);
  const auto stateNow = [&] { return w.capture().bodies[0].layered.state; };
  std::vector<LayeredState> recorded{stateNow()};
  for (int k = 0; k < 120; ++k) {
    if (k == 30) t.input(w, WorldInput::make(WorldInput::Kind::SkinDrag, 0, 7, Vec3(0.2, 1.2, 0)));
    if (k == 70) t.input(w, WorldInput::make(WorldInput::Kind::DragEnd));
    t.step(w);
    recorded.push_back(stateNow());
  }
  ASSERT_TRUE(w.bodies()[0].layered.skinResident());
  t.seek(w, 45);
  ASSERT_EQ(w.steps(), 45);
  double gapC = 0, gapQ = 0, moved = 0;
  for (long k = 45; k <= 120; ++k) {
    if (k > 45) t.step(w);
    const LayeredState s = stateNow();
    const LayeredState& r = recorded[size_t(k)];
    gapC = std::max(gapC, (s.position - r.position).norm());
    for (size_t i = 0; i < s.q.size(); ++i) gapQ = std::max(gapQ, (s.q[i] - r.q[i]).norm());
    moved = std::max(moved, (r.position - recorded[45].position).norm());
  }
  std::printf("GPU timeline: steps 45-120 re-stepped from a snapshot vs recorded: core %.2e m, skin %.2e m (the "
              "core moved %.2f m; %d snapshots differed)\n", gapC, gapQ, moved, t.divergences());
  EXPECT_GT(moved, 0.05) << "the drag did not move the ball: the test does not cover the replayed input";
  EXPECT_LT(gapC, 1e-6);
  EXPECT_LT(gapQ, 1e-6);
  EXPECT_TRUE(w.takeWarnings().empty());
}

}  // namespace d2t
