// The inputs the fuzz targets found faults with (tests/fuzz/regressions/, issues 26 and 30)
// are refused with a clean InputError naming the file, or load: never a crash, a
// hang or another exception. Scenes are read from a temp directory holding the
// mesh.obj that fuzz_scene provides (a scene there names it by relative path).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/scene/obj_loader.h"
#include "sim/scene/scene.h"
#include "sim/world/recording.h"
#include "test_shapes.h"

using namespace d2t;
namespace fs = std::filesystem;

namespace {

fs::path regressions(const std::string& kind) {
  return fs::path(D2T_TEST_DATA).parent_path() / "fuzz" / "regressions" / kind;
}

// "" when `load` succeeds, else the InputError's message (any other exception fails the test)
template <class Load>
std::string errorOf(Load load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FuzzRegressions, ScenesLoadOrNameTheFile) {
  const fs::path dir = fs::temp_directory_path() / "d2t_fuzz_regressions_scene";
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeObj(test::octahedron(0.5), (dir / "mesh.obj").string(), "fuzz_scene's mesh.obj");
  int n = 0;
  for (const auto& e : fs::directory_iterator(regressions("scene"))) {
    const fs::path copy = dir / "scene.json";
    fs::copy_file(e.path(), copy, fs::copy_options::overwrite_existing);
    const std::string m = errorOf([&] { loadScene(copy.string()); });
    if (!m.empty()) {
      EXPECT_EQ(m.rfind(copy.string() + ":", 0), 0u) << e.path() << ": " << m;
    }
    ++n;
  }
  EXPECT_GE(n, 1);
  fs::remove_all(dir);
}

TEST(FuzzRegressions, ObjFilesLoadOrNameTheFile) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(regressions("obj"))) {
    const std::string path = e.path().string();
    const std::string m = errorOf([&] { makeMeshShape(loadObj(path), path); });
    if (!m.empty()) {
      EXPECT_EQ(m.rfind(path + ":", 0), 0u) << m;
    }
    ++n;
  }
  EXPECT_GE(n, 1);
}

TEST(FuzzRegressions, RecordingsLoadOrNameTheFile) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(regressions("recording"))) {
    const std::string path = e.path().string();
    const std::string m = errorOf([&] { readRecording(path); });
    if (!m.empty()) {
      EXPECT_EQ(m.rfind(path + ":", 0), 0u) << m;
    }
    ++n;
  }
  EXPECT_GE(n, 1);
}

TEST(FuzzRegressions, EachFindingHasItsMessage) {
  const fs::path dir = fs::temp_directory_path() / "d2t_fuzz_regressions_json";
  fs::create_directories(dir);
  const fs::path copy = dir / "scene.json";
  fs::copy_file(regressions("scene") / "number_overflow.json", copy,
                fs::copy_options::overwrite_existing);
  // a number beyond a double: file:line:column, what was expected and the literal
  EXPECT_EQ(errorOf([&] { loadScene(copy.string()); }),
            copy.string() + ":15:61: malformed JSON: expected a number within the range of a double "
                            "(|x| < 1.8e308), got 1e3000");
  fs::remove_all(dir);
  // lines ended by a lone "\r" (split by tinyobjloader, once not by the syntax pass): the
  // pass now sees them, and refuses a bad number where it used to reach the weld as inf
  const std::string cr = (regressions("obj") / "float_overflow_weld.obj").string();
  EXPECT_EQ(errorOf([&] { loadObj(cr); }).rfind(cr + ":100: parse error: expected a number", 0), 0u);
  // coordinates whose extent or volume would overflow
  const std::string big = (regressions("obj") / "huge_coordinate.obj").string();
  EXPECT_EQ(errorOf([&] { loadObj(big); }),
            big + ": vertex 1: expected coordinates with |x| <= 1e12, got (1e+300, 0, 0)");
  // "vw 9999...9 0 0" (an int overflow inside tinyobjloader): only v and f lines reach it
  const std::string vw = (regressions("obj") / "vw_joint_overflow.obj").string();
  EXPECT_EQ(errorOf([&] { loadObj(vw); }), vw + ": no triangles");
  // a face index beyond a 64-bit integer (strtol's LONG_MIN was negated)
  const std::string face = (regressions("obj") / "face_index_overflow.obj").string();
  EXPECT_EQ(errorOf([&] { loadObj(face); }),
            face + ":8: vertex index out of range: -3333333333333333333333333333333 (beyond a 64-bit "
                   "integer)");
  // "mtllib /dev/zero": materials are not read (it hung before); the octahedron loads
  EXPECT_EQ(errorOf([&] { loadObj((regressions("obj") / "mtllib_dev_zero.obj").string()); }), "");
  // a directory is not a mesh
  const std::string folder = regressions("obj").string();
  EXPECT_EQ(errorOf([&] { loadObj(folder); }), folder + ": not a regular file, expected an OBJ file");
}
