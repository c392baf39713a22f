// SupernodalLdlt against dense references: quasi-definite KKT systems of a chain and of a tree of
// 6-dof blocks with their joints' rows (the characters' bones), random sparse SPD matrices, a
// pattern given with duplicates, a zero pivot, and an entry above the diagonal.
#include <gtest/gtest.h>

#include <random>

#include "sim/base/supernodal_ldlt.h"

namespace d2t {
namespace {

struct Lower {
  int n = 0;
  std::vector<std::pair<int, int>> entries;  // (row >= column)
  std::vector<double> values;
  void add(int i, int j, double v) {
    entries.push_back({std::max(i, j), std::min(i, j)});
    values.push_back(v);
  }
  Eigen::MatrixXd dense() const {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
    for (size_t e = 0; e < entries.size(); ++e) {
      const auto [i, j] = entries[e];
      A(i, j) += values[e];
      if (i != j) A(j, i) += values[e];
    }
    return A;
  }
};

// factors A with the pattern analysed once and the values scattered, solves a random right side
// and returns the residual |A x - b| / |b| (-1: a pivot failed)
double residual(const Lower& a, std::mt19937& rng, SupernodalLdlt* f = nullptr) {
  SupernodalLdlt own;
  if (!f) f = &own;
  const std::vector<int> slot = f->analyze(a.n, a.entries);
  double* s = f->clearStorage();
  for (size_t e = 0; e < slot.size(); ++e) s[slot[e]] += a.values[e];
  if (!f->factorize()) return -1;
  std::normal_distribution<double> g;
  Eigen::VectorXd b(a.n);
  for (int i = 0; i < a.n; ++i) b(i) = g(rng);
  Eigen::VectorXd x = b;
  f->solve(x);
  return (a.dense() * x - b).norm() / b.norm();
}

// k bones of 6 dofs in a tree (bone b's parent: parent(b)), each joint with `rows` rows J x = 0
// between child and parent, M blocks SPD and coupled along the tree and (skin) between
// grandparent and grandchild; eliminated leaves-up as ArticulatedBody does (a bone, then its
// joint's rows), or in the natural order (bones first).
Lower treeKkt(const std::vector<int>& parent, int rows, bool leavesUp, std::mt19937& rng) {
  const int k = int(parent.size()), nv = 6 * k;
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<int> order(static_cast<size_t>(nv + rows * (k - 1)));
  int next = 0;
  if (leavesUp) {
    for (int b = k - 1; b >= 0; --b) {  // (children have larger indices than their parents)
      for (int c = 0; c < 6; ++c) order[size_t(6 * b + c)] = next++;
      if (b > 0)
        for (int r = 0; r < rows; ++r) order[size_t(nv + rows * (b - 1) + r)] = next++;
    }
  } else {
    for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  }
  Lower a;
  a.n = int(order.size());
  const auto add = [&](int i, int j, double v) { a.add(order[size_t(i)], order[size_t(j)], v); };
  const auto block = [&](int bi, int bj, double scale) {
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        if (bi != bj || r >= c) add(6 * bi + r, 6 * bj + c, scale * u(rng));
  };
  for (int b = 0; b < k; ++b) {
    block(b, b, 0.1);
    for (int r = 0; r < 6; ++r) add(6 * b + r, 6 * b + r, 8.0);  // (diagonally dominant: SPD)
    if (b > 0) block(b, parent[size_t(b)], 0.1);
    if (b > 0 && parent[size_t(b)] > 0) block(b, parent[size_t(parent[size_t(b)])], 0.05);
  }
  for (int b = 1; b < k; ++b)
    for (int r = 0; r < rows; ++r) {
      const int row = nv + rows * (b - 1) + r;
      for (int c = 0; c < 6; ++c) {
        add(row, 6 * b + c, u(rng));
        add(row, 6 * parent[size_t(b)] + c, u(rng));
      }
      add(row, row, -1e-6);  // (-eps I: quasi-definite)
    }
  return a;
}

TEST(SupernodalLdlt, SolvesAChainsKktInEitherOrder) {
  std::mt19937 rng(1);
  std::vector<int> chain(12);
  for (int b = 0; b < 12; ++b) chain[size_t(b)] = b - 1;
  for (bool leavesUp : {true, false})
    for (int rows : {3, 5}) EXPECT_LT(residual(treeKkt(chain, rows, leavesUp, rng), rng), 1e-10) << leavesUp << rows;
}

TEST(SupernodalLdlt, SolvesATreesKktRefactoredWithNewValues) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  std::vector<int> tree(34);
  tree[0] = -1;
  for (int b = 1; b < 34; ++b) tree[size_t(b)] = pick(rng) % b;  // (a random tree, parents first)
  const Lower a = treeKkt(tree, 3, true, rng);
  SupernodalLdlt f;
  EXPECT_LT(residual(a, rng, &f), 1e-10);
  // the same pattern with other values: the storage refilled, factored again
  Lower b = treeKkt(tree, 3, true, rng);
  ASSERT_EQ(a.entries, b.entries);
  EXPECT_LT(residual(b, rng, &f), 1e-10);
}

TEST(SupernodalLdlt, SolvesRandomSparseSpdMatricesWithDuplicateEntries) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> idx(0, 59);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    Lower a;
    a.n = 60;
    for (int i = 0; i < 60; ++i) a.add(i, i, 30.0);
    for (int e = 0; e < 150; ++e) a.add(idx(rng), idx(rng), u(rng));  // (some on the diagonal, some twice)
    EXPECT_LT(residual(a, rng), 1e-11) << "trial " << trial;
  }
}

TEST(SupernodalLdlt, ReportsAZeroPivotAndRefusesAnEntryAboveTheDiagonal) {
  std::mt19937 rng(4);
  Lower a;
  a.n = 3;
  a.add(0, 0, 0.0);  // (zero pivot first: a KKT row eliminated before its bones)
  a.add(1, 0, 1.0);
  a.add(1, 1, 2.0);
  a.add(2, 2, 1.0);
  EXPECT_EQ(residual(a, rng), -1);
  SupernodalLdlt f;
  EXPECT_THROW(f.analyze(2, {{0, 1}}), std::invalid_argument);
  EXPECT_THROW(f.analyze(2, {{2, 0}}), std::invalid_argument);
}

}  // namespace
}  // namespace d2t
