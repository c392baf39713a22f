#pragma once
// One body stepped as the program steps it: a World of that body and at most one
// plane. World::step is the only orchestration of a step; the tests that look at one
// body use it through this.
#include <cassert>
#include <algorithm>
#include <optional>
#include <string>

#include "sim/world/world.h"

namespace d2t::test {

/// The plane normal . x = offset (solid side normal . x < offset) as a collider whose
/// contacts with a body of material `m` have friction `friction` (< 0: the material's
/// own). The World gives a contact sqrt(f_body f_collider).
inline ColliderDesc planeCollider(const Vec3& normal, double offset, const Material& m, double friction = -1) {
  ColliderDesc c;
  c.name = "plane";
  c.type = ColliderType::Plane;
  c.normal = normal.normalized();
  c.offset = offset;
  assert(friction < 0 || friction == 0 || m.friction > 0);
  c.friction = friction < 0 ? m.friction : friction == 0 ? 0.0 : friction * friction / m.friction;
  return c;
}

/// Two balls of radius r stacked on the ground plane (5 mm above it, 1 cm apart), each
/// from `ball` (its name and position set here).
inline Scene stackedBalls(const BodyDesc& ball, double r, double dt) {
  Scene scene;
  scene.simulation.dt = dt;
  scene.colliders.push_back(planeCollider(Vec3::UnitY(), 0, ball.material));
  for (int k = 0; k < 2; ++k) {
    BodyDesc d = ball;
    d.name = "ball" + std::to_string(k);
    d.position = Vec3(0, r + 0.005 + k * (2 * r + 0.01), 0);
    scene.bodies.push_back(d);
  }
  return scene;
}

/// A stack of two balls (cores of radius `core`) run for `steps` steps: the cores' nearest
/// approach (their centres' distance less both radii) and the lower core's lowest point
/// [m] over the run.
struct StackRun {
  double gap = 1e300, ground = 1e300;
};
inline StackRun runStack(World& w, int steps, double core) {
  const LayeredBody &lower = w.bodies()[0].layered, &upper = w.bodies()[1].layered;
  StackRun run;
  for (int n = 0; n < steps; ++n) {
    w.step();
    run.gap = std::min(run.gap, (upper.core().position - lower.core().position).norm() - 2 * core);
    run.ground = std::min(run.ground, lower.coreLowest(Vec3::UnitY()));
  }
  return run;
}


/// A World of one body (and the plane, when given). `body` is its LayeredBody; the
/// World's settings (solver, contact support, gravity) rule each step.
struct OneBody {
  explicit OneBody(const BodyDesc& d, const std::optional<ColliderDesc>& plane = std::nullopt)
      : world(scene(d, plane)), body(world.bodies()[0].layered) {}
  World world;
  LayeredBody& body;
  /// One World step of dt [s] under gravity g [m/s^2].
  void step(double dt, const Vec3& g) {
    if (world.settings().gravity != g) {
      world.settings().gravity = g;
      world.rebaseEnergy();  // (the blow-up check's energy has a new reference)
    }
    world.step(dt);
  }
  /// The body's state, to change from outside (a kick): the World's energy bound
  /// restarts from the new energy, as after a panel's or the mouse's change.
  LayeredState& edit() {
    world.rebaseEnergy();
    return body.editState();
  }

 private:
  static Scene scene(const BodyDesc& d, const std::optional<ColliderDesc>& plane) {
    Scene s;
    s.bodies.push_back(d);
    if (plane) s.colliders.push_back(*plane);
    return s;
  }
};

}  // namespace d2t::test
