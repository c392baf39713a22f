// The Timeline panel (issue 30): the run's recording as a scrub bar, its inputs marked on
// it, the metaphors' windows under it as ease trapezoids (drag one to move it); go to a
// step, step back and forth, back to the head; the snapshots' memory. An edit
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

// The metaphors' windows as rows of ease trapezoids under the scrub bar (x: the bar's steps,
// at the current dt; a window past the head runs off the right end). Dragging a row moves
// its window, dragging near one of its ends moves that end (the window stretches); let go,
// the change is one input of the run (the future from then re-simulates).
void metaphorTracks(Ui& ui, const Timeline& t, ImVec2 lo, ImVec2 hi) {
  Session& s = ui.session;
  const std::vector<MetaphorDesc> list = s.world->metaphorDescs();
  if (list.empty()) return;
  static int dragging = -1;  // the row being dragged, which part (0 the window, 1 its start,
  static int part = 0;       // 2 its end), and by how much [s]
  static double shift = 0;
  const double dt = s.world->settings().dt, span = double(std::max(1L, t.head() - t.first()));
  const float width = hi.x - lo.x, row = 12 * ui.scale;
  const auto x = [&](double time) {
    return lo.x + float(std::clamp((time / dt - double(t.first())) / span, -0.02, 1.02)) * width;
  };
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (size_t k = 0; k < list.size(); ++k) {
    MetaphorDesc d = list[k];
    ImGui::PushID(int(k));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("track", ImVec2(width, row));
    if (ImGui::IsItemActivated()) {  // (which part: within 5 px of an end, that end)
      const float mx = ImGui::GetIO().MouseClickedPos[0].x, grip = 5 * ui.scale;
      part = std::abs(mx - x(d.start)) < grip ? 1 : std::abs(mx - x(d.end)) < grip ? 2 : 0;
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0)) {
      dragging = int(k);
      shift = std::max(-d.start, double(ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0).x) / width * span * dt);
    }
    const auto moved = [&](MetaphorDesc m) {
      if (part != 2) m.start += shift;
      if (part != 1) m.end += shift;
      return m;
    };
    if (ImGui::IsItemDeactivated() && dragging == int(k)) {
      std::vector<MetaphorDesc> changed = list;
      changed[k] = moved(list[k]);
      WorldInput in;
      in.kind = WorldInput::Kind::Metaphors;
      in.metaphors = changed;
      try {
        s.input(in);
      } catch (const InputError& e) {
        ui.metaphorError = e.what();
      }
      dragging = -1;
      shift = 0;
    }
    if (dragging == int(k)) d = moved(d);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s (%s on %s): %.2f-%.2f s, eased %.2f / %.2f s\ndrag it to move its window, an end to "
                        "move that end", d.name.c_str(),
                        d.type.c_str(), d.body.c_str(), d.start, d.end, d.easeIn, d.easeOut);
    const bool selected = ui.metaphor == int(k);
    const ImU32 fill = selected ? IM_COL32(120, 220, 120, 200) : IM_COL32(90, 170, 230, 160);
    const float y0 = at.y + row - 1, y1 = at.y + 2;
    const ImVec2 q[4] = {ImVec2(x(d.start), y0), ImVec2(x(d.start + d.easeIn), y1), ImVec2(x(d.end - d.easeOut), y1),
                         ImVec2(x(d.end), y0)};
    draw->AddConvexPolyFilled(q, 4, fill);
    draw->AddText(ImVec2(x(d.start) + 3, at.y - 1), IM_COL32(20, 20, 20, 255), d.name.c_str());
    ImGui::PopID();
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
  metaphorTracks(ui, t, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
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
