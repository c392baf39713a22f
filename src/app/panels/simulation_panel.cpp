// The Simulation panel: run, step and reset; dt, real-time factor, gravity, the
// backend and the contact switches.

#include "app/panels/panels.h"

#include <algorithm>

#include "app/app.h"
#include "app/window/ui_scale.h"

namespace d2t {

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
  if (ImGui::TreeNode("contact response")) {  // (ResponsePolicies: each unit on or off)
    ResponsePolicies& p = set.response;
    const struct {
      bool* on;
      const char* label;
      const char* tip;
    } units[] = {
        {&p.oneSided, "one-sided rows", "Contact rows never pull (lambda >= 0); off: nodes stick."},
        {&p.support, "contact support",
         "Colliders and bodies carry the resting skin inside the implicit solve: bodies rest and\n"
         "dent as the static solve says (without: ~20% too shallow)."},
        {&p.restitution, "restitution", "A Newton impact when a contact begins fast; off: inelastic contacts."},
        {&p.friction, "node friction", "Coulomb friction on each node's tangential velocity (eq. 14)."},
        {&p.energyGuard, "energy guard", "The response cannot add kinetic energy against surfaces at rest, nor (where a\n"
         "skin is crushed onto its core) against another body, in the pair's frame."},
        {&p.shockPropagation, "shock propagation", "A last sweep with lower bodies immovable: stacks rest."},
        {&p.pairSupportBalance, "pair support balance", "Bodies support each other equally and oppositely."},
        {&p.pairImpulseBalance, "pair impulse balance", "Impulses between bodies conserve the pair's momentum."},
        {&p.patchFriction, "patch friction", "Each patch's friction and rolling resistance solved as one."},
        {&p.correction, "position correction", "Nodes still penetrating after the response move out (step 15)."},
        {&p.skinOnCore, "skin on core", "A crushed skin bottoms out on its core (min layer) and carries it; cores keep\n"
         "their crushed layers from colliders and from each other."},
    };
    for (const auto& u : units) {
      ImGui::Checkbox(u.label, u.on);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", u.tip);
    }
    ImGui::TreePop();
  }
  if (!s.backendNote.empty()) ImGui::TextWrapped("(%s)", s.backendNote.c_str());
  if (!s.lastWarning.empty()) ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", s.lastWarning.c_str());
  ImGui::End();
}

}  // namespace d2t
