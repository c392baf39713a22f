// A body's "morph_targets" (dissertation ch. 5; sim/scene/morph_targets_desc.h), read with
// the scene's checks: every error names the file, the target and the field. The bake
// (sim/morph/morph_targets.cpp) checks what needs the atlas: inverted tetrahedra, a core
// poking out.
#include <algorithm>
#include <cmath>

#include "sim/scene/scene.h"

namespace d2t {

namespace {

// An array of `count` finite numbers at `key` (count < 0: any length >= 1).
std::vector<double> numbers(JsonReader& r, const std::string& key, int count, const std::string& what) {
  const nlohmann::json& v = r.value(key);
  const bool sized = v.is_array() && (count < 0 ? !v.empty() : int(v.size()) == count);
  if (!sized)
    r.fail(key, "expected " +
                    (count < 0 ? std::string("a non-empty array of numbers")
                               : "an array of " + std::to_string(count) + (count == 1 ? " number" : " numbers")) +
                    " (" + what + "), got " + describeJson(v));
  std::vector<double> out;
  for (const auto& x : v) {
    if (!x.is_number() || !std::isfinite(x.get<double>()))
      r.fail(key, "expected finite numbers (" + what + "), got " + describeJson(x));
    out.push_back(x.get<double>());
  }
  return out;
}

Vec3 unitVec(JsonReader& r, const std::string& key, const Vec3& def) {
  const Vec3 a = r.vec3(key, def);
  if (!(a.norm() > 1e-12)) r.fail(key, "expected a non-zero direction, got " + formatVec(a));
  return a.normalized();
}

TargetShapeOp readShapeOp(JsonReader r, const BodyDesc& body) {
  TargetShapeOp op;
  const std::string type = r.requiredString("type", {"bulge", "crease", "scale", "twist", "shape"});
  if (type == "bulge") {
    op.type = TargetShapeOp::Type::Bulge;
    op.center = r.vec3("center", op.center);
    op.amplitude = r.requiredNumber("amplitude", -10, 10);
    op.width = r.number("width", op.width, 0, 100, true);
  } else if (type == "crease") {
    op.type = TargetShapeOp::Type::Crease;
    op.center = r.vec3("center", op.center);
    op.axis = unitVec(r, "axis", Vec3::UnitX());
    op.amplitude = -r.requiredNumber("depth", -10, 10);
    op.width = r.number("width", op.width, 0, 100, true);
  } else if (type == "scale") {
    op.type = TargetShapeOp::Type::Scale;
    op.center = r.vec3("center", op.center);
    const nlohmann::json& f = r.value("factor");
    if (f.is_number()) op.factor = Vec3::Constant(f.get<double>());
    else op.factor = r.vec3("factor", op.factor);
    if (!(op.factor.minCoeff() > 0) || !(op.factor.maxCoeff() < 100))
      r.fail("factor", "expected a factor (or three) in (0, 100), got " + formatVec(op.factor));
  } else if (type == "twist") {
    op.type = TargetShapeOp::Type::Twist;
    op.center = r.vec3("center", op.center);
    op.axis = unitVec(r, "axis", Vec3::UnitY());
    op.rate = r.requiredNumber("rate", -1e5, 1e5);
  } else {
    op.type = TargetShapeOp::Type::Shape;
    op.shape = parseShape(r.object("shape"));
    if (op.shape->topology() != body.shape->topology())
      r.fail("shape", "a target's shape must have the body's topology (" +
                          std::string(body.shape->topology() == ShapeTopology::Torus ? "a torus" : "star-shaped") + ")");
  }
  r.finish();
  return op;
}

}  // namespace

std::vector<double> MorphTargetsDesc::poseAt(double t) const {
  if (track.empty()) return targets.front().pose;
  if (t <= track.front().time) return track.front().value;
  if (t >= track.back().time) return track.back().value;
  const auto it = std::upper_bound(track.begin(), track.end(), t, [](double x, const PoseKey& k) { return x < k.time; });
  const PoseKey &b = *it, &a = *(it - 1);
  const double w = (t - a.time) / (b.time - a.time);
  std::vector<double> s(a.value.size());
  for (size_t k = 0; k < s.size(); ++k) s[k] = a.value[k] + w * (b.value[k] - a.value[k]);
  return s;
}

std::shared_ptr<const MorphTargetsDesc> readMorphTargets(JsonReader& r, const BodyDesc& body) {
  auto d = std::make_shared<MorphTargetsDesc>();
  JsonReader pose = r.object("pose");
  {
    const nlohmann::json& ch = pose.value("channels");
    if (!ch.is_array() || ch.empty() || ch.size() > 64)
      pose.fail("channels", "expected 1 to 64 channel names (the pose's coordinates), got " + describeJson(ch));
    for (const auto& c : ch) {
      if (!c.is_string() || c.get<std::string>().empty())
        pose.fail("channels", "expected non-empty names, got " + describeJson(c));
      if (std::find(d->channels.begin(), d->channels.end(), c.get<std::string>()) != d->channels.end())
        pose.fail("channels", "the channel \"" + c.get<std::string>() + "\" is named twice");
      d->channels.push_back(c.get<std::string>());
    }
  }
  const int dims = int(d->channels.size());
  double last = -1e300;
  for (JsonReader& k : pose.objectArray("track", false)) {
    PoseKey key;
    key.time = k.requiredNumber("time", 0, 1e6);
    if (!(key.time > last))
      k.fail("time", "keyframe times must increase, got " + std::to_string(key.time) + " after " + std::to_string(last));
    last = key.time;
    key.value = numbers(k, "value", dims, "one per channel");
    k.finish();
    d->track.push_back(std::move(key));
  }
  pose.finish();

  std::vector<JsonReader> targets = r.objectArray("targets", true);
  if (targets.empty()) r.fail("targets", "expected at least one target (the first is the body itself)");
  if (targets.size() > 64) r.fail("targets", "at most 64 targets, got " + std::to_string(targets.size()));
  for (size_t k = 0; k < targets.size(); ++k) {
    JsonReader& t = targets[k];
    MorphTargetDesc m;
    m.name = t.string("name", "target" + std::to_string(k));
    for (const MorphTargetDesc& other : d->targets)
      if (other.name == m.name) t.fail("name", "another target is named \"" + m.name + "\"");
    m.pose = numbers(t, "pose", dims, "one per channel");
    for (const MorphTargetDesc& other : d->targets)
      if (other.pose == m.pose)
        t.fail("pose", "the same pose as the target \"" + other.name +
                           "\" (two examples at one pose have no interpolant: give each target its own pose)");
    JsonReader mat(t.node(), t.file());
    if (t.optionalObject("material", &mat)) {
      if (k == 0) t.fail("material", "the first target is the body itself: its material is the body's \"material\"");
      m.hasMaterial = true;
      Material base = body.material;
      m.young = base.young = mat.number("young", body.material.young, 0, 1e12, true);
      m.poisson = base.poisson = mat.number("poisson", body.material.poisson, 0, 0.5, false, true);
      if (mat.has("density"))
        mat.fail("density", "the masses are the body's (the first target's): a target changes only the stiffness");
      for (JsonReader& g : mat.objectArray("regions", false)) {
        if (g.has("density"))
          g.fail("density", "the masses are the body's (the first target's): a target changes only the stiffness");
        m.regions.push_back(readRegion(g, base));
      }
      mat.finish();
    }
    for (JsonReader& op : t.objectArray("shape", false)) {
      if (k == 0) t.fail("shape", "the first target is the body itself: its shape is the body's \"shape\"");
      m.shape.push_back(readShapeOp(op, body));
    }
    t.finish();
    d->targets.push_back(std::move(m));
  }
  JsonReader rbf(r.node(), r.file());
  if (r.optionalObject("rbf", &rbf)) {
    d->smoothing = rbf.number("smoothing", 0, 0, 1e6);
    d->clampWeights = rbf.boolean("clamp_weights", true);
    rbf.finish();
  }
  JsonReader red(r.node(), r.file());
  if (r.optionalObject("reduction", &red)) {
    d->reduced = true;
    d->reduction.modesPerTarget = red.integer("modes_per_target", 20, 1, 200);
    d->reduction.modes = red.integer("modes", 10, 1, 200);
    d->reduction.loadModes = red.boolean("load_modes", true);
    d->reduction.stvk = red.string("elasticity", "linear", {"linear", "stvk"}) == "stvk";
    if (d->reduction.modes > d->reduction.modesPerTarget * int(d->targets.size()))
      red.fail("modes", "at most modes_per_target x targets = " +
                            std::to_string(d->reduction.modesPerTarget * int(d->targets.size())) +
                            " principal components, got " + std::to_string(d->reduction.modes));
    red.finish();
  }
  r.finish();
  return d;
}

}  // namespace d2t
