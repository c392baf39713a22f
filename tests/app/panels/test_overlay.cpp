// Overlays and records of the window: contact lines of a ball resting on the
// ground, proxy crosses, the statistics series, a PNG frame sequence.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "command_output.h"
#include "app/panels/overlay.h"
#include "app/output/recorder.h"
#include "app/session.h"

using namespace d2t;
namespace fs = std::filesystem;

namespace {

Scene ballOnGround(int bodies) {
  Scene s;
  ColliderDesc ground;
  ground.name = "ground";
  s.colliders.push_back(ground);
  for (int i = 0; i < bodies; ++i) {
    BodyDesc d;
    d.name = "ball" + std::to_string(i);
    d.shape = makeSphere(0.5);
    d.atlasResolution = 32;
    d.position = Vec3(0, 0.5 + 1.0 * i, 0);  // resting on the ground, the next one on top
    s.bodies.push_back(d);
  }
  return s;
}

}  // namespace

TEST(Overlay, ContactLinesOfABallOnTheGroundPointUp) {
  World w(ballOnGround(1));
  for (int i = 0; i < 100; ++i) w.step();  // settle into its dent
  const auto& contacts = w.lastContacts();
  ASSERT_EQ(contacts.size(), 1u);
  ASSERT_FALSE(contacts[0].empty());
  std::vector<LineVertex> lines;
  contactLines(w, contacts, 0.08, &lines);
  ASSERT_EQ(lines.size(), 2 * contacts[0].size());
  for (size_t k = 0; k < lines.size(); k += 2) {
    const Eigen::Vector3f d = lines[k + 1].position - lines[k].position;
    EXPECT_NEAR(d.norm(), 0.08f, 1e-5f);
    EXPECT_NEAR(d.y(), 0.08f, 1e-5f);                 // the ground's normal
    EXPECT_LT(std::abs(lines[k].position.y()), 0.005f);  // the node is at the ground
    EXPECT_EQ(lines[k].color, lines[k + 1].color);
  }
  EXPECT_EQ(int(contacts[0].size()), w.bodies()[0].stats.contacts);
  w.reset();
  EXPECT_TRUE(w.lastContacts().empty());
}

TEST(Overlay, ContactsBetweenTwoBodiesAreFoundOnBothAndMarked) {
  World w(ballOnGround(2));
  // the upper ball settles onto the lower one: the first step whose response used
  // contacts between them
  const auto& contacts = w.lastContacts();
  int betweenA = 0, betweenB = 0, steps = 0;
  while (steps < 400 && (betweenA == 0 || betweenB == 0)) {
    w.step();
    ++steps;
    betweenA = betweenB = 0;
    for (const NodeContact& c : contacts[0]) betweenA += c.other == 1;
    for (const NodeContact& c : contacts[1]) betweenB += c.other == 0;
  }
  EXPECT_GT(betweenA, 0);
  EXPECT_GT(betweenB, 0);
  std::vector<LineVertex> lines;
  contactLines(w, contacts, 0.05, &lines);
  const Eigen::Vector3f magenta(0.95f, 0.2f, 0.95f);
  int marked = 0;
  for (const LineVertex& v : lines) marked += v.color == magenta;
  EXPECT_EQ(marked, 2 * (betweenA + betweenB));
}

TEST(Overlay, ProxyCrossesSitOnTheProxyPoints) {
  World w(ballOnGround(1));
  std::vector<LineVertex> lines;
  proxyLines(w, &lines);
  Body& b = w.bodies()[0];
  ASSERT_EQ(lines.size(), 6 * b.proxy.points.size());
  const double arm = std::clamp(grownProxyMargin(b), 0.005, 0.05);
  for (size_t k = 0; k < b.proxy.points.size(); ++k) {
    const Vec3 x = b.layered.state().position + b.layered.state().orientation * b.proxy.points[k];
    const Eigen::Vector3f mid = 0.5f * (lines[6 * k].position + lines[6 * k + 1].position);
    EXPECT_LT((mid - x.cast<float>()).norm(), 1e-5f);
    EXPECT_NEAR((lines[6 * k + 1].position - lines[6 * k].position).norm(), 2 * arm, 1e-5);
  }
  // at rest the grown margin is the baked one
  EXPECT_DOUBLE_EQ(grownProxyMargin(b), b.proxy.margin);
}

// A character's bones' proxies follow the bodies' crosses: one per proxy point of each bone,
// at the point as stage 1 places it.
TEST(Overlay, ProxyCrossesShowEachBonesProxy) {
  World w(loadScene(std::string(D2T_TEST_DATA) + "/../../scenes/tube_press.json"));
  ASSERT_EQ(w.characters().size(), 1u);
  const Character& c = w.characters()[0];
  const std::vector<PlacedProxy> placed = placeBoneProxies(*c.model, c.body->state().bones, c.body->state().q);
  size_t points = 0;
  for (const PlacedProxy& p : placed) points += p.points.size();
  std::vector<LineVertex> lines;
  proxyLines(w, &lines);
  size_t bodyLines = 0;
  for (const Body& b : w.bodies()) bodyLines += 6 * b.proxy.points.size();
  ASSERT_EQ(lines.size(), bodyLines + 6 * points);
  const Vec3 first = placed[0].points[0];
  const Eigen::Vector3f mid = 0.5f * (lines[bodyLines].position + lines[bodyLines + 1].position);
  EXPECT_LT((mid - first.cast<float>()).norm(), 1e-5f);
}

TEST(StepLogSeries, RecentStagesAndSummariesAreTheLastSteps) {
  Session s;
  s.world = std::make_unique<World>(ballOnGround(1));
  s.requestedBackend = "cpu";
  for (int i = 0; i < 250; ++i) s.step();
  ASSERT_EQ(s.log.size(), 250u);
  const auto steps = s.log.recentSteps(100);
  ASSERT_EQ(steps.size(), 100u);
  for (const StageClock& st : s.log.clocks()) EXPECT_EQ(s.log.recentStage(st, 100).size(), 100u) << st.name();
  EXPECT_TRUE(s.log.recentStage({Stage::Drag, true}, 100).empty());  // (no drag, and on the CPU)
  EXPECT_EQ(s.log.medianStage({Stage::Drag, true}), 0.0);
  const auto contacts = s.log.recentSummary(&StepSummary::contacts, 300);
  ASSERT_EQ(contacts.size(), 250u);
  EXPECT_EQ(contacts.back(), float(s.world->bodies()[0].stats.contacts));
  EXPECT_GT(contacts.back(), 0);
  const auto energy = s.log.recentSummary(&StepSummary::energy, 1);
  ASSERT_EQ(energy.size(), 1u);
  EXPECT_NEAR(energy[0], s.world->energy(s.world->bodies()[0]).total(), 1e-3);
  // a bench recorded from step 200 on: 50 rows after the header
  const fs::path csv = fs::temp_directory_path() / "d2t_steplog_from.csv";
  s.log.writeCsv(csv.string(), 0.005, 200);
  std::ifstream f(csv);
  std::string line;
  int rows = 0;
  std::getline(f, line);
  EXPECT_EQ(line.rfind("step,t,step_ms", 0), 0u);
  std::getline(f, line);
  EXPECT_EQ(line.rfind("201,", 0), 0u) << line;
  for (rows = 1; std::getline(f, line);) ++rows;
  EXPECT_EQ(rows, 50);
}

TEST(Recorder, WritesANumberedPngSequenceToItsFolder) {
  const fs::path dir = fs::temp_directory_path() / "d2t_recorder_test" / "frames";
  fs::remove_all(dir.parent_path());
  FrameRecorder r;
  std::string error;
  ASSERT_TRUE(r.start(FrameRecorder::Format::Png, dir.string(), 60, &error)) << error;
  EXPECT_TRUE(r.recording());
  const int w = 8, h = 6;
  std::vector<uint8_t> rgb(size_t(w) * h * 3, 128);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(r.addFrame(w, h, rgb));
  EXPECT_FALSE(r.addFrame(w, h, std::vector<uint8_t>(5)));  // too few pixels: stops with an error
  EXPECT_FALSE(r.recording());
  EXPECT_FALSE(r.error().empty());
  for (const char* f : {"frame_000000.png", "frame_000001.png", "frame_000002.png"})
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  EXPECT_FALSE(fs::exists(dir / "frame_000003.png"));
  EXPECT_EQ(r.frames(), 3);
  // a folder where a file is: refused with a message
  FrameRecorder bad;
  EXPECT_FALSE(bad.start(FrameRecorder::Format::Png, (dir / "frame_000000.png" / "x").string(), 60, &error));
  EXPECT_FALSE(error.empty());
}

// The MP4 path for real, where ffmpeg is installed (it is an optional dependency;
// `apt-get install ffmpeg`): odd-sized frames of known colours go in, and ffprobe
// and ffmpeg read back the frame count, the (cropped to even) size and the colours.
TEST(Recorder, Mp4ThroughFfmpegHoldsEveryFrameWithItsColour) {
  if (findOnPath("ffmpeg").empty() || findOnPath("ffprobe").empty()) GTEST_SKIP() << "ffmpeg is not installed";
  const fs::path dir = fs::temp_directory_path() / "d2t-mp4-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = (dir / "it's a clip.mp4").string();  // a quote in the name, too
  const int w = 65, h = 49, count = 12;
  auto colour = [](int k) { return std::array<int, 3>{20 * k, 100, 220 - 15 * k}; };
  FrameRecorder r;
  std::string error;
  ASSERT_TRUE(r.start(FrameRecorder::Format::Mp4, file, 30, &error)) << error;
  for (int k = 0; k < count; ++k) {
    std::vector<uint8_t> rgb(size_t(w) * h * 3);
    for (size_t p = 0; p < rgb.size(); p += 3)
      for (int c = 0; c < 3; ++c) rgb[p + size_t(c)] = uint8_t(colour(k)[size_t(c)]);
    ASSERT_TRUE(r.addFrame(w, h, rgb)) << r.error();
  }
  const std::string line = r.stop();
  ASSERT_TRUE(r.error().empty()) << line;
  const std::string quoted = "\"" + file + "\"";
  const std::string probe = test::commandOutput("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                "stream=width,height,nb_read_frames -of csv=p=0 " + quoted);
  EXPECT_EQ(probe, "64,48,12\n");
  // frame 5 back as RGB: x264 at its default quality keeps a flat colour within a few levels
  const std::string pixels = test::commandOutput("ffmpeg -v error -i " + quoted + " -vf \"select=eq(n\\,5)\" -frames:v 1 -f rawvideo "
                                 "-pix_fmt rgb24 -");
  ASSERT_EQ(pixels.size(), size_t(64 * 48 * 3));
  for (int c = 0; c < 3; ++c) {
    double mean = 0;
    for (size_t p = size_t(c); p < pixels.size(); p += 3) mean += uint8_t(pixels[p]);
    mean /= 64 * 48;
    EXPECT_NEAR(mean, colour(5)[size_t(c)], 4.0) << c;
  }
  fs::remove_all(dir);
}

TEST(Recorder, Mp4WithoutFfmpegSaysSoAndFindOnPathFindsPrograms) {
  EXPECT_FALSE(findOnPath("sh").empty());
  EXPECT_TRUE(findOnPath("d2t-no-such-program").empty());
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  FrameRecorder r;
  std::string error;
  EXPECT_FALSE(r.start(FrameRecorder::Format::Mp4, "/tmp/d2t.mp4", 60, &error));
  EXPECT_NE(error.find("ffmpeg"), std::string::npos) << error;
  EXPECT_FALSE(r.recording());
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(timestampedName("d2tsim", ".png").rfind("d2tsim-", 0), 0u);
  EXPECT_EQ(timestampedName("d2tsim", ".png").size(), std::string("d2tsim-20260101-120000.png").size());
}
