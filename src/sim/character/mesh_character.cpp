// A soft body of any closed surface (mesh_character.h).
#include "sim/character/mesh_character.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "sim/base/json_reader.h"
#include "sim/base/triangle_bvh.h"
#include "sim/character/inner_surface.h"
#include "sim/model/layer_elements.h"
#include "sim/scene/surface_nets.h"

namespace d2t {

std::vector<double> medialDepth(const TriMesh& surface) {
  const std::vector<Vec3>& x = surface.positions;
  const TriangleBvh bvh(x, surface.triangles);
  const std::vector<Vec3> normal = surface.vertexNormals();
  const double spacing = meanEdgeLength(x, surface.triangles);
  const Aabb box = surface.bounds();
  const double reach = (box.hi - box.lo).norm();
  std::vector<double> depth(x.size(), 0.0);
  // the nearest surface point of y(t) = x_p - t n_p stays at x_p (or by it: the normal is
  // the mesh's, not the smooth surface's) until y passes the medial axis, where it jumps to
  // another part of the surface. Marched in steps of half the spacing, then bisected.
  const auto nearest = [&](size_t p, double t) {
    const Vec3 c = bvh.closest(x[p] - t * normal[p], 1e300).point;
    return (c - x[p]).norm() <= std::max(2 * spacing, 0.5 * t);
  };
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t p = 0; p < x.size(); ++p) {
    double lo = 0, hi = 0.5 * spacing;
    while (hi < reach && nearest(p, hi)) {
      lo = hi;
      hi += 0.5 * spacing;
    }
    while (hi - lo > 0.02 * spacing) {
      const double mid = 0.5 * (lo + hi);
      (nearest(p, mid) ? lo : hi) = mid;
    }
    depth[p] = lo;
  }
  return depth;
}

CharacterDesc meshCharacter(const std::string& name, const TriMesh& surface, double coreScale, const Material& material,
                            const std::vector<MedialBone>& bones, double stiffness, double damping) {
  const std::string owner = "character '" + name + "'";
  if (!(coreScale > 0 && coreScale < 1))
    throw InputError(owner + ": core.scale: must be in (0, 1), got " + std::to_string(coreScale));
  if (!closedManifold(surface)) throw InputError(owner + ": the surface is not a closed 2-manifold");
  CharacterDesc d;
  d.name = name;
  d.material = material;
  CharacterMesh& m = d.mesh;
  m.skin = surface.positions;
  m.triangles = surface.triangles;

  // the layer: (1 - coreScale) of the half-thickness, thinner where a prism would turn over
  std::vector<double> thickness = medialDepth(surface);
  double meanDepth = 0;
  for (double& t : thickness) {
    meanDepth += t;
    t *= 1 - coreScale;
  }
  meanDepth /= double(std::max<size_t>(1, thickness.size()));
  m.inner = innerAlongNormals(m.skin, m.triangles, thickness);
  // (where the surface folds within a grid cell, a part thinner than the re-meshing grid, no
  // layer stands under it: say so here, as the user's fix is the node count, not the core)
  const int n = int(m.skin.size());
  for (const Vec3i& t : m.triangles)
    for (const Tet& e : layerPrismTets(t, n)) {
      const auto pos = [&](int id) { return id < n ? m.skin[size_t(id)] : m.inner[size_t(id - n)]; };
      if (!layerTetUpright(pos(e[0]), pos(e[1]), pos(e[2]), pos(e[3])))
        throw InputError(owner + ": its closed surface (" + std::to_string(n) + " nodes) has no room for a layer " +
                         "under it near " + formatVec(m.skin[size_t(t[0])]) + " (its frame): it folds there within a cell of " +
                         "the re-meshing grid (a part thinner than the grid); try another node count (\"mesh\": { " +
                         "\"nodes\" })");
    }
  m.interior = voxelInterior(m.inner, m.triangles, 0.6 * meanEdgeLength(m.skin, m.triangles));

  if (!bones.empty()) {  // the medial axis's bones, a ball joint where each leaves its parent
    double length = 0;
    for (const MedialBone& b : bones) length += (b.tail - b.head).norm();
    if (stiffness < 0) stiffness = 10 * material.density * surface.volume() * 9.81 * length;
    if (damping < 0) damping = 0.02 * stiffness;
    for (size_t b = 0; b < bones.size(); ++b) {
      Bone bone;
      bone.name = "bone" + std::to_string(b);
      bone.head = bones[b].head;
      bone.tail = bones[b].tail;
      bone.radius = bones[b].radius;
      d.skeleton.bones.push_back(bone);
      if (bones[b].parent < 0) continue;
      Joint j;
      j.parent = bones[b].parent;
      j.child = int(b);
      j.anchor = bones[b].head;
      j.stiffness = stiffness;
      j.damping = damping;
      d.skeleton.joints.push_back(j);
    }
    return d;
  }
  // one bone along the surface's longest principal axis (with one bone the segment only sets
  // the weights' falloff, and the one weight is 1 everywhere)
  Vec3 centre = Vec3::Zero();
  for (const Vec3& x : m.skin) centre += x;
  centre /= double(m.skin.size());
  Mat3 spread = Mat3::Zero();
  for (const Vec3& x : m.skin) spread += (x - centre) * (x - centre).transpose();
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(spread);
  const Vec3 axis = eig.eigenvectors().col(2);
  double lo = 1e300, hi = -1e300;
  for (const Vec3& x : m.skin) {
    lo = std::min(lo, (x - centre).dot(axis));
    hi = std::max(hi, (x - centre).dot(axis));
  }
  Bone bone;
  bone.name = "core";
  bone.head = centre + lo * axis;
  bone.tail = centre + hi * axis;
  bone.radius = std::max(meanDepth, 1e-6 * (hi - lo));
  d.skeleton.bones.push_back(bone);
  d.maxInfluences = 1;
  return d;
}

}  // namespace d2t
