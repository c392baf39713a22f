// The reduced skin of a body with morph targets (ch. 5.4-5.5; sim/morph/modal_basis.h): the
// basis against its definition (M-orthonormal, r = r* + m - 1, the target shapes in its span,
// Ritz bounds), the reduced step against closed forms (the examples' equilibria, backward
// Euler's damping of one reduced mode) and the reduced run against the full one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/morph/modal_basis.h"
#include "sim/morph/morph_bodies.h"
#include "sim/morph/morph_elasticity.h"
#include "sim/one_body.h"
#include "sim/test_shapes.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

using test::kTargets;

// kTargets with a "reduction" of r* modes (k per target).
std::string reducedTargets(int modes, bool loadModes = true, int perTarget = 20) {
  std::string s = kTargets;
  s.insert(s.rfind('}'), R"(, "reduction": { "modes_per_target": )" + std::to_string(perTarget) +
                             R"(, "modes": )" + std::to_string(modes) +
                             R"(, "load_modes": )" + (loadModes ? "true" : "false") + " }");
  return s;
}


Eigen::VectorXd flat(const std::vector<Vec3>& v) {
  Eigen::VectorXd x(3 * Eigen::Index(v.size()));
  for (size_t i = 0; i < v.size(); ++i) x.segment<3>(3 * Eigen::Index(i)) = v[i];
  return x;
}

Eigen::VectorXd massDiagonal(const BakedBody& m) {
  Eigen::VectorXd d(3 * m.nodeCount());
  for (int i = 0; i < m.nodeCount(); ++i) d.segment<3>(3 * i).setConstant(m.nodeMass[size_t(i)]);
  return d;
}

// K U, column by column over the stencil.
Eigen::MatrixXd stiffnessTimes(const BakedBody& m, const StencilBlocks& K, const Eigen::MatrixXd& U) {
  Eigen::MatrixXd out(U.rows(), U.cols());
  std::vector<Vec3> x(size_t(m.nodeCount())), y;
  for (Eigen::Index l = 0; l < U.cols(); ++l) {
    for (int i = 0; i < m.nodeCount(); ++i) x[size_t(i)] = U.block<3, 1>(3 * i, l);
    multiplyStencil(m.atlas.stencil, K, x, y);
    for (int i = 0; i < m.nodeCount(); ++i) out.block<3, 1>(3 * i, l) = y[size_t(i)];
  }
  return out;
}

// T16: U^T M U = I; r = r* + m - 1 (each target shape adds one direction; the thesis's
// basis, without the load modes, which add 6); every target's shape is in span U (5.5's
// augmentation: the examples are reproduced exactly).
TEST(ModalBasis, MassOrthonormalWithTheTargetShapesInItsSpan) {
  World loaded(test::heldMorphBall(reducedTargets(10)));
  EXPECT_EQ(loaded.bodies()[0].model->morph->basis->r, 10 + 2 + 6);
  World w(test::heldMorphBall(reducedTargets(10, false)));
  const BakedBody& m = *w.bodies()[0].model;
  const ModalBasis& b = *m.morph->basis;
  const Eigen::VectorXd M = massDiagonal(m);
  const double orth = (b.U.transpose() * M.asDiagonal() * b.U - Eigen::MatrixXd::Identity(b.r, b.r)).cwiseAbs().maxCoeff();
  std::printf("r* = %d, r = %d (3 targets), |U^T M U - I| = %.2e, PCA energy %.6f, reproduction %.2e %.2e\n",
              b.rStar, b.r, orth, b.pcaEnergy, b.reproduction[1], b.reproduction[2]);
  EXPECT_EQ(b.rStar, 10);
  EXPECT_EQ(b.r, b.rStar + 3 - 1);
  EXPECT_LT(orth, 1e-12);
  for (int t = 1; t < 3; ++t) EXPECT_LT(b.reproduction[size_t(t)], 1e-12);
  EXPECT_EQ(b.reproduction[0], 0.0);
  // without a shape of its own, a target adds nothing to the span
  World plain(test::heldMorphBall(R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] },
      { "name": "stiff", "pose": [1], "material": { "young": 3e5 } } ],
      "reduction": { "modes": 6, "load_modes": false } })"));
  EXPECT_EQ(plain.bodies()[0].model->morph->basis->r, 6);
}

// T17: the Rayleigh-Ritz bounds. For each target, the eigenvalues of the reduced pencil
// (U^T K_j U, U^T M U = I) bound the full ones from above, and the lowest is close to the
// full lowest (its mode is among the PCA's heaviest directions).
TEST(ModalBasis, RitzValuesBoundTheTargetsEigenvalues) {
  World w(test::heldMorphBall(reducedTargets(10)));
  const BakedBody& m = *w.bodies()[0].model;
  const ModalBasis& b = *m.morph->basis;
  for (int t = 0; t < m.morph->count(); ++t) {
    const MorphTarget& target = m.morph->targets[size_t(t)];
    const Eigen::MatrixXd Kr = b.U.transpose() * stiffnessTimes(m, target.K, b.U);
    const Eigen::VectorXd ritz = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (Kr + Kr.transpose())).eigenvalues();
    const Eigen::VectorXd& lambda = b.eigenvalues[size_t(t)];
    ASSERT_EQ(lambda.size(), 20);
    std::printf("target %s: lambda_1 %.6e, Ritz %.6e (%.2e above); lambda_5 %.6e, Ritz %.6e\n", target.name.c_str(),
                lambda[0], ritz[0], ritz[0] / lambda[0] - 1, lambda[4], ritz[4]);
    for (int l = 0; l < b.r && l < lambda.size(); ++l) EXPECT_GE(ritz[l], lambda[l] * (1 - 1e-9)) << l;
    EXPECT_LE(ritz[0], 1.02 * lambda[0]);  // (0.5%, 1.1%, 0.6% at r* = 10)
    // and the LMA's modes are the eigenpairs: K phi = lambda M phi
    for (int l = 1; l < lambda.size(); ++l) EXPECT_GE(lambda[l], lambda[l - 1]);
  }
}

// T8: at each example's pose, the reduced equilibrium (U^T K(s_j) U)^-1 U^T f0(s_j) is the
// example's shape (it is in span U), and the reduced step settles there: a held core, no
// gravity, the pose held at the bulge.
TEST(ModalBasis, TheReducedEquilibriumAtAnExampleIsItsShape) {
  Scene s = test::heldMorphBall(reducedTargets(10));
  s.bodies[0].material.alpha = 4;
  World w(s);
  const BakedBody& m = *w.bodies()[0].model;
  const ModalBasis& b = *m.morph->basis;
  const Eigen::VectorXd M = massDiagonal(m);
  for (int j = 1; j <= 2; ++j) {
    w.setPoseControl(0, PoseControl{true, {double(j)}});
    w.step(0.005);
    const MorphElasticity& e = *w.bodies()[0].layered.morphTargets();
    const Eigen::MatrixXd Kr = b.U.transpose() * stiffnessTimes(m, e.stiffness(), b.U);
    const Eigen::VectorXd z = Kr.ldlt().solve(b.U.transpose() * flat(e.restForce()));
    const Eigen::VectorXd dj = flat(e.targets().targets[size_t(j)].d);
    const Eigen::VectorXd err = b.U * z - dj;
    const double rel = std::sqrt(err.dot(M.cwiseProduct(err)) / dj.dot(M.cwiseProduct(dj)));
    std::printf("target %d: reduced static solution off the example by %.2e (M-norm, relative)\n", j, rel);
    EXPECT_LT(rel, 1e-8);
  }
  w.setPoseControl(0, PoseControl{true, {1}});
  for (int k = 0; k < 600; ++k) w.step(0.005);
  const Eigen::VectorXd d1 = flat(w.bodies()[0].layered.morphTargets()->targets().targets[1].d);
  const Eigen::VectorXd err = flat(w.bodies()[0].layered.state().q) - d1;
  const double rel = std::sqrt(err.dot(M.cwiseProduct(err)) / d1.dot(M.cwiseProduct(d1)));
  std::printf("3 s at the bulge's pose, reduced: the skin %.2e (M-norm, relative) from the example\n", rel);
  EXPECT_LT(rel, 1e-6);
  EXPECT_TRUE(w.bodies()[0].layered.implicitOperator().reduced());
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// T14: the reduced step is backward Euler on the Galerkin system M~ z'' + K~ z = f~. Started
// on one of its modes psi (K~ psi = w^2 psi) about the example's shape, undamped, the mode's
// energy norm sqrt(w^2 x^2 + v^2) falls by exactly (1 + w^2 dt^2)^-1/2 a step, and the skin
// stays on that mode.
TEST(ModalBasis, OneReducedModeDecaysAsBackwardEuler) {
  Scene s = test::heldMorphBall(reducedTargets(10));
  s.bodies[0].material.alpha = s.bodies[0].material.beta = 0;
  World w(s);
  w.setPoseControl(0, PoseControl{true, {1}});
  const double dt = 0.002;
  w.step(dt);  // (the pose's weights and the operator at the bulge)
  LayeredBody& body = w.bodies()[0].layered;
  const BakedBody& m = *w.bodies()[0].model;
  const ModalBasis& b = *m.morph->basis;
  const Eigen::MatrixXd Kr = b.U.transpose() * stiffnessTimes(m, body.elastic().stiffness(), b.U);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (Kr + Kr.transpose()));
  const int mode = 3;
  const double w2 = eig.eigenvalues()[mode];
  const Eigen::VectorXd psi = eig.eigenvectors().col(mode);
  const Eigen::VectorXd zd = b.U.transpose() * massDiagonal(m).cwiseProduct(flat(body.morphTargets()->targets().targets[1].d));
  const double x0 = 1e-3;
  {
    LayeredState& st = body.editState();
    b.expand(zd + x0 * psi, st.q);
    b.expand(Eigen::VectorXd::Zero(b.r), st.qdot);
  }
  const int steps = 200;
  for (int k = 0; k < steps; ++k) w.step(dt);
  const Eigen::VectorXd M = massDiagonal(m);
  const Eigen::VectorXd z = b.U.transpose() * M.cwiseProduct(flat(body.state().q)) - zd;
  const Eigen::VectorXd v = b.U.transpose() * M.cwiseProduct(flat(body.state().qdot));
  const double x = psi.dot(z), vx = psi.dot(v);
  const double ratio = std::sqrt(w2 * x * x + vx * vx) / (std::sqrt(w2) * x0);
  const double want = std::pow(1 + w2 * dt * dt, -0.5 * steps);
  const double off = std::max((z - x * psi).norm(), (v - vx * psi).norm() / std::sqrt(w2)) / x0;
  std::printf("mode %d (omega %.2f rad/s): energy norm x %.12f after %d steps, backward Euler %.12f; off the mode %.2e\n",
              mode, std::sqrt(w2), ratio, steps, want, off);
  EXPECT_NEAR(ratio / want, 1.0, 1e-9);
  EXPECT_LT(off, 1e-9);
}

// T18: the reduced run against the full one on dmt_flex's animated limb (20 g, the activation
// ramped 0 -> 1 -> 0 over 5 s): e = max_t |u_full - U z|_M / max_t |u_full|_M falls as r*
// grows with the thesis's basis (LMA, PCA, shapes), and the load modes (the static responses
// to the core's loads) take it under 5% at r* = 10.
TEST(ModalBasis, TheReducedRunApproachesTheFullOneAsModesAreAdded) {
  Scene base = loadScene(std::string(D2T_TEST_DATA) + "/../../scenes/dmt_flex.json");
  base.bodies.resize(1);  // the limb with its targets
  std::vector<double> errors;
  for (const auto& [modes, load] : std::vector<std::pair<int, bool>>{{4, false}, {10, false}, {16, false}, {40, false}, {4, true}, {10, true}}) {
    Scene s = base;
    BodyDesc red = base.bodies[0];
    auto desc = std::make_shared<MorphTargetsDesc>(*red.morph);
    desc->reduced = true;
    desc->reduction.modes = modes;
    desc->reduction.modesPerTarget = std::max(20, modes);
    desc->reduction.loadModes = load;
    red.morph = desc;
    red.name = "reduced";
    red.position.z() -= 0.35;  // (where the scene's limb without targets stands)
    s.bodies.push_back(red);
    World w(s);
    const Eigen::VectorXd M = massDiagonal(*w.bodies()[0].model);
    double worst = 0, scale = 0;
    for (int k = 0; k < 1000; ++k) {  // 5 s
      w.step();
      const Eigen::VectorXd full = flat(w.bodies()[0].layered.state().q);
      const Eigen::VectorXd diff = full - flat(w.bodies()[1].layered.state().q);
      worst = std::max(worst, std::sqrt(diff.dot(M.cwiseProduct(diff))));
      scale = std::max(scale, std::sqrt(full.dot(M.cwiseProduct(full))));
    }
    ASSERT_TRUE(w.bodies()[1].layered.implicitOperator().reduced());
    EXPECT_EQ(w.bodies()[1].stats.resets, 0);
    errors.push_back(worst / scale);
    std::printf("r* = %2d (r = %d)%s: reduced vs full %.2f%% (M-norm, of the largest full displacement)\n", modes,
                w.bodies()[1].model->morph->basis->r, load ? " with load modes" : "", 100 * worst / scale);
  }
  for (size_t k = 1; k < 4; ++k) EXPECT_LT(errors[k], errors[k - 1]);  // (the thesis's basis)
  EXPECT_LT(errors[5], errors[1] / 4);  // the load modes at r* = 10
  EXPECT_LT(errors[5], 0.05);
}

// The reduced ball on the ground (C1, C5 without reduced contact rows): the nodal contact
// response acts through its projection on span U. Dropped 5 cm with its activation ramping
// to the squashed target, it lands without a reset, comes to rest, and sinks as far as the
// full model within 10% (the load modes hold the sag under gravity).
TEST(ModalBasis, AReducedBallLandsAndRestsAsTheFullOne) {
  std::vector<double> sink, speed;
  for (const char* method : {"direct", "auto"}) {
    Scene s;
    s.bodies.push_back(test::morphBall(reducedTargets(10)));
    s.bodies[0].position = Vec3(0, test::kMorphBallRadius + 0.05, 0);
    s.colliders.push_back(test::planeCollider(Vec3::UnitY(), 0, s.bodies[0].material));
    s.simulation.solver.method = method;
    World w(s);
    for (int k = 0; k < 800; ++k) w.step();  // 4 s
    Body& b = w.bodies()[0];
    EXPECT_EQ(b.layered.implicitOperator().reduced(), std::string(method) == "auto");
    EXPECT_EQ(b.stats.resets, 0) << method;
    const double lowest = [&] {
      double y = 1e9;
      for (int i = 0; i < b.layered.nodeCount(); ++i) y = std::min(y, b.layered.nodePosition(i).y());
      return y;
    }();
    EXPECT_GT(lowest, -0.005 * test::kMorphBallRadius) << method;  // (no penetration beyond 0.5% of the radius)
    sink.push_back(test::kMorphBallRadius - b.layered.centerOfMass().y());
    speed.push_back(b.layered.state().velocity.norm());
    std::printf("%s: the centre of mass %.2f mm below the radius, speed %.1e m/s, lowest node %.2f mm\n",
                method, 1000 * sink.back(), speed.back(), 1000 * lowest);
  }
  EXPECT_NEAR(sink[1], sink[0], 0.1 * sink[0]);
  EXPECT_LT(speed[1], 1e-2);
}

// T20: over 1000 poses in the hull of five 2-D examples (a corner's 100x stiffer), the clamped
// weights' reduced stiffness sum b_i U^T K_i U is positive definite every time (a convex
// blend of positive definite matrices), while the unclamped weights go negative and lose it
// at some poses (the stiff corner's negative weight).
TEST(ModalBasis, ClampedWeightsKeepTheReducedStiffnessPositiveDefinite) {
  World w(test::heldMorphBall(R"({ "pose": { "channels": ["a", "b"] },
      "targets": [ { "name": "body", "pose": [0, 0] },
                   { "name": "bulge", "pose": [1, 0], "shape": [ { "type": "bulge", "center": [0, 0.5, 0], "amplitude": 0.03, "width": 0.15 } ] },
                   { "name": "squash", "pose": [0, 1], "shape": [ { "type": "scale", "factor": [1.05, 0.9, 1.05] } ] },
                   { "name": "round", "pose": [0.3, 0.6], "shape": [ { "type": "scale", "factor": [1.05, 1.05, 1.05] } ] },
                   { "name": "stiff", "pose": [1, 1], "material": { "young": 1e7 } } ],
      "reduction": { "modes": 10 } })"));
  MorphElasticity& m = *w.bodies()[0].layered.morphTargets();
  const ModalBasis& b = *w.bodies()[0].model->morph->basis;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  int negative = 0, lost = 0, clampedFailed = 0;
  for (int k = 0; k < 1000; ++k) {
    m.setPose({u(rng), u(rng)});
    const Eigen::VectorXd raw = m.rawWeights(), clamped = m.weights();
    ASSERT_GE(clamped.minCoeff(), 0.0);
    EXPECT_NEAR(clamped.sum(), 1.0, 1e-12);
    auto blend = [&](const Eigen::VectorXd& wts) {
      Eigen::MatrixXd k = Eigen::MatrixXd::Zero(b.r, b.r);
      for (int t = 0; t < wts.size(); ++t) k += wts[t] * b.stiffness[size_t(t)];
      return k;
    };
    negative += raw.minCoeff() < 0;
    lost += Eigen::LLT<Eigen::MatrixXd>(blend(raw)).info() != Eigen::Success;
    clampedFailed += Eigen::LLT<Eigen::MatrixXd>(blend(clamped)).info() != Eigen::Success;
  }
  std::printf("1000 poses: unclamped weights negative at %d, the blend indefinite at %d; clamped: %d failures\n",
              negative, lost, clampedFailed);
  EXPECT_GT(negative, 0);  // (the test meets negative weights ...
  EXPECT_GT(lost, 0);      // ... and blends that only the clamp keeps definite)
  EXPECT_EQ(clampedFailed, 0);
}

TEST(ModalBasis, BadReductionsAreRefusedByName) {
  for (const auto& [json, want] : std::vector<std::pair<std::string, std::string>>{
           {R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] } ], "reduction": { "elasticity": "neo" } })",
            "/reduction/elasticity"},
           {R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] } ], "reduction": { "modes": 30, "modes_per_target": 20 } })",
            "/reduction/modes: at most modes_per_target x targets = 20 principal components, got 30"},
           {R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] } ], "reduction": { "modes": 0 } })",
            "/reduction/modes"},
           {R"({ "pose": { "channels": ["a"] }, "targets": [ { "pose": [0] } ], "reduction": { "mode": 4 } })",
            "/reduction/mode"}}) {
    try {
      test::morphBall(json);
      ADD_FAILURE() << "accepted: " << json;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace d2t
