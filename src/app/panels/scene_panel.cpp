// The Scene panel: the scene file and its description, the scene picker, reload, what the
// load did to its meshes, and adding a mesh (an OBJ: a soft body or a collider).

#include "app/panels/panels.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/app.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

namespace {

// Open mesh: an OBJ (typed, picked from assets/, or dropped on the window) added as a soft
// body or a rigid collider where the next click meets the scene.
void meshAdder(Ui& ui) {
  if (!ImGui::CollapsingHeader("Add a mesh", ImGuiTreeNodeFlags_DefaultOpen)) return;
  char path[1024];
  std::snprintf(path, sizeof path, "%s", ui.meshPath.c_str());
  if (ImGui::InputText("OBJ file", path, sizeof path)) ui.meshPath = path;
  if (ImGui::BeginCombo("assets", "choose a mesh...")) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(sceneDirectory()).parent_path() / "assets", ec))
      if (e.path().extension() == ".obj") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files)
      if (ImGui::Selectable(f.filename().string().c_str())) ui.meshPath = f.string();
    ImGui::EndCombo();
  }
  if (ImGui::RadioButton("soft body", ui.meshAsBody)) ui.meshAsBody = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("rigid collider", !ui.meshAsBody)) ui.meshAsBody = false;
  if (ui.meshAsBody) {
    ImGui::SliderInt("nodes", &ui.meshNodes, 200, 6000, "%d", ImGuiSliderFlags_Logarithmic);
    bool skeleton = ui.meshBones > 0;
    if (ImGui::Checkbox("bones along its medial axis", &skeleton)) ui.meshBones = skeleton ? 4 : 0;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("a skeleton from the shape's medial axis (a chain for a banana, a tree for a spider),\n"
                        "its bones joined by sprung ball joints; else one rigid core");
    if (skeleton) ImGui::SliderInt("bones", &ui.meshBones, 1, 24);
  }
  ImGui::BeginDisabled(ui.meshPath.empty());
  if (ImGui::Button(ui.placingMesh ? "click in the scene... (Esc: cancel)" : "Place it (then click in the scene)"))
    ui.placeMesh(ui.meshPath);
  ImGui::EndDisabled();
  ImGui::TextDisabled("(or drop an OBJ file on the window)");
  if (!ui.meshReport.empty()) ImGui::TextWrapped("%s", ui.meshReport.c_str());
}

}  // namespace

void scenePanel(Ui& ui) {
  if (!placeInColumn(ui, 0)) return;
  if (!ImGui::Begin("Scene", &ui.settings.panels.scene)) return ImGui::End();
  markColumn(ui);
  ImGui::TextWrapped("%s", ui.session.scenePath.c_str());
  const std::string& d = ui.session.world->scene().description;
  if (!d.empty()) ImGui::TextWrapped("%s", d.c_str());
  if (ImGui::BeginCombo("open", "choose a scene...")) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sceneDirectory(), ec))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files)
      if (ImGui::Selectable(f.filename().string().c_str())) ui.loadScene(f.string());
    ImGui::EndCombo();
  }
  if (ImGui::Button("Reload")) ui.loadScene(ui.session.scenePath);
  ImGui::SameLine();
  if (ImGui::Button("Reset camera")) ui.resetCamera();
  if (!ui.loadError.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", ui.loadError.c_str());
  for (const std::string& n : ui.session.loadNotes) ImGui::TextWrapped("%s", n.c_str());
  meshAdder(ui);
  ImGui::End();
}

}  // namespace d2t
