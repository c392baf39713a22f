// The d2tsim command line, run as a subprocess: help, usage errors (exit 2),
// bad scenes (exit 1 with the message), scene listing.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_output.h"

namespace {

struct Result {
  int code = -1;
  std::string out;  // stdout + stderr
};

Result run(const std::string& args) {
  Result r;
  r.out = d2t::test::commandOutput(std::string(D2T_BINARY) + " " + args + " 2>&1", &r.code);
  return r;
}

std::string tempFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "d2t_cli_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(Cli, HelpListsTheOptions) {
  const Result r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--list-scenes", "--headless", "--frames", "--dt", "--backend",
                          "--screenshot", "--metrics", "--bench", "--bake-report", "--export-obj", "--resolution", "--solver", "--tolerance"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST(Cli, UnknownOptionsAndBadValuesExitWithUsage) {
  for (const char* args : {"--frobnicate", "--frames -3", "--frames abc", "--dt 5",
                           "--backend cuda", "a.json b.json", "--resolution 48", "--resolution 2048",
                           "--tolerance 0", "--tolerance 2", "--tolerance abc"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args << "\n" << r.out;
  }
}

TEST(Cli, ListScenesShowsEachSceneWithItsDescription) {
  const Result r = run("--list-scenes");
  EXPECT_EQ(r.code, 0);
  // every scene file of scenes/, on its own line with its file's description
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes";
  int scenes = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++scenes;
    std::ifstream in(e.path());
    const std::string description = nlohmann::json::parse(in, nullptr, true, true).value("description", "");
    ASSERT_FALSE(description.empty()) << e.path() << " has no description";
    const std::string name = e.path().filename().string();
    const size_t at = r.out.find("  " + name + " ");
    ASSERT_NE(at, std::string::npos) << name << " not listed:\n" << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(line.find(description), std::string::npos) << line;
  }
  EXPECT_EQ(scenes, 39);
}

TEST(Cli, BadScenesExitWithOneAndTheMessage) {
  const std::string bad = tempFile("bad_poisson.json", R"({"bodies": [{"shape": {"type": "sphere"},
      "material": {"poisson": 0.7}}]})");
  Result r = run(bad + " --headless --frames 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find(bad + ": /bodies/0/material/poisson: must be in [0, 0.5), got 0.7"),
            std::string::npos)
      << r.out;

  r = run("/nonexistent/scene.json --headless --frames 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("/nonexistent/scene.json: scene file not found"), std::string::npos) << r.out;

  const std::string malformed = tempFile("malformed.json", "{ \"bodies\": [ }");
  r = run(malformed + " --headless --frames 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("malformed JSON"), std::string::npos) << r.out;

  const std::string missingObj = tempFile("missing_obj.json", R"({"bodies": [{"shape":
      {"type": "obj", "path": "no_such_mesh.obj"}}]})");
  r = run(missingObj + " --headless --frames 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no_such_mesh.obj"), std::string::npos) << r.out;
}

TEST(Cli, BakeReportOfTheDefaultSceneHoldsTheChecks) {
  const std::string out = tempFile("bake.json", "");
  const Result r = run(std::string(D2T_TEST_DATA) + "/../../scenes/ball_drop.json --bake-report " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  const nlohmann::json j = nlohmann::json::parse(f);
  ASSERT_EQ(j["bodies"].size(), 1u);
  const auto& b = j["bodies"][0];
  // sphere r = 0.5, core scale 0.6, density 1000, 64^2 atlas
  const double pi = 3.14159265358979;
  const double layer = 4.0 / 3.0 * pi * 0.125 * (1 - 0.216);
  EXPECT_EQ(b["atlas_resolution"], 64);
  EXPECT_EQ(b["patches"], 6);
  EXPECT_EQ(b["nodes"], 6 * 19 * 19);
  EXPECT_NEAR(b["skin_volume"].get<double>(), layer, 0.01 * layer);
  const double mass = b["mass"].get<double>();
  EXPECT_NEAR(mass, 1000 * (b["skin_volume"].get<double>() + b["core_volume"].get<double>()), 1e-9 * mass);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(b["inertia"][k][k].get<double>(), 0.4 * mass * 0.25, 0.02 * 0.4 * mass * 0.25);
  EXPECT_LT(b["stiffness_symmetry_error"].get<double>(), 1e-12);
  EXPECT_GT(b["stiffness_min_eigenvalue"].get<double>(), 0.0);
  EXPECT_EQ(b["incomplete_neighbourhoods"], 0);
  EXPECT_EQ(b["surface_watertight"], true);
  EXPECT_GT(b["tets"].get<int>(), 0);
  EXPECT_TRUE(b.contains("bake_ms"));
}

// --export-obj writes the first body's surface; the file is a closed mesh whose
// volume is the sphere's (to the mesh's resolution), and it loads back as a body.
TEST(Cli, ExportObjWritesTheFirstBodyAsAMeshThatLoadsBack) {
  const std::string out = tempFile("ball.obj", "");
  const std::string scenes = std::string(D2T_TEST_DATA) + "/../../scenes/";
  Result r = run(scenes + "ball_drop.json --resolution 32 --export-obj " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("triangles"), std::string::npos) << r.out;
  std::ifstream f(out);
  std::string line;
  std::vector<std::array<double, 3>> v;
  int faces = 0;
  while (std::getline(f, line)) {
    std::array<double, 3> p{};
    if (std::sscanf(line.c_str(), "v %lf %lf %lf", &p[0], &p[1], &p[2]) == 3) v.push_back(p);
    faces += line.rfind("f ", 0) == 0;
  }
  ASSERT_GT(v.size(), 100u);
  EXPECT_GT(faces, 200);
  for (const auto& p : v) EXPECT_NEAR(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 0.5, 1e-6);
  // a scene loading it runs
  const std::string scene = tempFile(
      "from_obj.json", R"({"bodies": [{"name": "b", "shape": {"type": "obj", "path": "ball.obj"},
                                       "atlas": {"resolution": 16}}]})");
  r = run(scene + " --headless --frames 2");
  EXPECT_EQ(r.code, 0) << r.out;
  // a scene without bodies has nothing to export
  const std::string empty = tempFile("empty.json", R"({"bodies": []})");
  r = run(empty + " --export-obj " + tempFile("none.obj", ""));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("at least one body"), std::string::npos) << r.out;
}

// --mesh-report: what the loader sees in a file and what each use makes of it; a closed banana
// is a mesh body on the general layout (re-meshed), the open stairs a double-sided collider that
// no repair makes one body of; a file that cannot be read exits 1 naming it.
TEST(Cli, MeshReportSaysWhatEachUseMakesOfAFile) {
  const std::string assets = std::string(D2T_TEST_DATA) + "/../../assets/";
  Result r = run("--mesh-report " + assets + "banana.obj");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("pieces: 1 (1 closed, 0 open)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as a soft body (1500 nodes unless the scene says): yes, on the general surface layout "
                       "(not star-shaped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("banana.obj: closed; re-meshed to 15"), std::string::npos) << r.out;
  r = run("--mesh-report " + assets + "stairs.obj");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("boundary edges: 28 (1 hole or rim)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("66 double-sided (open pieces)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as a soft body (1500 nodes unless the scene says): no: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("separate pieces"), std::string::npos) << r.out;
  r = run("--mesh-report /nonexistent/model.obj");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/model.obj: cannot open file"), std::string::npos) << r.out;
}

// The report's soft-body line says what a scene would do with the file: "yes" exactly when a
// body of it at the same node count loads (its layer baked), for other people's models
// (assimp-testmodels: ./test.sh installs it) and ours.
TEST(Cli, MeshReportAgreesWithTheSceneOnASoftBody) {
  std::vector<std::string> models = {std::string(D2T_TEST_DATA) + "/../../assets/banana.obj"};
  for (const char* m : {"spider.obj", "WusonOBJ.obj"})
    if (std::filesystem::exists(std::string("/usr/share/assimp/models/OBJ/") + m))
      models.push_back(std::string("/usr/share/assimp/models/OBJ/") + m);
  for (const std::string& path : models) {
    const Result r = run("--mesh-report " + path);
    ASSERT_EQ(r.code, 0) << r.out;
    const bool yes = r.out.find("as a soft body (1500 nodes unless the scene says): yes") != std::string::npos;
    const std::string scene = tempFile("one_mesh.json", "{ \"bodies\": [ { \"name\": \"m\", \"shape\": { \"type\": "
                                                        "\"obj\", \"path\": \"" + path + "\" } } ] }");
    const Result load = run(scene + " --headless --frames 1");
    std::printf("%s: the report says %s, the scene %s\n", path.c_str(), yes ? "yes" : "no",
                load.code == 0 ? "loads" : "is refused");
    EXPECT_EQ(yes, load.code == 0) << r.out << "\n" << load.out;
  }
}
