#pragma once
// The interactive front end: a GLFW window, ImGui panels, mouse and keys.
#include <string>

#include "app/options.h"
#include "app/session.h"
#include "app/settings.h"

namespace d2t {

/// Returned by runWindowLoop when no window could be opened (the caller goes headless).
constexpr int kNoWindow = -1;

/// Runs until the window closes; returns the exit code, or kNoWindow.
/// `renderer` receives the GL_RENDERER string. `settings` gives the view toggles,
/// panels and window size to start with and receives them at the end (the caller
/// loads and saves the file).
int runWindowLoop(Session& session, const Options& options, AppSettings& settings, std::string* renderer);

}  // namespace d2t
