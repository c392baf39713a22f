// The core seam's rigid core against its definitions, on random skins: every operation
// the step calls is checked against the same quantity built here from the node map
// alone, J_i = [I, -R [u_i]x] (xdot_i = J_i v_c + R qdot_i):
//   M_c = diag(m_c I, I_c) + sum_i m_i J_i^T J_i (the kinetic energy's core block),
//   L_i^T f = J_i^T f (virtual work), M_ce(i) = J_i^T m_i R, so that M_ce x = sum_i J_i^T m_i R x_i,
//   Mh_cond = M_c - sum_i M_ce(i) Mh_i^-1 M_ce(i)^T, U_k = J_i^T n - M_ce(i) Mh_i^-1 R^T n,
//   Y_i dv = sum_k Y_ik dv_k, the core's kinetic energy along dv as 1/2 v^T M v at t = 0, 1, 2.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sim/body/core/rigid_core.h"

namespace d2t {
namespace {

using NodeCoupling = Eigen::Matrix<double, Core::kDofs, 3>;

struct RandomSkin {
  Mat3 R;
  double coreMass = 0;
  Mat3 coreInertia;
  std::vector<double> m;
  std::vector<Vec3> u;
  std::vector<Mat3> hinv;  // symmetric positive definite, as Mh_i^-1
};

RandomSkin randomSkin(unsigned seed, int n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  auto v = [&] { return Vec3(d(rng), d(rng), d(rng)); };
  RandomSkin s;
  s.R = Quat(Eigen::AngleAxisd(3 * d(rng), v().normalized())).toRotationMatrix();
  s.coreMass = 2 + d(rng);
  const Mat3 a = Mat3::Random();
  s.coreInertia = a * a.transpose() + Mat3::Identity();
  for (int i = 0; i < n; ++i) {
    s.m.push_back(0.1 * (1.5 + d(rng)));
    s.u.push_back(v());
    const Mat3 b = Mat3::Random();
    s.hinv.push_back(b * b.transpose() + 0.5 * Mat3::Identity());
  }
  return s;
}

// M_ce(i) = J_i^T m_i R: the coupling of node i's body-frame skin vector to the core
NodeCoupling coupling(const RandomSkin& s, int i) {
  return Core::pointMap(s.R, s.u[i]).transpose() * (s.m[i] * s.R);
}

double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

TEST(RigidCore, MassMatrixIsTheCoreBlockOfTheKineticEnergy) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const RandomSkin s = randomSkin(seed, 40);
    Core::Matrix expected = Core::Matrix::Zero();
    expected.topLeftCorner<3, 3>() = s.coreMass * Mat3::Identity();
    expected.bottomRightCorner<3, 3>() = s.coreInertia;
    double total = s.coreMass;
    Vec3 St = Vec3::Zero();
    Mat3 Muu = Mat3::Zero();
    for (size_t i = 0; i < s.m.size(); ++i) {
      const Core::PointMap J = Core::pointMap(s.R, s.u[i]);
      expected += s.m[i] * J.transpose() * J;
      total += s.m[i];
      St += s.m[i] * s.u[i];
      Muu += s.m[i] * skew(s.u[i]).transpose() * skew(s.u[i]);
    }
    const Core::Matrix Mc = Core::massMatrix(total, s.coreInertia, s.R, St, Muu);
    EXPECT_LT(relative(Mc, expected), 1e-14) << seed;
    EXPECT_LT(relative(Mc, Mc.transpose()), 1e-14) << seed;
  }
}

TEST(RigidCore, GeneralizedForceAndCouplingAreTheNodeMapsTranspose) {
  const RandomSkin s = randomSkin(11, 30);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> d(-1, 1);
  Core::CouplingSum sum;
  Core::Vector expected = Core::Vector::Zero();
  for (size_t i = 0; i < s.m.size(); ++i) {
    const Vec3 f(d(rng), d(rng), d(rng)), x(d(rng), d(rng), d(rng));
    const Core::PointMap J = Core::pointMap(s.R, s.u[i]);
    // virtual work: f . (J v) = (L^T f) . v for every v
    EXPECT_LT(relative(Core::generalizedForce(f, s.R.transpose() * f, s.u[i]), J.transpose() * f), 1e-14);
    sum.add(s.m[i], s.u[i], x);
    expected += coupling(s, int(i)) * x;
  }
  EXPECT_LT(relative(sum.value(s.R), expected), 1e-14);
  // the column form: M_ce Y column by column, and column k of M_ce itself
  Core::CouplingColumnsSum columns;
  Core::Matrix expectedColumns = Core::Matrix::Zero();
  for (size_t i = 0; i < s.m.size(); ++i) {
    Core::Columns Y;
    Eigen::Matrix<double, 3, Core::kDofs> Ym;
    for (int k = 0; k < Core::kDofs; ++k) {
      Y[size_t(k)] = Vec3(d(rng), d(rng), d(rng));
      Ym.col(k) = Y[size_t(k)];
      EXPECT_LT((Core::couplingColumn(k, s.m[i], s.u[i], s.R) - coupling(s, int(i)).row(k).transpose()).norm(),
                1e-14);
    }
    columns.add(s.m[i], s.u[i], Y);
    expectedColumns += coupling(s, int(i)) * Ym;
  }
  EXPECT_LT(relative(columns.value(s.R), expectedColumns), 1e-14);
}

TEST(RigidCore, ResponseMatricesAreTheCondensationOfTheBlockDiagonalSkin) {
  const RandomSkin s = randomSkin(21, 25);
  Core::Matrix Mc = Core::Matrix::Random();
  Mc = (Mc * Mc.transpose()).eval();
  CondensedSums P;
  Core::Matrix expected = Mc;
  for (size_t i = 0; i < s.m.size(); ++i) {
    const double m2 = s.m[i] * s.m[i];
    const Mat3 ux = skew(s.u[i]);
    P.tt += m2 * s.hinv[i];
    P.tr += m2 * s.hinv[i] * ux;
    P.rr += ux * (m2 * s.hinv[i] * ux);
    const NodeCoupling C = coupling(s, int(i));
    expected -= C * s.hinv[i] * C.transpose();
  }
  EXPECT_LT(relative(Core::condensed(Mc, P, s.R), expected), 1e-13);
  // a contact row at node 0 along the world normal n
  const Vec3 n = Vec3(0.3, -0.8, 0.5).normalized(), nb = s.R.transpose() * n;
  const Vec3 hn = s.hinv[0] * nb;
  const Core::Vector U = Core::rowCoupling(n, nb, s.u[0], s.m[0], hn, s.R);
  const Core::Vector expectedU = Core::pointMap(s.R, s.u[0]).transpose() * n - coupling(s, 0) * hn;
  EXPECT_LT(relative(U, expectedU), 1e-14);
}

TEST(RigidCore, CachedColumnsTimesAVelocityIsTheProductOfTheColumns) {
  const RandomSkin s = randomSkin(31, 1);
  std::array<Vec3, 3> wt, wr;
  for (int k = 0; k < 3; ++k) {
    wt[size_t(k)] = Vec3::Random();
    wr[size_t(k)] = Vec3::Random();
  }
  const Vec3 q = Vec3::Random();
  const Core::Vector dv = Core::Vector::Random();
  const Core::Columns Y = Core::cachedColumns(wt, wr, s.hinv[0], s.m[0], q, s.R);
  Vec3 product = Vec3::Zero();
  for (int k = 0; k < Core::kDofs; ++k) product += Y[size_t(k)] * dv[k];
  const Vec3 cached = Core::cachedTimes(wt, wr, s.hinv[0], s.m[0], q, s.R.transpose(), dv);
  EXPECT_LT((cached - product).norm(), 1e-14 * product.norm());
  EXPECT_LT((Core::minusCoupled(product, Y, dv)).norm(), 1e-14 * product.norm());
  // Y_t = W_t R^T: a translation dv_t moves every node as W_t R^T dv_t
  Core::Vector translate = Core::Vector::Zero();
  translate.head<3>() = Vec3(0.2, -0.4, 0.7);
  const Vec3 a = s.R.transpose() * translate.head<3>();
  EXPECT_LT((Core::cachedTimes(wt, wr, s.hinv[0], s.m[0], q, s.R.transpose(), translate) -
             (wt[0] * a[0] + wt[1] * a[1] + wt[2] * a[2]))
                .norm(),
            1e-14);
}

TEST(RigidCore, KineticEnergyAlongAChangeIsTheQuadraticOfTheCoreMass) {
  const RandomSkin s = randomSkin(41, 0);
  const Vec3 vb = Vec3::Random(), w = Vec3::Random(), dvt = Vec3::Random(), dw = Vec3::Random();
  const Vec3 k = Core::kineticEnergyAlong(s.coreMass, s.coreInertia, vb, w, dvt, dw);
  for (double t : {0.0, 1.0, 2.0}) {
    const Vec3 v = vb + t * dvt, o = w + t * dw;
    const double e = 0.5 * (s.coreMass * v.squaredNorm() + o.dot(s.coreInertia * o));
    EXPECT_NEAR(k[0] + k[1] * t + k[2] * t * t, e, 1e-13 * e) << t;
  }
}

TEST(RigidCore, PositionsIntegrateFromTheStartWithTheNewVelocities) {
  CoreState start;
  start.position = Vec3(1, 2, 3);
  start.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()));
  CoreState s = start;
  Core::Vector dv;
  dv << 0.5, -1, 2, 0, 0, 4;  // (world; body)
  Core::addVelocity(s, dv);
  Core::integratePositions(s, start, 0.01);
  EXPECT_LT((s.position - Vec3(1.005, 1.99, 3.02)).norm(), 1e-15);
  // a body-frame spin about z: R = R0 exp(dt [w]x), 0.3 + 0.04 rad about z
  EXPECT_LT(s.orientation.angularDistance(Quat(Eigen::AngleAxisd(0.34, Vec3::UnitZ()))), 1e-12);
  // the linear momentum: m_c cdot + sum_i m_i (J_i v_c + R qdot_i) over explicit nodes
  s.angularVelocity = Vec3(0.3, -0.2, 0.9);
  const RandomSkin skin = randomSkin(51, 20);
  const Mat3 R = s.orientation.toRotationMatrix();
  Core::Vector v;
  v << s.velocity, s.angularVelocity;
  double total = skin.coreMass;
  Vec3 mu = Vec3::Zero(), mqdot = Vec3::Zero(), expected = skin.coreMass * s.velocity;
  for (size_t i = 0; i < skin.m.size(); ++i) {
    const Vec3 qdot(0.1 * double(i), -0.05, 0.02 * double(i % 3));
    total += skin.m[i];
    mu += skin.m[i] * skin.u[i];
    mqdot += skin.m[i] * qdot;
    expected += skin.m[i] * (Core::pointMap(R, skin.u[i]) * v + R * qdot);
  }
  EXPECT_LT((Core::linearMomentum(total, s, mu, mqdot) - expected).norm(), 1e-14 * expected.norm());
}

}  // namespace
}  // namespace d2t
