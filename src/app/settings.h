#pragma once
// What the window remembers between runs: view toggles, which panels are open,
// the window size and the last scene. A JSON file in the user's config
// directory, read at start and written at exit; a missing file gives the
// defaults, an unreadable or corrupt one gives the defaults and a warning.
#include <string>

#include "app/render/view_options.h"

namespace d2t {

struct AppSettings {
  ViewOptions view;  ///< toggles only (highlights are not kept)
  struct Panels {
    bool scene = true, simulation = true, view = true, bodies = true, statistics = true, atlas = true, timeline = true;
    bool metaphors = true, morph = true;
    bool help = false;
  } panels;
  int windowWidth = 0, windowHeight = 0;  ///< [screen coordinates]; 0: not known
  std::string lastScene;                  ///< absolute path of the last scene run in the window
  std::string atlasTexture;               ///< the texture viewer's texture, by its label ("": the first)
};

/// $XDG_CONFIG_HOME/d2tsim, else $HOME/.config/d2tsim; "" when neither variable is set.
std::string settingsDirectory();
/// settingsDirectory()/settings.json ("" when there is no directory).
std::string settingsPath();

/// Reads `path`. A missing file: the defaults, no warning. Unreadable, not JSON, or a
/// field of the wrong type: the defaults for what could not be read, and `*warning`
/// says what and where (never throws). Unknown keys are ignored (newer versions).
AppSettings loadSettings(const std::string& path, std::string* warning);
/// Writes `path` (creating its directory); returns false with `*error` set on failure.
bool saveSettings(const std::string& path, const AppSettings& settings, std::string* error);

}  // namespace d2t
