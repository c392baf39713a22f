// Dynamic morph targets (ch. 5; docs/decisions/0042, 0043): what the targets cost a step, on
// the full model and on the reduced one (Table 5.1's columns). The scene's first body with
// "morph_targets" alone (the others dropped), the scene's run (its pose track) four times,
// alternated three times: full and reduced (the body's "reduction", or r* = 10, k = 20 and
// the load modes where it has none), each with the targets off (the body's own K_e) and on.
// One CSV row per scene and atlas resolution, CPU backend:
//   build/bench_dmt [scene.json] [resolutions...]   (default: dmt_flex, dmt_flex_stiff, dmt_contact; 32 64)
// Columns: steps, targets, the targets' bake [ms], mean and median step [ms] off and on
// (medians of the three repetitions), the overhead of the mean, the implicit operator's
// rebuilds with the targets on (a moving pose rebuilds it as K drifts); then the reduced
// model's r, its basis' bake [ms] and the same step figures (linear: the targets' force
// polynomials); reduced StVK's coefficients' build over the distinct targets (appendix D) [ms]
// and its step figures (the same basis, "elasticity": "stvk"); last, the reduced linear step
// with the targets through decision 0043's Galerkin route (the nodal step projected), for A/B.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "scene_args.h"
#include "sim/morph/modal_basis.h"
#include "sim/morph/morph_targets.h"
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

// nodal: a reduced body steps as the Galerkin projection of the nodal step (decision 0043's
// route, LayeredSettings::reducedNodal) instead of in z
Run run(const Scene& s, int steps, bool on, bool nodal = false) {
  World w(s);
  for (size_t i = 0; i < w.bodies().size(); ++i) {
    w.setPoseControl(i, PoseControl{on, {}});
    w.bodies()[i].layered.settings().reducedNodal = nodal;
  }
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
              "on_median_ms,overhead_mean_pct,rebuilds_on,r,bake_basis_ms,red_off_mean_ms,red_off_median_ms,"
              "red_on_mean_ms,red_on_median_ms,red_overhead_mean_pct,stvk_build_ms,stvk_off_mean_ms,stvk_off_median_ms,"
              "stvk_on_mean_ms,stvk_on_median_ms,stvk_overhead_mean_pct,galerkin_on_mean_ms,galerkin_on_median_ms\n");
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
        Scene full = s, reduced = s, stvk = s;
        {
          auto desc = std::make_shared<MorphTargetsDesc>(*s.bodies[0].morph);
          desc->reduced = false;
          full.bodies[0].morph = desc;
          auto red = std::make_shared<MorphTargetsDesc>(*s.bodies[0].morph);
          red->reduced = true;  // (the scene's reduction, or the defaults)
          reduced.bodies[0].morph = red;
          auto nonlinear = std::make_shared<MorphTargetsDesc>(*red);
          nonlinear->reduction.stvk = true;
          stvk.bodies[0].morph = nonlinear;
        }
        World probe(full), probeReduced(reduced), probeStvk(stvk);
        const MorphTargetSet& set = probe.bodies()[0].layered.morphTargets()->targets();
        const MorphTargetSet& redSet = probeReduced.bodies()[0].layered.morphTargets()->targets();
        std::vector<double> offMean, offMedian, onMean, onMedian, rOffMean, rOffMedian, rOnMean, rOnMedian, sOffMean,
            sOffMedian, sOnMean, sOnMedian, gOnMean, gOnMedian;
        int rebuilds = 0;
        for (int rep = 0; rep < 3; ++rep) {  // (alternated: the machine is shared)
          const Run off = run(full, steps, false), on = run(full, steps, true);
          const Run rOff = run(reduced, steps, false), rOn = run(reduced, steps, true);
          offMean.push_back(off.mean), offMedian.push_back(off.median);
          onMean.push_back(on.mean), onMedian.push_back(on.median);
          rOffMean.push_back(rOff.mean), rOffMedian.push_back(rOff.median);
          rOnMean.push_back(rOn.mean), rOnMedian.push_back(rOn.median);
          const Run sOff = run(stvk, steps, false), sOn = run(stvk, steps, true);
          sOffMean.push_back(sOff.mean), sOffMedian.push_back(sOff.median);
          sOnMean.push_back(sOn.mean), sOnMedian.push_back(sOn.median);
          const Run gOn = run(reduced, steps, true, true);
          gOnMean.push_back(gOn.mean), gOnMedian.push_back(gOn.median);
          rebuilds = on.rebuilds;
        }
        const double a = median(offMean), b = median(onMean), ra = median(rOffMean), rb = median(rOnMean);
        const double sa = median(sOffMean), sb = median(sOnMean);
        const ModalBasis& basis = *redSet.basis;
        const double stvkBuild = probeStvk.bodies()[0].model->morph->basis->stvkSeconds;
        const std::string name = path.substr(path.find_last_of('/') + 1);
        std::printf("%s,%d,%d,%d,%d,%.1f,%.3f,%.3f,%.3f,%.3f,%.0f,%d,%d,%.1f,%.4f,%.4f,%.4f,%.4f,%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.0f,%.4f,%.4f\n",
                    name.c_str(),
                    res, probe.bodies()[0].nodes(), set.count(), steps, 1000 * set.bakeSeconds, a, median(offMedian), b,
                    median(onMedian), 100 * (b - a) / a, rebuilds, basis.r,
                    1000 * (basis.modeSeconds + basis.pcaSeconds), ra, median(rOffMedian), rb, median(rOnMedian),
                    100 * (rb - ra) / ra, 1000 * stvkBuild, sa, median(sOffMedian), sb, median(sOnMedian),
                    100 * (sb - sa) / sa, median(gOnMean), median(gOnMedian));
        std::fflush(stdout);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_dmt: %s\n", e.what());
    return 1;
  }
  return 0;
}
