// Timeline (scrub, edit the past, memory budget) and Recording (write, read, replay):
// a run is a pure function of its scene and its inputs, so going back and re-stepping
// gives the recorded states bit for bit, and an edit changes exactly the future.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/base/json_reader.h"
#include "sim/world/recording.h"
#include "sim/world/timeline.h"
#include "sim/world/world.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// A ball dropped on the ground beside a tube character, a small sphere collider the mouse
// can move.
Scene timelineScene() {
  Scene s;
  s.simulation.dt = 0.005;
  BodyDesc ball = test::ball(0.3, 32, 5e4);
  ball.position = Vec3(0, 0.5, 0);
  ball.velocity = Vec3(0.3, 0, 0);
  s.bodies.push_back(ball);
  CharacterSpec tube;
  tube.name = "tube";
  tube.nodes = 120;
  tube.position = Vec3(0, 0.3, 1.2);
  s.characters.push_back(tube);
  s.colliders.push_back(ColliderDesc{});  // the ground
  ColliderDesc box;
  box.type = ColliderType::Mesh;
  box.shape = makeSphere(0.1);
  box.position = Vec3(1.2, 0.1, 0);
  box.draggable = true;
  s.colliders.push_back(box);
  return s;
}

uint64_t hashOf(World& w) { return stateHash(w.capture()); }

using Kind = WorldInput::Kind;

WorldInput skinDrag(int body, int node, const Vec3& target) { return WorldInput::make(Kind::SkinDrag, body, node, target); }

// 300 steps with inputs of every kind: the ball's skin pulled (40-120), the character's
// (130-160), the sphere collider dragged into the ball (170-190), the ball's material at 200, the time step at 250.
// Returns the hash after every step (h[k] after step k).
std::vector<uint64_t> recordRun(World& w, Timeline& t) {
  std::vector<uint64_t> h{hashOf(w)};
  for (int k = 0; k < 300; ++k) {
    if (k == 40) t.input(w, skinDrag(0, 5, Vec3(0.2, 0.9, 0)));
    if (k > 40 && k < 120) t.input(w, WorldInput::make(Kind::DragMove, -1, -1, Vec3(0.2 + 0.004 * (k - 40), 0.9, 0)));
    if (k == 120) t.input(w, WorldInput::make(Kind::DragEnd));
    if (k == 130) t.input(w, WorldInput::make(Kind::CharacterDrag, 0, 17, Vec3(0, 0.8, 1.2)));
    if (k == 160) t.input(w, WorldInput::make(Kind::DragEnd));
    if (k >= 170 && k < 190)
      t.input(w, WorldInput::make(Kind::ColliderDrag, 1, -1, Vec3(1.2 - 0.035 * (k - 169), 0.1, 0), w.settings().dt));
    if (k == 190) t.input(w, WorldInput::make(Kind::ColliderRelease, 1));
    if (k == 200) {  // a panel sets the material directly: the timeline notes it
      Material m = w.bodies()[0].desc.material;
      m.young *= 2;
      w.setMaterial(0, m);
    }
    if (k == 250) w.settings().dt = 0.004;  // ... and the time step
    t.step(w);
    h.push_back(hashOf(w));
  }
  return h;
}

}  // namespace

// The issue's check: run 300 steps, go back to step 100, re-step 200: the same hash bit for
// bit at every step; and any step is reached again from wherever the world is.
TEST(Timeline, GoingBackAndReSteppingGivesTheRecordedRunBitForBit) {
  World w(timelineScene());
  Timeline t(w);
  const std::vector<uint64_t> h = recordRun(w, t);
  ASSERT_EQ(t.head(), 300);
  ASSERT_GE(t.inputs().size(), 100u);
  EXPECT_EQ(t.inputs()[t.inputs().size() - 2].input.kind, Kind::Material);
  EXPECT_EQ(t.inputs().back().input.kind, Kind::Settings);
  EXPECT_EQ(t.inputs().back().step, 250);
  t.seek(w, 100);
  ASSERT_EQ(w.steps(), 100);
  EXPECT_EQ(hashOf(w), h[100]);
  EXPECT_EQ(w.bodies()[0].desc.material.young, 5e4) << "the material in effect at step 100";
  EXPECT_EQ(w.settings().dt, 0.005);
  for (int k = 101; k <= 300; ++k) {
    t.step(w);
    ASSERT_EQ(hashOf(w), h[size_t(k)]) << "step " << k << " re-stepped from 100";
  }
  for (long k : {237L, 0L, 199L, 200L, 201L, 300L, 133L, 251L, 1L}) {
    t.seek(w, k);
    ASSERT_EQ(hashOf(w), h[size_t(k)]) << "seek to step " << k;
  }
  EXPECT_EQ(t.divergences(), 0);
  EXPECT_EQ(t.head(), 300) << "scrubbing alone keeps the recorded future";
  EXPECT_TRUE(t.takeNotice().empty());
  EXPECT_TRUE(w.takeWarnings().empty());
}

// An edit at step 150 keeps the hashes before it and changes those after; the discarded
// future is gone, with a notice.
TEST(Timeline, AnEditInThePastKeepsThePastAndChangesTheFuture) {
  World w(timelineScene());
  Timeline t(w);
  const std::vector<uint64_t> h = recordRun(w, t);
  t.seek(w, 150);
  t.input(w, skinDrag(0, 9, Vec3(-0.3, 1.0, 0)));
  const std::string notice = t.takeNotice();
  EXPECT_NE(notice.find("step 150"), std::string::npos) << notice;
  EXPECT_NE(notice.find("discarded"), std::string::npos) << notice;
  EXPECT_EQ(t.head(), 150);
  for (const Timeline::Entry& e : t.inputs()) EXPECT_LE(e.step, 150);
  std::vector<uint64_t> edited(h.begin(), h.begin() + 151);
  for (int k = 151; k <= 300; ++k) {
    t.step(w);
    edited.push_back(hashOf(w));
    EXPECT_NE(edited.back(), h[size_t(k)]) << "step " << k << " after the edit";
  }
  for (long k : {10L, 149L, 150L}) {
    t.seek(w, k);
    EXPECT_EQ(hashOf(w), h[size_t(k)]) << "step " << k << ", before the edit";
  }
  for (long k : {151L, 222L, 300L}) {
    t.seek(w, k);
    EXPECT_EQ(hashOf(w), edited[size_t(k)]) << "step " << k << ", the new future";
  }
  EXPECT_EQ(w.bodies()[0].desc.material.young, 5e4) << "the material edit at 200 was in the discarded future";
  // a panel's edit in the past is recorded, and cuts the future too
  t.seek(w, 60);
  w.settings().gravity = Vec3(0, -5, 0);
  t.step(w);
  EXPECT_EQ(t.head(), 61);
  EXPECT_EQ(t.inputs().back().step, 60);
  EXPECT_EQ(t.inputs().back().input.kind, Kind::Settings);
  EXPECT_NE(t.takeNotice().find("step 60"), std::string::npos);
}

// The issue's check for metaphors: one added at step 150 (the Metaphors panel sets the
// world's list directly; the timeline records it) keeps the hashes before 150 and changes
// those after; seeking back before it takes it off again, forward puts it back; the
// recording of the edited run (its metaphors input as JSON) replays bit for bit.
TEST(Timeline, AMetaphorAddedInThePastKeepsThePastAndChangesTheFuture) {
  World w(timelineScene());
  Timeline t(w);
  const std::vector<uint64_t> h = recordRun(w, t);
  t.seek(w, 150);
  MetaphorDesc twist;
  twist.name = "twist_top";
  twist.body = w.bodies()[0].desc.name;
  twist.type = "twist";
  twist.mode = "wring";
  twist.region = "cylinder";
  twist.radius = 0.4;
  twist.height = 0.3;
  twist.magnitude = 4000;
  twist.start = 0.8;
  twist.end = 1.4;
  twist.easeIn = twist.easeOut = 0.1;
  twist.neighborDamping = {0.5, 0.25};
  w.setMetaphors({twist});
  std::vector<uint64_t> edited(h.begin(), h.begin() + 151);
  for (int k = 151; k <= 300; ++k) {
    t.step(w);
    edited.push_back(hashOf(w));
    if (k > 165) {
      EXPECT_NE(edited.back(), h[size_t(k)]) << "step " << k << " after the metaphor";
    }
  }
  EXPECT_NE(t.takeNotice().find("step 150"), std::string::npos);
  ASSERT_EQ(t.inputs().back().input.kind, Kind::Metaphors);
  EXPECT_EQ(t.inputs().back().step, 150);
  EXPECT_EQ(describe(t.inputs().back().input), "metaphors: 1 metaphor (twist_top)");
  t.seek(w, 120);
  EXPECT_TRUE(w.metaphors().empty()) << "before the edit";
  EXPECT_EQ(hashOf(w), h[120]);
  t.seek(w, 260);
  ASSERT_EQ(w.metaphors().size(), 1u);
  EXPECT_EQ(hashOf(w), edited[260]);
  EXPECT_EQ(t.divergences(), 0);
  // the recording: the metaphors input through its JSON, replayed on a new world
  t.seek(w, t.head());
  Recording rec = recordingOf(t, w);
  const nlohmann::json j = toJson(t.inputs().back().input);
  const WorldInput back = readWorldInput(j, "rec.json", "/inputs/0");
  EXPECT_EQ(back, t.inputs().back().input) << j.dump();
  const std::string path = (std::filesystem::temp_directory_path() / "d2t_metaphor_timeline.json").string();
  rec.scene = "timeline_scene";
  writeRecording(path, rec);
  std::string why;
  World fresh(timelineScene());
  EXPECT_EQ(replay(fresh, readRecording(path), &why), -1) << why;
  EXPECT_EQ(fresh.metaphors().size(), 1u);
  std::filesystem::remove(path);
  // a bad metaphor is refused naming it and the field, the world unchanged
  twist.end = 0.5;
  try {
    w.setMetaphors({twist});
    ADD_FAILURE() << "accepted a window that ends before it starts";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("metaphors/0 ('twist_top'): /metaphor/end"), std::string::npos) << e.what();
  }
  EXPECT_EQ(w.metaphors()[0]->desc().end, 1.4);
}

// Over its budget the timeline keeps every other snapshot and doubles the interval;
// every step stays reachable, bit for bit.
TEST(Timeline, StaysWithinItsMemoryBudget) {
  World w(timelineScene());
  const size_t one = stateBytes(w.capture());
  EXPECT_EQ(Timeline(w, 6 * one).interval(), int(std::ceil(20 / 0.005 / 6))) << "20 s in the budget";
  EXPECT_EQ(Timeline(w).interval(), Timeline::kMinInterval) << "a small scene: a snapshot every few steps";
  Timeline t(w, 6 * one, Timeline::kMinInterval);
  const int start = t.interval();
  std::vector<uint64_t> h{hashOf(w)};
  for (int k = 0; k < 400; ++k) {
    t.step(w);
    h.push_back(hashOf(w));
    ASSERT_LE(t.bytes(), t.budget() + one) << "step " << k + 1;  // (a snapshot's size varies with its contacts)
  }
  EXPECT_GT(t.interval(), start);
  EXPECT_LE(t.snapshotCount(), 7u);
  for (long k : {123L, 0L, 399L, 7L}) {
    t.seek(w, k);
    EXPECT_EQ(hashOf(w), h[size_t(k)]) << "step " << k;
  }
}

// A recording written and read back replays on a new world of the same scene; a tampered
// hash or input fails naming the step.
TEST(Recording, ReplaysBitForBitAndATamperedOneFailsNamingTheStep) {
  const std::string path = (std::filesystem::temp_directory_path() / "d2t_timeline_test.json").string();
  Recording rec;
  {
    World w(timelineScene());
    Timeline t(w);
    recordRun(w, t);
    rec = recordingOf(t, w);
    rec.scene = "timeline_scene";
    rec.overrides = {{"resolution", 32}};
  }
  ASSERT_EQ(rec.checkpoints.back().first, 300);
  ASSERT_GT(rec.checkpoints.size(), 10u);
  writeRecording(path, rec);
  const Recording back = readRecording(path);
  EXPECT_EQ(back.inputs, rec.inputs);
  EXPECT_EQ(back.checkpoints, rec.checkpoints);
  EXPECT_EQ(back.overrides, rec.overrides);
  std::string why;
  {
    World w(timelineScene());
    EXPECT_EQ(replay(w, back, &why), -1) << why;
  }
  Recording hash = back;
  const auto [k, h] = hash.checkpoints[hash.checkpoints.size() / 2];
  hash.checkpoints[hash.checkpoints.size() / 2].second = h ^ 1;
  {
    World w(timelineScene());
    EXPECT_EQ(replay(w, hash, &why), k);
    EXPECT_NE(why.find("step " + std::to_string(k)), std::string::npos) << why;
  }
  Recording input = back;
  for (Timeline::Entry& e : input.inputs)
    if (e.step == 80) e.input.target.x() += 1e-9;
  long after = -1;  // the first checkpoint after the input
  for (const auto& c : back.checkpoints)
    if (after < 0 && c.first > 80) after = c.first;
  {
    World w(timelineScene());
    EXPECT_EQ(replay(w, input, &why), after) << why;
  }
  std::filesystem::remove(path);
}

TEST(Recording, ABrokenFileIsRefusedNamingTheField) {
  const std::string path = (std::filesystem::temp_directory_path() / "d2t_recording_bad.json").string();
  const auto refused = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      readRecording(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string head =
      R"({"d2tsim_recording": 1, "scene": "s.json", "scene_json": {}, "overrides": {}, )"
      R"("first_step": 0, "steps": 10, )";
  EXPECT_NE(refused(R"({"scene": "s.json"})").find("not a d2tsim recording"), std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [], "checkpoints": [{"step": 4, "hash": "xyz"}]})").find("/checkpoints/0/hash"),
            std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [{"step": 3, "type": "skin_drag", "body": 0}], "checkpoints": []})")
                .find("/inputs/0/node"),
            std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [{"step": 3, "type": "kick"}], "checkpoints": []})").find("/inputs/0/type"),
            std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [{"step": 30, "type": "drag_end"}], "checkpoints": []})").find("/inputs/0/step"),
            std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [], "checkpoints": [{"step": 5, "hash": "0123456789abcdef"}, )"
                           R"({"step": 5, "hash": "0123456789abcdef"}]})")
                .find("/checkpoints/1/step"),
            std::string::npos);
  EXPECT_NE(refused(head + R"("inputs": [{"step": 1, "type": "material", "body": 0, "material": {"young": -1}}], )"
                           R"("checkpoints": []})")
                .find("/inputs/0/material/young"),
            std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace d2t
