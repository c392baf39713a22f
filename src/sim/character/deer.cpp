// The procedural deer (deer.h).
#include "sim/character/deer.h"

#include <algorithm>
#include <cmath>

#include "sim/base/json_reader.h"
#include "sim/character/deer_rig.h"
#include "sim/character/inner_surface.h"
#include "sim/scene/surface_nets.h"

namespace d2t {

namespace {

// a round cone's (approximate) signed distance: the segment's nearest point, less the radius there
double roundCone(const Vec3& x, const DeerBone& b, Vec3* nearest = nullptr) {
  const Vec3 d = b.tail - b.head;
  const double t = std::clamp((x - b.head).dot(d) / d.squaredNorm(), 0.0, 1.0);
  const Vec3 c = b.head + t * d;
  if (nearest) *nearest = c;
  return (x - c).norm() - (b.r0 + t * (b.r1 - b.r0));
}

// polynomial smooth minimum of blend width k (fills the creases between the cones)
double smoothMin(double a, double b, double k) {
  const double h = std::max(k - std::abs(a - b), 0.0) / k;
  return std::min(a, b) - 0.25 * h * h * k;
}

}  // namespace

CharacterDesc deerCharacter(const std::string& name, const DeerSpec& spec, const Material& material) {
  const std::string owner = "character '" + name + "'";
  if (spec.nodes < 500 || spec.nodes > 100000)
    throw InputError(owner + ": mesh.nodes: the deer takes 500..100000 nodes, got " + std::to_string(spec.nodes));
  if (!(spec.coreScale > 0 && spec.coreScale < 1))
    throw InputError(owner + ": core.scale: must be in (0, 1), got " + std::to_string(spec.coreScale));

  // ---- skeleton: bone i's name is its stem and side; joints to the parents --------------------
  const std::vector<DeerBone> parts = deerBones();
  const std::vector<std::string> names = deerBoneNames();
  CharacterDesc d;
  d.name = name;
  d.material = material;
  Skeleton& sk = d.skeleton;
  for (size_t i = 0; i < parts.size(); ++i) {
    Bone bone;
    bone.name = names[i];
    bone.head = parts[i].head;
    bone.tail = parts[i].tail;
    bone.radius = 0.5 * (parts[i].r0 + parts[i].r1);
    sk.bones.push_back(bone);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (std::string(parts[i].parent).empty()) continue;
    const bool leg = i >= 14;
    const std::string parent = std::string(parts[i].parent) +
                               (leg && std::string(parts[i].parent) != "thorax2" && std::string(parts[i].parent) != "pelvis"
                                    ? ((i - 14) / 10 == 0 ? "_l" : "_r")
                                    : "");
    Joint j;
    j.type = parts[i].hinge ? JointType::Hinge : JointType::Ball;
    j.parent = int(std::find(names.begin(), names.end(), parent) - names.begin());
    j.child = int(i);
    j.anchor = parts[i].head;
    j.axis = Vec3::UnitZ();  // (the hinges: knees, elbows, carpi, hocks, fetlocks bend in the body's plane)
    j.stiffness = spec.stiffness;
    j.damping = spec.damping;
    sk.joints.push_back(j);
  }

  // ---- skin: the flesh's surface, meshed ------------------------------------------------------------
  ImplicitShape flesh;
  flesh.distance = [parts](const Vec3& x) {
    double f = 1e300;
    for (const DeerBone& b : parts) f = smoothMin(f, roundCone(x, b), 0.04);
    return f;
  };
  flesh.lo = Vec3::Constant(1e300);
  flesh.hi = Vec3::Constant(-1e300);
  for (const DeerBone& b : parts)
    for (const Vec3& p : {b.head, b.tail}) {
      flesh.lo = flesh.lo.cwiseMin(p - Vec3::Constant(b.r0 + b.r1));
      flesh.hi = flesh.hi.cwiseMax(p + Vec3::Constant(b.r0 + b.r1));
    }
  TriMesh skin = surfaceNetsWithNodes(flesh, spec.nodes);
  CharacterMesh& m = d.mesh;
  m.skin = skin.positions;
  m.triangles = skin.triangles;
  const int n = int(m.skin.size());

  // ---- inner surface: from each node inwards along the normal, (1 - coreScale) of its distance
  // to the nearest bone; thinner where a prism would turn inside out (creases, thin legs)
  std::vector<double> thickness(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) {
    const Vec3& g = m.skin[size_t(p)];
    double dmin = 1e300;
    for (const DeerBone& b : parts) {
      Vec3 c;
      roundCone(g, b, &c);
      dmin = std::min(dmin, (g - c).norm());
    }
    thickness[size_t(p)] = (1 - spec.coreScale) * dmin;
  }
  m.inner = innerAlongNormals(m.skin, m.triangles, thickness);
  m.interior = voxelInterior(m.inner, m.triangles, 0.6 * meanEdgeLength(m.skin, m.triangles));
  return d;
}

}  // namespace d2t
