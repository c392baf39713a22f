// The View panel (toggles, recording) and the help overlay.

#include "app/panels/panels.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "app/app.h"
#include "app/panels/material_panel.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

void viewPanel(Ui& ui) {
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 300 * ui.scale, 420 * ui.scale),
                          ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 290, 0), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("View", &ui.settings.panels.view)) return ImGui::End();
  ViewOptions& v = ui.view;
  ImGui::Checkbox("skin", &v.skin);
  ImGui::SameLine();
  ImGui::Checkbox("wireframe", &v.wireframe);
  ImGui::SameLine();
  ImGui::Checkbox("core", &v.core);
  ImGui::Checkbox("contacts", &v.contacts);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("contact nodes along their normal: red penetrating, yellow within the\n"
                      "1 cm margin, magenta against another body");
  ImGui::SameLine();
  ImGui::Checkbox("proxies", &v.proxies);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("stage-1 convex proxy points, crosses of the grown margin");
  ImGui::SameLine();
  ImGui::Checkbox("shadows", &v.shadows);
  ImGui::Separator();
  ImGui::TextUnformatted("panels (Tab: hide all)");
  AppSettings::Panels& p = ui.settings.panels;
  ImGui::Checkbox("Scene", &p.scene);
  ImGui::SameLine();
  ImGui::Checkbox("Simulation", &p.simulation);
  ImGui::SameLine();
  ImGui::Checkbox("Bodies", &p.bodies);
  ImGui::Checkbox("Statistics", &p.statistics);
  ImGui::SameLine();
  ImGui::Checkbox("Atlas", &p.atlas);
  ImGui::SameLine();
  ImGui::Checkbox("Help (F1)", &p.help);
  ImGui::Separator();
  ImGui::TextUnformatted("record");
  if (ImGui::Button("Screenshot (Ctrl+P)")) ui.screenshotRequested = true;
  static const bool haveFfmpeg = !findOnPath("ffmpeg").empty();
  if (ui.recorder.recording()) {
    if (ImGui::Button("Stop frames (Ctrl+R)")) toggleFrameRecording(ui, FrameRecorder::Format::Png);
    ImGui::SameLine();
    ImGui::Text("%d frames", ui.recorder.frames());
  } else {
    if (ImGui::Button("Frames to PNGs (Ctrl+R)")) toggleFrameRecording(ui, FrameRecorder::Format::Png);
    ImGui::SameLine();
    ImGui::BeginDisabled(!haveFfmpeg);
    if (ImGui::Button("Video (MP4)")) toggleFrameRecording(ui, FrameRecorder::Format::Mp4);
    ImGui::EndDisabled();
    if (!haveFfmpeg) ImGui::TextDisabled("MP4 needs ffmpeg on PATH (not found)");
  }
  if (ImGui::Button(ui.benchFrom ? "Stop bench, write CSV (Ctrl+B)" : "Record bench CSV (Ctrl+B)"))
    toggleBenchRecording(ui);
  if (ui.benchFrom) {
    ImGui::SameLine();
    ImGui::Text("%zu steps", ui.session.log.size() - std::min(*ui.benchFrom, ui.session.log.size()));
  }
  ImGui::End();
}

void helpOverlay(Ui& ui) {
  if (!ui.settings.panels.help) return;
  ImGui::SetNextWindowPos(px(ui, 360, 10), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Help (F1)", &ui.settings.panels.help, ImGuiWindowFlags_AlwaysAutoResize))
    return ImGui::End();
  static const char* const keys[][2] = {
      {"Space", "pause / run"},
      {"N", "single step (pauses)"},
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
