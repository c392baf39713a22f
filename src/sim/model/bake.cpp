// bake(): body description -> immutable BakedBody (atlas, tets, masses, K_e).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <sstream>

#include "sim/model/baked_body.h"
#include "sim/base/hash.h"

#include <Eigen/Eigenvalues>
#include "sim/model/layer_elements.h"
#include "sim/model/tet_fem.h"
#include "sim/morph/morph_targets.h"

namespace d2t {

namespace {

[[noreturn]] void fail(const BodyDesc& desc, const std::string& message) {
  throw InputError("body '" + desc.name + "': " + message);
}


void progressAt(const BakeProgress& progress, float fraction, const char* stage) {
  if (progress) progress(fraction, stage);
}

// ---- skin and core points in the shape's frame --------------------------------

void placeNodes(const BodyDesc& desc, const Atlas& atlas, std::vector<Vec3>& g, std::vector<Vec3>& f) {
  const int n = atlas.nodeCount();
  g.resize(n);
  f.resize(n);
  const Shape& skin = *desc.shape;
  const Shape* coreShape = desc.coreShape.get();
  const double s = desc.coreScale;
  FirstFailure bad;
  if (atlas.layout == AtlasLayout::CubeMap) {
    // g = r(d) d, f = s g or r_core(d) d; the core must be strictly inside
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
      const Vec3& d = atlas.nodeDirection[i];
      const double rs = skin.radius(d);
      const double rc = coreShape ? coreShape->radius(d) : s * rs;
      g[i] = rs * d;
      f[i] = rc * d;
      if (!(rs > 0) || !(rc > 0) || !(rc < rs)) bad.report(i);
    }
    if (bad.any()) {
      const int i = static_cast<int>(bad.index);
      const Vec3& d = atlas.nodeDirection[i];
      fail(desc, "the core (radius " + std::to_string(f[i].norm()) + " m) is not strictly inside the skin (radius " +
                     std::to_string(g[i].norm()) + " m) along the direction " + formatVec(d) +
                     "; make the core smaller or the skin thicker");
    }
  } else {
    // g = skin(u, v), f = core(u, v) or a + s (g - a), a = the tube's centre circle
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
      const Vec2& uv = atlas.nodeParam[i];
      g[i] = skin.surfacePoint(uv.x(), uv.y());
      if (coreShape) {
        f[i] = coreShape->surfacePoint(uv.x(), uv.y());
      } else {
        const Vec3 a = skin.coreAnchor(g[i]);
        f[i] = a + s * (g[i] - a);
      }
      if (!(skin.signedDistance(f[i]) < 0)) bad.report(i);
    }
    if (bad.any()) {
      const int i = static_cast<int>(bad.index);
      fail(desc, "the core point " + formatVec(f[i]) + " (under the skin point " + formatVec(g[i]) +
                     ") is not strictly inside the skin; make the core smaller or the skin thicker");
    }
  }
}

}  // namespace

// the bits of the rest skin, the masses and the K_e blocks
static uint64_t fingerprint(const BakedBody& b) {
  Fnv1a h;
  for (const Vec3& u : b.restSkin) h.numbers(u.data(), 3);
  h.numbers(b.nodeMass.data(), b.nodeMass.size());
  h.numbers(&b.coreMass, 1);
  for (const auto& row : b.stiffness)
    for (const Mat3& k : row) h.numbers(k.data(), 9);
  return h.value();
}

// The description's checks before any work: the shape's topology (the atlas it takes).
static ShapeTopology checkBakeable(const BodyDesc& desc) {
  if (!desc.shape) fail(desc, "has no shape");
  const ShapeTopology topo = desc.shape->topology();
  if (topo == ShapeTopology::Solid)
    fail(desc, "the shape '" + desc.shape->type() +
                   "' is neither star-shaped about its centre nor a torus, so the D2T atlas cannot "
                   "represent it; use a star-shaped or torus shape, or make it a rigid collider");
  if (desc.coreShape && desc.coreShape->topology() != topo)
    fail(desc, "the core shape '" + desc.coreShape->type() + "' must have the same topology as the skin (" +
                   (topo == ShapeTopology::Star ? "star-shaped" : "torus") + ")");
  if (!desc.coreShape && !(desc.coreScale > 0 && desc.coreScale < 1))
    fail(desc, "core scale must be in (0, 1), got " + std::to_string(desc.coreScale));
  const int res = desc.atlasResolution;
  if (topo == ShapeTopology::Star && cubeMapPatchSize(res) < 3)
    fail(desc, "atlas resolution " + std::to_string(res) + " is too small for a cube map (at least 15)");
  if (topo == ShapeTopology::Torus && res < 5)
    fail(desc, "atlas resolution " + std::to_string(res) + " is too small for a torus atlas (at least 5)");
  return topo;
}

// Each tetrahedron's material (the mean of its 4 vertices') and the lumped masses: rho V
// / 4 to each vertex; core vertices belong to the rigid core.
static void bakeMaterialsAndMasses(BakedBody& body, const BodyDesc& desc, const std::vector<Vec3>& g,
                                   const std::vector<Vec3>& f, const Incidence& inc) {
  const int n = body.atlas.nodeCount(), ntet = body.tetCount();
  body.material.resize(n);
  std::vector<NodeMaterial> coreMaterial(n);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    const Material ms = desc.materialAt(g[i]), mc = desc.materialAt(f[i]);
    body.material[i] = {ms.young, ms.poisson, ms.density};
    coreMaterial[i] = {mc.young, mc.poisson, mc.density};
  }
  auto mat = [&](int id) -> const NodeMaterial& { return id < n ? body.material[id] : coreMaterial[id - n]; };
  body.tetYoung.resize(ntet);
  body.tetPoisson.resize(ntet);
  body.tetDensity.resize(ntet);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < ntet; ++k) {
    double e = 0, nu = 0, rho = 0;
    for (int id : body.tets[k]) {
      e += mat(id).young;
      nu += mat(id).poisson;
      rho += mat(id).density;
    }
    body.tetYoung[k] = e / 4;
    body.tetPoisson[k] = nu / 4;
    body.tetDensity[k] = rho / 4;
  }
  body.nodeMass.assign(n, 0.0);
  body.coreVertexMass.assign(n, 0.0);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    double ms = 0, mc = 0;
    for (int e = inc.start[i]; e < inc.start[i + 1]; ++e) ms += body.tetDensity[inc.tet[e]] * body.tetVolume[inc.tet[e]];
    for (int e = inc.start[n + i]; e < inc.start[n + i + 1]; ++e)
      mc += body.tetDensity[inc.tet[e]] * body.tetVolume[inc.tet[e]];
    body.nodeMass[i] = ms / 4;
    body.coreVertexMass[i] = mc / 4;
  }
}

// The stiffness: each node's block row gathered from its incident tets,
// K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I)  (tet_fem.h); only
// skin-skin blocks are kept (core vertices are fixed in the body frame; gatherStiffnessRow).
// *incomplete: the nodes with a block outside their stencil (dropped).
static std::vector<std::array<Mat3, kStencilSlots>> assembleRows(const std::vector<Stencil>& stencil,
                                                                 const std::vector<Tet>& tets, const Incidence& inc,
                                                                 const std::vector<Vec3>& g, const std::vector<Vec3>& f,
                                                                 const std::vector<double>& young,
                                                                 const std::vector<double>& poisson, int* incomplete) {
  const int n = int(stencil.size());
  std::vector<std::array<Mat3, kStencilSlots>> rows(static_cast<size_t>(n));
  std::vector<char> outside(size_t(n), 0);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    std::array<Mat3, kStencilSlots>& row = rows[size_t(i)];
    for (Mat3& b : row) b.setZero();
    const Stencil& st = stencil[size_t(i)];
    gatherStiffnessRow(i, n, tets, inc, g, f, young, poisson, [&](int j, const Mat3& k) {
      for (int s = 0; s < kStencilSlots; ++s)
        if (st[s] == j) {
          row[s] += k;
          return;
        }
      outside[size_t(i)] = 1;
    });
  }
  *incomplete = static_cast<int>(std::count(outside.begin(), outside.end(), 1));
  return rows;
}

std::vector<std::array<Mat3, kStencilSlots>> assembleStencilStiffness(const BakedBody& body, const std::string& owner,
                                                                     const std::vector<Vec3>& g,
                                                                     const std::vector<Vec3>& f,
                                                                     const std::vector<double>& young,
                                                                     const std::vector<double>& poisson) {
  const int n = body.nodeCount();
  auto pos = [&](int id) -> const Vec3& { return id < n ? g[size_t(id)] : f[size_t(id - n)]; };
  for (size_t k = 0; k < body.tets.size(); ++k) {
    const Tet& t = body.tets[k];
    if (!layerTetUpright(pos(t[0]), pos(t[1]), pos(t[2]), pos(t[3]))) {
      int node = 0;  // (the tet's first skin node)
      while (node < 3 && t[size_t(node)] >= n) ++node;
      node = t[size_t(node)] % n;
      throw InputError(owner + ": the skin's tetrahedron " + std::to_string(k) + " (at the node " +
                       std::to_string(node) + ", " + formatVec(g[size_t(node)]) +
                       ") is inverted or flat there: the shape folds the skin or pokes the core out");
    }
  }
  int incomplete = 0;
  return assembleRows(body.atlas.stencil, body.tets, buildIncidence(body.tets, 2 * n), g, f, young, poisson,
                      &incomplete);
}

// The rigid core: the solid inside the core surface plus the lumped core-vertex masses.
// The solid is integrated as tets fanned from the shape's origin to the core triangles
// (signed, so it holds for any closed core surface); density is the material at each
// fan tet's centroid (exact for a star-shaped core). Sets the core's mass, volume,
// centre (comOffset, the body frame's origin) and inertia; returns its second moment
// about that centre.
static Mat3 bakeRigidCore(BakedBody& body, const BodyDesc& desc, const std::vector<Vec3>& g,
                          const std::vector<Vec3>& f) {
  const int n = body.atlas.nodeCount();
  auto pos = [&](int id) -> const Vec3& { return id < n ? g[id] : f[id - n]; };
  double mc = 0, vc = 0;
  Vec3 sc = Vec3::Zero();  // first moment about the shape origin [kg m]
  Mat3 cc = Mat3::Zero();  // second moment about the shape origin [kg m^2]
  const Vec3 o = Vec3::Zero();
  for (const Vec3i& tri : body.atlas.triangles) {
    const Vec3 &x1 = f[tri[0]], &x2 = f[tri[1]], &x3 = f[tri[2]];
    const double vol = tetSignedVolume(o, x1, x2, x3);
    const double rho = desc.materialAt((x1 + x2 + x3) / 4).density;
    vc += vol;
    mc += rho * vol;
    sc += rho * vol * (x1 + x2 + x3) / 4;
    cc += rho * tetSecondMoment(o, x1, x2, x3, vol);
  }
  if (!(vc > 0)) fail(desc, "the core surface encloses no volume (" + std::to_string(vc) + " m^3)");
  for (int i = 0; i < n; ++i) {
    const double m = body.coreVertexMass[i];
    mc += m;
    sc += m * f[i];
    cc += m * f[i] * f[i].transpose();
  }
  // Lumping rho V / 4 onto the vertices keeps each tet's mass and first moment
  // but not its second moment (with one element through the thickness the
  // inertia comes out ~3% high at core scale 0.6). The rigid core carries the
  // difference, so the body's rest inertia is the exact one of the solid.
  Mat3 dc = Mat3::Zero();
  for (size_t k = 0; k < body.tets.size(); ++k) {
    const Tet& t = body.tets[k];
    const double rho = body.tetDensity[k], v = body.tetVolume[k];
    const Vec3 x[4] = {pos(t[0]), pos(t[1]), pos(t[2]), pos(t[3])};
    Mat3 lumped = Mat3::Zero();
    for (const Vec3& xa : x) lumped += xa * xa.transpose();
    dc += rho * tetSecondMoment(x[0], x[1], x[2], x[3], v) - rho * v / 4 * lumped;
  }
  const Vec3 c0 = sc / mc;
  const Mat3 corrected = inertiaFromSecondMoment(cc + dc - mc * c0 * c0.transpose());
  // keep the correction only while the core's inertia stays positive definite
  if (Eigen::SelfAdjointEigenSolver<Mat3>(corrected).eigenvalues().minCoeff() > 0) {
    cc += dc;
    body.lumpingCorrection = dc;
  }
  // body frame origin = centre of mass of the rigid part
  const Vec3 com = sc / mc;
  body.comOffset = com;
  body.coreMass = mc;
  body.coreVolume = vc;
  // parallel axis: int (x-c)(x-c)^T = C - m c c^T
  const Mat3 about = cc - mc * com * com.transpose();
  body.coreInertia = inertiaFromSecondMoment(about);
  return about;
}

// The pipeline: checks, atlas, skin and core points, tetrahedra, materials and masses,
// stiffness, the rigid core, the body frame, the totals.
BakedBodyPtr bake(const BodyDesc& desc, const BakeProgress& progress) {
  const ShapeTopology topo = checkBakeable(desc);
  auto body = std::make_shared<BakedBody>();
  body->name = desc.name;

  // ---- atlas, skin and core points (shape frame) ---------------------------------
  progressAt(progress, 0.0f, "atlas");
  const int res = desc.atlasResolution;
  body->atlas = topo == ShapeTopology::Star ? buildCubeMapAtlas(res) : buildTorusAtlas(res);
  const int n = body->atlas.nodeCount();
  progressAt(progress, 0.15f, "surfaces");
  std::vector<Vec3> g, f;
  placeNodes(desc, body->atlas, g, f);

  progressAt(progress, 0.3f, "tetrahedra");
  buildLayerTets("body '" + desc.name + "'", body->atlas.triangles, g, f, body->tets, body->tetVolume);
  const Incidence inc = buildIncidence(body->tets, 2 * n);
  progressAt(progress, 0.45f, "masses");
  bakeMaterialsAndMasses(*body, desc, g, f, inc);
  progressAt(progress, 0.55f, "stiffness");
  body->stiffness = assembleRows(body->atlas.stencil, body->tets, inc, g, f, body->tetYoung, body->tetPoisson,
                                 &body->incompleteNeighbourhoods);
  progressAt(progress, 0.8f, "core");
  const Mat3 coreSecond = bakeRigidCore(*body, desc, g, f);  // (about the core's centre)
  const Vec3 com = body->comOffset;

  // ---- move to the body frame -----------------------------------------------------------------
  body->restSkin.resize(n);
  body->core.resize(n);
  body->layerDirection.resize(n);
  body->layer.resize(n);
  for (int i = 0; i < n; ++i) {
    body->restSkin[i] = g[i] - com;
    body->core[i] = f[i] - com;
    const Vec3 d = body->restSkin[i] - body->core[i];
    body->layer[i] = d.norm();
    body->layerDirection[i] = d / body->layer[i];
  }

  // ---- totals: core + skin nodes as point masses ------------------------------------------------
  progressAt(progress, 0.95f, "totals");
  double skinVolume = 0;
  for (double v : body->tetVolume) skinVolume += v;
  body->skinVolume = skinVolume;
  double m = body->coreMass;
  Vec3 s = Vec3::Zero();
  Mat3 c = coreSecond;  // core second moment about the body origin
  for (int i = 0; i < n; ++i) {
    const Vec3& u = body->restSkin[i];
    m += body->nodeMass[i];
    s += body->nodeMass[i] * u;
    c += body->nodeMass[i] * u * u.transpose();
  }
  body->totalMass = m;
  body->totalCom = s / m;
  body->totalInertia = inertiaFromSecondMoment(c - m * body->totalCom * body->totalCom.transpose());
  progressAt(progress, 1.0f, "done");
  body->skinBvh = SkinBvh(body->restSkin, body->atlas.triangles);
  body->fingerprint = fingerprint(*body);
  if (desc.morph) body->morph = bakeMorphTargets(desc, *body);
  return body;
}

}  // namespace d2t
