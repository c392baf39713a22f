// The soft characters' step against Table 4.1 (dissertation ch. 4): the free update's
// stages (setup, bones, skin; the response for a character on the ground) per step, for the
// tube, the snake and the deer; Table 4.1's rows in contact (the shipped scenes deer_bird,
// snake_fish, tube_press, in the window where the collider presses), with the thesis's figures
// beside; and the cost against the node count n at fixed k and against the bone count k at
// fixed n (a least-squares fit T = a n + b k + c); and in contact against n, the nodes in contact
// m and k (tube_press at 24 configurations: T = a n + b m + c k + d, and the stages' log-log
// slopes); and the block-diagonal condensation against the exact one in those scenes' contact
// windows. Figures only; one core
// (OMP_NUM_THREADS=1 unless set). Prints medians of several runs:
//   build/bench/bench_articulated            (all sections, about six minutes)
//   build/bench/bench_articulated --quick    (fewer steps)
//   build/bench/bench_articulated --plot docs/img/characters_cost.svg   (and the n / k plot)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fstream>
#include <iomanip>

#include <Eigen/Dense>

#include "sim/character/articulated_body.h"
#include "sim/character/deer.h"
#include "sim/character/tube.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

Material material() {
  Material m;
  m.young = 5e4;
  m.poisson = 0.4;
  m.density = 1000;
  return m;
}

struct Figures {
  double setup, bones, skin, response, total;  // ms a step
  int contacts;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `steps` steps after `warmup`, medians of the per-step stage times over `runs` runs
Figures run(const CharacterModelPtr& m, bool ground, int warmup, int steps, int runs) {
  ColliderDesc cd;
  cd.type = ColliderType::Plane;
  const Collider plane(cd);
  std::vector<const Collider*> colliders;
  if (ground) colliders.push_back(&plane);
  std::vector<double> setup, bones, skin, response, total;
  int contacts = 0;
  for (int r = 0; r < runs; ++r) {
    CharacterPlacement pl;
    const bool standing = m->name == "deer";  // (on its hooves: its bind pose stands at y = 0)
    pl.position = standing ? Vec3(0, ground ? 0.005 : 1.0, 0)
                           : Vec3(-0.5 * (m->skeleton.bones.back().tail.x()), ground ? 0.12 : 1.0, 0);
    ArticulatedBody body(m, pl);
    for (int i = 0; i < warmup; ++i) body.step(1.0 / 60, Vec3(0, -9.81, 0), colliders);
    const CharacterTimes t0 = body.times();
    const auto c0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) body.step(1.0 / 60, Vec3(0, -9.81, 0), colliders);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
    const CharacterTimes& t = body.times();
    setup.push_back((t.setup - t0.setup) / steps);
    bones.push_back((t.bones - t0.bones) / steps);
    skin.push_back((t.skin - t0.skin) / steps);
    response.push_back((t.response - t0.response) / steps);
    total.push_back(wall / steps);
    contacts = int(body.contacts().size());
  }
  return {median(setup), median(bones), median(skin), median(response), median(total), contacts};
}

void row(const char* name, const CharacterModelPtr& m, bool ground, int warmup, int steps, int runs) {
  const Figures f = run(m, ground, warmup, steps, runs);
  std::printf("| %s | %d | %d | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f |\n", name, m->nodeCount(),
              m->boneCount(), ground ? "on the ground" : "free", f.contacts, f.setup, f.bones, f.skin, f.response,
              f.total, 1000.0 / f.total);
}

CharacterModelPtr tube(int bones, int nodes, double length = 1.7, int influences = 4) {
  TubeSpec t;
  t.bones = bones;
  t.nodes = nodes;
  t.length = length;
  CharacterDesc d = tubeCharacter("tube", t, material());
  d.maxInfluences = influences;
  return bakeCharacter(d);
}

// the mean of the bones a node blends, s (the condensation's cost a node goes with s^2)
double meanInfluences(const CharacterModel& m) {
  double s = 0;
  for (const Influences& in : m.influence) s += in.count;
  return s / m.nodeCount();
}

// Two panels of a plot as SVG: total and its stages against n (k = 8) and against k (n ~ 3,000).
struct Point {
  int n, k;
  Figures f;
};
void plot(const std::string& path, const std::vector<Point>& byN, const std::vector<Point>& byK) {
  std::ofstream o(path);
  const int W = 900, H = 360, pw = 380, ph = 260, top = 40, left[2] = {70, 520};
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
  const char* colour[4] = {"#000000", "#d62728", "#1f77b4", "#2ca02c"};
  const char* name[4] = {"total", "setup", "bones", "skin"};
  for (int panel = 0; panel < 2; ++panel) {
    const std::vector<Point>& pts = panel == 0 ? byN : byK;
    double xmax = 0, ymax = 0;
    for (const Point& p : pts) {
      xmax = std::max(xmax, double(panel == 0 ? p.n : p.k));
      ymax = std::max(ymax, p.f.total);
    }
    const int x0 = left[panel], y0 = top + ph;
    const auto X = [&](double v) { return x0 + pw * v / xmax; };
    const auto Y = [&](double v) { return y0 - ph * v / ymax; };
    o << "<line x1='" << x0 << "' y1='" << y0 << "' x2='" << x0 + pw << "' y2='" << y0 << "' stroke='black'/>\n";
    o << "<line x1='" << x0 << "' y1='" << y0 << "' x2='" << x0 << "' y2='" << top << "' stroke='black'/>\n";
    o << "<text x='" << x0 + pw / 2 << "' y='" << y0 + 35 << "' text-anchor='middle'>"
      << (panel == 0 ? "skin nodes n (k = 8)" : "bones k (n ~ 3,000)") << "</text>\n";
    o << "<text x='" << x0 + pw / 2 << "' y='" << top - 15 << "' text-anchor='middle'>"
      << (panel == 0 ? "ms a step against n" : "ms a step against k") << "</text>\n";
    for (int t = 0; t <= 4; ++t) {
      o << "<text x='" << x0 - 8 << "' y='" << Y(ymax * t / 4) + 4 << "' text-anchor='end'>" << std::fixed
        << std::setprecision(1) << ymax * t / 4 << "</text>\n";
      o << "<text x='" << X(xmax * t / 4) << "' y='" << y0 + 16 << "' text-anchor='middle'>" << std::setprecision(0)
        << xmax * t / 4 << "</text>\n";
    }
    for (int c = 0; c < 4; ++c) {
      o << "<polyline fill='none' stroke='" << colour[c] << "' stroke-width='2' points='";
      for (const Point& p : pts) {
        const double v = c == 0 ? p.f.total : c == 1 ? p.f.setup : c == 2 ? p.f.bones : p.f.skin;
        o << std::setprecision(1) << X(panel == 0 ? p.n : p.k) << "," << Y(v) << " ";
      }
      o << "'/>\n";
      if (panel == 0)
        o << "<text x='" << x0 + 10 << "' y='" << top + 15 * (c + 1) << "' fill='" << colour[c] << "'>" << name[c]
          << "</text>\n";
    }
  }
  o << "</svg>\n";
}

// Table 4.1's rows in contact: a shipped scene (its first character at n nodes and k bones, 0:
// the scene's), stepped to `from` [s], then timed to `to`, the window where its collider presses.
struct ContactCase {
  const char* model;
  const char* scene;
  int nodes, bones;
  double from, to;
  double thesis[9];  // free setup, bones, skin; resp. setup, bones, skin; total1, total2 [ms]; coll.
};

void contactRow(const ContactCase& r, int runs) {
  Scene sc = loadScene(std::string(D2T_SOURCE_DIR) + "/scenes/" + r.scene);
  if (r.nodes > 0) sc.characters[0].nodes = r.nodes;
  if (r.bones > 0) sc.characters[0].bones = r.bones;
  std::vector<double> col[8];
  int n = 0, k = 0, coll = 0;
  for (int run = 0; run < runs; ++run) {
    World w(sc);
    const double dt = w.settings().dt;
    while (w.time() < r.from - 1e-9) w.step();
    const ArticulatedBody& b = *w.characters()[0].body;
    n = b.model().nodeCount();
    k = b.model().boneCount();
    const CharacterTimes t0 = b.times();
    std::vector<double> wall;
    int steps = 0;
    coll = 0;
    while (w.time() < r.to - 1e-9) {
      const auto c0 = std::chrono::steady_clock::now();
      w.step();
      wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count());
      coll = std::max(coll, int(b.contacts().size()));
      ++steps;
    }
    (void)dt;
    const CharacterTimes& t = b.times();
    const double rb = (t.responseBones - t0.responseBones) / steps, rs = (t.responseSkin - t0.responseSkin) / steps;
    const double fs = (t.setup - t0.setup) / steps, fb = (t.bones - t0.bones) / steps, fk = (t.skin - t0.skin) / steps;
    col[0].push_back(fs);
    col[1].push_back(fb);
    col[2].push_back(fk);
    col[3].push_back((t.response - t0.response) / steps - rb - rs);
    col[4].push_back(rb);
    col[5].push_back(rs);
    col[6].push_back(fs + fb + fk);
    col[7].push_back(median(wall));
  }
  double f[8];
  for (int i = 0; i < 8; ++i) f[i] = median(col[i]);
  std::printf("| %s | %d | %d | %d (%g) | %.2f (%g) | %.2f (%g) | %.2f (%g) | %.2f (%g) | %.2f (%g) | %.2f (%g) | %.2f "
              "(%g) | %.2f (%g) | %.0f | %.0fx |\n",
              r.model, n, k, coll, r.thesis[8], f[0], r.thesis[0], f[1], r.thesis[1], f[2], r.thesis[2], f[3],
              r.thesis[3], f[4], r.thesis[4], f[5], r.thesis[5], f[6], r.thesis[6], f[7], r.thesis[7], 1000 / f[7],
              r.thesis[7] / f[7]);
}

// One contact configuration of the fit: tube_press with n nodes and k bones, timed over
// [from, to]: the world step's median, m the mean number of nodes in contact, and the stages.
struct ContactPoint {
  int n = 0, k = 0;
  double m = 0, total = 0, skin = 0, bones = 0, responseBones = 0, responseSkin = 0;
};

ContactPoint contactPoint(int nodes, int bones, double from, double to) {
  Scene sc = loadScene(std::string(D2T_SOURCE_DIR) + "/scenes/tube_press.json");
  sc.characters[0].nodes = nodes;
  sc.characters[0].bones = bones;
  World w(sc);
  while (w.time() < from - 1e-9) w.step();
  const ArticulatedBody& b = *w.characters()[0].body;
  const CharacterTimes t0 = b.times();
  std::vector<double> wall;
  double contacts = 0;
  while (w.time() < to - 1e-9) {
    const auto c0 = std::chrono::steady_clock::now();
    w.step();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count());
    contacts += double(b.contacts().size());
  }
  const double steps = double(wall.size());
  const CharacterTimes& t = b.times();
  ContactPoint p;
  p.n = b.model().nodeCount();
  p.k = b.model().boneCount();
  p.m = contacts / steps;
  p.total = median(wall);
  p.skin = (t.skin - t0.skin) / steps;
  p.bones = (t.bones - t0.bones) / steps;
  p.responseBones = (t.responseBones - t0.responseBones) / steps;
  p.responseSkin = (t.responseSkin - t0.responseSkin) / steps;
  return p;
}

// The block-diagonal condensation against the exact one (Mt_s^-1 itself, (4.22)'s free update)
// in a shipped scene's contact window: a second world with the exact condensation is set to the
// first's character state before each step, and both step; the differences after the step
// (largest over the window; the bones' velocities also on average), and the contact impulses'
// sum (relative). The rows take the skin block-diagonally in both (4.30)-(4.32).
void condensationRow(const char* scene, double from, double to) {
  const Scene sc = loadScene(std::string(D2T_SOURCE_DIR) + "/scenes/" + scene);
  World a(sc), b(sc);
  b.characters()[0].body->setExactCondensation(true);
  while (a.time() < from - 1e-9) {
    a.step();
    b.step();
  }
  double worstV = 0, sumV = 0, worstX = 0, worstImpulse = 0, contacts = 0;
  int steps = 0;
  while (a.time() < to - 1e-9) {
    b.characters()[0].body->state() = a.characters()[0].body->state();
    a.step();
    b.step();
    const ArticulatedBody &A = *a.characters()[0].body, &B = *b.characters()[0].body;
    double dv = 0;
    for (size_t i = 0; i < A.state().bones.size(); ++i)
      dv = std::max(dv, (A.state().bones[i].velocity - B.state().bones[i].velocity).norm());
    for (int p = 0; p < A.model().nodeCount(); ++p) worstX = std::max(worstX, (A.nodePosition(p) - B.nodePosition(p)).norm());
    Vec3 ia = Vec3::Zero(), ib = Vec3::Zero();
    for (const CharacterContact& c : A.contacts()) ia += c.impulse;
    for (const CharacterContact& c : B.contacts()) ib += c.impulse;
    worstV = std::max(worstV, dv);
    sumV += dv;
    worstImpulse = std::max(worstImpulse, (ia - ib).norm() / std::max(ia.norm(), 1e-12));
    contacts += double(A.contacts().size());
    ++steps;
  }
  std::printf("| %s | %.1f-%.1f s | %d | %.0f | %.2e (%.2e) | %.2e | %.2f%% |\n", scene, from, to, steps,
              contacts / steps, worstV, sumV / steps, worstX, 100 * worstImpulse);
}

// Least squares y = X c; returns c and R^2.
Eigen::VectorXd leastSquares(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, double* r2) {
  const Eigen::VectorXd c = X.colPivHouseholderQr().solve(y);
  const double ss = (y.array() - y.mean()).square().sum();
  *r2 = 1 - (X * c - y).squaredNorm() / ss;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::string plotPath;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--plot") == 0) plotPath = argv[i + 1];
  setenv("OMP_NUM_THREADS", "1", 0);
  const int steps = quick ? 20 : 100, runs = quick ? 1 : 3, warmup = quick ? 20 : 60;
  std::printf("# bench_articulated%s: ms a step (median of %d runs of %d steps after %d), dt 1/60 s, one core\n\n",
              quick ? " --quick" : "", runs, steps, warmup);
  std::printf("## Table 4.1's characters\n\n");
  std::printf("| model | n | k | state | contacts | setup | bones | skin | response | total | steps/s |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (int k : {2, 5}) {
    const CharacterModelPtr m = tube(k, 292);
    const std::string name = "tube, " + std::to_string(k) + " bones";
    row(name.c_str(), m, false, warmup, steps, runs);
    row(name.c_str(), m, true, warmup, steps, runs);
  }
  const CharacterModelPtr snake = bakeCharacter(snakeCharacter("snake", 3102, 50, 1, material()));
  row("snake", snake, false, warmup, steps, runs);
  row("snake", snake, true, warmup, steps, runs);
  for (int nodes : {1748, 2755, 8408}) {  // (the deer_stand scene's material and joints)
    DeerSpec d;
    d.nodes = nodes;
    Material mat = material();
    mat.young = 1e5;
    const CharacterModelPtr deer = bakeCharacter(deerCharacter("deer", d, mat));
    row("deer", deer, false, warmup, steps, runs);
    row("deer", deer, true, warmup, steps, runs);
  }

  std::printf("\n## Table 4.1 in contact (the thesis's figures in brackets)\n\n");
  std::printf("Each row: the shipped scene, timed over the window where its collider presses (deer_bird 2.0-3.0 s, "
              "snake_fish 2.0-4.0 s, tube_press 2.5-4.0 s); coll.: the most nodes in contact in a step; response "
              "bones and skin: its KKT solves (4.31) and skin updates (4.32), the correction's and the given "
              "impulses' included, its setup the rest (detection, rows); total1 the collision-free update, total2 "
              "the whole world step; ratio: the thesis's total2 over ours.\n\n");
  std::printf("| model | n | k | coll. | free setup | free bones | free skin | resp. setup | resp. bones | resp. skin | "
              "total1 | total2 | steps/s | ratio |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const ContactCase contact[] = {
      {"deer + bird", "deer_bird.json", 1748, 0, 2.0, 3.0, {19.7, 34.0, 17.9, 1.1, 15.8, 7.7, 74.8, 123.8, 13}},
      {"deer + bird", "deer_bird.json", 2755, 0, 2.0, 3.0, {39.3, 36.6, 29.6, 11.3, 14.7, 9.9, 114.1, 160.4, 41}},
      {"deer + bird", "deer_bird.json", 8408, 0, 2.0, 3.0, {127.0, 64.9, 96.2, 24.5, 17.8, 33.9, 310.0, 449.7, 162}},
      {"snake + fish", "snake_fish.json", 0, 0, 2.0, 4.0, {38.9, 18.1, 36.5, 6.2, 2.2, 12.9, 106.5, 140.6, 28}},
      {"tube + box", "tube_press.json", 0, 2, 2.5, 4.0, {2.5, 1.6, 1.9, 3.9, 0.2, 0.8, 9.5, 13.8, 73}},
      {"tube + box", "tube_press.json", 0, 5, 2.5, 4.0, {3.7, 2.7, 2.1, 7.7, 0.6, 1.0, 14.6, 23.3, 74}},
  };
  for (const ContactCase& r : contact) contactRow(r, quick ? 1 : runs);

  std::printf("\n## Cost against n (k = 8) and against k (n ~ 3,000), free\n\n");
  std::printf("s: the mean of the bones a node blends (up to 4; shorter bones, more of them).\n\n");
  std::printf("| n | k | s | setup | bones | skin | total |\n| --- | --- | --- | --- | --- | --- | --- |\n");
  std::vector<double> T;
  std::vector<Eigen::Vector3d> X;
  std::vector<Point> byN, byK;
  const auto point = [&](int k, int nodes, std::vector<Point>& into, int influences) {
    const CharacterModelPtr m = tube(k, nodes, 2.4, influences);
    const Figures f = run(m, false, warmup / 2, steps / 2, runs);
    if (influences == 4) {
      into.push_back({m->nodeCount(), k, f});
      T.push_back(f.total);
      X.push_back(Eigen::Vector3d(m->nodeCount(), k, 1));
    }
    std::printf("| %d | %d | %.2f | %.3f | %.3f | %.3f | %.3f |\n", m->nodeCount(), k, meanInfluences(*m), f.setup,
                f.bones, f.skin, f.total);
  };
  for (int nodes : {500, 1000, 2000, 4000, 8000}) point(8, nodes, byN, 4);
  for (int k : {2, 4, 8, 16, 32}) point(k, 3000, byK, 4);
  std::printf("\nThe same against k with at most 2 bones a node (s held near 2: k alone)\n\n");
  std::printf("| n | k | s | setup | bones | skin | total |\n| --- | --- | --- | --- | --- | --- | --- |\n");
  std::vector<Point> fixedS;
  for (int k : {2, 4, 8, 16, 32}) point(k, 3000, fixedS, 2);
  Eigen::MatrixXd A(X.size(), 3);
  Eigen::VectorXd b(X.size());
  for (size_t i = 0; i < X.size(); ++i) {
    A.row(Eigen::Index(i)) = X[i].transpose();
    b(Eigen::Index(i)) = T[i];
  }
  const Eigen::Vector3d c = A.colPivHouseholderQr().solve(b);
  const double mean = b.mean(), ss = (b.array() - mean).square().sum(), res = (A * c - b).squaredNorm();
  std::printf("\nfit: T = %.3e ms x n + %.3e ms x k + %.3f ms, R^2 = %.4f\n", c(0), c(1), c(2), 1 - res / ss);

  std::printf("\n## Cost in contact against n, m and k (tube_press: on the ground 1-2 s, under the box 2.5-4 s)\n\n");
  std::printf("m: the mean number of nodes in contact; T: the world step's median; skin: the free skin update; "
              "KKT: the response's bone solves.\n\n");
  std::printf("| n | k | window | m | T | skin | bones | KKT | resp. skin |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  std::vector<ContactPoint> cp;
  for (int nodes : {292, 1000, 3000, 6000})
    for (int k : {2, 5, 10})
      for (int window = 0; window < 2; ++window) {
        const ContactPoint p = window == 0 ? contactPoint(nodes, k, 1.0, quick ? 1.2 : 2.0)
                                           : contactPoint(nodes, k, 2.5, quick ? 2.7 : 4.0);
        cp.push_back(p);
        std::printf("| %d | %d | %s | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", p.n, p.k, window ? "box" : "ground",
                    p.m, p.total, p.skin, p.bones, p.responseBones, p.responseSkin);
      }
  {
    const Eigen::Index N = Eigen::Index(cp.size());
    Eigen::MatrixXd X(N, 4), L(N, 2), Lm(N, 3);
    Eigen::VectorXd y(N), skin(N), kkt(N), bonesFree(N);
    for (Eigen::Index i = 0; i < N; ++i) {
      const ContactPoint& p = cp[size_t(i)];
      X.row(i) << p.n, p.m, p.k, 1;
      y(i) = p.total;
      L.row(i) << std::log(double(p.n)), 1;
      Lm.row(i) << std::log(double(p.n)), std::log(std::max(p.m, 1.0)), 1;
      skin(i) = std::log(p.skin);
      kkt(i) = std::log(std::max(p.responseBones, 1e-6));
      bonesFree(i) = std::log(std::max(p.bones, 1e-6));
    }
    double r2, r2s, r2k, r2b;
    const Eigen::VectorXd c = leastSquares(X, y, &r2);
    const Eigen::VectorXd cs = leastSquares(L, skin, &r2s);
    const Eigen::VectorXd ck = leastSquares(Lm, kkt, &r2k);
    const Eigen::VectorXd cb = leastSquares(L, bonesFree, &r2b);
    std::printf("\nfit over %d configurations: T = %.3e ms x n + %.3e ms x m + %.3e ms x k + %.3f ms, R^2 = %.4f\n",
                int(N), c(0), c(1), c(2), c(3), r2);
    std::printf("log-log slopes: free skin against n %.2f (R^2 %.3f); free bones against n %.2f (R^2 %.3f); "
                "the response's bone solves against n %.2f and m %.2f (R^2 %.3f)\n",
                cs(0), r2s, cb(0), r2b, ck(0), ck(1), r2k);
  }
  std::printf("\n## The condensation in contact: block-diagonal against exact\n\n");
  std::printf("One step from the same state with the exact condensation (Mt_s^-1, (4.22)'s free update) and with "
              "the block-diagonal one the characters run with; the rows take the skin block-diagonally in both. "
              "Largest differences after the step over the window (the bones' velocities: largest, and mean); "
              "impulse: the contacts' summed impulse, relative.\n\n");
  std::printf("| scene | window | steps | contacts | bone velocity [m/s] | node position [m] | impulse |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  condensationRow("tube_press.json", 2.5, 4.0);
  condensationRow("snake_fish.json", 2.0, quick ? 2.2 : 3.0);
  condensationRow("deer_bird.json", 2.0, quick ? 2.1 : 2.5);
  if (!plotPath.empty()) {
    plot(plotPath, byN, byK);
    std::printf("plot written to %s\n", plotPath.c_str());
  }
  return 0;
}
