// The Timeline panel (issue 30): the run's recording as a scrub bar, its inputs marked on
// it; go to a step, step back and forth, back to the head; the snapshots' memory. An edit
// in the past keeps the past and discards the recorded future (the status line says so).

#include "app/panels/panels.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "app/app.h"

namespace d2t {

namespace {

// The recorded inputs as ticks over the scrub bar just drawn (x from the bar's rectangle).
void inputTicks(const Timeline& t) {
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  const double span = double(std::max(1L, t.head() - t.first()));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  long last = -1;
  for (const Timeline::Entry& e : t.inputs()) {
    if (e.step == last) continue;
    last = e.step;
    const float x = lo.x + float((e.step - t.first()) / span) * (hi.x - lo.x);
    draw->AddLine(ImVec2(x, lo.y), ImVec2(x, lo.y + 0.3f * (hi.y - lo.y)), IM_COL32(255, 200, 60, 255), 2);
  }
}

}  // namespace

void timelinePanel(Ui& ui) {
  Session& s = ui.session;
  const ImVec2 screen = ImGui::GetIO().DisplaySize;
  // between the left column and the right one (Atlas, View), above the status line
  const float left = 350 * ui.scale, right = 310 * ui.scale;
  ImGui::SetNextWindowPos(ImVec2(left, screen.y - 36 * ui.scale), ImGuiCond_FirstUseEver, ImVec2(0, 1));
  ImGui::SetNextWindowSize(ImVec2(std::max(300 * ui.scale, screen.x - left - right), 0), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Timeline", &ui.settings.panels.timeline)) return ImGui::End();
  bool on = s.recording;
  if (ImGui::Checkbox("record", &on)) s.setRecording(on);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Keep the run's states every few steps and every input (drags, panel edits):\n"
                      "scrub back, replay, and edit the past (the recorded future after an edit is discarded).");
  if (!s.timeline) {
    ImGui::SameLine();
    ImGui::TextDisabled("off: the run is not recorded");
    ImGui::End();
    return;
  }
  Timeline& t = *s.timeline;
  const double dt = s.world->settings().dt;
  ImGui::SameLine();
  if (ImGui::Button("|<")) s.seek(t.first());
  ImGui::SameLine();
  if (ImGui::ArrowButton("back", ImGuiDir_Left)) s.seek(s.world->steps() - 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("a step back (Left; Shift+Left: 100)");
  ImGui::SameLine();
  if (ImGui::Button(s.paused ? "play" : "pause")) s.paused = !s.paused;
  ImGui::SameLine();
  if (ImGui::ArrowButton("forward", ImGuiDir_Right)) {
    s.paused = true;
    s.step();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("a step forward (Right, N): in the past, as recorded");
  ImGui::SameLine();
  if (ImGui::Button(">|")) s.seek(t.head());
  ImGui::SameLine();
  const bool past = s.world->steps() < t.head();
  if (past)
    ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "in the past: %ld steps recorded ahead", t.head() - s.world->steps());
  else
    ImGui::TextDisabled("at the head");
  int64_t step = s.world->steps();
  const int64_t lo = t.first(), hi = t.head();
  char label[64];
  std::snprintf(label, sizeof label, "t = %.3f s, step %lld", s.world->time(), static_cast<long long>(step));
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderScalar("##scrub", ImGuiDataType_S64, &step, &lo, &hi, label)) s.seek(long(step));
  inputTicks(t);
  ImGui::TextDisabled("%zu inputs, %zu snapshots every %d steps (%.3f s), %.1f of %.0f MB", t.inputs().size(),
                      t.snapshotCount(), t.interval(), t.interval() * dt, double(t.bytes()) / (1 << 20),
                      double(t.budget()) / (1 << 20));
  if (!s.timelineNotice.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", s.timelineNotice.c_str());
  if (t.divergences() > 0) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%d re-stepped states differed from the recorded ones",
                       t.divergences());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The GPU backend's sums are not in a fixed order: a re-stepped run may differ from\n"
                        "the recorded one by rounding. The CPU backend repeats a run bit for bit.");
  }
  ImGui::End();
}

}  // namespace d2t
