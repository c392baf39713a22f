// Mesh colliders (the fist, the bird, a box) go through the two-stage detection
// as bodies do: a convex proxy in stage 1, the patch cast along the pair normal
// in stage 2. Against a box, whose top face is a plane, the contacts, the rest
// height and the bounce must be those of the plane.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/contact/body_contact.h"
#include "sim/model/static_reference.h"
#include "sim/world/world.h"

namespace d2t {
namespace {

constexpr double kR = 0.5;

ShapePtr shapeFrom(const char* json) { return parseShape(JsonReader(nlohmann::json::parse(json), "test")); }

// A ball of radius kR with its centre at `height` over a 3 m x 1 m x 3 m box whose
// top face is y = 0 (or over the plane y = 0).
Scene ballOver(double height, bool box, int resolution = 32, double dt = 0.002) {
  Scene s;
  s.simulation.dt = dt;
  BodyDesc b;
  b.name = "ball";
  b.shape = makeSphere(kR);
  b.atlasResolution = resolution;
  b.position = Vec3(0, height, 0);
  s.bodies.push_back(b);
  ColliderDesc c;
  c.name = box ? "box" : "ground";
  if (box) {
    c.type = ColliderType::Mesh;
    c.shape = shapeFrom(R"({"type": "box", "size": [3, 1, 3], "bevel": 0})");
    c.position = Vec3(0, -0.5, 0);
  }
  s.colliders.push_back(c);
  return s;
}

// The ball's centre of mass after `seconds`, its velocity, and the highest point
// of the centre after the first bounce.
struct Drop {
  Vec3 position, velocity;
  double rebound = -1e300;
  int resets = 0;
};
Drop drop(const Scene& s, double seconds) {
  World w(s);
  Drop d;
  int phase = 0;  // 0 falling, 1 on the way up from the first impact, 2 after its apex
  const int steps = int(std::lround(seconds / s.simulation.dt));
  for (int n = 0; n < steps; ++n) {
    w.step();
    const BodyState& b = w.bodies()[0].state;
    if (phase == 0 && b.velocity.y() > 0) phase = 1;
    if (phase == 1 && b.velocity.y() < 0) phase = 2;
    if (phase == 1) d.rebound = std::max(d.rebound, b.position.y());
  }
  d.position = w.bodies()[0].state.position;
  d.velocity = w.bodies()[0].state.velocity;
  d.resets = w.bodies()[0].stats.resets;
  return d;
}

}  // namespace

TEST(MeshCollider, ContactsWithABoxAreTheNodesBelowItsTopFaceWithTheirDepth) {
  // 5 cm into the box, off its centre and turned so that nothing lines up
  for (const Vec3& at : {Vec3(0, 0.45, 0), Vec3(0.7, 0.45, -0.4)}) {
    Scene s = ballOver(0.45, true);
    s.bodies[0].position = at;
    s.bodies[0].orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
    World w(s);
    const std::vector<std::vector<NodeContact>> contacts = w.findAllContacts();
    const Body& b = w.bodies()[0];
    EXPECT_EQ(w.pairStats().proxyPairs, 1);
    int near = 0;  // below the top face, or within the contact margin above it
    for (int i = 0; i < b.nodes(); ++i) near += b.layered.nodePosition(i).y() < kContactMargin;
    ASSERT_GT(near, 10);
    ASSERT_EQ(int(contacts[0].size()), near) << at.transpose();
    int colliding = 0;
    for (const NodeContact& c : contacts[0]) {
      ASSERT_LT(b.layered.nodePosition(c.node).y(), kContactMargin);
      EXPECT_NEAR(c.depth, -b.layered.nodePosition(c.node).y(), 1e-9);
      EXPECT_LT((c.normal - Vec3::UnitY()).norm(), 1e-9);  // the face's normal, out of the box
      EXPECT_EQ(c.other, -1);
      EXPECT_EQ(c.stiffnessShare, 1.0);
      EXPECT_NEAR(c.friction, std::sqrt(s.bodies[0].material.friction * s.colliders[0].friction), 1e-15);
      EXPECT_EQ(c.surfaceVelocity, Vec3::Zero());
      colliding += c.depth > 0;
    }
    EXPECT_EQ(w.pairStats().contactNodes, colliding);
  }
}

TEST(MeshCollider, MovingColliderGivesItsRigidVelocityAtTheContact) {
  Scene s = ballOver(0.45, true);
  Keyframe k0, k1;
  k0.time = 0;
  k0.position = Vec3(0, -0.5, 0);
  k1.time = 1;
  k1.position = Vec3(0.3, -0.3, 0);
  k1.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY()));
  s.colliders[0].keyframes = {k0, k1};
  World w(s);
  Collider& c = w.colliders()[0];
  // the keyframes' motion by central differences of the pose: v = dp/dt, w from the
  // rotation q(t + h) q(t - h)^-1 over 2h (not the collider's own velocities)
  const double t = 0.01, h = 1e-5;
  c.animate(t + h);
  const Vec3 p1 = c.position();
  const Quat q1 = c.orientation();
  c.animate(t - h);
  const Vec3 p0 = c.position();
  const Quat q0 = c.orientation();
  const Eigen::AngleAxisd turn(q1 * q0.inverse());
  const Vec3 v = (p1 - p0) / (2 * h), omega = turn.angle() * turn.axis() / (2 * h);
  c.animate(t);  // moving up and along x, turning about y
  std::printf("keyframed box at t = %.2f s: v (%.4f, %.4f, %.4f) m/s, w (%.4f, %.4f, %.4f) rad/s from the poses\n", t,
              v.x(), v.y(), v.z(), omega.x(), omega.y(), omega.z());
  EXPECT_LT((c.velocity() - v).norm(), 1e-6);
  EXPECT_LT((c.angularVelocity() - omega).norm(), 1e-6);
  EXPECT_GT(v.norm(), 0.3);
  EXPECT_GT(omega.norm(), 0.1);
  const std::vector<std::vector<NodeContact>> contacts = w.findAllContacts();
  ASSERT_FALSE(contacts[0].empty());
  const Body& b = w.bodies()[0];
  for (const NodeContact& k : contacts[0]) {
    const Vec3 x = b.layered.nodePosition(k.node);
    const Vec3 expect = v + omega.cross(x - c.position());
    EXPECT_LT((k.surfaceVelocity - expect).norm(), 1e-6);
  }
}

TEST(MeshCollider, BallDroppedOnABoxBouncesAsOnThePlaneOfItsTopFace) {
  // 32^2, 0.25 m drop, restitution 0.6
  Scene box = ballOver(0.75, true), plane = ballOver(0.75, false);
  const double e = 0.6, h = 0.75 - kR;
  box.bodies[0].material.restitution = plane.bodies[0].material.restitution = e;
  const Drop onBox = drop(box, 2.0), onPlane = drop(plane, 2.0);
  std::printf("first rebound: box %.5f m, plane %.5f m (e^2 h %.4f m); at 2 s: box %.5f m, plane %.5f m\n",
              onBox.rebound - kR, onPlane.rebound - kR, e * e * h, onBox.position.y(), onPlane.position.y());
  // the rebound of a rigid ball would rise e^2 h; the soft one's is near it
  EXPECT_NEAR(onPlane.rebound - kR, e * e * h, 0.15 * e * e * h);
  EXPECT_NEAR(onBox.rebound, onPlane.rebound, 1e-3);
  // and it goes on bouncing on the box as on the plane
  EXPECT_EQ(onBox.resets, 0);
  EXPECT_LT((onBox.position - onPlane.position).norm(), 1e-3);
  EXPECT_LT((onBox.velocity - onPlane.velocity).norm(), 1e-2);
}

// A ball held at its core by a spring (no gravity) is pressed by a box that is
// dragged up into it, as the mouse drags a collider (velocity = displacement /
// dt), and then held: at rest the spring's force is the contact force, and the
// indentation must be the static solve's for that force against the plane of
// the box's face (within 5%; issue 7 asked for 20%). All through the World: stage 1, stage 2,
// the response with contact support. The same press by a flat height field
// (queried exactly at every node, no stages) must give the same indentation.
struct Press {
  double force = 0, sinking = 0, reference = 0, moved = 0;
  int resets = 0;
};
Press press(bool box) {
  Scene s = ballOver(0, true);
  s.simulation.gravity = Vec3::Zero();
  if (!box) {
    s.colliders[0].type = ColliderType::HeightField;
    s.colliders[0].amplitude = 0;
    s.colliders[0].size = 3;
  }
  BodyDesc& d = s.bodies[0];
  d.material.young = 1e5;
  d.material.alpha = 1.0;
  d.material.beta = 0.01;
  d.material.restitution = 0;  // a press, not an impact
  d.material.friction = s.colliders[0].friction = 1;  // held where it touches (the static solve's no-slip)
  d.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
  CoreSpringDesc k;
  k.stiffness = 2e4;
  k.damping = 2000;  // 0.3 of critical on the ball's 524 kg: at rest within the run
  d.springs.push_back(k);
  World w(s);
  LayeredBody& ball = w.bodies()[0].layered;
  double low = 1e300;  // the undeformed skin's lowest point
  for (const Vec3& u : ball.model().restSkin) low = std::min(low, (ball.state().orientation * u).y());
  const double dt = 0.005, touch = ball.state().position.y() + low, travel = 0.03;
  const double below = box ? 0.5 : 0;  // the collider's origin under its top face
  Collider& c = w.colliders()[0];
  const Vec3 c0 = ball.state().position;
  double top = touch - 0.01;
  c.dragTo(Vec3(0, top - below, 0), 0);
  for (int n = 1; n <= 800; ++n) {
    top = touch - 0.01 + (travel + 0.01) * std::min(1.0, n * dt / 0.5);
    c.dragTo(Vec3(0, top - below, 0), dt);
    w.step();
  }
  Press r;
  r.resets = w.bodies()[0].stats.resets;
  r.moved = ball.state().position.y() - c0.y();
  r.force = k.stiffness * r.moved;
  const RestOnPlane ref = staticPressOnPlane(ball.model(), Vec3::Zero(), r.force, top, ball.state().orientation,
                                             PlaneContact::NoSlip);
  r.sinking = ref.undeformedHeight - ball.state().position.y();
  r.reference = ref.sinking;
  return r;
}

TEST(MeshCollider, DraggedBoxPressesASpringHeldBallAsTheStaticSolveForTheSameForce) {
  const Press b = press(true), f = press(false);
  std::printf("box pressed into the ball: force %.1f N, sinking dynamic %.5f m, static %.5f m (%+.1f%%); "
              "flat height field: %.5f m\n",
              b.force, b.sinking, b.reference, 100 * (b.sinking / b.reference - 1), f.sinking);
  EXPECT_EQ(b.resets, 0);
  EXPECT_GT(b.moved, 0.01);  // the push moved the ball
  EXPECT_NEAR(b.sinking, b.reference, 0.05 * b.reference);  // (measured -2.7%)
  EXPECT_NEAR(b.sinking, f.sinking, 1e-4);
}

TEST(MeshCollider, CollidersFarAwayOrOnlyNearEachOtherNeverReachStageTwo) {
  // two fists overlapping each other, the ball 3 m away
  Scene s = ballOver(0.6, false);
  for (double x : {3.0, 3.3}) {
    ColliderDesc c;
    c.name = "fist";
    c.type = ColliderType::Mesh;
    c.shape = shapeFrom(R"({"type": "fist", "size": 0.5})");
    c.position = Vec3(x, 0.6, 0);
    s.colliders.push_back(c);
  }
  World w(s);
  w.findAllContacts();
  EXPECT_EQ(w.pairStats().broadPairs, 0);  // (the two fists are not a pair)
  EXPECT_EQ(w.pairStats().proxyPairs, 0);
  // the first fist moved into the ball's side: one pair, with contacts
  w.colliders()[1].dragTo(Vec3(kR + 0.5 * w.colliders()[1].desc().shape->boundingRadius(), 0.6, 0), 0);
  const std::vector<std::vector<NodeContact>> contacts = w.findAllContacts();
  EXPECT_EQ(w.pairStats().proxyPairs, 1);
  EXPECT_GT(w.pairStats().contactNodes, 0);
  for (const NodeContact& c : contacts[0])
    if (c.depth > 0) {
      EXPECT_GT(w.bodies()[0].layered.nodePosition(c.node).x(), 0.2);
    }
}

}  // namespace d2t
