#include "app/panels/material_panel.h"

#include <imgui.h>

namespace d2t {

std::optional<Material> materialSliders(const Material& current, std::optional<Material>& held) {
  Material m = held ? *held : current;
  bool changed = false, active = false;
  auto slider = [&](const char* label, double* v, double lo, double hi, const char* fmt, bool log) {
    ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt,
                        log ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
    changed = changed || ImGui::IsItemDeactivatedAfterEdit();
    active = active || ImGui::IsItemActive();
  };
  slider("Young [Pa]", &m.young, 1e2, 1e8, "%.3g", true);
  slider("Poisson", &m.poisson, 0.0, 0.49, "%.3f", false);
  slider("density [kg/m3]", &m.density, 100, 5000, "%.0f", true);
  slider("damping alpha [1/s]", &m.alpha, 0.0, 10.0, "%.3f", false);
  slider("damping beta [s]", &m.beta, 0.0, 0.1, "%.4f", false);
  slider("friction", &m.friction, 0.0, 2.0, "%.2f", false);
  slider("restitution", &m.restitution, 0.0, 1.0, "%.2f", false);
  slider("rolling resistance", &m.rollingResistance, 0.0, 0.2, "%.3f", false);
  slider("min layer", &m.minLayer, 0.0, 0.9, "%.2f", false);
  held = active ? std::optional<Material>(m) : std::nullopt;
  return changed ? std::optional<Material>(m) : std::nullopt;
}

}  // namespace d2t
