// The Morph targets panel (dissertation ch. 5): per body with morph targets, the targets on
// or off, the pose (the scene's track, or sliders that hold one), each target's RBF weight
// as a bar (a negative unclamped weight marked), snap to a target, and the model's figures
// (examples, pose dimensions, each target's largest displacement and stiffness change, the
// bake's time, whether the implicit operator lags the blend; a reduced body's basis: r*, r,
// the PCA's share, the shapes' reproduction, the basis' bake). Every change is an input of
// the run (WorldInput::Kind::Pose): the timeline records it, a replay repeats it.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/panels/panels.h"
#include "sim/morph/modal_basis.h"

namespace d2t {

namespace {

void setPose(Ui& ui, size_t body, const PoseControl& control) {
  WorldInput in;
  in.kind = WorldInput::Kind::Pose;
  in.index = int(body);
  in.pose = control.manual;
  in.morphOn = control.enabled;
  try {
    ui.session.input(in);
  } catch (const std::exception& e) {
    ui.status = e.what();
  }
}

void bodyTargets(Ui& ui, size_t bi) {
  World& w = *ui.session.world;
  Body& b = w.bodies()[bi];
  const MorphElasticity& m = *b.layered.morphTargets();
  const MorphTargetSet& set = m.targets();
  const MorphTargetsDesc& desc = *b.desc.morph;
  PoseControl control = b.pose;

  bool on = control.enabled;
  if (ImGui::Checkbox("targets on", &on)) {
    control.enabled = on;
    setPose(ui, bi, control);
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Off: the body's own shape and stiffness alone (linear FEM), whatever the pose.");
  ImGui::SameLine();
  bool track = control.manual.empty();
  if (ImGui::Checkbox(desc.track.empty() ? "first target's pose" : "follow the track", &track)) {
    control.manual = track ? std::vector<double>{} : m.pose();
    setPose(ui, bi, control);
  }
  // the pose: one slider per channel over the examples' range (and a quarter beyond it)
  std::vector<double> pose = m.pose();
  bool moved = false;
  for (size_t c = 0; c < desc.channels.size(); ++c) {
    double lo = 1e300, hi = -1e300;
    for (const MorphTarget& t : set.targets) lo = std::min(lo, t.pose[c]), hi = std::max(hi, t.pose[c]);
    const double pad = 0.25 * std::max(hi - lo, 1e-3);
    float v = float(pose[c]);
    if (ImGui::SliderFloat(desc.channels[c].c_str(), &v, float(lo - pad), float(hi + pad), "%.3f")) {
      pose[c] = v;
      moved = true;
    }
  }
  if (moved) {
    control.manual = pose;
    setPose(ui, bi, control);
  }
  // the weights: a bar per target (the clamped weight the blend uses), snap buttons
  const Eigen::VectorXd raw = m.rawWeights();
  for (int t = 0; t < set.count(); ++t) {
    ImGui::PushID(t);
    const MorphTarget& target = set.targets[size_t(t)];
    if (ImGui::SmallButton("snap")) {
      control.manual = target.pose;
      control.enabled = true;
      setPose(ui, bi, control);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Hold the pose at this target's (its shape, at rest, is then the body's).");
    ImGui::SameLine();
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%.3f", m.weights()[t]);
    const bool negative = raw[t] < -1e-9;
    if (negative) ImGui::PushStyleColor(ImGuiCol_PlotHistogram, IM_COL32(220, 70, 60, 255));
    ImGui::ProgressBar(float(std::clamp(m.weights()[t], 0.0, 1.0)), ImVec2(120 * ui.scale, 0), overlay);
    if (negative) ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("%s%s", target.name.c_str(), negative ? "  (unclamped < 0)" : "");
    if (ImGui::IsItemHovered()) {
      std::string p;
      for (double x : target.pose) p += (p.empty() ? "" : ", ") + std::to_string(x).substr(0, 6);
      ImGui::SetTooltip("pose [%s]; unclamped weight %.4f\nlargest displacement %.1f mm; stiffness differs from the "
                        "body's by up to %.0f%%",
                        p.c_str(), raw[t], 1000 * target.maxDisplacement, 100 * target.stiffnessSpread);
    }
    ImGui::PopID();
  }
  ImGui::TextDisabled("%d targets, %d pose dimension%s of %zu channel%s; baked in %.0f ms", set.count(),
                      set.rbf.rank(), set.rbf.rank() == 1 ? "" : "s", desc.channels.size(),
                      desc.channels.size() == 1 ? "" : "s", 1000 * set.bakeSeconds);
  ImGui::TextDisabled("implicit operator: %s", m.operatorVersion() == m.version()
                                                   ? "at the blend"
                                                   : "lagging the blend (rebuilt as it drifts or the pose holds)");
  if (const ModalBasis* basis = set.basis.get()) {
    const bool reducedNow = b.layered.implicitOperator().reduced();
    // the reduced skin (ch. 5.4): the basis' make-up, how well it holds the targets, its bake
    double worst = 0;
    for (double e : basis->reproduction) worst = std::max(worst, e);
    ImGui::TextDisabled("reduced %s%s: r = %d (r* = %d, %d shape%s, %d load modes)",
                        basis->stvk.empty() ? "linear" : "StVK", reducedNow ? "" : " (the full model solves now)",
                        basis->r, basis->rStar, basis->shapeModes,
                        basis->shapeModes == 1 ? "" : "s", basis->r - basis->rStar - basis->shapeModes);
    ImGui::TextDisabled("PCA of %d modes a target keeps %.1f%%", desc.reduction.modesPerTarget, 100 * basis->pcaEnergy);
    ImGui::TextDisabled("shapes reproduced to %.0e; basis baked in %.0f ms", worst,
                        1000 * (basis->modeSeconds + basis->pcaSeconds));
    if (!basis->stvk.empty())
      ImGui::TextDisabled("StVK's cubic coefficients (appendix D) built in %.0f ms", 1000 * basis->stvkSeconds);
  }
}

}  // namespace

void morphPanel(Ui& ui) {
  World& w = *ui.session.world;
  std::vector<size_t> bodies;
  for (size_t i = 0; i < w.bodies().size(); ++i)
    if (w.bodies()[i].layered.morphTargets()) bodies.push_back(i);
  ImGui::SetNextWindowPos(px(ui, 690, 40), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 340, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowCollapsed(bodies.empty(), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Morph targets", &ui.settings.panels.morph, ImGuiWindowFlags_AlwaysAutoResize)) return ImGui::End();
  if (bodies.empty())
    ImGui::TextDisabled("no body has morph targets (a body's \"morph_targets\": try dmt_flex.json)");
  for (size_t bi : bodies) {
    ImGui::PushID(int(bi));
    const Pick& pk = ui.picked;
    if (pk.kind == Pick::Kind::Body && pk.index == int(bi) && ui.pickChanged) ImGui::SetNextItemOpen(true);
    if (ImGui::CollapsingHeader(w.bodies()[bi].desc.name.c_str(), bodies.size() == 1 ? ImGuiTreeNodeFlags_DefaultOpen : 0))
      bodyTargets(ui, bi);
    ImGui::PopID();
  }
  ImGui::End();
}

}  // namespace d2t
