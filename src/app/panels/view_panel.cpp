// The View panel: what is drawn, the camera, the recording.

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
  ImGui::Checkbox("bones", &v.bones);
  ImGui::Checkbox("metaphors", &v.metaphors);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the control metaphors: their nodes (green), first ring (yellow), second ring (purple),\n"
                      "structure (white) and, while one works, its forces (orange)");
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
  ImGui::Checkbox("Timeline", &p.timeline);
  ImGui::Checkbox("Metaphors", &p.metaphors);
  ImGui::SameLine();
  ImGui::Checkbox("Morph", &p.morph);
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

}  // namespace d2t
