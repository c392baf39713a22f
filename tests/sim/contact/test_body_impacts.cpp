// Impacts between unequal bodies against the rigid law: two soft balls of different
// mass (size, density) or stiffness meet head on without gravity. The pair's restitution
// is one Newton impact on the two rigidified bodies (World::pairImpacts,
// docs/decisions/0009-restitution-as-rigid-impact.md) with the pair's coefficient
// e = sqrt(e1 e2) (makePairContact), so the centres leave at
//   v1' = (m1 v1 + m2 v2 - m2 e (v1 - v2)) / (m1 + m2)
//   v2' = (m1 v1 + m2 v2 + m1 e (v1 - v2)) / (m1 + m2)
// and the pair's momentum is what it was.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/world/world.h"
#include "test_shapes.h"

namespace d2t {
namespace {

struct Ball {
  double radius, young, density, restitution, speed;  // speed along +x [m/s]
};

struct ImpactRun {
  double m1 = 0, m2 = 0, e = 0;
  double v1 = 0, v2 = 0;            ///< the centres' velocities along x after the impact [m/s]
  double expect1 = 0, expect2 = 0;  ///< the rigid law's
  double momentum = 0;              ///< largest |P - P0| over the run / (|m1 v1| + |m2 v2|)
  double lateral = 0;               ///< largest |v_y|, |v_z| of either centre at the end [m/s]
  int touching = 0;                 ///< steps with contacts
};

// ball 1 at the left, ball 2 at the right, 2 cm apart, 32^2, dt 2 ms, 0.5 s
ImpactRun collide(const Ball& b1, const Ball& b2) {
  Scene s;
  s.simulation.gravity = Vec3::Zero();
  s.simulation.dt = 0.002;
  const Ball* b[2] = {&b1, &b2};
  for (int k = 0; k < 2; ++k) {
    BodyDesc d = test::ball(b[k]->radius, 32, b[k]->young, b[k]->density);
    d.name = k ? "right" : "left";
    d.position = Vec3(k ? b2.radius + 0.01 : -b1.radius - 0.01, 0, 0);
    d.velocity = Vec3(b[k]->speed, 0, 0);
    d.material.restitution = b[k]->restitution;
    s.bodies.push_back(d);
  }
  World w(s);
  LayeredBody &l1 = w.bodies()[0].layered, &l2 = w.bodies()[1].layered;
  ImpactRun r;
  r.m1 = l1.totalMass();
  r.m2 = l2.totalMass();
  r.e = std::sqrt(b1.restitution * b2.restitution);
  const double u1 = b1.speed, u2 = b2.speed, m1 = r.m1, m2 = r.m2;
  r.expect1 = (m1 * u1 + m2 * u2 - m2 * r.e * (u1 - u2)) / (m1 + m2);
  r.expect2 = (m1 * u1 + m2 * u2 + m1 * r.e * (u1 - u2)) / (m1 + m2);
  const Vec3 p0 = l1.linearMomentum() + l2.linearMomentum();
  const double scale = std::abs(m1 * u1) + std::abs(m2 * u2);
  for (int n = 0; n < 250; ++n) {
    w.step();
    r.momentum = std::max(r.momentum, (l1.linearMomentum() + l2.linearMomentum() - p0).norm() / scale);
    r.touching += l1.lastStep().contacts + l2.lastStep().contacts > 0;
  }
  EXPECT_EQ(w.bodies()[0].stats.resets + w.bodies()[1].stats.resets, 0);
  const Vec3 v1 = l1.linearMomentum() / m1, v2 = l2.linearMomentum() / m2;
  r.v1 = v1.x();
  r.v2 = v2.x();
  r.lateral = std::max(v1.tail<2>().cwiseAbs().maxCoeff(), v2.tail<2>().cwiseAbs().maxCoeff());
  std::printf("m1 %.1f kg (r %.2f m, E %.0e, rho %.0f) at %+.2f m/s, m2 %.1f kg (r %.2f m, E %.0e, rho %.0f) at "
              "%+.2f m/s, e %.3f: %d steps in contact;\n  after v1 %+.5f (rigid law %+.5f, off by %.1e of |v1 - v2|), "
              "v2 %+.5f (%+.5f, %.1e); momentum error %.1e, sideways %.1e m/s\n",
              m1, b1.radius, b1.young, b1.density, u1, m2, b2.radius, b2.young, b2.density, u2, r.e, r.touching,
              r.v1, r.expect1, (r.v1 - r.expect1) / std::abs(u1 - u2), r.v2, r.expect2,
              (r.v2 - r.expect2) / std::abs(u1 - u2), r.momentum, r.lateral);
  return r;
}

void expectRigidLaw(const ImpactRun& r, double u1, double u2) {
  const double rel = std::abs(u1 - u2);
  EXPECT_GE(r.touching, 1);
  EXPECT_NEAR(r.v1, r.expect1, 1e-12 * rel);
  EXPECT_NEAR(r.v2, r.expect2, 1e-12 * rel);
  EXPECT_LT(r.momentum, 1e-12);
  EXPECT_LT(r.lateral, 1e-12 * rel);
}

}  // namespace

// Measured (32^2, dt 2 ms, 250 steps each, 0.2 s for all three): masses 4.6x apart
// (radius), 6x (density, e1 0.3, e2 0.8) and a pair 20x apart in stiffness (and 2.9x
// in mass): the centres leave at the rigid law's speeds to 1.5e-16 of |v1 - v2|, the
// momentum stays to 1.4e-16 of the scale, nothing sideways (3e-17 m/s): the impact is
// one rigid Newton impulse in one step of contact and the node constraints after it
// are inelastic and find nothing to do. (The bounds, 1e-12, are round-off's.)
// Mutations (World::pairImpacts, makePairContact): the impulse with a quarter of the sum
// of the two effective masses instead of the reduced mass: v1 off by 0.19 and 0.13 of
// |v1 - v2| (the density pair gains energy and is reset); the pair's e the mean of the
// two instead of sqrt(e1 e2): the density pair (e 0.55 instead of 0.49) off by 0.052.
TEST(BodyImpact, UnequalMassesReboundAsTheRigidRestitutionLaw) {
  {
    const Ball big{0.5, 1e6, 1000, 0.5, 1.0}, small{0.3, 1e6, 1000, 0.5, -1.0};
    expectRigidLaw(collide(big, small), 1.0, -1.0);
  }
  {
    const Ball light{0.4, 1e6, 1000, 0.3, 1.5}, heavy{0.4, 1e6, 6000, 0.8, 0.0};
    expectRigidLaw(collide(light, heavy), 1.5, 0.0);
  }
}

TEST(BodyImpact, UnequalStiffnessesReboundAsTheRigidRestitutionLaw) {
  const Ball soft{0.5, 1e5, 1000, 0.6, 1.0}, stiff{0.35, 2e6, 1000, 0.6, -0.5};
  expectRigidLaw(collide(soft, stiff), 1.0, -0.5);
}

}  // namespace d2t
