// libFuzzer target of the OBJ reader (issue 26): the input is an OBJ file. loadObj
// must return a closed, outward mesh or throw d2t::InputError naming the file (and
// the line, for syntax errors), as the app expects (src/app/app.cpp turns an
// InputError into "d2tsim: MESSAGE", exit code 1). An accepted mesh becomes a shape
// as in a scene (star test, BVH, ray-cast radius). Any other exception, a crash, a
// sanitizer report or a hang is a finding.
//   build: tests/fuzz/CMakeLists.txt (-DD2T_FUZZ=ON, clang); run: see ./test.sh
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "sim/base/json_reader.h"
#include "sim/scene/obj_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace d2t;
  const std::string path = (fuzz::tempDir() / "mesh.obj").string();
  fuzz::writeFile(path, data, size);
  try {
    ShapePtr shape = makeMeshShape(loadObj(path), path);
    (void)shape->notDeformableReason();
    (void)shape->signedDistance(Vec3(0.1, 0.2, 0.3));
    if (shape->topology() == ShapeTopology::Star)
      for (const Vec3& d : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.6, 0, -0.8)}) (void)shape->radius(d);
  } catch (const InputError& e) {
    fuzz::expectNamesFile(e.what(), path);
  }
  return 0;
}
