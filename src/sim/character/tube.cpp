// The procedural tube (tube.h).
#include "sim/character/tube.h"

#include <algorithm>
#include <cmath>

#include "sim/base/json_reader.h"

namespace d2t {

CharacterDesc tubeCharacter(const std::string& name, const TubeSpec& spec, const Material& material) {
  const std::string owner = "character '" + name + "'";
  const auto fail = [&](const std::string& what) { throw InputError(owner + ": " + what); };
  const auto r = [&](double x) { return spec.profile ? spec.profile(x) : spec.radius; };
  if (!(spec.length > 0)) fail("shape.length: must be > 0, got " + std::to_string(spec.length));
  const double r0 = r(0), r1 = r(spec.length);
  double rmax = 0;
  for (int s = 0; s <= 100; ++s) {
    const double rs = r(spec.length * s / 100);
    if (!(rs > 0)) fail("shape.radius: must be > 0 along the tube, got " + std::to_string(rs));
    rmax = std::max(rmax, rs);
  }
  if (!(spec.length > r0 + r1))
    fail("shape.length: " + std::to_string(spec.length) + " m is not longer than the two caps (" +
         std::to_string(r0 + r1) + " m)");
  if (spec.bones < 1) fail("skeleton.bones: must be at least 1, got " + std::to_string(spec.bones));
  if (!(spec.coreScale > 0 && spec.coreScale < 1))
    fail("core.scale: must be in (0, 1), got " + std::to_string(spec.coreScale));
  if (spec.nodes < 20) fail("mesh.nodes: must be at least 20, got " + std::to_string(spec.nodes));

  // ---- rings: N_a around, N_c on each cap (spacing h = 2 pi r_max / N_a), and as many on the
  // cylinder as bring n = N_a (2 N_c + N_cyl - 1) + 2 nearest the target, with its rings'
  // spacing within [0.6, 1.6] h; of those, the one whose spacing is nearest h
  const double spine = spec.length - r0 - r1;
  int na = 6, nc = 1, ncyl = 1;
  long bestError = -1;
  double bestAspect = 0;
  for (int a = 6; a <= 512; ++a) {
    const double h = 2 * kPi * rmax / a;
    const int c = std::max(1, int(std::lround(0.5 * kPi * rmax / h)));
    const int cyl = std::max(1, int(std::lround(double(spec.nodes - 2) / a - 2 * c + 1)));
    const double aspect = spine / cyl / h;
    if (aspect < 0.6 || aspect > 1.6) continue;
    const long error = std::abs(long(a) * (2 * c + cyl - 1) + 2 - spec.nodes);
    if (bestError < 0 || error < bestError || (error == bestError && std::abs(std::log(aspect)) < std::abs(std::log(bestAspect)))) {
      bestError = error;
      bestAspect = aspect;
      na = a, nc = c, ncyl = cyl;
    }
  }
  if (bestError < 0)
    fail("mesh.nodes: " + std::to_string(spec.nodes) + " nodes cannot mesh a tube of radius " + std::to_string(rmax) +
         " m and length " + std::to_string(spec.length) + " m with rings about as far apart as their nodes");
  // ring positions (x, radius) from the left pole to the right
  std::vector<std::pair<double, double>> rings;
  for (int c = 1; c <= nc; ++c) {
    const double a = 0.5 * kPi * c / nc;
    rings.push_back({r0 - r0 * std::cos(a), r0 * std::sin(a)});
  }
  for (int j = 1; j < ncyl; ++j) {
    const double x = r0 + spine * j / ncyl;
    rings.push_back({x, r(x)});
  }
  for (int c = nc; c >= 1; --c) {
    const double a = 0.5 * kPi * c / nc;
    rings.push_back({spec.length - r1 + r1 * std::cos(a), r1 * std::sin(a)});
  }
  const int nr = int(rings.size());
  const int n = na * nr + 2;

  CharacterDesc d;
  d.name = name;
  d.material = material;
  CharacterMesh& m = d.mesh;
  m.skin.resize(size_t(n));
  m.skin[0] = Vec3::Zero();
  m.skin[size_t(n - 1)] = Vec3(spec.length, 0, 0);
  const auto node = [&](int ring, int k) { return 1 + ring * na + (k % na); };
  for (int ring = 0; ring < nr; ++ring)
    for (int k = 0; k < na; ++k) {
      const double t = 2 * kPi * k / na;
      m.skin[size_t(node(ring, k))] =
          Vec3(rings[size_t(ring)].first, rings[size_t(ring)].second * std::cos(t), rings[size_t(ring)].second * std::sin(t));
    }
  // triangles, outward counter-clockwise (the axis along +x: (a, b, c) below is outward)
  for (int k = 0; k < na; ++k) m.triangles.push_back(Vec3i(0, node(0, k + 1), node(0, k)));
  for (int ring = 0; ring + 1 < nr; ++ring)
    for (int k = 0; k < na; ++k) {
      const int a = node(ring, k), b = node(ring, k + 1), c = node(ring + 1, k + 1), e = node(ring + 1, k);
      if ((ring + k) % 2 == 0) {
        m.triangles.push_back(Vec3i(a, b, c));
        m.triangles.push_back(Vec3i(a, c, e));
      } else {
        m.triangles.push_back(Vec3i(a, b, e));
        m.triangles.push_back(Vec3i(b, c, e));
      }
    }
  for (int k = 0; k < na; ++k) m.triangles.push_back(Vec3i(n - 1, node(nr - 1, k), node(nr - 1, k + 1)));

  // inner points: towards the nearest point of the spine segment [r0, length - r1]
  m.inner.resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    const Vec3& g = m.skin[size_t(i)];
    const Vec3 a(std::clamp(g.x(), r0, spec.length - r1), 0, 0);
    m.inner[size_t(i)] = a + spec.coreScale * (g - a);
  }
  // the inner solid in slabs: each a closed polyhedron (its side triangles and the ring discs)
  const auto innerAt = [&](int id) { return m.inner[size_t(id)]; };
  const auto ringCentre = [&](int ring) { return Vec3(innerAt(node(ring, 0)).x(), 0, 0); };
  for (int ring = -1; ring < nr; ++ring) {
    std::vector<std::array<Vec3, 3>> faces;
    Vec3 apex;
    if (ring == -1 || ring == nr - 1) {  // a pole's cone
      const bool left = ring == -1;
      const int rr = left ? 0 : nr - 1;
      const Vec3 pole = innerAt(left ? 0 : n - 1), centre = ringCentre(rr);
      for (int k = 0; k < na; ++k) {
        const Vec3 p = innerAt(node(rr, k)), q = innerAt(node(rr, k + 1));
        if (left) {
          faces.push_back({pole, q, p});
          faces.push_back({centre, p, q});
        } else {
          faces.push_back({pole, p, q});
          faces.push_back({centre, q, p});
        }
      }
      apex = 0.5 * (pole + centre);
    } else {
      const Vec3 ca = ringCentre(ring), cb = ringCentre(ring + 1);
      for (int k = 0; k < na; ++k) {
        const Vec3 a = innerAt(node(ring, k)), b = innerAt(node(ring, k + 1));
        const Vec3 c = innerAt(node(ring + 1, k + 1)), e = innerAt(node(ring + 1, k));
        faces.push_back({a, b, c});
        faces.push_back({a, c, e});
        faces.push_back({ca, b, a});
        faces.push_back({cb, e, c});
      }
      apex = 0.5 * (ca + cb);
    }
    m.interior.push_back(closedSolidMoments(apex, faces));
  }

  // bones: k equal segments of the axis, joined end to end
  Skeleton& sk = d.skeleton;
  for (int b = 0; b < spec.bones; ++b) {
    Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.head = Vec3(spec.length * b / spec.bones, 0, 0);
    bone.tail = Vec3(spec.length * (b + 1) / spec.bones, 0, 0);
    bone.radius = r(0.5 * (bone.head.x() + bone.tail.x()));
    sk.bones.push_back(bone);
  }
  for (int b = 1; b < spec.bones; ++b) {
    Joint j;
    j.type = spec.joint;
    j.parent = b - 1;
    j.child = b;
    j.anchor = sk.bones[size_t(b)].head;
    j.axis = Vec3::UnitZ();
    j.stiffness = spec.stiffness;
    j.damping = spec.damping;
    sk.joints.push_back(j);
  }
  return d;
}

CharacterDesc snakeCharacter(const std::string& name, int nodes, double stiffness, double damping,
                             const Material& material) {
  TubeSpec t;
  t.length = 16 * 0.15;
  t.bones = 16;
  t.joint = JointType::Ball;
  t.stiffness = stiffness;
  t.damping = damping;
  t.nodes = nodes;
  t.profile = [](double x) { return 0.015 + 0.045 * std::min(1.0, x / 0.35); };
  return tubeCharacter(name, t, material);
}

}  // namespace d2t
