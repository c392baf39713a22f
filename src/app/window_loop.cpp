#include "app/window_loop.h"

#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "app/app.h"
#include "app/atlas_view.h"
#include "app/renderer.h"

namespace d2t {

namespace {

namespace fs = std::filesystem;

/// Everything the frame loop and the panels share.
struct Ui {
  Ui(Session& s, const Options& o) : session(s), options(o) {}
  Session& session;
  const Options& options;
  GLFWwindow* window = nullptr;
  Camera camera;
  ViewOptions view;
  std::unique_ptr<Renderer> renderer;
  RenderTarget target;
  bool showHelp = false;
  bool screenshotRequested = false;
  std::string status;            // last message shown in the status line
  std::string loadError;         // last scene-load error (shown in the picker)
  double lastX = 0, lastY = 0;
  double fps = 0;
  // texture viewer: the picture on screen and what it shows
  GLuint atlasTexture = 0;
  int atlasBody = 0, atlasChannel = 0, atlasShownBody = -1, atlasShownChannel = -1;
  const BakedBody* atlasShownModel = nullptr;

  void resetCamera() {
    const CameraDesc& c = session.world->scene().camera;
    camera = Camera(c.eye, c.target, c.fovY);
  }
  void loadScene(const std::string& path) {
    try {
      session.load(path, nullptr);
      renderer->setWorld(*session.world);
      resetCamera();
      loadError.clear();
      status = "loaded " + path;
    } catch (const std::exception& e) {
      loadError = e.what();  // the running scene stays
    }
  }
};

std::string timestampedName() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "d2tsim-%Y%m%d-%H%M%S.png", std::localtime(&t));
  return buf;
}

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

void onKey(GLFWwindow* w, int key, int, int action, int mods) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  switch (key) {
    case GLFW_KEY_SPACE: ui.session.paused = !ui.session.paused; break;
    case GLFW_KEY_N:
      ui.session.paused = true;
      ui.session.step();
      break;
    case GLFW_KEY_R: ui.session.reset(); break;
    case GLFW_KEY_P:
      if (mods & GLFW_MOD_CONTROL) ui.screenshotRequested = true;
      break;
    case GLFW_KEY_F1: ui.showHelp = !ui.showHelp; break;
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    default: break;
  }
}

void onScroll(GLFWwindow* w, double, double dy) {
  Ui& ui = *static_cast<Ui*>(glfwGetWindowUserPointer(w));
  if (ImGui::GetIO().WantCaptureMouse) return;
  ui.camera.zoom(std::pow(0.9, dy));
}

// camera: left drag orbits, right or middle drag pans (Shift + left too)
void handleMouse(Ui& ui) {
  double x, y;
  glfwGetCursorPos(ui.window, &x, &y);
  const double dx = x - ui.lastX, dy = y - ui.lastY;
  ui.lastX = x;
  ui.lastY = y;
  if (ImGui::GetIO().WantCaptureMouse) return;
  int w, h;
  glfwGetWindowSize(ui.window, &w, &h);
  const bool left = glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  const bool right = glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
                     glfwGetMouseButton(ui.window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  const bool shift = glfwGetKey(ui.window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS;
  if (left && !shift) ui.camera.orbit(-dx * 0.006, dy * 0.006);
  if (right || (left && shift)) ui.camera.pan(dx / std::max(h, 1), dy / std::max(h, 1));
}

void scenePanel(Ui& ui) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Scene");
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
  ImGui::SetNextWindowPos(ImVec2(10, 160), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Simulation");
  ImGui::Text("t = %.3f s, %ld steps", s.world->time(), s.world->steps());
  if (ImGui::Button(s.paused ? "Run (Space)" : "Pause (Space)")) s.paused = !s.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) {
    s.paused = true;
    s.step();
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) s.reset();
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
  ImGui::Checkbox("shadows", &ui.view.shadows);
  ImGui::SameLine();
  ImGui::Checkbox("wireframe", &ui.view.wireframe);
  ImGui::TextUnformatted("backend:");
  for (const char* b : {"cpu", "gpu"}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(b, set.backend == b) && set.backend != b) s.setBackend(b);
  }
  if (!s.backendNote.empty()) ImGui::TextWrapped("(%s)", s.backendNote.c_str());
  if (!s.lastWarning.empty()) ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", s.lastWarning.c_str());
  ImGui::End();
}

// Per body, live: the material. A change re-assembles K_e and the masses from the
// same shape and atlas (World::setMaterial) when the slider is released.
void bodiesPanel(Ui& ui) {
  Session& s = ui.session;
  ImGui::SetNextWindowPos(ImVec2(350, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);  // open it to tune a material
  ImGui::Begin("Bodies", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  auto& bodies = s.world->bodies();
  for (size_t i = 0; i < bodies.size(); ++i) {
    ImGui::PushID(int(i));
    if (ImGui::CollapsingHeader(bodies[i].desc.name.c_str())) {
      Material m = bodies[i].desc.material;
      bool changed = false;
      auto slider = [&](const char* label, double* v, double lo, double hi, const char* fmt, bool log) {
        ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt,
                            log ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
        changed = changed || ImGui::IsItemDeactivatedAfterEdit();
      };
      slider("Young [Pa]", &m.young, 1e2, 1e8, "%.3g", true);
      slider("Poisson", &m.poisson, 0.0, 0.49, "%.3f", false);
      slider("density [kg/m3]", &m.density, 100, 5000, "%.0f", true);
      slider("damping alpha [1/s]", &m.alpha, 0.0, 10.0, "%.3f", false);
      slider("damping beta [s]", &m.beta, 0.0, 0.1, "%.4f", false);
      slider("friction", &m.friction, 0.0, 2.0, "%.2f", false);
      slider("restitution", &m.restitution, 0.0, 1.0, "%.2f", false);
      if (changed) {
        try {
          const double ms = s.world->setMaterial(i, m);
          if (s.world->settings().backend == "gpu") s.setBackend("gpu");  // its K_e textures
          char text[160];
          std::snprintf(text, sizeof text, "%s: K_e and masses re-assembled in %.1f ms", bodies[i].desc.name.c_str(),
                        ms);
          ui.status = text;
        } catch (const std::exception& e) {
          ui.status = e.what();
        }
      }
      ImGui::Text("%d nodes, %d tets, %.1f kg", bodies[i].nodes(), bodies[i].tets(), bodies[i].mass());
    }
    ImGui::PopID();
  }
  ImGui::End();
}

void statisticsPanel(Ui& ui) {
  const Session& s = ui.session;
  ImGui::SetNextWindowPos(ImVec2(10, 400), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Statistics", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("%.1f fps", ui.fps);
  const std::vector<float> recent = s.log.recentSteps(300);
  if (!recent.empty()) {
    ImGui::Text("step: %.3f ms (median %.3f ms)", recent.back(), s.log.medianStep());
    ImGui::PlotLines("##step", recent.data(), int(recent.size()), 0, "step [ms]", 0.0f, FLT_MAX,
                     ImVec2(0, 50));
  }
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
  if (s.world->bodies().size() > 1) {
    const PairStats& p = s.world->pairStats();
    ImGui::Text("bodies: %d pairs near, %d past stage 1, %d contact nodes", p.broadPairs, p.proxyPairs,
                p.contactNodes);
  }
  for (const Body& b : s.world->bodies()) {
    const Energy e = s.world->energy(b);
    ImGui::Text("%s: %d contacts, E %.3f J, resets %d", b.desc.name.c_str(), b.stats.contacts,
                e.total(), b.stats.resets);
  }
  ImGui::End();
}

// the baked atlas textures of one body as an image
void atlasPanel(Ui& ui) {
  const auto& bodies = ui.session.world->bodies();
  ImGui::SetNextWindowPos(ImVec2(float(ui.target.width()) - 300, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(290, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Atlas");
  if (bodies.empty()) {
    ImGui::TextUnformatted("no deformable bodies");
    ImGui::End();
    return;
  }
  ui.atlasBody = std::clamp(ui.atlasBody, 0, int(bodies.size()) - 1);
  if (ImGui::BeginCombo("body", bodies[size_t(ui.atlasBody)].desc.name.c_str())) {
    for (int i = 0; i < int(bodies.size()); ++i)
      if (ImGui::Selectable(bodies[size_t(i)].desc.name.c_str(), i == ui.atlasBody)) ui.atlasBody = i;
    ImGui::EndCombo();
  }
  const auto& channels = atlasChannels();
  if (ImGui::BeginCombo("texture", channels[size_t(ui.atlasChannel)].second)) {
    for (int i = 0; i < int(channels.size()); ++i)
      if (ImGui::Selectable(channels[size_t(i)].second, i == ui.atlasChannel)) ui.atlasChannel = i;
    ImGui::EndCombo();
  }
  const BakedBody& m = *bodies[size_t(ui.atlasBody)].model;
  const int n = m.atlas.resolution;
  if (ui.atlasShownBody != ui.atlasBody || ui.atlasShownChannel != ui.atlasChannel ||
      ui.atlasShownModel != &m) {
    const std::vector<uint8_t> img = atlasImage(m, channels[size_t(ui.atlasChannel)].first);
    if (!ui.atlasTexture) glGenTextures(1, &ui.atlasTexture);
    glBindTexture(GL_TEXTURE_2D, ui.atlasTexture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, n, n, 0, GL_RGBA, GL_UNSIGNED_BYTE, img.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    ui.atlasShownBody = ui.atlasBody;
    ui.atlasShownChannel = ui.atlasChannel;
    ui.atlasShownModel = &m;
  }
  const float side = ImGui::GetContentRegionAvail().x;
  // texel row 0 is the bottom row of the atlas: flip v so the picture is upright
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(ui.atlasTexture)),
               ImVec2(side, side), ImVec2(0, 1), ImVec2(1, 0));
  ImGui::Text("%d x %d texels, %d patches", n, n, m.atlas.patchCount);
  ImGui::Text("%d nodes, %d tetrahedra", m.nodeCount(), m.tetCount());
  ImGui::Text("mass %.3f kg (core %.3f kg)", m.totalMass, m.coreMass);
  ImGui::End();
}

void helpOverlay(Ui& ui) {
  if (!ui.showHelp) return;
  ImGui::SetNextWindowPos(ImVec2(360, 10), ImGuiCond_Always);
  ImGui::Begin("Help (F1)", &ui.showHelp, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("Space        pause / run");
  ImGui::Text("N            single step");
  ImGui::Text("R            reset the scene");
  ImGui::Text("Ctrl+P       screenshot (timestamped PNG)");
  ImGui::Text("F1           this help");
  ImGui::Text("Esc          quit");
  ImGui::Separator();
  ImGui::Text("Left drag    orbit the camera");
  ImGui::Text("Right drag   pan (also Shift + left drag, middle drag)");
  ImGui::Text("Wheel        zoom");
  ImGui::End();
}

}  // namespace

int runWindowLoop(Session& session, const Options& options, std::string* renderer) {
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
    window = glfwCreateWindow(options.width, options.height, "d2tsim", nullptr, nullptr);
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
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    if (sx > 1.01f) {
      ImGui::GetStyle().ScaleAllSizes(sx);
      ImGui::GetIO().FontGlobalScale = sx;
    }
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    session.glReady = true;
    session.setBackend(session.requestedBackend);
    Ui ui(session, options);
    ui.window = window;
    ui.renderer = std::make_unique<Renderer>();
    ui.renderer->setWorld(*session.world);
    ui.resetCamera();
    glfwSetWindowUserPointer(window, &ui);
    // ImGui installed its callbacks first; ours chain after it
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
      session.advance(wall, 8);

      // scene into the offscreen target (the same path as headless), then to the window
      int fw, fh;
      glfwGetFramebufferSize(window, &fw, &fh);
      if (fw > 0 && fh > 0) {
        ui.target.resize(fw, fh);
        ui.renderer->render(*session.world, ui.camera, ui.target, ui.view);
        if (ui.screenshotRequested) {
          saveScreenshot(ui, timestampedName());
          ui.screenshotRequested = false;
        }
        glBindFramebuffer(GL_READ_FRAMEBUFFER, ui.target.framebuffer());
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glBlitFramebuffer(0, 0, fw, fh, 0, 0, fw, fh, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, fw, fh);
      }

      // panels
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      scenePanel(ui);
      simulationPanel(ui);
      bodiesPanel(ui);
      statisticsPanel(ui);
      atlasPanel(ui);
      helpOverlay(ui);
      if (!ui.status.empty()) {
        ImGui::SetNextWindowPos(ImVec2(10, float(fh) - 34), ImGuiCond_Always);
        ImGui::Begin("##status", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                         ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoBackground);
        ImGui::TextUnformatted(ui.status.c_str());
        ImGui::End();
      }
      ImGui::Render();
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      const bool last = options.frames > 0 && ++frame >= options.frames;
      if (last && !options.screenshot.empty()) saveWindowShot(options.screenshot, fw, fh);
      glfwSwapBuffers(window);
      if (last) break;
    }
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
