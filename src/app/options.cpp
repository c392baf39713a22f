#include "app/options.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "sim/base/json_reader.h"

namespace d2t {

std::string sceneDirectory() {
  if (const char* env = std::getenv("D2T_SCENE_DIR")) return env;
  return std::string(D2T_SOURCE_DIR) + "/scenes";
}

std::string defaultScenePath() { return sceneDirectory() + "/ball_drop.json"; }

nlohmann::json overridesJson(const Options& o) {
  nlohmann::json j = nlohmann::json::object();
  if (o.dt) j["dt"] = *o.dt;
  if (o.backend) j["backend"] = *o.backend;
  if (o.solver) j["solver"] = *o.solver;
  if (o.tolerance) j["tolerance"] = *o.tolerance;
  if (o.resolution) j["resolution"] = *o.resolution;
  return j;
}

void applyOverrides(const nlohmann::json& j, const std::string& file, Options* o) {
  JsonReader r(j, file, "/overrides");
  if (r.has("dt")) o->dt = r.number("dt", 0, 1e-6, 0.1);
  if (r.has("backend")) o->backend = r.string("backend", "", {"cpu", "gpu"});
  if (r.has("solver")) o->solver = r.string("solver", "", {"auto", "cg", "direct", "cg_dilu"});
  if (r.has("tolerance")) o->tolerance = r.number("tolerance", 0, 1e-12, 0.1);
  if (r.has("resolution")) {
    const int n = r.integer("resolution", 0, 16, 1024);
    if ((n & (n - 1)) != 0) r.fail("resolution", "expected a power of two in [16, 1024], got " + std::to_string(n));
    o->resolution = n;
  }
  r.finish();
}

std::optional<int> parseOptions(int argc, char** argv, Options* o) {
  CLI::App app{"d2tsim: real-time soft bodies with dynamic deformation textures (Galoppo et al.)",
               "d2tsim"};
  app.add_option("scene", o->scene, "Scene file (default: scenes/ball_drop.json)");
  app.add_flag("--list-scenes", o->listScenes, "List the shipped scenes with a description and exit");
  app.add_flag("--headless", o->headless,
               "Run without a window (EGL; automatic when there is no display)");
  app.add_option("--frames", o->frames,
                 "Headless: simulation steps to run (default 600). Window: quit after N frames")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--dt", o->dt, "Time step in seconds (overrides the scene)")
      ->check(CLI::Range(1e-6, 0.1));
  app.add_option("--backend", o->backend, "Solver backend (overrides the scene)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--solver", o->solver,
                 "Solver of the implicit step (overrides the scene): auto (direct up to 4000 nodes, "
                 "else cg; a body with morph targets' \"reduction\": its r x r reduced solve), cg (multigrid-preconditioned), direct, cg_dilu (the single-level preconditioner; "
                 "the GPU's CG: block Jacobi, else the multigrid)")
      ->check(CLI::IsMember({"auto", "cg", "direct", "cg_dilu"}));
  app.add_option("--tolerance", o->tolerance,
                 "The CG's relative residual at which a solve stops (overrides the scene's solver.tolerance; "
                 "1e-6 in the shipped scenes: docs/performance.md says what a looser one buys)")
      ->check([](const std::string& v) {
        double t = 0;
        try { t = std::stod(v); } catch (...) { return std::string("must be a number"); }
        if (!(t >= 1e-12 && t <= 0.1)) return std::string("must be in [1e-12, 0.1]");
        return std::string();
      });
  app.add_option("--resolution", o->resolution,
                 "Atlas resolution of every body (power of two in [16, 1024]), overrides the scene")
      ->check([](const std::string& v) {
        int n = 0;
        try { n = std::stoi(v); } catch (...) { return std::string("must be an integer"); }
        if (n < 16 || n > 1024 || (n & (n - 1)) != 0) return std::string("must be a power of two in [16, 1024]");
        return std::string();
      });
  app.add_option("--screenshot", o->screenshot, "Write the last frame as a PNG image to PATH (e.g. shot.png)")->type_name("PATH");
  app.add_option("--metrics", o->metrics, "Write a JSON summary of the run to PATH (e.g. run.json)")->type_name("PATH");
  app.add_option("--bench", o->bench, "Write per-step stage timings [ms] as CSV to PATH (e.g. bench.csv)")->type_name("PATH");
  app.add_option("--bake-report", o->bakeReport,
                 "Bake the scene's bodies, write a JSON report to PATH (e.g. bake.json) and exit")
      ->type_name("PATH");
  app.add_option("--export-obj", o->exportObj,
                 "Write the scene's first body's rest surface as an OBJ mesh to PATH (about --resolution "
                 "segments across; default: its atlas resolution) and exit")
      ->type_name("PATH");
  app.add_option("--mesh-report", o->meshReport,
                 "Print what the loader sees in an OBJ file (pieces, boundary and non-manifold edges, winding, "
                 "star-shaped or not) and what it can be (a collider, a soft body) and exit")
      ->type_name("MODEL.obj");
  app.add_option("--record", o->record,
                 "Record the run: write its inputs (drags, panel edits) and its state hashes to PATH at the "
                 "end (e.g. run.d2trec.json), for --replay")
      ->type_name("PATH");
  app.add_option("--replay", o->replay,
                 "Re-simulate a recording headless and compare the state hash at each of its checkpoints: exit 0 "
                 "when all agree, 1 naming the first step that differs")
      ->type_name("PATH");
  app.add_option("--width", o->width, "Image width in pixels")->check(CLI::Range(16, 8192));
  app.add_option("--height", o->height, "Image height in pixels")->check(CLI::Range(16, 8192));
  try {
    app.parse(argc, argv);
    o->sizeGiven = app.count("--width") + app.count("--height") > 0;
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "d2tsim: " << e.what() << "\n\n" << app.help();
    return 2;
  }
  return std::nullopt;
}

}  // namespace d2t
