// The control_* scenes' reports (issue 30; Greway's Fig. V.3): what the corrections and the
// ease do to a body the metaphors steer, measured on the shipped scenes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/loads/metaphor.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

std::string shippedScene(const std::string& name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / name).string();
}

// One shark of control_shark.json over 3 s: its heading (the core's forward axis, yaw) and
// speed (the centre of mass) from start to end, its tail's largest sideways displacement
// under the bend, and the RMS (over the tail's nodes by mass, and over time) of the tail's
// sideways velocity relative to the core in the second after the release (the snap-back).
struct SharkRun {
  double headingDeg = 0, speedChange = 0, swing = 0, tailRms = 0;
};

std::vector<SharkRun> runSharks(Scene scene, bool eased) {
  if (!eased)
    for (MetaphorDesc& m : scene.metaphors) m.easeIn = m.easeOut = 0;
  World w(scene);
  const double dt = w.settings().dt;
  const size_t n = w.bodies().size();
  std::vector<SharkRun> out(n);
  std::vector<double> speed0(n), yaw0(n);
  auto yaw = [&](size_t k) {
    const Vec3 forward = w.bodies()[k].layered.state().orientation * Vec3::UnitX();
    return std::atan2(-forward.z(), forward.x());
  };
  for (size_t k = 0; k < n; ++k) {
    speed0[k] = w.bodies()[k].layered.linearMomentum().norm() / w.bodies()[k].layered.model().totalMass;
    yaw0[k] = yaw(k);
  }
  std::vector<double> sum2(n, 0);
  int samples = 0;
  const double release = scene.metaphors[0].end;
  while (w.time() < 3.0 - 1e-9) {
    w.step(dt);
    const bool after = w.time() > release && w.time() <= release + 1.0 + 1e-9;
    samples += after;
    for (size_t k = 0; k < n; ++k) {
      const Metaphor& m = *w.metaphors()[k];
      const LayeredState& s = w.bodies()[k].layered.state();
      const BakedBody& model = w.bodies()[k].layered.model();
      double mass = 0, v2 = 0;
      for (int i : m.nodes()) {
        mass += model.nodeMass[size_t(i)];
        v2 += model.nodeMass[size_t(i)] * s.qdot[size_t(i)].z() * s.qdot[size_t(i)].z();
        out[k].swing = std::max(out[k].swing, std::abs(s.q[size_t(i)].z()));
      }
      if (after) sum2[k] += v2 / mass;
    }
  }
  for (size_t k = 0; k < n; ++k) {
    EXPECT_EQ(w.bodies()[k].stats.resets, 0) << w.bodies()[k].desc.name;
    const double speed = w.bodies()[k].layered.linearMomentum().norm() / w.bodies()[k].layered.model().totalMass;
    out[k].speedChange = speed / speed0[k] - 1;
    out[k].headingDeg = (yaw(k) - yaw0[k]) * 180 / M_PI;
    out[k].tailRms = std::sqrt(sum2[k] / std::max(1, samples));
  }
  return out;
}

}  // namespace

// control_shark: four sharks coasting at 1 m/s in zero gravity, a balanced three-point bend
// on each tail (1-2 s), with no correction, neighbour damping, mitigation and both; run
// eased 50/50 (the scene) and abrupt (no ease). The corrections are internal (the core
// takes what they take from the skin), so no shark is slowed: its speed is kept to 1e-9.
// Easing removes most of the snap-back after the release; the corrections reduce it more.
TEST(ControlScenes, SharkReport) {
  const Scene scene = loadScene(shippedScene("control_shark.json"));
  ASSERT_EQ(scene.bodies.size(), 4u);
  const std::vector<SharkRun> eased = runSharks(scene, true), abrupt = runSharks(scene, false);
  std::printf("control_shark (3 s; the tail's sideways q and qdot relative to the core)\n"
              "  %-10s %-6s %12s %14s %14s %22s\n", "shark", "ease", "heading deg", "speed change",
              "tail swing mm", "tail RMS after mm/s");
  for (size_t k = 0; k < eased.size(); ++k)
    for (const auto* run : {&eased, &abrupt}) {
      const SharkRun& r = (*run)[k];
      std::printf("  %-10s %-6s %12.3f %14.2e %14.2f %22.3f\n", scene.bodies[k].name.c_str(),
                  run == &eased ? "50/50" : "none", r.headingDeg, r.speedChange, 1e3 * r.swing, 1e3 * r.tailRms);
      EXPECT_LT(std::abs(r.speedChange), 1e-9) << scene.bodies[k].name;
      EXPECT_GT(r.swing, 5e-3) << scene.bodies[k].name;  // (the bend bends the tail)
    }
  for (size_t k = 0; k < eased.size(); ++k) EXPECT_LT(2 * eased[k].tailRms, abrupt[k].tailRms) << k;
}

}  // namespace d2t
