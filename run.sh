#!/usr/bin/env bash
# Installs what is missing, builds d2tsim (Release, into build/), and runs a scene:
#   ./run.sh [scene.json] [d2tsim options...]
# In a window when a display is available; otherwise headless, writing build/screenshot.png.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
d2t_install_deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target d2tsim
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/d2tsim "$@"
else
  echo "run.sh: no display: running headless (screenshot: build/screenshot.png)"
  exec build/d2tsim "$@" --headless --screenshot build/screenshot.png
fi
