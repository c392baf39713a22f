// The window: GLFW + ImGui frame loop over a Session (runWindowLoop, each step
// commented). Its input is in window_input.cpp, its output in window_output.cpp, its
// panels in src/app/panels/; what they share in ui.h.

#include "app/window/window_loop.h"

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

#include "app/app.h"
#include "app/panels/material_panel.h"
#include "app/window/ui_scale.h"
#include "app/panels/panels.h"

namespace d2t {

namespace {

namespace fs = std::filesystem;

// Wall time a frame may spend stepping [s]: beyond it the simulation runs slower
// than real time and the panels and the mouse still answer
// (docs/decisions/0022-window-step-budget.md).
constexpr double kStepBudget = 0.05;

// The window: OpenGL 4.3 core for the GPU solver's passes, else 3.3 core (rendering
// only); the saved size unless the command line gives one. nullptr: no window.
GLFWwindow* openWindow(const Options& options, const AppSettings& settings) {
  GLFWwindow* window = nullptr;
  for (int minor : {43, 33}) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, minor / 10);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor % 10);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    const bool saved = !options.sizeGiven && settings.windowWidth > 0 && settings.windowHeight > 0;
    window = glfwCreateWindow(saved ? settings.windowWidth : options.width,
                              saved ? settings.windowHeight : options.height, "d2tsim", nullptr, nullptr);
    if (window) break;
  }
  return window;
}

// ImGui on the window: its layout file next to the settings (not in the working
// directory), style, font and the panels' first positions at the content scale
// (rebuilt when the window moves to a monitor with another scale). The scale.
float setUpImGui(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  static std::string imguiIni;
  const std::string dir = settingsDirectory();
  std::error_code ec;
  if (!dir.empty() && (fs::create_directories(dir, ec), fs::is_directory(dir, ec)))
    imguiIni = (fs::path(dir) / "imgui.ini").string();
  ImGui::GetIO().IniFilename = imguiIni.empty() ? nullptr : imguiIni.c_str();
  const float uiScale = windowUiScale(window);
  applyUiScale(uiScale, false);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  return uiScale;
}

// Our callbacks, chained after ImGui's (which it installed first).
void installCallbacks(GLFWwindow* window, Ui& ui) {
  glfwSetWindowUserPointer(window, &ui);
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
  // an OBJ file dropped on the window: placed by the next click (a scene file: loaded)
  glfwSetDropCallback(window, [](GLFWwindow* w, int count, const char** paths) {
    Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
    if (count < 1) return;
    const std::string path = paths[0], ext = fs::path(path).extension().string();
    if (ext == ".json")
      ui.loadScene(path);
    else
      ui.placeMesh(path);
  });
}

// The scene into the offscreen target (the same path as headless), the screenshot and
// the recording from it, then the target onto the window.
void drawScene(Ui& ui, int fw, int fh) {
  Session& session = ui.session;
  ui.target.resize(fw, fh);
  // what was picked or is dragged is drawn brighter
  ui.view.highlightBody = ui.picked.kind == Pick::Kind::Body ? ui.picked.index : -1;
  ui.view.highlightCollider = ui.drag ? ui.drag->collider() : -1;
  ui.renderer->render(*session.world, ui.camera, ui.target, ui.view, session.gpuSkins);
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

// The panels, then the recording marks and the status line, centred at the bottom over
// everything (panels included: they are what the user must not miss).
void drawPanels(Ui& ui, GLFWwindow* window, const AppSettings& settings) {
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
    if (p.timeline) timelinePanel(ui);
    if (p.metaphors) metaphorPanel(ui);
    if (p.morph) morphPanel(ui);
    helpOverlay(ui);
  }
  std::vector<std::pair<std::string, ImU32>> lines;
  if (ui.recorder.recording())
    lines.emplace_back("REC " + std::to_string(ui.recorder.frames()) + " frames", IM_COL32(255, 80, 80, 255));
  if (ui.benchFrom) lines.emplace_back("BENCH recording", IM_COL32(255, 180, 50, 255));
  if (!ui.status.empty()) lines.emplace_back(ui.status, IM_COL32(235, 235, 235, 255));
  overlayLines(lines, ui.scale);
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// What the next run starts with: a recording or bench being recorded is written, not
// lost; the window size and the scene are remembered.
void finishRun(Ui& ui, GLFWwindow* window, const Options& options, AppSettings& settings) {
  if (ui.recorder.recording()) std::cout << ui.recorder.stop() << "\n";
  if (ui.benchFrom) toggleBenchRecording(ui);
  if (ui.drag) ui.session.endDrag();
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
  const fs::path scene = fs::absolute(ui.session.scenePath, absEc);
  settings.lastScene = absEc ? ui.session.scenePath : scene.lexically_normal().string();
  settings.view.highlightBody = settings.view.highlightCollider = -1;
}

}  // namespace

int runWindowLoop(Session& session, const Options& options, AppSettings& settings, std::string* renderer) {
  glfwSetErrorCallback([](int code, const char* text) {
    std::cerr << "d2tsim: GLFW error " << code << ": " << text << "\n";
  });
  if (!glfwInit()) return kNoWindow;
  GLFWwindow* window = openWindow(options, settings);
  if (!window) {
    glfwTerminate();
    return kNoWindow;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  {
    loadGlFunctions();
    const float uiScale = setUpImGui(window);
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
    installCallbacks(window, ui);
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
      int fw, fh;
      glfwGetFramebufferSize(window, &fw, &fh);
      if (fw > 0 && fh > 0) drawScene(ui, fw, fh);
      drawPanels(ui, window, settings);
      const bool lastFrame = options.frames > 0 && ++frame >= options.frames;
      if (lastFrame && !options.screenshot.empty()) saveWindowShot(options.screenshot, fw, fh);
      glfwSwapBuffers(window);
      if (lastFrame) break;
    }
    finishRun(ui, window, options, settings);
    ui.renderer.reset();
    if (ui.atlasTexture) glDeleteTextures(1, &ui.atlasTexture);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace d2t
