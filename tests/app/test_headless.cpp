// Headless runs end to end: the picture shows the body where the simulation
// says it is, and --metrics / --bench carry the physics of the run.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_output.h"
#include "app/window/camera.h"
#include "sim/scene/scene.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

int runQuiet(const std::string& args) {
  const std::string cmd = std::string(D2T_BINARY) + " " + args + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// stdout + stderr of a d2tsim run with extra environment
std::string runOutput(const std::string& env, const std::string& args, int* code) {
  return test::commandOutput(env + " " + std::string(D2T_BINARY) + " " + args + " 2>&1", code);
}

// A run's exit code, and the warnings it printed (every fallback and failed stage warns
// once, "d2tsim: warning: ..."; a capped solve too): a scene test fails on any it did not expect.
int runCollectingWarnings(const std::string& args, std::string* warnings) {
  int code = -1;
  std::istringstream out(runOutput("", args, &code));
  for (std::string line; std::getline(out, line);)
    if (line.find("warning:") != std::string::npos) *warnings += line + "\n";
  return code;
}

std::filesystem::path outDir() {
  const auto d = std::filesystem::temp_directory_path() / "d2t_headless_test";
  std::filesystem::create_directories(d);
  return d;
}

std::string scene(const char* name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / name).string();
}

}  // namespace

TEST(Headless, BallDropMetricsScreenshotAndBench) {
  const auto dir = outDir();
  const std::string png = (dir / "ball.png").string(), metrics = (dir / "ball.json").string(),
                    bench = (dir / "ball.csv").string();
  const int w = 320, h = 240;
  ASSERT_EQ(runQuiet(scene("ball_drop.json") + " --headless --frames 600 --screenshot " + png +
                     " --metrics " + metrics + " --bench " + bench + " --width " +
                     std::to_string(w) + " --height " + std::to_string(h)),
            0);

  // metrics: the soft ball fell from 1.5 m and rests on the ground, sunk by its weight
  std::ifstream mf(metrics);
  const nlohmann::json m = nlohmann::json::parse(mf);
  EXPECT_EQ(m["steps"], 600);
  EXPECT_DOUBLE_EQ(m["dt"].get<double>(), 0.005);
  EXPECT_FALSE(m["renderer"].get<std::string>().empty());
  EXPECT_GT(m["timing_ms"]["step"].get<double>(), 0.0);
  ASSERT_EQ(m["bodies"].size(), 1u);
  const auto& b = m["bodies"][0];
  EXPECT_EQ(b["name"], "ball");
  // the static solve of this model (contact support is on in the scene) rests it at
  // 0.402 m (frictionless) to 0.406 m (no slip); at 3 s it still rocks by millimetres
  EXPECT_NEAR(b["com"][1].get<double>(), 0.404, 0.01);
  EXPECT_LT(b["velocity"].get<std::vector<double>>()[1], 0.1);
  EXPECT_GT(b["min_height"].get<double>(), -0.01);
  EXPECT_LT(b["max_penetration"].get<double>(), 0.0025);  // 0.5% of the radius, after correction
  EXPECT_LT(b["max_penetration_detected"].get<double>(), 0.05);
  EXPECT_EQ(b["resets"], 0);
  ASSERT_EQ(b["trajectory"].size(), 600u);
  // first rows are free fall: y_n = 1.5 - g dt^2 n (n + 1) / 2
  for (int n = 1; n <= 20; ++n) {
    const auto& row = b["trajectory"][n - 1];
    EXPECT_NEAR(row[0].get<double>(), n * 0.005, 1e-12);
    EXPECT_NEAR(row[2].get<double>(), 1.5 - 9.81 * 0.005 * 0.005 * n * (n + 1) / 2, 1e-9);
  }
  for (const char* k : {"nodes", "tets", "velocity", "angular_velocity", "final_max_penetration"})
    EXPECT_TRUE(b.contains(k)) << k;
  for (const char* k : {"kinetic", "gravitational", "elastic"}) EXPECT_TRUE(b["energy"].contains(k)) << k;

  // bench: header + one row per step
  std::ifstream bf(bench);
  std::string line;
  int rows = 0;
  std::getline(bf, line);
  EXPECT_EQ(line.rfind("step,t,step_ms", 0), 0u) << line;
  while (std::getline(bf, line)) ++rows;
  EXPECT_EQ(rows, 600);

  // picture: the ball's colour where its centre projects, sky above, ground below
  int iw = 0, ih = 0, ch = 0;
  unsigned char* img = stbi_load(png.c_str(), &iw, &ih, &ch, 3);
  ASSERT_NE(img, nullptr);
  ASSERT_EQ(iw, w);
  ASSERT_EQ(ih, h);
  const Camera cam(Vec3(2.2, 1.4, 3.2), Vec3(0, 0.5, 0), 45);
  const Eigen::Vector4f clip = cam.projection(double(w) / h) * cam.view() *
                               Eigen::Vector4f(float(b["com"][0].get<double>()),
                                               float(b["com"][1].get<double>()),
                                               float(b["com"][2].get<double>()), 1.f);
  const int px = int((clip.x() / clip.w() * 0.5 + 0.5) * w);
  const int py = int((1 - (clip.y() / clip.w() * 0.5 + 0.5)) * h);
  auto at = [&](int x, int y) {
    const unsigned char* p = img + 3 * (y * w + x);
    return Eigen::Vector3i(p[0], p[1], p[2]);
  };
  // the ball is orange-red: red clearly above green and blue around the centre
  int reddish = 0;
  for (int dy = -5; dy <= 5; ++dy)
    for (int dx = -5; dx <= 5; ++dx) {
      const Eigen::Vector3i c = at(std::clamp(px + dx, 0, w - 1), std::clamp(py + dy, 0, h - 1));
      if (c[0] > c[1] + 40 && c[0] > c[2] + 40) ++reddish;
    }
  EXPECT_GT(reddish, 100) << "ball not at its projected position (" << px << ", " << py << ")";
  const Eigen::Vector3i sky = at(w / 2, 2);
  EXPECT_GT(sky[2], sky[0]) << "top row should be sky (blue-ish)";
  const Eigen::Vector3i floor = at(w / 2, h - 3);
  EXPECT_LT(std::abs(floor[0] - floor[2]), 40) << "bottom row should be the grey ground";
  // not a blank image: many distinct colours
  std::set<int> colours;
  for (int i = 0; i < w * h; i += 7) colours.insert(img[3 * i] << 16 | img[3 * i + 1] << 8 | img[3 * i + 2]);
  EXPECT_GT(colours.size(), 50u);
  stbi_image_free(img);
}

namespace {

// The state a scene's run ended in is sound: no body reset, everything finite, no
// body left in a collider or another body by more than 1% of its bounding radius
// (measured: 0.53% at most, cylinder_gear_high's gear at 32^2; 0 in most scenes), and (on
// the GPU) the run stayed on the GPU.
void expectSoundRun(const nlohmann::json& m, const std::filesystem::path& scene, const std::string& what,
                    const char* backend) {
  EXPECT_EQ(m["backend"], backend) << what;
  const Scene sc = loadScene(scene.string());
  ASSERT_EQ(m["bodies"].size(), sc.bodies.size() + sc.characters.size()) << what;
  for (size_t i = 0; i < sc.characters.size(); ++i) {  // (listed after the bodies)
    const auto& c = m["bodies"][sc.bodies.size() + i];
    const std::string name = what + " " + c["name"].get<std::string>();
    EXPECT_EQ(c["resets"], 0) << name;
    for (const char* k : {"com", "velocity", "angular_velocity"})
      for (int j = 0; j < 3; ++j) EXPECT_TRUE(c[k][j].is_number() && std::isfinite(c[k][j].get<double>())) << name << " " << k;
    EXPECT_TRUE(c["energy"]["total"].is_number() && std::isfinite(c["energy"]["total"].get<double>())) << name;
    EXPECT_GT(c["min_height"].get<double>(), -1e-3) << name << ": a node under the ground";
    EXPECT_LT(c["max_joint_error"].get<double>(), 1e-3 * sc.characters[i].radius) << name;
    EXPECT_LT(c["max_penetration"].get<double>(), 2e-3) << name << ": a node ended a step inside something";
  }
  for (size_t i = 0; i < sc.bodies.size(); ++i) {
    const auto& b = m["bodies"][i];
    const std::string name = what + " " + b["name"].get<std::string>();
    EXPECT_EQ(b["resets"], 0) << name;
    for (const char* k : {"com", "velocity", "angular_velocity"})
      for (int j = 0; j < 3; ++j) EXPECT_TRUE(b[k][j].is_number() && std::isfinite(b[k][j].get<double>())) << name << " " << k;
    EXPECT_TRUE(b["energy"]["total"].is_number() && std::isfinite(b["energy"]["total"].get<double>())) << name;
    EXPECT_LT(b["final_max_penetration"].get<double>(), 0.01 * sc.bodies[i].shape->boundingRadius()) << name;
  }
}

std::vector<std::filesystem::path> shippedScenes() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool isHighVariant(const std::filesystem::path& p) {
  const std::string stem = p.stem().string();
  return stem.size() > 5 && stem.compare(stem.size() - 5, 5, "_high") == 0;
}

}  // namespace

// Every shipped scene, 200 steps on the CPU at its own resolution. The "_high"
// variants differ from their default ones only in atlas resolution; at 256^2 their
// start-up alone (the coupling columns, solved by CG per body) takes ~45 s on a
// 2-core machine, so they run at 32^2 (their scene file, colliders and script). No
// warning may be printed. Where no collider moves (no keyframes: all but ball_squeeze,
// head_punch, sandbox), nothing does work on the bodies: the scene's energy (kinetic,
// gravitational, elastic, springs) at the end may not exceed its energy at the start
// (measured: every such scene ends 11% to 78% below it, cylinder_gear the least).
// --metrics' state_hash: the whole state after the last step. The same run gives the same
// hash, on 1 thread as on 2 (the 64^2 ball's node loops run on the threads); one step more,
// another.
TEST(Headless, StateHashIsTheSameForTheSameRunOnAnyNumberOfThreads) {
  const std::string path = (outDir() / "hash.json").string();
  const auto hashOf = [&](const std::string& env, int frames) {
    int code = -1;
    const std::string out = runOutput(env, scene("ball_drop.json") + " --headless --frames " + std::to_string(frames) +
                                               " --metrics " + path + " --width 64 --height 48", &code);
    EXPECT_EQ(code, 0) << out;
    std::ifstream f(path);
    return nlohmann::json::parse(f)["state_hash"].get<std::string>();
  };
  const std::string a = hashOf("OMP_NUM_THREADS=2", 120);  // (on the ground from frame ~80)
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_EQ(hashOf("OMP_NUM_THREADS=2", 120), a);
  EXPECT_EQ(hashOf("OMP_NUM_THREADS=1", 120), a);
  EXPECT_NE(hashOf("OMP_NUM_THREADS=2", 121), a);
}

// --record then --replay on every shipped scene: the replay re-simulates the recorded scene
// and agrees with every state hash (a run is a pure function of its scene and inputs);
// one hash tampered with, the replay fails with exit 1 naming the step.
TEST(Headless, EveryShippedSceneReplaysItsRecording) {
  std::string tampered;
  for (const auto& path : shippedScenes()) {
    const std::string rec = (outDir() / (path.stem().string() + ".d2trec.json")).string();
    const std::string res = isHighVariant(path) ? " --resolution 32" : "";
    int code = -1;
    std::string out = runOutput("", path.string() + " --headless --frames 30 --backend cpu" + res + " --record " + rec, &code);
    ASSERT_EQ(code, 0) << path << ":\n" << out;
    ASSERT_NE(out.find("recording written to " + rec), std::string::npos) << out;
    out = runOutput("", "--replay " + rec, &code);
    EXPECT_EQ(code, 0) << path << ":\n" << out;
    EXPECT_NE(out.find("state hashes agree (to step 30)"), std::string::npos) << out;
    if (tampered.empty()) tampered = rec;
  }
  std::ifstream in(tampered);
  nlohmann::json j = nlohmann::json::parse(in);
  in.close();
  ASSERT_GE(j["checkpoints"].size(), 3u);
  nlohmann::json& c = j["checkpoints"][2];
  std::string h = c["hash"];
  h[15] = h[15] == '0' ? '1' : '0';
  c["hash"] = h;
  std::ofstream(tampered) << j.dump();
  int code = -1;
  const std::string out = runOutput("", "--replay " + tampered, &code);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("differs at step " + std::to_string(c["step"].get<int>())), std::string::npos) << out;
  EXPECT_NE(runQuiet("--replay " + (outDir() / "no_such.json").string()), 0);
}

// --metrics of a body with morph targets (ch. 5): the pose of its last step and the RBF
// weights there, in target order. dmt_flex's activation ramps from 0 at 0.5 s to 1 at
// 2.5 s; 400 steps of 5 ms end at 2 s: a = 0.75, between the targets at 2/3 and 1, so the
// weights are the hats' (0.75 and 0.25 but for the file's 6 digits; one pose dimension). The limb without targets has
// neither field; the reduced limb (ch. 5.4) adds its basis' size.
TEST(Headless, MetricsGiveThePoseTheMorphWeightsAndTheReducedModes) {
  const std::string path = (outDir() / "dmt_flex.json").string();
  ASSERT_EQ(runQuiet(scene("dmt_flex.json") + " --headless --frames 400 --metrics " + path), 0);
  std::ifstream f(path);
  const nlohmann::json m = nlohmann::json::parse(f);
  const nlohmann::json& limb = m["bodies"][0];
  ASSERT_EQ(limb["pose"].size(), 1u);
  EXPECT_NEAR(limb["pose"][0].get<double>(), 0.75, 1e-12);
  const Scene sc = loadScene(scene("dmt_flex.json"));  // (the hats between its poses as written)
  const double p2 = sc.bodies[0].morph->targets[2].pose[0], p3 = sc.bodies[0].morph->targets[3].pose[0];
  const std::vector<double> want = {0, 0, (p3 - 0.75) / (p3 - p2), (0.75 - p2) / (p3 - p2)};
  ASSERT_EQ(limb["morph_weights"].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(limb["morph_weights"][i].get<double>(), want[i], 1e-9) << i;
  EXPECT_FALSE(m["bodies"][1].contains("pose"));
  EXPECT_FALSE(m["bodies"][1].contains("morph_weights"));
  // the reduced limb: the same pose and weights, and its basis' size (r* = 10, 1 shape, 6 load modes)
  const nlohmann::json& reduced = m["bodies"][2];
  EXPECT_FALSE(limb.contains("reduced_modes"));
  EXPECT_EQ(reduced["reduced_modes"].get<int>(), 17);
  EXPECT_EQ(reduced["reduced_elasticity"].get<std::string>(), "linear");
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(reduced["morph_weights"][i].get<double>(), want[i], 1e-9) << i;
}

TEST(Headless, ShippedScenesRunWithoutResets) {
  for (const auto& path : shippedScenes()) {
    const std::string stem = path.stem().string();
    const std::string metrics = (outDir() / (stem + ".json")).string();
    const std::string res = isHighVariant(path) ? " --resolution 32" : "";
    std::string warnings;
    ASSERT_EQ(runCollectingWarnings(path.string() + " --headless --frames 200 --backend cpu" + res + " --metrics " +
                                        metrics,
                                    &warnings),
              0)
        << path;
    EXPECT_TRUE(warnings.empty()) << stem << ":\n" << warnings;
    std::ifstream mf(metrics);
    const nlohmann::json m = nlohmann::json::parse(mf);
    expectSoundRun(m, path, stem, "cpu");
    Scene sc = loadScene(path.string());
    bool work = false;
    for (const ColliderDesc& c : sc.colliders) work = work || !c.keyframes.empty();
    for (const CharacterSpec& c : sc.characters) {
      work = work || !c.targets.empty();  // (keyframed joint targets)
      for (const CharacterSpec::Spring& s : c.springs) work = work || s.circleRadius > 0;  // (a moving anchor)
    }
    for (const BodyDesc& b : sc.bodies) work = work || (b.morph && b.morph->track.size() > 1);  // (a moving pose)
    if (work) continue;
    for (BodyDesc& b : sc.bodies)
      if (isHighVariant(path)) b.atlasResolution = 32;
    World start(sc);
    double before = 0, after = 0;
    for (Body& b : start.bodies()) before += start.energy(b).total();
    for (const Character& c : start.characters())
      before += c.body->kineticEnergy() + c.body->potentialEnergy(sc.simulation.gravity);
    for (const auto& b : m["bodies"]) after += b["energy"]["total"].get<double>();
    std::printf("%s: energy %.3f J at the start, %.3f J after 200 steps (%.1f%% of it lost)\n", stem.c_str(), before,
                after, 100 * (before - after) / std::abs(before));
    EXPECT_LE(after, before + 1e-9 * std::abs(before)) << stem << ": the bodies gained energy with no work done";
  }
}

// Every shipped scene on the GPU backend (steps 1-5 as fragment passes, the contact
// camera between bodies that touch) at 32^2: llvmpipe takes ~15 ms per body and step
// there (~60 ms at 64^2), so 120 steps (0.6 s: the drops land, the fist is on its
// way). The "_high" variants are their default scenes at 32^2: skipped. A run that
// fell back to the CPU fails (metrics "backend"), and so does any warning (a stage
// moved to the CPU, a reset) but a capped solve's. Each body ends where the CPU backend's run of the same
// steps ends it: within 1 mm (measured: 0.24 mm at most, cylinder_gear's cylinder; under
// 0.07 mm in the others). In pumpkins.json the top pumpkin has landed on the bottom
// one by then (0.46 s): it must be above it, not through it.
TEST(Headless, ShippedScenesRunOnTheGpuBackend) {
  for (const auto& path : shippedScenes()) {
    if (isHighVariant(path)) continue;
    const std::string stem = path.stem().string();
    const std::string args = path.string() + " --headless --frames 120 --resolution 32 --metrics ";
    const std::string metrics = (outDir() / (stem + "_gpu.json")).string(),
                      cpuMetrics = (outDir() / (stem + "_gpu_cpu.json")).string();
    std::string warnings;
    ASSERT_EQ(runCollectingWarnings(args + metrics + " --backend gpu", &warnings), 0) << path;
    EXPECT_TRUE(warnings.empty()) << stem << " (gpu):\n" << warnings;
    ASSERT_EQ(runQuiet(args + cpuMetrics + " --backend cpu"), 0) << path;
    std::ifstream mf(metrics), cf(cpuMetrics);
    const nlohmann::json m = nlohmann::json::parse(mf), c = nlohmann::json::parse(cf);
    expectSoundRun(m, path, stem + " (gpu)", "gpu");
    for (size_t i = 0; i < m["bodies"].size() && i < c["bodies"].size(); ++i) {
      double gap = 0;
      for (int k = 0; k < 3; ++k)
        gap += std::pow(m["bodies"][i]["com"][k].get<double>() - c["bodies"][i]["com"][k].get<double>(), 2);
      EXPECT_LT(std::sqrt(gap), 1e-3) << stem << " " << m["bodies"][i]["name"] << ": GPU vs CPU end centre of mass";
    }
    if (stem == "pumpkins") {
      ASSERT_EQ(m["bodies"].size(), 2u);
      EXPECT_GT(m["bodies"][1]["com"][1].get<double>(), m["bodies"][0]["com"][1].get<double>() + 0.3)
          << "the top pumpkin went through the bottom one";
    }
  }
}

namespace {

nlohmann::json readJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

}  // namespace

// --backend gpu: the same drop on the GPU solver (steps 1-5 in float) lands where the CPU's does.
TEST(Headless, GpuBackendDropsTheBallLikeTheCpu) {
  const auto dir = outDir();
  nlohmann::json m[2];
  const char* backends[2] = {"cpu", "gpu"};
  for (int k = 0; k < 2; ++k) {
    const std::string metrics = (dir / (std::string("backend_") + backends[k] + ".json")).string();
    ASSERT_EQ(runQuiet(scene("ball_drop.json") + " --headless --frames 240 --resolution 32 --backend " +
                       backends[k] + " --metrics " + metrics),
              0);
    m[k] = readJson(metrics);
    EXPECT_EQ(m[k]["backend"], backends[k]);
  }
  const auto &c = m[0]["bodies"][0], &g = m[1]["bodies"][0];
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(g["com"][k].get<double>(), c["com"][k].get<double>(), 1e-3) << k;
  EXPECT_EQ(g["resets"], 0);
  EXPECT_LT(g["max_penetration"].get<double>(), 0.0025);
}

// --tolerance reaches the CG: every solve of the run ends at or below it (the --bench
// column of each step's residual), and a tighter one takes more iterations.
TEST(Headless, ToleranceOverridesTheScenesSolverTolerance) {
  struct Solves {
    double iterations = 0, worst = 0;
    int steps = 0;
  };
  auto runWith = [](const std::string& tolerance) {
    const std::string csv = (outDir() / ("tolerance_" + tolerance + ".csv")).string();
    EXPECT_EQ(runQuiet(scene("ball_drop.json") + " --headless --frames 200 --resolution 64 --solver cg --tolerance " +
                       tolerance + " --bench " + csv),
              0);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
    const auto column = [&](const char* name) {
      return size_t(std::find(header.begin(), header.end(), name) - header.begin());
    };
    const size_t iterations = column("cg_iterations"), residual = column("cg_residual");
    Solves s;
    EXPECT_LT(residual, header.size());
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      for (std::istringstream r(line); std::getline(r, line, ',');) cells.push_back(line);
      if (cells.size() != header.size()) continue;
      s.iterations += std::stod(cells[iterations]);
      s.worst = std::max(s.worst, std::stod(cells[residual]));
      ++s.steps;
    }
    return s;
  };
  const Solves loose = runWith("1e-3"), tight = runWith("1e-8");
  ASSERT_EQ(loose.steps, 200);
  ASSERT_EQ(tight.steps, 200);
  EXPECT_LE(loose.worst, 1e-3);
  EXPECT_LE(tight.worst, 1e-8);
  EXPECT_GT(tight.iterations, 1.5 * loose.iterations) << tight.iterations << " against " << loose.iterations;
  std::printf("--tolerance: 200 steps of ball_drop 64^2, %.0f CG iterations to 1e-3 (worst residual %.2g), %.0f "
              "to 1e-8 (%.2g)\n", loose.iterations, loose.worst, tight.iterations, tight.worst);
}

// A shader that does not compile: the message names the file and line, and the run
// goes on on the CPU backend.
TEST(Headless, BrokenGpuShaderFallsBackToTheCpuWithFileAndLine) {
  const auto shaders = outDir() / "broken_shaders";
  std::filesystem::remove_all(shaders);
  std::filesystem::copy(std::filesystem::path(D2T_SHADER_DIR), shaders,
                        std::filesystem::copy_options::recursive);
  {
    std::ifstream in(shaders / "d2t" / "stencil.frag");
    std::vector<std::string> lines;
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
    in.close();
    std::ofstream out(shaders / "d2t" / "stencil.frag");
    for (size_t i = 0; i < lines.size(); ++i) {
      out << lines[i] << "\n";
      if (i == 20) out << "  float broken = undefinedName;\n";  // becomes line 22
    }
  }
  const std::string metrics = (outDir() / "broken.json").string();
  int code = -1;
  const std::string out = runOutput("D2T_SHADER_DIR=" + shaders.string(),
                                    scene("ball_drop.json") + " --headless --frames 20 --resolution 32 "
                                                              "--backend gpu --metrics " + metrics,
                                    &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("stencil.frag:22:"), std::string::npos) << out;
  EXPECT_NE(out.find("running the CPU backend"), std::string::npos) << out;
  EXPECT_EQ(readJson(metrics)["backend"], "cpu");
}
