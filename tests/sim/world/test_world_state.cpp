// World::capture / World::restore / stateHash: going back to a captured state repeats
// the steps that followed it bit for bit; the hash tells two states apart by one bit.
// Bodies stepped side by side on the CPU's threads step as they do one after another.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/world/world.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// A soft ball dropped on another on the ground, a third rolling beside them: contacts
// with the ground and between bodies, the support carried from step to step, patch
// friction, the CG solver's warm starts.
Scene stackScene() {
  Scene s;
  s.simulation.dt = 0.005;
  s.simulation.solver.method = "cg";
  BodyDesc low = test::ball(0.5, 32, 1e5);
  low.name = "low";
  low.position = Vec3(0, 0.52, 0);
  BodyDesc high = test::ball(0.4, 32, 5e4);
  high.name = "high";
  high.position = Vec3(0.1, 1.5, 0);
  BodyDesc roller = test::ball(0.3, 32, 2e5);
  roller.name = "roller";
  roller.position = Vec3(-1.5, 0.32, 0);
  roller.velocity = Vec3(1, 0, 0.2);
  roller.angularVelocity = Vec3(0, 0, -3);
  s.bodies = {low, high, roller};
  s.colliders.push_back(ColliderDesc{});  // the ground
  return s;
}

uint64_t hashOf(World& w) { return stateHash(w.capture()); }

}  // namespace

TEST(WorldState, RestoreRepeatsTheStepsThatFollowedTheCaptureBitForBit) {
  World w(stackScene());
  w.recordTrajectory(true);
  for (int k = 0; k < 120; ++k) w.step();  // the high ball lands on the low one at ~0.35 s
  const WorldState at = w.capture();
  const uint64_t h0 = stateHash(at);
  std::vector<uint64_t> first;
  int contacts = 0, pairs = 0;
  for (int k = 0; k < 80; ++k) {
    w.step();
    first.push_back(hashOf(w));
    for (const Body& b : w.bodies()) contacts += b.stats.contacts;
    for (const auto& c : w.lastContacts()[1]) pairs += c.other >= 0;
  }
  ASSERT_GT(contacts, 0);
  ASSERT_GT(pairs, 0) << "the high ball never touched the low one: the test does not cover pairs";
  const size_t rows = w.bodies()[0].stats.trajectory.size();
  w.restore(at);
  EXPECT_EQ(hashOf(w), h0);
  EXPECT_EQ(w.time(), at.time);
  EXPECT_EQ(w.bodies()[0].stats.trajectory.size(), rows - 80);  // cut back to the state's time
  for (int k = 0; k < 80; ++k) {
    w.step();
    ASSERT_EQ(hashOf(w), first[size_t(k)]) << "step " << k + 1 << " after the restore";
  }
  EXPECT_TRUE(w.takeWarnings().empty());
  std::printf("world state: 80 steps after a restore hash as the 80 after the capture (%d contacts, %d pair "
              "contacts of the high ball)\n", contacts, pairs);
}

// A tube character landing on the ground beside a ball: going back to a state captured
// while it is in contact repeats its steps bit for bit (the contact rows' active set starts
// from the state's touching nodes, part of the CharacterState).
TEST(WorldState, CharactersRestoreBitForBitInContact) {
  Scene s;
  s.simulation.dt = 1.0 / 60;
  CharacterSpec tube;
  tube.name = "tube";
  tube.nodes = 120;
  tube.position = Vec3(-0.85, 0.35, 0);
  tube.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitZ()));
  s.characters.push_back(tube);
  BodyDesc ball = test::ball(0.3, 16, 1e5);
  ball.name = "ball";
  ball.position = Vec3(0, 0.31, 1.0);
  s.bodies.push_back(ball);
  s.colliders.push_back(ColliderDesc{});  // the ground
  World w(s);
  for (int k = 0; k < 30; ++k) w.step();
  ASSERT_GT(w.characters()[0].stats.contacts, 0) << "the tube is not on the ground yet";
  const WorldState at = w.capture();
  std::vector<uint64_t> first;
  for (int k = 0; k < 40; ++k) {
    w.step();
    first.push_back(hashOf(w));
  }
  w.restore(at);
  EXPECT_EQ(hashOf(w), stateHash(at));
  for (int k = 0; k < 40; ++k) {
    w.step();
    ASSERT_EQ(hashOf(w), first[size_t(k)]) << "step " << k + 1 << " after the restore";
  }
  // and the hash sees the character: one bit of one of its nodes changes it
  WorldState changed = at;
  changed.characters[0].q[7].x() = std::nextafter(changed.characters[0].q[7].x(), 1.0);
  EXPECT_NE(stateHash(changed), stateHash(at));
}

TEST(WorldState, AnotherWorldRestoredFromTheStateRunsTheSameSteps) {
  World a(stackScene()), b(stackScene());
  for (int k = 0; k < 100; ++k) a.step();
  b.restore(a.capture());
  for (int k = 0; k < 50; ++k) {
    a.step();
    b.step();
    ASSERT_EQ(hashOf(a), hashOf(b)) << k;
  }
}

TEST(WorldState, OneBitOfOneNodeChangesTheHash) {
  World w(stackScene());
  for (int k = 0; k < 10; ++k) w.step();
  WorldState s = w.capture();
  const uint64_t h = stateHash(s);
  Vec3& q = s.bodies[2].layered.state.q[17];
  q.y() = std::nextafter(q.y(), 1.0);
  EXPECT_NE(stateHash(s), h);
  s = w.capture();
  s.time = std::nextafter(s.time, 1.0);
  EXPECT_NE(stateHash(s), h);
  EXPECT_EQ(stateHash(w.capture()), h);  // (capturing changes nothing)
}

TEST(WorldState, AStateOfAnotherWorldIsRefusedWithTheReason) {
  World w(stackScene());
  Scene other = stackScene();
  other.bodies.pop_back();
  World v(other);
  try {
    w.restore(v.capture());
    FAIL() << "restored a state of two bodies into a world of three";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2 bodies"), std::string::npos) << e.what();
  }
  const WorldState before = w.capture();
  w.setMaterial(0, Material{});  // a new model: the old snapshot's skin is of another K_e
  try {
    w.restore(before);
    FAIL() << "restored a state taken with another model";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'low'"), std::string::npos) << e.what();
  }
}

}  // namespace d2t

namespace d2t {

// World::eachBody runs the bodies' own stages (free update, detection against the
// ground, the response of a body that touches no other, correction, summaries) side by
// side on the threads: a stage that read or wrote another body's state there would
// change the run with the thread count, or from run to run.
TEST(WorldState, BodiesSteppedSideBySideStepAsInOrder) {
  const int threads = omp_get_max_threads();
  std::vector<uint64_t> hashes[2];
  int pairs = 0;
  for (int run = 0; run < 2; ++run) {
    omp_set_num_threads(run == 0 ? 1 : 2);
    World w(stackScene());
    for (int k = 0; k < 200; ++k) {
      w.step();
      hashes[run].push_back(hashOf(w));
      if (run == 0)
        for (const auto& c : w.lastContacts()[1]) pairs += c.other >= 0;
    }
  }
  omp_set_num_threads(threads);
  ASSERT_GT(pairs, 0) << "the high ball never touched the low one: the test does not cover pairs";
  for (size_t k = 0; k < hashes[0].size(); ++k)
    ASSERT_EQ(hashes[1][k], hashes[0][k]) << "step " << k + 1 << ": 2 threads against 1";
}

}  // namespace d2t

namespace d2t {

// A body large enough for its node loops to run on the threads (over 8,192 nodes): its sums
// (the CG's dot products, the preconditioners' r.z, the warm start's Galerkin sums, the
// response's condensed sums, the skin's summary) are added in an order that does not follow
// the thread count (base/ordered_sum.h), so its run has the same bits on 1, 2 or 3 threads,
// with each of the iterative solvers. (An OpenMP reduction drifted from the first step.)
TEST(WorldState, ALargeBodyStepsTheSameOnAnyNumberOfThreads) {
  const int threads = omp_get_max_threads();
  for (const std::string method : {"cg", "cg_dilu"}) {
    Scene s;
    s.simulation.dt = 0.005;
    s.simulation.solver.method = method;
    BodyDesc ball = test::ball(0.5, 128, 1e5);  // 9,600 nodes: the node loops on threads
    ball.position = Vec3(0, 0.55, 0);
    ball.velocity = Vec3(0.5, -1, 0);
    ball.angularVelocity = Vec3(0, 0, -2);
    s.bodies.push_back(ball);
    s.colliders.push_back(ColliderDesc{});  // the ground
    std::vector<uint64_t> hashes[3];
    int contacts = 0;
    for (int run = 0; run < 3; ++run) {
      omp_set_num_threads(run + 1);
      World w(s);
      ASSERT_GT(w.bodies()[0].nodes(), 8192);  // kParallelNodes
      for (int k = 0; k < 30; ++k) {
        w.step();
        hashes[run].push_back(hashOf(w));
        if (run == 0) contacts += w.bodies()[0].stats.contacts;
      }
    }
    omp_set_num_threads(threads);
    ASSERT_GT(contacts, 0) << "the ball never reached the ground: the test does not cover the response";
    for (int run = 1; run < 3; ++run)
      for (size_t k = 0; k < hashes[0].size(); ++k)
        ASSERT_EQ(hashes[run][k], hashes[0][k]) << method << ", step " << k + 1 << ": " << run + 1 << " threads against 1";
  }
}

}  // namespace d2t
