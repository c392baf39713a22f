#pragma once
// The interactive front end: a GLFW window, ImGui panels, mouse and keys.
#include <string>

#include "app/options.h"
#include "app/session.h"

namespace d2t {

/// Returned by runWindowLoop when no window could be opened (the caller goes headless).
constexpr int kNoWindow = -1;

/// Runs until the window closes; returns the exit code, or kNoWindow.
/// `renderer` receives the GL_RENDERER string.
int runWindowLoop(Session& session, const Options& options, std::string* renderer);

}  // namespace d2t
