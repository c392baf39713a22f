#pragma once
// A scene's character (scene.h's CharacterSpec) made into a model and a starting state,
// and what the World keeps of one as it runs.
#include <memory>
#include <optional>
#include <vector>

#include "sim/character/articulated_body.h"
#include "sim/scene/scene.h"

namespace d2t {

/// The description of the character a scene asks for (its procedural model, skeleton,
/// weights, material). Throws InputError naming the character and the field.
CharacterDesc characterDesc(const CharacterSpec& spec);

/// What the run has seen of one character (--metrics, the panels).
struct CharacterStats {
  double maxJointError = 0;    ///< largest joint position error over the run [m]
  double maxJointAngle = 0;    ///< largest angle of any joint away from its bind pose [rad]
  double maxDisplacement = 0;  ///< largest skin displacement |q| over the run [m]
  double minHeight = 1e300;    ///< lowest world y of any skin node over the run [m]
  /// deepest any node ended a step inside the ground, a mesh collider, a body or another
  /// character, over the run [m]
  double maxPenetration = 0;
  int resets = 0;              ///< numerical blow-ups caught (the character restarted)
  int contacts = 0;            ///< nodes in contact in the last step
  /// stage 1 per bone at the last snapshot: the character's own triangles in the patches of
  /// its bones paired with another surface (the union), how many it has, and its bone pairs
  /// with itself
  int pairedTriangles = 0, triangles = 0, selfPairs = 0;
  int selfContacts = 0;  ///< nodes in contact with the character's own skin in the last step
  std::vector<std::array<double, 4>> trajectory;  ///< (steps) rows [t, com x, y, z]
};

/// A soft articulated character in the World (dissertation ch. 4): on planes and height
/// fields, against mesh colliders, bodies and the other characters.
struct Character {
  Character(const CharacterSpec& s, CharacterModelPtr m);
  CharacterSpec spec;
  CharacterModelPtr model;
  std::unique_ptr<ArticulatedBody> body;
  CharacterStats stats;
  /// The body at the spec's placement and starting pose, its springs' targets set.
  void start();
  /// The springs' targets at time t: the keyframes' (scene.h), or the rest pose; a joint
  /// with a pose edit (the panels' pose editor) takes that instead. The circling anchors to t.
  void setTargets(double t);
  /// The panels' pose editor: per joint, a target rotation vector (body frame) that
  /// overrides the keys, or none. Kept over restarts.
  std::vector<std::optional<Vec3>> poseEdit;
  /// A joint spring's gains, kept over restarts (the panels' sliders).
  void setGains(int joint, double stiffness, double damping);
  /// A step from time t; a non-finite state (a blow-up) restarts it and counts a reset.
  /// Updates stats.
  void step(double t, double dt, const Vec3& gravity, const std::vector<const Collider*>& colliders,
            const std::vector<const SurfaceTarget*>& targets = {});

 private:
  std::vector<std::pair<double, double>> gains;  // (joints) as edited (empty: the model's)
  std::vector<Quat> rest;               // (joints) the springs' rest targets
  std::vector<std::vector<Quat>> keys;  // (keys x joints) the keyframed targets
  std::vector<Vec3> anchors;            // (springs) where each anchor starts
};

}  // namespace d2t
