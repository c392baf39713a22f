#pragma once
// Reduced St. Venant-Kirchhoff elasticity of one morph target (dissertation 5.5 and appendix D;
// design "Reduced coefficients", StVK): the skin's tets with the target's rest shape and
// moduli, the displacement from that rest x = z - d~_i in the modal basis (u = U z).
//
// Per tet (rest gradients g_a, volume V, Lame lambda, mu), H_l = sum_a U_(a,l) g_a^T,
// E1_l = sym H_l, G_lk = 1/2 (H_l^T H_k + H_k^T H_l); the Green strain is
// E(x) = x_l E1_l + 1/2 x_l x_k G_lk and W = sum_tets V (mu E:E + lambda/2 tr(E)^2).
// With the tet inner product <A, B> = V (2 mu A:B + lambda tr A tr B), W = 1/2 <E, E>, and
// the cubic force polynomial R = dW/dx = P x + Q(x, x) + S(x, x, x) of (5.7) is held as
//   P_il = <E1_i, E1_l>            (= U^T K_i U, the linear stiffness)
//   C_(l,p) = <E1_l, G_p>           (Q's coefficients: Q(x,x)_l = 1/2 (C y)_l + sum_j x_j (C^T x)_(lj))
//   S_(p,q) = 1/2 <G_p, G_q>        (S(x,x,x)_l = sum_k x_k (S y)_(lk))
// over the r(r+1)/2 pairs p = (i <= j), y_p = x_i x_j (twice off the diagonal). They are Gram
// products of per-tet 7-vectors (Voigt and trace, the metric folded in): GEMMs over blocks
// of tets, the thesis's 661 s for the shoulder made seconds (design: one matrix product per
// target). The force of a blend, sum b_i R_i(z - d~_i), is one polynomial in z: each target's
// shifted to z once (shifted(), (D.1')), then blended per pose (add()): one cubic evaluated a
// step whatever the number of targets.
#include <Eigen/Dense>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

struct BakedBody;

struct ReducedStvk {
  int r = 0;
  Eigen::MatrixXd P;  ///< (r x r), symmetric
  Eigen::MatrixXd C;  ///< (r x r(r+1)/2)
  Eigen::MatrixXd S;  ///< (r(r+1)/2 x r(r+1)/2), symmetric
  /// W's linear and constant terms, W = w0 + g . x + ...: zero for a target's own polynomial
  /// (x from its rest), not once shifted to other coordinates (shifted()); g empty: zero.
  Eigen::VectorXd g;
  double w0 = 0;
  double seconds = 0; ///< the build [s]

  /// The same energy in z = x + d: W_z(z) = W(z - d), a polynomial of the same form
  /// (appendix D's (D.1'), derived without its index conventions: see reduced_stvk.cpp).
  ReducedStvk shifted(const Eigen::VectorXd& d) const;
  /// *this += b other (both in the same coordinates; an empty *this is zero): the blend of
  /// (5.8), whose force is the blend of the forces.
  void add(double b, const ReducedStvk& other);

  /// The pair index of (i, j), either order.
  int pair(int i, int j) const {
    if (i > j) std::swap(i, j);
    return i * r - i * (i - 1) / 2 + (j - i);
  }
  /// R(x) = dW/dx into *force, dR/dx into *tangent, W(x) into *energy, each where asked (the
  /// products they share made once).
  void evaluate(const Eigen::VectorXd& x, Eigen::VectorXd* force, Eigen::MatrixXd* tangent, double* energy) const;
  /// W(x) [J].
  double energy(const Eigen::VectorXd& x) const;
  /// R(x) = dW/dx (the reduced elastic force is -R) [N].
  Eigen::VectorXd force(const Eigen::VectorXd& x) const;
  /// dR/dx (symmetric: W's Hessian) [N/m].
  Eigen::MatrixXd tangent(const Eigen::VectorXd& x) const;

 private:
  Eigen::VectorXd pairs(const Eigen::VectorXd& x) const;  // y
};

/// The coefficients of the skin's tets with rest skin points `rest` (the body's core points
/// for the core vertices), per-tet moduli, in the basis U (3n x r, node-major).
ReducedStvk buildReducedStvk(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                             const std::vector<double>& poisson, const Eigen::MatrixXd& U);

/// ... of a morph target: its rest skin X_1 + d_i and its tets' moduli.
ReducedStvk buildReducedStvk(const BakedBody& body, const struct MorphTarget& target, const Eigen::MatrixXd& U);

/// The full model's reference: the StVK energy and nodal elastic force -dW/du of skin
/// displacements u from the rest `rest` (the core vertices fixed).
double stvkEnergy(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                  const std::vector<double>& poisson, const std::vector<Vec3>& u);
std::vector<Vec3> stvkForce(const BakedBody& body, const std::vector<Vec3>& rest, const std::vector<double>& young,
                            const std::vector<double>& poisson, const std::vector<Vec3>& u);

}  // namespace d2t
