// libFuzzer target of the scene reader (issue 26): the input is a scene file.
// loadScene must return a validated Scene or throw d2t::InputError
// "FILE: /json/path: expected ..., got ..." (src/app/app.cpp prints it and exits
// with code 1). Each shape it accepts is then queried as the bake would (radius,
// surface point, distance, a coarse mesh), cheaply. Any other exception, a crash, a
// sanitizer report or a hang is a finding.
//
// Scenes name OBJ files by path relative to the scene: the scene is written to a
// private temp directory holding one small valid mesh, mesh.obj. An input whose
// "path" is absolute or climbs out with ".." is skipped, so that the fuzzer cannot
// wander into /dev or large system files (slow, and not the reader's fault). So is one that
// asks for a mesh body of more than kMostNodes nodes: the reader meshes a solid shape at the
// node count asked (cost ~ nodes^1.5 on the grid; 200,000 nodes take 6 s in a release build,
// a minute instrumented), which is work asked for, not a hang.
//   build: tests/fuzz/CMakeLists.txt (-DD2T_FUZZ=ON, clang); run: see ./test.sh
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_util.h"
#include "sim/scene/scene.h"

namespace {

using namespace d2t;

// a regular octahedron of radius 0.5: closed, outward, star-shaped about its centre
constexpr char kMeshObj[] =
    "v 0.5 0 0\nv -0.5 0 0\nv 0 0.5 0\nv 0 -0.5 0\nv 0 0 0.5\nv 0 0 -0.5\n"
    "f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\nf 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n";

constexpr double kMostNodes = 3000;

/// True when some "path" string would leave the temp directory, or some "nodes" asks for
/// more than kMostNodes.
bool skipped(const nlohmann::json& root) {
  std::vector<const nlohmann::json*> stack = {&root};
  while (!stack.empty()) {
    const nlohmann::json* v = stack.back();
    stack.pop_back();
    if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it) {
        if (it.key() == "path" && it->is_string()) {
          const std::filesystem::path p(it->get<std::string>());
          if (p.is_absolute()) return true;
          for (const auto& part : p)
            if (part == "..") return true;
        }
        if (it.key() == "nodes" && it->is_number() && it->get<double>() > kMostNodes) return true;
        stack.push_back(&*it);
      }
    } else if (v->is_array()) {
      for (const auto& e : *v) stack.push_back(&e);
    }
  }
  return false;
}

// what the bake asks of a shape, at a few points
void query(const Shape& s) {
  (void)s.boundingRadius();
  (void)s.normal(Vec3(0.1, 0.2, 0.3));
  (void)s.notDeformableReason();
  switch (s.topology()) {
    case ShapeTopology::Star:
      for (const Vec3& d : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.6, 0, -0.8)}) (void)s.radius(d);
      (void)s.mesh(4);
      break;
    case ShapeTopology::Torus:
      (void)s.surfacePoint(0.1, 0.7);
      (void)s.coreAnchor(Vec3(0.3, 0.1, 0.2));
      (void)s.mesh(4);
      break;
    case ShapeTopology::Solid: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool assets = [] {
    fuzz::writeFile(fuzz::tempDir() / "mesh.obj", kMeshObj, sizeof(kMeshObj) - 1);
    return true;
  }();
  (void)assets;
  const nlohmann::json pre = nlohmann::json::parse(data, data + size, nullptr,
                                                   /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (!pre.is_discarded() && skipped(pre)) return -1;  // not added to the corpus

  const std::string path = (fuzz::tempDir() / "scene.json").string();
  fuzz::writeFile(path, data, size);
  try {
    const Scene scene = loadScene(path);
    for (const BodyDesc& b : scene.bodies) {
      query(*b.shape);
      if (b.coreShape) query(*b.coreShape);
      (void)b.materialAt(Vec3(0.1, 0.2, 0.3));
    }
    for (const ColliderDesc& c : scene.colliders)
      if (c.shape) query(*c.shape);
  } catch (const InputError& e) {
    fuzz::expectNamesFile(e.what(), path);
  }
  return 0;
}
