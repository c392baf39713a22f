#pragma once
// The d2tsim program: loads a scene, runs the fixed-dt main loop in a window
// or headless, draws, and writes the requested outputs.
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "app/options.h"

namespace d2t {

/// Runs d2tsim with parsed options; returns the process exit code
/// (0 success, 1 bad input or runtime failure).
int runApp(const Options& options);

/// Prints the shipped scenes with their descriptions (--list-scenes).
int listScenes();

/// Prints what the loader sees in an OBJ file and what it can be used as (--mesh-report);
/// 0, or 1 with the error when the file cannot be read.
int printMeshReport(const std::string& path);

/// Writes tightly packed RGB rows (top first) as a PNG; throws std::runtime_error on failure.
void writePng(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace d2t
