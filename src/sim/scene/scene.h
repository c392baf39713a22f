#pragma once
// Scene description: what a scene file says, validated, before anything is
// baked or simulated. Y is up, SI units, quaternions [w, x, y, z].
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/json_reader.h"
#include "sim/base/math.h"
#include "sim/contact/response_policies.h"
#include "sim/loads/metaphor.h"
#include "sim/scene/medial_skeleton.h"
#include "sim/scene/morph_targets_desc.h"
#include "sim/scene/shape.h"

namespace d2t {

/// Skin material. Stiffness and density may vary over the body (regions).
struct Material {
  double young = 5e4;        ///< Young's modulus of the skin layer [Pa]
  double poisson = 0.3;      ///< Poisson ratio [-], in [0, 0.5)
  double density = 1000;     ///< mass density of skin and core [kg/m^3]
  double alpha = 0.1;        ///< Rayleigh mass damping D = alpha M + beta K [1/s]
  double beta = 0.01;        ///< Rayleigh stiffness damping [s]
  double friction = 0.5;     ///< Coulomb friction coefficient [-]
  double restitution = 0.2;  ///< coefficient of restitution [-], in [0, 1]
  /// Rolling resistance coefficient C_rr [-]: against colliders, a couple of at most
  /// C_rr N r resists rolling (N the normal force, r the rolling radius), as the
  /// hysteresis of a real rubber skin does (0.01-0.02 for a tyre on concrete).
  double rollingResistance = 0.01;
  /// The fraction of its rest thickness that a crushed skin layer keeps between a node
  /// and the core [-]: the skin bottoms out there (core_contact.h; docs/decisions/0027).
  double minLayer = 0.1;

  bool operator==(const Material&) const = default;
};

/// A part of the body (in the body frame, at rest) with its own young/poisson/density:
/// the points x with normal . x > offset. Later regions override earlier ones.
struct MaterialRegion {
  Vec3 normal = Vec3::UnitX();  ///< unit normal of the half-space boundary (body frame)
  double offset = 0;            ///< [m]
  double young = 5e4;           ///< [Pa]
  double poisson = 0.3;         ///< [-]
  double density = 1000;        ///< [kg/m^3]
  bool contains(const Vec3& x) const { return normal.dot(x) > offset; }
};

/// Frame in which a core spring's attachment point is given.
enum class SpringFrame {
  Shape,  ///< the shape's frame, like the body's position (origin: the shape's origin)
  Body,   ///< the body frame (origin: the core's centre of mass, docs/design.md sec. 2)
};

/// A spring from a point rigidly attached to the body's core to a fixed world
/// anchor (a head held at the neck, issue 7). Integrated implicitly in the
/// condensed core solve (solveCoreWithSprings, sim/body/core/core_springs.h), so stiff springs are stable.
/// Force on the core point p: f = -k (|d| - L) d / |d| - c pdot, d = p - anchor.
struct CoreSpringDesc {
  Vec3 point = Vec3::Zero();       ///< attachment point [m], in `frame`, fixed to the core
  SpringFrame frame = SpringFrame::Shape;
  bool hasAnchor = false;          ///< false: the anchor is the point's world position at the initial pose
  Vec3 anchor = Vec3::Zero();      ///< world anchor [m] (when hasAnchor)
  double stiffness = 0;            ///< k [N/m], > 0
  double damping = 0;              ///< c [N s/m], >= 0 (acts on the point's full velocity)
  double restLength = 0;           ///< L [m], >= 0
};

/// One deformable layered body.
struct BodyDesc {
  std::string name;
  ShapePtr shape;              ///< rest skin surface g
  double coreScale = 0.6;      ///< core = shape scaled toward its centre (when coreShape is null)
  ShapePtr coreShape;          ///< explicit core surface f (optional)
  int atlasResolution = 64;    ///< N of the N x N atlas (power of two)
  Material material;
  std::vector<MaterialRegion> regions;  ///< heterogeneous material (optional)
  Vec3 position = Vec3::Zero();          ///< world position of the shape's origin [m]
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();          ///< world linear velocity [m/s]
  Vec3 angularVelocity = Vec3::Zero();   ///< world angular velocity [rad/s]
  std::vector<CoreSpringDesc> springs;   ///< core-to-world springs (optional)
  /// What was done to a mesh closed by a repair before it was baked (MeshRepair::summary;
  /// empty when the shape was used as it is).
  std::string repair;
  /// Hold the core still (the skin moves about it): a body fixed to the world.
  bool fixedCore = false;
  /// Dynamic morph targets (ch. 5; null: none): example shapes and materials blended by pose.
  std::shared_ptr<const MorphTargetsDesc> morph;

  /// Material at a rest point x (body frame), regions applied.
  Material materialAt(const Vec3& x) const;
};

/// One keyframe of a scripted collider motion.
struct Keyframe {
  double time = 0;                       ///< [s]
  Vec3 position = Vec3::Zero();          ///< [m]
  Quat orientation = Quat::Identity();
};

enum class ColliderType { Plane, HeightField, Mesh };

/// Static, kinematic (scripted / dragged) rigid surfaces.
struct ColliderDesc {
  std::string name;
  ColliderType type = ColliderType::Plane;
  // plane: points x with normal . x = offset; the solid side is normal . x < offset
  Vec3 normal = Vec3::UnitY();
  double offset = 0;            ///< [m]
  // heightfield: y = height(x, z) over a square of side `size` centred at `position`
  double size = 10;             ///< [m]
  double amplitude = 0.1;       ///< ridge height [m]
  double wavelength = 1.0;      ///< ridge spacing [m]
  int resolution = 128;         ///< grid cells per side
  // mesh
  ShapePtr shape;
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
  bool draggable = false;
  std::vector<Keyframe> keyframes;  ///< scripted motion (piecewise linear, held at the ends)
  double friction = 0.5;            ///< [-]
};

struct SolverSettings {
  std::string method = "auto";  ///< auto | cg | direct (sparse LDL^T)
  int iterations = 50;          ///< maximum CG iterations per solve
  double tolerance = 1e-6;      ///< relative residual

  bool operator==(const SolverSettings&) const = default;
};

struct SimulationSettings {
  double dt = 0.005;                       ///< time step [s]
  Vec3 gravity = Vec3(0, -9.81, 0);        ///< [m/s^2]
  std::string backend = "cpu";             ///< cpu | gpu
  SolverSettings solver;
  ResponsePolicies response;               ///< the contact response's units, each on or off

  bool operator==(const SimulationSettings& o) const {
    return dt == o.dt && gravity == o.gravity && backend == o.backend && solver == o.solver && response == o.response;
  }
};

struct CameraDesc {
  Vec3 eye = Vec3(2.5, 1.8, 3.5);
  Vec3 target = Vec3(0, 0.4, 0);
  double fovY = 45;  ///< vertical field of view [deg]
};

/// A soft articulated character (dissertation ch. 4) as a scene gives it: a procedural
/// model (tube, snake, deer), its skeleton's joints, its skin's node count, material and
/// placement (sim/character builds it: characterDesc()). In "bodies", with a shape of one of
/// these types; or "mesh": a body whose shape the cube-map atlas cannot hold (an OBJ that is
/// not star-shaped, or open; a solid procedural shape), closed and re-meshed by
/// repairMesh (mesh_repair.h), on the general surface layout with one bone or bones along
/// its medial axis (mesh_character.h).
/// The node count a mesh body's surface is closed and re-meshed at when "mesh": { "nodes" }
/// does not say.
constexpr int kMeshBodyNodes = 1500;

struct CharacterSpec {
  std::string name;
  std::string model = "tube";  ///< tube | snake | deer | mesh
  /// mesh: the closed skin surface, about its centre of mass (the bind frame), and what was
  /// done to the user's shape to make it (MeshRepair::summary)
  std::shared_ptr<const TriMesh> surface;
  std::string repair;
  /// mesh: the skeleton from the surface's medial axis ("skeleton": { "from": "medial_axis" }:
  /// bones "bone0", "bone1", ..., joints named by their child); none: one bone, "core"
  MedialSkeleton medial;
  double radius = 0.1;         ///< tube [m]
  double length = 1.7;         ///< tube, along the body's x axis [m]
  int bones = 5;               ///< tube: k equal bones (snake 16, deer 34)
  std::string joint;           ///< ball | hinge | fixed: every joint's type ("": the model's own)
  Vec3 hingeAxis = Vec3::UnitZ();  ///< (hinge) in the body's frame
  double stiffness = 50;       ///< joint springs to the rest pose [N m/rad] (mesh: < 0, scaled to the body)
  double damping = 1;          ///< [N m s/rad] (mesh: < 0, scaled to the body)
  double limitAngle = 0;       ///< every joint's largest angle away from its bind pose [rad] (0: none)
  int nodes = 292;             ///< the skin's target node count
  double coreScale = 0.6;
  double blend = 1.0;          ///< the skinning weights' falloff (sigma = blend r / 2)
  int maxInfluences = 4;
  Material material;
  /// A set of joints' relative rotations from the bind pose, each a rotation vector in the
  /// body's frame [rad], by joint name (a joint is named by its child bone).
  using JointRotations = std::vector<std::pair<std::string, Vec3>>;
  /// The starting pose: each joint's angle about `poseAxis` (body frame) [rad], and/or the
  /// named joints' rotations; the rest straight (the bind pose).
  std::vector<double> poseAngles;
  Vec3 poseAxis = Vec3::UnitY();
  JointRotations poseJoints;
  /// The springs' rest pose: "bind" (straight) or "start" (the starting pose).
  bool restAtStart = false;
  /// Keyframed spring targets: at `time` the named joints' targets (the others at the rest
  /// pose), slerped between keys, held before the first and after the last.
  struct TargetKey {
    double time = 0;  ///< [s]
    JointRotations joints;
  };
  std::vector<TargetKey> targets;
  /// Springs from a point of a named bone (the point in the body's frame at bind) to a world
  /// anchor (default: where the point starts); rest length 0. The anchor may circle in the
  /// horizontal plane (radius > 0: starting at the anchor, about the point `radius` towards
  /// -x from it, counter-clockwise seen from above, once a `period`).
  struct Spring {
    std::string bone;
    CoreSpringDesc spring;
    double circleRadius = 0;  ///< [m]
    double circlePeriod = 0;  ///< [s]
  };
  std::vector<Spring> springs;
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();
  Vec3 angularVelocity = Vec3::Zero();
  /// The rigid-skin comparison mode (Fig. 4.7): q held at zero, contacts on the bones alone.
  bool rigidSkin = false;
  /// Contact of the skin with itself (self_contact.h); off: parts of it may pass through each
  /// other (the comparison, or a character that cannot fold onto itself, spared the cost).
  bool selfCollision = true;
};

/// The joints' names of a scene's character model, in the model's joint order: a joint is
/// named by its child bone (tube and snake: "bone1", "bone2", ...; the deer: deer.h).
std::vector<std::string> characterJointNames(const CharacterSpec& c);
/// The bones' names of a scene's character model, in the model's order.
std::vector<std::string> characterBoneNames(const CharacterSpec& c);

struct Scene {
  std::string file;          ///< path it was loaded from ("" when built in code)
  std::string description;
  SimulationSettings simulation;
  std::vector<BodyDesc> bodies;
  std::vector<CharacterSpec> characters;  ///< ("bodies" whose shape is a tube, a snake or a deer)
  std::vector<ColliderDesc> colliders;
  std::vector<MetaphorDesc> metaphors;  ///< localized control metaphors on the bodies (issue 30)
  CameraDesc camera;
};

/// Reads "metaphors" (metaphor_reader.cpp): after the bodies, whose names they refer to.
void readMetaphors(JsonReader& root, Scene* scene);
/// One metaphor object; with a scene, its body must be one of the scene's atlas bodies.
MetaphorDesc readMetaphor(JsonReader& r, int index, const Scene* scene);
/// A metaphor object as a scene gives it (every field; doubles read back to the same bits).
nlohmann::json toJson(const MetaphorDesc& metaphor);
/// The scene's checks of a metaphor made elsewhere (a panel, an input): InputError
/// "WHERE: /metaphor/FIELD: expected ...".
MetaphorDesc checkedMetaphor(const MetaphorDesc& metaphor, const std::string& where);

/// The same checks as a scene's "material" object (InputError "WHERE: /material/FIELD: expected ...").
Material checkedMaterial(const Material& m, const std::string& where);
/// A "material" object as a scene gives it (every field; doubles read back to the same bits).
nlohmann::json toJson(const Material& m);
/// Reads one (the scene's checks; the fields it does not give keep Material's defaults).
Material readMaterial(JsonReader& r);
/// One of a "material"'s "regions" ({ "half_space": { "normal", "offset" }, "young", "poisson",
/// "density" }; what it does not give, `base`'s).
MaterialRegion readRegion(JsonReader r, const Material& base);
/// A body's "morph_targets" (morph_reader.cpp): every error names the target and the field.
std::shared_ptr<const MorphTargetsDesc> readMorphTargets(JsonReader& r, const BodyDesc& body);

/// A "simulation" object as a scene gives it, and its reader (with the scene's checks).
nlohmann::json toJson(const SimulationSettings& settings);
SimulationSettings readSimulation(JsonReader& r);

/// Loads and validates a scene file. Throws InputError
/// "FILE: /json/path: expected ..., got ..." on any problem.
Scene loadScene(const std::string& path);
/// A scene file's JSON (InputError: not found, a directory, malformed), unparsed.
nlohmann::json readSceneFile(const std::string& path);
/// Same from already-parsed JSON (`file` names it in messages, resolves relative paths).
Scene parseScene(const nlohmann::json& root, const std::string& file);

}  // namespace d2t
