// The static / modal references of the layered model on their own: scaling
// laws, orthogonality, force balance, monotonicity.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/model/static_reference.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;

BodyDesc ball(int res, double young = 1e5, double density = 1000, double poisson = 0.3) {
  return test::ball(kR, res, young, density, poisson);
}

double maxNorm(const std::vector<Vec3>& v) {
  double m = 0;
  for (const Vec3& x : v) m = std::max(m, x.norm());
  return m;
}

const Vec3 kG(0, -9.81, 0);

}  // namespace

TEST(StaticReference, SpinBulgeScalesWithOmegaSquaredAndIsRadial) {
  const BakedBodyPtr b = bake(ball(32));
  const Vec3 w(0, 4, 0);
  const auto q1 = staticSpinBulge(*b, w, false), q2 = staticSpinBulge(*b, 2 * w, false);
  // first order: linear in the load m w^2 ub
  for (int i = 0; i < b->nodeCount(); ++i) ASSERT_LT((q2[i] - 4 * q1[i]).norm(), 1e-9 * maxNorm(q2));
  // with u = ub + q the centrifugal load grows with the bulge: a little more than 4x
  const auto g1 = staticSpinBulge(*b, w, true), g2 = staticSpinBulge(*b, 2 * w, true);
  const double r1 = maxNorm(g1) / maxNorm(q1), r2 = maxNorm(g2) / maxNorm(q2);
  EXPECT_GT(r1, 1.0);
  EXPECT_GT(r2, r1);
  EXPECT_LT(r2, 1.2);
  // outward from the spin axis near the equator, and there mostly along e_rho
  int equator = 0;
  for (int i = 0; i < b->nodeCount(); ++i) {
    const Vec3& u = b->restSkin[i];
    if (std::abs(u.y()) > 0.2 * kR) continue;
    const Vec3 erho = Vec3(u.x(), 0, u.z()).normalized();
    const double radial = q1[i].dot(erho);
    EXPECT_GT(radial, 0) << i;
    EXPECT_GT(radial, 3 * (q1[i] - radial * erho).norm()) << i;
    ++equator;
  }
  EXPECT_GT(equator, 20);
  // poles move less than the equator
  double pole = 0, eq = 0;
  for (int i = 0; i < b->nodeCount(); ++i) {
    const Vec3& u = b->restSkin[i];
    if (std::abs(u.y()) > 0.9 * kR) pole = std::max(pole, q1[i].norm());
    if (std::abs(u.y()) < 0.1 * kR) eq = std::max(eq, q1[i].norm());
  }
  EXPECT_LT(pole, eq);
  std::printf("spin bulge at |w| = 4 rad/s, E = 1e5: equator %.4g m, pole %.4g m, geometric/first-order %.5f\n",
              eq, pole, r1);
}

TEST(StaticReference, SpinBulgeScalesInverselyWithYoungsModulus) {
  const BakedBodyPtr soft = bake(ball(32, 1e5)), stiff = bake(ball(32, 3e5));
  const Vec3 w(0.3, 4, -0.2);
  const auto a = staticSpinBulge(*soft, w, false), b = staticSpinBulge(*stiff, w, false);
  for (int i = 0; i < soft->nodeCount(); ++i) ASSERT_LT((a[i] - 3 * b[i]).norm(), 1e-9 * maxNorm(a));
}

TEST(StaticReference, SkinModesAreMassOrthonormalAscendingAndScaleWithWaveSpeed) {
  const BakedBodyPtr b = bake(ball(32, 1e5, 1000));
  const int count = 12;
  const auto modes = skinModes(*b, count);
  ASSERT_EQ(static_cast<int>(modes.size()), count);
  const int n = b->nodeCount();
  std::vector<Vec3> kphi(n);
  for (int k = 0; k < count; ++k) {
    EXPECT_GT(modes[k].omega, 0);
    if (k > 0) {
      EXPECT_GE(modes[k].omega, modes[k - 1].omega);
    }
    for (int l = 0; l <= k; ++l) {
      double mkl = 0;
      for (int i = 0; i < n; ++i) mkl += b->nodeMass[i] * modes[k].shape[i].dot(modes[l].shape[i]);
      EXPECT_NEAR(mkl, k == l ? 1.0 : 0.0, 1e-9) << k << " " << l;
    }
    // Rayleigh quotient: phi^T K phi = omega^2 (phi mass-normalised)
    multiplyK(*b, modes[k].shape[0].data(), kphi[0].data());
    double phiKphi = 0;
    for (int i = 0; i < n; ++i) phiKphi += modes[k].shape[i].dot(kphi[i]);
    EXPECT_NEAR(phiKphi, modes[k].omega * modes[k].omega, 1e-8 * phiKphi);
  }
  // omega ~ sqrt(E / rho): 4x E doubles it, 4x rho halves it
  const auto stiff = skinModes(*bake(ball(32, 4e5, 1000)), count);
  const auto heavy = skinModes(*bake(ball(32, 1e5, 4000)), count);
  for (int k = 0; k < count; ++k) {
    EXPECT_NEAR(stiff[k].omega, 2 * modes[k].omega, 1e-8 * modes[k].omega) << k;
    EXPECT_NEAR(heavy[k].omega, 0.5 * modes[k].omega, 1e-8 * modes[k].omega) << k;
  }
  std::printf("skin modes (N = 32, E = 1e5, rho = 1000): omega_0 = %.4f rad/s (%.4f Hz), omega_%d = %.4f rad/s\n",
              modes[0].omega, modes[0].omega / (2 * kPi), count - 1, modes[count - 1].omega);
}

TEST(StaticReference, RestOnPlaneCarriesTheWeightWithoutPenetration) {
  const BakedBodyPtr b = bake(ball(32, 1e5));
  for (PlaneContact contact : {PlaneContact::NoSlip, PlaneContact::Frictionless}) {
    const RestOnPlane r = staticRestOnPlane(*b, kG, 0.25, Quat::Identity(), contact);
    EXPECT_NEAR(r.contactForce, r.weight, 1e-8 * r.weight);
    EXPECT_NEAR(r.weight, b->totalMass * 9.81, 1e-9 * r.weight);
    EXPECT_LT(r.residualForce.norm(), 1e-6 * r.weight);
    EXPECT_GE(r.minNodeHeight, 0.25 - 1e-9);  // no penetration
    EXPECT_LT(r.minNodeHeight, 0.25 + 1e-9);  // and it touches
    EXPECT_GT(r.contactNodes, 0);
    EXPECT_GT(r.sinking, 0);
    EXPECT_LT(r.sinking, 0.4 * kR);           // the skin is 0.2 m thick
    EXPECT_NEAR(r.undeformedHeight - 0.25, kR, 0.02 * kR);
    // nearly symmetric body and load (the mesh and the com offset are not exactly
    // mirror-symmetric): the held orientation is nearly balanced, lever < 0.5% r
    EXPECT_LT(r.residualTorque.norm(), 5e-3 * r.weight * kR);
    if (contact == PlaneContact::Frictionless) {
      EXPECT_EQ(r.horizontalShift.norm(), 0);
    }
    EXPECT_LT(r.horizontalShift.norm(), 0.01 * kR);
    // displacements consistent with the height: the lowest node sits on the plane
    double low = 1e300;
    for (int i = 0; i < b->nodeCount(); ++i)
      low = std::min(low, r.coreHeight + (b->restSkin[i] + r.q[i]).y());
    EXPECT_NEAR(low, r.minNodeHeight, 1e-12);
    std::printf("rest on plane (N = 32, E = 1e5, m = %.1f kg, %s): c_y = %.6f m, sinking %.5f m, "
                "%d contact nodes, %d iterations, shift %.2e m, torque lever %.2e m\n",
                b->totalMass, contact == PlaneContact::NoSlip ? "no-slip" : "frictionless",
                r.coreHeight, r.sinking, r.contactNodes, r.iterations, r.horizontalShift.norm(),
                r.residualTorque.norm() / r.weight);
  }
}

// With a crushed layer (keep = 0.1, core_contact.h): a ball stiff enough to carry its
// weight rests as without it, bit for bit; one too soft rests with its core keep h_i
// above the plane under its lowest core point, and at 1 kPa with its top layer sagged
// onto its core, held there (crushed nodes, no violation left).
TEST(StaticReference, RestOnPlaneWithACrushedLayer) {
  const double keep = 0.1;
  const BodyDesc base = ball(32, 1e5);
  for (double young : {1e5, 3e3, 1e3}) {
    BodyDesc d = base;
    d.material.young = young;
    d.coreScale = 0.6;
    const BakedBodyPtr b = bake(d);
    // the lowest core height the crushed layer allows, from the core points alone
    double floor = -1e300, thinnest = 1e300;
    for (int i = 0; i < b->nodeCount(); ++i)
      floor = std::max(floor, keep * (b->restSkin[i] - b->core[i]).norm() - b->core[i].y());
    for (PlaneContact contact : {PlaneContact::NoSlip, PlaneContact::Frictionless}) {
      const RestOnPlane free = staticRestOnPlane(*b, kG, 0, Quat::Identity(), contact);
      const RestOnPlane r = staticRestOnPlane(*b, kG, 0, Quat::Identity(), contact, keep);
      double top = 0;
      for (int i = 0; i < b->nodeCount(); ++i) {
        const Vec3 d = b->restSkin[i] - b->core[i];
        const double layer = (d.norm() + d.normalized().dot(r.q[i])) / d.norm();
        thinnest = std::min(thinnest, layer);
        if (d.normalized().y() > 0.95) top = std::max(top, layer);
      }
      std::printf("rest on plane with a crushed layer (E = %.0e, %s): core %.5f m (without it %.5f), on the "
                  "crushed layer %d, %d nodes held at it, top layer %.3f, thinnest %.3f, violation %.1e m\n",
                  young, contact == PlaneContact::NoSlip ? "no-slip" : "frictionless", r.coreHeight,
                  free.coreHeight, r.onCrushedLayer, r.crushedNodes, top, thinnest, r.crushViolation);
      EXPECT_LT(r.crushViolation, 1e-9);
      EXPECT_GE(r.minNodeHeight, -1e-9);
      if (young >= 1e5) {  // carried by the skin: the limits change nothing
        EXPECT_FALSE(r.onCrushedLayer);
        EXPECT_EQ(r.crushedNodes, 0);
        EXPECT_EQ(r.coreHeight, free.coreHeight);
      } else {  // the core on its crushed layer, which the free solve sinks through
        EXPECT_TRUE(r.onCrushedLayer);
        EXPECT_NEAR(r.coreHeight, floor, 1e-12);
        EXPECT_LT(free.coreHeight, floor);
        EXPECT_NEAR(r.contactForce, r.weight, 1e-8 * r.weight);
      }
      if (young <= 1e3) {  // the top layer's own weight crushes it onto the core
        EXPECT_GT(r.crushedNodes, 0);
        EXPECT_NEAR(top, keep, 1e-9);
      }
    }
    EXPECT_GT(thinnest, keep - 1e-9);
  }
}

TEST(StaticReference, RestOnPlaneSinksAsOneOverYoungsModulusForSmallLoads) {
  // a small load keeps the same contact nodes: the whole problem is linear, sinking ~ 1/E
  const RestOnPlane a = staticRestOnPlane(*bake(ball(32, 1e8)), kG, 0, Quat::Identity());
  const RestOnPlane b = staticRestOnPlane(*bake(ball(32, 2e8)), kG, 0, Quat::Identity());
  EXPECT_EQ(a.contactNodes, b.contactNodes);
  EXPECT_NEAR(a.sinking / b.sinking, 2.0, 0.02);
  // and it keeps growing as the body gets softer; a stiffer body sinks less
  double last = 0;
  for (double e : {1e7, 1e6, 3e5, 1e5, 5e4}) {
    const RestOnPlane r = staticRestOnPlane(*bake(ball(32, e)), kG, 0, Quat::Identity());
    EXPECT_GT(r.sinking, last) << e;
    EXPECT_NEAR(r.contactForce, r.weight, 1e-8 * r.weight) << e;
    std::printf("E = %.0e Pa: sinking %.5f m (%d contact nodes)\n", e, r.sinking, r.contactNodes);
    last = r.sinking;
  }
}

TEST(StaticReference, RestOnPlaneFrictionlessSinksAtLeastAsMuchAsNoSlip) {
  const BakedBodyPtr b = bake(ball(32, 1e5));
  const RestOnPlane stick = staticRestOnPlane(*b, kG, 0, Quat::Identity(), PlaneContact::NoSlip);
  const RestOnPlane slip = staticRestOnPlane(*b, kG, 0, Quat::Identity(), PlaneContact::Frictionless);
  EXPECT_GE(slip.sinking, stick.sinking * (1 - 1e-9));
  std::printf("sinking no-slip %.5f m, frictionless %.5f m\n", stick.sinking, slip.sinking);
}

TEST(StaticReference, PressOnPlaneCarriesTheLoadAndScalesWithStiffness) {
  // no skin gravity: only the push on the core, which the plane carries whole
  const BakedBodyPtr soft = bake(ball(32, 1e5)), stiff = bake(ball(32, 2e5));
  const double load = 800;  // [N]
  const RestOnPlane a = staticPressOnPlane(*soft, Vec3::Zero(), load, -0.1, Quat::Identity());
  EXPECT_NEAR(a.contactForce, load, 1e-8 * load);
  EXPECT_LT(a.residualForce.norm(), 1e-6 * load);
  EXPECT_GE(a.minNodeHeight, -0.1 - 1e-9);
  EXPECT_LT(a.minNodeHeight, -0.1 + 1e-9);
  EXPECT_GT(a.sinking, 0);
  // K and the load both doubled: the same displacements, whatever the contact set
  const RestOnPlane b = staticPressOnPlane(*stiff, Vec3::Zero(), 2 * load, -0.1, Quat::Identity());
  EXPECT_EQ(a.contactNodes, b.contactNodes);
  EXPECT_NEAR(b.sinking, a.sinking, 1e-9 * a.sinking);
  // a heavier push sinks deeper; the rest problem is the press by the body's weight
  const RestOnPlane c = staticPressOnPlane(*soft, Vec3::Zero(), 2 * load, -0.1, Quat::Identity());
  EXPECT_GT(c.sinking, a.sinking);
  const RestOnPlane rest = staticRestOnPlane(*soft, kG, 0, Quat::Identity());
  const RestOnPlane asPress = staticPressOnPlane(*soft, kG, soft->totalMass * 9.81, 0, Quat::Identity());
  EXPECT_NEAR(asPress.coreHeight, rest.coreHeight, 1e-12);
  // and bad loads are refused by name
  EXPECT_THROW(staticPressOnPlane(*soft, Vec3::Zero(), 0, 0, Quat::Identity()), std::invalid_argument);
  EXPECT_THROW(staticPressOnPlane(*soft, kG, 1.0, 0, Quat::Identity()), std::invalid_argument);
  std::printf("press on plane (N = 32, E = 1e5): %.0f N sinks %.5f m (%d contact nodes), %.0f N %.5f m\n", load,
              a.sinking, a.contactNodes, 2 * load, c.sinking);
}

TEST(StaticReference, HeterogeneousBodyIndentsMoreOnItsSoftSide) {
  BodyDesc d = ball(32, 1e5);
  d.regions.push_back(test::stiffHalf(d.material, 20));
  const BakedBodyPtr b = bake(d);
  // body +x up: the soft half (x < 0) is below; body +x down: the stiff half is below
  const Quat softDown(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ()));
  const Quat stiffDown(Eigen::AngleAxisd(-kPi / 2, Vec3::UnitZ()));
  ASSERT_NEAR((softDown * Vec3::UnitX()).y(), 1, 1e-12);
  const RestOnPlane soft = staticRestOnPlane(*b, kG, 0, softDown);
  const RestOnPlane hard = staticRestOnPlane(*b, kG, 0, stiffDown);
  EXPECT_NEAR(soft.contactForce, soft.weight, 1e-8 * soft.weight);
  EXPECT_NEAR(hard.contactForce, hard.weight, 1e-8 * hard.weight);
  EXPECT_GT(soft.sinking, 3 * hard.sinking);
  std::printf("heterogeneous (20x E on x > 0): sinking soft side %.5f m, stiff side %.5f m, ratio %.3f\n",
              soft.sinking, hard.sinking, soft.sinking / hard.sinking);
}

}  // namespace d2t
