// Drawing a body straight from the GPU solver's textures gives the picture the
// CPU mesh path gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "app/render/renderer.h"
#include "gpu/gl/egl_context.h"
#include "gpu/skin/gpu_skin.h"

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
  LayeredState& st = w.bodies()[0].layered.editState();
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
  EXPECT_EQ(r.lastFrameSkins().fromMesh, 1);
  const std::vector<std::shared_ptr<GpuSkin>> skins = {std::make_shared<GpuSkin>(w.bodies()[0].model)};
  w.bodies()[0].layered.setFreeMotionSolver(skins[0]);
  r.render(w, camera, target, ViewOptions{}, skins);
  const std::vector<uint8_t> gpu = target.readRgb();
  // the second picture came from the textures (a failed skin shader draws the mesh: CPU vs CPU)
  ASSERT_TRUE(r.drawsSkinsFromTextures());
  EXPECT_EQ(r.lastFrameSkins().fromTextures, 1);
  EXPECT_EQ(r.lastFrameSkins().fromMesh, 0);
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
// contact lines are drawn under a resting ball (over the skin that hides them; red
// where a node penetrates, yellow where it rests within the margin, as the
// supported nodes of a ball at rest do), proxies in cyan.
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
  auto contactColour = [](int R, int G, int B) { return R > 200 && (G < 110 || G > 190) && B < 90; };
  auto cyan = [](int R, int G, int B) { return R < 140 && G > 200 && B > 200; };
  ViewOptions plain;
  plain.shadows = false;
  ViewOptions contacts = plain;
  contacts.contacts = true;
  EXPECT_GT(count(contacts, contactColour) - count(plain, contactColour), 5);
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

namespace {

std::string shippedScene(const char* name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / name).string();
}

// A shipped scene with every atlas at `resolution` (the shipped 128^2 bakes slowly).
Scene sceneAt(const char* name, int resolution) {
  Scene s = loadScene(shippedScene(name));
  for (BodyDesc& b : s.bodies) b.atlasResolution = resolution;
  return s;
}

// Pixel (x, y) (top row first) where a world point projects.
Eigen::Vector2i project(const Camera& c, const Vec3& p, int w, int h) {
  const Eigen::Vector4f clip =
      c.projection(double(w) / h) * c.view() * Eigen::Vector4f(float(p.x()), float(p.y()), float(p.z()), 1.f);
  return {int((clip.x() / clip.w() * 0.5 + 0.5) * w), int((1 - (clip.y() / clip.w() * 0.5 + 0.5)) * h)};
}

double luminance(const uint8_t* p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

// Distance from the eye to the surface drawn at each pixel (rows top first), +inf where
// nothing was drawn: the depth buffer of the last render, unprojected.
std::vector<double> eyeDistances(const RenderTarget& t, const Camera& c) {
  const int w = t.width(), h = t.height();
  std::vector<float> depth(size_t(w) * h);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, t.framebuffer());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, w, h, GL_DEPTH_COMPONENT, GL_FLOAT, depth.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  const Eigen::Matrix4d inv = (c.projection(double(w) / h) * c.view()).cast<double>().inverse();
  std::vector<double> out(depth.size(), INFINITY);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double d = depth[size_t(y) * w + size_t(x)];
      if (d >= 1.0) continue;
      const Eigen::Vector4d p = inv * Eigen::Vector4d(2 * (x + 0.5) / w - 1, 2 * (y + 0.5) / h - 1, 2 * d - 1, 1);
      out[size_t(h - 1 - y) * w + size_t(x)] = (p.head<3>() / p.w() - c.eye()).norm();
    }
  return out;
}

}  // namespace

// Screenshots of two shipped scenes (their own cameras) show every body, lit: the
// pixels where the skin is drawn (against the same frame without skins) cover each
// body's projected centre of mass, differ from the background there, and are shaded
// (a spread of brightness across the surface that a flat, unlit body would not have).
TEST(Renderer, ShippedScenesShowEveryBodyLit) {
  const auto gl = EglContext::create();
  for (const char* name : {"pumpkins.json", "head_punch.json"}) {
    SCOPED_TRACE(name);
    World w(sceneAt(name, 32));
    for (int i = 0; i < 150; ++i) w.step();  // the top pumpkin has landed; the fist is on its way
    Renderer r;
    r.setWorld(w);
    const CameraDesc& cd = w.scene().camera;
    const Camera camera(cd.eye, cd.target, cd.fovY);
    const int W = 320, H = 180;
    RenderTarget target;
    target.resize(W, H);
    r.render(w, camera, target, ViewOptions{});
    const std::vector<uint8_t> shot = target.readRgb();
    ViewOptions bare;
    bare.skin = false;
    r.render(w, camera, target, bare);
    const std::vector<uint8_t> background = target.readRgb();
    // the bodies' pixels: where drawing the skins changed the picture
    std::vector<char> body(size_t(W) * H, 0);
    std::vector<double> lum;
    double contrast = 0;
    for (size_t p = 0; p < body.size(); ++p) {
      int d = 0;
      for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(shot[3 * p + size_t(c)]) - int(background[3 * p + size_t(c)])));
      body[p] = d > 16;
      if (!body[p]) continue;
      lum.push_back(luminance(&shot[3 * p]));
      contrast += std::abs(luminance(&shot[3 * p]) - luminance(&background[3 * p]));
    }
    ASSERT_GT(lum.size(), size_t(W * H / 50)) << "the bodies cover less than 2% of the picture";
    contrast /= double(lum.size());
    std::sort(lum.begin(), lum.end());
    const double p5 = lum[lum.size() / 20], p95 = lum[lum.size() * 19 / 20];
    const double mean = std::accumulate(lum.begin(), lum.end(), 0.0) / double(lum.size());
    std::printf("%s: %zu body pixels, luminance mean %.0f, 5%%..95%% %.0f..%.0f, contrast to background %.0f\n", name,
                lum.size(), mean, p5, p95, contrast);
    EXPECT_GT(mean, 50) << "bodies drawn dark: no light?";
    EXPECT_GT(p95 - p5, 40) << "no shading across the bodies";
    EXPECT_GT(contrast, 15);
    for (const Body& b : w.bodies()) {
      const Eigen::Vector2i c = project(camera, b.state.position, W, H);
      int covered = 0;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          const int x = std::clamp(c.x() + dx, 0, W - 1), y = std::clamp(c.y() + dy, 0, H - 1);
          covered += body[size_t(y) * W + size_t(x)];
        }
      EXPECT_GE(covered, 20) << b.desc.name << " not drawn at its centre (" << c.transpose() << ")";
    }
  }
}

// The fist of head_punch.json dents the head, and the rendered surface shows it: seen
// from the fist's side (the fist moved out of the way after the step), the depth
// buffer over the contact region lies deeper than the same head drawn with its skin
// as it was before the fist touched it (same pose) by about the dent the solver
// reports there, while the rest of the head moves far less.
TEST(Renderer, PunchDentIsVisibleInTheDepthOfTheContactRegion) {
  const auto gl = EglContext::create();
  // the punch scene's head and fist, with the head resting on the ground rather than hanging
  // on its neck springs: then mostly the dent moves its skin (a swinging head's whole skin lags)
  Scene scene = sceneAt("head_punch.json", 64);
  scene.bodies[0].springs.clear();
  scene.bodies[0].position.y() = 0.32;  // near its rest on the ground (centre of mass ~0.33 m)
  World w(scene);
  const Body& head = w.bodies()[0];
  // step until the fist presses on the head: contacts whose normal (out of the fist) is along +x
  auto fistContacts = [&] {
    std::vector<NodeContact> out;
    if (w.lastContacts().empty()) return out;
    for (const NodeContact& c : w.lastContacts()[0])
      if (c.normal.x() > 0.5) out.push_back(c);
    return out;
  };
  std::vector<NodeContact> pressed;
  std::vector<Vec3> before;  // the skin (q) at the last step without the fist
  for (int i = 0; i < 260 && pressed.size() < 10; ++i) {
    w.step();
    pressed = fistContacts();
    if (pressed.empty()) before = head.layered.state().q;
  }
  ASSERT_GE(pressed.size(), 10u) << "the fist never pressed on the head";
  const LayeredState deformed = head.layered.state();
  // the dent the solver reports: skin displacement since then along the contact normal
  // (out of the fist)
  Vec3 centre = Vec3::Zero(), n = Vec3::Zero();
  double dent = 0;
  for (const NodeContact& c : pressed) {
    centre += head.layered.nodePosition(c.node);
    n += c.normal;
    dent += (deformed.orientation * (deformed.q[size_t(c.node)] - before[size_t(c.node)])).dot(c.normal);
  }
  centre /= double(pressed.size());
  n.normalize();
  dent /= double(pressed.size());
  ASSERT_GT(dent, 0.002) << "the skin under the fist is not pushed in";
  w.colliders()[1].dragTo(Vec3(-6, 0.5, 0), 0);  // out of the picture, at rest

  Renderer r;
  r.setWorld(w);
  const Camera camera(centre - 0.9 * n, centre, 40);  // from the fist's side, along its push
  const int W = 200, H = 200;
  RenderTarget target;
  target.resize(W, H);
  ViewOptions plain;
  plain.shadows = false;
  r.render(w, camera, target, plain);
  const std::vector<double> dented = eyeDistances(target, camera);
  LayeredState rest = deformed;
  rest.q = before;
  w.bodies()[0].layered.editState() = rest;
  w.bodies()[0].refreshState();
  r.render(w, camera, target, plain);
  const std::vector<double> smooth = eyeDistances(target, camera);

  // At each contact node's pixel the drawn surface must be deeper by the node's own
  // dent (the camera looks along the push); elsewhere, outside the contact nodes'
  // box, the head is drawn where it was.
  Eigen::Vector2i lo(W, H), hi(-1, -1);
  double inside = 0, outside = 0;
  int nIn = 0, nOut = 0;
  for (const NodeContact& c : pressed) {
    const Vec3 x = rest.position + rest.orientation * (head.model->restSkin[size_t(c.node)] + rest.q[size_t(c.node)]);
    const Eigen::Vector2i p = project(camera, x, W, H);
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
    if (p.x() < 0 || p.y() < 0 || p.x() >= W || p.y() >= H) continue;
    const size_t at = size_t(p.y()) * W + size_t(p.x());
    if (!std::isfinite(dented[at]) || !std::isfinite(smooth[at])) continue;
    inside += dented[at] - smooth[at];
    ++nIn;
  }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const size_t p = size_t(y) * W + size_t(x);
      if (!std::isfinite(dented[p]) || !std::isfinite(smooth[p])) continue;
      if (x >= lo.x() && x <= hi.x() && y >= lo.y() && y <= hi.y()) continue;
      outside += dented[p] - smooth[p];
      ++nOut;
    }
  ASSERT_GE(nIn, int(pressed.size()) / 2) << "the contact region is not in the picture";
  inside /= nIn;
  outside /= std::max(nOut, 1);
  std::printf("dent under the fist: solver %.2f mm over %zu contact nodes; rendered depth %.2f mm deeper at %d of "
              "their pixels, %.2f mm elsewhere on the head (%d pixels)\n",
              dent * 1e3, pressed.size(), inside * 1e3, nIn, outside * 1e3, nOut);
  EXPECT_NEAR(inside, dent, 0.1 * dent);
  EXPECT_LT(std::abs(outside), 0.5 * inside);
}
