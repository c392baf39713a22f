// A scene's character (character_scene.h).
#include "sim/character/character_scene.h"

#include <cmath>

#include "sim/character/tube.h"

namespace d2t {

CharacterDesc characterDesc(const CharacterSpec& s) {
  CharacterDesc d;
  if (s.model == "snake") {
    d = snakeCharacter(s.name, s.nodes, s.stiffness, s.damping, s.material);
  } else {
    TubeSpec t;
    t.radius = s.radius;
    t.length = s.length;
    t.bones = s.bones;
    t.stiffness = s.stiffness;
    t.damping = s.damping;
    t.nodes = s.nodes;
    t.coreScale = s.coreScale;
    d = tubeCharacter(s.name, t, s.material);
  }
  const JointType type = s.joint == "hinge" ? JointType::Hinge : s.joint == "fixed" ? JointType::Fixed : JointType::Ball;
  for (Joint& j : d.skeleton.joints) {
    j.type = type;
    j.axis = s.hingeAxis.normalized();
  }
  d.blend = s.blend;
  d.maxInfluences = s.maxInfluences;
  return d;
}

Character::Character(const CharacterSpec& s, CharacterModelPtr m) : spec(s), model(std::move(m)) { start(); }

void Character::start() {
  CharacterPlacement pl;
  pl.position = spec.position;
  pl.orientation = spec.orientation;
  pl.velocity = spec.velocity;
  pl.angularVelocity = spec.angularVelocity;
  body = std::make_unique<ArticulatedBody>(model, pl);
  std::vector<Quat> pose(model->skeleton.joints.size(), Quat::Identity());
  for (size_t j = 0; j < pose.size() && j < spec.poseAngles.size(); ++j)
    pose[j] = Quat(Eigen::AngleAxisd(spec.poseAngles[j], spec.poseAxis.normalized()));
  body->pose(pose);
  for (size_t j = 0; j < pose.size(); ++j) body->setJointTarget(int(j), spec.restAtStart ? pose[j] : Quat::Identity());
}

void Character::step(double dt, const Vec3& gravity, const std::vector<const Collider*>& colliders) {
  bool finite = true;
  try {
    body->step(dt, gravity, colliders);
  } catch (const std::runtime_error&) {
    finite = false;  // (a factorization that failed: the state went bad)
  }
  const CharacterState& s = body->state();
  for (const CoreState& b : s.bones)
    finite = finite && b.position.allFinite() && b.velocity.allFinite() && b.angularVelocity.allFinite() &&
             b.orientation.coeffs().allFinite();
  double q = 0;
  for (const Vec3& x : s.q) q = std::max(q, x.norm());
  finite = finite && std::isfinite(q);
  if (!finite) {
    ++stats.resets;
    start();
    return;
  }
  stats.maxDisplacement = std::max(stats.maxDisplacement, q);
  for (int j = 0; j < int(model->skeleton.joints.size()); ++j) {
    stats.maxJointError = std::max(stats.maxJointError, body->jointPositionError(j));
    stats.maxJointAngle = std::max(stats.maxJointAngle, body->jointAngle(j));
  }
  for (const Vec3& x : body->skinPositions()) stats.minHeight = std::min(stats.minHeight, x.y());
  stats.contacts = int(body->contacts().size());
}

}  // namespace d2t
