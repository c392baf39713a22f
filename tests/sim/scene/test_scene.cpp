// Scene files: every class of error names the file, the JSON path, what was
// expected and what was found; valid scenes load with their values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/scene/scene.h"

using namespace d2t;

namespace {

// A minimal valid scene; tests patch one field at a time.
nlohmann::json validScene() {
  return nlohmann::json::parse(R"({
    "description": "test",
    "simulation": { "dt": 0.005, "gravity": [0, -9.81, 0], "backend": "cpu",
                    "solver": { "iterations": 50, "tolerance": 1e-6 } },
    "bodies": [ { "name": "ball",
                  "shape": { "type": "sphere", "radius": 0.5 },
                  "core": { "scale": 0.6 },
                  "atlas": { "resolution": 64 },
                  "material": { "young": 5e4, "poisson": 0.3, "density": 1000,
                                "damping": [0.1, 0.01], "friction": 0.5, "restitution": 0.2 },
                  "position": [0, 1, 0], "orientation": [1, 0, 0, 0],
                  "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0] } ],
    "colliders": [ { "name": "ground", "type": "plane", "normal": [0, 1, 0], "offset": 0 } ],
    "camera": { "eye": [2, 2, 2], "target": [0, 0, 0] } })");
}

// The error message of parsing `j`, or "" when it parses.
std::string errorOf(const nlohmann::json& j) {
  try {
    parseScene(j, "scene.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Scene, ValidSceneLoadsWithItsValues) {
  const Scene s = parseScene(validScene(), "scene.json");
  ASSERT_EQ(s.bodies.size(), 1u);
  EXPECT_EQ(s.bodies[0].name, "ball");
  EXPECT_EQ(s.bodies[0].atlasResolution, 64);
  EXPECT_DOUBLE_EQ(s.bodies[0].material.young, 5e4);
  EXPECT_DOUBLE_EQ(s.bodies[0].material.alpha, 0.1);
  EXPECT_DOUBLE_EQ(s.bodies[0].material.beta, 0.01);
  EXPECT_DOUBLE_EQ(s.bodies[0].coreScale, 0.6);
  EXPECT_DOUBLE_EQ(s.bodies[0].position.y(), 1.0);
  EXPECT_DOUBLE_EQ(s.simulation.dt, 0.005);
  EXPECT_EQ(s.colliders.size(), 1u);
  EXPECT_EQ(s.colliders[0].type, ColliderType::Plane);
  EXPECT_NEAR(s.bodies[0].shape->radius(Vec3::UnitX()), 0.5, 1e-12);
}

TEST(Scene, OutOfRangeValueNamesFilePathExpectationAndValue) {
  auto j = validScene();
  j["bodies"][0]["material"]["poisson"] = 0.7;
  EXPECT_EQ(errorOf(j), "scene.json: /bodies/0/material/poisson: must be in [0, 0.5), got 0.7");
}

TEST(Scene, NegativeRadiusIsRefused) {
  auto j = validScene();
  j["bodies"][0]["shape"]["radius"] = -1;
  const std::string e = errorOf(j);
  EXPECT_NE(e.find("scene.json: /bodies/0/shape/radius: must be"), std::string::npos) << e;
  EXPECT_NE(e.find("got -1"), std::string::npos) << e;
}

TEST(Scene, UnknownKeysAreErrors) {
  auto j = validScene();
  j["bodies"][0]["material"]["youngs"] = 1e5;  // typo
  const std::string e = errorOf(j);
  EXPECT_NE(e.find("/bodies/0/material/youngs: unknown field"), std::string::npos) << e;
  auto k = validScene();
  k["simulaton"] = nlohmann::json::object();
  EXPECT_NE(errorOf(k).find("/simulaton: unknown field"), std::string::npos);
}

TEST(Scene, WrongTypesAreErrors) {
  auto j = validScene();
  j["simulation"]["dt"] = "fast";
  EXPECT_NE(errorOf(j).find("/simulation/dt: expected in [1e-06, 0.1], got a string \"fast\""),
            std::string::npos)
      << errorOf(j);
  auto k = validScene();
  k["bodies"][0]["position"] = {0, 1};
  EXPECT_NE(errorOf(k).find("/bodies/0/position: expected an array of 3 numbers"), std::string::npos);
  auto m = validScene();
  m["bodies"] = "ball";
  EXPECT_NE(errorOf(m).find("/bodies: expected an array of objects"), std::string::npos);
}

TEST(Scene, ResolutionMustBeAPowerOfTwoInRange) {
  for (int bad : {48, 8, 2048}) {
    auto j = validScene();
    j["bodies"][0]["atlas"]["resolution"] = bad;
    const std::string e = errorOf(j);
    EXPECT_NE(e.find("/bodies/0/atlas/resolution: must be a power of two in [16, 1024], got " +
                     std::to_string(bad)),
              std::string::npos)
        << e;
  }
}

TEST(Scene, EnumsListTheChoices) {
  auto j = validScene();
  j["simulation"]["backend"] = "cuda";
  EXPECT_NE(errorOf(j).find("/simulation/backend: must be one of cpu | gpu, got \"cuda\""),
            std::string::npos);
  auto k = validScene();
  k["colliders"][0]["type"] = "sphere";
  EXPECT_NE(errorOf(k).find("/colliders/0/type: must be one of plane | heightfield | mesh"),
            std::string::npos);
  auto m = validScene();
  m["bodies"][0]["shape"]["type"] = "blob";
  EXPECT_NE(errorOf(m).find("/bodies/0/shape/type: must be one of"), std::string::npos) << errorOf(m);
}

TEST(Scene, MissingRequiredFieldsAndBadVectors) {
  auto j = validScene();
  j["bodies"][0].erase("shape");
  EXPECT_NE(errorOf(j).find("/bodies/0/shape: required field is missing"), std::string::npos);
  auto k = validScene();
  k["colliders"][0]["normal"] = {0, 0, 0};
  EXPECT_NE(errorOf(k).find("/colliders/0/normal: must be a non-zero vector"), std::string::npos);
  auto m = validScene();
  m["bodies"][0]["orientation"] = {0, 0, 0, 0};
  EXPECT_NE(errorOf(m).find("/bodies/0/orientation: quaternion must have non-zero length"),
            std::string::npos);
  auto n = validScene();
  n["bodies"][0]["velocity"] = {0, "x", 0};
  EXPECT_NE(errorOf(n).find("/bodies/0/velocity/1: expected a finite number"), std::string::npos);
}

TEST(Scene, CoreSpringsLoadWithTheirValuesAndBadOnesNameTheField) {
  auto j = validScene();
  j["bodies"][0]["springs"] = nlohmann::json::parse(R"([
    { "point": [0, -0.2, 0], "stiffness": 5e3, "damping": 40 },
    { "point": [0.1, 0, 0], "frame": "body", "anchor": [0, 3, 0], "stiffness": 1e4, "rest_length": 0.5 } ])");
  const Scene s = parseScene(j, "scene.json");
  ASSERT_EQ(s.bodies[0].springs.size(), 2u);
  const CoreSpringDesc &a = s.bodies[0].springs[0], &b = s.bodies[0].springs[1];
  EXPECT_EQ(a.frame, SpringFrame::Shape);
  EXPECT_FALSE(a.hasAnchor);
  EXPECT_DOUBLE_EQ(a.point.y(), -0.2);
  EXPECT_DOUBLE_EQ(a.stiffness, 5e3);
  EXPECT_DOUBLE_EQ(a.damping, 40);
  EXPECT_EQ(b.frame, SpringFrame::Body);
  EXPECT_TRUE(b.hasAnchor);
  EXPECT_DOUBLE_EQ(b.anchor.y(), 3);
  EXPECT_DOUBLE_EQ(b.restLength, 0.5);
  auto bad = [&](const char* spring) {
    auto k = validScene();
    k["bodies"][0]["springs"] = nlohmann::json::array({nlohmann::json::parse(spring)});
    return errorOf(k);
  };
  EXPECT_EQ(bad(R"({ "point": [0, 0, 0] })"), "scene.json: /bodies/0/springs/0/stiffness: required field is missing");
  EXPECT_NE(bad(R"({ "point": [0, 0, 0], "stiffness": -5 })").find("/bodies/0/springs/0/stiffness: must be in (0, "),
            std::string::npos)
      << bad(R"({ "point": [0, 0, 0], "stiffness": -5 })");
  EXPECT_NE(bad(R"({ "stiffness": 5 })").find("/bodies/0/springs/0/point: required field is missing"),
            std::string::npos);
  EXPECT_NE(bad(R"({ "point": [0, 0, 0], "stiffness": 5, "damping": -1 })").find("/springs/0/damping: must be in [0, "),
            std::string::npos);
  EXPECT_NE(bad(R"({ "point": [0, 0, 0], "stiffness": 5, "frame": "world" })")
                .find("/springs/0/frame: must be one of shape | body, got \"world\""),
            std::string::npos);
  EXPECT_NE(bad(R"({ "point": [0, 0, 0], "stiffness": 5, "rest_length": 0.1 })")
                .find("/springs/0/rest_length: a spring with a rest length needs an explicit \"anchor\""),
            std::string::npos);
  EXPECT_NE(bad(R"({ "point": [0, 0, 0], "stiffness": 5, "anchr": [0, 1, 0] })").find("/springs/0/anchr: unknown field"),
            std::string::npos);
  EXPECT_NE(bad(R"({ "point": [0, 0], "stiffness": 5 })").find("/springs/0/point: expected an array of 3 numbers"),
            std::string::npos);
}

TEST(Scene, DuplicateNamesAreErrors) {
  auto j = validScene();
  j["colliders"][0]["name"] = "ball";
  EXPECT_NE(errorOf(j).find("duplicate name \"ball\""), std::string::npos);
}

TEST(Scene, KeyframesMustIncreaseInTime) {
  auto j = validScene();
  j["colliders"].push_back(nlohmann::json::parse(R"({"name": "fist", "type": "mesh",
      "shape": {"type": "sphere", "radius": 0.2},
      "keyframes": [{"time": 1, "position": [0,0,0]}, {"time": 0.5, "position": [1,0,0]}]})"));
  EXPECT_NE(errorOf(j).find("/colliders/1/keyframes/1/time: keyframe times must increase"),
            std::string::npos)
      << errorOf(j);
}

TEST(Scene, MalformedJsonAndMissingFileNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "d2t_scene_test";
  std::filesystem::create_directories(dir);
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\n  \"bodies\": [\n    { \"name\": \"x\", }\n  ]\n}\n";
  try {
    loadScene(bad);
    FAIL() << "malformed JSON accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(bad + ":3:", 0), 0u) << m;  // file:line of the error
    EXPECT_NE(m.find("malformed JSON"), std::string::npos) << m;
  }
  try {
    loadScene((dir / "nope.json").string());
    FAIL() << "missing file accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.json: scene file not found"), std::string::npos);
  }
}

// Every shipped scene loads with at least one body, and each
// "_high" scene is its base scene with larger atlases and nothing else changed (the
// headless tests run the _high scenes at the base's resolution and rely on it).
TEST(Scene, ShippedScenesAllLoad) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes";
  int n = 0, high = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++n;
    Scene sc;
    ASSERT_NO_THROW(sc = loadScene(e.path().string())) << e.path();
    EXPECT_GE(sc.bodies.size() + sc.characters.size(), 1u) << e.path();
    const std::string stem = e.path().stem().string();
    if (stem.size() < 5 || stem.substr(stem.size() - 5) != "_high") continue;
    ++high;
    const fs::path base = dir / (stem.substr(0, stem.size() - 5) + ".json");
    ASSERT_TRUE(fs::exists(base)) << e.path() << " has no base scene";
    const Scene lo = loadScene(base.string());
    ASSERT_EQ(lo.bodies.size(), sc.bodies.size()) << stem;
    for (size_t b = 0; b < sc.bodies.size(); ++b)
      EXPECT_GT(sc.bodies[b].atlasResolution, lo.bodies[b].atlasResolution) << stem << " body " << b;
    // the files equal once the descriptions and the atlas resolutions are taken out
    auto strip = [](nlohmann::json j) {
      j.erase("description");
      for (nlohmann::json& body : j["bodies"])
        if (body.contains("atlas")) body["atlas"].erase("resolution");
      return j;
    };
    std::ifstream a(e.path()), b(base);
    EXPECT_EQ(strip(nlohmann::json::parse(a, nullptr, true, true)), strip(nlohmann::json::parse(b, nullptr, true, true)))
        << stem << " differs from its base in more than the atlas resolution";
  }
  EXPECT_EQ(n, 39);
  EXPECT_EQ(high, 6);
}
