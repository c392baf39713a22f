#pragma once
// What reaches a running World from outside its scene file: the mouse's drags, a panel's
// material and settings. A run is a pure function of the scene and the list of these, each
// at the step it came before (issue 30: a recording replays bit for bit; a timeline
// re-simulates the future of an edit).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scene/scene.h"

namespace d2t {

class World;

struct WorldInput {
  enum class Kind {
    ColliderDrag,     ///< collider `index` moved to `target` over `dt` (Collider::dragTo; dt 0: placed at rest)
    ColliderRelease,  ///< collider `index` let go (Collider::endDrag)
    SkinDrag,         ///< body `index`'s node `node` pulled toward `target` (World::beginSkinDrag)
    CharacterDrag,    ///< character `index`'s node `node` pulled toward `target` (World::beginCharacterDrag)
    DragMove,         ///< the pulled node's target moved to `target` (World::moveSkinDrag)
    DragEnd,          ///< the pulled node let go (World::endSkinDrag)
    Material,         ///< body `index` given `material` (World::setMaterial)
    Settings,         ///< the world's SimulationSettings replaced by `settings`
    Metaphors,        ///< the world's control metaphors replaced by `metaphors` (World::setMetaphors)
    Pose,             ///< body `index`'s morph targets: `pose` held (empty: the track), on or `morphOn` off (World::setPoseControl)
  };
  Kind kind = Kind::DragEnd;
  int index = -1;
  int node = -1;
  Vec3 target = Vec3::Zero();
  double dt = 0;
  d2t::Material material;
  SimulationSettings settings;
  std::vector<MetaphorDesc> metaphors;
  std::vector<double> pose;
  bool morphOn = true;

  bool operator==(const WorldInput&) const = default;

  /// An input of kind k with the fields a drag gives (the others at their defaults).
  static WorldInput make(Kind k, int index = -1, int node = -1, const Vec3& target = Vec3::Zero(), double dt = 0) {
    WorldInput in;
    in.kind = k;
    in.index = index;
    in.node = node;
    in.target = target;
    in.dt = dt;
    return in;
  }
};

/// An input and the step it came at: applied when the world is at this step (before
/// step + 1).
struct TimedInput {
  long step = 0;
  WorldInput input;
  bool operator==(const TimedInput&) const = default;
};

/// Applies one input to the world as the front end's call did. Throws std::out_of_range
/// for an index or node the world does not have, InputError for an invalid material.
void applyInput(World& world, const WorldInput& input);

/// The input as JSON ({"type": "skin_drag", "body": 0, "node": 12, "target": [..]}, ...),
/// every double written so that it reads back to the same bits.
nlohmann::json toJson(const WorldInput& input);
/// Reads one back; InputError naming the file, the field and what was expected.
WorldInput readWorldInput(const nlohmann::json& node, const std::string& file, const std::string& path);

/// A one-line description for the timeline's list ("step 120: skin drag, body 0 node 12").
std::string describe(const WorldInput& input);

}  // namespace d2t
