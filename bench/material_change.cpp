// How long a live material change takes (the Bodies panel's sliders): World::setMaterial
// re-assembles K_e and the masses from the same shape and atlas, and the next step
// refactors Mt_e (direct solver) and solves the coupling columns again. One CSV row
// per atlas resolution, CPU backend, the ball of scenes/ball_drop.json:
//   build/bench_material [scene.json] [resolutions...]   (default: ball_drop, 32 64 128)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "scene_args.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double timedStep(World& w) {
  const auto t0 = std::chrono::steady_clock::now();
  w.step();
  return msSince(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string defaultScene = std::string(D2T_SOURCE_DIR) + "/scenes/ball_drop.json";
  const auto args = bench::parseSceneArgs(argc, argv, "bench_material", defaultScene, {32, 64, 128});
  if (!args) return 2;
  const std::string& scene = args->scene;
  const std::vector<int>& resolutions = args->resolutions;
  std::printf("resolution,nodes,solver,bake_ms,set_material_ms,next_step_ms,median_step_ms\n");
  try {
    for (int res : resolutions) {
      Scene s = loadScene(scene);
      for (BodyDesc& b : s.bodies) b.atlasResolution = res;
      const auto tb = std::chrono::steady_clock::now();
      World w(s);
      const double bakeMs = msSince(tb);
      // a few steps first: the first one prepares the operators
      std::vector<double> steps;
      for (int i = 0; i < 12; ++i) {
        const double ms = timedStep(w);
        if (i >= 2) steps.push_back(ms);
      }
      std::nth_element(steps.begin(), steps.begin() + long(steps.size() / 2), steps.end());
      const double median = steps[steps.size() / 2];
      Material m = w.bodies()[0].desc.material;
      m.young *= 0.5;  // the slider pulled down
      const double setMs = w.setMaterial(0, m);
      const double nextMs = timedStep(w);
      const bool direct = w.bodies()[0].nodes() <= kDirectMaxNodes;
      std::printf("%d,%d,%s,%.1f,%.2f,%.1f,%.2f\n", res, w.bodies()[0].nodes(), direct ? "direct" : "cg", bakeMs,
                  setMs, nextMs, median);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_material: %s\n", e.what());
    return 1;
  }
  return 0;
}
