// The Scene panel: the scene file and its description, the scene picker, reload.

#include "app/panels/panels.h"

#include <algorithm>
#include <filesystem>

#include "app/app.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

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
  ImGui::End();
}

}  // namespace d2t
