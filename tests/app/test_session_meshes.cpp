// Open mesh in a running session (Session::addMesh, what the window's Scene panel and an OBJ
// dropped on the window call): a user's banana becomes a mesh body of the node count asked
// (and of the bones asked), resting where it was put; a bowl becomes a draggable collider with its lowest point where
// it was put; names stay unique; a file that cannot be read leaves the session as it was.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/session.h"

using namespace d2t;

namespace {

std::string repoPath(const char* dir, const char* name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / dir / name).string();
}

}  // namespace

TEST(SessionMeshes, AnObjBecomesASoftBodyOrAColliderWhereItIsPut) {
  Session s;
  s.load(repoPath("scenes", "stairs.json"), nullptr);
  const size_t colliders = s.world->colliders().size();
  // a soft body on the ground in front of the stairs
  const std::string body = s.addMesh(repoPath("assets", "banana.obj"), true, Vec3(2.2, 0, 0.3), 700);
  EXPECT_NE(body.find("body 'banana': "), std::string::npos) << body;
  EXPECT_NE(body.find("banana.obj: closed; re-meshed to"), std::string::npos) << body;
  EXPECT_NE(body.find("a mesh body on the general surface layout"), std::string::npos) << body;
  ASSERT_EQ(s.world->characters().size(), 1u);
  const Character& c = s.world->characters()[0];
  EXPECT_EQ(c.spec.name, "banana");
  EXPECT_NEAR(double(c.model->nodeCount()), 700, 14);
  double lowest = 1e300;
  for (const Vec3& x : c.body->skinPositions()) lowest = std::min(lowest, x.y());
  EXPECT_NEAR(lowest, 0.02, 0.01);  // (put 2 cm above the point clicked)
  ASSERT_EQ(s.loadNotes.size(), 1u);
  EXPECT_NE(s.loadNotes[0].find("body 'banana': "), std::string::npos);
  // a second one is named apart; asked for bones, it has them along its medial axis, and the
  // scene's JSON keeps the ask (a restart or a save makes the same body)
  const std::string boned = s.addMesh(repoPath("assets", "banana.obj"), true, Vec3(2.2, 0, -0.3), 500, 3);
  ASSERT_EQ(s.world->characters().size(), 2u);
  EXPECT_EQ(s.world->characters()[1].spec.name, "banana2");
  EXPECT_EQ(s.world->characters()[1].model->boneCount(), 3);
  EXPECT_NE(boned.find("a skeleton from its medial axis: 3 bones (a chain)"), std::string::npos) << boned;
  EXPECT_NE(boned.find("3 bones, CPU)"), std::string::npos) << boned;
  EXPECT_EQ(s.sceneJson["bodies"].back()["skeleton"]["from"], "medial_axis");
  // a collider: the bowl, its rim's lowest point on the ground beside the stairs
  const std::string bowl = s.addMesh(repoPath("assets", "bowl.obj"), false, Vec3(-1.5, 0, 0), 0);
  EXPECT_NE(bowl.find("collider 'bowl': "), std::string::npos) << bowl;
  ASSERT_EQ(s.world->colliders().size(), colliders + 1);
  const Collider& added = s.world->colliders().back();
  EXPECT_TRUE(added.desc().draggable);
  EXPECT_NEAR(added.position().y() + added.desc().shape->mesh(0).bounds().lo.y(), 0.0, 1e-9);
  // they run: 1 s, no reset, the bodies at rest on the ground
  for (int i = 0; i < 200; ++i) s.step();
  for (const Character& k : s.world->characters()) {
    EXPECT_EQ(k.stats.resets, 0) << k.spec.name;
    EXPECT_GT(k.body->centreOfMass().y(), 0.0) << k.spec.name;
  }
  // a file that cannot be read: the message names it, and the session is unchanged
  const World* before = s.world.get();
  try {
    s.addMesh("/nonexistent/model.obj", true, Vec3::Zero(), 800);
    ADD_FAILURE() << "a missing file was added";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.obj: cannot open file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.world.get(), before);
  EXPECT_EQ(s.world->characters().size(), 2u);
}
