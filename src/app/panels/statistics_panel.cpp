// The Statistics panel: the step's and the stages' timings, the solver, contacts and
// energy plots, and each body's last step.

#include "app/panels/panels.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "app/app.h"
#include "app/window/ui_scale.h"

namespace d2t {

// One plot of the last kPlotSteps values, labelled with the newest value and the range.
static void plot(const char* label, const std::vector<float>& v, const char* unit) {
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%s %.4g %s (%.3g .. %.3g)", label, double(v.back()), unit, double(*lo),
                double(*hi));
  ImGui::PushID(label);
  ImGui::PlotLines("", v.data(), int(v.size()), 0, overlay, FLT_MAX, FLT_MAX,
                   ImVec2(ImGui::GetContentRegionAvail().x, 42 * ImGui::GetFontSize() / 13));
  ImGui::PopID();
}

constexpr size_t kPlotSteps = 300;  // the plots show the last 300 steps

void statisticsPanel(Ui& ui) {
  const Session& s = ui.session;
  if (!placeInColumn(ui, 2)) return;
  if (!ImGui::Begin("Statistics", &ui.settings.panels.statistics)) return ImGui::End();
  ImGui::Text("%.1f fps, %zu steps logged", ui.fps, s.log.size());
  const std::vector<float> recent = s.log.recentSteps(kPlotSteps);
  if (!recent.empty()) {
    ImGui::Text("step: %.3f ms (median %.3f ms)", double(recent.back()), s.log.medianStep());
    plot("step", recent, "ms");
  }
  if (ImGui::CollapsingHeader("stages", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (ImGui::BeginTable("stages", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders)) {
      ImGui::TableSetupColumn("stage");
      ImGui::TableSetupColumn("median [ms]");
      ImGui::TableHeadersRow();
      for (const StageClock& st : s.log.clocks()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(st.name().c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", s.log.medianStage(st));
      }
      ImGui::EndTable();
    }
  }
  if (ImGui::CollapsingHeader("stage plots")) {
    for (const StageClock& st : s.log.clocks()) plot(st.name().c_str(), s.log.recentStage(st, kPlotSteps), "ms");
  }
  if (ImGui::CollapsingHeader("solver, contacts, energy", ImGuiTreeNodeFlags_DefaultOpen)) {
    plot("CG iterations", s.log.recentSummary(&StepSummary::cgIterations, kPlotSteps), "");
    plot("CG residual", s.log.recentSummary(&StepSummary::cgResidual, kPlotSteps), "");
    plot("contacts", s.log.recentSummary(&StepSummary::contacts, kPlotSteps), "nodes");
    plot("energy", s.log.recentSummary(&StepSummary::energy, kPlotSteps), "J");
  }
  if (s.world->hasPairs()) {
    const PairStats& p = s.world->pairStats();
    ImGui::Text("two stages: %d pairs near, %d past stage 1, %d contact nodes", p.broadPairs, p.proxyPairs,
                p.contactNodes);
  }
  for (const Body& b : s.world->bodies())  // (the energy after the last step: no readback)
    ImGui::Text("%s: %d contacts, CG %d (res %.1e, %d capped steps), E %.3f J, resets %d", b.desc.name.c_str(),
                b.stats.contacts, b.stats.cgIterations, b.stats.cgResidual, b.stats.cappedSolves, b.stats.energy,
                b.stats.resets);
  ImGui::End();
}

}  // namespace d2t
