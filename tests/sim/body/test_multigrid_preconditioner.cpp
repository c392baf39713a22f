// The multigrid preconditioner of the CPU's CG (multigrid_preconditioner.h): its V-cycle
// is the symmetric positive definite operator CG needs, the preconditioned solve reaches
// its tolerance in a few iterations where single-level CG needs many times more, its
// iterations do not grow with the atlas, and the float cycle still lets CG reach 1e-12
// (the coupling columns' tolerance) at the direct solver's answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "sim/body/implicit_operator.h"
#include "sim/body/multigrid_preconditioner.h"
#include "sim/model/baked_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

using test::ball;
using test::stiffHeterogeneousBall;


struct Operator {
  BakedBodyPtr model;
  std::unique_ptr<ConstantStiffness> elastic;
  ImplicitOperator op;
  Operator(const BodyDesc& d, SolverMethod method) : model(bake(d)), elastic(std::make_unique<ConstantStiffness>(model)) {
    op.prepare(model, *elastic, ImplicitOperator::keyFor(*model, *elastic, d.material, 0.005, method));
  }
  int nodes() const { return model->nodeCount(); }
};

std::vector<Vec3> whiteNoise(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> u;
  std::vector<Vec3> b(size_t(n), Vec3::Zero());
  for (Vec3& v : b) v = Vec3(u(rng), u(rng), u(rng));
  return b;
}

// The elastic force -K z of a random displacement z of the skin: the kind of right-hand
// side a step solves (Ft_e's -K (q + (beta + dt) qdot)).
std::vector<Vec3> elasticForce(const Operator& o, unsigned seed) {
  const std::vector<Vec3> z = whiteNoise(o.nodes(), seed);
  std::vector<Vec3> kz;
  multiplyStencil(o.model->atlas.stencil, o.model->stiffness, z, kz);
  for (Vec3& v : kz) v = -v;
  return kz;
}

// Unpreconditioned CG from zero to |r| <= tolerance |b|: its iterations (capped).
int plainCgIterations(const ImplicitOperator& op, const std::vector<Vec3>& b, double tolerance, int cap) {
  const int n = int(b.size());
  std::vector<Vec3> x(n, Vec3::Zero()), r = b, p = b, ap;
  double rr = 0;
  for (const Vec3& v : r) rr += v.squaredNorm();
  const double bb = rr;
  int it = 0;
  while (it < cap && rr > tolerance * tolerance * bb) {
    op.multiply(p, ap);
    double pap = 0;
    for (int i = 0; i < n; ++i) pap += p[i].dot(ap[i]);
    const double alpha = rr / pap;
    double rrNew = 0;
    for (int i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
      rrNew += r[i].squaredNorm();
    }
    for (int i = 0; i < n; ++i) p[i] = r[i] + (rrNew / rr) * p[i];
    rr = rrNew;
    ++it;
  }
  return it;
}

int preconditionedIterations(const ImplicitOperator& op, const std::vector<Vec3>& b, double tolerance, int cap,
                             double* residual) {
  std::vector<Vec3> x(b.size(), Vec3::Zero());
  return op.solve(b, x, cap, tolerance, residual);
}

}  // namespace

// u . B v = v . B u and u . B u > 0 for the V-cycle B: CG's convergence rests on both.
// (A post-smoother other than the pre-smoother's polynomial, or a restriction other than
// P^T, breaks the first.)
TEST(MultigridPreconditioner, VCycleIsSymmetricPositiveDefinite) {
  const Operator o(stiffHeterogeneousBall(64), SolverMethod::CG);
  MultigridPreconditioner mg;
  mg.build(o.op.stencil(), o.op.blocks());
  ASSERT_GE(mg.levelCount(), 2);  // (a real hierarchy, not only the coarse factor)
  MultigridPreconditioner::Workspace w;
  double worstAsymmetry = 0, leastRayleigh = 1e300;
  for (unsigned s = 0; s < 6; ++s) {
    const std::vector<Vec3> u = whiteNoise(o.nodes(), 2 * s + 1), v = whiteNoise(o.nodes(), 2 * s + 2);
    std::vector<Vec3> bu, bv;
    const double uBu = mg.apply(u, bu, w);
    mg.apply(v, bv, w);
    double uBv = 0, vBu = 0, nu = 0, nbv = 0;
    for (int i = 0; i < o.nodes(); ++i) {
      uBv += u[i].dot(bv[i]);
      vBu += v[i].dot(bu[i]);
      nu += u[i].squaredNorm();
      nbv += bv[i].squaredNorm();
    }
    worstAsymmetry = std::max(worstAsymmetry, std::abs(uBv - vBu) / std::sqrt(nu * nbv));
    leastRayleigh = std::min(leastRayleigh, uBu / nu);
  }
  std::printf("[ figures  ] %d levels (%d -> %d nodes), operator complexity %.2f; |u.Bv - v.Bu| / |u||Bv| <= %.2e, "
              "u.Bu / u.u >= %.3e\n",
              mg.levelCount(), mg.levelNodes(0), mg.levelNodes(mg.levelCount() - 1), mg.operatorComplexity(),
              worstAsymmetry, leastRayleigh);
  EXPECT_LT(worstAsymmetry, 1e-5);  // (float rounding of the cycle)
  EXPECT_GT(leastRayleigh, 0);
}

// Issue 32's check: on a 128^2 stiff heterogeneous body the multigrid-preconditioned CG
// reaches 1e-6 in a few iterations; plain CG needs over 50 and the single-level DILU
// preconditioner it replaces tens.
TEST(MultigridPreconditioner, ReachesTheToleranceInAFewIterationsWhereSingleLevelCgCannot) {
  const BodyDesc d = stiffHeterogeneousBall(128);
  const Operator mg(d, SolverMethod::CG), dilu(d, SolverMethod::CgDilu);
  for (int rhs = 0; rhs < 2; ++rhs) {
    const std::vector<Vec3> b = rhs == 0 ? elasticForce(mg, 3) : whiteNoise(mg.nodes(), 3);
    double residual = 1;
    const int itMg = preconditionedIterations(mg.op, b, 1e-6, 200, &residual);
    double residualDilu = 1;
    const int itDilu = preconditionedIterations(dilu.op, b, 1e-6, 1000, &residualDilu);
    const int itPlain = plainCgIterations(mg.op, b, 1e-6, 5000);
    std::printf("[ figures  ] %d nodes, b = %s: multigrid %d iterations (residual %.2e), DILU %d, plain CG %d\n",
                mg.nodes(), rhs == 0 ? "-K z (z white noise)" : "white noise", itMg, residual, itDilu, itPlain);
    EXPECT_LE(residual, 1e-6);
    EXPECT_LE(itMg, rhs == 0 ? 10 : 12);
    EXPECT_GT(itPlain, 50);
    EXPECT_GT(itDilu, 3 * itMg);
  }
}

// The mark of a working multigrid: the iterations to 1e-6 hardly change from 64^2 to
// 256^2 (2,166 to 41,334 nodes), where single-level CG's double with each doubling of
// the atlas.
TEST(MultigridPreconditioner, IterationsDoNotGrowWithTheAtlas) {
  int first = 0, most = 0;
  for (const int res : {64, 128, 256}) {
    const Operator o(stiffHeterogeneousBall(res), SolverMethod::CG);
    const std::vector<Vec3> b = elasticForce(o, 5);
    double residual = 1;
    const int it = preconditionedIterations(o.op, b, 1e-6, 200, &residual);
    std::printf("[ figures  ] %d^2 (%d nodes): %d iterations to 1e-6 (residual %.2e)\n", res, o.nodes(), it,
                residual);
    EXPECT_LE(residual, 1e-6);
    if (res == 64) first = it;
    most = std::max(most, it);
  }
  EXPECT_LE(most, std::ceil(1.3 * first));
}

// The coupling columns are solved to 1e-12 by this CG: the float V-cycle must not stall
// it, and the answer is the direct factor's.
TEST(MultigridPreconditioner, TightSolveReachesTheDirectSolversAnswer) {
  const BodyDesc d = stiffHeterogeneousBall(64);
  const Operator cg(d, SolverMethod::CG), direct(d, SolverMethod::Direct);
  ASSERT_TRUE(direct.op.direct());
  const std::vector<Vec3> b = elasticForce(cg, 9);
  std::vector<Vec3> x(b.size(), Vec3::Zero()), xd;
  double residual = 1;
  const int it = cg.op.solve(b, x, 200, 1e-12, &residual);
  direct.op.solve(b, xd, 0, 0, nullptr);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, (x[i] - xd[i]).norm());
    norm = std::max(norm, xd[i].norm());
  }
  std::printf("[ figures  ] to 1e-12: %d iterations (residual %.2e); |x - x_direct|_max / |x_direct|_max %.2e\n", it,
              residual, diff / norm);
  EXPECT_LE(residual, 1e-12);
  EXPECT_LT(it, 60);
  EXPECT_LT(diff / norm, 1e-9);
}

// The fine level's A is packed for SIMD products (its rows are the 7-slot stencil); the
// packed product (this CPU's clone of the kernel) is the compressed rows' product, the
// last group's padding included (2,166 nodes: 6 rows in the last group of 16).
TEST(MultigridPreconditioner, PackedProductIsTheRowsProduct) {
  const Operator o(stiffHeterogeneousBall(64), SolverMethod::CG);
  const MultigridPreconditioner& mg = o.op.multigrid();
  ASSERT_FALSE(mg.empty());
  const BlockRows& a = mg.level(0).a;
  ASSERT_GT(a.packed.slots, 0);
  ASSERT_NE(a.rows % BlockRows::kGroup, 0);
  BlockRows rows = a;
  rows.packed = BlockRows::Packed{};
  const std::vector<Vec3> x = whiteNoise(a.rows, 3);
  std::vector<Eigen::Vector3f> xf(x.size()), yPacked, yRows;
  for (size_t i = 0; i < x.size(); ++i) xf[i] = x[i].cast<float>();
  a.multiply(xf, yPacked);
  rows.multiply(xf, yRows);
  double err = 0, ref = 0;
  for (size_t i = 0; i < yRows.size(); ++i) {
    err = std::max(err, double((yPacked[i] - yRows[i]).norm()));
    ref = std::max(ref, double(yRows[i].norm()));
  }
  std::printf("[ figures  ] packed %d slots x %d groups: max |packed - rows| / max |rows| %.1e\n", a.packed.slots,
              a.groups(), err / ref);
  EXPECT_LT(err / ref, 1e-6);
}

}  // namespace d2t
