// Stage 2 of the detection between bodies against skin resolution, with the
// contact area held fixed: two soft balls (r = 0.5 m) overlapping by 2 cm, at
// atlas resolutions 32^2 to 256^2. Prints CSV: per resolution the median time
// of the CPU reference (findSkinContacts) and of the GPU contact camera
// (ContactCamera::find, glFinish included), the patch sizes and contacts, and,
// for scale, the time to compute every node position once (the O(n) work the
// stage used to start with).
//   build/bench_contact [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu/contact/contact_camera.h"
#include "gpu/gl/egl_context.h"
#include "gpu/gl/gl.h"
#include "sim/contact/body_contact.h"
#include "sim/scene/shape.h"

using namespace d2t;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class F>
double timeMs(int repeats, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

BodyDesc ball(int resolution, const Vec3& position) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(0.5);
  d.atlasResolution = resolution;
  d.material.young = 1e5;
  d.position = position;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  std::unique_ptr<EglContext> gl;
  std::unique_ptr<ContactCamera> camera;
  try {
    gl = EglContext::create();
    camera = std::make_unique<ContactCamera>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "no GPU contact camera (%s): CPU figures only\n", e.what());
  }
  std::printf("# %s\n", gl ? glRenderer().c_str() : "no GL");
  std::printf("resolution,nodes,patch_triangles_a,patch_triangles_b,contacts_cpu,contacts_gpu,cpu_ms,gpu_ms,"
              "all_positions_ms\n");
  for (int res : {32, 64, 128, 256}) {
    const BodyDesc da = ball(res, Vec3(0, 0, 0)), db = ball(res, Vec3(0.01, 0.98, -0.02));
    LayeredBody a(bake(da), da), b(bake(db), db);
    ProxyContact pair;
    pair.normal = (b.centerOfMass() - a.centerOfMass()).normalized();
    PairPatches patches;
    findPairPatches(a, b, pair, &patches);
    int cpuContacts = 0, gpuContacts = 0;
    std::vector<NodeContact> ca, cb;
    const double cpu = timeMs(repeats, [&] {
      ca.clear();
      cb.clear();
      cpuContacts = findSkinContacts(a, b, pair, &ca, &cb);
    });
    double gpu = -1;
    if (camera) {
      camera->find(a, b, pair, &ca, &cb);  // warm-up: the skins' GL objects
      gpu = timeMs(repeats, [&] {
        ca.clear();
        cb.clear();
        gpuContacts = camera->find(a, b, pair, &ca, &cb);
        glFinish();
      });
    }
    std::vector<Vec3> x(size_t(a.nodeCount()));
    const double all = timeMs(repeats, [&] {
      for (int i = 0; i < a.nodeCount(); ++i) x[size_t(i)] = a.nodePosition(i);
      for (int i = 0; i < b.nodeCount(); ++i) x[size_t(i)] += b.nodePosition(i);
    });
    std::printf("%d,%d,%zu,%zu,%d,%d,%.4f,%.4f,%.4f\n", res, a.nodeCount(), patches.a.triangles.size(),
                patches.b.triangles.size(), cpuContacts, gpuContacts, cpu, gpu, all);
    std::fflush(stdout);
  }
  return 0;
}
