#pragma once
// The GPU tests' shared helpers: one body on both backends (Pair), a torus body, random
// skin fields and the relative error of a GPU field against the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu/skin/gpu_skin.h"
#include "sim/one_body.h"
#include "sim/test_shapes.h"

namespace d2t::test {

/// A torus (major radius 0.4 m, tube 0.15 m) on the torus atlas of `resolution`.
inline BodyDesc torus(int resolution, double young = 1e5) {
  BodyDesc t = ball(0.5, resolution, young);
  t.shape = std::make_shared<Torus>(0.4, 0.15);
  return t;
}

/// n vectors with components uniform in [-scale, scale].
inline std::vector<Vec3> randomField(int n, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<Vec3> x(size_t(n), Vec3::Zero());
  for (Vec3& v : x) v = Vec3(u(rng), u(rng), u(rng));
  return x;
}

/// max_i |gpu_i - cpu_i| / max_i |cpu_i| (a per-entry relative error is meaningless where
/// an entry is a cancellation of larger terms).
inline double relativeError(const std::vector<Vec3>& gpu, const std::vector<Vec3>& cpu) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    err = std::max(err, (gpu[i] - cpu[i]).norm());
    ref = std::max(ref, cpu[i].norm());
  }
  return ref > 0 ? err / ref : err;
}

/// Random contact rows at ~5% of the nodes of a skin moving at `qdot`: normals against the
/// node's motion (most rows push), a second and third row at some nodes (chained through
/// next / previous, apart in the list), surfaces at rest or moving, rows with a start gap
/// or an impulse already (lo < 0), release rows, rows on the body's own core (skin only,
/// frictionless). Draws from `rng`.
inline std::vector<ContactRow> randomRows(const std::vector<Vec3>& qdot, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  auto unit = [&] { return Vec3(u(rng), u(rng), u(rng)).normalized(); };
  std::vector<ContactRow> rows;
  for (size_t i = 0; i < qdot.size(); ++i) {
    if (0.5 * (u(rng) + 1) >= 0.05) continue;
    const int copies = u(rng) > 0.7 ? 2 + (u(rng) > 0.5) : 1;
    for (int c = 0; c < copies; ++c) {
      ContactRow r;
      r.node = int(i);
      r.normal = (unit() - 0.8 * qdot[i].normalized()).normalized();
      r.surfaceVelocity = u(rng) > 0.5 ? Vec3(0.2 * unit()) : Vec3::Zero();
      r.depth = 2e-3 * u(rng);
      r.startGap = u(rng) > 0 ? -1.0 : 1e-3 * (u(rng) + 1);
      r.lo = u(rng) > 0 ? 0.0 : -1e-3 * (u(rng) + 1);
      r.friction = 0.5 * (u(rng) + 1);
      r.release = u(rng) > 0.85;
      r.onCore = u(rng) > 0.4;
      if (r.onCore) r.friction = 0;
      rows.push_back(r);
    }
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  for (size_t k = 0; k < rows.size(); ++k)
    for (size_t j = k + 1; j < rows.size(); ++j)
      if (rows[j].node == rows[k].node) {
        rows[k].next = int(j);
        rows[j].previous = int(k);
        break;
      }
  return rows;
}

/// A random input of the contact response's passes on a body whose current state is
/// `base`: the skin displaced and moving (q, qdot), the core moving and turned (at rest
/// where `coreMoves` is false), the step's start q, rows at ~5% of the nodes (randomRows)
/// and ~3% of the nodes held on the core (some along two directions).
struct ResponseInput {
  LayeredState s;
  std::vector<Vec3> startQ;
  std::vector<ContactRow> rows;
  std::vector<std::pair<int, Vec3>> held;
};
inline ResponseInput randomResponseInput(const LayeredState& base, bool coreMoves) {
  const int n = int(base.q.size());
  ResponseInput in;
  in.s = base;
  in.s.q = randomField(n, 3e-3, 11);
  in.s.qdot = randomField(n, 0.1, 12);
  in.s.velocity = coreMoves ? Vec3(0.4, -1.2, 0.3) : Vec3::Zero();
  in.s.angularVelocity = coreMoves ? Vec3(-0.8, 2.0, 0.5) : Vec3::Zero();
  in.s.orientation = Quat(Eigen::AngleAxisd(1.1, Vec3(-1, 2, 0.5).normalized()));
  in.startQ = randomField(n, 3e-3, 13);
  std::mt19937 rng(14);
  in.rows = randomRows(in.s.qdot, rng);
  std::uniform_real_distribution<double> u(-1, 1);
  auto unit = [&] { return Vec3(u(rng), u(rng), u(rng)).normalized(); };
  for (int i = 0; i < n; ++i)
    if (0.5 * (u(rng) + 1) < 0.03) {
      in.held.emplace_back(i, unit());
      if (u(rng) > 0.5) in.held.emplace_back(i, unit());
    }
  return in;
}

/// The ground y = 0 with the body's own friction.
inline ColliderDesc ground(const BodyDesc& d) { return planeCollider(Vec3::UnitY(), 0, d.material); }

/// The same body on both backends: two Worlds of that body (and the ground, when asked),
/// the second's on the GPU solver. Both detect on the CPU (from the state read back): the
/// comparisons are of the solver's passes; the detection pass has its own tests. A GPU
/// step that throws moves the body to the CPU for good (World::integrateFree): still
/// attached at the end, the GPU ran every step, and no test of a Pair compared the CPU
/// with itself.
struct Pair {
  explicit Pair(const BodyDesc& d, bool onGround = false)
      : cpuWorld(d, onGround ? std::optional(ground(d)) : std::nullopt),
        gpuWorld(d, onGround ? std::optional(ground(d)) : std::nullopt),
        cpu(cpuWorld.body),
        gpu(gpuWorld.body),
        model(gpuWorld.world.bodies()[0].model),
        skin(std::make_shared<GpuSkin>(model)) {
    gpu.setFreeMotionSolver(skin);
    gpuWorld.world.setSolverDetection(false);
  }
  ~Pair() { EXPECT_NE(gpu.freeMotionSolver(), nullptr) << "the GPU solver fell back to the CPU"; }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  OneBody cpuWorld, gpuWorld;
  LayeredBody &cpu, &gpu;
  BakedBodyPtr model;
  std::shared_ptr<GpuSkin> skin;
  void step(double dt, const Vec3& g) {
    cpuWorld.step(dt, g);
    gpuWorld.step(dt, g);
  }
  /// The GPU world's stage profile of the last step.
  const Profile& profile() const { return gpuWorld.world.profile(); }
  /// Both worlds' simulation settings, changed alike.
  template <class F>
  void settings(F change) {
    change(cpuWorld.world.settings());
    change(gpuWorld.world.settings());
  }
};

}  // namespace d2t::test
