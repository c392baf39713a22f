// The GPU's multigrid passes (GpuMultigrid) against their CPU reference
// (MultigridPreconditioner), pass by pass on random vectors: each level's products
// with A, P and R, the coarsest level's solve, each level's smoothing, the whole
// V-cycle; then the GPU's CG with it: the tolerance in a few iterations where block
// Jacobi needs many times more, at the answer of the CPU's direct solve.
//
// Bounds: the passes and the CPU cycle both compute in float; a product or a smoothing
// differs by the order of its float sums (measured on llvmpipe: below 1e-6 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "gl_test.h"
#include "gpu/skin/gpu_multigrid.h"
#include "gpu_pair.h"
#include "sim/body/multigrid_preconditioner.h"
#include "sim/test_shapes.h"

namespace d2t {
namespace {

using GpuMultigridTest = test::GlTest;
using test::randomField;
using test::stiffHeterogeneousBall;
using test::relativeError;
using Vec3f = Eigen::Vector3f;

std::vector<Vec3f> toFloat(const std::vector<Vec3>& v) {
  std::vector<Vec3f> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = v[i].cast<float>();
  return f;
}
std::vector<Vec3> toDouble(const std::vector<Vec3f>& v) {
  std::vector<Vec3> d(v.size());
  for (size_t i = 0; i < v.size(); ++i) d[i] = v[i].cast<double>();
  return d;
}


// The ball's Mt_e and its hierarchy on the CPU, the same uploaded to the GPU.
struct Hierarchy {
  BakedBodyPtr model;
  std::unique_ptr<ConstantStiffness> elastic;
  ImplicitOperator op;
  MultigridPreconditioner cpu;
  std::unique_ptr<AtlasPasses> passes;
  std::unique_ptr<GpuMultigrid> gpu;
  // (coarsest: the most nodes of the coarsest level; the test atlases are small)
  Hierarchy(const BodyDesc& d, int coarsest) : model(bake(d)), elastic(std::make_unique<ConstantStiffness>(model)) {
    op.prepare(model, *elastic, ImplicitOperator::keyFor(*model, *elastic, d.material, 0.005, SolverMethod::Direct));
    cpu.build(op.stencil(), op.blocks(), coarsest);
    passes = std::make_unique<AtlasPasses>(model);
    gpu = std::make_unique<GpuMultigrid>(*passes);
    gpu->upload(cpu);
  }
};

TEST_F(GpuMultigridTest, EachPassMatchesTheCpuCycle) {
  Hierarchy h(stiffHeterogeneousBall(48), 40);
  ASSERT_TRUE(h.gpu->ready());
  const int levels = h.cpu.levelCount();
  std::printf("%d nodes, %d levels, coarsest %d nodes\n", h.cpu.nodeCount(), levels, h.cpu.levelNodes(levels - 1));
  ASSERT_GE(levels, 3);  // (two smoothed levels at least: the compact layouts are tested too)
  using Product = GpuMultigrid::Product;
  for (int l = 0; l + 1 < levels; ++l) {
    const MultigridPreconditioner::Level& lv = h.cpu.level(l);
    const int n = h.cpu.levelNodes(l), nc = h.cpu.levelNodes(l + 1);
    const std::vector<Vec3> x = randomField(n, 1.0, unsigned(10 + l)), xc = randomField(nc, 1.0, unsigned(20 + l));
    std::vector<Vec3f> y;
    lv.a.multiply(toFloat(x), y);
    const double errA = relativeError(h.gpu->multiply(l, Product::A, x), toDouble(y));
    lv.p.multiply(toFloat(xc), y);
    const double errP = relativeError(h.gpu->multiply(l, Product::P, xc), toDouble(y));
    lv.r.multiply(toFloat(x), y);
    const double errR = relativeError(h.gpu->multiply(l, Product::R, x), toDouble(y));
    std::vector<Vec3f> xs, res;
    h.cpu.presmooth(l, toFloat(x), xs, res);
    std::vector<Vec3> gx, gres;
    h.gpu->presmooth(l, x, &gx, &gres);
    const double errX = relativeError(gx, toDouble(xs)), errRes = relativeError(gres, toDouble(res));
    std::printf("level %d (%d nodes): A %.1e  P %.1e  R %.1e  smoothing x %.1e res %.1e\n", l, n, errA, errP, errR,
                errX, errRes);
    EXPECT_LT(errA, 1e-6);
    EXPECT_LT(errP, 1e-6);
    EXPECT_LT(errR, 1e-6);
    EXPECT_LT(errX, 1e-5);
    EXPECT_LT(errRes, 1e-5);
  }
  // the coarsest level: the dense inverse's product against CHOLMOD's solve
  const int nc = h.cpu.levelNodes(levels - 1);
  const std::vector<Vec3> f = randomField(nc, 1.0, 30);
  Eigen::VectorXd fv(3 * nc);
  for (int i = 0; i < nc; ++i) fv.segment<3>(3 * i) = f[size_t(i)];
  const Eigen::VectorXd ev = h.cpu.coarseInverse() * fv;
  std::vector<Vec3> e(static_cast<size_t>(nc));
  for (int i = 0; i < nc; ++i) e[size_t(i)] = ev.segment<3>(3 * i);
  const double errC = relativeError(h.gpu->coarseSolve(f), e);
  std::printf("coarsest (%d nodes): %.1e\n", nc, errC);
  EXPECT_LT(errC, 1e-4);  // (a float sum of 3 nc terms of a matrix of moderate condition)
  // the whole V-cycle
  const int n = h.cpu.nodeCount();
  const std::vector<Vec3> r = randomField(n, 1.0, 40);
  std::vector<Vec3> z;
  MultigridPreconditioner::Workspace w;
  h.cpu.apply(r, z, w);
  const GlTexture rt = h.passes->newField(), zt = h.passes->newField();
  h.passes->uploadNodes(rt, r);
  h.gpu->apply(rt, zt);
  const double errV = relativeError(h.passes->downloadNodes(zt), z);
  std::printf("V-cycle: %.1e\n", errV);
  EXPECT_LT(errV, 1e-4);
}

// A ball small enough to be its own coarsest level: the V-cycle is the dense solve.
TEST_F(GpuMultigridTest, OneLevelHierarchyIsTheExactSolve) {
  Hierarchy h(test::ball(0.5, 16, 1e5), MultigridPreconditioner::kCoarsestNodes);
  ASSERT_EQ(h.cpu.levelCount(), 1);
  ASSERT_TRUE(h.gpu->ready());
  const int n = h.cpu.nodeCount();
  const std::vector<Vec3> b = randomField(n, 1.0, 5);
  const GlTexture bt = h.passes->newField(), xt = h.passes->newField();
  h.passes->uploadNodes(bt, b);
  h.gpu->apply(bt, xt);
  std::vector<Vec3> x = h.passes->downloadNodes(xt), ax;
  h.op.multiply(x, ax);
  EXPECT_LT(relativeError(ax, b), 1e-4);
}

// The GPU's CG on the stiff heterogeneous ball, from zero on white noise (the hardest
// right-hand side): the multigrid to 1e-5 in about as many iterations as the CPU's
// (tests/sim/body/test_multigrid_preconditioner.cpp), block Jacobi many times more;
// both at the direct solve's answer.
TEST_F(GpuMultigridTest, ConjugateGradientsConvergeInAFewIterations) {
  test::Pair p(stiffHeterogeneousBall(48));
  p.step(0.005, Vec3::Zero());
  const BodyView body = p.cpu.view();
  const int n = p.cpu.nodeCount();
  const auto prepared = [&](SolverMethod method) {
    auto op = std::make_unique<ImplicitOperator>();
    op->prepare(p.model, body.elastic, ImplicitOperator::keyFor(*p.model, body.elastic, body.material, 0.005, method));
    return op;
  };
  const std::vector<Vec3> b = randomField(n, 1e-2, 4);
  std::vector<Vec3> exact(n, Vec3::Zero());
  prepared(SolverMethod::Direct)->solve(b, exact, 1, 0, nullptr);
  int iterations[2] = {0, 0};
  const auto multigridOp = prepared(SolverMethod::CG), jacobiOp = prepared(SolverMethod::CgDilu);
  for (const SolverMethod method : {SolverMethod::CG, SolverMethod::CgDilu}) {
    const auto& op = method == SolverMethod::CG ? multigridOp : jacobiOp;
    // (the view of this operator: its own id, so that the GPU uploads its operators)
    const BodyView view{op.get(), body.model, body.elastic, *op, body.settings, body.material,
                        body.forces, body.core, body.springs, false};
    std::vector<Vec3> x(n, Vec3::Zero());
    double residual = 0;
    const int it = p.skin->solve(view, b, x, 500, 1e-5, &residual);
    const double err = relativeError(x, exact);
    std::printf("GPU CG, %s: %d iterations, residual %.1e, error against the direct solve %.1e\n",
                method == SolverMethod::CG ? "multigrid" : "block Jacobi", it, residual, err);
    EXPECT_LE(residual, 1e-5);
    EXPECT_LT(err, 1e-4);
    iterations[method == SolverMethod::CG ? 0 : 1] = it;
  }
  EXPECT_LE(iterations[0], 14);
  EXPECT_GE(iterations[1], 4 * iterations[0]);
}

}  // namespace
}  // namespace d2t
