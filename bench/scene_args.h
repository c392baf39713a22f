#pragma once
// The command line of the bench programs that run a scene at several atlas resolutions:
// [scene.json] [resolutions...], each resolution a power of two in [16, 1024].
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace d2t::bench {

struct SceneArgs {
  std::string scene;             ///< the scene file
  std::vector<int> resolutions;  ///< the atlases to run
};

/// The scene and resolutions of argv (the defaults where none is given), or nothing
/// after a message on stderr naming the program and the bad argument.
inline std::optional<SceneArgs> parseSceneArgs(int argc, char** argv, const char* program, std::string scene,
                                               std::vector<int> defaults) {
  SceneArgs a{std::move(scene), {}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".json") == 0) {
      a.scene = arg;
      continue;
    }
    const int r = std::atoi(arg.c_str());
    if (r < 16 || r > 1024 || (r & (r - 1))) {
      std::fprintf(stderr, "%s: %s: expected a scene .json or a power of two in [16, 1024]\n", program, argv[i]);
      return std::nullopt;
    }
    a.resolutions.push_back(r);
  }
  if (a.resolutions.empty()) a.resolutions = std::move(defaults);
  return a;
}

}  // namespace d2t::bench
