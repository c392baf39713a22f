#pragma once
// The elements of a skin layer between an outer surface and the inner (core) surface
// under it (dissertation 3.1.2, 4.1.2): each surface triangle and its copy on the inner
// surface form a prism, split into three tetrahedra; the tets' incidence and lumped
// masses; a node's row of K_e. Shared by the atlas bodies' bake() and the characters'
// bake (their general surface layout), so that both have the same elements.
//
// Vertex ids: id < n is outer node id (g[id]), id >= n is the inner point of node id - n
// (f[id - n]).
#include <atomic>
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/model/tet_fem.h"

namespace d2t {

using Tet = std::array<int, 4>;

/// The first (lowest-index) failing item of a parallel loop.
struct FirstFailure {
  std::atomic<long> index{-1};
  void report(long i) {
    long cur = index.load();
    while ((cur < 0 || i < cur) && !index.compare_exchange_weak(cur, i)) {
    }
  }
  bool any() const { return index.load() >= 0; }
};

/// The three tets of one triangle's prism (the rule below), ordered so that each is positively
/// oriented when the inner surface lies under the outward counter-clockwise triangle.
std::array<Tet, 3> layerPrismTets(const Vec3i& tri, int n);

/// Whether a layer tet is upright enough to be an element: its signed volume above 1e-8
/// times the cube of its longest edge (the bake's test; mesh bodies ask it before baking).
bool layerTetUpright(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3);

/// The prisms of `tris` (outward counter-clockwise over node indices) split into
/// positively oriented tets (3 per triangle, conforming across shared edges) with their
/// volumes. Throws InputError ("<owner>: tetrahedron k ...") at a degenerate or inverted
/// one: the inner surface pokes through or touches the outer one there.
void buildLayerTets(const std::string& owner, const std::vector<Vec3i>& tris, const std::vector<Vec3>& g,
                    const std::vector<Vec3>& f, std::vector<Tet>& tets, std::vector<double>& volume);

/// vertex id -> incident tets (compressed rows)
struct Incidence {
  std::vector<int> start;  // (nvert + 1)
  std::vector<int> tet;    // (4 ntet)
};
Incidence buildIncidence(const std::vector<Tet>& tets, int nvert);

/// Outer node i's blocks of K_e: calls add(j, K_ij) for every incident tet and outer
/// vertex j of it (K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I),
/// tet_fem.h); inner vertices are fixed to the core and give no block.
template <class Add>
void gatherStiffnessRow(int i, int n, const std::vector<Tet>& tets, const Incidence& inc, const std::vector<Vec3>& g,
                        const std::vector<Vec3>& f, const std::vector<double>& young,
                        const std::vector<double>& poisson, Add&& add) {
  auto pos = [&](int id) -> const Vec3& { return id < n ? g[size_t(id)] : f[size_t(id - n)]; };
  for (int e = inc.start[size_t(i)]; e < inc.start[size_t(i) + 1]; ++e) {
    const int k = inc.tet[size_t(e)];
    const Tet& tet = tets[size_t(k)];
    const TetGeometry geom = tetGeometry({pos(tet[0]), pos(tet[1]), pos(tet[2]), pos(tet[3])});
    const Lame lame = lameFromYoung(young[size_t(k)], poisson[size_t(k)]);
    int a = 0;
    while (tet[size_t(a)] != i) ++a;
    for (int b = 0; b < 4; ++b)
      if (tet[size_t(b)] < n) add(tet[size_t(b)], tetStiffnessBlock(geom, lame, a, b));
  }
}

}  // namespace d2t
