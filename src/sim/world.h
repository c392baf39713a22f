#pragma once
// The simulated world: bodies, colliders, time, and one fixed-dt step.
//
// Stage 1 of the project: each body moves as its rigid core carrying an
// undeformed skin (sample points on the skin surface collide with the
// colliders by sequential impulses). The layered skin solver (D2T) replaces
// the body update in a later stage; the world's interface stays.
#include <array>
#include <string>
#include <vector>

#include "sim/baked_body.h"
#include "sim/collider.h"
#include "sim/profile.h"
#include "sim/scene.h"

namespace d2t {

/// Kinematic state of a body's core. Body frame origin = centre of mass.
struct BodyState {
  Vec3 position = Vec3::Zero();          ///< world position of the centre of mass [m]
  Quat orientation = Quat::Identity();   ///< body-to-world rotation
  Vec3 velocity = Vec3::Zero();          ///< world linear velocity [m/s]
  Vec3 angularVelocity = Vec3::Zero();   ///< world angular velocity [rad/s]
};

/// Energies of one body [J].
struct Energy {
  double kinetic = 0;
  double gravitational = 0;  ///< relative to height 0: -m g . x
  double elastic = 0;
  double total() const { return kinetic + gravitational + elastic; }
};

/// What the run has seen of one body (for --metrics and the panels).
struct BodyStats {
  double minHeight = 1e300;            ///< lowest world y of any skin point over the run [m]
  double maxPenetration = 0;           ///< deepest penetration into any collider over the run [m]
  double finalMaxPenetration = 0;      ///< deepest penetration at the last step [m]
  int resets = 0;                      ///< numerical blow-ups caught
  int contacts = 0;                    ///< contact points in the last step
  std::vector<std::array<double, 4>> trajectory;  ///< (steps) rows [t, com x, y, z]
};

struct Body {
  BodyDesc desc;
  BakedBodyPtr model;              ///< the baked D2T model (atlas, mesh, masses, K_e)
  // baked quantities of the rigid model
  double mass = 0;                 ///< [kg]
  Mat3 inertiaBody = Mat3::Identity();  ///< inertia about the com, body frame [kg m^2]
  Vec3 comOffset = Vec3::Zero();   ///< com in the shape's frame [m]
  std::vector<Vec3> skinPoints;    ///< (nnode) rest skin nodes, relative to the com [m]
  TriMesh surface;                 ///< skin surface (the atlas mesh) for drawing, same frame [m]
  BodyState state, initial, lastGood;
  BodyStats stats;

  /// Simulation nodes and tetrahedra of the body's model.
  int nodes() const { return model ? model->nodeCount() : 0; }
  int tets() const { return model ? model->tetCount() : 0; }

  /// World position of the shape's origin (what the scene's "position" means).
  Vec3 shapeOrigin() const { return state.position - state.orientation * comOffset; }
};

class World {
 public:
  explicit World(const Scene& scene);

  /// Advances by one time step of `settings().dt`.
  void step();
  /// Back to the scene's initial state (time 0, stats cleared).
  void reset();

  const Scene& scene() const { return scene_; }
  SimulationSettings& settings() { return scene_.simulation; }
  const SimulationSettings& settings() const { return scene_.simulation; }
  double time() const { return time_; }
  long steps() const { return steps_; }
  std::vector<Body>& bodies() { return bodies_; }
  const std::vector<Body>& bodies() const { return bodies_; }
  std::vector<Collider>& colliders() { return colliders_; }
  const std::vector<Collider>& colliders() const { return colliders_; }
  /// Stage timings of the last step.
  const Profile& profile() const { return profile_; }
  Energy energy(const Body& b) const;
  /// Warnings since the last call (numerical resets, ...), oldest first.
  std::vector<std::string> takeWarnings();
  /// Keep a per-step trajectory in the stats (off by default: it grows with the run).
  void recordTrajectory(bool on) { recordTrajectory_ = on; }

 private:
  void stepBody(Body& b, double dt);
  double deepestPenetration(const Body& b, Vec3* normal) const;
  bool healthy(const Body& b) const;

  Scene scene_;
  std::vector<Body> bodies_;
  std::vector<Collider> colliders_;
  Profile profile_;
  double time_ = 0;
  long steps_ = 0;
  bool recordTrajectory_ = false;
  std::vector<std::string> warnings_;
};

}  // namespace d2t
