// The Bodies panel: the picked body, character or collider, each body's state and material,
// and each character's skeleton (skeleton_panel.cpp).

#include "app/panels/panels.h"

#include <algorithm>
#include <cmath>

#include "app/app.h"
#include "app/window/ui_scale.h"
#include "app/panels/material_panel.h"

namespace d2t {

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
  } else if (pk.kind == Pick::Kind::Character && pk.index < int(s.world->characters().size())) {
    ImGui::Text("picked: %s, node %d", s.world->characters()[size_t(pk.index)].spec.name.c_str(), pk.node);
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
  characterHeaders(ui);
  ui.pickChanged = false;
  ImGui::End();
}

}  // namespace d2t
