#pragma once
// Figures that tell whether a bake is sound: sizes, volumes, mass, inertia,
// symmetry and definiteness of K_e, stencil completeness, watertightness.
#include <nlohmann/json.hpp>

#include <string>

#include "sim/model/baked_body.h"

namespace d2t {

/// Lowest eigenvalue of the mass-normalised stiffness M_e^-1/2 K_e M_e^-1/2 [1/s^2]
/// (the squared angular frequency of the slowest skin mode with the core held).
struct StiffnessSpectrum {
  double minEigenvalue = 0;       ///< [1/s^2]
  bool positiveDefinite = false;  ///< converged and minEigenvalue > 0
  bool converged = false;         ///< residual of the lowest Ritz pair below 1e-9 of the eigenvalue
  int iterations = 0;             ///< LOBPCG rounds used (each: 4-12 products with K_e)
};
StiffnessSpectrum stiffnessSpectrum(const BakedBody& body);

/// Mass, centre of mass and inertia of the body as a solid: the exact integral
/// over the core solid and the skin tetrahedra (consistent mass), for
/// comparison with the lumped totals the dynamics uses.
struct SolidMassProperties {
  double mass = 0;             ///< [kg]
  Vec3 com = Vec3::Zero();     ///< centre of mass, body frame [m]
  Mat3 inertia = Mat3::Zero(); ///< about com [kg m^2]
};
SolidMassProperties solidMassProperties(const BakedBody& body);

/// max |K - K^T| / max |K| of the assembled K_e [-].
double stiffnessSymmetryError(const BakedBody& body);

/// The bake report (JSON object): atlas_resolution, patches, nodes, tets,
/// skin_volume [m^3], core_volume [m^3], mass [kg], com [m] (body frame),
/// inertia [kg m^2] (3x3 about the com, rows), stiffness_symmetry_error,
/// stiffness_min_eigenvalue [1/s^2], stiffness_positive_definite,
/// incomplete_neighbourhoods, surface_watertight, bake_ms [ms]; also
/// core_mass [kg], com_offset [m] (body origin in the shape's frame) and
/// com_solid, inertia_solid (the exact integral, see SolidMassProperties).
nlohmann::json bakeReport(const BakedBody& body, const std::string& name, double bakeMs);

}  // namespace d2t
