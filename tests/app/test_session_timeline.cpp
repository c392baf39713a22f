// The window's run on its timeline, scripted through the Session as the mouse and the
// panels drive it: the drags and a panel's material edit are recorded, the recording
// replays bit for bit in a new world, scrubbing back and playing forward repeats the run,
// and a drag in the past keeps the past and discards the recorded future.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/session.h"
#include "sim/world/recording.h"

using namespace d2t;

namespace {

std::string scenePath(const char* name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / name).string();
}

uint64_t hashOf(World& w) { return stateHash(w.capture()); }

// sandbox: the fist dragged into the ball over 20 frames and let go, then the ball's skin
// pulled up for 20 frames, the ball made stiffer from its panel, 20 frames more.
void scriptedRun(Session& s) {
  for (int i = 0; i < 10; ++i) s.advance(1.0 / 60, 8);
  ASSERT_TRUE(s.beginDrag(1));
  const Vec3 fist0 = s.world->colliders()[1].position();
  for (int f = 1; f <= 20; ++f) {
    s.dragTo(fist0 + Vec3(0.05 * f, 0, 0));
    s.advance(1.0 / 60, 8);
  }
  s.endDrag();
  ASSERT_TRUE(s.beginSkinDrag(0, 10, s.world->bodies()[0].skinPositions()[10] + Vec3(0, 0.3, 0)));
  for (int f = 1; f <= 20; ++f) {
    s.dragTo(s.world->bodies()[0].skinPositions()[10] + Vec3(0.01 * f, 0.3, 0));
    s.advance(1.0 / 60, 8);
  }
  s.endDrag();
  Material m = s.world->bodies()[0].desc.material;
  m.young *= 3;
  s.world->setMaterial(0, m);  // (as the Bodies panel does)
  for (int i = 0; i < 20; ++i) s.advance(1.0 / 60, 8);
}

}  // namespace

TEST(SessionTimeline, AWindowRunWithDragsAndEditsReplaysBitForBit) {
  Session s;
  s.recording = true;
  s.load(scenePath("sandbox.json"), nullptr);
  ASSERT_TRUE(s.timeline);
  scriptedRun(s);
  Timeline& t = *s.timeline;
  const long head = s.world->steps();
  ASSERT_EQ(t.head(), head);
  int kinds[16] = {};
  for (const Timeline::Entry& e : t.inputs()) ++kinds[int(e.input.kind)];
  EXPECT_GE(kinds[int(WorldInput::Kind::ColliderDrag)], 20);
  EXPECT_EQ(kinds[int(WorldInput::Kind::ColliderRelease)], 1);
  EXPECT_EQ(kinds[int(WorldInput::Kind::SkinDrag)], 1);
  EXPECT_GE(kinds[int(WorldInput::Kind::DragMove)], 20);
  EXPECT_EQ(kinds[int(WorldInput::Kind::DragEnd)], 1);
  EXPECT_EQ(kinds[int(WorldInput::Kind::Material)], 1);
  const uint64_t atHead = hashOf(*s.world);

  // the recording, replayed in a new world of the scene as it ran
  Recording rec = recordingOf(t, *s.world);
  rec.scene = s.scenePath;
  rec.sceneJson = s.sceneJson;
  {
    World w(parseScene(rec.sceneJson, rec.scene));
    std::string why;
    EXPECT_EQ(replay(w, rec, &why), -1) << why;
    EXPECT_EQ(hashOf(w), atHead);
  }
  // scrubbed back into the fist's drag, played forward (the window's step): the same run
  s.seek(25);
  EXPECT_TRUE(s.paused);
  EXPECT_EQ(s.world->steps(), 25);
  while (s.world->steps() < head) s.step();
  EXPECT_EQ(hashOf(*s.world), atHead);
  EXPECT_EQ(t.head(), head);
  EXPECT_EQ(t.divergences(), 0);
  EXPECT_EQ(s.world->bodies()[0].desc.material.young, 9e4) << "the panel's edit replayed";

  // a drag in the past: the past kept, the future discarded with a notice, then re-run
  s.seek(40);
  const uint64_t at40 = hashOf(*s.world);
  ASSERT_TRUE(s.beginSkinDrag(0, 3, Vec3(0, 1.5, 0)));
  EXPECT_NE(s.lastWarning.find("discarded"), std::string::npos) << s.lastWarning;
  EXPECT_EQ(t.head(), 40);
  s.paused = false;
  for (int i = 0; i < 20; ++i) s.advance(1.0 / 60, 8);
  EXPECT_GT(t.head(), 40);
  s.seek(40);
  EXPECT_EQ(hashOf(*s.world), at40);
  EXPECT_EQ(s.world->bodies()[0].desc.material.young, 3e4) << "the material edit was in the discarded future";
}

// The workflow, as the Metaphors panel drives it: control_bunny recorded for 2 s,
// scrubbed back to 1 s, a twist added there on its other ear (one input: the past kept,
// the future re-simulated), run on; the scene saved with its metaphors runs headless from
// the start to the same state hash, and the recording replays to it too.
TEST(SessionTimeline, AMetaphorAddedInThePastIsSavedAndRunsHeadlessToTheSameHash) {
  Session s;
  s.recording = true;
  s.load(scenePath("control_bunny.json"), nullptr);
  ASSERT_EQ(s.world->metaphors().size(), 1u);
  while (s.world->steps() < 400) s.step();
  const uint64_t before = hashOf(*s.world);
  s.seek(200);
  std::vector<MetaphorDesc> list = s.world->metaphorDescs();
  MetaphorDesc twist = list[0];
  twist.name = "left_ear_twist";
  twist.type = "twist";
  twist.mode = "uniform";
  twist.center.x() = -twist.center.x();
  twist.axis.x() = -twist.axis.x();
  twist.start = s.world->time() + 0.05;
  twist.end = twist.start + 0.8;
  list.push_back(twist);
  WorldInput in;
  in.kind = WorldInput::Kind::Metaphors;
  in.metaphors = list;
  s.input(in);
  EXPECT_NE(s.timelineNotice.find("step 200"), std::string::npos) << s.timelineNotice;
  s.paused = false;
  while (s.world->steps() < 400) s.step();
  const uint64_t after = hashOf(*s.world);
  EXPECT_NE(after, before) << "the twist changed the future";
  EXPECT_EQ(s.world->bodies()[0].stats.resets, 0);
  // saved: the scene file with both metaphors, run headless from its start
  const std::string path = (std::filesystem::temp_directory_path() / "d2t_bunny_saved.json").string();
  s.saveScene(path);
  {
    World w(loadScene(path));
    ASSERT_EQ(w.metaphorDescs(), s.world->metaphorDescs());
    while (w.steps() < 400) w.step();
    EXPECT_EQ(hashOf(w), after);
  }
  // the recording (the scene as it ran, the input at step 200) replays to it as well
  Recording rec = recordingOf(*s.timeline, *s.world);
  rec.scene = s.scenePath;
  rec.sceneJson = s.sceneJson;
  ASSERT_EQ(rec.sceneJson["metaphors"].size(), 1u) << "the recording's scene is the one the run started from";
  {
    World w(parseScene(rec.sceneJson, rec.scene));
    std::string why;
    EXPECT_EQ(replay(w, rec, &why), -1) << why;
    EXPECT_EQ(hashOf(w), after);
  }
  std::filesystem::remove(path);
  // a metaphor the world refuses leaves the run as it was, naming the field
  twist.magnitude = 0;
  list.back() = twist;
  in.metaphors = list;
  EXPECT_THROW(s.input(in), InputError);
  EXPECT_EQ(s.world->metaphors().size(), 2u);
}

TEST(SessionTimeline, ResetStartsANewRecordingAndOffRecordsNothing) {
  Session s;
  s.recording = true;
  s.load(scenePath("sandbox.json"), nullptr);
  for (int i = 0; i < 5; ++i) s.advance(1.0 / 60, 8);
  ASSERT_GT(s.timeline->head(), 0);
  s.reset();
  ASSERT_TRUE(s.timeline);
  EXPECT_EQ(s.timeline->head(), 0);
  EXPECT_TRUE(s.timeline->inputs().empty());
  s.setRecording(false);
  EXPECT_FALSE(s.timeline);
  ASSERT_TRUE(s.beginDrag(1));
  s.dragTo(Vec3(-1, 0.6, 0));
  s.advance(1.0 / 60, 8);
  s.endDrag();
  EXPECT_TRUE(s.world->colliders()[1].released()) << "the drag still reaches the world";
}
