// The Bodies panel's characters: each one's skeleton as a tree of bones, its joints' angles
// live, per-joint spring stiffness and damping, and a pose editor (a joint's target
// rotation, which the character follows through its joint spring).

#include <cmath>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/panels/panels.h"

namespace d2t {

namespace {

constexpr float kDeg = float(180 / kPi);

// Bone b's row and its joint's controls, then its children's.
void boneNode(Character& c, int b, const std::vector<int>& jointOf, const std::vector<std::vector<int>>& children) {
  const Skeleton& sk = c.model->skeleton;
  const int j = jointOf[size_t(b)];
  ImGui::PushID(b);
  char label[160];
  if (j >= 0)
    std::snprintf(label, sizeof label, "%s  (%s, %.1f deg)", sk.bones[size_t(b)].name.c_str(),
                  jointTypeName(sk.joints[size_t(j)].type), c.body->jointAngle(j) * kDeg);
  else
    std::snprintf(label, sizeof label, "%s  (root)", sk.bones[size_t(b)].name.c_str());
  const bool leaf = children[size_t(b)].empty();
  // (the root open; a bone opens to its joint's controls and its children)
  const ImGuiTreeNodeFlags flags = (j < 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0) | (leaf ? ImGuiTreeNodeFlags_Leaf : 0);
  if (ImGui::TreeNodeEx("##bone", flags, "%s", label)) {
    if (j >= 0) {
      float k = float(c.body->jointStiffness(j)), d = float(c.body->jointDamping(j));
      bool gains = ImGui::SliderFloat("stiffness [N m/rad]", &k, 0, 1e5f, "%.3g", ImGuiSliderFlags_Logarithmic);
      gains |= ImGui::SliderFloat("damping [N m s/rad]", &d, 0, 1e3f, "%.3g", ImGuiSliderFlags_Logarithmic);
      if (gains) c.setGains(j, std::max(0.0f, k), std::max(0.0f, d));
      // the pose editor: the joint's target as a rotation vector in the body's frame [deg]
      if (c.poseEdit.size() != sk.joints.size()) c.poseEdit.resize(sk.joints.size());
      const Vec3 now = c.poseEdit[size_t(j)] ? *c.poseEdit[size_t(j)] : rotationVector(c.body->jointTarget(j));
      float v[3] = {float(now.x()) * kDeg, float(now.y()) * kDeg, float(now.z()) * kDeg};
      if (ImGui::SliderFloat3("target [deg]", v, -180, 180, "%.0f"))
        c.poseEdit[size_t(j)] = Vec3(v[0], v[1], v[2]) / double(kDeg);
      if (c.poseEdit[size_t(j)]) {
        ImGui::SameLine();
        if (ImGui::SmallButton("keys")) c.poseEdit[size_t(j)].reset();  // back to the keys / rest pose
      }
    }
    for (int child : children[size_t(b)]) boneNode(c, child, jointOf, children);
    ImGui::TreePop();
  }
  ImGui::PopID();
}

}  // namespace

void characterHeaders(Ui& ui) {
  auto& characters = ui.session.world->characters();
  const Pick& pk = ui.picked;
  for (size_t i = 0; i < characters.size(); ++i) {
    Character& c = characters[i];
    const Skeleton& sk = c.model->skeleton;
    ImGui::PushID(int(10000 + i));
    const bool selected = pk.kind == Pick::Kind::Character && pk.index == int(i);
    if (selected && ui.pickChanged) ImGui::SetNextItemOpen(true);
    const std::string header = c.spec.name + " (" + c.spec.model + ", " + std::to_string(sk.boneCount()) + " bones)" +
                               (selected ? "  (selected)" : "") + "###c";
    if (ImGui::CollapsingHeader(header.c_str())) {
      ImGui::Text("%d bones, %zu joints, %d skin nodes, %.1f kg", sk.boneCount(), sk.joints.size(),
                  c.model->nodeCount(), c.model->totalMass);
      ImGui::Text("largest |q| %.1f mm, joint error %.3f mm, %d nodes in contact, resets %d",
                  1000 * c.stats.maxDisplacement, 1000 * c.stats.maxJointError, c.stats.contacts, c.stats.resets);
      bool edited = false;
      for (const auto& e : c.poseEdit) edited = edited || e.has_value();
      if (edited && ImGui::Button("clear the pose edits")) c.poseEdit.assign(sk.joints.size(), std::nullopt);
      ImGui::TextDisabled("drag a target: the joint follows through its spring");
      std::vector<int> jointOf(size_t(sk.boneCount()), -1);
      std::vector<std::vector<int>> children(size_t(sk.boneCount()));
      for (size_t j = 0; j < sk.joints.size(); ++j) {
        jointOf[size_t(sk.joints[j].child)] = int(j);
        if (sk.joints[j].parent >= 0) children[size_t(sk.joints[j].parent)].push_back(sk.joints[j].child);
      }
      for (int b = 0; b < sk.boneCount(); ++b)
        if (jointOf[size_t(b)] < 0 || sk.joints[size_t(jointOf[size_t(b)])].parent < 0) boneNode(c, b, jointOf, children);
    }
    ImGui::PopID();
  }
}

}  // namespace d2t
