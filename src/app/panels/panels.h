#pragma once
// The window's panels, each drawn once a frame when open (app/window/ui.h has their state).
#include "app/window/ui.h"

namespace d2t {

// simulation_panels.cpp
void scenePanel(Ui& ui);
void simulationPanel(Ui& ui);
void bodiesPanel(Ui& ui);
void statisticsPanel(Ui& ui);
// texture_viewer.cpp
void atlasPanel(Ui& ui);
/// The texture viewer's name of channel i (the last one: the contact camera's D).
const char* viewerTextureLabel(int i);
// view_panel.cpp
void viewPanel(Ui& ui);
void helpOverlay(Ui& ui);

}  // namespace d2t
