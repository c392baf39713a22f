// The help overlay (F1): the keys and the mouse.

#include "app/panels/panels.h"

#include "app/app.h"

namespace d2t {

void helpOverlay(Ui& ui) {
  if (!ui.settings.panels.help) return;
  ImGui::SetNextWindowPos(px(ui, 360, 10), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Help (F1)", &ui.settings.panels.help, ImGuiWindowFlags_AlwaysAutoResize))
    return ImGui::End();
  static const char* const keys[][2] = {
      {"Space", "pause / run"},
      {"N, Right", "single step (pauses; in the timeline's past, as recorded)"},
      {"Left, Shift+Left", "a step back on the timeline (Shift: 100)"},
      {"R", "reset the scene"},
      {"Ctrl+P", "screenshot of the scene (timestamped PNG)"},
      {"Ctrl+R", "start / stop recording frames (timestamped folder of PNGs)"},
      {"Ctrl+B", "start / stop recording step timings (timestamped CSV)"},
      {"Tab", "hide / show all panels"},
      {"F1", "this help"},
      {"Esc", "let go of a dragged collider or skin; else quit"},
  };
  static const char* const mouse[][2] = {
      {"Left drag on a draggable collider", "drag it in the plane facing the camera"},
      {"  + wheel while dragging", "move it nearer / farther"},
      {"Left drag on a body", "pull its skin: a spring from the picked point to the cursor"},
      {"  + wheel while pulling", "move the cursor's point nearer / farther"},
      {"Left click on a body", "select it (Bodies panel: name, node, texel)"},
      {"Left drag on empty space", "orbit the camera"},
      {"Right / middle drag, Shift+left", "pan"},
      {"Wheel", "zoom"},
  };
  auto table = [](const char* id, const char* const (*rows)[2], size_t n) {
    if (!ImGui::BeginTable(id, 2)) return;
    for (size_t i = 0; i < n; ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(rows[i][0]);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(rows[i][1]);
    }
    ImGui::EndTable();
  };
  table("keys", keys, std::size(keys));
  ImGui::Separator();
  table("mouse", mouse, std::size(mouse));
  ImGui::Separator();
  ImGui::TextUnformatted("Panels keep the mouse and keys while you use them.");
  ImGui::TextUnformatted("Settings are kept in");
  ImGui::TextUnformatted(settingsPath().c_str());
  ImGui::End();
}

}  // namespace d2t
