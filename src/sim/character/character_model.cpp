// The characters' bake (character_model.h).
#include "sim/character/character_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/base/json_reader.h"
#include "sim/character/bone_proxies.h"

namespace d2t {

namespace {

double segmentDistance(const Vec3& x, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double t = std::clamp((x - a).dot(d) / d.squaredNorm(), 0.0, 1.0);
  return (x - (a + t * d)).norm();
}

// x along the bone; y, z any orthonormal completion (the world's y where it can)
Quat boneAxes(const Bone& b) {
  const Vec3 x = (b.tail - b.head).normalized();
  Vec3 up = std::abs(x.y()) < 0.9 ? Vec3::UnitY() : Vec3::UnitZ();
  const Vec3 z = x.cross(up).normalized();
  const Vec3 y = z.cross(x);
  Mat3 r;
  r << x, y, z;
  return Quat(r);
}

SurfaceStencil buildStencil(int n, const std::vector<Vec3i>& tris) {
  std::vector<std::vector<int>> nb(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) nb[size_t(i)].push_back(i);
  for (const Vec3i& t : tris)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (a != b) nb[size_t(t[a])].push_back(t[b]);
  SurfaceStencil s;
  s.start.push_back(0);
  for (auto& row : nb) {
    std::sort(row.begin() + 1, row.end());
    row.erase(std::unique(row.begin() + 1, row.end()), row.end());
    s.column.insert(s.column.end(), row.begin(), row.end());
    s.start.push_back(int(s.column.size()));
  }
  return s;
}

}  // namespace

Influences skinningWeights(const Skeleton& sk, const Vec3& x, double blend, int maxInfluences) {
  const int k = sk.boneCount();
  std::vector<double> d(static_cast<size_t>(k));
  int nearest = 0;
  for (int i = 0; i < k; ++i) {
    d[size_t(i)] = segmentDistance(x, sk.bones[size_t(i)].head, sk.bones[size_t(i)].tail);
    if (d[size_t(i)] < d[size_t(nearest)]) nearest = i;
  }
  const double sigma = 0.5 * blend * sk.bones[size_t(nearest)].radius;
  std::vector<std::pair<double, int>> w;
  for (int i = 0; i < k; ++i) {
    const double e = d[size_t(i)] - d[size_t(nearest)];
    if (i == nearest || (sigma > 0 && e < 3 * sigma)) w.push_back({i == nearest ? 1.0 : std::exp(-e * e / (2 * sigma * sigma)), i});
  }
  std::sort(w.begin(), w.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  if (int(w.size()) > maxInfluences) w.resize(size_t(maxInfluences));
  double sum = 0;
  for (const auto& e : w) sum += e.first;
  Influences in;
  for (const auto& e : w) {
    in.bone[size_t(in.count)] = e.second;
    in.weight[size_t(in.count)] = e.first / sum;
    ++in.count;
  }
  return in;
}

InteriorPiece closedSolidMoments(const Vec3& apex, const std::vector<std::array<Vec3, 3>>& triangles) {
  InteriorPiece p;
  for (const auto& t : triangles) {
    const double v = tetSignedVolume(apex, t[0], t[1], t[2]);
    p.volume += v;
    p.firstMoment += v * (apex + t[0] + t[1] + t[2]) / 4.0;
    p.secondMoment += tetSecondMoment(apex, t[0], t[1], t[2], v);
  }
  return p;
}

void CharacterModel::multiplyK(const std::vector<Vec3>& x, std::vector<Vec3>& y) const {
  const int n = nodeCount();
  y.resize(size_t(n));
#pragma omp parallel for schedule(static) if (n > 8192)
  for (int i = 0; i < n; ++i) {
    Vec3 s = Vec3::Zero();
    for (int e = stencil.start[size_t(i)]; e < stencil.start[size_t(i) + 1]; ++e)
      s += stiffness[size_t(e)] * x[size_t(stencil.column[size_t(e)])];
    y[size_t(i)] = s;
  }
}

CharacterModelPtr bakeCharacter(const CharacterDesc& desc) {
  const std::string owner = "character '" + desc.name + "'";
  const auto fail = [&](const std::string& what) { throw InputError(owner + ": " + what); };
  desc.skeleton.validate(owner);
  const CharacterMesh& mesh = desc.mesh;
  const int n = int(mesh.skin.size());
  if (n < 4) fail("mesh: a skin needs at least 4 nodes, got " + std::to_string(n));
  if (mesh.inner.size() != mesh.skin.size())
    fail("mesh: " + std::to_string(mesh.inner.size()) + " inner points for " + std::to_string(n) + " skin nodes");
  for (size_t t = 0; t < mesh.triangles.size(); ++t)
    for (int a = 0; a < 3; ++a)
      if (mesh.triangles[t][a] < 0 || mesh.triangles[t][a] >= n)
        fail("mesh: triangle " + std::to_string(t) + " names node " + std::to_string(mesh.triangles[t][a]) +
             " of " + std::to_string(n));
  if (desc.maxInfluences < 1 || desc.maxInfluences > 4)
    fail("weights.max_influences: must be 1..4, got " + std::to_string(desc.maxInfluences));
  if (!(desc.blend > 0)) fail("weights.blend: must be > 0, got " + std::to_string(desc.blend));
  const Material& mat = desc.material;

  auto model = std::make_shared<CharacterModel>();
  CharacterModel& m = *model;
  m.name = desc.name;
  m.skeleton = desc.skeleton;
  m.material = mat;
  m.restSkin = mesh.skin;
  m.inner = mesh.inner;
  m.triangles = mesh.triangles;

  // ---- elements, masses, stiffness: the atlas bodies' (layer_elements.h) ----------------
  buildLayerTets(owner, m.triangles, m.restSkin, m.inner, m.tets, m.tetVolume);
  const Incidence inc = buildIncidence(m.tets, 2 * n);
  std::vector<double> innerMass(size_t(n), 0.0);
  m.nodeMass.assign(size_t(n), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int e = inc.start[size_t(i)]; e < inc.start[size_t(i) + 1]; ++e)
      m.nodeMass[size_t(i)] += mat.density * m.tetVolume[size_t(inc.tet[size_t(e)])] / 4;
    for (int e = inc.start[size_t(n + i)]; e < inc.start[size_t(n + i) + 1]; ++e)
      innerMass[size_t(i)] += mat.density * m.tetVolume[size_t(inc.tet[size_t(e)])] / 4;
    if (!(m.nodeMass[size_t(i)] > 0)) fail("mesh: node " + std::to_string(i) + " is on no triangle");
  }
  m.stencil = buildStencil(n, m.triangles);
  m.stiffness.assign(m.stencil.column.size(), Mat3::Zero());
  const std::vector<double> young(m.tets.size(), mat.young), poisson(m.tets.size(), mat.poisson);
  for (int i = 0; i < n; ++i)
    gatherStiffnessRow(i, n, m.tets, inc, m.restSkin, m.inner, young, poisson,
                       [&](int j, const Mat3& k) { m.stiffness[size_t(m.stencil.find(i, j))] += k; });

  // ---- weights, links ---------------------------------------------------------------------------
  const int k = m.boneCount();
  m.influence.resize(size_t(n));
  for (int i = 0; i < n; ++i)
    m.influence[size_t(i)] = skinningWeights(m.skeleton, m.restSkin[size_t(i)], desc.blend, desc.maxInfluences);
  std::vector<double> mass(size_t(k), 0.0);
  std::vector<Vec3> first(size_t(k), Vec3::Zero());
  std::vector<Mat3> second(size_t(k), Mat3::Zero());
  const auto give = [&](const Influences& in, double mm, const Vec3& s, const Mat3& c) {
    for (int a = 0; a < in.count; ++a) {
      const size_t b = size_t(in.bone[size_t(a)]);
      const double w = in.weight[size_t(a)];
      mass[b] += w * mm;
      first[b] += w * s;
      second[b] += w * c;
    }
  };
  for (int i = 0; i < n; ++i) {
    const Vec3& f = m.inner[size_t(i)];
    give(m.influence[size_t(i)], innerMass[size_t(i)], innerMass[size_t(i)] * f,
         innerMass[size_t(i)] * f * f.transpose());
  }
  for (const InteriorPiece& p : mesh.interior) {
    if (!(p.volume > 0)) continue;
    const Vec3 at = p.firstMoment / p.volume;
    give(skinningWeights(m.skeleton, at, desc.blend, desc.maxInfluences), mat.density * p.volume,
         mat.density * p.firstMoment, mat.density * p.secondMoment);
  }
  m.linkMass.resize(size_t(k));
  m.linkInertia.resize(size_t(k));
  m.totalMass = 0;
  for (int b = 0; b < k; ++b) {
    Bone& bone = m.skeleton.bones[size_t(b)];
    if (!(mass[size_t(b)] > 0))
      fail("skeleton.bones[" + std::to_string(b) + "] ('" + bone.name + "'): no flesh around it carries its mass");
    const Vec3 com = first[size_t(b)] / mass[size_t(b)];
    bone.bindPosition = com;
    bone.bindOrientation = boneAxes(bone);
    const Mat3 c = second[size_t(b)] - mass[size_t(b)] * com * com.transpose();
    const Mat3 rb = bone.bindOrientation.toRotationMatrix();
    m.linkMass[size_t(b)] = mass[size_t(b)];
    m.linkInertia[size_t(b)] = rb.transpose() * inertiaFromSecondMoment(c) * rb;
    m.totalMass += mass[size_t(b)];
  }
  for (double mp : m.nodeMass) m.totalMass += mp;
  buildBoneProxies(m);
  return model;
}

}  // namespace d2t
