#include "sim/model/tet_fem.h"

#include <Eigen/LU>

namespace d2t {

Lame lameFromYoung(double young, double poisson) {
  // lambda = E nu / ((1 + nu)(1 - 2 nu)),  mu = E / (2 (1 + nu))
  Lame l;
  l.lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
  l.mu = young / (2 * (1 + poisson));
  return l;
}

double tetSignedVolume(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
  return (x1 - x0).cross(x2 - x0).dot(x3 - x0) / 6.0;
}

Mat3 tetSecondMoment(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3, double vol) {
  const Vec3 s = x0 + x1 + x2 + x3;
  const Mat3 c = x0 * x0.transpose() + x1 * x1.transpose() + x2 * x2.transpose() + x3 * x3.transpose() +
                 s * s.transpose();
  return vol / 20.0 * c;
}

TetGeometry tetGeometry(const std::array<Vec3, 4>& rest) {
  Mat3 d;
  d.col(0) = rest[1] - rest[0];
  d.col(1) = rest[2] - rest[0];
  d.col(2) = rest[3] - rest[0];
  TetGeometry g;
  g.volume = d.determinant() / 6.0;
  const Mat3 dinv = d.inverse();
  // grad N_k = row k of D^-1 (k = 1..3); the four gradients sum to zero
  for (int k = 0; k < 3; ++k) g.gradient[k + 1] = dinv.row(k).transpose();
  g.gradient[0] = -(g.gradient[1] + g.gradient[2] + g.gradient[3]);
  return g;
}

Mat3 tetStiffnessBlock(const TetGeometry& geom, const Lame& lame, int a, int b) {
  const Vec3& ga = geom.gradient[a];
  const Vec3& gb = geom.gradient[b];
  const double v = std::abs(geom.volume);
  // K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I)
  return v * (lame.lambda * ga * gb.transpose() + lame.mu * gb * ga.transpose() +
              lame.mu * ga.dot(gb) * Mat3::Identity());
}

Mat12 tetStiffness(const std::array<Vec3, 4>& rest, double young, double poisson) {
  const TetGeometry geom = tetGeometry(rest);
  const Lame lame = lameFromYoung(young, poisson);
  Mat12 k;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) k.block<3, 3>(3 * a, 3 * b) = tetStiffnessBlock(geom, lame, a, b);
  return k;
}

Voigt strainToVoigt(const Mat3& e) {
  Voigt v;
  v << e(0, 0), e(1, 1), e(2, 2), 2 * e(1, 2), 2 * e(2, 0), 2 * e(0, 1);
  return v;
}

Mat3 voigtToStrain(const Voigt& v) {
  Mat3 e;
  e << v[0], v[5] / 2, v[4] / 2, v[5] / 2, v[1], v[3] / 2, v[4] / 2, v[3] / 2, v[2];
  return e;
}

namespace {

Mat3 strainTensor(const TetGeometry& geom, const Vec12& u) {
  // H = sum_a u_a g_a^T,  eps = (H + H^T) / 2
  Mat3 h = Mat3::Zero();
  for (int a = 0; a < 4; ++a) h += u.segment<3>(3 * a) * geom.gradient[a].transpose();
  return 0.5 * (h + h.transpose());
}

}  // namespace

Voigt tetStrain(const std::array<Vec3, 4>& rest, const Vec12& u) {
  return strainToVoigt(strainTensor(tetGeometry(rest), u));
}

Voigt tetStress(const std::array<Vec3, 4>& rest, const Vec12& u, double young, double poisson) {
  const Mat3 eps = strainTensor(tetGeometry(rest), u);
  const Lame l = lameFromYoung(young, poisson);
  const Mat3 s = l.lambda * eps.trace() * Mat3::Identity() + 2 * l.mu * eps;
  Voigt v;
  v << s(0, 0), s(1, 1), s(2, 2), s(1, 2), s(2, 0), s(0, 1);
  return v;
}

}  // namespace d2t
