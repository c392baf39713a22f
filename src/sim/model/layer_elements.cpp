// The skin layer's elements (layer_elements.h).
#include "sim/model/layer_elements.h"

#include <algorithm>
#include <cstdio>
#include <cmath>

#include "sim/base/json_reader.h"

namespace d2t {

// ---- prisms -> tetrahedra ----------------------------------------------------------

// Each skin triangle and the core triangle under it form a prism, split into 3
// tets. With the skin vertices sorted by index, v0 < v1 < v2 (core copies v'):
//   (v0 v1 v2 v2'), (v0 v1 v1' v2'), (v0 v0' v1' v2')
// Every quad side (va vb vb' va'), va < vb, is cut along va-vb', a rule that
// depends only on the two node indices, so neighbouring prisms conform.
// If (v0 v1 v2) runs counter-clockwise seen from outside (core below), the
// signed volumes of these three are (-, +, -); vertices 1 and 2 are swapped
// where needed so that every stored tet is positively oriented.
std::array<Tet, 3> layerPrismTets(const Vec3i& tri, int n) {
  int v[3] = {tri[0], tri[1], tri[2]};
  std::sort(v, v + 3);
  // sorted order is a rotation of the CCW triangle (+1) or a reflection (-1)
  const bool rotation = (v[0] == tri[0] && v[1] == tri[1]) || (v[0] == tri[1] && v[1] == tri[2]) ||
                        (v[0] == tri[2] && v[1] == tri[0]);
  const int orient = rotation ? 1 : -1;
  std::array<Tet, 3> out{{{v[0], v[1], v[2], v[2] + n}, {v[0], v[1], v[1] + n, v[2] + n}, {v[0], v[0] + n, v[1] + n, v[2] + n}}};
  const int expected[3] = {-orient, orient, -orient};
  for (int k = 0; k < 3; ++k)
    if (expected[k] < 0) std::swap(out[size_t(k)][1], out[size_t(k)][2]);
  return out;
}

bool layerTetUpright(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
  // degenerate or inverted: volume tiny against the cube of the longest edge
  double edge = 0;
  const Vec3* xs[4] = {&x0, &x1, &x2, &x3};
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) edge = std::max(edge, (*xs[a] - *xs[b]).squaredNorm());
  edge = std::sqrt(edge);
  return tetSignedVolume(x0, x1, x2, x3) > 1e-8 * edge * edge * edge;
}

void buildLayerTets(const std::string& owner, const std::vector<Vec3i>& tris, const std::vector<Vec3>& g,
               const std::vector<Vec3>& f, std::vector<Tet>& tets, std::vector<double>& volume) {
  const int n = static_cast<int>(g.size());
  const int ntri = static_cast<int>(tris.size());
  tets.resize(3 * static_cast<size_t>(ntri));
  volume.resize(tets.size());
  auto pos = [&](int id) -> const Vec3& { return id < n ? g[id] : f[id - n]; };
  FirstFailure bad;
#pragma omp parallel for schedule(static)
  for (int t = 0; t < ntri; ++t) {
    const std::array<Tet, 3> local = layerPrismTets(tris[t], n);
    for (int k = 0; k < 3; ++k) {
      const Tet& tet = local[size_t(k)];
      const Vec3 &x0 = pos(tet[0]), &x1 = pos(tet[1]), &x2 = pos(tet[2]), &x3 = pos(tet[3]);
      const double vol = tetSignedVolume(x0, x1, x2, x3);
      if (!layerTetUpright(x0, x1, x2, x3)) bad.report(3L * t + k);
      tets[3 * static_cast<size_t>(t) + k] = tet;
      volume[3 * static_cast<size_t>(t) + k] = vol;
    }
  }
  if (bad.any()) {
    const long k = bad.index;
    const Tet& tet = tets[k];
    char v[32];
    std::snprintf(v, sizeof v, "%.3g", volume[k]);
    throw InputError(owner + ": tetrahedron " + std::to_string(k) +
                     " between the skin and the core is degenerate or inverted (volume " + v +
                     " m^3 near " + formatVec(pos(tet[0])) +
                     "); the core pokes through or touches the skin there, or the skin folds over");
  }
}

Incidence buildIncidence(const std::vector<Tet>& tets, int nvert) {
  Incidence inc;
  inc.start.assign(nvert + 1, 0);
  for (const Tet& t : tets)
    for (int id : t) ++inc.start[id + 1];
  for (int i = 0; i < nvert; ++i) inc.start[i + 1] += inc.start[i];
  inc.tet.resize(inc.start[nvert]);
  std::vector<int> fill(inc.start.begin(), inc.start.end() - 1);
  for (int k = 0; k < static_cast<int>(tets.size()); ++k)
    for (int id : tets[k]) inc.tet[fill[id]++] = k;
  return inc;
}

}  // namespace d2t
