// The procedural deer (deer.h).
#include "sim/character/deer.h"

#include <algorithm>
#include <cmath>

#include "sim/base/json_reader.h"
#include "sim/character/deer_rig.h"
#include "sim/character/implicit_surface.h"

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
  TriangleMesh skin = surfaceNetsWithNodes(flesh, spec.nodes);
  CharacterMesh& m = d.mesh;
  m.skin = skin.vertices;
  m.triangles = skin.triangles;
  const int n = int(m.skin.size());

  // ---- inner surface: from each node inwards along the normal, (1 - coreScale) of its distance
  // to the nearest bone; thinner where a prism would turn inside out (creases, thin legs)
  std::vector<double> thickness(static_cast<size_t>(n));
  std::vector<Vec3> normal(static_cast<size_t>(n));
  double edge = 0;
  for (const Vec3i& t : m.triangles) edge += (m.skin[size_t(t[0])] - m.skin[size_t(t[1])]).norm();
  edge /= std::max<size_t>(1, m.triangles.size());
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
  // (the mesh's own vertex normals, area-weighted: the implicit's gradient turns fast in the
  // creases where cones blend, where a vertex's gradient can lean away from its triangles)
  std::fill(normal.begin(), normal.end(), Vec3::Zero());
  for (const Vec3i& t : m.triangles) {
    const Vec3 a = (m.skin[size_t(t[1])] - m.skin[size_t(t[0])]).cross(m.skin[size_t(t[2])] - m.skin[size_t(t[0])]);
    for (int c = 0; c < 3; ++c) normal[size_t(t[c])] += a;
  }
  for (Vec3& v : normal) v.normalize();
  m.inner.resize(size_t(n));
  for (int round = 0;; ++round) {
    for (int p = 0; p < n; ++p) m.inner[size_t(p)] = m.skin[size_t(p)] - thickness[size_t(p)] * normal[size_t(p)];
    std::vector<int> bad;
    for (const Vec3i& t : m.triangles)
      for (const Tet& e : layerPrismTets(t, n)) {
        const auto pos = [&](int id) { return id < n ? m.skin[size_t(id)] : m.inner[size_t(id - n)]; };
        if (!(tetSignedVolume(pos(e[0]), pos(e[1]), pos(e[2]), pos(e[3])) > 1e-6 * edge * edge * edge)) {
          bad.insert(bad.end(), {t[0], t[1], t[2]});
          break;
        }
      }
    if (bad.empty() || round == 20) break;  // (the bake names what is left)
    for (int p : bad) thickness[size_t(p)] *= 0.7;
    // (and no steeper than a slope of 1/2 around them, or their neighbours' prisms turn over)
    for (bool changed = true; changed;) {
      changed = false;
      for (const Vec3i& t : m.triangles)
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c) {
            const size_t i = size_t(t[a]), j = size_t(t[c]);
            const double cap = thickness[j] + 0.5 * (m.skin[i] - m.skin[j]).norm();
            if (thickness[i] > cap * (1 + 1e-12)) {
              thickness[i] = cap;
              changed = true;
            }
          }
    }
  }
  m.interior = voxelInterior(m.inner, m.triangles, 0.6 * edge);
  return d;
}

}  // namespace d2t
