#pragma once
// LDL^T without pivoting of a sparse symmetric matrix in an order already chosen (a
// quasi-definite KKT system factors in any order: Vanderbei 1995), by supernodes: the columns
// that share their pattern below the diagonal (a bone's six dofs with its joint's rows) are kept
// as one dense block, factored with dense loops, and each block's update of the columns to its
// right, L21 D L21^T, is one dense product scattered by merging its rows with the target's.
// (A character's bones' KKT, factored several times a step with one pattern: Eigen's
// SimplicialLDLT, an entry at a time, took 87 us for the deer's 327 x 327, this 42. Its skin
// matrix in an AMD order of the nodes, solved once a step: dense blocks of whole nodes keep the
// solve fast when the cache is cold, 0.40 ms against CHOLMOD's simplicial 0.6;
// docs/decisions/0034-supernodal-kkt.md.)
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace d2t {

class SupernodalLdlt {
 public:
  /// The symbolic analysis of a pattern: the lower triangle's entries (row >= column;
  /// duplicates allowed, summed) of an n x n matrix. Returns each entry's slot in the storage
  /// that factorize() reads. Throws std::invalid_argument on an entry outside the triangle.
  std::vector<int> analyze(int n, const std::vector<std::pair<int, int>>& entries);
  /// The storage zeroed: the entries' values are then added at their slots.
  double* clearStorage();
  /// Factors what the storage holds, in place. False at a zero or non-finite pivot.
  bool factorize();
  /// x <- A^-1 x with the last factorization.
  void solve(Eigen::VectorXd& x) const;
  int rows() const { return n_; }
  int analyses() const { return analyses_; }  ///< analyze() calls so far

 private:
  struct Supernode {
    int first = 0, width = 0;  // its columns [first, first + width)
    int rowStart = 0, height = 0;  // its rows rows_[rowStart, + height): its own columns', then those below
    int offset = 0;            // its block (height x width, column-major) in storage_
  };
  int n_ = 0, maxHeight_ = 0, maxWidth_ = 0, analyses_ = 0;
  std::vector<Supernode> supernodes_;
  std::vector<int> rows_, superOf_;  // (superOf_: a column's supernode)
  std::vector<double> storage_, pivots_;
  std::vector<double> scratchW_, scratchC_;  // L21 D and L21 D L21^T (factorize)
  std::vector<int> scratchRow_;              // where a block's rows below land in another's (factorize)
};

}  // namespace d2t
