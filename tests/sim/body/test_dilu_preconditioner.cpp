// The block DILU preconditioner of Mt_e against a dense reference built here from
// its definition: M = (Dt + L) Dt^-1 (Dt + U) per chunk, Dt_i = A_ii - sum_(j < i)
// A_ij Dt_j^-1 A_ji, couplings between chunks left out.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "sim/model/baked_body.h"
#include "sim/body/dilu_preconditioner.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// Mt_e = (1 + dt alpha) M_e + (dt beta + dt^2) K_e as ImplicitOperator::prepare forms it
std::vector<std::array<Mat3, kStencilSlots>> mtBlocks(const BakedBody& m, double dt) {
  const double c1 = 1 + dt * 0.1, c2 = dt * 0.01 + dt * dt;
  std::vector<std::array<Mat3, kStencilSlots>> a(m.nodeCount());
  for (int i = 0; i < m.nodeCount(); ++i) {
    for (int k = 0; k < kStencilSlots; ++k) a[i][k] = c2 * m.stiffness[i][k];
    a[i][0] += c1 * m.nodeMass[i] * Mat3::Identity();
  }
  return a;
}

void expectDiluMatchesDenseReference(const BodyDesc& desc) {
  const BakedBodyPtr body = bake(desc);
  const BakedBody& m = *body;
  const int n = m.nodeCount();
  const auto blocks = mtBlocks(m, 0.005);
  const std::vector<Stencil>& st = m.atlas.stencil;
  DiluPreconditioner dilu;
  dilu.build(st, blocks);
  ASSERT_EQ(dilu.nodeCount(), n);
  auto chunkOf = [&](int i) {
    int c = 0;
    while (i >= dilu.chunkStart(c + 1)) ++c;
    return c;
  };
  // dense A, and L, U, Dt of the reference
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < kStencilSlots; ++k)
      if (st[i][k] >= 0) A.block<3, 3>(3 * i, 3 * st[i][k]) += blocks[i][k];
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(3 * n, 3 * n), U = L, Dt = L, DtInv = L;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j || chunkOf(i) != chunkOf(j)) continue;
      (j < i ? L : U).block<3, 3>(3 * i, 3 * j) = A.block<3, 3>(3 * i, 3 * j);
    }
  for (int i = 0; i < n; ++i) {
    Mat3 d = A.block<3, 3>(3 * i, 3 * i);
    for (int j = dilu.chunkStart(chunkOf(i)); j < i; ++j)
      d -= L.block<3, 3>(3 * i, 3 * j) * DtInv.block<3, 3>(3 * j, 3 * j) * U.block<3, 3>(3 * j, 3 * i);
    Dt.block<3, 3>(3 * i, 3 * i) = d;
    DtInv.block<3, 3>(3 * i, 3 * i) = d.inverse();
  }
  const Eigen::MatrixXd M = (Dt + L) * DtInv * (Dt + U);
  // the reference is DILU: M's diagonal blocks are A's
  // (M_ii = Dt_i + sum_(j < i) A_ij Dt_j^-1 A_ji; its off-diagonal blocks carry the
  // fill L Dt^-1 U as well)
  double diagonalError = 0;
  for (int i = 0; i < n; ++i)
    diagonalError = std::max(diagonalError, (M.block<3, 3>(3 * i, 3 * i) - A.block<3, 3>(3 * i, 3 * i))
                                                .cwiseAbs().maxCoeff());
  EXPECT_LT(diagonalError, 1e-12 * A.cwiseAbs().maxCoeff());
  // apply() solves M z = r (its sweeps run in float)
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Vec3> r(n), z;
  for (Vec3& v : r) v = Vec3(u(rng), u(rng), u(rng));
  DiluPreconditioner::Sweep sweep;
  const double rz = dilu.apply(r, z, sweep);
  Eigen::VectorXd rv(3 * n), zv(3 * n);
  for (int i = 0; i < n; ++i) {
    rv.segment<3>(3 * i) = r[i];
    zv.segment<3>(3 * i) = z[i];
  }
  const Eigen::VectorXd zRef = M.ldlt().solve(rv);
  const double err = (zv - zRef).norm() / zRef.norm();
  std::printf("[ figures  ] DILU (%d nodes, %d chunks): |z - M^-1 r| / |M^-1 r| = %.2g\n", n,
              DiluPreconditioner::kChunks, err);
  EXPECT_LT(err, 1e-5);
  EXPECT_NEAR(rz, rv.dot(zv), 1e-12 * std::abs(rz));
  // M is symmetric positive definite (CG needs it)
  EXPECT_LT((M - M.transpose()).cwiseAbs().maxCoeff(), 1e-12 * A.cwiseAbs().maxCoeff());
  EXPECT_EQ(M.ldlt().info(), Eigen::Success);
  EXPECT_GT(M.selfadjointView<Eigen::Lower>().eigenvalues().minCoeff(), 0);
}

TEST(DiluPreconditioner, MatchesItsDenseDefinitionOnASphere) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(0.5);
  d.coreScale = 0.6;
  d.atlasResolution = 32;
  expectDiluMatchesDenseReference(d);
}

TEST(DiluPreconditioner, MatchesItsDenseDefinitionOnATorus) {
  // the torus's atlas wraps around: stencil neighbours far apart in node order
  BodyDesc d;
  d.name = "tire";
  d.shape = std::make_shared<test::Torus>(0.4, 0.15);
  d.coreScale = 0.6;
  d.atlasResolution = 24;
  expectDiluMatchesDenseReference(d);
}

}  // namespace
}  // namespace d2t
