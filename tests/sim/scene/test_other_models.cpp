// Other people's models (issue 33): every OBJ of Debian's assimp-testmodels set (./test.sh
// installs it) loads as a rigid collider or is refused with a message naming the file, and
// the set's two real models, an open character of 51 pieces (WusonOBJ.obj) and a spider of 18
// pieces with holes (spider.obj), close into soft bodies on medial-axis skeletons that bake,
// fall and rest on the ground with no reset.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/base/json_reader.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

namespace fs = std::filesystem;
const char* kModels = "/usr/share/assimp/models/OBJ";

TEST(OtherPeoplesModels, EveryFileIsAColliderOrRefusedNamingIt) {
  if (!fs::exists(kModels)) GTEST_SKIP() << kModels << " missing (the assimp-testmodels package: ./test.sh installs it)";
  int loaded = 0, refused = 0;
  for (const auto& e : fs::directory_iterator(kModels)) {
    if (e.path().extension() != ".obj") continue;
    const std::string path = e.path().string();
    nlohmann::json j = {{"colliders", {{{"name", "model"}, {"type", "mesh"},
                                        {"shape", {{"type", "obj"}, {"path", path}}}}}}};
    try {
      World w(parseScene(j, "models.json"));
      EXPECT_GE(w.colliders()[0].pieces().size(), 1u) << path;
      ++loaded;
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find(path), std::string::npos) << err.what();
      ++refused;
    }
  }
  std::printf("%s: %d files load as colliders, %d refused naming the file\n", kModels, loaded, refused);
  EXPECT_GE(loaded, 15);
}

TEST(OtherPeoplesModels, TheSpiderAndTheCharacterAreSoftBodiesOnTheirMedialAxes) {
  if (!fs::exists(kModels)) GTEST_SKIP() << kModels << " missing (the assimp-testmodels package: ./test.sh installs it)";
  struct Model {
    const char* file;
    double scale;
    int nodes;
  };
  for (const Model& m : {Model{"spider.obj", 0.005, 1500}, Model{"WusonOBJ.obj", 0.5, 2000}}) {
    const std::string path = std::string(kModels) + "/" + m.file;
    nlohmann::json j = {
        {"bodies", {{{"name", "model"}, {"shape", {{"type", "obj"}, {"path", path}, {"scale", m.scale}}},
                     {"mesh", {{"nodes", m.nodes}}}, {"skeleton", {{"from", "medial_axis"}, {"bones", 8}}},
                     {"material", {{"young", 1e5}, {"friction", 0.6}}}, {"position", {0, 0.6, 0}}}}},
        {"colliders", {{{"name", "ground"}, {"type", "plane"}}}}};
    World w(parseScene(j, "models.json"));
    ASSERT_EQ(w.characters().size(), 1u) << m.file;
    const Character& c = w.characters()[0];
    EXPECT_NE(c.spec.repair.find("closed by a winding-number repair"), std::string::npos) << c.spec.repair;
    EXPECT_GE(c.model->boneCount(), 4) << c.spec.repair;
    for (int n = 0; n < 300; ++n) w.step(0.005);
    const double lowest = c.stats.minHeight;
    std::printf("%s: %s; %d bones; after 1.5 s: centre of mass at %.3f m, lowest node %.1f mm, %d resets\n", m.file,
                c.spec.repair.c_str(), c.model->boneCount(), c.body->centreOfMass().y(), 1e3 * lowest, c.stats.resets);
    EXPECT_EQ(c.stats.resets, 0) << m.file;
    EXPECT_GT(c.body->centreOfMass().y(), 0.0) << m.file;
    EXPECT_GT(lowest, -2e-3) << m.file;
  }
}

}  // namespace
}  // namespace d2t
