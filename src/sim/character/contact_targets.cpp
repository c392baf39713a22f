#include "sim/character/contact_targets.h"

#include <algorithm>
#include <cmath>

#include "sim/character/articulated_body.h"
#include "sim/character/self_contact.h"
#include "sim/contact/collider.h"

namespace d2t {

namespace {

// The area-weighted normals, the box, the fastest node and the hierarchy (when asked) of a
// snapshot whose x, v and triangles are set.
void finish(SurfaceTarget& t, bool hierarchy) {
  t.normals.assign(t.x.size(), Vec3::Zero());
  for (const Vec3i& f : t.triangles) {
    const Vec3 a = (t.x[size_t(f[1])] - t.x[size_t(f[0])]).cross(t.x[size_t(f[2])] - t.x[size_t(f[0])]);
    for (int k = 0; k < 3; ++k) t.normals[size_t(f[k])] += a;
  }
  for (Vec3& n : t.normals) n = n.norm() > 0 ? Vec3(n.normalized()) : Vec3::UnitY();
  t.box = Aabb{};
  for (const Vec3& p : t.x) t.box.grow(p);
  t.maxSpeed = 0;
  for (const Vec3& u : t.v) t.maxSpeed = std::max(t.maxSpeed, u.norm());
  if (hierarchy) t.bvh = TriangleBvh(t.x, t.triangles);
}

}  // namespace

double rigidEffectiveMass(const Eigen::Matrix<double, 6, 6>& Minv, const Vec3& c, const Mat3& R, const Vec3& x,
                          const Vec3& n) {
  Eigen::Matrix<double, 6, 1> J;
  J << n, R.transpose() * (x - c).cross(n);  // n . (v + (R w) x r) = n . v + w . R^T (r x n)
  return 1 / J.dot(Minv * J);
}

bool SurfaceTarget::query(const Vec3& p, double outside, Hit* hit, const Side* side) const {
  const double reach = std::max(outside, maxDepth);
  if (boxDistanceSq(box, p) > reach * reach) return false;
  if (shape) {
    double d = 0;
    Vec3 n = Vec3::UnitY();
    if (!side || shape->hasInside()) {
      const Vec3 local = rotation.transpose() * (p - position);
      d = shape->signedDistance(local);
      n = rotation * shape->normal(local);
    } else {
      // an unsigned distance has no gradient on the surface (where the correction leaves a
      // node): the normal is taken a little way towards the inner point, 10x the normal's
      // difference step, and x's distance measured along it from that point's nearest point
      const Vec3 toward = side->inner - p;
      const double step = 1e-4 * shape->boundingRadius();
      const Vec3 q = toward.norm() > 0 ? Vec3(p + step * toward.normalized()) : p;
      const Vec3 lq = rotation.transpose() * (q - position);
      n = rotation * shape->normal(lq);
      const Vec3 c = q - shape->signedDistance(lq) * n;
      d = (p - c).dot(n);
      const double remembered = side->remembered.dot(n);
      if (std::abs(remembered) > 0.5 ? remembered < 0 : (side->inner - c).dot(n) < 0) {  // (x is past it)
        d = -d;
        n = -n;
      }
    }
    if (d > outside || d < -maxDepth) return false;
    hit->distance = d;
    hit->normal = n;
    hit->point = p - d * hit->normal;
    hit->velocity = linear + angular.cross(hit->point - position);
    return true;
  }
  const TriangleBvh::Closest c = bvh.closest(p, reach * reach);
  if (c.triangle < 0) return false;
  const Vec3i& f = triangles[size_t(c.triangle)];
  Vec3 smooth = Vec3::Zero(), vel = Vec3::Zero();
  for (int k = 0; k < 3; ++k) {
    smooth += c.bary[size_t(k)] * normals[size_t(f[k])];
    vel += c.bary[size_t(k)] * v[size_t(f[k])];
  }
  if (!(smooth.norm() > 0)) return false;
  smooth.normalize();
  const Vec3 d = p - c.point;
  const double dist = std::sqrt(c.distanceSq);
  const bool inside = d.dot(smooth) < 0;
  if (inside ? dist > maxDepth : dist > outside) return false;
  hit->distance = inside ? -dist : dist;
  // a rigid surface: the gradient of its distance (exact at edges and corners); a skin: its
  // smooth normal (the direction to a faceted skin's nearest point turns from node to node)
  hit->normal = kind == Kind::Collider && dist > 1e-9 ? Vec3((inside ? -d : d) / dist) : smooth;
  hit->point = c.point;
  hit->velocity = vel;
  hit->triangle = c.triangle;
  hit->bary = c.bary;
  return true;
}

bool SurfaceTarget::reaches(const Influences& in) const {
  return bones.empty() || bones[size_t(in.dominant())];
}

bool SurfaceTarget::queryNode(int p, const Vec3& x, double outside, Hit* hit, const Side* side) const {
  if (!self) return query(x, outside, hit, side);
  const Hit& h = nodeHits[size_t(p)];
  if (h.triangle < 0) return false;  // (a self target has no hierarchy: its nodes' hits only)
  *hit = h;
  hit->distance = (x - h.point).dot(h.normal);  // (x may have moved since the snapshot)
  return hit->distance < outside && hit->distance > -maxDepth;
}

double SurfaceTarget::effectiveMass(const Hit& hit, const Vec3& n) const {
  switch (kind) {
    case Kind::Collider:
      return 1e300;
    case Kind::Body:
      return rigid.effectiveMass(hit.point, n);
    case Kind::Character: {
      const Vec3i& f = triangles[size_t(hit.triangle)];
      int corner = 0;
      for (int k = 1; k < 3; ++k)
        if (hit.bary[size_t(k)] > hit.bary[size_t(corner)]) corner = k;
      const size_t b = size_t(dominantBone[size_t(f[corner])]);
      return rigidEffectiveMass(boneInverse[b], boneCentre[b], boneRotation[b], hit.point, n);
    }
  }
  return 1e300;
}

std::array<std::pair<int, double>, 3> SurfaceTarget::corners(const Hit& hit) const {
  const Vec3i& f = triangles[size_t(hit.triangle)];
  return {{{f[0], hit.bary[0]}, {f[1], hit.bary[1]}, {f[2], hit.bary[2]}}};
}

SurfaceTarget colliderTarget(const Collider& collider, int index) {
  SurfaceTarget t;
  t.kind = SurfaceTarget::Kind::Collider;
  t.index = index;
  t.shape = collider.desc().shape;
  t.position = collider.position();
  t.rotation = collider.orientation().toRotationMatrix();
  t.linear = collider.velocity();
  t.angular = collider.angularVelocity();
  t.friction = collider.desc().friction;
  const double r = t.shape->boundingRadius();
  t.box.grow(t.position - Vec3::Constant(r));
  t.box.grow(t.position + Vec3::Constant(r));
  t.maxSpeed = t.linear.norm() + t.angular.norm() * r;
  t.maxDepth = 0.5 * r;  // (the signed distance knows its inside: any depth is a contact's)
  return t;
}

SurfaceTarget bodyTarget(LayeredBody& body, int index) {
  SurfaceTarget t;
  t.kind = SurfaceTarget::Kind::Body;
  t.index = index;
  const int n = int(body.model().restSkin.size());
  t.x.resize(size_t(n));
  t.v.resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    t.x[size_t(i)] = body.nodePosition(i);
    t.v[size_t(i)] = body.nodeVelocity(i);
  }
  t.triangles = body.model().atlas.triangles;
  t.friction = body.desc().material.friction;
  t.rigid = rigidMotion(body);
  finish(t, true);
  t.maxDepth = (t.box.hi - t.box.lo).minCoeff() / 3;
  return t;
}

void addBoneMasses(const ArticulatedBody& character, SurfaceTarget& t) {
  if (!t.boneInverse.empty()) return;
  for (const Eigen::Matrix<double, 6, 6>& M : character.boneMassMatrices()) t.boneInverse.push_back(M.inverse());
}

SurfaceTarget characterSnapshot(const ArticulatedBody& character, int index) {
  const CharacterModel& m = character.model();
  SurfaceTarget t;
  t.kind = SurfaceTarget::Kind::Character;
  t.index = index;
  character.skinState(t.x, t.v);
  t.triangles = m.triangles;
  t.friction = m.material.friction;
  for (int b = 0; b < m.boneCount(); ++b) {
    t.boneCentre.push_back(character.state().bones[size_t(b)].position);
    t.boneRotation.push_back(character.state().bones[size_t(b)].orientation.toRotationMatrix());
  }
  t.dominantBone.resize(size_t(m.nodeCount()));
  for (int p = 0; p < m.nodeCount(); ++p) t.dominantBone[size_t(p)] = m.influence[size_t(p)].dominant();
  finish(t, false);
  return t;
}

SurfaceTarget pairedTarget(const SurfaceTarget& snapshot, const std::vector<int>& subset) {
  SurfaceTarget t = snapshot;
  t.bvh = TriangleBvh(t.x, t.triangles, subset);
  return t;
}

SurfaceTarget characterTarget(const ArticulatedBody& character, int index) {
  SurfaceTarget t = characterSnapshot(character, index);
  addBoneMasses(character, t);
  t.bvh = TriangleBvh(t.x, t.triangles);
  return t;
}

std::vector<int> patchTriangles(const CharacterModel& m, const std::vector<char>& bones) {
  std::vector<char> in(m.triangles.size(), 0);
  for (int b = 0; b < m.boneCount(); ++b)
    if (bones[size_t(b)])
      for (int t : m.proxies[size_t(b)].triangles) in[size_t(t)] = 1;
  std::vector<int> out;
  for (size_t t = 0; t < in.size(); ++t)
    if (in[t]) out.push_back(int(t));
  return out;
}

SurfaceTarget selfTarget(const CharacterModel& m, const SurfaceTarget& snapshot,
                         const std::vector<std::pair<int, int>>& pairs, double dt) {
  SurfaceTarget t;
  t.bones.assign(size_t(m.boneCount()), 0);
  for (const auto& [i, j] : pairs) t.bones[size_t(i)] = t.bones[size_t(j)] = 1;
  const SelfContacts found = detectSelfContacts(m, snapshot, pairs, dt);
  if (found.kept.empty() && found.near.empty()) return t;  // (self false: nothing to copy)
  std::vector<char> bones = std::move(t.bones);
  t = snapshot;  // (its rows: nodeHits; no hierarchy)
  t.bones = std::move(bones);
  t.self = true;
  t.nodeHits.assign(size_t(m.nodeCount()), SurfaceTarget::Hit{});
  for (const auto& [p, h] : found.kept) t.nodeHits[size_t(p)] = h;
  for (const auto& [p, h] : found.near) t.nodeHits[size_t(p)] = h;
  return t;
}

}  // namespace d2t
