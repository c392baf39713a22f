#pragma once
// The summary of one skin state (SkinSummary): what the step's checks and statistics
// need of the whole skin, from one pass over its nodes on the backend that holds it.
#include "sim/base/math.h"

namespace d2t {

/// Whole-skin sums and extremes of one skin state, body frame (u_i = ub_i + q_i), in one
/// pass over the nodes: what a step's checks and statistics need of the whole skin (the
/// blow-up check, the energy bound, the centre of mass, momentum and lowest point), so a
/// backend holding the state answers them without sending it back (SkinResponse::summarize).
struct SkinSummary {
  Vec3 mu = Vec3::Zero();       ///< sum m_i u_i [kg m]
  Vec3 mqdot = Vec3::Zero();    ///< sum m_i qdot_i [kg m/s]
  Vec3 muxqdot = Vec3::Zero();  ///< sum m_i u_i x qdot_i [kg m^2/s]
  Mat3 muu = Mat3::Zero();      ///< sum m_i u_i u_i^T [kg m^2]
  double mqdot2 = 0;            ///< sum m_i |qdot_i|^2 [kg m^2/s^2]
  double elastic = 0;           ///< W = 1/2 q^T K_e q - q^T f0 + c (the elastic model's energy) [J]
  double maxQ = 0;              ///< max |q_i| [m]
  double maxStretch = 0;        ///< max |s_i| / h_i, s_i = stretchPart(q_i, d_i), h_i = |ub_i - f_i| the layer's thickness there [-]
  double maxCrush = 0;          ///< max(0, max -d_i . q_i / h_i): the deepest node pushed into its layer [-]
  double maxQdot = 0;           ///< max |qdot_i| [m/s]
  double lowest = 0;            ///< min up . u_i, for the direction `up` asked for [m]
  bool finite = true;           ///< every q_i and qdot_i is finite (else the rest is meaningless)
};

}  // namespace d2t
