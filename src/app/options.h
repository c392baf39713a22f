#pragma once
// Command line of d2tsim.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2t {

struct Options {
  std::string scene;              ///< scene file ("" = the default scene)
  bool listScenes = false;
  bool headless = false;          ///< no window (also when there is no display)
  int frames = -1;                ///< headless: steps to run (default 600); window: quit after N frames
  std::optional<double> dt;       ///< overrides the scene's time step [s]
  std::optional<std::string> backend;  ///< cpu | gpu, overrides the scene
  std::optional<std::string> solver;  ///< auto | cg | direct | cg_dilu, overrides the scene
  std::optional<double> tolerance;    ///< the CG's relative residual, overrides the scene's solver.tolerance
  std::optional<int> resolution;  ///< atlas resolution of every body, overrides the scene
  std::string screenshot;         ///< PNG of the last frame
  std::string metrics;            ///< JSON summary of the run
  std::string bench;              ///< CSV, one row per step, one column per stage [ms]
  std::string bakeReport;         ///< bake the bodies, write a JSON report, exit
  std::string exportObj;          ///< write the first body's rest skin as an OBJ file, exit
  std::string meshReport;         ///< print what the loader sees in an OBJ file, exit
  std::string record;             ///< write the run's recording (inputs, state hashes) at the end
  std::string replay;             ///< re-simulate a recording, compare its hashes, exit 0 / 1
  int width = 1280, height = 720; ///< window / headless image size [px]
  bool sizeGiven = false;         ///< --width or --height was given (else a window takes the saved size)
};

/// What the command line changed of the scene (dt, backend, solver, tolerance, resolution),
/// as a recording keeps it, and back.
nlohmann::json overridesJson(const Options& o);
/// InputError naming `file` and the field for a value the command line would refuse.
void applyOverrides(const nlohmann::json& j, const std::string& file, Options* o);

/// Parses argv. Returns an exit code when the program should stop right away
/// (0 after --help, 2 after a usage error, with the message printed), else nullopt.
std::optional<int> parseOptions(int argc, char** argv, Options* out);

/// The directory holding the shipped scenes (source tree's scenes/ or $D2T_SCENE_DIR).
std::string sceneDirectory();
/// The scene run when none is given.
std::string defaultScenePath();

}  // namespace d2t
