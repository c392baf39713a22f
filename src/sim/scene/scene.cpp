#include "sim/scene/scene.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "sim/scene/medial_skeleton.h"
#include "sim/scene/mesh_repair.h"
#include "sim/scene/obj_loader.h"

namespace d2t {

Material readMaterial(JsonReader& r) {
  Material m;
  m.young = r.number("young", m.young, 0, 1e12, /*loOpen=*/true);
  m.poisson = r.number("poisson", m.poisson, 0, 0.5, false, /*hiOpen=*/true);
  m.density = r.number("density", m.density, 0, 1e6, true);
  if (r.has("damping")) {
    const Vec2 d = r.vec2("damping", Vec2(m.alpha, m.beta));
    if (d[0] < 0 || d[1] < 0)
      r.fail("damping", "expected [alpha >= 0, beta >= 0] (Rayleigh), got [" +
                            std::to_string(d[0]) + ", " + std::to_string(d[1]) + "]");
    m.alpha = d[0];
    m.beta = d[1];
  }
  m.friction = r.number("friction", m.friction, 0, 10);
  m.restitution = r.number("restitution", m.restitution, 0, 1);
  m.rollingResistance = r.number("rolling_resistance", m.rollingResistance, 0, 1);
  m.minLayer = r.number("min_layer", m.minLayer, 0, 0.9);
  return m;
}

nlohmann::json toJson(const Material& m) {
  return {{"young", m.young},       {"poisson", m.poisson},
          {"density", m.density},   {"damping", {m.alpha, m.beta}},
          {"friction", m.friction}, {"restitution", m.restitution},
          {"rolling_resistance", m.rollingResistance}, {"min_layer", m.minLayer}};
}

Material checkedMaterial(const Material& m, const std::string& where) {
  const nlohmann::json j = toJson(m);
  JsonReader r(j, where, "/material");
  return readMaterial(r);
}

MaterialRegion readRegion(JsonReader r, const Material& base) {
  MaterialRegion g;
  g.young = base.young;
  g.poisson = base.poisson;
  g.density = base.density;
  JsonReader hs(r.node(), r.file());
  if (!r.optionalObject("half_space", &hs)) r.fail("half_space", "required field is missing");
  const Vec3 n = hs.vec3("normal", Vec3::UnitX());
  if (n.norm() < 1e-12) hs.fail("normal", "must be a non-zero vector");
  g.normal = n.normalized();
  g.offset = hs.number("offset", 0, -1e6, 1e6);
  hs.finish();
  g.young = r.number("young", g.young, 0, 1e12, true);
  g.poisson = r.number("poisson", g.poisson, 0, 0.5, false, true);
  g.density = r.number("density", g.density, 0, 1e6, true);
  r.finish();
  return g;
}

namespace {

CoreSpringDesc readSpring(JsonReader r) {
  CoreSpringDesc k;
  if (!r.has("point")) r.fail("point", "required field is missing (the attachment point on the core [m])");
  k.point = r.vec3("point", k.point);
  k.frame = r.string("frame", "shape", {"shape", "body"}) == "body" ? SpringFrame::Body : SpringFrame::Shape;
  k.hasAnchor = r.has("anchor");
  k.anchor = r.vec3("anchor", k.anchor);
  k.stiffness = r.requiredNumber("stiffness", 0, 1e12, /*loOpen=*/true);
  k.damping = r.number("damping", 0, 0, 1e12);
  k.restLength = r.number("rest_length", 0, 0, 1e6);
  if (k.restLength > 0 && !k.hasAnchor)
    r.fail("rest_length", "a spring with a rest length needs an explicit \"anchor\" (without one the "
                          "anchor is the point itself, at distance 0, where the spring has no direction)");
  r.finish();
  return k;
}

// A body on the atlas, its shape (star-shaped or a torus) already read by parseScene;
// `repair`: what closed it, when it was repaired (then "mesh": { "nodes" } is its node count,
// read again here).
BodyDesc readBody(JsonReader r, int index, ShapePtr shape, const MeshRepair* repair) {
  BodyDesc b;
  b.name = r.string("name", "body" + std::to_string(index));
  b.shape = std::move(shape);
  if (repair) {
    b.repair = repair->summary();
    JsonReader mesh(r.node(), r.file());
    if (r.optionalObject("mesh", &mesh)) {
      mesh.integer("nodes", repair->nodes, 20, 200000);
      mesh.finish();
    }
  }
  JsonReader core(r.node(), r.file());
  if (r.optionalObject("core", &core)) {
    const bool hasScale = core.has("scale"), hasShape = core.has("shape");
    if (hasScale && hasShape) core.failHere("give either \"scale\" or \"shape\", not both");
    b.coreScale = core.number("scale", b.coreScale, 0.05, 0.98);
    if (hasShape) {
      b.coreShape = parseShape(core.object("shape"));
      if (b.coreShape->topology() != b.shape->topology())
        core.fail("shape", "the core must have the same topology as the skin shape");
    }
    core.finish();
  }
  JsonReader atlas(r.node(), r.file());
  if (r.optionalObject("atlas", &atlas)) {
    b.atlasResolution = atlas.integer("resolution", b.atlasResolution, 1, 1 << 30);
    const int n = b.atlasResolution;
    if (n < 16 || n > 1024 || (n & (n - 1)) != 0)
      atlas.fail("resolution", "must be a power of two in [16, 1024], got " + std::to_string(n));
    atlas.finish();
  }
  JsonReader mat(r.node(), r.file());
  if (r.optionalObject("material", &mat)) {
    std::vector<JsonReader> regions = mat.objectArray("regions", false);
    b.material = readMaterial(mat);
    for (auto& g : regions) b.regions.push_back(readRegion(g, b.material));
    mat.finish();
  }
  b.position = r.vec3("position", b.position);
  b.orientation = r.quat("orientation", b.orientation);
  b.velocity = r.vec3("velocity", b.velocity);
  b.angularVelocity = r.vec3("angular_velocity", b.angularVelocity);
  for (auto& k : r.objectArray("springs", false)) b.springs.push_back(readSpring(k));
  b.fixedCore = r.boolean("fixed_core", false);
  JsonReader morph(r.node(), r.file());
  if (r.optionalObject("morph_targets", &morph)) b.morph = readMorphTargets(morph, b);
  r.finish();
  return b;
}

// A joint-rotation object { "JOINT": [rx, ry, rz], ... } (rotation vectors [rad], body frame),
// its names checked against the model's joints.
CharacterSpec::JointRotations readJointRotations(JsonReader r, const std::vector<std::string>& names) {
  CharacterSpec::JointRotations out;
  for (auto it = r.node().begin(); it != r.node().end(); ++it) {
    if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
      std::string list;
      for (size_t i = 0; i < names.size() && i < 40; ++i) list += (i ? ", " : "") + names[i];
      r.fail(it.key(), "no joint of that name (a joint is named by its child bone: " + list + ")");
    }
    const Vec3 v = r.vec3(it.key(), Vec3::Zero());
    if (v.norm() > kPi) r.fail(it.key(), "a rotation vector of at most pi rad, got " + std::to_string(v.norm()) + " rad");
    out.push_back({it.key(), v});
  }
  r.finish();
  return out;
}

// A procedural character's shape: { "type": "tube" | "snake" | "deer", "radius", "length" }.
void readCharacterShape(JsonReader shape, CharacterSpec* out) {
  CharacterSpec& c = *out;
  c.model = shape.requiredString("type", {"tube", "snake", "deer"});
  if (c.model == "snake") {
    c.bones = 16;
    c.nodes = 3102;
  } else if (c.model == "deer") {
    c.bones = 34;
    c.nodes = 2755;
    c.stiffness = 3000;
    c.damping = 20;
  } else {
    c.radius = shape.number("radius", c.radius, 0, 10, true);
    c.length = shape.number("length", c.length, 0, 100, true);
    if (!(c.length > 2 * c.radius))
      shape.fail("length", "must be longer than the two end caps (2 x radius = " + std::to_string(2 * c.radius) +
                               " m), got " + std::to_string(c.length));
  }
  shape.finish();
}

// A character: { "name", "shape": { "type": "tube" | "snake" | "deer", "radius", "length" },
// "skeleton": { "bones", "joint", "axis", "stiffness", "damping", "limits": { "angle" },
// "pose": { "axis", "angles", "joints" }, "rest", "targets": [ { "time", "joints" } ] },
// "mesh": { "nodes" }, "weights": { "blend", "max_influences" }, "core": { "scale" },
// "material", "position", "orientation", "velocity", "angular_velocity", "springs",
// "rigid_skin", "self_collision" }. With `surface` (parseScene closed the body's shape), a
// mesh body: its shape is that surface, with one bone or, given "skeleton": { "from":
// "medial_axis", "bones" } and the joints' keys, a skeleton from its medial axis.
CharacterSpec readCharacter(JsonReader r, int index, const MeshRepair* surface) {
  CharacterSpec c;
  c.name = r.string("name", "body" + std::to_string(index));
  if (surface) {  // (its shape was read and closed by parseScene)
    c.model = "mesh";
    c.nodes = surface->nodes;
    TriMesh skin = surface->mesh;  // about its centre of mass: the bind frame
    skin.transform(Mat3::Identity(), -skin.massProperties(1.0).com);
    c.surface = std::make_shared<const TriMesh>(std::move(skin));
    c.repair = surface->summary();
    if (!r.has("skeleton") && r.has("weights"))
      r.fail("weights", "a mesh body without a skeleton has one bone: every weight is 1; remove the key");
  } else {
    readCharacterShape(r.object("shape"), &c);
  }

  JsonReader sk(r.node(), r.file());
  if (r.optionalObject("skeleton", &sk)) {
    if (c.model == "tube") c.bones = sk.integer("bones", c.bones, 1, 64);
    if (c.model == "mesh") {  // (one bone "core" unless the skeleton comes from the medial axis)
      if (!sk.has("from"))
        sk.fail("from", "a mesh body has one bone (\"core\"), or bones along its medial axis with \"from\": "
                        "\"medial_axis\"; got no \"from\"");
      sk.requiredString("from", {"medial_axis"});
      const int bones = sk.integer("bones", 4, 1, 64);
      try {
        c.medial = medialSkeleton(*c.surface, bones, surface->source);
      } catch (const InputError& e) {
        sk.fail("from", e.what());
      }
      c.repair += "; a skeleton from its medial axis: " + c.medial.summary();
    }
    const std::vector<std::string> names = characterJointNames(c);
    if (sk.has("joint")) c.joint = sk.string("joint", "ball", {"ball", "hinge", "fixed"});
    c.hingeAxis = sk.vec3("axis", c.hingeAxis);
    if (c.hingeAxis.norm() < 1e-9) sk.fail("axis", "must be a nonzero vector");
    c.stiffness = sk.number("stiffness", c.stiffness, 0, 1e9);
    c.damping = sk.number("damping", c.damping, 0, 1e9);
    if (c.model == "mesh") {  // (unsaid: scaled to the body, mesh_character.h)
      if (!sk.has("stiffness")) c.stiffness = -1;
      if (!sk.has("damping")) c.damping = -1;
    }
    JsonReader limits(r.node(), r.file());
    if (sk.optionalObject("limits", &limits)) {
      c.limitAngle = limits.requiredNumber("angle", 0, kPi, true);
      limits.finish();
    }
    JsonReader pose(r.node(), r.file());
    if (sk.optionalObject("pose", &pose)) {
      c.poseAxis = pose.vec3("axis", c.poseAxis);
      if (c.poseAxis.norm() < 1e-9) pose.fail("axis", "must be a nonzero vector");
      if (pose.has("angles")) {
        const nlohmann::json& a = pose.value("angles");
        if (!a.is_array() || int(a.size()) != int(names.size()))
          pose.fail("angles", "expected an array of " + std::to_string(names.size()) +
                                  " angles [rad] (one per joint), got " + describeJson(a));
        for (const auto& x : a) {
          if (!x.is_number() || !std::isfinite(x.get<double>()) || std::abs(x.get<double>()) > kPi)
            pose.fail("angles", "each angle must be a number in [-pi, pi], got " + describeJson(x));
          c.poseAngles.push_back(x.get<double>());
        }
      }
      JsonReader joints(r.node(), r.file());
      if (pose.optionalObject("joints", &joints)) c.poseJoints = readJointRotations(joints, names);
      pose.finish();
    }
    c.restAtStart = sk.string("rest", "bind", {"bind", "start"}) == "start";
    double last = -1e300;
    for (JsonReader& key : sk.objectArray("targets", false)) {
      CharacterSpec::TargetKey k;
      k.time = key.requiredNumber("time", 0, 1e6);
      if (k.time <= last) key.fail("time", "keys must come in increasing time, got " + std::to_string(k.time) + " s after " + std::to_string(last) + " s");
      last = k.time;
      k.joints = readJointRotations(key.object("joints"), names);
      key.finish();
      c.targets.push_back(k);
    }
    sk.finish();
  }
  JsonReader mesh(r.node(), r.file());
  if (r.optionalObject("mesh", &mesh)) {
    c.nodes = mesh.integer("nodes", c.nodes, 20, 200000);
    mesh.finish();
  }
  JsonReader weights(r.node(), r.file());
  if (r.optionalObject("weights", &weights)) {
    c.blend = weights.number("blend", c.blend, 0, 10, true);
    c.maxInfluences = weights.integer("max_influences", c.maxInfluences, 1, 4);
    weights.finish();
  }
  JsonReader core(r.node(), r.file());
  if (r.optionalObject("core", &core)) {
    c.coreScale = core.number("scale", c.coreScale, 0.05, 0.95);
    core.finish();
  }
  JsonReader mat(r.node(), r.file());
  if (r.optionalObject("material", &mat)) {
    c.material = readMaterial(mat);
    mat.finish();
  }
  c.position = r.vec3("position", c.position);
  c.orientation = r.quat("orientation", c.orientation);
  c.velocity = r.vec3("velocity", c.velocity);
  c.rigidSkin = r.boolean("rigid_skin", false);
  c.selfCollision = r.boolean("self_collision", true);
  c.angularVelocity = r.vec3("angular_velocity", c.angularVelocity);
  const std::vector<std::string> bones = characterBoneNames(c);
  for (JsonReader& k : r.objectArray("springs", false)) {
    const std::string bone = k.requiredString("bone", bones);
    if (k.has("rest_length"))
      k.fail("rest_length", "a character's springs have no rest length (they pull the point onto the anchor)");
    if (k.has("frame")) k.fail("frame", "a character's spring point is in the body's frame at the bind pose; remove the key");
    CharacterSpec::Spring spring{bone, CoreSpringDesc{}};
    if (k.has("circle")) {
      JsonReader circle = k.object("circle");
      spring.circleRadius = circle.number("radius", 0.5, 0, 1e3, true);
      spring.circlePeriod = circle.number("period", 4, 1e-3, 1e6, true);
      circle.finish();
    }
    spring.spring = readSpring(k);
    c.springs.push_back(spring);
  }
  r.finish();
  return c;
}

bool isCharacter(const JsonReader& r) {
  if (!r.node().is_object() || !r.node().contains("shape") || !r.node()["shape"].is_object()) return false;
  const nlohmann::json& shape = r.node()["shape"];
  if (!shape.contains("type") || !shape["type"].is_string()) return false;
  const std::string t = shape["type"].get<std::string>();
  return t == "tube" || t == "snake" || t == "deer";
}

ColliderDesc readCollider(JsonReader r, int index) {
  ColliderDesc c;
  c.name = r.string("name", "collider" + std::to_string(index));
  const std::string type = r.requiredString("type", {"plane", "heightfield", "mesh"});
  if (type == "plane") {
    c.type = ColliderType::Plane;
    const Vec3 n = r.vec3("normal", c.normal);
    if (n.norm() < 1e-12) r.fail("normal", "must be a non-zero vector, got [0, 0, 0]");
    c.normal = n.normalized();
    c.offset = r.number("offset", 0, -1e6, 1e6);
  } else if (type == "heightfield") {
    c.type = ColliderType::HeightField;
    c.size = r.number("size", c.size, 0, 1e4, true);
    c.amplitude = r.number("amplitude", c.amplitude, 0, 1e3);
    c.wavelength = r.number("wavelength", c.wavelength, 0, 1e4, true);
    c.resolution = r.integer("resolution", c.resolution, 2, 4096);
  } else {
    c.type = ColliderType::Mesh;
    c.shape = parseShape(r.object("shape"));
  }
  if (type != "plane") {
    c.position = r.vec3("position", c.position);
    c.orientation = r.quat("orientation", c.orientation);
  }
  c.draggable = r.boolean("draggable", false);
  c.friction = r.number("friction", c.friction, 0, 10);
  std::vector<JsonReader> keys = r.objectArray("keyframes", false);
  double last = -1;
  for (auto& k : keys) {
    Keyframe f;
    f.time = k.requiredNumber("time", 0, 1e6);
    if (f.time <= last) k.fail("time", "keyframe times must increase, got " + std::to_string(f.time) +
                                           " after " + std::to_string(last));
    last = f.time;
    f.position = k.vec3("position", c.position);
    f.orientation = k.quat("orientation", c.orientation);
    k.finish();
    c.keyframes.push_back(f);
  }
  if (!c.keyframes.empty() && type == "plane")
    r.fail("keyframes", "a plane collider cannot be animated; use a mesh collider");
  r.finish();
  return c;
}

}  // namespace

namespace {

// The response policies by their names in "simulation": { "response": { ... } }.
constexpr std::pair<const char*, bool ResponsePolicies::*> kResponseFlags[] = {
    {"one_sided", &ResponsePolicies::oneSided},
    {"support", &ResponsePolicies::support},
    {"restitution", &ResponsePolicies::restitution},
    {"friction", &ResponsePolicies::friction},
    {"energy_guard", &ResponsePolicies::energyGuard},
    {"shock_propagation", &ResponsePolicies::shockPropagation},
    {"pair_support_balance", &ResponsePolicies::pairSupportBalance},
    {"pair_impulse_balance", &ResponsePolicies::pairImpulseBalance},
    {"patch_friction", &ResponsePolicies::patchFriction},
    {"correction", &ResponsePolicies::correction},
    {"skin_on_core", &ResponsePolicies::skinOnCore},
};

}  // namespace

SimulationSettings readSimulation(JsonReader& sim) {
  SimulationSettings t;
  t.dt = sim.number("dt", t.dt, 1e-6, 0.1);
  t.gravity = sim.vec3("gravity", t.gravity);
  t.backend = sim.string("backend", t.backend, {"cpu", "gpu"});
  for (const auto& [old, now] : {std::pair{"one_sided_contact", "one_sided"}, {"contact_support", "support"}})
    if (sim.has(old)) sim.fail(old, std::string("moved to simulation/response/") + now);
  JsonReader response(sim.node(), sim.file());
  if (sim.optionalObject("response", &response)) {
    for (const auto& [name, flag] : kResponseFlags) t.response.*flag = response.boolean(name, t.response.*flag);
    response.finish();
  }
  JsonReader solver(sim.node(), sim.file());
  if (sim.optionalObject("solver", &solver)) {
    t.solver.method = solver.string("method", t.solver.method, {"auto", "cg", "direct", "cg_dilu"});
    t.solver.iterations = solver.integer("iterations", t.solver.iterations, 1, 10000);
    t.solver.tolerance = solver.number("tolerance", t.solver.tolerance, 0, 1, true, true);
    solver.finish();
  }
  sim.finish();
  return t;
}

nlohmann::json toJson(const SimulationSettings& t) {
  nlohmann::json response = nlohmann::json::object();
  for (const auto& [name, flag] : kResponseFlags) response[name] = t.response.*flag;
  return {{"dt", t.dt},
          {"gravity", {t.gravity.x(), t.gravity.y(), t.gravity.z()}},
          {"backend", t.backend},
          {"response", response},
          {"solver", {{"method", t.solver.method}, {"iterations", t.solver.iterations}, {"tolerance", t.solver.tolerance}}}};
}

// BodyDesc::materialAt lives with the bake (body_desc.cpp).

Scene parseScene(const nlohmann::json& root, const std::string& file) {
  Scene s;
  s.file = file;
  JsonReader r(root, file);
  if (!root.is_object()) r.failHere("a scene must be a JSON object, got " + describeJson(root));
  s.description = r.string("description", "");
  JsonReader sim(root, file);
  if (r.optionalObject("simulation", &sim)) s.simulation = readSimulation(sim);
  std::vector<JsonReader> bodies = r.objectArray("bodies", false);
  for (size_t i = 0; i < bodies.size(); ++i) {
    JsonReader& b = bodies[i];
    if (isCharacter(b)) {
      s.characters.push_back(readCharacter(b, int(i), nullptr));
      continue;
    }
    ShapePtr shape = parseShape(b.object("shape"));
    if (shape->topology() != ShapeTopology::Solid) {
      s.bodies.push_back(readBody(b, int(i), std::move(shape), nullptr));
      continue;
    }
    // a shape the atlas cannot hold as it is: closed (and re-meshed) at the node count asked;
    // star-shaped then (an open sphere, say), it goes on the atlas, else (or asked for a
    // skeleton) on the general layout
    int nodes = kMeshBodyNodes;
    JsonReader peek = b, mesh(root, file);
    if (peek.optionalObject("mesh", &mesh)) nodes = mesh.integer("nodes", nodes, 20, 200000);
    MeshRepair closed;
    try {
      std::function<double(const Vec3&)> exact;  // (a soup with open parts has no inside of its own)
      if (shape->hasInside()) exact = [&shape](const Vec3& x) { return shape->signedDistance(x); };
      closed = repairMesh(shape->mesh(64), nodes, shape->source(), exact);
    } catch (const InputError& e) {
      b.fail("shape", e.what());
    }
    if (closed.starShaped && !b.has("skeleton")) {  // (asked for bones, it is a character)
      TriMesh m = closed.mesh;
      m.transform(Mat3::Identity(), -m.massProperties(1.0).com);
      s.bodies.push_back(readBody(b, int(i), makeMeshShape(std::move(m), shape->source()), &closed));
    } else {
      s.characters.push_back(readCharacter(b, int(i), &closed));
    }
  }
  std::vector<JsonReader> colliders = r.objectArray("colliders", false);
  for (size_t i = 0; i < colliders.size(); ++i)
    s.colliders.push_back(readCollider(colliders[i], int(i)));
  readMetaphors(r, &s);
  JsonReader cam(root, file);
  if (r.optionalObject("camera", &cam)) {
    s.camera.eye = cam.vec3("eye", s.camera.eye);
    s.camera.target = cam.vec3("target", s.camera.target);
    s.camera.fovY = cam.number("fov", s.camera.fovY, 1, 170);
    if ((s.camera.eye - s.camera.target).norm() < 1e-9)
      cam.fail("eye", "must differ from target");
    cam.finish();
  }
  r.finish();
  // names are how panels, metrics and tests refer to things: keep them unique
  std::vector<std::string> names;
  for (const auto& b : s.bodies) names.push_back(b.name);
  for (const auto& c : s.characters) names.push_back(c.name);
  for (const auto& c : s.colliders) names.push_back(c.name);
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j])
        throw InputError(file + ": duplicate name \"" + names[i] +
                         "\" (bodies and colliders need unique names)");
  return s;
}

nlohmann::json readSceneFile(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path + ": scene file not found");
  if (std::filesystem::is_directory(path)) throw InputError(path + ": is a directory, expected a scene .json file");
  return readJsonFile(path);
}

Scene loadScene(const std::string& path) { return parseScene(readSceneFile(path), path); }

}  // namespace d2t
