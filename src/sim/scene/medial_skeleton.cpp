// A skeleton for any closed surface, from its medial axis (medial_skeleton.h).
#include "sim/scene/medial_skeleton.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>

#include <Eigen/Eigenvalues>

#include "sim/base/json_reader.h"
#include "sim/base/triangle_bvh.h"
#include "sim/scene/voxel_grid.h"

namespace d2t {

namespace {

// The solid's cubes as a graph: 26 neighbours, edges as long as the centres are apart.
struct Cells {
  VoxelGrid grid;
  std::vector<int> id;                 // (grid cells) the cell's index here, or -1
  std::vector<std::array<int, 3>> at;  // (cells) grid coordinates
  std::vector<double> depth;           // (cells) distance from the centre to the surface [m]

  template <class F>
  void forNeighbours(int c, F&& f) const {
    const auto [i, j, k] = at[size_t(c)];
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          if (!(di || dj || dk) || !grid.contains(i + di, j + dj, k + dk)) continue;
          const int n = id[grid.index(i + di, j + dj, k + dk)];
          if (n >= 0) f(n, grid.h * std::sqrt(double(di * di + dj * dj + dk * dk)));
        }
  }

  // Dijkstra from one cell: the distance through the solid to every cell (1e300: not reached).
  std::vector<double> distancesFrom(int source) const {
    std::vector<double> d(at.size(), 1e300);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    d[size_t(source)] = 0;
    open.push({0, source});
    while (!open.empty()) {
      const double dc = open.top().first;  // (not a structured binding: the lambda below takes it)
      const int c = open.top().second;
      open.pop();
      if (dc > d[size_t(c)]) continue;
      forNeighbours(c, [&](int n, double len) {
        if (dc + len < d[size_t(n)]) {
          d[size_t(n)] = dc + len;
          open.push({dc + len, n});
        }
      });
    }
    return d;
  }
};

// A node of the Reeb graph: one connected piece of a band.
struct Node {
  Vec3 centre = Vec3::Zero();
  double radius = 0;
  int parent = -1;
  std::vector<int> children;
  bool pruned = false;
};

double pathLength(const std::vector<Vec3>& p) {
  double l = 0;
  for (size_t i = 1; i < p.size(); ++i) l += (p[i] - p[i - 1]).norm();
  return l;
}

// A point of a branch: on the medial axis, with the solid's half-thickness there.
struct Point {
  Vec3 x = Vec3::Zero();
  double r = 0;
};

std::vector<double> arcLengths(const std::vector<Point>& p) {  // (from the first point)
  std::vector<double> s(p.size(), 0);
  for (size_t i = 1; i < p.size(); ++i) s[i] = s[i - 1] + (p[i].x - p[i - 1].x).norm();
  return s;
}

}  // namespace

std::string MedialSkeleton::summary() const {
  char line[160];
  std::snprintf(line, sizeof line, "%zu bone%s (%s), %.3f m of medial axis", bones.size(), bones.size() == 1 ? "" : "s",
                forks == 0 ? "a chain" : (forks == 1 ? "a tree with 1 fork" : ("a tree with " + std::to_string(forks) + " forks").c_str()),
                length);
  return line;
}

MedialSkeleton medialSkeleton(const TriMesh& surface, int bones, const std::string& path) {
  if (bones < 1) throw InputError(path + ": a medial skeleton needs at least one bone, got " + std::to_string(bones));
  // cubes: about 60,000 inside, no more than 4 million over the box
  const Aabb box = surface.bounds();
  const Vec3 size = box.hi - box.lo;
  const double volume = std::abs(surface.volume());
  double h = std::cbrt(volume / 60000.0);
  h = std::max({h, std::cbrt(size.prod() / 4e6), 1e-9 * size.norm()});
  Cells cells;
  cells.grid = voxelizeClosed(surface.positions, surface.triangles, h);
  const VoxelGrid& g = cells.grid;
  cells.id.assign(g.inside.size(), -1);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        if (g.inside[g.index(i, j, k)]) {
          cells.id[g.index(i, j, k)] = int(cells.at.size());
          cells.at.push_back({i, j, k});
        }
  const int n = int(cells.at.size());
  if (n < 8)
    throw InputError(path + ": too thin for a medial skeleton (" + std::to_string(n) + " cubes of " +
                     std::to_string(h) + " m inside it)");
  const TriangleBvh bvh(surface.positions, surface.triangles);
  cells.depth.resize(size_t(n));
#pragma omp parallel for schedule(static)
  for (int c = 0; c < n; ++c) {
    const auto [i, j, k] = cells.at[size_t(c)];
    cells.depth[size_t(c)] = std::sqrt(bvh.distanceSq(g.centre(i, j, k)));
  }

  // the tip: the cell farthest through the solid from its deepest cell
  const int deepest = int(std::max_element(cells.depth.begin(), cells.depth.end()) - cells.depth.begin());
  const std::vector<double> fromDeepest = cells.distancesFrom(deepest);
  int tip = deepest;
  for (int c = 0; c < n; ++c)
    if (fromDeepest[size_t(c)] < 1e300 && fromDeepest[size_t(c)] > fromDeepest[size_t(tip)]) tip = c;
  const std::vector<double> d = cells.distancesFrom(tip);

  // the bands and their connected pieces: at least two cubes wide (a step between neighbours,
  // at most sqrt(3) h, crosses at most one band edge), and half the solid's mean depth where
  // that is wider (the distance through 26-neighbour steps runs up to 8% long across the
  // grid's diagonals: a thin band on a thick body breaks into slivers along its surface)
  double meanDepth = 0;
  for (double x : cells.depth) meanDepth += x / n;
  const double band = std::max(2 * h, 0.5 * meanDepth);
  std::vector<int> piece(size_t(n), -1);
  std::vector<Node> nodes;
  std::vector<int> counts;
  for (int c = 0; c < n; ++c) {
    if (d[size_t(c)] >= 1e300 || piece[size_t(c)] >= 0) continue;
    const int level = int(d[size_t(c)] / band);
    const int p = int(nodes.size());
    nodes.emplace_back();
    counts.push_back(0);
    std::vector<int> stack{c};
    piece[size_t(c)] = p;
    while (!stack.empty()) {
      const int e = stack.back();
      stack.pop_back();
      const auto [i, j, k] = cells.at[size_t(e)];
      nodes[size_t(p)].centre += g.centre(i, j, k);
      nodes[size_t(p)].radius = std::max(nodes[size_t(p)].radius, cells.depth[size_t(e)]);
      ++counts[size_t(p)];
      cells.forNeighbours(e, [&](int m, double) {
        if (piece[size_t(m)] < 0 && d[size_t(m)] < 1e300 && int(d[size_t(m)] / band) == level) {
          piece[size_t(m)] = p;
          stack.push_back(m);
        }
      });
    }
    nodes[size_t(p)].centre /= double(counts[size_t(p)]);
    // (a band's piece is a curved slab: its centroid may lie deeper than any of its cubes)
    nodes[size_t(p)].radius = std::max(nodes[size_t(p)].radius, std::sqrt(bvh.distanceSq(nodes[size_t(p)].centre)));
  }
  // each piece hangs from the piece of the band before it that it touches most
  std::vector<int> levelOf(nodes.size(), 0);
  for (int c = 0; c < n; ++c)
    if (piece[size_t(c)] >= 0) levelOf[size_t(piece[size_t(c)])] = int(d[size_t(c)] / band);
  std::vector<std::vector<std::pair<int, int>>> touches(nodes.size());  // (parent piece, count)
  for (int c = 0; c < n; ++c) {
    const int p = piece[size_t(c)];
    if (p < 0) continue;
    cells.forNeighbours(c, [&](int m, double) {
      const int q = piece[size_t(m)];
      if (q < 0 || levelOf[size_t(q)] != levelOf[size_t(p)] - 1) return;
      auto& t = touches[size_t(p)];
      auto it = std::find_if(t.begin(), t.end(), [&](const auto& e) { return e.first == q; });
      if (it == t.end()) t.push_back({q, 1});
      else ++it->second;
    });
  }
  const int root = piece[size_t(tip)];
  for (size_t p = 0; p < nodes.size(); ++p) {
    if (int(p) == root || touches[p].empty()) continue;
    nodes[p].parent = std::max_element(touches[p].begin(), touches[p].end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    nodes[size_t(nodes[p].parent)].children.push_back(int(p));
  }

  // a branch: from the root or a fork down to the next fork or an end
  const auto live = [&](int p) {
    std::vector<int> c;
    for (int q : nodes[size_t(p)].children)
      if (!nodes[size_t(q)].pruned) c.push_back(q);
    return c;
  };
  const auto branchFrom = [&](int from, int first) {  // the nodes from `from` through `first` on
    std::vector<int> b{from, first};
    for (std::vector<int> next = live(first); next.size() == 1; next = live(b.back())) b.push_back(next[0]);
    return b;
  };
  const auto positions = [&](const std::vector<int>& b) {
    std::vector<Vec3> x;
    for (int p : b) x.push_back(nodes[size_t(p)].centre);
    return x;
  };
  // prune the bumps: side branches ending shorter than 1.5 radii from their fork, the shortest
  // first, until none is left
  for (bool changed = true; changed;) {
    changed = false;
    int worst = -1;
    double worstRatio = 1.5;
    for (size_t p = 0; p < nodes.size(); ++p) {
      if (nodes[p].pruned) continue;
      const std::vector<int> kids = live(int(p));
      if (kids.size() < 2) continue;
      for (int q : kids) {
        const std::vector<int> b = branchFrom(int(p), q);
        if (!live(b.back()).empty()) continue;  // (not an end)
        const double ratio = pathLength(positions(b)) / std::max(nodes[p].radius, h);
        if (ratio < worstRatio) {
          worstRatio = ratio;
          worst = q;
        }
      }
    }
    if (worst >= 0) {
      const std::function<void(int)> prune = [&](int p) {
        nodes[size_t(p)].pruned = true;
        for (int q : nodes[size_t(p)].children) prune(q);
      };
      prune(worst);
      changed = true;
    }
  }

  // the branches, root first, each with the branch it leaves from
  struct Branch {
    std::vector<int> nodes;
    int from = -1;  // the branch whose end is this one's start (-1: from the root)
  };
  std::vector<Branch> branches;
  MedialSkeleton sk;
  sk.cube = h;
  {
    std::vector<std::pair<int, int>> open;  // (node, the branch ending at it)
    const std::vector<int> rootKids = live(root);
    if (rootKids.empty()) {  // (one piece: a ball smaller than the bands)
      branches.push_back({{root, root}, -1});
    } else {
      for (int q : rootKids) open.push_back({q, -1});
    }
    for (size_t o = 0; o < open.size(); ++o) {
      const auto [first, from] = open[o];
      const int start = from < 0 ? root : branches[size_t(from)].nodes.back();
      branches.push_back({branchFrom(start, first), from});
      const std::vector<int> next = live(branches.back().nodes.back());
      if (next.size() >= 2) ++sk.forks;
      for (int q : next) open.push_back({q, int(branches.size()) - 1});
    }
    if (rootKids.size() >= 3) ++sk.forks;
  }

  // each branch as a line of points (a piece's centroid and radius), smoothed, its ends kept
  std::vector<std::vector<Point>> line(branches.size());
  for (size_t b = 0; b < branches.size(); ++b) {
    for (int p : branches[b].nodes) line[b].push_back({nodes[size_t(p)].centre, nodes[size_t(p)].radius});
    for (int pass = 0; pass < 3; ++pass) {
      const std::vector<Point> x = line[b];
      for (size_t e = 1; e + 1 < x.size(); ++e) line[b][e].x = 0.25 * x[e - 1].x + 0.5 * x[e].x + 0.25 * x[e + 1].x;
    }
  }
  // a fork where its branches' lines meet: a band's piece splits only once the band has passed
  // the junction (by about its radius), and the pieces' centroids near it lean into the other
  // branches: the fork moves back to the point nearest, in least squares, to the lines through
  // each branch between two and four radii from it, and each branch runs straight from there
  for (size_t b = 0; b < branches.size(); ++b) {
    std::vector<std::vector<Point>*> arms;  // (each starting at the fork)
    for (size_t c = 0; c < branches.size(); ++c)
      if (branches[c].from == int(b)) arms.push_back(&line[c]);
    if (arms.size() < 2) continue;
    std::reverse(line[b].begin(), line[b].end());
    arms.push_back(&line[b]);
    const Point fork = line[b].front();
    Mat3 a = Mat3::Zero();
    Vec3 rhs = Vec3::Zero();
    for (const std::vector<Point>* x : arms) {
      const std::vector<double> s = arcLengths(*x);
      std::vector<Vec3> near;
      for (size_t e = 1; e < x->size(); ++e)
        if (s[e] >= 2 * fork.r && s[e] <= 4 * fork.r) near.push_back((*x)[e].x);
      if (near.size() < 2) continue;
      const Vec3 dir = (near.back() - near.front()).normalized();
      Vec3 mean = Vec3::Zero();
      for (const Vec3& p : near) mean += p / double(near.size());
      const Mat3 across = Mat3::Identity() - dir * dir.transpose();
      a += across;
      rhs += across * mean;
    }
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(a);
    if (eig.eigenvalues()(0) > 0.05) {  // (two lines at least, not parallel)
      const Vec3 moved = a.ldlt().solve(rhs);
      const Vec3 cell = (moved - g.lo) / h;
      const int ci = int(std::floor(cell.x())), cj = int(std::floor(cell.y())), ck = int(std::floor(cell.z()));
      if ((moved - fork.x).norm() < 2 * fork.r && g.contains(ci, cj, ck) && g.inside[g.index(ci, cj, ck)])
        for (std::vector<Point>* x : arms) {
          const std::vector<double> s = arcLengths(*x);
          std::vector<Point> kept{{moved, fork.r}};
          for (size_t e = 1; e < x->size(); ++e)
            if (s[e] >= 2 * fork.r || e + 1 == x->size()) kept.push_back((*x)[e]);
          *x = kept;
        }
    }
    std::reverse(line[b].begin(), line[b].end());
  }

  // an end stops where the solid's inscribed ball first takes in the last piece (the medial
  // axis ends at the centre of the tip's ball; the pieces past it are the tip's cap, whose
  // slices' centroids wander off the axis where the bands meet the cap at a slant)
  const auto trimEnd = [](std::vector<Point>& x) {
    for (size_t e = 0; e + 2 < x.size(); ++e)
      if ((x[e].x - x.back().x).norm() <= x[e].r) {
        x.resize(std::max<size_t>(e + 1, 2));
        return;
      }
  };
  for (size_t b = 0; b < branches.size(); ++b) {
    bool leaf = true;
    for (const Branch& c : branches) leaf = leaf && c.from != int(b);
    if (leaf) trimEnd(line[b]);
    if (branches[b].from < 0 && b == 0) {  // (the root is a tip too)
      std::reverse(line[b].begin(), line[b].end());
      trimEnd(line[b]);
      std::reverse(line[b].begin(), line[b].end());
    }
  }

  // the bones: each branch cut into a whole number of the skeleton's length over `bones`
  for (const std::vector<Point>& x : line) sk.length += arcLengths(x).back();
  const double each = sk.length / bones;
  std::vector<int> lastBone(branches.size(), -1);
  for (size_t b = 0; b < branches.size(); ++b) {
    const std::vector<Point>& x = line[b];
    const std::vector<double> s = arcLengths(x);
    const double len = s.back();
    const int count = branches.size() == 1 ? bones : std::max(1, int(std::lround(len / std::max(each, 1e-300))));
    const auto at = [&](double t) {  // the point at arc length t
      size_t e = 1;
      while (e + 1 < x.size() && s[e] < t) ++e;
      const double seg = s[e] - s[e - 1];
      return seg > 0 ? Vec3(x[e - 1].x + (t - s[e - 1]) / seg * (x[e].x - x[e - 1].x)) : x[e].x;
    };
    int parent = branches[b].from < 0 ? -1 : lastBone[size_t(branches[b].from)];
    if (branches[b].from < 0 && b > 0) parent = 0;  // (another branch from the root: off the root bone)
    for (int c = 0; c < count; ++c) {
      const double t0 = len * c / count, t1 = len * (c + 1) / count;
      MedialBone bone;
      bone.head = at(t0);
      bone.tail = at(t1);
      for (size_t e = 0; e < x.size(); ++e)
        if (s[e] >= t0 - 1e-12 && s[e] <= t1 + 1e-12) bone.radius = std::max(bone.radius, x[e].r);
      bone.radius = std::max(bone.radius, h);
      if ((bone.tail - bone.head).norm() < 1e-9 * size.norm()) bone.tail = bone.head + h * Vec3::UnitX();
      bone.parent = parent;
      parent = int(sk.bones.size());
      sk.bones.push_back(bone);
    }
    lastBone[b] = parent;
  }
  return sk;
}

}  // namespace d2t
