#pragma once
// A loaded scene being simulated: the world, its step log, and the loop's
// controls. Shared by the windowed and the headless front ends.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/output/step_log.h"
#include "sim/world/timeline.h"
#include "sim/world/world.h"

namespace d2t {

class ContactCamera;
class GpuSkin;

struct Session {
  std::string scenePath;
  std::unique_ptr<World> world;
  StepLog log;
  bool paused = false;
  double realTimeFactor = 1.0;   ///< simulated seconds per wall-clock second
  double accumulator = 0;        ///< simulated time owed to the fixed-dt loop [s]
  std::string backendNote;       ///< why the requested backend is not the one running, if so
  std::string requestedBackend;  ///< what the scene or the command line asked for
  /// Stage 2 between bodies on the GPU backend (null on the CPU or with one body);
  /// the texture viewer shows its contact texture D.
  std::shared_ptr<ContactCamera> contactCamera;
  /// The GPU solver of each body on the GPU backend (empty on the CPU): the renderer
  /// draws a body that still runs on its solver from the solver's textures.
  std::vector<std::shared_ptr<GpuSkin>> gpuSkins;

  /// Loads and validates a scene; throws InputError (the session is unchanged then).
  /// With a GL context (glReady) the scene's backend is set up at once.
  void load(const std::string& path, const struct Options* overrides);
  /// ... from a scene's JSON (a recording's), its relative paths from `path`'s directory.
  void load(const nlohmann::json& json, const std::string& path, const struct Options* overrides);

  // ---- the run's timeline -------------------------------------------------------------
  /// Whether the run is recorded (a timeline is made with every world: the window's default;
  /// headless with --record).
  bool recording = false;
  /// The run's states and inputs (timeline.h): scrub, replay, edit the past. Null when not
  /// recording. Every input of the session's goes through input().
  std::unique_ptr<Timeline> timeline;
  /// Applies an input to the world, through the timeline when recording (which discards
  /// the recorded future of an input in the past: its notice goes to lastWarning).
  void input(const WorldInput& in);
  /// Puts the run at step k of the timeline (paused there; a collider drag is let go).
  void seek(long k);
  /// Turns recording on or off (on: from the world's current step).
  void setRecording(bool on);
  /// The timeline's last notice (the recorded future an edit discarded), for its panel.
  std::string timelineNotice;
  /// The loaded scene file's JSON, with what addMesh added.
  nlohmann::json sceneJson;
  /// Writes the scene as it runs now to `path`: the loaded scene's JSON with its
  /// "metaphors" the world's (the Metaphors panel's edits), so that a headless run of the
  /// file reproduces them. Throws InputError naming the file when it cannot be written.
  void saveScene(const std::string& path);
  /// What the load did to the scene's meshes, one line each ("body 'b': PATH: closed by a
  /// winding-number repair: ..."; also printed to stderr as notes).
  std::vector<std::string> loadNotes;
  /// Adds an OBJ file to the scene where the user put it (`at`: the point its lowest point
  /// rests on): a soft body (closed and re-meshed as the scene reader does any shape the
  /// atlas cannot hold, at `nodes` nodes; with `bones` > 0, a character with about that many
  /// bones along its medial axis) or a draggable rigid collider, named by the file (made
  /// unique), and restarts the scene with it. Returns one line on what it became (its repair,
  /// its node count, its skeleton, its collider pieces). Throws InputError naming the file and
  /// what is wrong (the session is unchanged then).
  std::string addMesh(const std::string& objPath, bool softBody, const Vec3& at, int nodes, int bones = 0);
  /// Puts every body on the requested backend ("cpu" or "gpu"). Needs a current GL
  /// context for "gpu"; when the GPU solver cannot run (no context, a shader or
  /// framebuffer error) the bodies stay on the CPU and backendNote says why.
  void setBackend(const std::string& backend);
  /// Whether a GL context is current for the session's lifetime (set by the front ends).
  bool glReady = false;
  /// One fixed step, timed into the log; warnings go to stderr and `lastWarning`.
  void step();
  /// Steps owed for `wallSeconds` of real time: at most `maxSteps`, and no more once
  /// the steps have taken `budgetSeconds` of wall time (at least one is taken); the
  /// rest is dropped, so a simulation that cannot keep up runs slower than real time
  /// and the window stays responsive. Returns the steps taken.
  int advance(double wallSeconds, int maxSteps, double budgetSeconds = 1e300);
  void reset();
  std::string lastWarning;

  // ---- a collider dragged by the user ------------------------------------------------
  /// Starts dragging collider `index` (the window's mouse; tests script it the same way).
  /// Returns false (and does nothing) for a collider that is not draggable.
  bool beginDrag(int index);
  /// Where the dragged collider (or the pulled skin point's spring target) should be. While running, each step of the next
  /// advance() moves it an equal share of the way (Collider::dragTo with the step's dt,
  /// so contacts see velocity = displacement / dt), at most kMaxDragSpeed; while
  /// paused it is placed there at rest.
  void dragTo(const Vec3& target);
  /// Lets go: the collider stays where it is (its script stays off until reset); a
  /// pulled skin point is let go.
  void endDrag();
  int draggedCollider() const { return drag_; }

  // ---- a skin point pulled by the user -----------------------------------------------
  /// Pulls skin node `node` of body `body` toward `target` (world) with the world's
  /// default drag spring (World::beginSkinDrag: implicit, critically damped). Ends a
  /// collider drag. dragTo() then moves the target, endDrag() lets go. Returns false
  /// (and does nothing) for a bad body or node.
  bool beginSkinDrag(int body, int node, const Vec3& target);
  /// The same on a character's skin node (World::beginCharacterDrag).
  bool beginCharacterDrag(int character, int node, const Vec3& target);
  /// The body whose skin is pulled, -1: none.
  int skinDragBody() const { return world ? world->skinDragBody() : -1; }
  /// Fastest a dragged collider moves [m/s] (a flick of the mouse would otherwise
  /// carry it through a body in one step).
  static constexpr double kMaxDragSpeed = 8.0;

 private:
  void moveDragged();
  static WorldInput colliderDrag(int index, const Vec3& target, double dt);
  /// The timeline's notice (a discarded future) to stderr and lastWarning.
  void noteTimeline();
  /// The world of `scene`, on the requested backend; the load notes printed.
  void start(const Scene& scene);
  int drag_ = -1;              // dragged collider, -1: none
  Vec3 dragTarget_ = Vec3::Zero();
  int dragStepsLeft_ = 0;      // steps left in this advance() to reach the target
  size_t gpuFailures_ = 0;     // the world's backend failures already met (the CPU taken over)
};

}  // namespace d2t
