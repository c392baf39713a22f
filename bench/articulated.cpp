// The soft characters' step against Table 4.1 (dissertation ch. 4): the free update's
// stages (setup, bones, skin; the response for a character on the ground) per step, for the
// tube, the snake and the deer, and the cost against the node count n at fixed k and against the bone
// count k at fixed n (a least-squares fit T = a n + b k + c). Figures only; one core
// (OMP_NUM_THREADS=1 unless set). Prints medians of several runs:
//   build/bench/bench_articulated            (all sections, about a minute)
//   build/bench/bench_articulated --quick    (fewer steps)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sim/character/articulated_body.h"
#include "sim/character/deer.h"
#include "sim/character/tube.h"

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

CharacterModelPtr tube(int bones, int nodes, double length = 1.7) {
  TubeSpec t;
  t.bones = bones;
  t.nodes = nodes;
  t.length = length;
  return bakeCharacter(tubeCharacter("tube", t, material()));
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
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

  std::printf("\n## Cost against n (k = 8) and against k (n ~ 3,000), free\n\n");
  std::printf("| n | k | setup | bones | skin | total |\n| --- | --- | --- | --- | --- | --- |\n");
  std::vector<double> T;
  std::vector<Eigen::Vector3d> X;
  const auto point = [&](int k, int nodes) {
    const CharacterModelPtr m = tube(k, nodes, 2.4);
    const Figures f = run(m, false, warmup / 2, steps / 2, runs);
    std::printf("| %d | %d | %.3f | %.3f | %.3f | %.3f |\n", m->nodeCount(), k, f.setup, f.bones, f.skin, f.total);
    T.push_back(f.total);
    X.push_back(Eigen::Vector3d(m->nodeCount(), k, 1));
  };
  for (int nodes : {500, 1000, 2000, 4000, 8000}) point(8, nodes);
  for (int k : {2, 4, 16, 32}) point(k, 3000);
  Eigen::MatrixXd A(X.size(), 3);
  Eigen::VectorXd b(X.size());
  for (size_t i = 0; i < X.size(); ++i) {
    A.row(Eigen::Index(i)) = X[i].transpose();
    b(Eigen::Index(i)) = T[i];
  }
  const Eigen::Vector3d c = A.colPivHouseholderQr().solve(b);
  const double mean = b.mean(), ss = (b.array() - mean).square().sum(), res = (A * c - b).squaredNorm();
  std::printf("\nfit: T = %.3e ms x n + %.3e ms x k + %.3f ms, R^2 = %.4f\n", c(0), c(1), c(2), 1 - res / ss);
  return 0;
}
