#include "app/app.h"

#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app/output/metrics.h"
#include "app/render/renderer.h"
#include "app/session.h"
#include "app/settings.h"
#include "app/window/window_loop.h"
#include "gpu/gl/egl_context.h"
#include "sim/model/baked_body.h"
#include "sim/model/bake_report.h"
#include "sim/character/mesh_character.h"
#include "sim/contact/collider_pieces.h"
#include "sim/scene/mesh_repair.h"
#include "sim/scene/obj_loader.h"
#include "sim/world/recording.h"

namespace d2t {

namespace fs = std::filesystem;

void writePng(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
  }
  if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3))
    throw std::runtime_error(path + ": cannot write the PNG");
}

int listScenes() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sceneDirectory(), ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  if (ec) {
    std::cerr << "d2tsim: " << sceneDirectory() << ": " << ec.message() << "\n";
    return 1;
  }
  std::sort(files.begin(), files.end());
  std::cout << "Scenes in " << sceneDirectory() << ":\n";
  size_t column = 0;  // (the descriptions start one space after the longest name)
  for (const fs::path& f : files) column = std::max(column, f.filename().string().size() + 1);
  for (const fs::path& f : files) {
    std::string description;
    try {
      const nlohmann::json j = readJsonFile(f.string());
      description = j.value("description", std::string("(no description)"));
    } catch (const std::exception& e) {
      description = std::string("(unreadable: ") + e.what() + ")";
    }
    std::cout << "  " << f.filename().string();
    for (size_t pad = f.filename().string().size(); pad < column; ++pad) std::cout << ' ';
    std::cout << description << "\n";
  }
  return 0;
}

int printMeshReport(const std::string& path) {
  try {
    TriMesh mesh = loadObjSoup(path);
    const MeshReport report = orientPieces(&mesh);
    std::cout << meshReportText(report, path);
    std::cout << "  as a soft body (" << kMeshBodyNodes << " nodes unless the scene says): "
              << softBodyText(mesh, report, kMeshBodyNodes, path, [&](const TriMesh& closed) {
                   // (the layer a mesh body would bake: meshCharacter refuses a surface with no room)
                   meshCharacter(std::filesystem::path(path).stem().string(), closed, 0.6, Material{});
                 }) << "\n";
    const std::vector<ColliderPiece> pieces = cutIntoPieces(mesh, report.closedTriangle);
    int doubleSided = 0;
    for (const ColliderPiece& p : pieces) doubleSided += p.doubleSided;
    std::cout << "  as a collider, stage 1 sees it as " << pieces.size() << (pieces.size() == 1 ? " piece" : " pieces")
              << (pieces.size() == 1 ? " (its hull: closed and close to it)" : " (nearly flat clusters)") << ", "
              << doubleSided << " of them double-sided\n";
  } catch (const InputError& e) {
    std::cerr << "d2tsim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

namespace {

// --export-obj: the first body's rest surface, about `resolution` segments across.
int writeBodyObj(const Scene& scene, const std::optional<int>& resolution, const std::string& path) {
  if (scene.bodies.empty()) throw InputError(scene.file + ": /bodies: expected at least one body to export");
  const BodyDesc& d = scene.bodies.front();
  const int res = resolution.value_or(d.atlasResolution);
  const TriMesh mesh = d.shape->mesh(res);
  try {
    writeObj(mesh, path,
             "body '" + d.name + "' of " + fs::path(scene.file).filename().string() + " (" + d.shape->type() +
                 "), " + std::to_string(res) + " segments: written by d2tsim --export-obj");
  } catch (const std::runtime_error& e) {
    std::cerr << "d2tsim: " << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << path << ": " << mesh.positions.size() << " vertices, " << mesh.triangles.size()
            << " triangles\n";
  return 0;
}

// --bake-report: bake every body of the scene and write one report per body.
int writeBakeReport(const Scene& scene, const std::string& path) {
  nlohmann::json bodies = nlohmann::json::array();
  for (const BodyDesc& d : scene.bodies) {
    const auto t0 = std::chrono::steady_clock::now();
    auto progress = [&](float f, const char* stage) {
      std::cerr << "\rbaking " << d.name << ": " << stage << " " << int(100 * f) << "%   " << std::flush;
    };
    const std::shared_ptr<const BakedBody> baked = bake(d, progress);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "\rbaked " << d.name << " in " << ms << " ms                    \n";
    bodies.push_back(bakeReport(*baked, d.name, ms));
  }
  nlohmann::json j;
  j["scene"] = scene.file;
  j["bodies"] = bodies;
  writeJson(path, j);
  std::cout << "bake report written to " << path << "\n";
  return 0;
}

void printSummary(const Session& s) {
  const StepLog& log = s.log;
  const World& w = *s.world;
  const double stepMs = log.medianStep();
  std::cout << "\n" << w.steps() << " steps of " << w.settings().dt * 1e3 << " ms ("
            << w.time() << " s simulated); median step " << stepMs << " ms";
  if (stepMs > 0) std::cout << " = " << 1000.0 / stepMs << " steps/s";
  std::cout << "\n  stage medians [ms]:";
  for (const StageClock& st : log.clocks()) std::cout << " " << st.name() << " " << log.medianStage(st);
  std::cout << "\n";
  for (const Body& b : w.bodies()) {
    std::cout << "  " << b.desc.name << ": com (" << b.state.position.x() << ", "
              << b.state.position.y() << ", " << b.state.position.z() << ") speed "
              << b.state.velocity.norm() << " m/s, max penetration "
              << b.stats.maxPenetration * 1e3 << " mm, resets " << b.stats.resets << "\n";
  }
  for (const Character& c : w.characters()) {
    const Vec3 x = c.body->centreOfMass();
    std::cout << "  " << c.spec.name << " (" << c.spec.model << ", " << c.model->boneCount() << " bones, "
              << c.model->nodeCount() << " nodes): com (" << x.x() << ", " << x.y() << ", " << x.z() << ") speed "
              << c.body->linearMomentum().norm() / c.model->totalMass << " m/s, largest joint angle "
              << c.stats.maxJointAngle * 180 / kPi << " deg, joint error " << c.stats.maxJointError * 1e3
              << " mm, max |q| " << c.stats.maxDisplacement * 1e3 << " mm, resets " << c.stats.resets << "\n";
  }
}

// --bench, --metrics and --record, for windowed and headless runs alike
void writeOutputs(Session& s, const Options& o, const std::string& renderer) {
  if (!o.record.empty() && s.timeline) {
    Timeline& t = *s.timeline;
    if (s.world->steps() != t.head()) t.seek(*s.world, t.head());  // (the window was scrubbed back)
    Recording rec = recordingOf(t, *s.world);
    rec.scene = s.scenePath;
    rec.sceneJson = s.sceneJson;
    rec.overrides = overridesJson(o);
    writeRecording(o.record, rec);
    std::cout << "recording written to " << o.record << ": steps " << rec.firstStep << "-" << rec.steps << ", "
              << rec.inputs.size() << " inputs, " << rec.checkpoints.size() << " state hashes\n";
  }
  if (!o.bench.empty()) {
    s.log.writeCsv(o.bench, s.world->settings().dt);
    std::cout << "bench written to " << o.bench << "\n";
  }
  if (!o.metrics.empty()) {
    writeJson(o.metrics, runMetrics(*s.world, s.log, renderer, s.world->settings().backend));
    std::cout << "metrics written to " << o.metrics << "\n";
  }
}

// A headless GL context (for pictures, the GPU backend and the renderer's name), or none
// with a warning where none is `required`.
std::unique_ptr<EglContext> headlessContext(Session& s, bool required, std::string* renderer) {
  std::unique_ptr<EglContext> gl;
  *renderer = "none";
  try {
    gl = EglContext::create();
    *renderer = glRenderer();
    s.glReady = true;
  } catch (const GlError& e) {
    if (required) throw;
    std::cerr << "d2tsim: warning: " << e.what() << " (continuing without rendering)\n";
  }
  s.setBackend(s.requestedBackend);
  return gl;
}

// --replay: the recording's scene with its inputs, every checkpoint's hash compared.
int runReplay(const Options& o) {
  if (!o.scene.empty()) {
    std::cerr << "d2tsim: --replay takes the scene from the recording; give no scene file with it\n";
    return 2;
  }
  Session s;
  std::string renderer;
  Recording rec;
  try {
    rec = readRecording(o.replay);
    Options given;
    applyOverrides(rec.overrides, o.replay, &given);
    s.load(rec.sceneJson, rec.scene, &given);
  } catch (const InputError& e) {
    std::cerr << "d2tsim: " << e.what() << "\n";
    return 1;
  }
  const std::unique_ptr<EglContext> gl = headlessContext(s, false, &renderer);
  std::cout << "d2tsim replay: " << o.replay << " (" << rec.scene << "), steps " << rec.firstStep << "-" << rec.steps
            << ", " << rec.inputs.size() << " inputs, " << rec.checkpoints.size() << " state hashes, backend "
            << s.world->settings().backend << "\n";
  std::string why;
  const long bad = replay(*s.world, rec, &why);
  if (bad >= 0) {
    std::cerr << "d2tsim: replay: " << o.replay << ": differs at " << why << "\n";
    return 1;
  }
  std::cout << "replay: all " << rec.checkpoints.size() << " state hashes agree (to step " << rec.steps << ")\n";
  return 0;
}

int runHeadless(Session& s, const Options& o) {
  std::string renderer;
  const std::unique_ptr<EglContext> gl = headlessContext(s, !o.screenshot.empty(), &renderer);
  const int steps = o.frames > 0 ? o.frames : 600;
  s.world->recordTrajectory(!o.metrics.empty());
  std::cout << "d2tsim headless: " << s.scenePath << ", " << steps << " steps, renderer "
            << renderer << "\n";
  for (int i = 0; i < steps; ++i) s.step();
  printSummary(s);
  if (!o.screenshot.empty()) {
    Renderer r;
    r.setWorld(*s.world);
    const CameraDesc& c = s.world->scene().camera;
    Camera camera(c.eye, c.target, c.fovY);
    RenderTarget target;
    target.resize(o.width, o.height);
    r.render(*s.world, camera, target, ViewOptions{}, s.gpuSkins);
    writePng(o.screenshot, o.width, o.height, target.readRgb());
    std::cout << "screenshot written to " << o.screenshot << "\n";
  }
  writeOutputs(s, o, renderer);
  return 0;
}

bool haveDisplay() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

}  // namespace

int runApp(const Options& o) {
  const bool headless = o.headless || !haveDisplay();
  // a window remembers its settings; headless runs ignore them (reproducible)
  AppSettings settings;
  std::string scenePath = o.scene.empty() ? defaultScenePath() : o.scene;
  if (!headless && o.bakeReport.empty() && o.exportObj.empty()) {
    std::string warning;
    settings = loadSettings(settingsPath(), &warning);
    if (!warning.empty()) std::cerr << "d2tsim: warning: " << warning << "\n";
    std::error_code ec;
    if (o.scene.empty() && !settings.lastScene.empty() && fs::is_regular_file(settings.lastScene, ec))
      scenePath = settings.lastScene;
  }
  if (!o.replay.empty()) return runReplay(o);
  Session session;
  session.recording = !headless || !o.record.empty();  // (the window's timeline, or --record)
  try {
    if (!o.bakeReport.empty()) {
      Scene scene = loadScene(scenePath);
      return writeBakeReport(scene, o.bakeReport);
    }
    if (!o.exportObj.empty()) return writeBodyObj(loadScene(scenePath), o.resolution, o.exportObj);
    try {
      session.load(scenePath, &o);
    } catch (const InputError& e) {
      if (scenePath == settings.lastScene && o.scene.empty()) {
        // the remembered scene no longer loads: say so and start with the default one
        std::cerr << "d2tsim: warning: last scene: " << e.what() << "\n";
        session.load(defaultScenePath(), &o);
      } else {
        throw;
      }
    }
  } catch (const InputError& e) {
    std::cerr << "d2tsim: " << e.what() << "\n";
    return 1;
  }
  try {
    if (!headless) {
      std::string renderer;
      session.world->recordTrajectory(!o.metrics.empty());
      const int code = runWindowLoop(session, o, settings, &renderer);
      if (code != kNoWindow) {
        std::string error;
        if (!saveSettings(settingsPath(), settings, &error))
          std::cerr << "d2tsim: warning: settings not saved: " << error << "\n";
        writeOutputs(session, o, renderer);
        return code;
      }
      std::cerr << "d2tsim: no window could be opened; running headless\n";
    } else if (!o.headless) {
      std::cout << "d2tsim: no display found (DISPLAY/WAYLAND_DISPLAY unset): running headless\n";
    }
    return runHeadless(session, o);
  } catch (const InputError& e) {
    std::cerr << "d2tsim: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "d2tsim: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace d2t
