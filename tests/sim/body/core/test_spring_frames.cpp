// Core springs with a rest length and with the attachment point in the body frame,
// simulated (core_springs.h: f = -k (|d| - L) d^ - c pdot, d = p - anchor; a "body"
// point is taken from the core's centre of mass, a "shape" point from the shape's
// origin: LayeredBody::resolveSprings).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/body/layered_body.h"
#include "sim/world/world.h"
#include "one_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;
const Vec3 kG(0, -9.81, 0);

// world position of core spring j's point
Vec3 springPoint(const LayeredBody& b, int j) {
  const LayeredState& s = b.state();
  return s.position + s.orientation * (b.coreSprings()[size_t(j)].point - b.model().comOffset);
}

}  // namespace

// A ball hanging from its top point on a spring of rest length L, released with the
// spring at its rest length: it settles with the spring L + m g / k long.
// Measured (32^2, E = 1e5, k = 5e4 N/m, L = 0.5 m, 1000 steps of 5 ms): length - L within
// 3.7e-11 of m g / k (the bound, 1e-9, is the settling's), the point 1.4e-7 m off the
// vertical through the anchor (the 32^2 skin's asymmetry).
// Mutation (the rest length ignored in springAt, core_springs.cpp): length - L = -1.4 mm
// (relative error 1.01); the body-frame test's stretches -121% / -109%.
TEST(SpringFrames, HangingBodySettlesAtTheRestLengthPlusMgOverK) {
  const double k = 5e4, L = 0.5;
  BodyDesc d = test::ball(kR, 32, 1e5);
  d.position = Vec3(0, 2, 0);
  d.material.alpha = 5;  // settle the skin's vibration quickly
  d.material.beta = 0.02;
  CoreSpringDesc sp;
  sp.point = Vec3(0, kR, 0);  // the top of the ball (shape frame)
  sp.hasAnchor = true;
  sp.anchor = Vec3(0, 2 + kR + L, 0);
  sp.stiffness = k;
  sp.damping = 1e4;  // about critical
  sp.restLength = L;
  d.springs.push_back(sp);
  test::OneBody s(d);
  const double m = s.body.totalMass();
  for (int i = 0; i < 1000; ++i) s.step(0.005, kG);
  const Vec3 p = springPoint(s.body, 0), anchor = s.body.coreSprings()[0].anchor;
  const double stretch = (anchor - p).norm() - L, expect = m * 9.81 / k;
  std::printf("hanging on a spring of rest length %.2f m: length - L = %.9f m, m g / k = %.9f m (rel. error %.2e), "
              "sideways %.1e m\n",
              L, stretch, expect, std::abs(stretch / expect - 1), std::hypot(p.x() - anchor.x(), p.z() - anchor.z()));
  EXPECT_NEAR(stretch, expect, 1e-9 * expect);
  EXPECT_LT(std::hypot(p.x() - anchor.x(), p.z() - anchor.z()), 5e-7);
}

// A ball whose right half (x > 0) is 3x denser, hung level from two vertical springs of
// rest length L at the BODY-frame points (-a, 0, 0) and (a, 0, 0), of stiffness k1
// (left) and k2 = k1 / 2 (right). The body frame's origin is the core's centre of mass
// (docs/design.md sec. 2), delta right of the shape's origin; the whole body's centre of
// mass (the heavier skin) lies a further c right of it (BakedBody::totalCom). Gravity
// acts there, so the torques balance when F1 (a + c) = F2 (a - c), F1 + F2 = m g: the
// points sink e_i = F_i / k_i and the ball tilts by atan((e2 - e1) / (2 a)) about z
// (clockwise), to first order in the tilt. Had the points been taken in the shape
// frame, the arms would be a + c + delta and a - c - delta.
// Measured (32^2, E = 1e5, delta 0.067 m, c 0.026 m, a = 0.3 m, 800 steps of 5 ms): the
// stretches +0.12% / -0.10% of F_i / k_i, the tilt -0.13% of the closed form (its
// second-order terms: the springs lean by a (1 - cos tilt)).
// Mutation (the body frame ignored in LayeredBody::resolveSprings): stretches -24% /
// +20%, tilt +53% of the closed form.
TEST(SpringFrames, BodyFrameSpringsEitherSideOfTheCentreOfMassTiltTheBodyAsTheirStiffnessesSay) {
  const double k1 = 2e5, k2 = 1e5, L = 0.4, a = 0.3;
  BodyDesc d = test::ball(kR, 32, 1e5);
  MaterialRegion heavy;
  heavy.normal = Vec3::UnitX();
  heavy.offset = 0;
  heavy.young = d.material.young;
  heavy.poisson = d.material.poisson;
  heavy.density = 3 * d.material.density;
  d.regions.push_back(heavy);
  d.position = Vec3(0, 2, 0);
  d.material.alpha = 5;
  d.material.beta = 0.02;
  const double delta = bake(d)->comOffset.x();
  for (int side : {-1, 1}) {
    CoreSpringDesc sp;
    sp.frame = SpringFrame::Body;
    sp.point = Vec3(side * a, 0, 0);
    sp.hasAnchor = true;
    sp.anchor = d.position + Vec3(delta + side * a, L, 0);  // above the point at the initial pose
    sp.stiffness = side < 0 ? k1 : k2;
    sp.damping = 5e3;
    sp.restLength = L;
    d.springs.push_back(sp);
  }
  test::OneBody s(d);
  const double m = s.body.totalMass();
  for (int i = 0; i < 800; ++i) s.step(0.005, kG);
  double sink[2];
  for (int j = 0; j < 2; ++j) sink[j] = (s.body.coreSprings()[size_t(j)].anchor - springPoint(s.body, j)).norm() - L;
  const double c = s.body.model().totalCom.x();
  const double e1 = m * 9.81 * (a - c) / (2 * a * k1), e2 = m * 9.81 * (a + c) / (2 * a * k2);
  const Vec3 xAxis = s.body.state().orientation * Vec3::UnitX();
  const double tilt = std::atan2(xAxis.y(), xAxis.x()), expectTilt = -std::atan((e2 - e1) / (2 * a));
  const Vec3 w = s.body.state().orientation * s.body.state().angularVelocity;
  std::printf("body-frame springs (core's centre of mass %.4f m right of the shape's origin, the body's %.4f m right "
              "of the core's, m = %.1f kg): stretches %.6f / %.6f m, F_i / k_i = %.6f / %.6f m (%.3f%% / %.3f%%); "
              "tilt %.6f rad, closed form %.6f (%.3f%%); |w| %.1e rad/s\n",
              delta, c, m, sink[0], sink[1], e1, e2, 100 * (sink[0] / e1 - 1), 100 * (sink[1] / e2 - 1), tilt,
              expectTilt, 100 * (tilt / expectTilt - 1), w.norm());
  EXPECT_GT(delta, 0.05);  // (the frames differ by this much)
  EXPECT_NEAR(sink[0], e1, 0.003 * e1);
  EXPECT_NEAR(sink[1], e2, 0.003 * e2);
  EXPECT_NEAR(tilt, expectTilt, 0.003 * std::abs(expectTilt));
}

}  // namespace d2t
