// Where the CPU's solve meets the machine (docs/performance.md, "What limits the CPU"):
// per atlas resolution of a scene's first body (after a few steps, its operator built),
// with 1 thread and with all of them, the median time of
//   triad     a[i] = b[i] + s c[i], arrays of 3 x 64 MB (memory) and of the fine product's
//             bytes (cache): what the machine moves per second
//   product   y = Mt_e x on the 7-slot stencil, double blocks (the CG's below
//             kFloatBlocksMinNodes nodes)
//   packed    the same in float, packed (the V-cycle's fine-level product)
//   v-cycle   one application of the multigrid preconditioner
//   cg_iter   one iteration of the y solve's multigrid CG ((21 iterations - 1) / 20, from zero)
//   cg_setup  what a solve costs besides its iterations (1 iteration's solve - cg_iter)
// and for the products the bytes they read and write (blocks, x, y, stencil) over their
// time: the bandwidth they reach, against the triad's.
//   build/bench_solver_limits [scene.json] [resolutions...]   (default: head_drop, 64 128 256)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "scene_args.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

// the median of `repeats` timings of f [ms], after one untimed run
double medianMs(const std::function<void()>& f, int repeats) {
  f();
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + long(t.size() / 2), t.end());
  return t[t.size() / 2];
}

// the triad's bandwidth [GB/s] over arrays of `bytes` in all (3 arrays of doubles)
double triadGBs(size_t bytes) {
  const size_t n = std::max<size_t>(bytes / (3 * sizeof(double)), 1024);
  std::vector<double> a(n, 0), b(n, 1), c(n, 2);
  const int repeats = bytes > (size_t(64) << 20) ? 9 : 101;
  const double ms = medianMs(
      [&] {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; ++i) a[i] = b[i] + 0.5 * c[i];
      },
      repeats);
  return 3.0 * double(n) * sizeof(double) / (ms * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string defaultScene = std::string(D2T_SOURCE_DIR) + "/scenes/head_drop.json";
  const auto args = bench::parseSceneArgs(argc, argv, "bench_solver_limits", defaultScene, {64, 128, 256});
  if (!args) return 2;
  const std::string& scene = args->scene;
  const std::vector<int>& resolutions = args->resolutions;
  const int maxThreads = omp_get_max_threads();
  std::printf("resolution,nodes,threads,triad_memory_gbs,triad_cache_gbs,product_ms,product_gbs,packed_ms,"
              "packed_gbs,vcycle_ms,cg_iteration_ms,cg_setup_ms\n");
  try {
    for (int res : resolutions) {
      Scene s = loadScene(scene);
      s.bodies.resize(1);
      s.bodies[0].atlasResolution = res;
      s.simulation.solver.method = "cg";
      World w(s);
      for (int k = 0; k < 3; ++k) w.step();
      const ImplicitOperator& op = w.bodies()[0].layered.implicitOperator();
      const MultigridPreconditioner& mg = op.multigrid();
      if (mg.empty()) throw std::runtime_error("the body's CG has no multigrid preconditioner");
      const int n = mg.nodeCount();
      const BlockRows& a = mg.level(0).a;
      // bytes a product reads and writes: its blocks (double: the CG's; float: packed,
      // padding included), the stencil or column indices, x once, y once
      const double doubleBytes = double(n) * (kStencilSlots * (9 * 8 + 4) + 2 * 3 * 8);
      const double packedBytes = double(a.packed.value.size()) * 4 + double(a.packed.column.size()) * 4 +
                                 2.0 * double(n) * 3 * 4;
      const size_t nodes = size_t(n);
      std::vector<Vec3> x(nodes, Vec3(1, -2, 0.5)), y(nodes), z(nodes);
      std::vector<Eigen::Vector3f> xf(nodes, Eigen::Vector3f(1, -2, 0.5)), yf(nodes);
      MultigridPreconditioner::Workspace work;
      for (int threads : std::vector<int>{1, maxThreads}) {
        if (threads == 1 && maxThreads == 1 && res != resolutions.front()) continue;
        omp_set_num_threads(threads);
        const double memory = triadGBs(size_t(192) << 20);
        const double cache = triadGBs(size_t(doubleBytes));
        const int repeats = n < 20000 ? 201 : 51;
        const double product = medianMs([&] { op.multiply(x, y); }, repeats);
        const double packed = a.packed.slots > 0 ? medianMs([&] { a.multiply(xf, yf); }, repeats) : 0.0;
        const double vcycle = medianMs([&] { mg.apply(x, z, work); }, repeats / 4 + 1);
        // 1 and 21 iterations from zero to a tolerance no solve reaches: an iteration, and
        // what a solve costs besides its iterations (its vectors, the first residual)
        auto solveMs = [&](int iterations) {
          return medianMs(
              [&] {
                std::fill(z.begin(), z.end(), Vec3::Zero());
                op.solve(x, z, iterations, 1e-30, nullptr);
              },
              repeats / 20 + 5);
        };
        const double one = solveMs(1), cg = (solveMs(21) - one) / 20, setup = one - cg;
        std::printf("%d,%d,%d,%.1f,%.1f,%.4f,%.1f,%.4f,%.1f,%.4f,%.4f,%.4f\n", res, n, threads, memory, cache, product,
                    doubleBytes / (product * 1e6), packed, packed > 0 ? packedBytes / (packed * 1e6) : 0.0, vcycle,
                    cg, setup);
        // the cycle's parts per level: A (4 products a cycle), R and P (1 each)
        for (int l = 0; l + 1 < mg.levelCount(); ++l) {
          const MultigridPreconditioner::Level& lv = mg.level(l);
          std::vector<Eigen::Vector3f> u(size_t(lv.a.rows), Eigen::Vector3f(1, -2, 0.5)), v(size_t(lv.a.rows)),
              coarse(size_t(lv.r.rows), Eigen::Vector3f(1, -2, 0.5)), restricted(size_t(lv.r.rows));
          const double ta = medianMs([&] { lv.a.multiply(u, v); }, repeats);
          const double tr = medianMs([&] { lv.r.multiply(u, restricted); }, repeats);
          const double tp = medianMs([&] { lv.p.multiply(coarse, v, true); }, repeats);
          std::printf("#   level %d: %d nodes, %zu blocks of A (%s), %zu of P: A %.4f ms, R %.4f ms, P %.4f ms\n", l,
                      lv.a.rows, lv.a.block.size(), lv.a.packed.slots > 0 ? "packed" : "rows", lv.p.block.size(),
                      ta, tr, tp);
        }
        std::printf("#   coarsest: %d nodes\n", mg.levelNodes(mg.levelCount() - 1));
        std::fflush(stdout);
        if (maxThreads == 1) break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_solver_limits: %s\n", e.what());
    return 1;
  }
  return 0;
}
