#pragma once
// The window's panels, each drawn once a frame when open (app/window/ui.h has their state).
#include <imgui.h>

#include <algorithm>

#include "app/window/ui.h"
#include "app/window/ui_scale.h"

namespace d2t {

void scenePanel(Ui& ui);       // scene_panel.cpp
void simulationPanel(Ui& ui);  // simulation_panel.cpp
void bodiesPanel(Ui& ui);      // bodies_panel.cpp
void characterHeaders(Ui& ui); // skeleton_panel.cpp (inside the Bodies panel)
void statisticsPanel(Ui& ui);  // statistics_panel.cpp
// texture_viewer.cpp
void atlasPanel(Ui& ui);
/// The texture viewer's name of channel i (the last one: the contact camera's D).
const char* viewerTextureLabel(int i);
void viewPanel(Ui& ui);    // view_panel.cpp
void timelinePanel(Ui& ui);  // timeline_panel.cpp
void metaphorPanel(Ui& ui);  // metaphor_panel.cpp
void morphPanel(Ui& ui);     // morph_panel.cpp: the bodies' morph targets (ch. 5)
/// The brush (metaphor_panel.cpp): adds the rest-skin nodes within the brush's radius of
/// `node` of body `body` to the painted set; brushCommit makes the set the selected
/// metaphor's region (a "nodes" region), or a new metaphor of the panel's type on it.
void brushPaint(Ui& ui, int body, int node);
void brushCommit(Ui& ui);
/// The selected metaphor's centre handle (drawn by View > metaphors): a press whose ray
/// passes near it starts dragging it in the plane facing the camera (true); handleMove
/// follows the cursor (the panel's fields show it), handleCommit applies it (one input).
bool handlePress(Ui& ui, const struct Ray& ray);
void handleMove(Ui& ui, const struct Ray& ray);
void handleCommit(Ui& ui);
void helpOverlay(Ui& ui);  // help_overlay.cpp

/// The left column (Scene, Simulation, Statistics): false until the panels above
/// `place` have been laid out (a frame each), then the panel's first position and width.
inline bool placeInColumn(Ui& ui, int place) {
  if (ImGui::GetFrameCount() < 1 + 2 * place) return false;
  const float top = place == 0 ? 10 * ui.scale : ui.columnBottom + 8 * ui.scale;
  ImGui::SetNextWindowPos(ImVec2(10 * ui.scale, top), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 330, 0), ImGuiCond_FirstUseEver);
  return true;
}
/// Inside a column panel: where the next one goes.
inline void markColumn(Ui& ui) {
  ui.columnBottom = std::max(ui.columnBottom, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
}

}  // namespace d2t
