// The joints' and bones' names of the scenes' character models (scene.h): the scene reader
// checks names against them (and the fuzz target builds this file with the readers).
#include <algorithm>

#include "sim/character/deer_rig.h"
#include "sim/scene/scene.h"

namespace d2t {

namespace {
// the bones of a model named "bone0", "bone1", ... (a mesh body's one bone has no joint)
int boneCount(const CharacterSpec& c) {
  if (c.model == "mesh") return std::max<int>(1, int(c.medial.bones.size()));
  return c.model == "snake" ? 16 : c.bones;
}
}  // namespace

std::vector<std::string> characterJointNames(const CharacterSpec& c) {
  std::vector<std::string> names;
  if (c.model == "deer") {
    names = deerBoneNames();
    names.erase(names.begin());  // (the root has no joint)
  } else {
    for (int b = 1; b < boneCount(c); ++b) names.push_back("bone" + std::to_string(b));
  }
  return names;
}

std::vector<std::string> characterBoneNames(const CharacterSpec& c) {
  if (c.model == "deer") return deerBoneNames();
  if (c.model == "mesh" && c.medial.bones.empty()) return {"core"};
  std::vector<std::string> names;
  for (int b = 0; b < boneCount(c); ++b) names.push_back("bone" + std::to_string(b));
  return names;
}

}  // namespace d2t
