// The left column's panels: Scene (picker), Simulation (settings), Bodies (state,
// material), Statistics (plots of the stage timings and the bodies).

#include "app/panels/panels.h"

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

static bool placeInColumn(Ui& ui, int place) {
  if (ImGui::GetFrameCount() < 1 + 2 * place) return false;
  const float top = place == 0 ? 10 * ui.scale : ui.columnBottom + 8 * ui.scale;
  ImGui::SetNextWindowPos(ImVec2(10 * ui.scale, top), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 330, 0), ImGuiCond_FirstUseEver);
  return true;
}

// (inside a column panel: where the next one goes)
static void markColumn(Ui& ui) {
  ui.columnBottom = std::max(ui.columnBottom, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
}

void scenePanel(Ui& ui) {
  if (!placeInColumn(ui, 0)) return;
  if (!ImGui::Begin("Scene", &ui.settings.panels.scene)) return ImGui::End();
  markColumn(ui);
  ImGui::TextWrapped("%s", ui.session.scenePath.c_str());
  const std::string& d = ui.session.world->scene().description;
  if (!d.empty()) ImGui::TextWrapped("%s", d.c_str());
  if (ImGui::BeginCombo("open", "choose a scene...")) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sceneDirectory(), ec))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files)
      if (ImGui::Selectable(f.filename().string().c_str())) ui.loadScene(f.string());
    ImGui::EndCombo();
  }
  if (ImGui::Button("Reload")) ui.loadScene(ui.session.scenePath);
  ImGui::SameLine();
  if (ImGui::Button("Reset camera")) ui.resetCamera();
  if (!ui.loadError.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", ui.loadError.c_str());
  ImGui::End();
}

void simulationPanel(Ui& ui) {
  Session& s = ui.session;
  SimulationSettings& set = s.world->settings();
  if (!placeInColumn(ui, 1)) return;
  if (!ImGui::Begin("Simulation", &ui.settings.panels.simulation)) return ImGui::End();
  markColumn(ui);
  ImGui::Text("t = %.3f s, %ld steps", s.world->time(), s.world->steps());
  if (ImGui::Button(s.paused ? "Run (Space)" : "Pause (Space)")) s.paused = !s.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) {
    s.paused = true;
    s.step();
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) {
    ui.drag.reset();
    ui.mouse = MouseMode::None;
    s.reset();
  }
  double dtMs = set.dt * 1e3;
  const double lo = 0.05, hi = 50;
  if (ImGui::SliderScalar("dt [ms]", ImGuiDataType_Double, &dtMs, &lo, &hi, "%.3f",
                          ImGuiSliderFlags_Logarithmic))
    set.dt = std::clamp(dtMs, lo, hi) * 1e-3;
  double rtf = s.realTimeFactor;
  const double rlo = 0.01, rhi = 4;
  if (ImGui::SliderScalar("real-time factor", ImGuiDataType_Double, &rtf, &rlo, &rhi, "%.2f",
                          ImGuiSliderFlags_Logarithmic))
    s.realTimeFactor = std::clamp(rtf, rlo, rhi);
  float g[3] = {float(set.gravity.x()), float(set.gravity.y()), float(set.gravity.z())};
  if (ImGui::DragFloat3("gravity [m/s2]", g, 0.05f, -50.f, 50.f)) {
    set.gravity = Vec3(g[0], g[1], g[2]);
    s.world->rebaseEnergy();  // the potential energy's reference changed
  }
  ImGui::TextUnformatted("backend:");
  for (const char* b : {"cpu", "gpu"}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(b, set.backend == b) && set.backend != b) s.setBackend(b);
  }
  ImGui::Checkbox("one-sided contact (no pulling)", &set.oneSidedContact);
  ImGui::Checkbox("contact support (exact rest)", &set.contactSupport);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Colliders carry the resting skin inside the implicit solve: bodies rest and dent\n"
                      "as the static solve says (without: ~20%% too shallow); rolling is slowed a little more.");
  if (!s.backendNote.empty()) ImGui::TextWrapped("(%s)", s.backendNote.c_str());
  if (!s.lastWarning.empty()) ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", s.lastWarning.c_str());
  ImGui::End();
}

// Per body, live: the material. A change re-assembles K_e and the masses from the
// same shape and atlas (World::setMaterial) when the slider is released.
void bodiesPanel(Ui& ui) {
  Session& s = ui.session;
  ImGui::SetNextWindowPos(px(ui, 350, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 330, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);  // open it to tune a material
  if (ui.pickChanged) ImGui::SetNextWindowCollapsed(false);     // a body was clicked: show it
  if (!ImGui::Begin("Bodies", &ui.settings.panels.bodies, ImGuiWindowFlags_AlwaysAutoResize)) {
    ui.pickChanged = false;
    return ImGui::End();
  }
  auto& bodies = s.world->bodies();
  // the last click: a body (its name, the node and texel under the cursor) or a collider
  const Pick& pk = ui.picked;
  if (pk.kind == Pick::Kind::Body && pk.index < int(bodies.size())) {
    const int n = bodies[size_t(pk.index)].model->atlas.resolution;
    ImGui::Text("picked: %s, node %d, texel (%d, %d)", bodies[size_t(pk.index)].desc.name.c_str(), pk.node,
                pk.texel % n, pk.texel / n);
    ImGui::Text("  at (%.3f, %.3f, %.3f) m", pk.point.x(), pk.point.y(), pk.point.z());
  } else if (pk.kind == Pick::Kind::Collider && pk.index < int(s.world->colliders().size())) {
    const Collider& c = s.world->colliders()[size_t(pk.index)];
    ImGui::Text("picked: collider %s%s", c.name().c_str(), c.desc().draggable ? " (draggable)" : "");
  } else {
    ImGui::TextDisabled("click a body to select it");
  }
  for (size_t i = 0; i < bodies.size(); ++i) {
    ImGui::PushID(int(i));
    const bool selected = pk.kind == Pick::Kind::Body && pk.index == int(i);
    if (selected && ui.pickChanged) ImGui::SetNextItemOpen(true);
    // "###h": the same id whether or not it is selected (keeps the header's open state)
    const std::string header = bodies[i].desc.name + (selected ? "  (selected)" : "") + "###h";
    if (ImGui::CollapsingHeader(header.c_str())) {
      if (const std::optional<Material> edited = materialSliders(bodies[i].desc.material, ui.materialEdits[i])) {
        const Material& m = *edited;
        try {
          Ui::MaterialChange mc;
          mc.assembleMs = s.world->setMaterial(i, m);
          if (s.world->settings().backend == "gpu") {  // its K_e textures
            const auto t0 = std::chrono::steady_clock::now();
            s.setBackend("gpu");
            mc.gpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          }
          mc.logSize = s.log.size();
          mc.typicalStepMs = s.log.size() ? s.log.medianStep() : -1;
          ui.materialChanges[i] = mc;
          char text[160];
          std::snprintf(text, sizeof text, "%s: K_e and masses re-assembled in %.1f ms", bodies[i].desc.name.c_str(),
                        mc.assembleMs);
          ui.status = text;
        } catch (const std::exception& e) {
          ui.status = e.what();
        }
      }
      // how long the last change took: the re-assembly, the GPU textures, and the next
      // step (Mt_e refactored, the coupling columns solved again)
      if (auto it = ui.materialChanges.find(i); it != ui.materialChanges.end()) {
        Ui::MaterialChange& mc = it->second;
        if (s.log.size() < mc.logSize) mc.logSize = 0;  // a reset cleared the log
        if (mc.nextStepMs < 0 && s.log.size() > mc.logSize)
          mc.nextStepMs = double(s.log.recentSteps(s.log.size() - mc.logSize).front());
        ImGui::Text("last change: K_e + masses %.1f ms", mc.assembleMs);
        if (mc.gpuMs >= 0) ImGui::Text("  GPU textures %.1f ms", mc.gpuMs);
        if (mc.nextStepMs >= 0)
          ImGui::Text("  next step %.1f ms (median step %.1f ms)", mc.nextStepMs, mc.typicalStepMs);
        else
          ImGui::TextDisabled("  next step: not yet run");
      }
      ImGui::Text("%d nodes, %d tets, %.1f kg", bodies[i].nodes(), bodies[i].tets(), bodies[i].mass());
    }
    ImGui::PopID();
  }
  ui.pickChanged = false;
  ImGui::End();
}

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
      for (const auto& st : s.log.stages()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(st.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", s.log.medianStage(st));
      }
      ImGui::EndTable();
    }
  }
  if (ImGui::CollapsingHeader("stage plots")) {
    for (const auto& st : s.log.stages()) plot(st.c_str(), s.log.recentStage(st, kPlotSteps), "ms");
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
    ImGui::Text("%s: %d contacts, CG %d (res %.1e), E %.3f J, resets %d", b.desc.name.c_str(), b.stats.contacts,
                b.stats.cgIterations, b.stats.cgResidual, b.stats.energy, b.stats.resets);
  ImGui::End();
}

// The texture viewer: any texture of a body's atlas (baked or live) or the contact
// texture D of the GPU contact camera, with the value under the cursor.

}  // namespace d2t
