// The window's output: screenshots, frame and step-timing recordings, the overlay's lines.

#include "app/window/ui.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "app/app.h"
#include "app/panels/material_panel.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

void saveScreenshot(Ui& ui, const std::string& path) {
  try {
    writePng(path, ui.target.width(), ui.target.height(), ui.target.readRgb());
    ui.status = "screenshot saved to " + path;
  } catch (const std::exception& e) {
    ui.status = e.what();
  }
  std::cout << ui.status << "\n";
}

// --screenshot in a window: the whole window, panels included
void saveWindowShot(const std::string& path, int w, int h) {
  std::vector<uint8_t> rows(size_t(w) * h * 3), flipped(rows.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rows.data());
  const size_t stride = size_t(w) * 3;
  for (int y = 0; y < h; ++y)
    std::copy_n(&rows[size_t(h - 1 - y) * stride], stride, &flipped[size_t(y) * stride]);
  writePng(path, w, h, flipped);
  std::cout << "screenshot written to " << path << "\n";
}


// ---- recording ---------------------------------------------------------------------------

void toggleFrameRecording(Ui& ui, FrameRecorder::Format format) {
  if (ui.recorder.recording()) {
    ui.status = ui.recorder.stop();
  } else {
    const bool mp4 = format == FrameRecorder::Format::Mp4;
    const std::string path = timestampedName("d2tsim-rec", mp4 ? ".mp4" : "");
    std::string error;
    ui.status = ui.recorder.start(format, path, 60, &error) ? "recording frames to " + path : error;
  }
  std::cout << ui.status << "\n";
}

void toggleBenchRecording(Ui& ui) {
  Session& s = ui.session;
  if (!ui.benchFrom) {
    ui.benchFrom = s.log.size();
    ui.status = "recording step timings (stop to write the CSV)";
  } else {
    const std::string path = timestampedName("d2tsim-bench", ".csv");
    const size_t first = std::min(*ui.benchFrom, s.log.size());  // a reset clears the log
    try {
      s.log.writeCsv(path, s.world->settings().dt, first);
      ui.status = std::to_string(s.log.size() - first) + " steps of timings written to " + path;
    } catch (const std::exception& e) {
      ui.status = e.what();
    }
    ui.benchFrom.reset();
  }
  std::cout << ui.status << "\n";
}

// Lines of text centred at the bottom of the window, each on a dark band, drawn
// over the panels (the foreground draw list), the last one lowest.
void overlayLines(const std::vector<std::pair<std::string, ImU32>>& lines, float scale) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const float pad = 4 * scale, step = ImGui::GetTextLineHeight() + 2 * pad;
  float y = size.y - 8 * scale - step * float(lines.size());
  for (const auto& [text, colour] : lines) {
    const ImVec2 t = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at(0.5f * (size.x - t.x), y + pad);
    draw->AddRectFilled(ImVec2(at.x - 2 * pad, y), ImVec2(at.x + t.x + 2 * pad, y + step - 1), IM_COL32(20, 22, 28, 200),
                        3 * scale);
    draw->AddText(at, colour, text.c_str());
    y += step;
  }
}

}  // namespace d2t
