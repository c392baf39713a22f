#pragma once
// The material sliders of the Bodies panel.
#include <optional>

#include "sim/scene/scene.h"

namespace d2t {

/// Draws one body's material sliders (Young's modulus, Poisson ratio, density,
/// Rayleigh damping, friction, restitution, rolling resistance), starting from
/// `current`. Returns the edited material on the frame an edit ends (a slider
/// released, or a typed value confirmed): re-assembling K_e is applied then, not
/// on every frame of a drag. ImGui writes a slider's value while the mouse drags
/// it but not on the frame it is released, so `held` keeps the edited values
/// across frames while a slider is held (empty otherwise; one per body).
std::optional<Material> materialSliders(const Material& current, std::optional<Material>& held);

}  // namespace d2t
