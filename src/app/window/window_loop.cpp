// The window: GLFW + ImGui frame loop over a Session. Sections, in file order:
//   screenshots and recording    saveScreenshot, toggleFrameRecording, toggleBenchRecording
//   keys and mouse               onKey, onScroll, handleMouse (drag colliders, pull skin, orbit)
//   panels                       scene, simulation, bodies, statistics, atlas viewer, view, help
//   runWindowLoop                the frame loop (each step commented)

#include "app/window/window_loop.h"

#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>

#include "app/app.h"
#include "app/panels/atlas_view.h"
#include "app/panels/material_panel.h"
#include "app/window/picking.h"
#include "app/output/recorder.h"
#include "app/render/renderer.h"
#include "app/window/ui_scale.h"
#include "gpu/contact/contact_camera.h"

namespace d2t {

namespace {

namespace fs = std::filesystem;

// Wall time a frame may spend stepping [s]: beyond it the simulation runs slower
// than real time and the panels and the mouse still answer
// (docs/decisions/0022-window-step-budget.md).
constexpr double kStepBudget = 0.05;

/// What a left-button press started.
enum class MouseMode { None, Orbit, Pan, DragCollider, DragSkin };

/// Everything the frame loop and the panels share.
struct Ui {
  Ui(Session& s, const Options& o, AppSettings& st) : session(s), options(o), settings(st), view(st.view) {}
  Session& session;
  const Options& options;
  AppSettings& settings;         // panels open (read and written by the panels)
  GLFWwindow* window = nullptr;
  float scale = 1;               // the window's content scale (HiDPI)
  bool scaleChanged = false;     // the window moved to a monitor with another scale
  Camera camera;
  ViewOptions& view;             // = settings.view
  std::unique_ptr<Renderer> renderer;
  RenderTarget target;
  bool showPanels = true;        // Tab hides every panel
  float columnBottom = 0;        // lowest edge of the left column's panels this frame (placeInColumn)
  bool screenshotRequested = false;
  // mouse: what the press did, the drag in progress, the last pick
  MouseMode mouse = MouseMode::None;
  bool leftWasDown = false;
  std::optional<ColliderDrag> drag;
  Pick picked;                   // the last body or collider clicked (kind None: nothing)
  bool pickChanged = false;      // the Bodies panel opens the picked body once
  // recording
  FrameRecorder recorder;
  std::optional<size_t> benchFrom;  // first logged step of the bench being recorded
  std::string status;            // last message shown in the status line
  std::string loadError;         // last scene-load error (shown in the picker)
  double lastX = 0, lastY = 0;
  double fps = 0;
  // texture viewer: the picture on screen, what it was made from, and the contact
  // camera's D textures (atlasChannel == atlasChannels().size() selects D)
  GLuint atlasTexture = 0;
  int atlasBody = 0, atlasChannel = 0, atlasPair = 0;
  TexturePicture atlasPicture;
  int atlasShownBody = -1, atlasShownChannel = -1, atlasShownPair = -1;
  const BakedBody* atlasShownModel = nullptr;
  long atlasShownStep = -1;
  std::vector<ContactCamera::Snapshot> snapshots;  // the latest D per pair in contact
  long snapshotStep = -1;                          // world step when they were taken
  // the last material change of each body (Bodies panel): what it cost
  struct MaterialChange {
    double assembleMs = 0;     // World::setMaterial: K_e and the masses re-assembled
    double gpuMs = -1;         // the GPU solver's textures rebuilt (-1: on the CPU)
    size_t logSize = 0;        // steps logged before it: the next one pays the refactoring
    double nextStepMs = -1;    // that step's time (-1: not run yet)
    double typicalStepMs = -1; // the median step before the change
  };
  std::map<size_t, MaterialChange> materialChanges;
  std::map<size_t, std::optional<Material>> materialEdits;  // materialSliders' held values
  bool snapshotsChanged = false;

  bool showsContactTexture() const {
    return showPanels && settings.panels.atlas && atlasChannel == int(atlasChannels().size());
  }

  void resetCamera() {
    const CameraDesc& c = session.world->scene().camera;
    camera = Camera(c.eye, c.target, c.fovY);
  }
  void loadScene(const std::string& path) {
    try {
      session.load(path, nullptr);
      renderer->setWorld(*session.world);
      resetCamera();
      drag.reset();
      picked = Pick{};
      mouse = MouseMode::None;
      benchFrom.reset();
      materialChanges.clear();
      materialEdits.clear();
      loadError.clear();
      status = "loaded " + path;
    } catch (const std::exception& e) {
      loadError = e.what();  // the running scene stays
    }
  }
};

void saveScreenshot(Ui& ui, const std::string& path) {
  try {
    writePng(path, ui.target.width(), ui.target.height(), ui.target.readRgb());
    ui.status = "screenshot saved to " + path;
  } catch (const std::exception& e) {
    ui.status = e.what();
  }
  std::cout << ui.status << "\n";
}

// --screenshot in a window: the whole window, panels included
void saveWindowShot(const std::string& path, int w, int h) {
  std::vector<uint8_t> rows(size_t(w) * h * 3), flipped(rows.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rows.data());
  const size_t stride = size_t(w) * 3;
  for (int y = 0; y < h; ++y)
    std::copy_n(&rows[size_t(h - 1 - y) * stride], stride, &flipped[size_t(y) * stride]);
  writePng(path, w, h, flipped);
  std::cout << "screenshot written to " << path << "\n";
}

// panel placement in unscaled pixels, times the content scale
ImVec2 px(const Ui& ui, float x, float y) { return ImVec2(x * ui.scale, y * ui.scale); }

// ---- recording ---------------------------------------------------------------------------

void toggleFrameRecording(Ui& ui, FrameRecorder::Format format) {
  if (ui.recorder.recording()) {
    ui.status = ui.recorder.stop();
  } else {
    const bool mp4 = format == FrameRecorder::Format::Mp4;
    const std::string path = timestampedName("d2tsim-rec", mp4 ? ".mp4" : "");
    std::string error;
    ui.status = ui.recorder.start(format, path, 60, &error) ? "recording frames to " + path : error;
  }
  std::cout << ui.status << "\n";
}

void toggleBenchRecording(Ui& ui) {
  Session& s = ui.session;
  if (!ui.benchFrom) {
    ui.benchFrom = s.log.size();
    ui.status = "recording step timings (stop to write the CSV)";
  } else {
    const std::string path = timestampedName("d2tsim-bench", ".csv");
    const size_t first = std::min(*ui.benchFrom, s.log.size());  // a reset clears the log
    try {
      s.log.writeCsv(path, s.world->settings().dt, first);
      ui.status = std::to_string(s.log.size() - first) + " steps of timings written to " + path;
    } catch (const std::exception& e) {
      ui.status = e.what();
    }
    ui.benchFrom.reset();
  }
  std::cout << ui.status << "\n";
}

// Lines of text centred at the bottom of the window, each on a dark band, drawn
// over the panels (the foreground draw list), the last one lowest.
void overlayLines(const std::vector<std::pair<std::string, ImU32>>& lines, float scale) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const float pad = 4 * scale, step = ImGui::GetTextLineHeight() + 2 * pad;
  float y = size.y - 8 * scale - step * float(lines.size());
  for (const auto& [text, colour] : lines) {
    const ImVec2 t = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at(0.5f * (size.x - t.x), y + pad);
    draw->AddRectFilled(ImVec2(at.x - 2 * pad, y), ImVec2(at.x + t.x + 2 * pad, y + step - 1), IM_COL32(20, 22, 28, 200),
                        3 * scale);
    draw->AddText(at, colour, text.c_str());
    y += step;
  }
}

// ---- keys and mouse ----------------------------------------------------------------------

void onKey(GLFWwindow* w, int key, int, int action, int mods) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  const bool ctrl = mods & GLFW_MOD_CONTROL;
  switch (key) {
    case GLFW_KEY_SPACE: ui.session.paused = !ui.session.paused; break;
    case GLFW_KEY_N:
      ui.session.paused = true;
      ui.session.step();
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
Ray cursorRayOf(const Ui& ui) {
  double x, y;
  glfwGetCursorPos(ui.window, &x, &y);
  int w, h;
  glfwGetWindowSize(ui.window, &w, &h);
  return cursorRay(ui.camera, x, y, w, h);
}

// wheel: while dragging a collider it moves the drag plane (depth), else it zooms
void onScroll(GLFWwindow* w, double, double dy) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (ui.drag) {
    ui.session.dragTo(ui.drag->push(-dy, ui.camera.eye(), cursorRayOf(ui)));
    return;
  }
  if (ImGui::GetIO().WantCaptureMouse) return;
  ui.camera.zoom(std::pow(0.9, dy));
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
  if (!left && !right) ui.mouse = MouseMode::None;
  if (pressed && !panelHasMouse) {
    if (shift) {
      ui.mouse = MouseMode::Pan;
    } else {
      const Pick pick = pickWorld(*ui.session.world, cursorRay(ui.camera, x, y, w, h));
      const auto& colliders = ui.session.world->colliders();
      if (pick.kind == Pick::Kind::Collider && ui.session.beginDrag(pick.index)) {
        ui.drag.emplace(pick.index, colliders[size_t(pick.index)].position(), pick.point, ui.camera);
        ui.mouse = MouseMode::DragCollider;
        ui.status = "dragging " + colliders[size_t(pick.index)].name() + " (wheel: nearer / farther)";
      } else {
        ui.mouse = MouseMode::Orbit;
      }
      ui.picked = pick;
      ui.pickChanged = pick.kind == Pick::Kind::Body;
      if (ui.pickChanged) ui.settings.panels.bodies = true;
      // a left drag on a body pulls its skin: a critically damped spring from the picked
      // node to the cursor's point in the plane facing the camera (wheel: depth), solved
      // inside the implicit step (LayeredBody::beginDrag)
      if (pick.kind == Pick::Kind::Body && ui.session.beginSkinDrag(pick.index, pick.node, pick.point)) {
        ui.drag.emplace(pick.index, pick.point, pick.point, ui.camera);
        ui.mouse = MouseMode::DragSkin;
        const Body& b = ui.session.world->bodies()[size_t(pick.index)];
        char text[160];
        std::snprintf(text, sizeof text, "pulling %s at node %d (k = %.0f N/m; wheel: nearer / farther)",
                      b.desc.name.c_str(), pick.node, b.layered.drag().stiffness);
        ui.status = text;
      }
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
bool placeInColumn(Ui& ui, int place) {
  if (ImGui::GetFrameCount() < 1 + 2 * place) return false;
  const float top = place == 0 ? 10 * ui.scale : ui.columnBottom + 8 * ui.scale;
  ImGui::SetNextWindowPos(ImVec2(10 * ui.scale, top), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 330, 0), ImGuiCond_FirstUseEver);
  return true;
}

// (inside a column panel: where the next one goes)
void markColumn(Ui& ui) {
  ui.columnBottom = std::max(ui.columnBottom, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
}

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

void simulationPanel(Ui& ui) {
  Session& s = ui.session;
  SimulationSettings& set = s.world->settings();
  if (!placeInColumn(ui, 1)) return;
  if (!ImGui::Begin("Simulation", &ui.settings.panels.simulation)) return ImGui::End();
  markColumn(ui);
  ImGui::Text("t = %.3f s, %ld steps", s.world->time(), s.world->steps());
  if (ImGui::Button(s.paused ? "Run (Space)" : "Pause (Space)")) s.paused = !s.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) {
    s.paused = true;
    s.step();
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) {
    ui.drag.reset();
    ui.mouse = MouseMode::None;
    s.reset();
  }
  double dtMs = set.dt * 1e3;
  const double lo = 0.05, hi = 50;
  if (ImGui::SliderScalar("dt [ms]", ImGuiDataType_Double, &dtMs, &lo, &hi, "%.3f",
                          ImGuiSliderFlags_Logarithmic))
    set.dt = std::clamp(dtMs, lo, hi) * 1e-3;
  double rtf = s.realTimeFactor;
  const double rlo = 0.01, rhi = 4;
  if (ImGui::SliderScalar("real-time factor", ImGuiDataType_Double, &rtf, &rlo, &rhi, "%.2f",
                          ImGuiSliderFlags_Logarithmic))
    s.realTimeFactor = std::clamp(rtf, rlo, rhi);
  float g[3] = {float(set.gravity.x()), float(set.gravity.y()), float(set.gravity.z())};
  if (ImGui::DragFloat3("gravity [m/s2]", g, 0.05f, -50.f, 50.f)) {
    set.gravity = Vec3(g[0], g[1], g[2]);
    s.world->rebaseEnergy();  // the potential energy's reference changed
  }
  ImGui::TextUnformatted("backend:");
  for (const char* b : {"cpu", "gpu"}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(b, set.backend == b) && set.backend != b) s.setBackend(b);
  }
  ImGui::Checkbox("one-sided contact (no pulling)", &set.oneSidedContact);
  ImGui::Checkbox("contact support (exact rest)", &set.contactSupport);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Colliders carry the resting skin inside the implicit solve: bodies rest and dent\n"
                      "as the static solve says (without: ~20%% too shallow); rolling is slowed a little more.");
  if (!s.backendNote.empty()) ImGui::TextWrapped("(%s)", s.backendNote.c_str());
  if (!s.lastWarning.empty()) ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", s.lastWarning.c_str());
  ImGui::End();
}

// Per body, live: the material. A change re-assembles K_e and the masses from the
// same shape and atlas (World::setMaterial) when the slider is released.
void bodiesPanel(Ui& ui) {
  Session& s = ui.session;
  ImGui::SetNextWindowPos(px(ui, 350, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 330, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);  // open it to tune a material
  if (ui.pickChanged) ImGui::SetNextWindowCollapsed(false);     // a body was clicked: show it
  if (!ImGui::Begin("Bodies", &ui.settings.panels.bodies, ImGuiWindowFlags_AlwaysAutoResize)) {
    ui.pickChanged = false;
    return ImGui::End();
  }
  auto& bodies = s.world->bodies();
  // the last click: a body (its name, the node and texel under the cursor) or a collider
  const Pick& pk = ui.picked;
  if (pk.kind == Pick::Kind::Body && pk.index < int(bodies.size())) {
    const int n = bodies[size_t(pk.index)].model->atlas.resolution;
    ImGui::Text("picked: %s, node %d, texel (%d, %d)", bodies[size_t(pk.index)].desc.name.c_str(), pk.node,
                pk.texel % n, pk.texel / n);
    ImGui::Text("  at (%.3f, %.3f, %.3f) m", pk.point.x(), pk.point.y(), pk.point.z());
  } else if (pk.kind == Pick::Kind::Collider && pk.index < int(s.world->colliders().size())) {
    const Collider& c = s.world->colliders()[size_t(pk.index)];
    ImGui::Text("picked: collider %s%s", c.name().c_str(), c.desc().draggable ? " (draggable)" : "");
  } else {
    ImGui::TextDisabled("click a body to select it");
  }
  for (size_t i = 0; i < bodies.size(); ++i) {
    ImGui::PushID(int(i));
    const bool selected = pk.kind == Pick::Kind::Body && pk.index == int(i);
    if (selected && ui.pickChanged) ImGui::SetNextItemOpen(true);
    // "###h": the same id whether or not it is selected (keeps the header's open state)
    const std::string header = bodies[i].desc.name + (selected ? "  (selected)" : "") + "###h";
    if (ImGui::CollapsingHeader(header.c_str())) {
      if (const std::optional<Material> edited = materialSliders(bodies[i].desc.material, ui.materialEdits[i])) {
        const Material& m = *edited;
        try {
          Ui::MaterialChange mc;
          mc.assembleMs = s.world->setMaterial(i, m);
          if (s.world->settings().backend == "gpu") {  // its K_e textures
            const auto t0 = std::chrono::steady_clock::now();
            s.setBackend("gpu");
            mc.gpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          }
          mc.logSize = s.log.size();
          mc.typicalStepMs = s.log.size() ? s.log.medianStep() : -1;
          ui.materialChanges[i] = mc;
          char text[160];
          std::snprintf(text, sizeof text, "%s: K_e and masses re-assembled in %.1f ms", bodies[i].desc.name.c_str(),
                        mc.assembleMs);
          ui.status = text;
        } catch (const std::exception& e) {
          ui.status = e.what();
        }
      }
      // how long the last change took: the re-assembly, the GPU textures, and the next
      // step (Mt_e refactored, the coupling columns solved again)
      if (auto it = ui.materialChanges.find(i); it != ui.materialChanges.end()) {
        Ui::MaterialChange& mc = it->second;
        if (s.log.size() < mc.logSize) mc.logSize = 0;  // a reset cleared the log
        if (mc.nextStepMs < 0 && s.log.size() > mc.logSize)
          mc.nextStepMs = double(s.log.recentSteps(s.log.size() - mc.logSize).front());
        ImGui::Text("last change: K_e + masses %.1f ms", mc.assembleMs);
        if (mc.gpuMs >= 0) ImGui::Text("  GPU textures %.1f ms", mc.gpuMs);
        if (mc.nextStepMs >= 0)
          ImGui::Text("  next step %.1f ms (median step %.1f ms)", mc.nextStepMs, mc.typicalStepMs);
        else
          ImGui::TextDisabled("  next step: not yet run");
      }
      ImGui::Text("%d nodes, %d tets, %.1f kg", bodies[i].nodes(), bodies[i].tets(), bodies[i].mass());
    }
    ImGui::PopID();
  }
  ui.pickChanged = false;
  ImGui::End();
}

// One plot of the last kPlotSteps values, labelled with the newest value and the range.
void plot(const char* label, const std::vector<float>& v, const char* unit) {
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%s %.4g %s (%.3g .. %.3g)", label, double(v.back()), unit, double(*lo),
                double(*hi));
  ImGui::PushID(label);
  ImGui::PlotLines("", v.data(), int(v.size()), 0, overlay, FLT_MAX, FLT_MAX,
                   ImVec2(ImGui::GetContentRegionAvail().x, 42 * ImGui::GetFontSize() / 13));
  ImGui::PopID();
}

constexpr size_t kPlotSteps = 300;  // the plots show the last 300 steps

void statisticsPanel(Ui& ui) {
  const Session& s = ui.session;
  if (!placeInColumn(ui, 2)) return;
  if (!ImGui::Begin("Statistics", &ui.settings.panels.statistics)) return ImGui::End();
  ImGui::Text("%.1f fps, %zu steps logged", ui.fps, s.log.size());
  const std::vector<float> recent = s.log.recentSteps(kPlotSteps);
  if (!recent.empty()) {
    ImGui::Text("step: %.3f ms (median %.3f ms)", double(recent.back()), s.log.medianStep());
    plot("step", recent, "ms");
  }
  if (ImGui::CollapsingHeader("stages", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (ImGui::BeginTable("stages", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders)) {
      ImGui::TableSetupColumn("stage");
      ImGui::TableSetupColumn("median [ms]");
      ImGui::TableHeadersRow();
      for (const auto& st : s.log.stages()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(st.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", s.log.medianStage(st));
      }
      ImGui::EndTable();
    }
  }
  if (ImGui::CollapsingHeader("stage plots")) {
    for (const auto& st : s.log.stages()) plot(st.c_str(), s.log.recentStage(st, kPlotSteps), "ms");
  }
  if (ImGui::CollapsingHeader("solver, contacts, energy", ImGuiTreeNodeFlags_DefaultOpen)) {
    plot("CG iterations", s.log.recentSummary(&StepSummary::cgIterations, kPlotSteps), "");
    plot("CG residual", s.log.recentSummary(&StepSummary::cgResidual, kPlotSteps), "");
    plot("contacts", s.log.recentSummary(&StepSummary::contacts, kPlotSteps), "nodes");
    plot("energy", s.log.recentSummary(&StepSummary::energy, kPlotSteps), "J");
  }
  if (s.world->hasPairs()) {
    const PairStats& p = s.world->pairStats();
    ImGui::Text("two stages: %d pairs near, %d past stage 1, %d contact nodes", p.broadPairs, p.proxyPairs,
                p.contactNodes);
  }
  for (const Body& b : s.world->bodies())  // (the energy after the last step: no readback)
    ImGui::Text("%s: %d contacts, CG %d (res %.1e), E %.3f J, resets %d", b.desc.name.c_str(), b.stats.contacts,
                b.stats.cgIterations, b.stats.cgResidual, b.stats.energy, b.stats.resets);
  ImGui::End();
}

// The texture viewer: any texture of a body's atlas (baked or live) or the contact
// texture D of the GPU contact camera, with the value under the cursor.
void uploadPicture(Ui& ui, TexturePicture pic) {
  if (!ui.atlasTexture) glGenTextures(1, &ui.atlasTexture);
  glBindTexture(GL_TEXTURE_2D, ui.atlasTexture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (pic.width > 0 && pic.height > 0)
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, pic.width, pic.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pic.rgba.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  ui.atlasPicture = std::move(pic);
}

// the contact camera's snapshots of D after this frame's steps: the latest per pair;
// none after a step means no pair reached stage 2 any more
void takeSnapshots(Ui& ui) {
  ContactCamera* cam = ui.session.contactCamera.get();
  const long steps = ui.session.world->steps();
  if (!cam) {
    ui.snapshotsChanged = !ui.snapshots.empty();
    ui.snapshots.clear();
    return;
  }
  std::vector<ContactCamera::Snapshot> fresh = cam->takeSnapshots();
  if (!fresh.empty() || steps != ui.snapshotStep) {
    ui.snapshots = std::move(fresh);
    ui.snapshotStep = steps;
    ui.snapshotsChanged = true;
  }
}

// the viewer's textures: the atlas channels, then D (index atlasChannels().size())
const char* viewerTextureLabel(int i) {
  const auto& channels = atlasChannels();
  return i >= 0 && i < int(channels.size()) ? channels[size_t(i)].second : "contact texture D (GPU contact camera)";
}

void atlasPanel(Ui& ui) {
  const auto& bodies = ui.session.world->bodies();
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 300 * ui.scale, 10 * ui.scale),
                          ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 290, 400), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Atlas", &ui.settings.panels.atlas)) return ImGui::End();
  if (bodies.empty()) {
    ImGui::TextUnformatted("no deformable bodies");
    ImGui::End();
    return;
  }
  const auto& channels = atlasChannels();
  const int dChannel = int(channels.size());
  ui.atlasChannel = std::clamp(ui.atlasChannel, 0, dChannel);
  if (ImGui::BeginCombo("texture", viewerTextureLabel(ui.atlasChannel))) {
    for (int i = 0; i <= dChannel; ++i)
      if (ImGui::Selectable(viewerTextureLabel(i), i == ui.atlasChannel)) ui.atlasChannel = i;
    ImGui::EndCombo();
  }
  ui.settings.atlasTexture = viewerTextureLabel(ui.atlasChannel);  // kept for the next run
  takeSnapshots(ui);
  const long steps = ui.session.world->steps();
  bool haveImage = true;
  if (ui.atlasChannel == dChannel) {
    // D of one pair in contact (stage 2 ran for it in the last step)
    if (!ui.session.contactCamera) {
      ImGui::TextWrapped("The contact camera runs between two bodies, or a body and a mesh collider, on the GPU "
                         "backend (Simulation panel); this scene runs %s.",
                         ui.session.world->settings().backend == "gpu" ? "neither" : "the CPU backend");
      haveImage = false;
    } else if (ui.snapshots.empty()) {
      ImGui::TextWrapped("No pair reached stage 2 in the last step (D is drawn only where two "
                         "surfaces overlap along the pair normal; it is read back only while shown, so a "
                         "paused run needs a step, N).");
      haveImage = false;
    } else {
      ui.atlasPair = std::clamp(ui.atlasPair, 0, int(ui.snapshots.size()) - 1);
      auto pairName = [&](int i) {
        return ui.snapshots[size_t(i)].bodyA + " - " + ui.snapshots[size_t(i)].bodyB;
      };
      if (ImGui::BeginCombo("pair", pairName(ui.atlasPair).c_str())) {
        for (int i = 0; i < int(ui.snapshots.size()); ++i)
          if (ImGui::Selectable(pairName(i).c_str(), i == ui.atlasPair)) ui.atlasPair = i;
        ImGui::EndCombo();
      }
      if (ui.snapshotsChanged || ui.atlasShownChannel != dChannel || ui.atlasShownPair != ui.atlasPair) {
        const ContactCamera::Snapshot& sn = ui.snapshots[size_t(ui.atlasPair)];
        uploadPicture(ui, contactTexturePicture(sn.resolution, sn.d));
        ui.atlasShownChannel = dChannel;
        ui.atlasShownPair = ui.atlasPair;
        ui.atlasShownModel = nullptr;
      }
    }
    ui.snapshotsChanged = false;
  } else {
    ui.atlasBody = std::clamp(ui.atlasBody, 0, int(bodies.size()) - 1);
    if (ImGui::BeginCombo("body", bodies[size_t(ui.atlasBody)].desc.name.c_str())) {
      for (int i = 0; i < int(bodies.size()); ++i)
        if (ImGui::Selectable(bodies[size_t(i)].desc.name.c_str(), i == ui.atlasBody)) ui.atlasBody = i;
      ImGui::EndCombo();
    }
    const Body& body = bodies[size_t(ui.atlasBody)];
    const AtlasChannel channel = channels[size_t(ui.atlasChannel)].first;
    const bool live = isLiveChannel(channel);
    if (ui.atlasShownBody != ui.atlasBody || ui.atlasShownChannel != ui.atlasChannel ||
        ui.atlasShownModel != body.model.get() || (live && ui.atlasShownStep != steps)) {
      const auto& contacts = ui.session.world->lastContacts();
      static const std::vector<NodeContact> none;
      const std::vector<NodeContact>& mine =
          size_t(ui.atlasBody) < contacts.size() ? contacts[size_t(ui.atlasBody)] : none;
      uploadPicture(ui, atlasPicture(*body.model, channel, &body.layered.state(), &mine));
      ui.atlasShownBody = ui.atlasBody;
      ui.atlasShownChannel = ui.atlasChannel;
      ui.atlasShownModel = body.model.get();
      ui.atlasShownStep = steps;
    }
  }
  const TexturePicture& pic = ui.atlasPicture;
  if (haveImage && pic.width > 0) {
    const float side = ImGui::GetContentRegionAvail().x;
    // texel row 0 is the bottom row: flip v so the picture is upright
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(ui.atlasTexture)), ImVec2(side, side),
                 ImVec2(0, 1), ImVec2(1, 0));
    if (ImGui::IsItemHovered()) {  // the value under the cursor
      const ImVec2 lo = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize(), m = ImGui::GetMousePos();
      const int x = int(std::floor((m.x - lo.x) / std::max(size.x, 1.0f) * float(pic.width)));
      const int y = pic.height - 1 - int(std::floor((m.y - lo.y) / std::max(size.y, 1.0f) * float(pic.height)));
      const std::string r = pictureReadout(pic, x, y);
      if (!r.empty()) ImGui::SetTooltip("%s", r.c_str());
    }
    if (pic.hi > pic.lo)
      ImGui::Text("blue %.3g .. red %.3g %s", pic.lo, pic.hi, pic.unit.c_str());
  }
  if (ui.atlasChannel == dChannel) {
    if (haveImage) {
      const ContactCamera::Snapshot& sn = ui.snapshots[size_t(ui.atlasPair)];
      ImGui::TextWrapped("D = h_A - h_B along n = (%.2f, %.2f, %.2f): overlap on the colour map, grey apart "
                         "(darker: wider gap), black: a skin missing. %d x %d texels of %.2f mm.",
                         sn.normal.x(), sn.normal.y(), sn.normal.z(), sn.resolution, sn.resolution,
                         sn.texelSize * 1e3);
    }
  } else {
    const BakedBody& m = *bodies[size_t(ui.atlasBody)].model;
    const AtlasChannel channel = channels[size_t(ui.atlasChannel)].first;
    if ((channel == AtlasChannel::ContactDepth || channel == AtlasChannel::ContactNormal) &&
        std::none_of(pic.values.begin(), pic.values.end(), [](float v) { return std::isfinite(v); }))
      ImGui::TextDisabled("no contacts in the last step");
    else if (channel == AtlasChannel::ContactDepth || channel == AtlasChannel::ContactNormal)
      ImGui::TextDisabled("grey: no contact at that node");
    const int n = m.atlas.resolution;
    ImGui::Text("%d x %d texels, %d patches", n, n, m.atlas.patchCount);
    ImGui::Text("%d nodes, %d tetrahedra", m.nodeCount(), m.tetCount());
    ImGui::Text("mass %.3f kg (core %.3f kg)", m.totalMass, m.coreMass);
  }
  ImGui::End();
}

// View toggles, which panels are open, and recording.
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

}  // namespace

int runWindowLoop(Session& session, const Options& options, AppSettings& settings, std::string* renderer) {
  glfwSetErrorCallback([](int code, const char* text) {
    std::cerr << "d2tsim: GLFW error " << code << ": " << text << "\n";
  });
  if (!glfwInit()) return kNoWindow;
  // OpenGL 4.3 core for the GPU solver's passes, else 3.3 core (rendering only)
  GLFWwindow* window = nullptr;
  for (int minor : {43, 33}) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, minor / 10);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor % 10);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    // the saved window size unless the command line gives one
    const bool saved = !options.sizeGiven && settings.windowWidth > 0 && settings.windowHeight > 0;
    window = glfwCreateWindow(saved ? settings.windowWidth : options.width,
                              saved ? settings.windowHeight : options.height, "d2tsim", nullptr, nullptr);
    if (window) break;
  }
  if (!window) {
    glfwTerminate();
    return kNoWindow;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  int code = 0;
  {
    loadGlFunctions();
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    // ImGui's own layout file (panel positions, sizes) next to the settings, not in the
    // working directory
    static std::string imguiIni;
    const std::string dir = settingsDirectory();
    std::error_code ec;
    if (!dir.empty() && (fs::create_directories(dir, ec), fs::is_directory(dir, ec)))
      imguiIni = (fs::path(dir) / "imgui.ini").string();
    ImGui::GetIO().IniFilename = imguiIni.empty() ? nullptr : imguiIni.c_str();
    // HiDPI: style, font and the panels' first positions at the content scale;
    // rebuilt when the window moves to a monitor with another scale
    const float uiScale = windowUiScale(window);
    applyUiScale(uiScale, false);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    session.glReady = true;
    session.setBackend(session.requestedBackend);
    Ui ui(session, options, settings);
    ui.window = window;
    ui.scale = uiScale;
    for (int i = 0; i <= int(atlasChannels().size()); ++i)  // the texture viewer's last texture
      if (settings.atlasTexture == viewerTextureLabel(i)) ui.atlasChannel = i;
    ui.renderer = std::make_unique<Renderer>();
    ui.renderer->setWorld(*session.world);
    ui.resetCamera();
    glfwSetWindowUserPointer(window, &ui);
    // ImGui installed its callbacks first; ours chain after it
    glfwSetWindowContentScaleCallback(window, [](GLFWwindow* w, float, float) {
      static_cast<Ui*>(glfwGetWindowUserPointer(w))->scaleChanged = true;  // applied between frames
    });
    glfwSetKeyCallback(window, [](GLFWwindow* w, int k, int s, int a, int m) {
      ImGui_ImplGlfw_KeyCallback(w, k, s, a, m);
      onKey(w, k, s, a, m);
    });
    glfwSetScrollCallback(window, [](GLFWwindow* w, double x, double y) {
      ImGui_ImplGlfw_ScrollCallback(w, x, y);
      onScroll(w, x, y);
    });
    *renderer = glRenderer();
    std::cout << "d2tsim: " << session.scenePath << " on " << *renderer << " (F1: help)\n";

    auto last = std::chrono::steady_clock::now();
    long frame = 0;
    while (!glfwWindowShouldClose(window)) {
      glfwPollEvents();
      // fixed-dt simulation, decoupled from the frame rate
      const auto now = std::chrono::steady_clock::now();
      const double wall = std::min(std::chrono::duration<double>(now - last).count(), 0.1);
      last = now;
      ui.fps = 0.95 * ui.fps + 0.05 * (wall > 0 ? 1.0 / wall : 0.0);
      handleMouse(ui);
      // the contact camera reads D back only while the texture viewer shows it
      if (session.contactCamera) session.contactCamera->keepSnapshots(ui.showsContactTexture());
      session.advance(wall, 8, kStepBudget);

      // scene into the offscreen target (the same path as headless), then to the window
      int fw, fh;
      glfwGetFramebufferSize(window, &fw, &fh);
      if (fw > 0 && fh > 0) {
        ui.target.resize(fw, fh);
        // what was picked or is dragged is drawn brighter
        ui.view.highlightBody = ui.picked.kind == Pick::Kind::Body ? ui.picked.index : -1;
        ui.view.highlightCollider = ui.drag ? ui.drag->collider() : -1;
        ui.renderer->render(*session.world, ui.camera, ui.target, ui.view);
        if (ui.screenshotRequested) {
          saveScreenshot(ui, timestampedName("d2tsim", ".png"));
          ui.screenshotRequested = false;
        }
        if (ui.recorder.recording() && !ui.recorder.addFrame(fw, fh, ui.target.readRgb())) {
          ui.status = ui.recorder.stop();
          std::cout << ui.status << "\n";
        }
        glBindFramebuffer(GL_READ_FRAMEBUFFER, ui.target.framebuffer());
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glBlitFramebuffer(0, 0, fw, fh, 0, 0, fw, fh, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, fw, fh);
      }

      // panels
      if (ui.scaleChanged) {
        ui.scaleChanged = false;
        const float now = windowUiScale(window);
        if (std::abs(now - ui.scale) > 0.01f) {
          applyUiScale(now, true);
          ui.scale = now;
        }
      }
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      if (ui.showPanels) {
        const AppSettings::Panels& p = settings.panels;
        ui.columnBottom = 0;
        if (p.scene) scenePanel(ui);
        if (p.simulation) simulationPanel(ui);
        if (p.view) viewPanel(ui);
        if (p.bodies) bodiesPanel(ui);
        if (p.statistics) statisticsPanel(ui);
        if (p.atlas) atlasPanel(ui);
        helpOverlay(ui);
      }
      // the recording marks and the status line, centred at the bottom over everything
      // (panels included: they are what the user must not miss)
      std::vector<std::pair<std::string, ImU32>> lines;
      if (ui.recorder.recording())
        lines.emplace_back("REC " + std::to_string(ui.recorder.frames()) + " frames", IM_COL32(255, 80, 80, 255));
      if (ui.benchFrom) lines.emplace_back("BENCH recording", IM_COL32(255, 180, 50, 255));
      if (!ui.status.empty()) lines.emplace_back(ui.status, IM_COL32(235, 235, 235, 255));
      overlayLines(lines, ui.scale);
      ImGui::Render();
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      const bool last = options.frames > 0 && ++frame >= options.frames;
      if (last && !options.screenshot.empty()) saveWindowShot(options.screenshot, fw, fh);
      glfwSwapBuffers(window);
      if (last) break;
    }
    // what the next run starts with
    if (ui.recorder.recording()) std::cout << ui.recorder.stop() << "\n";
    if (ui.benchFrom) toggleBenchRecording(ui);  // a bench being recorded is written, not lost
    if (ui.drag) session.endDrag();
    // the size as glfwCreateWindow takes it: where window coordinates are pixels (X11,
    // Windows) GLFW_SCALE_TO_MONITOR multiplies it by the content scale again at the
    // next start, so it is kept unscaled
    int ww = 0, wh = 0, fbw = 0, fbh = 0;
    glfwGetWindowSize(window, &ww, &wh);
    glfwGetFramebufferSize(window, &fbw, &fbh);
    const float unscale = fbw == ww && ui.scale > 1.01f ? ui.scale : 1.0f;
    if (ww > 0 && wh > 0 && !options.sizeGiven) {
      settings.windowWidth = int(std::lround(ww / unscale));
      settings.windowHeight = int(std::lround(wh / unscale));
    }
    std::error_code absEc;
    const fs::path scene = fs::absolute(session.scenePath, absEc);
    settings.lastScene = absEc ? session.scenePath : scene.lexically_normal().string();
    settings.view.highlightBody = settings.view.highlightCollider = -1;
    ui.renderer.reset();
    if (ui.atlasTexture) glDeleteTextures(1, &ui.atlasTexture);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  return code;
}

}  // namespace d2t
