#include "sim/base/supernodal_ldlt.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace d2t {

std::vector<int> SupernodalLdlt::analyze(int n, const std::vector<std::pair<int, int>>& entries) {
  n_ = n;
  ++analyses_;
  // the strictly lower entries by row (row k: the columns j < k)
  std::vector<std::vector<int>> rowColumns(static_cast<size_t>(n));
  for (const auto& [i, j] : entries) {
    if (i < j || j < 0 || i >= n)
      throw std::invalid_argument("SupernodalLdlt::analyze: entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                  ") is not in the lower triangle of a " + std::to_string(n) + " x " + std::to_string(n) +
                                  " matrix");
    if (i > j) rowColumns[size_t(i)].push_back(j);
  }
  // the elimination tree (Liu, with path compression), then each column's pattern in L: row k
  // reaches the columns on the tree's paths from its entries up to k
  std::vector<int> parent(static_cast<size_t>(n), -1), ancestor(static_cast<size_t>(n), -1);
  for (int k = 0; k < n; ++k)
    for (int j : rowColumns[size_t(k)])
      while (j != -1 && j < k) {
        const int next = ancestor[size_t(j)];
        ancestor[size_t(j)] = k;
        if (next == -1) parent[size_t(j)] = k;
        j = next;
      }
  std::vector<std::vector<int>> below(static_cast<size_t>(n));  // L's rows under each column, ascending
  std::vector<int> mark(static_cast<size_t>(n), -1);
  for (int k = 0; k < n; ++k)
    for (int j : rowColumns[size_t(k)])
      for (; j != -1 && j < k && mark[size_t(j)] != k; j = parent[size_t(j)]) {
        below[size_t(j)].push_back(k);
        mark[size_t(j)] = k;
      }
  // fundamental supernodes: column j + 1 joins j's when it is j's parent and j's pattern is its
  // own plus j + 1's
  supernodes_.clear();
  rows_.clear();
  maxHeight_ = maxWidth_ = 0;
  superOf_.assign(static_cast<size_t>(n), 0);
  int offset = 0;
  for (int j = 0; j < n;) {
    Supernode s;
    s.first = j;
    int last = j;
    while (last + 1 < n && parent[size_t(last)] == last + 1 && below[size_t(last)].size() == below[size_t(last + 1)].size() + 1)
      ++last;
    s.width = last - j + 1;
    s.rowStart = int(rows_.size());
    for (int c = j; c <= last; ++c) {
      rows_.push_back(c);
      superOf_[size_t(c)] = int(supernodes_.size());
    }
    rows_.insert(rows_.end(), below[size_t(last)].begin(), below[size_t(last)].end());
    s.height = int(rows_.size()) - s.rowStart;
    s.offset = offset;
    offset += s.height * s.width;
    maxHeight_ = std::max(maxHeight_, s.height);
    maxWidth_ = std::max(maxWidth_, s.width);
    supernodes_.push_back(s);
    j = last + 1;
  }
  storage_.assign(size_t(offset), 0.0);
  pivots_.assign(size_t(n), 0.0);
  scratchW_.resize(size_t(maxHeight_) * size_t(maxWidth_));
  scratchRow_.resize(size_t(maxHeight_));
  scratchC_.resize(size_t(maxHeight_) * size_t(maxHeight_));

  // a row's place in a supernode's block
  const auto slotOf = [&](int row, int column) {
    const Supernode& s = supernodes_[size_t(superOf_[size_t(column)])];
    const int* r0 = rows_.data() + s.rowStart;
    const int* r = row < s.first + s.width ? r0 + (row - s.first) : std::lower_bound(r0 + s.width, r0 + s.height, row);
    if (r == r0 + s.height || *r != row) throw std::logic_error("SupernodalLdlt::analyze: a row outside its column's pattern");
    return s.offset + (column - s.first) * s.height + int(r - r0);
  };
  std::vector<int> slots;
  slots.reserve(entries.size());
  for (const auto& [i, j] : entries) slots.push_back(slotOf(i, j));
  return slots;
}

double* SupernodalLdlt::clearStorage() {
  std::fill(storage_.begin(), storage_.end(), 0.0);
  return storage_.data();
}

bool SupernodalLdlt::factorize() {
  for (const Supernode& s : supernodes_) {
    // the block's columns (dense LDL^T, no pivoting), the rows below with them: column j less
    // sum_k<j L_jk d_k L_k (contiguous axpys down the columns)
    double* L0 = storage_.data() + s.offset;
    const double* d = pivots_.data() + s.first;
    for (int j = 0; j < s.width; ++j) {
      double* Lj = L0 + j * s.height;
      for (int k = 0; k < j; ++k) {
        const double* Lk = L0 + k * s.height;
        const double f = Lk[j] * d[k];
        for (int r = j; r < s.height; ++r) Lj[r] -= f * Lk[r];
      }
      const double p = Lj[j];
      if (!(std::abs(p) > 0) || !std::isfinite(p)) return false;
      pivots_[size_t(s.first + j)] = p;
      Lj[j] = 1;
      const double inv = 1 / p;
      for (int r = j + 1; r < s.height; ++r) Lj[r] *= inv;
    }
    const Eigen::Map<Eigen::MatrixXd> L(L0, s.height, s.width);
    const int mb = s.height - s.width;
    if (mb == 0) continue;
    // its update L21 D L21^T of the columns below, scattered: its rows below are, from any one
    // of them on, a subset of that row's column's pattern (the supernode T that holds it), so
    // each run of them in one T is placed by one merge with T's rows
    const auto L21 = L.bottomRows(mb);
    Eigen::Map<Eigen::MatrixXd> W(scratchW_.data(), mb, s.width), C(scratchC_.data(), mb, mb);
    W = L21 * Eigen::Map<const Eigen::VectorXd>(d, s.width).asDiagonal();
    C.triangularView<Eigen::Lower>() = L21 * W.transpose();
    const int* below = rows_.data() + s.rowStart + s.width;
    int* place = scratchRow_.data();
    for (int b = 0; b < mb;) {
      const Supernode& t = supernodes_[size_t(superOf_[size_t(below[b])])];
      const int* trows = rows_.data() + t.rowStart;
      for (int a = b, q = below[b] - t.first; a < mb; ++a, ++q) {
        while (q < t.height && trows[q] != below[a]) ++q;
        if (q == t.height) throw std::logic_error("SupernodalLdlt::factorize: a row outside its column's pattern");
        place[a] = q;
      }
      int e = b;
      for (; e < mb && below[e] < t.first + t.width; ++e) {
        double* column = storage_.data() + t.offset + (below[e] - t.first) * t.height;
        for (int a = e; a < mb; ++a) column[place[a]] -= C(a, e);
      }
      b = e;
    }
  }
  return true;
}

void SupernodalLdlt::solve(Eigen::VectorXd& x) const {
  if (x.size() != n_) throw std::invalid_argument("SupernodalLdlt::solve: a vector of the wrong size");
  double* X = x.data();
  std::vector<double> g(static_cast<size_t>(maxHeight_));  // (a block's rows, gathered)
  for (const Supernode& s : supernodes_) {  // L z = b: the block's columns, their rows below gathered
    const double* L = storage_.data() + s.offset;
    const int* rows = rows_.data() + s.rowStart;
    Eigen::Map<Eigen::VectorXd> G(g.data(), s.height);
    G.setZero();
    for (int c = 0; c < s.width; ++c, L += s.height) {
      const double xc = X[s.first + c] - G(c);
      X[s.first + c] = xc;
      const int m = s.height - c - 1;
      G.segment(c + 1, m) += xc * Eigen::Map<const Eigen::VectorXd>(L + c + 1, m);
    }
    for (int r = s.width; r < s.height; ++r) X[rows[r]] -= G(r);
  }
  for (int j = 0; j < n_; ++j) X[j] /= pivots_[size_t(j)];
  for (auto it = supernodes_.rbegin(); it != supernodes_.rend(); ++it) {  // L^T x = z / D
    const Supernode& s = *it;
    const int* rows = rows_.data() + s.rowStart;
    for (int r = s.width; r < s.height; ++r) g[size_t(r)] = X[rows[r]];
    for (int c = s.width - 1; c >= 0; --c) {
      const double* L = storage_.data() + s.offset + c * s.height;
      const int m = s.height - c - 1;
      const double sum = Eigen::Map<const Eigen::VectorXd>(L + c + 1, m).dot(Eigen::Map<const Eigen::VectorXd>(g.data() + c + 1, m));
      g[size_t(c)] = X[s.first + c] -= sum;
    }
  }
}

}  // namespace d2t
