#pragma once
// Sums over node loops whose bits do not depend on the number of threads: an OpenMP
// reduction adds the threads' partial sums in an order that follows the thread count, so a
// run on 2 cores and on 16 would drift apart by rounding from the first step, and a
// recording could not be replayed bit for bit on another machine (issue 30). Here the
// indices go in fixed blocks, each summed in index order on whichever thread, and the
// blocks' sums are added in block order.
#include <algorithm>
#include <utility>
#include <vector>

namespace d2t {

/// The indices per block of orderedReduce (fixed: the order of the additions is too).
constexpr int kReduceBlock = 1024;

/// Reduces i in [0, n): each block of kReduceBlock indices from `zero` by add(acc, i) in
/// index order (the blocks in parallel where `parallel`), then the blocks' results by
/// combine(acc, block) in block order. The same bits on any number of threads.
template <class T, class Add, class Combine>
T orderedReduce(int n, const T& zero, bool parallel, Add&& add, Combine&& combine) {
  const int blocks = std::max(1, (n + kReduceBlock - 1) / kReduceBlock);
  if (blocks == 1) {  // (the same additions in the same order, without the blocks' vector)
    T acc = zero;
    for (int i = 0; i < n; ++i) add(acc, i);
    return acc;
  }
  std::vector<T> part(size_t(blocks), zero);
#pragma omp parallel for schedule(static) if (parallel && blocks > 1)
  for (int b = 0; b < blocks; ++b) {
    T acc = zero;
    const int end = std::min(n, (b + 1) * kReduceBlock);
    for (int i = b * kReduceBlock; i < end; ++i) add(acc, i);
    part[size_t(b)] = std::move(acc);
  }
  T out = std::move(part[0]);
  for (int b = 1; b < blocks; ++b) combine(out, part[size_t(b)]);
  return out;
}

/// The sum of term(i) over i in [0, n) (any T with +=), as orderedReduce adds it.
template <class T, class Term>
T orderedSum(int n, const T& zero, bool parallel, Term&& term) {
  return orderedReduce(
      n, zero, parallel, [&](T& acc, int i) { acc += term(i); }, [](T& acc, const T& b) { acc += b; });
}

}  // namespace d2t
