// The skin's limits on its own core (core_contact.h) and the core's rows against the
// colliders (core_point_rows.h): the limits found where the layer says, the held
// inverse, a crush stopped with the body's momentum kept, a soft ball resting on its
// crushed skin, two soft balls stacked, a stiffness dragged down on a resting ball and a
// ball squeezed under a box.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "one_body.h"
#include "sim/base/json_reader.h"
#include "sim/contact/core_contact.h"
#include "sim/model/static_reference.h"
#include "sim/scene/scene.h"
#include "sim/scene/shape.h"
#include "sim/world/world.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;

BodyDesc softBall(double young, int res = 32) {
  BodyDesc d = test::ball(kR, res, young);
  d.coreScale = 0.6;
  return d;
}

// The thinnest layer over the core as a fraction of the rest layer, min_i (h_i + d_i . q_i) / h_i.
double thinnestLayer(const LayeredBody& b) {
  const BakedBody& m = b.model();
  double thinnest = 1e300;
  for (int i = 0; i < m.nodeCount(); ++i) {
    double h = 0;
    const Vec3 d = restDirection(m, i, &h);
    thinnest = std::min(thinnest, (h + d.dot(b.state().q[size_t(i)])) / h);
  }
  return thinnest;
}

TEST(CoreContact, FindsEachLimitWhereTheLayerSaysAndNowhereElse) {
  test::OneBody sim(softBall(5e4));
  const BakedBody& m = sim.body.model();
  const int n = m.nodeCount();
  const double keep = 0.1;
  std::vector<Vec3> q(size_t(n), Vec3::Zero());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  struct Expected {
    int node;
    bool stretch;
    double depth;
  };
  std::vector<Expected> expected;
  for (int i = 0; i < n; ++i) {
    double h = 0;
    const Vec3 d = restDirection(m, i, &h);
    const Vec3 t = d.unitOrthogonal();
    const double a = u(rng);
    if (i % 3 == 0) {  // crushed to (1 - s) h along d: past the limit by (s - (1 - keep)) h
      const double s = 0.8 + 0.15 * a;
      q[size_t(i)] = -s * h * d;
      if (s - (1 - keep) > 0) expected.push_back({i, false, (s - (1 - keep)) * h});
      if (s > kMaxStretch) expected.push_back({i, true, (s - kMaxStretch) * h});
    } else if (i % 3 == 1) {  // slid along the surface by s h
      const double s = 0.9 + 0.2 * a;
      q[size_t(i)] = s * h * t;
      if (s > kMaxStretch) expected.push_back({i, true, (s - kMaxStretch) * h});
    } else {  // within the limits
      q[size_t(i)] = 0.5 * h * (a * t - d);
    }
  }
  std::vector<CoreContact> found;
  findCoreContacts(m, q, keep, 0.0, 0.0, &found);
  ASSERT_EQ(found.size(), expected.size());
  int crushes = 0, stretches = 0;
  for (size_t k = 0; k < found.size(); ++k) {
    const CoreContact& c = found[k];
    EXPECT_EQ(c.node, expected[k].node);
    EXPECT_EQ(c.stretch, expected[k].stretch) << c.node;
    EXPECT_NEAR(c.depth, expected[k].depth, 1e-12) << c.node;
    double h = 0;
    const Vec3 d = restDirection(m, c.node, &h);
    const Vec3 want = c.stretch ? Vec3(-q[size_t(c.node)].normalized()) : d;
    EXPECT_LT((c.normal - want).norm(), 1e-12);
    (c.stretch ? stretches : crushes) += 1;
  }
  EXPECT_GT(crushes, 20);
  EXPECT_GT(stretches, 20);
  // a margin reports the nodes near a limit too, with the (negative) depth
  std::vector<CoreContact> near;
  findCoreContacts(m, q, keep, 0.3, 0.0, &near);
  EXPECT_GT(near.size(), found.size());
  for (const CoreContact& c : near) EXPECT_GT(c.depth, -0.3 * (m.restSkin[size_t(c.node)] - m.core[size_t(c.node)]).norm() - 1e-12);
}

TEST(CoreContact, HeldInverseGivesNoVelocityAlongWhatItHolds) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::Matrix3d a;
    for (int k = 0; k < 9; ++k) a(k / 3, k % 3) = g(rng);
    const Mat3 H = a * a.transpose() + 0.1 * Mat3::Identity();
    const Vec3 d1 = Vec3(g(rng), g(rng), g(rng)).normalized(), d2 = Vec3(g(rng), g(rng), g(rng)).normalized();
    const Mat3 h1 = heldInverse(H, d1);
    EXPECT_LT((h1 * d1).norm(), 1e-12 * H.norm());
    EXPECT_LT((h1 - h1.transpose()).norm(), 1e-12 * H.norm());
    // one after the other is both together: H - H C (C^T H C)^-1 C^T H
    const std::vector<std::pair<int, Mat3>> both = heldBlocks({H}, {{0, d1}, {0, d2}});
    Eigen::Matrix<double, 3, 2> C;
    C << d1, d2;
    const Mat3 joint = H - H * C * (C.transpose() * H * C).inverse() * C.transpose() * H;
    ASSERT_EQ(both.size(), 1u);
    EXPECT_LT((both[0].second - joint).norm(), 1e-10 * H.norm());
    // held twice along one direction (crushed straight in, near its stretch limit too)
    const std::vector<std::pair<int, Mat3>> twice = heldBlocks({H}, {{0, d1}, {0, -d1}});
    EXPECT_TRUE(twice[0].second.allFinite());
    EXPECT_LT((twice[0].second - h1).norm(), 1e-12 * H.norm());
  }
}

// Nodes thrown at their core in free space: the rows on the core stop them at their
// thinnest layer, and, internal to the body, leave its momentum as it was.
TEST(CoreContact, ACrushStopsAtTheThinnestLayerAndKeepsTheMomentum) {
  double dlOff = 0;
  for (bool on : {false, true}) {
    test::OneBody sim(softBall(2e3));
    sim.world.settings().response.skinOnCore = on;
    LayeredState& s = sim.edit();
    const BakedBody& m = sim.body.model();
    s.velocity = Vec3(0.3, -0.2, 0.1);
    s.angularVelocity = Vec3(0.5, 0.2, -0.4);
    for (int i = 0; i < m.nodeCount(); ++i) {
      double h = 0;
      const Vec3 d = restDirection(m, i, &h);
      if (d.y() > 0.5) s.qdot[size_t(i)] = -30.0 * h * d;  // the top of the skin thrown in at 30 layers / s
    }
    const Vec3 p0 = sim.body.linearMomentum(), l0 = sim.body.angularMomentum(sim.body.centerOfMass());
    double thinnest = 1e300, dp = 0, dl = 0;
    int rows = 0;
    for (int n = 0; n < 40; ++n) {
      sim.step(0.005, Vec3::Zero());
      thinnest = std::min(thinnest, thinnestLayer(sim.body));
      rows += sim.body.lastStep().coreContacts;
      dp = std::max(dp, (sim.body.linearMomentum() - p0).norm() / p0.norm());
      dl = std::max(dl, (sim.body.angularMomentum(sim.body.centerOfMass()) - l0).norm() / l0.norm());
    }
    std::printf("skin thrown at its core (limits %s): thinnest layer %.4f, %d rows on the core in 40 steps; "
                "momentum drift %.1e, angular momentum drift %.1e (relative)\n",
                on ? "on" : "off", thinnest, rows, dp, dl);
    if (on) {
      EXPECT_GT(rows, 10);
      EXPECT_GT(thinnest, 0.1 - 1e-6);  // Material::minLayer, after the correction
      EXPECT_LT(dp, 1e-9);
      EXPECT_LT(dl, 1.5 * dlOff + 1e-9);  // (the linearised step's own drift, measured off)
    } else {
      EXPECT_LT(thinnest, 0.05);  // (without the limits the layer is crushed past them: the test bites)
      dlOff = dl;
    }
    EXPECT_TRUE(sim.world.takeWarnings().empty());
  }
}

// A ball too soft to carry itself rests on its crushed skin: the core its thinnest
// layer above the floor (the skin under it crushed to that), the rest of the ball
// standing; on a plane and on a mesh collider (a box: the core's rows from stage 2's
// cast, findCoreColliderPoints). (Slow: a 3 kPa ball jiggles for seconds, so 6 s.)
TEST(CoreContact, SoftBallRestsOnItsCrushedSkin) {
  for (const bool mesh : {false, true}) {
    BodyDesc d = softBall(3e3);
    d.position = Vec3(0, kR + 0.01, 0);
    ColliderDesc floor = test::planeCollider(Vec3::UnitY(), 0, d.material);
    if (mesh) {  // (its top face at y = 0)
      floor.type = ColliderType::Mesh;
      floor.shape = parseShape(JsonReader(nlohmann::json::parse(R"({"type": "box", "size": [3, 1, 3], "bevel": 0})"),
                                          "test"));
      floor.position = Vec3(0, -0.5, 0);
    }
    test::OneBody sim(d, floor);
    const double h = kR * (1 - d.coreScale), keep = d.material.minLayer;
    double lowestCore = 1e300, lowestSkin = 1e300;
    for (int n = 0; n < 1200; ++n) {
      sim.step(0.005, Vec3(0, -9.81, 0));
      lowestCore = std::min(lowestCore, sim.body.coreLowest(Vec3::UnitY()));
      for (int i = 0; i < sim.body.nodeCount(); ++i) lowestSkin = std::min(lowestSkin, sim.body.nodePosition(i).y());
    }
    const double core = sim.body.coreLowest(Vec3::UnitY()), layer = thinnestLayer(sim.body);
    const double speed = sim.body.linearMomentum().norm() / sim.world.bodies()[0].model->totalMass;
    // the top of the skin: its layer over the core
    const BakedBody& m = sim.body.model();
    double top = 0;
    for (int i = 0; i < m.nodeCount(); ++i) {
      double hi = 0;
      const Vec3 di = restDirection(m, i, &hi);
      if (di.y() > 0.95) top = std::max(top, (hi + di.dot(sim.body.state().q[size_t(i)])) / hi);
    }
    std::printf("E = 3 kPa ball at rest on a %s: core %.2f mm above it (its crushed layer %.2f mm), lowest over "
                "the run %.2f mm; thinnest layer %.3f, top layer %.3f of the rest layer; skin lowest %.2f mm; "
                "speed %.1e m/s; resets %d\n",
                mesh ? "mesh box" : "plane", 1e3 * core, 1e3 * keep * h, 1e3 * lowestCore, layer, top,
                1e3 * lowestSkin, speed, sim.world.bodies()[0].stats.resets);
    if (!mesh) {
      // against the static reference with the same crushed layer (either contact: the
      // ball at rest rolls a little, so neither is exactly it): the core's height, the
      // ball's top, within 3% of its height
      double topY = -1e300;
      for (int i = 0; i < m.nodeCount(); ++i) topY = std::max(topY, sim.body.nodePosition(i).y());
      for (const PlaneContact c : {PlaneContact::NoSlip, PlaneContact::Frictionless}) {
        const RestOnPlane r = staticRestOnPlane(m, Vec3(0, -9.81, 0), 0, Quat::Identity(), c, keep);
        double staticTop = -1e300;
        for (int i = 0; i < m.nodeCount(); ++i) staticTop = std::max(staticTop, r.coreHeight + (m.restSkin[i] + r.q[i]).y());
        std::printf("  static reference (%s, the crushed layer %.1f): core %.4f m (on its crushed layer: %d, %d "
                    "nodes held at it), top %.4f m; the simulation: core %.4f m, top %.4f m\n",
                    c == PlaneContact::NoSlip ? "no-slip" : "frictionless", keep, r.coreHeight, r.onCrushedLayer,
                    r.crushedNodes, staticTop, sim.body.state().position.y(), topY);
        EXPECT_TRUE(r.onCrushedLayer);
        EXPECT_NEAR(sim.body.state().position.y(), r.coreHeight, 0.03 * r.coreHeight);
        EXPECT_NEAR(topY, staticTop, 0.03 * staticTop);
      }
    }
    EXPECT_EQ(sim.world.bodies()[0].stats.resets, 0);
    EXPECT_NEAR(core, keep * h, 1e-3);    // the core on the crushed layer
    EXPECT_GT(lowestCore, keep * h - 1e-3);
    EXPECT_GT(layer, keep - 1e-6);        // the skin never crushed past it (its nodes slid aside
    EXPECT_LT(layer, 2 * keep);           // a little under the core: not exactly at it)
    EXPECT_GT(top, 0.5);                  // the rest of the ball stands
    EXPECT_GT(lowestSkin, -2e-3);
    EXPECT_LT(speed, 0.01);
  }
}

// The Bodies panel's slider dragged from 50 kPa to 1 kPa in one go on a resting ball
// (World::setMaterial, as the panel calls it): it squashes onto its core, no reset, no
// jump of its centre of mass in a step beyond what the squash explains.
TEST(CoreContact, StiffnessDraggedDownOnARestingBallSquashesWithoutAReset) {
  BodyDesc d = softBall(5e4);
  d.position = Vec3(0, kR + 0.01, 0);
  test::OneBody sim(d, test::planeCollider(Vec3::UnitY(), 0, d.material));
  const Vec3 g(0, -9.81, 0);
  for (int n = 0; n < 300; ++n) sim.step(0.005, g);
  const double y0 = sim.body.centerOfMass().y();
  Material soft = d.material;
  soft.young = 1e3;
  sim.world.setMaterial(0, soft);
  double jump = 0, y = y0;
  for (int n = 0; n < 300; ++n) {
    sim.step(0.005, g);
    const double now = sim.body.centerOfMass().y();
    jump = std::max(jump, std::abs(now - y));
    y = now;
  }
  const double h = kR * (1 - d.coreScale);
  std::printf("50 kPa -> 1 kPa on a resting ball: the centre of mass sank %.1f mm (the layer %.0f mm), the "
              "largest move in a step %.2f mm; resets %d\n",
              1e3 * (y0 - y), 1e3 * h, 1e3 * jump, sim.world.bodies()[0].stats.resets);
  EXPECT_EQ(sim.world.bodies()[0].stats.resets, 0);
  EXPECT_GT(y0 - y, 0.2 * h);             // it squashed
  EXPECT_LT(y0 - y, (1 - d.material.minLayer) * h);  // onto its crushed layer, not through it
  EXPECT_LT(jump, 0.01);                  // 2 m/s at most: no jump
  EXPECT_GT(sim.body.coreLowest(Vec3::UnitY()), d.material.minLayer * h - 2e-3);
}

// Two soft balls stacked on the ground (r = 0.5 m, core 0.6, 1000 kg/m^3; 1 to 10 kPa:
// both crushed to their thinnest layer where they touch): each core rests on its
// crushed skin, on the other's crushed skin, on the other's core (World::separateCores),
// and the pair's responses, each against the other's moving surface, add no energy (the
// guard in their common frame): no reset. Before: at 3 kPa the cores went 24 mm into
// each other and the pair reset 6 times in 3 s.
TEST(CoreContact, SoftBallsStackedRestCoreOnCrushedSkinOnCrushedSkinOnCore) {
  for (const double young : {1e3, 3e3, 1e4}) {
    SCOPED_TRACE(young);
    const Scene scene = test::stackedBalls(softBall(young), kR, 0.005);
    World w(scene);
    const double core = kR * 0.6, keep = scene.bodies[0].material.minLayer, crushed = keep * (kR - core);
    const auto [gap, ground] = test::runStack(w, 400, core);
    std::printf("two %.0f kPa balls stacked: the cores' nearest %.2f mm apart (both crushed layers %.1f mm), the "
                "lower core %.2f mm above the ground (%.1f mm); resets %d, %d\n",
                1e-3 * young, 1e3 * gap, 2e3 * crushed, 1e3 * ground, 1e3 * crushed, w.bodies()[0].stats.resets,
                w.bodies()[1].stats.resets);
    EXPECT_EQ(w.bodies()[0].stats.resets + w.bodies()[1].stats.resets, 0);
    EXPECT_GT(gap, 2 * crushed - 1e-3);
    EXPECT_GT(ground, crushed - 1e-3);
  }
}

// The shipped ball_squeeze scene at 32^2: a foam ball (E = 50 kPa, nu 0.45, 300 kg/m^3, core 0.6 of
// r = 0.5 m) on the ground, a keyframed box lowered onto it until its bottom is 1.1 core
// diameters above the ground (1 s -> 2.5 s), held, lifted (3.5 s -> 4.5 s). The core stays
// its crushed layer away from both (the box is a mesh collider: its core rows come from
// stage 2's cast), nothing passes through anything, the ball squeezes out sideways and
// gets its shape back.
// At 32^2 and at the scene's own 64^2 (where the core's rows against the box, started in
// the active set, once pulled the core at gap / dt and reset the ball: core_point_rows.h).
class BallSqueezed : public ::testing::TestWithParam<int> {};

TEST_P(BallSqueezed, KeepsItsCoreOffBothAndRecovers) {
  const std::filesystem::path file =
      std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / "ball_squeeze.json";
  Scene scene = loadScene(file.string());
  scene.bodies[0].atlasResolution = GetParam();
  World w(scene);
  const double dt = w.settings().dt, keep = scene.bodies[0].material.minLayer;
  const double radius = 0.5, core = radius * scene.bodies[0].coreScale, h = radius - core;
  const Collider& box = w.colliders()[1];
  const double halfHeight = 0.15;  // (the scene's box: 0.3 m tall)
  double coreGround = 1e300, coreBox = 1e300, skinGround = 1e300, skinBox = 1e300;
  struct Shape {
    double height = 0, width = 0;  // the centre of mass; the skin's largest distance from the vertical axis
  } rest, squeezed, after;
  auto shape = [&] {
    const LayeredBody& b = w.bodies()[0].layered;
    const Vec3 c = b.centerOfMass();
    Shape s;
    s.height = c.y();
    for (int i = 0; i < b.nodeCount(); ++i) {
      const Vec3 x = b.nodePosition(i) - c;
      s.width = std::max(s.width, std::hypot(x.x(), x.z()));
    }
    return s;
  };
  for (int n = 1; n * dt <= 6.0 + 1e-9; ++n) {
    w.step();
    const LayeredBody& b = w.bodies()[0].layered;
    const double bottom = box.position().y() - halfHeight;
    coreGround = std::min(coreGround, b.coreLowest(Vec3::UnitY()));
    coreBox = std::min(coreBox, bottom + b.coreLowest(-Vec3::UnitY()));  // (bottom - the core's top)
    for (int i = 0; i < b.nodeCount(); ++i) {
      const double y = b.nodePosition(i).y();
      skinGround = std::min(skinGround, y);
      skinBox = std::min(skinBox, bottom - y);
    }
    if (std::abs(n * dt - 1.0) < 1e-9) rest = shape();
    if (std::abs(n * dt - 3.5) < 1e-9) squeezed = shape();
  }
  after = shape();
  std::printf("ball squeezed under a box (%d^2): the core's nearest %.2f mm to the ground, %.2f mm to the box (its "
              "crushed layer %.1f mm); the skin's %.2f mm, %.2f mm; centre height %.3f -> %.3f -> %.3f m, width "
              "%.3f -> %.3f -> %.3f m; resets %d\n",
              GetParam(), 1e3 * coreGround, 1e3 * coreBox, 1e3 * keep * h, 1e3 * skinGround, 1e3 * skinBox, rest.height,
              squeezed.height, after.height, rest.width, squeezed.width, after.width, w.bodies()[0].stats.resets);
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
  EXPECT_GT(coreGround, keep * h - 1e-3);  // the core never nearer than its crushed layer
  EXPECT_GT(coreBox, keep * h - 1e-3);
  EXPECT_GT(skinGround, -2e-3);            // the skin through neither
  EXPECT_GT(skinBox, -2e-3);
  EXPECT_GT(squeezed.width, rest.width + 0.01);  // squeezed out sideways
  EXPECT_NEAR(after.width, rest.width, 5e-3);    // its shape back
  EXPECT_NEAR(after.height, rest.height, 5e-3);
}

INSTANTIATE_TEST_SUITE_P(CoreContact, BallSqueezed, ::testing::Values(32, 64));

}  // namespace
}  // namespace d2t
