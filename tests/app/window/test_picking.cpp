// Mouse picking and dragging as geometry: the cursor ray, ray-triangle and
// ray-mesh hits, picking in a world, the drag plane; then a collider dragged
// through the Session into a soft ball, as the window's mouse does it.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/window/picking.h"
#include "app/session.h"

using namespace d2t;

namespace {

// pixel of a world point on a width x height viewport (the inverse of cursorRay)
Eigen::Vector2d project(const Camera& cam, const Vec3& x, int w, int h) {
  const Eigen::Vector4f clip = cam.projection(double(w) / h) * cam.view() * Eigen::Vector4f(float(x.x()), float(x.y()), float(x.z()), 1.0f);
  const double nx = clip.x() / clip.w(), ny = clip.y() / clip.w();
  return {0.5 * (nx + 1) * w, 0.5 * (1 - ny) * h};
}

std::string scenePath(const char* name) {
  return (std::filesystem::path(D2T_TEST_DATA).parent_path().parent_path() / "scenes" / name).string();
}

// the scene's own camera (a 1280 x 720 window below)
Camera sceneCamera(const World& w) {
  const CameraDesc& cd = w.scene().camera;
  return Camera(cd.eye, cd.target, cd.fovY);
}

}  // namespace

TEST(Picking, CursorRayThroughTheCentreIsTheViewDirection) {
  const Camera cam(Vec3(1, 2, 5), Vec3(0, 0.5, 0), 45);
  const Ray r = cursorRay(cam, 400, 300, 800, 600);
  EXPECT_NEAR((r.origin - cam.eye()).norm(), 0, 1e-12);
  EXPECT_NEAR((r.dir - (cam.target() - cam.eye()).normalized()).norm(), 0, 1e-12);
  EXPECT_NEAR(r.dir.norm(), 1, 1e-12);
}

TEST(Picking, CursorRayHitsThePointThatProjectsUnderTheCursor) {
  const Camera cam(Vec3(2.5, 1.8, 3.5), Vec3(0, 0.4, 0), 45);
  const int w = 1280, h = 720;
  for (const Vec3& x : {Vec3(0.3, 0.2, -0.4), Vec3(-1.6, 0.55, 0), Vec3(1, 1.5, 1)}) {
    const Eigen::Vector2d p = project(cam, x, w, h);
    const Ray r = cursorRay(cam, p.x(), p.y(), w, h);
    // distance from x to the ray: float projection matrices, so ~1e-6 relative
    const Vec3 d = x - r.origin;
    EXPECT_LT((d - d.dot(r.dir) * r.dir).norm(), 1e-5 * d.norm()) << x.transpose();
  }
  // top left pixel is up and to the left of the view direction
  const Ray tl = cursorRay(cam, 0, 0, w, h);
  const Vec3 fwd = (cam.target() - cam.eye()).normalized();
  const Vec3 right = fwd.cross(Vec3::UnitY()).normalized(), up = right.cross(fwd);
  EXPECT_LT(tl.dir.dot(right), 0);
  EXPECT_GT(tl.dir.dot(up), 0);
}

TEST(Picking, RayTriangleHitsInsideMissesOutsideAndBehind) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  const auto hit = intersectTriangle({Vec3(0.2, 0.3, 2), -Vec3::UnitZ()}, a, b, c);
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->t, 2, 1e-12);
  EXPECT_NEAR(hit->u, 0.2, 1e-12);
  EXPECT_NEAR(hit->v, 0.3, 1e-12);
  // from behind: both sides count
  EXPECT_TRUE(intersectTriangle({Vec3(0.2, 0.3, -1), Vec3::UnitZ()}, a, b, c));
  EXPECT_FALSE(intersectTriangle({Vec3(0.8, 0.8, 2), -Vec3::UnitZ()}, a, b, c));   // outside (u + v > 1)
  EXPECT_FALSE(intersectTriangle({Vec3(-0.1, 0.3, 2), -Vec3::UnitZ()}, a, b, c));  // outside (u < 0)
  EXPECT_FALSE(intersectTriangle({Vec3(0.2, 0.3, 2), Vec3::UnitZ()}, a, b, c));    // behind the origin
  EXPECT_FALSE(intersectTriangle({Vec3(0.2, 0.3, 2), Vec3::UnitX()}, a, b, c));    // parallel
  EXPECT_FALSE(intersectTriangle({Vec3(0.2, 0.3, 2), -Vec3::UnitZ()}, a, a, c));   // degenerate
}

TEST(Picking, RayMeshTakesTheNearestHitOfAClosedMesh) {
  const TriMesh sphere = makeSphere(0.5)->mesh(24);
  const Ray r{Vec3(0.1, 0.05, 3), -Vec3::UnitZ()};
  const auto hit = intersectMesh(r, sphere.positions, sphere.triangles);
  ASSERT_TRUE(hit);
  // the front of the sphere: z = sqrt(r^2 - x^2 - y^2), within the tessellation's sag
  const double z = std::sqrt(0.25 - 0.01 - 0.0025);
  EXPECT_NEAR(3 - hit->t, z, 0.01);
  EXPECT_FALSE(intersectMesh({Vec3(0.6, 0, 3), -Vec3::UnitZ()}, sphere.positions, sphere.triangles));
  // a bad index is skipped, not read
  EXPECT_FALSE(intersectMesh(r, sphere.positions, {Vec3i(0, 1, int(sphere.positions.size()))}));
}

TEST(Picking, DragPlaneFacesTheCameraAndKeepsTheGrabOffset) {
  const Camera cam(Vec3(0, 1, 4), Vec3(0, 1, 0), 45);
  const Vec3 collider(-1, 1, 0), grab(-0.8, 1.1, 0.2);
  ColliderDrag drag(3, collider, grab, cam);
  EXPECT_EQ(drag.collider(), 3);
  EXPECT_NEAR((drag.plane().normal - Vec3(0, 0, -1)).norm(), 0, 1e-12);
  // the cursor straight at a point of the plane: the grab point lands there
  const Vec3 onPlane(0.5, 1.5, 0.2);
  const Vec3 target = drag.follow({cam.eye(), (onPlane - cam.eye()).normalized()});
  EXPECT_NEAR((target - (onPlane + collider - grab)).norm(), 0, 1e-12);
  // a ray parallel to the plane keeps the last target
  EXPECT_NEAR((drag.follow({cam.eye(), Vec3::UnitX()}) - target).norm(), 0, 1e-12);
  // the wheel: one notch away moves the plane 10% of its distance further from the eye
  const Ray centre{cam.eye(), Vec3(0, 0, -1)};
  const Vec3 pushed = drag.push(1, cam.eye(), centre);
  EXPECT_NEAR(drag.plane().point.z(), 0.2 - 0.38, 1e-12);
  EXPECT_NEAR(pushed.z(), collider.z() - 0.38, 1e-12);
  // many notches towards the camera stop in front of it
  drag.push(-100, cam.eye(), centre);
  EXPECT_NEAR(cam.eye().z() - drag.plane().point.z(), 0.05, 1e-12);
  // a ray from behind the plane's front side: intersectPlane refuses hits behind the origin
  EXPECT_FALSE(intersectPlane({Vec3(0, 0, -5), Vec3(0, 0, -1)}, DragPlane{Vec3::Zero(), Vec3::UnitZ()}));
}

TEST(Picking, PicksTheBodyOrColliderUnderTheCursorAndNotTheGround) {
  Session s;
  s.load(scenePath("sandbox.json"), nullptr);
  World& w = *s.world;
  const Camera cam = sceneCamera(w);
  const int W = 1280, H = 720;
  // the ball's centre
  const Vec3 ball = w.bodies()[0].state.position;
  Eigen::Vector2d p = project(cam, ball, W, H);
  Pick pick = pickWorld(w, cursorRay(cam, p.x(), p.y(), W, H));
  ASSERT_EQ(pick.kind, Pick::Kind::Body);
  EXPECT_EQ(pick.index, 0);
  EXPECT_NEAR((pick.point - ball).norm(), 0.5, 0.02);  // on the skin
  ASSERT_GE(pick.node, 0);
  EXPECT_EQ(w.bodies()[0].model->atlas.nodeTexel[size_t(pick.node)], pick.texel);
  // the picked node is the skin node nearest the hit point, within a texel's spacing
  EXPECT_LT((w.bodies()[0].layered.nodePosition(pick.node) - pick.point).norm(), 0.05);
  // the fist (a draggable mesh collider)
  const Vec3 fist = w.colliders()[1].position();
  p = project(cam, fist, W, H);
  pick = pickWorld(w, cursorRay(cam, p.x(), p.y(), W, H));
  ASSERT_EQ(pick.kind, Pick::Kind::Collider);
  EXPECT_EQ(pick.index, 1);
  EXPECT_LT((pick.point - fist).norm(), 0.6);
  // the ground below the ball: not picked unless asked for
  p = project(cam, Vec3(1.2, 0, 1.0), W, H);
  const Ray down = cursorRay(cam, p.x(), p.y(), W, H);
  EXPECT_FALSE(pickWorld(w, down));
  pick = pickWorld(w, down, true);
  ASSERT_EQ(pick.kind, Pick::Kind::Collider);
  EXPECT_EQ(pick.index, 0);
  EXPECT_NEAR(pick.point.y(), 0, 1e-9);
  // the sky
  EXPECT_FALSE(pickWorld(w, cursorRay(cam, W / 2, 2, W, H), true));
}

// The window's drag, scripted: pick the fist under the cursor, move the cursor so
// that the fist goes into the ball over half a second of frames, let go.
TEST(Picking, DraggedFistPushesTheBallAndStaysWhereReleased) {
  Session s;
  s.load(scenePath("sandbox.json"), nullptr);
  World& w = *s.world;
  const Camera cam = sceneCamera(w);
  const int W = 1280, H = 720;
  for (int i = 0; i < 60; ++i) s.advance(1.0 / 60, 8);  // 1 s: the ball settles, the script holds
  const Vec3 ball0 = w.bodies()[0].state.position;
  EXPECT_NEAR(ball0.x(), 0, 5e-3);  // settled in place (the discrete skin drifts ~2 mm)

  const Vec3 fist0 = w.colliders()[1].position();
  const Eigen::Vector2d p0 = project(cam, fist0, W, H);
  const Pick pick = pickWorld(w, cursorRay(cam, p0.x(), p0.y(), W, H));
  ASSERT_EQ(pick.kind, Pick::Kind::Collider);
  ASSERT_EQ(pick.index, 1);
  ASSERT_TRUE(s.beginDrag(pick.index));
  EXPECT_FALSE(s.beginDrag(0));  // the ground is not draggable (and the fist stays held)
  EXPECT_EQ(s.draggedCollider(), 1);
  ColliderDrag drag(pick.index, fist0, pick.point, cam);

  // the cursor slides so that the fist's centre goes from x = -1.6 to x = -0.55 (its
  // knuckles into the ball) in 0.5 s, along the drag plane (the direction in it closest to +x)
  const Vec3 n = drag.plane().normal;
  const Vec3 inPlane = (Vec3::UnitX() - n.x() * n).normalized();
  const Vec3 goal = fist0 + 1.05 / inPlane.x() * inPlane;
  const Vec3 grabGoal = pick.point + (goal - fist0);
  double maxSpeed = 0;
  for (int f = 1; f <= 30; ++f) {
    const Vec3 g = pick.point + (grabGoal - pick.point) * (f / 30.0);
    const Eigen::Vector2d p = project(cam, g, W, H);
    s.dragTo(drag.follow(cursorRay(cam, p.x(), p.y(), W, H)));
    s.advance(1.0 / 60, 8);
    maxSpeed = std::max(maxSpeed, w.colliders()[1].velocity().norm());
  }
  // the collider moved with the cursor, at displacement / dt (about 2.1 m/s)
  EXPECT_NEAR((w.colliders()[1].position() - goal).norm(), 0, 0.01);
  EXPECT_GT(maxSpeed, 1.5);
  EXPECT_LE(maxSpeed, Session::kMaxDragSpeed + 1e-9);
  for (int i = 0; i < 12; ++i) s.advance(1.0 / 60, 8);  // held still in contact for 0.2 s
  s.endDrag();
  EXPECT_EQ(s.draggedCollider(), -1);
  const Vec3 released = w.colliders()[1].position();
  for (int i = 0; i < 60; ++i) s.advance(1.0 / 60, 8);  // 1 s more (the script would have moved it)
  EXPECT_NEAR((w.colliders()[1].position() - released).norm(), 0, 1e-12);
  EXPECT_EQ(w.colliders()[1].velocity().norm(), 0.0);

  // the ball was pushed away from the fist (+x), stayed on the ground, and did not blow up
  const Vec3 ball1 = w.bodies()[0].state.position;
  EXPECT_GT(ball1.x() - ball0.x(), 0.1) << ball1.transpose();
  EXPECT_GT(ball1.y(), 0.3);
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);

  // reset brings the script back
  s.reset();
  EXPECT_NEAR((w.colliders()[1].position() - fist0).norm(), 0, 1e-12);
  EXPECT_FALSE(w.colliders()[1].released());
}

// The window's frame steps at most until its wall budget is spent (at least one
// step), and drops the rest rather than owing it to the next frame.
TEST(Session, StepsStopAtTheFrameBudgetAndTheRestIsDropped) {
  Session s;
  s.load(scenePath("sandbox.json"), nullptr);
  const double dt = s.world->settings().dt;
  EXPECT_EQ(s.advance(8.5 * dt, 8), 8);  // no budget: every step owed
  EXPECT_EQ(s.advance(8 * dt, 8, 0.0), 1);  // an empty budget: one step
  EXPECT_EQ(s.advance(0.5 * dt, 8, 0.0), 0);  // and the other seven were dropped
  EXPECT_EQ(s.world->steps(), 9);
}

TEST(Picking, PausedDragPlacesTheColliderAtRest) {
  Session s;
  s.load(scenePath("sandbox.json"), nullptr);
  s.paused = true;
  ASSERT_TRUE(s.beginDrag(1));
  const Vec3 to(-1.0, 0.8, 0.3);
  s.dragTo(to);
  EXPECT_NEAR((s.world->colliders()[1].position() - to).norm(), 0, 1e-15);
  EXPECT_EQ(s.world->colliders()[1].velocity().norm(), 0.0);
  EXPECT_EQ(s.advance(1.0, 8), 0);  // paused: no steps
  s.endDrag();
  EXPECT_TRUE(s.world->colliders()[1].released());
}

// A character is picked on its deformed skin (the node nearest the hit, within a node
// spacing), and a left drag through the Session pulls that node: the spring's rows move the
// tube's end towards the target while the rest follows.
TEST(Picking, PicksACharactersSkinAndTheDragPullsIt) {
  Session s;
  s.load(scenePath("tube_drop.json"), nullptr);
  World& w = *s.world;
  for (int i = 0; i < 120; ++i) w.step();  // (landed)
  const Camera cam = sceneCamera(w);
  const int W = 1280, H = 720;
  const Character& c = w.characters()[0];
  const Vec3 at = c.body->centreOfMass();
  const Eigen::Vector2d p = project(cam, at, W, H);
  const Pick pick = pickWorld(w, cursorRay(cam, p.x(), p.y(), W, H));
  ASSERT_EQ(pick.kind, Pick::Kind::Character);
  EXPECT_EQ(pick.index, 0);
  ASSERT_GE(pick.node, 0);
  EXPECT_LT((c.body->nodePosition(pick.node) - pick.point).norm(), 0.06);
  EXPECT_LT((pick.point - at).norm(), 0.2);  // (on the skin over the centre: within the radius)
  ASSERT_TRUE(s.beginCharacterDrag(pick.index, pick.node, pick.point));
  const Vec3 target = pick.point + Vec3(0, 0.5, 0);
  s.dragTo(target);
  const double before = (c.body->nodePosition(pick.node) - target).norm();
  for (int i = 0; i < 120; ++i) w.step();
  const double after = (c.body->nodePosition(pick.node) - target).norm();
  std::printf("dragged tube: the node %.3f m from the target, then %.3f m after 2 s\n", before, after);
  EXPECT_LT(after, 0.5 * before);
  s.endDrag();
  EXPECT_EQ(w.characterDrag(), -1);
  EXPECT_EQ(c.stats.resets, 0);
}
