#pragma once
// Disjoint sets over indices: parent[i] == i at a set's root; findRoot halves the path as it
// climbs. (The mesh checks' pieces and boundary loops, the repair's pieces, the nets' sheets.)
#include <cstddef>

namespace d2t {

/// The root of i's set in `parent` (any container of int indexed by size_t).
template <class Parents>
int findRoot(Parents& parent, int i) {
  while (parent[size_t(i)] != i) i = parent[size_t(i)] = parent[size_t(parent[size_t(i)])];
  return i;
}

/// Joins the sets of a and b.
template <class Parents>
void joinSets(Parents& parent, int a, int b) {
  parent[size_t(findRoot(parent, a))] = findRoot(parent, b);
}

}  // namespace d2t
