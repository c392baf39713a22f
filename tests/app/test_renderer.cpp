// Drawing a body straight from the GPU solver's textures gives the picture the
// CPU mesh path gives.
#include <gtest/gtest.h>

#include "app/renderer.h"
#include "gpu/egl_context.h"
#include "gpu/gpu_skin.h"

using namespace d2t;

namespace {

// one ball (32^2) over the ground plane
Scene ballOverGround(const Vec3& position, const Quat& orientation = Quat::Identity()) {
  Scene s;
  ColliderDesc ground;
  ground.name = "ground";
  s.colliders.push_back(ground);
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(0.5);
  d.atlasResolution = 32;
  d.position = position;
  d.orientation = orientation;
  s.bodies.push_back(d);
  return s;
}

}  // namespace

TEST(Renderer, SkinFromTexturesMatchesTheCpuMesh) {
  const auto gl = EglContext::create();
  World w(ballOverGround(Vec3(0, 0.7, 0), Quat(Eigen::AngleAxisd(0.5, Vec3(1, 1, 0).normalized()))));
  // a deformed skin, so that positions and normals both matter
  LayeredState& st = w.bodies()[0].layered.state();
  for (int i = 0; i < int(st.q.size()); ++i)
    st.q[size_t(i)] = 0.03 * std::sin(0.37 * i) * w.bodies()[0].model->restSkin[size_t(i)].normalized();
  w.bodies()[0].refreshState();
  Renderer r;
  r.setWorld(w);
  const Camera camera(Vec3(1.5, 1.2, 2.2), Vec3(0, 0.6, 0), 45);
  RenderTarget target;
  target.resize(160, 120);
  r.render(w, camera, target, ViewOptions{});
  const std::vector<uint8_t> cpu = target.readRgb();
  w.bodies()[0].layered.setFreeMotionSolver(std::make_shared<GpuSkin>(w.bodies()[0].model));
  r.render(w, camera, target, ViewOptions{});
  const std::vector<uint8_t> gpu = target.readRgb();
  ASSERT_EQ(cpu.size(), gpu.size());
  int differ = 0, ball = 0;
  for (size_t p = 0; p < cpu.size(); p += 3) {
    int d = 0;
    for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(cpu[p + size_t(c)]) - int(gpu[p + size_t(c)])));
    differ += d > 6;
    ball += cpu[p] > cpu[p + 1] + 40;  // the orange ball
  }
  EXPECT_GT(ball, 1000);                       // the ball is in the picture
  EXPECT_LT(differ, int(cpu.size() / 3 / 200));  // < 0.5% of the pixels differ visibly
}

// The View toggles change the picture: the skin hidden shows the core in its place,
// contact lines are drawn in red under a resting ball (over the skin that hides
// them), proxies in cyan.
TEST(Renderer, ViewTogglesDrawCoreContactsAndProxies) {
  const auto gl = EglContext::create();
  World w(ballOverGround(Vec3(0, 0.5, 0)));
  for (int i = 0; i < 60; ++i) w.step();
  ASSERT_FALSE(w.lastContacts()[0].empty());
  Renderer r;
  r.setWorld(w);
  const Camera camera(Vec3(0.3, 0.25, 2.0), Vec3(0, 0.2, 0), 45);  // low, to see under the ball
  RenderTarget target;
  target.resize(160, 120);
  auto count = [&](const ViewOptions& v, auto pred) {
    r.render(w, camera, target, v);
    const std::vector<uint8_t> px = target.readRgb();
    int n = 0;
    for (size_t k = 0; k + 2 < px.size(); k += 3) n += pred(px[k], px[k + 1], px[k + 2]);
    return n;
  };
  auto red = [](int R, int G, int B) { return R > 200 && G < 110 && B < 90; };
  auto cyan = [](int R, int G, int B) { return R < 140 && G > 200 && B > 200; };
  ViewOptions plain;
  plain.shadows = false;
  ViewOptions contacts = plain;
  contacts.contacts = true;
  EXPECT_GT(count(contacts, red) - count(plain, red), 5);
  ViewOptions proxies = plain;
  proxies.proxies = true;
  EXPECT_GT(count(proxies, cyan) - count(plain, cyan), 20);
  // the centre pixel: the body's orange skin, the grey core without the skin, the sky without both
  auto centre = [&](const ViewOptions& v) {
    r.render(w, camera, target, v);
    const std::vector<uint8_t> px = target.readRgb();
    const size_t k = (size_t(60) * 160 + 80) * 3;
    return Eigen::Vector3i(px[k], px[k + 1], px[k + 2]);
  };
  const Eigen::Vector3i skin = centre(plain);
  ViewOptions core = plain;
  core.skin = false;
  core.core = true;
  const Eigen::Vector3i coreOnly = centre(core);
  ViewOptions none = plain;
  none.skin = false;
  const Eigen::Vector3i sky = centre(none);
  EXPECT_GT(skin.x() - skin.z(), 60) << skin.transpose();                  // orange
  EXPECT_LT(std::abs(coreOnly.x() - coreOnly.z()), 40) << coreOnly.transpose();  // grey
  EXPECT_NE(coreOnly, sky);                                                // the ground behind
}
