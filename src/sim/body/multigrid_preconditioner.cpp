// MultigridPreconditioner: the smoothed-aggregation hierarchy (build) and its V-cycle
// with Chebyshev smoothing (apply). The method and its choices are in the header.
#include "sim/body/multigrid_preconditioner.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "sim/base/ordered_sum.h"
#include "sim/body/node_loops.h"

namespace d2t {

using layered_detail::kParallelNodes;
using Triplet = Eigen::Triplet<double>;
using SparseRows = MultigridPreconditioner::SparseRows;

// ---- block rows ---------------------------------------------------------------------------------

BlockRows BlockRows::fromScalar(const SparseRows& a) {
  BlockRows m;
  m.rows = int(a.rows() / 3);
  m.cols = int(a.cols() / 3);
  m.start.assign(m.rows + 1, 0);
  std::vector<int> slot(m.cols, -1);  // block column -> its block in the row being built
  for (int i = 0; i < m.rows; ++i) {
    std::vector<int> cols;
    for (int r = 0; r < 3; ++r)
      for (SparseRows::InnerIterator it(a, 3 * i + r); it; ++it)
        if (slot[it.col() / 3] < 0) {
          slot[it.col() / 3] = 0;
          cols.push_back(int(it.col() / 3));
        }
    std::sort(cols.begin(), cols.end());
    const int first = int(m.column.size());
    for (size_t k = 0; k < cols.size(); ++k) {
      slot[cols[k]] = first + int(k);
      m.column.push_back(cols[k]);
      m.block.push_back(Eigen::Matrix3f::Zero());
    }
    for (int r = 0; r < 3; ++r)
      for (SparseRows::InnerIterator it(a, 3 * i + r); it; ++it)
        m.block[slot[it.col() / 3]](r, it.col() % 3) = float(it.value());
    for (int c : cols) slot[c] = -1;
    m.start[i + 1] = int(m.column.size());
  }
  m.pack();
  return m;
}

// The packed form where it pays: rows of nearly one length, enough of them.
void BlockRows::pack() {
  packed = Packed{};
  int longest = 0;
  for (int i = 0; i < rows; ++i) longest = std::max(longest, start[i + 1] - start[i]);
  const double padded = double(groups()) * kGroup * longest;
  if (rows < kPackMinRows || padded > (1 + kPackMaxPadding) * double(column.size())) return;
  packed.slots = longest;
  packed.column.assign(size_t(groups()) * longest * kGroup, 0);
  packed.value.assign(size_t(groups()) * longest * 9 * kGroup, 0.0f);
  for (int i = 0; i < rows; ++i) {
    const int g = i / kGroup, lane = i % kGroup;
    for (int k = 0; k < start[i + 1] - start[i]; ++k) {
      const size_t entry = size_t(g) * longest + size_t(k);
      packed.column[entry * kGroup + lane] = column[size_t(start[i] + k)];
      for (int e = 0; e < 9; ++e) packed.value[(entry * 9 + e) * kGroup + lane] = block[size_t(start[i] + k)](e / 3, e % 3);
    }
  }
}

namespace {

// A group's rows of a packed product: out[3 lane + r] = sum_k sum_c value(k, r, c, lane)
// x[3 column(k, lane) + c]. The lanes vectorise (gathers of x); one clone per
// instruction set, picked at load time (the build targets the plain x86-64 ISA).
__attribute__((target_clones("avx512f", "avx2", "default")))
void packedGroup(int slots, const int* column, const float* value, const float* x, float* out) {
  constexpr int L = BlockRows::kGroup;
  float y0[L] = {}, y1[L] = {}, y2[L] = {};
  for (int k = 0; k < slots; ++k) {
    const int* c = column + size_t(k) * L;
    const float* v = value + size_t(k) * 9 * L;
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      const float x0 = x[3 * c[l]], x1 = x[3 * c[l] + 1], x2 = x[3 * c[l] + 2];
      y0[l] += v[l] * x0 + v[L + l] * x1 + v[2 * L + l] * x2;
      y1[l] += v[3 * L + l] * x0 + v[4 * L + l] * x1 + v[5 * L + l] * x2;
      y2[l] += v[6 * L + l] * x0 + v[7 * L + l] * x1 + v[8 * L + l] * x2;
    }
  }
  for (int l = 0; l < L; ++l) {
    out[3 * l] = y0[l];
    out[3 * l + 1] = y1[l];
    out[3 * l + 2] = y2[l];
  }
}

}  // namespace

void BlockRows::multiplyGroup(int g, const std::vector<Vec3f>& x, Vec3f* out) const {
  const int first = g * kGroup, count = std::min(kGroup, rows - first);
  if (packed.slots > 0) {
    static_assert(sizeof(Vec3f) == 3 * sizeof(float), "node vectors are flat 3n floats");
    float y[3 * kGroup];
    const size_t entry = size_t(g) * size_t(packed.slots);
    packedGroup(packed.slots, &packed.column[entry * kGroup], &packed.value[entry * 9 * kGroup], x[0].data(), y);
    for (int l = 0; l < count; ++l) out[l] = Vec3f(y[3 * l], y[3 * l + 1], y[3 * l + 2]);
    return;
  }
  for (int l = 0; l < count; ++l) {
    const int i = first + l;
    Vec3f s = Vec3f::Zero();
    for (int k = start[i]; k < start[i + 1]; ++k) s += block[k] * x[column[k]];
    out[l] = s;
  }
}

void BlockRows::multiply(const std::vector<Vec3f>& x, std::vector<Vec3f>& y, bool accumulate) const {
  y.resize(rows);
#pragma omp parallel for schedule(static) if (threaded())
  for (int g = 0; g < groups(); ++g) {
    Vec3f s[kGroup];
    multiplyGroup(g, x, s);
    for (int l = 0; l < std::min(kGroup, rows - g * kGroup); ++l)
      y[size_t(g * kGroup + l)] = accumulate ? Vec3f(y[size_t(g * kGroup + l)] + s[l]) : s[l];
  }
}

// ---- setup --------------------------------------------------------------------------------------

namespace {

// The graph of the 3x3 blocks of a (node i's neighbours, i itself left out).
struct BlockGraph {
  std::vector<int> start, node;
};

BlockGraph blockGraph(const SparseRows& a) {
  const int n = int(a.rows() / 3);
  BlockGraph g;
  g.start.assign(n + 1, 0);
  std::vector<int> mark(n, -1);
  for (int i = 0; i < n; ++i) {
    for (int r = 0; r < 3; ++r)
      for (SparseRows::InnerIterator it(a, 3 * i + r); it; ++it) {
        const int j = int(it.col() / 3);
        if (j == i || mark[j] == i || it.value() == 0) continue;
        mark[j] = i;
        g.node.push_back(j);
      }
    g.start[i + 1] = int(g.node.size());
  }
  return g;
}

// Greedy aggregation (Vanek et al. 1996, sec. 4.1): (1) a node none of whose
// neighbours is taken starts an aggregate with all of them; (2) a node left over
// joins the aggregate of a neighbour taken in (1); (3) what is still left forms
// aggregates with its free neighbours. Returns each node's aggregate; *count their number.
std::vector<int> aggregate(const BlockGraph& g, int* count) {
  const int n = int(g.start.size()) - 1;
  std::vector<int> agg(n, -1);
  int next = 0;
  for (int i = 0; i < n; ++i) {
    bool free = agg[i] < 0;
    for (int k = g.start[i]; free && k < g.start[i + 1]; ++k) free = agg[g.node[k]] < 0;
    if (!free) continue;
    agg[i] = next;
    for (int k = g.start[i]; k < g.start[i + 1]; ++k) agg[g.node[k]] = next;
    ++next;
  }
  std::vector<int> joined = agg;
  for (int i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    for (int k = g.start[i]; k < g.start[i + 1]; ++k)
      if (agg[g.node[k]] >= 0) {
        joined[i] = agg[g.node[k]];
        break;
      }
  }
  agg = joined;
  for (int i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    agg[i] = next;
    for (int k = g.start[i]; k < g.start[i + 1]; ++k)
      if (agg[g.node[k]] < 0) agg[g.node[k]] = next;
    ++next;
  }
  *count = next;
  return agg;
}

// The diagonal blocks of a and their inverses, as block-diagonal sparse matrices.
void diagonalBlocks(const SparseRows& a, int level, SparseRows* d, SparseRows* dInv) {
  const int n = int(a.rows() / 3);
  std::vector<Triplet> td, ti;
  td.reserve(size_t(n) * 9);
  ti.reserve(size_t(n) * 9);
  for (int i = 0; i < n; ++i) {
    Mat3 b = Mat3::Zero();
    for (int r = 0; r < 3; ++r)
      for (SparseRows::InnerIterator it(a, 3 * i + r); it; ++it)
        if (it.col() / 3 == i) b(r, it.col() % 3) = it.value();
    Eigen::LLT<Mat3> llt(b);
    if (llt.info() != Eigen::Success)
      throw std::invalid_argument("MultigridPreconditioner: the diagonal block of node " + std::to_string(i) +
                                  " of level " + std::to_string(level) + " is not positive definite");
    const Mat3 inv = llt.solve(Mat3::Identity());
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        td.emplace_back(3 * i + r, 3 * i + c, b(r, c));
        ti.emplace_back(3 * i + r, 3 * i + c, inv(r, c));
      }
  }
  *d = SparseRows(a.rows(), a.cols());
  d->setFromTriplets(td.begin(), td.end());
  *dInv = SparseRows(a.rows(), a.cols());
  dInv->setFromTriplets(ti.begin(), ti.end());
}

// An upper bound of the spectral radius of D^-1 A (its eigenvalues are real and
// positive: it is similar to D^-1/2 A D^-1/2): the Rayleigh quotient v.Av / v.Dv of
// 20 power iterations v <- D^-1 A v, which approaches it from below, with a 10% margin
// (a Chebyshev smoother amplifies what lies above its interval). A fixed start: the
// hierarchy does not depend on anything but A.
double spectralBound(const SparseRows& a, const SparseRows& d, const SparseRows& dInv) {
  const Eigen::Index n = a.rows();
  Eigen::VectorXd v(n);
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(rng);
  double rayleigh = 0;
  for (int it = 0; it < 20; ++it) {
    const Eigen::VectorXd av = a * v;
    const Eigen::VectorXd dv = d * v;
    rayleigh = v.dot(av) / v.dot(dv);
    const Eigen::VectorXd w = dInv * av;
    v = w / w.norm();
  }
  return 1.1 * rayleigh;
}

}  // namespace

SparseRows stencilMatrix(const std::vector<Stencil>& stencil, const std::vector<std::array<Mat3, kStencilSlots>>& blocks) {
  const int n = int(stencil.size());
  std::vector<Triplet> t;
  t.reserve(size_t(n) * kStencilSlots * 9);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < kStencilSlots; ++k) {
      const int j = stencil[i][k];
      if (j < 0) continue;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          if (blocks[i][k](r, c) != 0) t.emplace_back(3 * i + r, 3 * j + c, blocks[i][k](r, c));
    }
  SparseRows a(3 * n, 3 * n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

void MultigridPreconditioner::build(const std::vector<Stencil>& stencil,
                                    const std::vector<std::array<Mat3, kStencilSlots>>& blocks, int coarsest) {
  build(stencilMatrix(stencil, blocks), coarsest);
}

void MultigridPreconditioner::build(SparseRows a, int coarsest) {
  levels_.clear();
  coarse_.reset();
  fineNodes_ = int(a.rows() / 3);
  const double fineBlocks = double(a.nonZeros());
  double blocks = 0;
  for (int level = 0;; ++level) {
    const int n = int(a.rows() / 3);
    blocks += double(a.nonZeros());
    BlockGraph g;
    int nc = n;
    std::vector<int> agg;
    if (n > coarsest && level + 1 < kMaxLevels) {
      g = blockGraph(a);
      agg = aggregate(g, &nc);
    }
    if (nc == n || nc * 10 > n * 9) {  // small enough, or no longer coarsening: factor
      Eigen::SparseMatrix<double> col = a;
      coarse_ = std::make_unique<Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>>>();
      coarse_->compute(col);
      if (coarse_->info() != Eigen::Success)
        throw std::invalid_argument("MultigridPreconditioner: level " + std::to_string(level) + " (" +
                                    std::to_string(n) + " nodes) is not positive definite");
      coarseNodes_ = n;
      break;
    }
    Level lv;
    SparseRows d, dInv;
    diagonalBlocks(a, level, &d, &dInv);
    lv.lambdaMax = float(spectralBound(a, d, dInv));
    // P0: the identity block from each node to its aggregate; P = (I - omega D^-1 A) P0
    std::vector<Triplet> t;
    t.reserve(size_t(3) * n);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) t.emplace_back(3 * i + c, 3 * agg[i] + c, 1.0);
    SparseRows p0(3 * n, 3 * nc);
    p0.setFromTriplets(t.begin(), t.end());
    const double omega = kProlongatorDamping / lv.lambdaMax;
    const SparseRows ap0 = a * p0;
    const SparseRows smoothing = dInv * ap0;
    const SparseRows p = p0 - omega * smoothing;
    const SparseRows r = p.transpose();
    const SparseRows ap = a * p;
    SparseRows ac = r * ap;
    const SparseRows act = ac.transpose();
    ac = 0.5 * (ac + act);  // (exactly symmetric)
    lv.a = BlockRows::fromScalar(a);
    lv.p = BlockRows::fromScalar(p);
    lv.r = BlockRows::fromScalar(r);
    lv.diagInverse.resize(n);
    for (int i = 0; i < n; ++i)
      for (int rr = 0; rr < 3; ++rr)
        for (int cc = 0; cc < 3; ++cc) lv.diagInverse[i](rr, cc) = float(dInv.coeff(3 * i + rr, 3 * i + cc));
    levels_.push_back(std::move(lv));
    a = std::move(ac);
  }
  complexity_ = blocks / fineBlocks;
}

int MultigridPreconditioner::levelNodes(int l) const {
  return l < int(levels_.size()) ? levels_[l].a.rows : coarseNodes_;
}

// ---- the V-cycle --------------------------------------------------------------------------------

double MultigridPreconditioner::apply(const std::vector<Vec3>& r, std::vector<Vec3>& z, Workspace& w) const {
  const int n = int(r.size());
  const int nl = int(levels_.size());
  if (int(w.f.size()) != nl + 1 || w.f[0].size() != size_t(n)) {  // (another hierarchy's)
    for (auto* v : {&w.f, &w.x, &w.res, &w.d, &w.dn}) v->assign(nl + 1, {});
    for (int l = 0; l <= nl; ++l) {
      const size_t m = size_t(levelNodes(l));
      for (auto* v : {&w.f, &w.x, &w.res, &w.d, &w.dn}) (*v)[l].resize(m);
    }
  }
#pragma omp parallel for schedule(static) if (n > kParallelNodes)
  for (int i = 0; i < n; ++i) w.f[0][i] = r[i].cast<float>();
  cycle(0, w);
  z.resize(n);
  return orderedSum(n, 0.0, n > kParallelNodes, [&](int i) {
    z[i] = w.x[0][i].cast<double>();
    return r[i].dot(z[i]);
  });
}

void MultigridPreconditioner::cycle(int l, Workspace& w) const {
  if (l == int(levels_.size())) {
    const int n = coarseNodes_;
    Eigen::VectorXd f(3 * n);
    for (int i = 0; i < n; ++i) f.segment<3>(3 * i) = w.f[l][i].cast<double>();
    const Eigen::VectorXd x = coarse_->solve(f);
    for (int i = 0; i < n; ++i) w.x[l][i] = x.segment<3>(3 * i).cast<float>();
    return;
  }
  const Level& lv = levels_[l];
  smooth(l, w, true, true);
  lv.r.multiply(w.res[l], w.f[l + 1]);
  cycle(l + 1, w);
  lv.p.multiply(w.x[l + 1], w.x[l], true);
  smooth(l, w, false, false);
}

// Chebyshev iteration on D^-1 A x = D^-1 f over the interval [lambdaMax/30, lambdaMax]
// (Saad, "Iterative methods for sparse linear systems", 2nd ed., Alg. 12.1, with the
// block-Jacobi preconditioner D^-1): degree kSmootherDegree, one product with A per
// degree, each fused with the update of the residual, the direction and x.
MultigridPreconditioner::Chebyshev MultigridPreconditioner::chebyshev(float lambdaMax) {
  const float upper = lambdaMax, lower = upper / 30.0f;
  const float theta = 0.5f * (upper + lower), delta = 0.5f * (upper - lower);
  const float sigma = theta / delta;
  Chebyshev c;
  c.theta = theta;
  float rho = 1.0f / sigma;
  for (int k = 0; k < kSmootherDegree; ++k) {
    const float rhoNew = 1.0f / (2.0f * sigma - rho);
    c.cd[size_t(k)] = rhoNew * rho;
    c.cr[size_t(k)] = 2.0f * rhoNew / delta;
    rho = rhoNew;
  }
  return c;
}

void MultigridPreconditioner::smooth(int l, Workspace& w, bool zeroStart, bool residual) const {
  const Level& lv = levels_[l];
  const BlockRows& a = lv.a;
  const int n = a.rows, groups = a.groups();
  constexpr int G = BlockRows::kGroup;
  std::vector<Vec3f>& x = w.x[l];
  const std::vector<Vec3f>& f = w.f[l];
  std::vector<Vec3f>& res = w.res[l];
  std::vector<Vec3f>& d = w.d[l];
  std::vector<Vec3f>& dn = w.dn[l];
  const Chebyshev c = chebyshev(lv.lambdaMax);
  // res = f - A x, d = D^-1 res / theta (by groups of rows: BlockRows' SIMD products)
#pragma omp parallel for schedule(static) if (a.threaded())
  for (int g = 0; g < groups; ++g) {
    Vec3f ax[G];
    if (!zeroStart) a.multiplyGroup(g, x, ax);
    for (int i = g * G; i < std::min(n, g * G + G); ++i) {
      res[i] = zeroStart ? f[i] : Vec3f(f[i] - ax[i - g * G]);
      d[i] = lv.diagInverse[i] * res[i] / c.theta;
    }
  }
  for (int deg = 0; deg < kSmootherDegree; ++deg) {
    const bool first = zeroStart && deg == 0;
    const bool last = deg + 1 == kSmootherDegree;
    if (last && !residual) {
#pragma omp parallel for schedule(static) if (a.threaded())
      for (int i = 0; i < n; ++i) x[i] = first ? d[i] : Vec3f(x[i] + d[i]);
      break;
    }
    const float cd = c.cd[size_t(deg)], cr = c.cr[size_t(deg)];
#pragma omp parallel for schedule(static) if (a.threaded())
    for (int g = 0; g < groups; ++g) {
      Vec3f ad[G];
      a.multiplyGroup(g, d, ad);
      for (int i = g * G; i < std::min(n, g * G + G); ++i) {
        res[i] -= ad[i - g * G];
        x[i] = first ? d[i] : Vec3f(x[i] + d[i]);
        if (!last) dn[i] = cd * d[i] + cr * (lv.diagInverse[i] * res[i]);
      }
    }
    std::swap(d, dn);
  }
}

void MultigridPreconditioner::presmooth(int l, const std::vector<Vec3f>& f, std::vector<Vec3f>& x,
                                        std::vector<Vec3f>& res) const {
  const size_t n = size_t(levelNodes(l));
  Workspace w;
  for (auto* v : {&w.f, &w.x, &w.res, &w.d, &w.dn}) v->assign(size_t(l) + 1, std::vector<Vec3f>(n));
  w.f[size_t(l)] = f;
  smooth(l, w, true, true);
  x = w.x[size_t(l)];
  res = w.res[size_t(l)];
}

Eigen::MatrixXd MultigridPreconditioner::coarseInverse() const {
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(3 * coarseNodes_, 3 * coarseNodes_);
  Eigen::MatrixXd inv = coarse_->solve(identity);
  return 0.5 * (inv + inv.transpose());  // (exactly symmetric)
}

}  // namespace d2t
