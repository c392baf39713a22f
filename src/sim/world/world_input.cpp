// A World's inputs from outside its scene (world_input.h): applied to the world (their
// JSON is in world_input_json.cpp, which the readers' fuzz target builds without a World).
#include "sim/world/world_input.h"

#include <stdexcept>

#include "sim/world/world.h"

namespace d2t {

namespace {

using Kind = WorldInput::Kind;

Collider& colliderAt(World& w, int index) {
  if (index < 0 || size_t(index) >= w.colliders().size())
    throw std::out_of_range("input: the world has no collider " + std::to_string(index));
  return w.colliders()[size_t(index)];
}

}  // namespace

void applyInput(World& w, const WorldInput& in) {
  switch (in.kind) {
    case Kind::ColliderDrag:
      colliderAt(w, in.index).dragTo(in.target, in.dt);
      return;
    case Kind::ColliderRelease:
      colliderAt(w, in.index).endDrag();
      return;
    case Kind::SkinDrag:
      w.beginSkinDrag(size_t(in.index), in.node, in.target);
      return;
    case Kind::CharacterDrag:
      w.beginCharacterDrag(size_t(in.index), in.node, in.target);
      return;
    case Kind::DragMove:
      w.moveSkinDrag(in.target);
      return;
    case Kind::DragEnd:
      w.endSkinDrag();
      return;
    case Kind::Material:
      if (in.index < 0 || size_t(in.index) >= w.bodies().size())
        throw std::out_of_range("input: the world has no body " + std::to_string(in.index));
      w.setMaterial(size_t(in.index), in.material);
      return;
    case Kind::Settings: {
      const std::string backend = w.settings().backend;  // (the front end's, not the run's)
      const bool gravity = !(w.settings().gravity == in.settings.gravity);
      w.settings() = in.settings;
      w.settings().backend = backend;
      if (gravity) w.rebaseEnergy();  // the potential energy's reference changed (as the panel does)
      return;
    }
    case Kind::Metaphors:
      w.setMetaphors(in.metaphors);
      return;
    case Kind::Pose:
      if (in.index < 0 || size_t(in.index) >= w.bodies().size())
        throw std::out_of_range("input: the world has no body " + std::to_string(in.index));
      w.setPoseControl(size_t(in.index), PoseControl{in.morphOn, in.pose});
      return;
  }
}

}  // namespace d2t
