// A character's controls against statics: a spring on a named bone carries the character's
// weight at rest (k |x - a| = M g), stiff ones stay stable; the mouse's implicit drag rows
// hold a hanging character the same way; the pose editor and the joint gains move a joint
// to the asked angle through its spring.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/character/character_scene.h"
#include "sim/contact/collider.h"

namespace d2t {
namespace {

CharacterSpec tubeSpec() {
  CharacterSpec c;
  c.name = "tube";
  c.model = "tube";
  c.radius = 0.08;
  c.length = 1.0;
  c.bones = 3;
  c.nodes = 200;
  c.stiffness = 20;
  c.damping = 2;
  c.material.young = 1e5;
  c.material.poisson = 0.4;
  c.material.alpha = 0.5;
  c.material.beta = 0.01;
  c.position = Vec3(0, 2, 0);
  return c;
}

// Hanging from a spring on the middle bone at the tube's centre (rest length 0), the tube
// comes to rest where the spring carries its weight, k |x - a| = M g (1%), for k from 1e3
// to 1e7 N/m at dt 1/60.
TEST(CharacterControls, ASpringOnABoneCarriesTheWeight) {
  for (double k : {1e3, 1e7}) {
    CharacterSpec spec = tubeSpec();
    CoreSpringDesc s;
    s.point = Vec3(0.5, 0, 0);
    s.hasAnchor = true;
    s.anchor = Vec3(0.5, 2, 0);
    s.stiffness = k;
    s.damping = 2 * std::sqrt(k * 10);
    spec.springs.push_back({"bone1", s});
    Character c(spec, bakeCharacter(characterDesc(spec)));
    const double dt = 1.0 / 60;
    for (int i = 0; i < 600; ++i) c.step(i * dt, dt, Vec3(0, -9.81, 0), {});
    const ArticulatedBody::BoneSpring& sp = c.body->boneSprings()[0];
    const double stretch = (c.body->boneSpringPoint(sp) - sp.anchor).norm();
    const double weight = c.model->totalMass * 9.81;
    std::printf("spring k %.0e: k |x - a| = %.4f N for a weight of %.4f N, speed %.1e m/s, resets %d\n", k,
                k * stretch, weight, c.body->linearMomentum().norm() / c.model->totalMass, c.stats.resets);
    EXPECT_NEAR(k * stretch, weight, 0.01 * weight);
    EXPECT_EQ(c.stats.resets, 0);
  }
}

// The mouse's drag (implicit rows at a skin node): the tube hangs from it and comes to rest
// with k |x_p - target| = M g (1%).
TEST(CharacterControls, TheDragHoldsTheCharacterAtItsSpringsStretch) {
  const CharacterSpec spec = tubeSpec();
  Character c(spec, bakeCharacter(characterDesc(spec)));
  const int node = 0;  // (the tube's pole at x = 0)
  const Vec3 target = c.body->nodePosition(node);
  const double k = 500, m = c.model->totalMass;
  c.body->beginDrag(node, target, k, 2 * std::sqrt(k * m));
  const double dt = 1.0 / 60;
  for (int i = 0; i < 900; ++i) c.step(i * dt, dt, Vec3(0, -9.81, 0), {});
  const double stretch = (c.body->nodePosition(node) - target).norm();
  std::printf("drag k %.0f: k |x - target| = %.4f N for a weight of %.4f N, speed %.1e m/s\n", k, k * stretch,
              m * 9.81, c.body->linearMomentum().norm() / m);
  EXPECT_NEAR(k * stretch, m * 9.81, 0.01 * m * 9.81);
  EXPECT_EQ(c.stats.resets, 0);
}

// Weightless, the pose editor's target on the middle joint (0.3 rad about z) is where the
// spring brings it (1e-3 rad), and the gains set live change the spring: with twice the
// stiffness the joint gets there sooner.
TEST(CharacterControls, ThePoseEditorBendsAJointThroughItsSpring) {
  const CharacterSpec spec = tubeSpec();
  const CharacterModelPtr model = bakeCharacter(characterDesc(spec));
  const auto run = [&](double stiffness, int steps) {
    Character c(spec, model);
    c.poseEdit.assign(model->skeleton.joints.size(), std::nullopt);
    c.poseEdit[1] = Vec3(0, 0, 0.3);
    for (size_t j = 0; j < model->skeleton.joints.size(); ++j) c.setGains(int(j), stiffness, 2);
    const double dt = 1.0 / 60;
    for (int i = 0; i < steps; ++i) c.step(i * dt, dt, Vec3::Zero(), {});
    return c.body->jointAngle(1);
  };
  const double settled = run(20, 600);
  std::printf("pose edit 0.3 rad: the joint at %.5f rad after 10 s; after 0.25 s %.4f (k 20) vs %.4f (k 40)\n",
              settled, run(20, 15), run(40, 15));
  EXPECT_NEAR(settled, 0.3, 1e-3);
  EXPECT_GT(run(40, 15), run(20, 15));
}

}  // namespace
}  // namespace d2t
