// Wheels down an incline: a torus rolling on its rim and a cylinder rolling on its
// curved face, axis across the slope, against the closed form of rolling without
// slipping, a = g sin(theta) / (1 + I / (m r^2)), with I about the rolling axis from
// the body's own inertia and r the rolling radius (the loaded one: the mean height of
// the centre of mass above the plane, as for the ball in test_layered_physics.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "incline_fit.h"
#include "sim/base/json_reader.h"
#include "sim/body/layered_body.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

struct Roll {
  double a = NAN;        ///< downhill acceleration of the centre of mass, least squares over [t0, t1] [m/s^2]
  double radius = NAN;   ///< mean height of the centre of mass above the plane over [t0, t1] [m]
  double inertia = NAN;  ///< about the rolling axis through the centre of mass [kg m^2]
  double mass = NAN;
  double rolling = NAN;  ///< the closed form on that radius
  double slip = NAN;     ///< (v - w r) / v at t1
  double drift = NAN;    ///< |sideways velocity| / downhill velocity at t1 (the wheel stays on its line)
};

// `d` (its axis of symmetry along the body's y) turned so that the axis lies along
// world z, released `lift` above the incline of angle theta (downhill +x), undamped,
// friction 1, no rolling resistance; time step dt.
Roll rollDown(BodyDesc d, double rimRadius, double theta, double t0, double t1, double dt) {
  const Vec3 n(std::sin(theta), std::cos(theta), 0), downhill(std::cos(theta), -std::sin(theta), 0);
  d.material.alpha = d.material.beta = 0;
  d.material.friction = 1.0;
  d.material.rollingResistance = 0;
  d.orientation = Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitX()));  // body y -> world z
  d.position = n * (rimRadius + 1e-3);
  test::OneBody s(d, test::planeCollider(n, 0, d.material, 1.0));
  test::InclineFit fit(n, downhill);
  for (int k = 1; k * dt <= t1 + 1e-12; ++k) {
    s.step(dt, Vec3(0, -9.81, 0));
    if (k * dt >= t0) fit.add(k * dt, s.body.centerOfMass());
  }
  EXPECT_EQ(s.world.bodies()[0].stats.resets, 0);
  Roll r;
  r.a = fit.acceleration();
  r.radius = fit.radius();
  const BakedBody& m = s.body.model();
  const LayeredState& st = s.body.state();
  const Mat3 R = st.orientation.toRotationMatrix();
  r.inertia = (R * m.totalInertia * R.transpose())(2, 2);  // about world z
  r.mass = m.totalMass;
  r.rolling = 9.81 * std::sin(theta) / (1 + r.inertia / (r.mass * r.radius * r.radius));
  const Vec3 w = R * st.angularVelocity;
  const Vec3 v = s.body.linearMomentum() / m.totalMass;
  const double vd = downhill.dot(v);
  r.slip = (vd + w.z() * n.dot(s.body.centerOfMass())) / vd;
  r.drift = std::abs(v.z()) / vd;
  return r;
}

void report(const char* what, const Roll& r, double theta) {
  std::printf("%s on %.0f deg: a = %.4f m/s^2, rolling radius %.4f m, I %.4f kg m^2 (I / m r^2 = %.3f), closed form "
              "%.4f (%.2f%%), slip %.2f%%, sideways %.1e of the speed; g sin = %.4f\n",
              what, theta * 180 / kPi, r.a, r.radius, r.inertia, r.inertia / (r.mass * r.radius * r.radius),
              r.rolling, 100 * (r.a / r.rolling - 1), 100 * r.slip, r.drift, 9.81 * std::sin(theta));
}

}  // namespace

// Measured (64^2, E = 1 MPa, 15 deg, dt 1 ms, fitted over 0.2-0.8 s): torus -0.62% of the
// closed form (rolling radius 0.5432 m, I / m r^2 0.598), cylinder -0.86% (0.3960 m,
// 0.505); slip under 0.01%, sideways drift 5e-3 / 4e-3 of the speed. The deficit is
// the discretisation's (backward Euler's damping of the skin that rolls in and out of
// the patch, and the faceted rim): the cylinder at 32^2 and dt 2 ms is -3.1%, at 64^2
// -2.1% (2 ms), -0.9% (1 ms), -0.2% (0.5 ms). Mutation (no friction against colliders,
// colliderContact in detection.cpp): both slide at g sin (torus +60%, cylinder +50% of
// the closed form, slip 98-100%).
TEST(RollingShapes, TorusRollsOnItsRimAsTheClosedFormSays) {
  const double theta = 15 * kPi / 180, major = 0.4, minor = 0.15;
  BodyDesc d;
  d.name = "torus";
  d.shape = std::make_shared<test::Torus>(major, minor);
  d.atlasResolution = 64;
  d.material.young = 1e6;
  const Roll r = rollDown(d, major + minor, theta, 0.2, 0.8, 0.001);
  report("torus (R 0.4, r 0.15)", r, theta);
  EXPECT_NEAR(r.a, r.rolling, 0.02 * r.rolling);
  EXPECT_LT(std::abs(r.slip), 0.005);
  EXPECT_LT(r.drift, 0.015);
  EXPECT_NEAR(r.radius, major + minor, 0.03 * (major + minor));
}

TEST(RollingShapes, CylinderRollsOnItsCurvedFaceAsTheClosedFormSays) {
  const double theta = 15 * kPi / 180, radius = 0.4;
  BodyDesc d;
  d.name = "cylinder";
  d.shape = parseShape(JsonReader(nlohmann::json::parse(R"({"type": "cylinder", "radius": 0.4, "height": 0.5})"),
                                  "test", "/shape"));
  d.atlasResolution = 64;
  d.material.young = 1e6;
  const Roll r = rollDown(d, radius, theta, 0.2, 0.8, 0.001);
  report("cylinder (r 0.4, h 0.5)", r, theta);
  EXPECT_NEAR(r.a, r.rolling, 0.02 * r.rolling);
  EXPECT_LT(std::abs(r.slip), 0.005);
  EXPECT_LT(r.drift, 0.015);
  EXPECT_NEAR(r.radius, radius, 0.03 * radius);
}

}  // namespace d2t
