#pragma once
// What a backend of the layered body's passes (SkinResponse, FreeMotionSolver) reads of
// the body: its model, the operators and settings of the current step, this step's
// forces on the nodes, the core's state and springs. A backend takes this view, not the
// body: it cannot call back into the body's step, and a test can hand it any
// combination of them.
#include <vector>

#include "sim/body/core/core_springs.h"
#include "sim/body/elastic_model.h"
#include "sim/body/implicit_operator.h"
#include "sim/loads/node_load.h"
#include "sim/model/baked_body.h"
#include "sim/scene/scene.h"

namespace d2t {

struct LayeredSettings;

/// A body's identity for a backend: whose skin state it holds (FreeMotionSolver::holds).
using BodyId = const void*;

struct BodyView {
  BodyId id = nullptr;                   ///< the body this is a view of
  const BakedBody& model;                ///< atlas, masses, rest skin
  const ElasticModel& elastic;           ///< K_e (its version says when it changed)
  const ImplicitOperator& op;            ///< Mt_e of the current time step
  const LayeredSettings& settings;       ///< solver settings (CG, fixed core)
  const Material& material;              ///< the body's material (damping alpha, beta)
  const NodeForces& forces;              ///< this step's contact support and node loads
  const CoreState& core;                 ///< the core's state (the start state within step 3)
  const std::vector<CoreSpring>& springs;  ///< the core springs (step 3)
  bool skinResident = false;             ///< the backend holds this body's current skin state
};

}  // namespace d2t
