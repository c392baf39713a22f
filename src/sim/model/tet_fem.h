#pragma once
// Linear (constant-strain) tetrahedron for isotropic linear elasticity.
//
// Rest vertices X0..X3, linear shape functions N_a with N_a(X_b) = delta_ab.
// Their gradients g_a are constant over the element:
//   D = [X1-X0, X2-X0, X3-X0],  xi = D^-1 (X - X0),  N_k = xi_k (k = 1..3),
//   N_0 = 1 - xi_1 - xi_2 - xi_3   =>  g_k = row k of D^-1,  g_0 = -(g_1 + g_2 + g_3).
// Displacement gradient H = sum_a u_a g_a^T, small strain eps = (H + H^T) / 2,
// stress sigma = lambda tr(eps) I + 2 mu eps, energy W = V/2 eps : sigma.
// Element stiffness (d^2 W / du_a du_b), a 3x3 block per vertex pair:
//   K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I)
// Elastic forces are f = -K u; rigid translations and linearised rotations
// (u = w x X) are in its null space.
#include <array>

#include "sim/base/math.h"

namespace d2t {

/// Lame parameters [Pa] from Young's modulus E [Pa] and Poisson ratio nu [-].
struct Lame {
  double lambda = 0;  ///< first Lame parameter [Pa]
  double mu = 0;      ///< shear modulus [Pa]
};
Lame lameFromYoung(double young, double poisson);

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;
using Voigt = Eigen::Matrix<double, 6, 1>;  ///< a strain or stress in Voigt order

/// Geometry of one rest tetrahedron: signed volume and shape-function gradients.
struct TetGeometry {
  double volume = 0;               ///< signed rest volume [m^3] (> 0 for a positively oriented tet)
  std::array<Vec3, 4> gradient{};  ///< grad N_a [1/m], one per vertex
};

/// Signed volume [m^3] of (x0, x1, x2, x3): ((x1-x0) x (x2-x0)) . (x3-x0) / 6.
double tetSignedVolume(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3);

/// Volume and gradients of a rest tet. The tet must not be degenerate.
TetGeometry tetGeometry(const std::array<Vec3, 4>& rest);

/// Second moment int x x^T dV [m^5] of the tet (x0..x3) with signed volume `vol`:
/// vol / 20 (sum_i x_i x_i^T + s s^T), s = sum_i x_i.
Mat3 tetSecondMoment(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3, double vol);

/// Inertia tensor [kg m^2] from a mass second moment C = int rho x x^T dV about the same point: tr(C) I - C.
inline Mat3 inertiaFromSecondMoment(const Mat3& c) { return c.trace() * Mat3::Identity() - c; }

/// Stiffness block K_ab [N/m] coupling vertex a's force to vertex b's displacement.
Mat3 tetStiffnessBlock(const TetGeometry& geom, const Lame& lame, int a, int b);

/// Element stiffness matrix [N/m] (12 x 12, vertex-major: rows 3a..3a+2 are vertex a).
Mat12 tetStiffness(const std::array<Vec3, 4>& rest, double young, double poisson);

/// Small strain in Voigt order (xx, yy, zz, yz, zx, xy) with engineering shears
/// (gamma_yz = 2 eps_yz, ...) [-], for vertex displacements u [m] (12, vertex-major).
Voigt tetStrain(const std::array<Vec3, 4>& rest, const Vec12& u);

/// Cauchy stress in Voigt order (xx, yy, zz, yz, zx, xy) [Pa] for displacements u [m].
Voigt tetStress(const std::array<Vec3, 4>& rest, const Vec12& u, double young, double poisson);

/// Strain tensor (symmetric 3x3) <-> Voigt vector with engineering shears.
Voigt strainToVoigt(const Mat3& eps);
Mat3 voigtToStrain(const Voigt& v);

}  // namespace d2t
