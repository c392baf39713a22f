// Stage 1 per bone in the World (src/sim/world/character_coupling.cpp, sim/character/
// bone_proxies.h): what it hands stage 2 in snake_fish, that it never loses a contact (a run
// with it is the run without it), and that the skin stays inside its grown proxies.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/character/bone_proxies.h"
#include "sim/world/world.h"

using namespace d2t;

namespace {

Scene shipped(const std::string& name) {
  return loadScene(std::string(D2T_TEST_DATA) + "/../../scenes/" + name + ".json");
}

}  // namespace

// snake_fish (the fish pushes the snake's middle from 2 s, then its head): whenever the fish is
// within reach, stage 2 receives the snake's triangles of the bones paired with it, fewer than a
// quarter of them; and every skin node stays within the growth bound of where its bones' rigid
// motions carry it (so inside their grown proxies) over the whole run.
TEST(CharacterPruning, SnakeFishHandsStageTwoUnderAQuarterOfTheSkinAndNodesStayInTheirProxies) {
  World w(shipped("snake_fish"));
  const ArticulatedBody& b = *w.characters()[0].body;
  const CharacterModel& m = b.model();
  int paired = 0, steps = 0;
  double share = 0, over = -1;
  while (w.time() < 6.0) {
    w.step();
    ++steps;
    const CharacterStats& st = w.characters()[0].stats;
    if (st.pairedTriangles > 0) {
      ++paired;
      share = std::max(share, double(st.pairedTriangles) / st.triangles);
    }
    const std::vector<PlacedProxy> placed = placeBoneProxies(m, b.state().bones, b.state().q);
    const std::vector<Vec3> x = b.skinPositions();
    for (int i = 0; i < m.boneCount(); ++i) {
      const CoreState& s = b.state().bones[size_t(i)];
      const Bone& bone = m.skeleton.bones[size_t(i)];
      const Mat3 P = poseRotation(bone, s);
      for (int p : m.proxies[size_t(i)].corners)
        over = std::max(over, (x[size_t(p)] - (s.position + P * (m.restSkin[size_t(p)] - bone.bindPosition))).norm() -
                                  placed[size_t(i)].grow);
    }
  }
  std::printf("snake_fish: the fish within reach in %d of %d steps; stage 2 got at most %.1f%% of the snake's "
              "triangles; nodes at most %.2e m over their proxies' growth\n",
              paired, steps, 100 * share, over);
  EXPECT_GT(paired, 60);
  EXPECT_LT(share, 0.25);
  EXPECT_LE(over, 1e-12);
}

// Recall: with stage 1 off (every bone paired with every surface, every pair of bones with each
// other), the runs of snake_fish, tangled_tubes and tube_curl (its tail against its side) are
// the same (to rounding: the hierarchies
// over the paired patches order their sums otherwise; one contact lost would move the skin by
// millimetres): stage 1 never dropped a pair whose contact stage 2 would have found.
TEST(CharacterPruning, RunsWithAndWithoutStageOneAreTheSame) {
  for (const char* name : {"snake_fish", "tangled_tubes", "tube_curl"}) {
    World on(shipped(name)), off(shipped(name));
    off.setCharacterPruning(false);
    int contacts = 0;
    while (on.time() < 3.5) {
      on.step();
      off.step();
      for (const Character& c : on.characters()) contacts += c.stats.contacts;
    }
    double gap = 0;
    for (size_t i = 0; i < on.characters().size(); ++i) {
      const std::vector<Vec3> a = on.characters()[i].body->skinPositions(), b = off.characters()[i].body->skinPositions();
      for (size_t p = 0; p < a.size(); ++p) gap = std::max(gap, (a[p] - b[p]).norm());
    }
    std::printf("%s: %d node contacts over 3.5 s; with and without stage 1 %.3e m apart\n", name, contacts, gap);
    EXPECT_GT(contacts, 100);
    EXPECT_LT(gap, 1e-9);
  }
}
