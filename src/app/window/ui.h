#pragma once
// What the window's frame loop, its input handlers and the panels share: the Ui state,
// and the functions each part calls of the others.
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/options.h"
#include "app/output/recorder.h"
#include "app/panels/atlas_view.h"
#include "app/render/renderer.h"
#include "app/session.h"
#include "app/settings.h"
#include "app/window/picking.h"
#include "gpu/contact/contact_camera.h"

namespace d2t {

/// What a left-button press started.
enum class MouseMode { None, Orbit, Pan, DragCollider, DragSkin, Brush, DragHandle };

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
  // a mesh being added (Scene panel, or an OBJ dropped on the window): the file, what it
  // becomes, and whether the next click in the scene places it
  std::string meshPath;
  bool meshAsBody = true;
  int meshNodes = kMeshBodyNodes;
  int meshBones = 0;             // > 0: bones along its medial axis (about this many)
  bool placingMesh = false;
  std::string meshReport;        // what the last one became, or why it could not be added
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
  // the Metaphors panel: the selected metaphor, its fields as being edited (applied when a
  // field is let go), the last refusal, the scene file to save to
  int metaphor = -1;
  MetaphorDesc metaphorDraft;
  bool metaphorEditing = false;
  std::string metaphorError;
  std::string saveScenePath;
  std::string metaphorType = "twist";  // what "add" and the brush make
  bool brush = false;          // a left drag on a body paints a region instead of pulling the skin
  double brushRadius = 0.06;   // [m] on the rest skin, about each node under the cursor
  int brushBody = -1;          // the body being painted
  std::vector<int> brushNodes; // its painted nodes, sorted
  bool snapshotsChanged = false;

  bool showsContactTexture() const {
    return showPanels && settings.panels.atlas && atlasChannel == int(atlasChannels().size());
  }

  void resetCamera() {
    const CameraDesc& c = session.world->scene().camera;
    camera = Camera(c.eye, c.target, c.fovY);
  }
  /// The session has a new world (a scene loaded, a mesh added): what referred to the old one goes.
  void worldReplaced() {
    renderer->setWorld(*session.world);
    drag.reset();
    picked = Pick{};
    mouse = MouseMode::None;
    benchFrom.reset();
    materialChanges.clear();
    materialEdits.clear();
    metaphor = -1;
    metaphorEditing = false;
    brushBody = -1;
    brushNodes.clear();
    metaphorError.clear();
    saveScenePath.clear();
  }
  /// Starts placing `path`: the next click in the scene puts it there.
  void placeMesh(const std::string& path) {
    meshPath = path;
    placingMesh = true;
    settings.panels.scene = true;
    status = "click in the scene where " + path + " should go (Esc: cancel)";
  }
  /// Adds the mesh being placed at world point `at` (Session::addMesh), the scene restarted.
  void addMeshAt(const Vec3& at) {
    placingMesh = false;
    try {
      meshReport = session.addMesh(meshPath, meshAsBody, at, meshNodes, meshBones);
      worldReplaced();
      status = "added " + meshReport + " (the scene restarted)";
    } catch (const std::exception& e) {
      meshReport = e.what();
      status = "could not add " + meshPath;
    }
  }
  void loadScene(const std::string& path) {
    try {
      session.load(path, nullptr);
      worldReplaced();
      resetCamera();
      loadError.clear();
      status = "loaded " + path;
    } catch (const std::exception& e) {
      loadError = e.what();  // the running scene stays
    }
  }
};

/// Panel placement in unscaled pixels, times the content scale.
inline ImVec2 px(const Ui& ui, float x, float y) { return ImVec2(x * ui.scale, y * ui.scale); }

// ---- window_output.cpp: screenshots, recordings, the overlay's lines -------------------
void saveScreenshot(Ui& ui, const std::string& path);
/// --screenshot in a window: the whole window, panels included.
void saveWindowShot(const std::string& path, int w, int h);
void toggleFrameRecording(Ui& ui, FrameRecorder::Format format);
void toggleBenchRecording(Ui& ui);
/// Lines of text centred at the bottom of the window, each on a dark band.
void overlayLines(const std::vector<std::pair<std::string, ImU32>>& lines, float scale);

// ---- window_input.cpp: keys and mouse ----------------------------------------------------
void onKey(GLFWwindow* w, int key, int scancode, int action, int mods);
void onScroll(GLFWwindow* w, double dx, double dy);
/// Drags colliders, pulls skin, orbits and pans, from this frame's mouse state.
void handleMouse(Ui& ui);

}  // namespace d2t
