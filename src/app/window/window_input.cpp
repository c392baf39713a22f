// The window's keys and mouse: shortcuts, zoom, dragging colliders, pulling skin, orbit.

#include "app/window/ui.h"

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
#include "app/panels/panels.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

// ---- keys and mouse ----------------------------------------------------------------------

void onKey(GLFWwindow* w, int key, int, int action, int mods) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  const bool ctrl = mods & GLFW_MOD_CONTROL;
  switch (key) {
    case GLFW_KEY_SPACE: ui.session.paused = !ui.session.paused; break;
    case GLFW_KEY_N:
    case GLFW_KEY_RIGHT:  // (in the timeline's past: its recorded inputs replayed)
      ui.session.paused = true;
      ui.session.step();
      break;
    case GLFW_KEY_LEFT:  // a step back on the timeline
      if (ui.session.timeline) ui.session.seek(ui.session.world->steps() - (mods & GLFW_MOD_SHIFT ? 100 : 1));
      break;
    case GLFW_KEY_R:
      if (ctrl) {
        toggleFrameRecording(ui, FrameRecorder::Format::Png);
      } else {
        ui.drag.reset();
        ui.mouse = MouseMode::None;
        ui.session.reset();
      }
      break;
    case GLFW_KEY_B:
      if (ctrl) toggleBenchRecording(ui);
      break;
    case GLFW_KEY_P:
      if (ctrl) ui.screenshotRequested = true;
      break;
    case GLFW_KEY_TAB: ui.showPanels = !ui.showPanels; break;
    case GLFW_KEY_F1: ui.settings.panels.help = !ui.settings.panels.help; break;
    case GLFW_KEY_ESCAPE:
      if (ui.placingMesh) {  // Esc cancels placing a mesh first
        ui.placingMesh = false;
        ui.status = "not added: " + ui.meshPath;
        break;
      }
      if (ui.drag) {  // Esc lets go of a dragged collider first
        ui.session.endDrag();
        ui.drag.reset();
        ui.mouse = MouseMode::None;
      } else {
        glfwSetWindowShouldClose(w, GLFW_TRUE);
      }
      break;
    default: break;
  }
}

// the ray through the cursor, in window coordinates (the camera's viewport is the window)
static Ray cursorRayOf(const Ui& ui) {
  double x, y;
  glfwGetCursorPos(ui.window, &x, &y);
  int w, h;
  glfwGetWindowSize(ui.window, &w, &h);
  return cursorRay(ui.camera, x, y, w, h);
}

// wheel: while dragging a collider it moves the drag plane (depth), else it zooms
void onScroll(GLFWwindow* w, double, double dy) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (ui.drag && ui.mouse == MouseMode::DragHandle) {  // a metaphor's region: nearer / farther
    ui.drag->push(-dy, ui.camera.eye(), cursorRayOf(ui));
    handleMove(ui, cursorRayOf(ui));
    return;
  }
  if (ui.drag) {
    ui.session.dragTo(ui.drag->push(-dy, ui.camera.eye(), cursorRayOf(ui)));
    return;
  }
  if (ImGui::GetIO().WantCaptureMouse) return;
  ui.camera.zoom(std::pow(0.9, dy));
}

// A left press (not on a panel) at the cursor's ray: picks what is under it; grabs a
// draggable collider, or pulls a body's skin, or orbits the camera.
static void pressAt(Ui& ui, const Ray& ray) {
  const Pick pick = pickWorld(*ui.session.world, ray);
  const auto& colliders = ui.session.world->colliders();
  if (pick.kind == Pick::Kind::Collider && ui.session.beginDrag(pick.index)) {
    ui.drag.emplace(pick.index, colliders[size_t(pick.index)].position(), pick.point, ui.camera);
    ui.mouse = MouseMode::DragCollider;
    ui.status = "dragging " + colliders[size_t(pick.index)].name() + " (wheel: nearer / farther)";
  } else {
    ui.mouse = MouseMode::Orbit;
  }
  ui.picked = pick;
  ui.pickChanged = pick.kind == Pick::Kind::Body || pick.kind == Pick::Kind::Character;
  if (ui.pickChanged) ui.settings.panels.bodies = true;
  // a left drag on a body or a character pulls its skin: a critically damped spring from
  // the picked node to the cursor's point in the plane facing the camera (wheel: depth),
  // solved inside the implicit step (LayeredBody::beginDrag; a character's: three implicit
  // rows at the node, ArticulatedBody::beginDrag)
  const bool body = pick.kind == Pick::Kind::Body && ui.session.beginSkinDrag(pick.index, pick.node, pick.point);
  const bool character =
      pick.kind == Pick::Kind::Character && ui.session.beginCharacterDrag(pick.index, pick.node, pick.point);
  if (body || character) {
    ui.drag.emplace(pick.index, pick.point, pick.point, ui.camera);
    ui.mouse = MouseMode::DragSkin;
    const World& w = *ui.session.world;
    const std::string& name = body ? w.bodies()[size_t(pick.index)].desc.name : w.characters()[size_t(pick.index)].spec.name;
    const double k = body ? w.bodies()[size_t(pick.index)].layered.drag().stiffness
                          : w.characters()[size_t(pick.index)].body->drag().stiffness;
    char text[160];
    std::snprintf(text, sizeof text, "pulling %s at node %d (k = %.0f N/m; wheel: nearer / farther)", name.c_str(),
                  pick.node, k);
    ui.status = text;
  }
}

// A left press picks what is under the cursor: a draggable collider is grabbed (and
// dragged in the plane facing the camera until release), anything else is selected
// and the press orbits the camera. Right or middle drag (Shift + left too) pans.
void handleMouse(Ui& ui) {
  double x, y;
  glfwGetCursorPos(ui.window, &x, &y);
  const double dx = x - ui.lastX, dy = y - ui.lastY;
  ui.lastX = x;
  ui.lastY = y;
  int w, h;
  glfwGetWindowSize(ui.window, &w, &h);
  const bool left = glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  const bool right = glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
                     glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  const bool shift = glfwGetKey(ui.window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                     glfwGetKey(ui.window, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
  const bool pressed = left && !ui.leftWasDown;
  ui.leftWasDown = left;
  const bool panelHasMouse = ImGui::GetIO().WantCaptureMouse;

  // a drag in progress follows the cursor wherever it is, panels or not
  if (ui.mouse == MouseMode::DragSkin) {  // a pulled skin point: the spring's target follows the cursor
    if (!left || !ui.drag) {
      ui.session.endDrag();
      ui.drag.reset();
      ui.mouse = MouseMode::None;
      ui.status = "let go of the skin";
      return;
    }
    ui.session.dragTo(ui.drag->follow(cursorRay(ui.camera, x, y, w, h)));
    return;
  }
  if (ui.mouse == MouseMode::DragCollider) {
    if (!left || !ui.drag) {
      ui.session.endDrag();
      if (ui.drag) {
        const Vec3 p = ui.session.world->colliders()[size_t(ui.drag->collider())].position();
        char text[128];
        std::snprintf(text, sizeof text, "released at (%.3f, %.3f, %.3f)", p.x(), p.y(), p.z());
        ui.status = text;
      }
      ui.drag.reset();
      ui.mouse = MouseMode::None;
      return;
    }
    ui.session.dragTo(ui.drag->follow(cursorRay(ui.camera, x, y, w, h)));
    return;
  }
  if (ui.mouse == MouseMode::DragHandle) {  // a metaphor's region dragged by its centre
    if (!left) {
      handleCommit(ui);
      ui.mouse = MouseMode::None;
      return;
    }
    handleMove(ui, cursorRay(ui.camera, x, y, w, h));
    return;
  }
  if (ui.mouse == MouseMode::Brush) {  // painting a metaphor's region: the nodes under the cursor
    if (!left) {
      brushCommit(ui);
      ui.mouse = MouseMode::None;
      return;
    }
    const Pick pick = pickWorld(*ui.session.world, cursorRay(ui.camera, x, y, w, h));
    if (pick.kind == Pick::Kind::Body && pick.index == ui.brushBody) brushPaint(ui, pick.index, pick.node);
    return;
  }
  if (!left && !right) ui.mouse = MouseMode::None;
  if (pressed && !panelHasMouse && !shift && handlePress(ui, cursorRay(ui.camera, x, y, w, h))) {
    ui.mouse = MouseMode::DragHandle;
    return;
  }
  if (pressed && !panelHasMouse && ui.brush && ui.settings.panels.metaphors && !shift) {  // the brush paints
    const Pick pick = pickWorld(*ui.session.world, cursorRay(ui.camera, x, y, w, h));
    if (pick.kind == Pick::Kind::Body) {
      ui.picked = pick;
      ui.pickChanged = true;
      ui.brushBody = pick.index;
      ui.brushNodes.clear();
      brushPaint(ui, pick.index, pick.node);
      ui.mouse = MouseMode::Brush;
      return;
    }
  }
  if (pressed && !panelHasMouse && ui.placingMesh) {  // a mesh being added goes where the click meets the scene
    const Ray ray = cursorRay(ui.camera, x, y, w, h);
    const Pick pick = pickWorld(*ui.session.world, ray, true);
    std::optional<Vec3> at = pick ? std::optional<Vec3>(pick.point) : intersectPlane(ray, DragPlane{Vec3::Zero(), -Vec3::UnitY()});
    if (at) ui.addMeshAt(*at);
    return;
  }
  if (pressed && !panelHasMouse) {
    if (shift) {
      ui.mouse = MouseMode::Pan;
    } else {
      pressAt(ui, cursorRay(ui.camera, x, y, w, h));
    }
  }
  if (pressed && panelHasMouse) ui.mouse = MouseMode::None;  // the press belongs to a panel
  if (right && !panelHasMouse && ui.mouse == MouseMode::None) ui.mouse = MouseMode::Pan;
  if (ui.mouse == MouseMode::Orbit && left) ui.camera.orbit(-dx * 0.006, dy * 0.006);
  if (ui.mouse == MouseMode::Pan) ui.camera.pan(dx / std::max(h, 1), dy / std::max(h, 1));
}

// The left column (Scene, Simulation, Statistics) opens stacked, each panel the
// first time below the one above it. That one's height is known once ImGui has fitted
// it to its contents (in its second frame), so the panel `place` (0 at the top) is
// held back for 2 frames per panel above it; with saved positions (imgui.ini) the
// wait is invisible. Returns false while it waits.

}  // namespace d2t
