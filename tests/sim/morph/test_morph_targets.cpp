// Dynamic morph targets (dissertation ch. 5; sim/morph/): the pose RBF's interpolation
// properties, the blended force polynomial against static solves, the step's equilibrium
// at an example, the energy, bit-for-bit identity with the body when the targets add
// nothing, snapshots mid-ramp, and the scene reader's errors.
#include <gtest/gtest.h>

#include <random>

#include "sim/morph/morph_elasticity.h"
#include "sim/morph/pose_rbf.h"
#include "sim/one_body.h"
#include "sim/static_solve.h"
#include "sim/morph/morph_bodies.h"
#include "sim/test_shapes.h"
#include "sim/world/timeline.h"
#include "sim/world/world_input.h"
#include "sim/world/world_state.h"

namespace d2t {
namespace {

// ---- the pose RBF (5.2)-(5.3) ------------------------------------------------------------------

// Exact at the examples (the solve, not the snap: 1e-10 away from each) and a partition of
// unity everywhere, in two pose dimensions with five examples.
TEST(PoseRbf, ExactAtTheExamplesAndAPartitionOfUnity) {
  const std::vector<std::vector<double>> poses = {{0, 0}, {1, 0}, {0, 1}, {1, 1.5}, {-0.5, 0.7}};
  const PoseRbf rbf(poses, 0, false);
  EXPECT_EQ(rbf.rank(), 2);
  for (size_t j = 0; j < poses.size(); ++j) {
    std::vector<double> s = poses[j];
    s[0] += 1e-10;
    const Eigen::VectorXd b = rbf.rawWeights(s);
    EXPECT_LT((b - Eigen::VectorXd::Unit(5, int(j))).cwiseAbs().maxCoeff(), 1e-8) << j;
    EXPECT_EQ(rbf.rawWeights(poses[j]), Eigen::VectorXd::Unit(5, int(j)));  // (snapped)
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-3, 3);
  bool negative = false;
  for (int k = 0; k < 200; ++k) {
    const Eigen::VectorXd b = rbf.rawWeights({u(rng), u(rng)});
    EXPECT_NEAR(b.sum(), 1.0, 1e-12);
    negative = negative || b.minCoeff() < -1e-3;
  }
  EXPECT_TRUE(negative) << "phi = r in 2-D gives negative weights somewhere (the clamp's reason)";
  // with smoothing rho the interpolant no longer passes through the examples, and still sums to 1
  const PoseRbf smooth(poses, 0.5, false);
  const Eigen::VectorXd b = smooth.rawWeights({0.3, 0.2});
  EXPECT_NEAR(b.sum(), 1.0, 1e-12);
  EXPECT_GT((smooth.rawWeights({1 + 1e-9, 0}) - Eigen::VectorXd::Unit(5, 1)).norm(), 1e-3);
}

// One pose dimension: the weights are the linear hat functions of the examples, held
// constant beyond the first and the last (phi = r with sum w = 0).
TEST(PoseRbf, InOneDimensionTheWeightsAreHats) {
  const PoseRbf rbf({{0}, {1.0 / 3}, {2.0 / 3}, {1}}, 0, false);
  const auto expectWeights = [&](double s, std::vector<double> want) {
    const Eigen::VectorXd b = rbf.rawWeights({s});
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(b[i], want[size_t(i)], 1e-12) << "s = " << s << ", i = " << i;
  };
  expectWeights(0.5, {0, 0.5, 0.5, 0});
  expectWeights(0.1, {0.7, 0.3, 0, 0});
  expectWeights(0.9, {0, 0, 0.3, 0.7});
  expectWeights(-2, {1, 0, 0, 0});
  expectWeights(7, {0, 0, 0, 1});
}

// A channel along which no example differs changes no weight (pose PCA, 5.1.3); far away
// the weights tend to a limit (bounded: sum w = 0); the clamp keeps them >= 0, summing to 1,
// exact at the examples.
TEST(PoseRbf, StaticChannelsFarFieldAndClamp) {
  const std::vector<std::vector<double>> poses = {{0, 5, 0}, {1, 5, 0}, {0, 5, 1}, {1, 5, 1.5}};
  const PoseRbf rbf(poses, 0, false), clamped(poses, 0, true);
  EXPECT_EQ(rbf.rank(), 2);
  EXPECT_LT((rbf.rawWeights({0.3, 5, 0.4}) - rbf.rawWeights({0.3, -40, 0.4})).cwiseAbs().maxCoeff(), 1e-12);
  const Vec3 dir = Vec3(0.6, 0, 0.8);
  const auto far = [&](double t) { return rbf.rawWeights({t * dir.x(), 5, t * dir.z()}); };
  EXPECT_LT((far(100) - far(1000)).cwiseAbs().maxCoeff(), 2e-2);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-2, 3);
  for (int k = 0; k < 200; ++k) {
    const Eigen::VectorXd b = clamped.weights({u(rng), 5, u(rng)});
    EXPECT_GE(b.minCoeff(), 0.0);
    EXPECT_NEAR(b.sum(), 1.0, 1e-12);
  }
  for (size_t j = 0; j < poses.size(); ++j) EXPECT_EQ(clamped.weights(poses[j]), Eigen::VectorXd::Unit(4, int(j)));
}

// ---- the blended model ----------------------------------------------------------------------------

using test::kTargets;
using test::morphBall;
constexpr double kR = test::kMorphBallRadius;

Scene only(const BodyDesc& d) {
  Scene s;
  s.bodies.push_back(d);
  return s;
}

// The ball `gap` above the ground plane.
Scene onTheGround(const BodyDesc& d, double gap) {
  Scene s = only(d);
  s.bodies[0].position = Vec3(0, kR + gap, 0);
  s.colliders.push_back(test::planeCollider(Vec3::UnitY(), 0, d.material));
  return s;
}

const MorphElasticity& morphOf(World& w, size_t body = 0) { return *w.bodies()[body].layered.morphTargets(); }

// At each example's pose, K(s_j)^-1 f0(s_j) is the example's shape (5.2': f0 = K_j d_j), by a
// direct solve of the blended blocks.
TEST(MorphTargets, TheStaticSolutionAtAnExampleIsItsShape) {
  World w(only(morphBall(kTargets)));
  for (int j = 1; j <= 2; ++j) {
    w.setPoseControl(0, PoseControl{true, {double(j)}});
    w.step();
    const MorphElasticity& m = morphOf(w);
    const MorphTarget& t = m.targets().targets[size_t(j)];
    ASSERT_EQ(m.weights(), Eigen::VectorXd::Unit(3, j));
    const std::vector<Vec3> u = test::solveStatic(*w.bodies()[0].model, m.stiffness(), m.restForce());
    double err = 0;
    for (size_t i = 0; i < u.size(); ++i) err = std::max(err, (u[i] - t.d[i]).norm());
    std::printf("target %s: |d| up to %.3e m, static solution off by %.2e m\n", t.name.c_str(), t.maxDisplacement, err);
    EXPECT_GT(t.maxDisplacement, 0.02);
    EXPECT_LT(err, 1e-9);
  }
}

// The step's equilibrium is the example shape: a held core, no gravity, the pose held at an
// example; the skin settles on d_j (the frozen operator has caught up by then).
TEST(MorphTargets, TheDynamicsSettleOnTheExample) {
  Scene sc = test::heldMorphBall(kTargets);
  sc.bodies[0].material.alpha = 4;
  World w(sc);
  w.setPoseControl(0, PoseControl{true, {1}});
  for (int k = 0; k < 600; ++k) w.step(0.005);
  const MorphElasticity& m = morphOf(w);
  const std::vector<Vec3>& q = w.bodies()[0].layered.state().q;
  double err = 0;
  for (size_t i = 0; i < q.size(); ++i) err = std::max(err, (q[i] - m.targets().targets[1].d[i]).norm());
  std::printf("3 s at the bulge's pose: the skin %.2e m from the example (|d| %.3e m)\n", err,
              m.targets().targets[1].maxDisplacement);
  EXPECT_LT(err, 1e-4);
  EXPECT_EQ(m.operatorVersion(), m.version());
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// Fig. 5.1: under the same load, targets of the same shape, one as soft as the body, the
// other uniformly 8x stiffer. At a = 0 both are the body (the same bits); at a = 1 the
// stiff one sags exactly 8x less from its example shape (K_c = 8 K_b, so K^-1 f is 8x
// smaller).
TEST(MorphTargets, UniformlyStifferTargetSagsProportionallyLess) {
  const auto target = [](double young) {
    return R"({ "pose": { "channels": ["a"] }, "targets": [ { "name": "body", "pose": [0] },
      { "name": "flexed", "pose": [1], "material": { "young": )" + std::to_string(young) + R"( },
        "shape": [ { "type": "bulge", "center": [0, 0.5, 0], "amplitude": 0.03, "width": 0.2 } ] } ] })";
  };
  World soft(only(morphBall(target(1e5))));
  World stiff(only(morphBall(target(8e5))));
  const BakedBody& m = *soft.bodies()[0].model;
  std::vector<Vec3> load(size_t(m.nodeCount()));
  for (int i = 0; i < m.nodeCount(); ++i) load[size_t(i)] = m.nodeMass[size_t(i)] * Vec3(0, -200, 0);
  const auto sag = [&](World& w) {
    const MorphElasticity& e = morphOf(w);
    std::vector<Vec3> f = load;
    for (size_t i = 0; i < f.size() && !e.restForce().empty(); ++i) f[i] += e.restForce()[i];
    std::vector<Vec3> u = test::solveStatic(m, e.stiffness(), f);
    const MorphTarget& t = e.targets().targets[e.weights()[1] == 1 ? 1 : 0];
    double s = 0;
    for (size_t i = 0; i < u.size(); ++i) s = std::max(s, (u[i] - t.d[i]).norm());
    return s;
  };
  EXPECT_EQ(&morphOf(soft).stiffness(), &m.stiffness);  // (a = 0: the body's own blocks)
  EXPECT_EQ(sag(soft), sag(stiff));
  for (World* w : {&soft, &stiff}) w->setPoseControl(0, PoseControl{true, {1}}), w->step();
  const double ratio = sag(soft) / sag(stiff);
  std::printf("a = 1: sag %.4e m (soft target) vs %.4e m (8x stiffer): ratio %.9f\n", sag(soft), sag(stiff), ratio);
  EXPECT_NEAR(ratio, 8.0, 8e-6);
}

// The skin's elastic energy (the summary, which the blow-up check and --metrics read) is the
// targets' blend sum b_i 1/2 (q - d_i)^T K_i (q - d_i), computed here target by target.
TEST(MorphTargets, TheEnergyIsTheBlendOfTheTargetsEnergies) {
  World w(only(morphBall(kTargets)));
  w.setPoseControl(0, PoseControl{true, {1.3}});
  w.step();
  const MorphElasticity& m = morphOf(w);
  LayeredBody& body = w.bodies()[0].layered;
  const BakedBody& model = *w.bodies()[0].model;
  std::vector<Vec3> q = body.state().q;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  for (Vec3& x : q) x = Vec3(u(rng), u(rng), u(rng));
  body.editState().q = q;
  double want = 0;
  for (int t = 0; t < m.targets().count(); ++t) {
    const MorphTarget& target = m.targets().targets[size_t(t)];
    for (int i = 0; i < model.nodeCount(); ++i) {
      Vec3 kx = Vec3::Zero();
      for (int s = 0; s < kStencilSlots; ++s) {
        const int j = model.atlas.stencil[size_t(i)][size_t(s)];
        if (j >= 0) kx += target.K[size_t(i)][size_t(s)] * (q[size_t(j)] - target.d[size_t(j)]);
      }
      want += m.weights()[t] * 0.5 * (q[size_t(i)] - target.d[size_t(i)]).dot(kx);
    }
  }
  EXPECT_NEAR(m.weights()[1], 0.7, 1e-12);
  EXPECT_NEAR(body.skinSummary().elastic, want, 1e-10 * want);
}

// Targets that add nothing (one target; or several, all the body's own shape and material,
// at a ramping pose) leave the body bit for bit as it is without them: a ball dropped on
// the ground, every state hash the same.
TEST(MorphTargets, TargetsThatAddNothingLeaveTheBodyBitForBit) {
  const auto run = [](const BodyDesc& d) {
    World w(onTheGround(d, 0.05));
    std::vector<uint64_t> hashes;
    for (int k = 0; k < 200; ++k) {
      w.step();
      hashes.push_back(stateHash(w.capture()));
    }
    EXPECT_EQ(w.bodies()[0].stats.resets, 0);
    return hashes;
  };
  const std::vector<uint64_t> plain = run(test::ball(kR, 32, 1e5));
  EXPECT_EQ(run(morphBall(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] } ] })")), plain);
  EXPECT_EQ(run(morphBall(R"({ "pose": { "channels": ["a", "b"],
      "track": [ { "time": 0, "value": [0, 0] }, { "time": 1, "value": [3, 1] } ] },
      "targets": [ { "pose": [0, 0] }, { "pose": [1, 0] }, { "pose": [2, 1] }, { "pose": [0, 1], "material": { "young": 1e5 } } ] })")),
            plain);
}

// A snapshot mid-ramp (the blend and the lagging operator with it) restores the run bit for
// bit; the pose's work is outside work (the blow-up check's floor restarts), so a body whose
// targets stiffen and bulge as it lands is never reset.
TEST(MorphTargets, ASnapshotMidRampRepeatsTheRunBitForBit) {
  World w(onTheGround(morphBall(kTargets), 0.02));
  for (int k = 0; k < 50; ++k) w.step();
  const MorphElasticity& m = morphOf(w);
  const WorldState at = w.capture();
  std::vector<uint64_t> first;
  int lagging = 0;
  for (int k = 0; k < 60; ++k) {
    w.step();
    first.push_back(stateHash(w.capture()));
    lagging += m.operatorVersion() != m.version();
  }
  EXPECT_GT(lagging, 0) << "the operator should lag the blend somewhere in the ramp";
  w.restore(at);
  for (int k = 0; k < 60; ++k) {
    w.step();
    ASSERT_EQ(stateHash(w.capture()), first[size_t(k)]) << "step " << k;
  }
  for (int k = 0; k < 300; ++k) w.step();
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// A held pose is an input of the run: the timeline records it, seeking before it gives the
// track's pose back (and the recorded states bit for bit), after it the held one; its JSON
// reads back to the same input.
TEST(MorphTargets, AHeldPoseIsAnInputOfTheRun) {
  World w(onTheGround(morphBall(kTargets), 0.02));
  Timeline t(w);
  std::vector<uint64_t> h;
  for (int k = 0; k < 200; ++k) {
    if (k == 100) {
      WorldInput in;
      in.kind = WorldInput::Kind::Pose;
      in.index = 0;
      in.pose = {1.5};
      t.input(w, in);
    }
    t.step(w);
    h.push_back(stateHash(w.capture()));
  }
  EXPECT_NEAR(morphOf(w).weights()[1], 0.5, 1e-12);
  ASSERT_EQ(t.inputs().size(), 1u);
  const WorldInput& in = t.inputs()[0].input;
  EXPECT_EQ(readWorldInput(toJson(in), "rec.json", "/inputs/0"), in) << toJson(in).dump();
  EXPECT_EQ(describe(in), "pose, body 0");
  t.seek(w, 80);
  EXPECT_TRUE(w.bodies()[0].pose.manual.empty());
  EXPECT_EQ(stateHash(w.capture()), h[79]);
  t.seek(w, 180);
  EXPECT_EQ(w.bodies()[0].pose.manual, std::vector<double>{1.5});
  EXPECT_EQ(stateHash(w.capture()), h[179]);
  EXPECT_EQ(t.divergences(), 0);
}

// ---- the scene's errors ----------------------------------------------------------------------------

void expectMorphError(const std::string& json, const std::string& want) {
  try {
    const BodyDesc d = morphBall(json);
    World w(only(d));
    ADD_FAILURE() << "accepted: " << json;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST(MorphTargets, BadTargetsAreRefusedByName) {
  expectMorphError(R"({ "pose": { "channels": ["a"] }, "targets": [ { "name": "x", "pose": [0] }, { "name": "y", "pose": [0] } ] })",
                   "test.json: /bodies/0/morph_targets/targets/1/pose: the same pose as the target \"x\"");
  expectMorphError(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0, 1] } ] })",
                   "/targets/0/pose: expected an array of 1 number (one per channel)");
  expectMorphError(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0], "material": { "young": 2e5 } } ] })",
                   "/targets/0/material: the first target is the body itself");
  expectMorphError(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] },
                        { "pose": [1], "material": { "density": 2000 } } ] })",
                   "/targets/1/material/density: the masses are the body's");
  expectMorphError(R"({ "pose": { "channels": ["a"], "track": [ { "time": 1, "value": [0] }, { "time": 0.5, "value": [1] } ] },
                        "targets": [ { "pose": [0] } ] })",
                   "/pose/track/1/time: keyframe times must increase");
  // a dent deeper than the layer (0.2 m) pushes the skin through the core
  expectMorphError(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] },
      { "name": "dent", "pose": [1], "shape": [ { "type": "bulge", "center": [0, 0.5, 0], "amplitude": -0.3, "width": 0.1 } ] } ] })",
                   "body 'ball': morph_targets/targets/1 ('dent')/shape: the skin's tetrahedron");
  World w(only(morphBall(kTargets)));
  EXPECT_THROW(w.setPoseControl(0, PoseControl{true, {1, 2}}), InputError);
  EXPECT_THROW(w.setPoseControl(0, PoseControl{true, {std::nan("")}}), InputError);
  World plain(only(test::ball(kR, 32, 1e5)));
  EXPECT_THROW(plain.setPoseControl(0, PoseControl{}), InputError);
}

}  // namespace
}  // namespace d2t
