#pragma once
// The --metrics JSON of a run.
#include <nlohmann/json.hpp>

#include "app/output/step_log.h"
#include "sim/world/world.h"

namespace d2t {

/// Fields: scene, backend, renderer, steps, dt, timing_ms {step, <stage>...},
/// bodies [{name, nodes, tets, com, velocity, angular_velocity, min_height,
/// max_penetration, final_max_penetration, energy {kinetic, gravitational, elastic},
/// resets, pose and morph_weights (a body with morph targets: the pose and the RBF
/// weights b_i of its last step, in target order; reduced_modes and reduced_elasticity, r
/// of a reduced body's basis and "linear" or "stvk"), trajectory [[t, x, y, z], ...]}]. The energies read the skin back from a GPU
/// solver that holds it.
nlohmann::json runMetrics(World& world, const StepLog& log, const std::string& renderer,
                          const std::string& backend);

/// Writes JSON to a file; throws std::runtime_error naming the path on failure.
void writeJson(const std::string& path, const nlohmann::json& j);

}  // namespace d2t
