// A scene's character (character_scene.h).
#include "sim/character/character_scene.h"

#include <algorithm>
#include <cmath>

#include "sim/character/deer.h"
#include "sim/character/mesh_character.h"
#include "sim/character/tube.h"

namespace d2t {

CharacterDesc characterDesc(const CharacterSpec& s) {
  CharacterDesc d;
  if (s.model == "snake") {
    d = snakeCharacter(s.name, s.nodes, s.stiffness, s.damping, s.material);
  } else if (s.model == "mesh") {
    d = meshCharacter(s.name, *s.surface, s.coreScale, s.material, s.medial.bones, s.stiffness, s.damping);
  } else if (s.model == "deer") {
    DeerSpec deer;
    deer.nodes = s.nodes;
    deer.stiffness = s.stiffness;
    deer.damping = s.damping;
    deer.coreScale = s.coreScale;
    d = deerCharacter(s.name, deer, s.material);
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
    if (!s.joint.empty()) {
      j.type = type;
      j.axis = s.hingeAxis.normalized();
    }
    j.limit = s.limitAngle;
  }
  d.blend = s.blend;
  d.maxInfluences = s.maxInfluences;
  return d;
}

Character::Character(const CharacterSpec& s, CharacterModelPtr m) : spec(s), model(std::move(m)) { start(); }

namespace {
Quat rotationOf(const Vec3& v) {
  const double a = v.norm();
  return a > 0 ? Quat(Eigen::AngleAxisd(a, v / a)) : Quat::Identity();
}
}  // namespace

void Character::start() {
  CharacterPlacement pl;
  pl.position = spec.position;
  pl.orientation = spec.orientation;
  pl.velocity = spec.velocity;
  pl.angularVelocity = spec.angularVelocity;
  body = std::make_unique<ArticulatedBody>(model, pl);
  const std::vector<std::string> names = characterJointNames(spec);
  const auto jointIndex = [&](const std::string& name) { return size_t(std::find(names.begin(), names.end(), name) - names.begin()); };
  std::vector<Quat> pose(model->skeleton.joints.size(), Quat::Identity());
  for (size_t j = 0; j < pose.size() && j < spec.poseAngles.size(); ++j)
    pose[j] = Quat(Eigen::AngleAxisd(spec.poseAngles[j], spec.poseAxis.normalized()));
  for (const auto& [name, v] : spec.poseJoints) pose[jointIndex(name)] = rotationOf(v);
  body->pose(pose);
  std::vector<ArticulatedBody::BoneSpring> springs;
  const std::vector<std::string> bones = characterBoneNames(spec);
  for (const CharacterSpec::Spring& sp : spec.springs) {
    const CoreSpringDesc& k = sp.spring;
    ArticulatedBody::BoneSpring b;
    b.bone = int(std::find(bones.begin(), bones.end(), sp.bone) - bones.begin());
    b.point = k.point;
    b.stiffness = k.stiffness;
    b.damping = k.damping;
    b.anchor = k.hasAnchor ? k.anchor : body->boneSpringPoint(b);
    springs.push_back(b);
  }
  body->setBoneSprings(springs);
  body->setRigidSkin(spec.rigidSkin);
  anchors.clear();
  for (const ArticulatedBody::BoneSpring& b : springs) anchors.push_back(b.anchor);
  for (size_t j = 0; j < gains.size(); ++j) body->setJointGains(int(j), gains[j].first, gains[j].second);
  rest = spec.restAtStart ? pose : std::vector<Quat>(pose.size(), Quat::Identity());
  keys.clear();
  for (const CharacterSpec::TargetKey& k : spec.targets) {
    std::vector<Quat> t = rest;
    for (const auto& [name, v] : k.joints) t[jointIndex(name)] = rotationOf(v);
    keys.push_back(std::move(t));
  }
  setTargets(0);
}

void Character::setGains(int joint, double stiffness, double damping) {
  if (gains.empty())
    for (const Joint& j : model->skeleton.joints) gains.push_back({j.stiffness, j.damping});
  gains[size_t(joint)] = {stiffness, damping};
  body->setJointGains(joint, stiffness, damping);
}

void Character::setTargets(double t) {
  // the keys around t (once for all joints): key i and the fraction s of the way to key i + 1
  const std::vector<CharacterSpec::TargetKey>& k = spec.targets;
  size_t i = 0;
  double s = 0;
  if (!k.empty()) {
    while (i + 1 < k.size() && k[i + 1].time <= t) ++i;
    if (t > k.front().time && i + 1 < k.size()) s = (t - k[i].time) / (k[i + 1].time - k[i].time);
  }
  // the springs' anchors that circle (scene.h: CharacterSpec::Spring)
  std::vector<ArticulatedBody::BoneSpring> springs = body->boneSprings();
  bool moved = false;
  for (size_t n = 0; n < springs.size() && n < spec.springs.size() && n < anchors.size(); ++n) {
    const CharacterSpec::Spring& sp = spec.springs[n];
    if (!(sp.circleRadius > 0)) continue;
    const double a = 2 * kPi * t / sp.circlePeriod;
    springs[n].anchor = anchors[n] + sp.circleRadius * Vec3(std::cos(a) - 1, 0, -std::sin(a));
    moved = true;
  }
  if (moved) body->setBoneSprings(springs);
  for (size_t j = 0; j < rest.size(); ++j) {
    Quat q = k.empty() ? rest[j] : s > 0 ? keys[i][j].slerp(s, keys[i + 1][j]) : keys[i][j];
    if (j < poseEdit.size() && poseEdit[j]) q = rotationOf(*poseEdit[j]);
    body->setJointTarget(int(j), q);
  }
}

void Character::step(double t, double dt, const Vec3& gravity, const std::vector<const Collider*>& colliders,
                     const std::vector<const SurfaceTarget*>& targets) {
  bool finite = true;
  setTargets(t + dt);  // (backward Euler: the springs pull towards the end of the step's target)
  try {
    body->step(dt, gravity, colliders, targets);
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
