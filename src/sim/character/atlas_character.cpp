// The one-bone character of a baked body (atlas_character.h).
#include "sim/character/atlas_character.h"

#include <algorithm>
#include <map>

namespace d2t {

CharacterModelPtr oneBoneCharacter(const BakedBody& body, const Material& material) {
  const int n = body.nodeCount();
  auto model = std::make_shared<CharacterModel>();
  CharacterModel& m = *model;
  m.name = body.name;
  m.material = material;

  Bone bone;  // (the segment only sets the weights' falloff, and one bone has weight 1 everywhere)
  bone.name = "core";
  double reach = 0;
  for (const Vec3& u : body.restSkin) reach = std::max(reach, u.norm());
  bone.head = Vec3(-0.5 * reach, 0, 0);
  bone.tail = Vec3(0.5 * reach, 0, 0);
  bone.radius = reach;
  bone.bindPosition = Vec3::Zero();  // the body frame: origin at the rigid part's centre of mass
  bone.bindOrientation = Quat::Identity();
  m.skeleton.bones.push_back(bone);
  m.skeleton.validate("body '" + body.name + "' as a character");

  m.restSkin = body.restSkin;
  m.inner = body.core;
  m.triangles = body.atlas.triangles;
  m.nodeMass = body.nodeMass;
  m.tets = body.tets;
  m.tetVolume = body.tetVolume;
  Influences one;
  one.bone[0] = 0;
  one.weight[0] = 1;
  one.count = 1;
  m.influence.assign(size_t(n), one);

  // the atlas's 7 slots as compressed rows: the node itself first, then its neighbours
  // (a slot that repeats a node, or reads none, adds its block to that node's entry)
  m.stencil.start.push_back(0);
  for (int i = 0; i < n; ++i) {
    std::map<int, Mat3> row;
    for (int s = 0; s < kStencilSlots; ++s) {
      const int j = body.atlas.stencil[size_t(i)][size_t(s)];
      if (j < 0) continue;
      auto [it, fresh] = row.try_emplace(j, Mat3::Zero());
      it->second += body.stiffness[size_t(i)][size_t(s)];
    }
    m.stencil.column.push_back(i);
    m.stiffness.push_back(row.count(i) ? row[i] : Mat3::Zero());
    for (const auto& [j, k] : row)
      if (j != i) {
        m.stencil.column.push_back(j);
        m.stiffness.push_back(k);
      }
    m.stencil.start.push_back(int(m.stencil.column.size()));
  }

  m.linkMass = {body.coreMass};
  m.linkInertia = {body.coreInertia};
  m.totalMass = body.totalMass;
  return model;
}

}  // namespace d2t
