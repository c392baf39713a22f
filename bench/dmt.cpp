// Dynamic morph targets (ch. 5; docs/decisions/0042): what the targets cost a step. Each
// body with "morph_targets" of the scene alone (the others dropped), the scene's run (its
// pose track) twice, alternated three times: targets off (the body's own K_e, linear FEM)
// and on. One CSV row per scene and atlas resolution, CPU backend:
//   build/bench_dmt [scene.json] [resolutions...]   (default: dmt_flex, dmt_flex_stiff, dmt_contact; 32 64)
// Columns: steps, targets, the targets' bake [ms], mean and median step [ms] off and on
// (medians of the three repetitions), the overhead of the mean, and the implicit
// operator's rebuilds with the targets on (a moving pose rebuilds it as K drifts).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "scene_args.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

struct Run {
  double mean = 0, median = 0;
  int rebuilds = 0;
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
  return v[v.size() / 2];
}

Run run(const Scene& s, int steps, bool on) {
  World w(s);
  for (size_t i = 0; i < w.bodies().size(); ++i) w.setPoseControl(i, PoseControl{on, {}});
  std::vector<double> ms;
  Run r;
  uint64_t key = 0;
  for (int k = 0; k < steps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    w.step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const uint64_t now = w.bodies()[0].layered.elastic().operatorVersion();
    r.rebuilds += k > 0 && now != key;
    key = now;
  }
  for (double x : ms) r.mean += x / double(ms.size());
  r.median = median(ms);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = std::string(D2T_SOURCE_DIR) + "/scenes/";
  std::vector<std::string> scenes;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 5 && a.compare(a.size() - 5, 5, ".json") == 0) scenes.push_back(a);
    else rest.push_back(argv[i]);
  }
  if (scenes.empty()) scenes = {dir + "dmt_flex.json", dir + "dmt_flex_stiff.json", dir + "dmt_contact.json"};
  const auto args = bench::parseSceneArgs(int(rest.size()), rest.data(), "bench_dmt", scenes[0], {32, 64});
  if (!args) return 2;
  std::printf("scene,resolution,nodes,targets,steps,bake_targets_ms,off_mean_ms,off_median_ms,on_mean_ms,"
              "on_median_ms,overhead_mean_pct,rebuilds_on\n");
  try {
    for (const std::string& path : scenes)
      for (int res : args->resolutions) {
        Scene s = loadScene(path);
        std::erase_if(s.bodies, [](const BodyDesc& b) { return !b.morph; });
        if (s.bodies.empty()) continue;
        s.bodies.resize(1);
        s.bodies[0].atlasResolution = res;
        double end = 0;
        for (const PoseKey& k : s.bodies[0].morph->track) end = std::max(end, k.time);
        const int steps = std::max(200, int((end + 0.5) / s.simulation.dt));
        World probe(s);
        const MorphTargetSet& set = probe.bodies()[0].layered.morphTargets()->targets();
        std::vector<double> offMean, offMedian, onMean, onMedian;
        int rebuilds = 0;
        for (int rep = 0; rep < 3; ++rep) {  // (alternated: the machine is shared)
          const Run off = run(s, steps, false), on = run(s, steps, true);
          offMean.push_back(off.mean), offMedian.push_back(off.median);
          onMean.push_back(on.mean), onMedian.push_back(on.median);
          rebuilds = on.rebuilds;
        }
        const double a = median(offMean), b = median(onMean);
        const std::string name = path.substr(path.find_last_of('/') + 1);
        std::printf("%s,%d,%d,%d,%d,%.1f,%.3f,%.3f,%.3f,%.3f,%.0f,%d\n", name.c_str(), res, probe.bodies()[0].nodes(),
                    set.count(), steps, 1000 * set.bakeSeconds, a, median(offMedian), b, median(onMedian),
                    100 * (b - a) / a, rebuilds);
        std::fflush(stdout);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_dmt: %s\n", e.what());
    return 1;
  }
  return 0;
}
