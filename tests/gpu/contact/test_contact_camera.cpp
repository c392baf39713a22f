// The contact camera (GPU stage 2 between deformable bodies) against the CPU
// reference findSkinContacts on the same frames: the sets of colliding nodes
// (intersection over union) and their depths.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/test_shapes.h"
#include "gpu/contact/contact_camera.h"
#include "sim/scene/obj_loader.h"
#include "sim/scene/sample_meshes.h"
#include "gl_test.h"

namespace d2t {
namespace {

using ContactCameraTest = test::GlTest;

struct Compared {
  double iou = 0, worstDepth = 0, spacing = 0;
  double normalAngle = 0;  // between the pair's normals (the CPU's, the camera's) [rad]
  double proxyAngle = 0;   // between the CPU's and stage 1's (the proxies') [rad]
  size_t cpu = 0, gpu = 0;
  std::set<int> facesA, facesB;  // the cube-map patches of the CPU's contact nodes on each side
};

// A pair overlapping along some direction, deformed a little; CPU and GPU stage 2.
Compared compare(ContactCamera& camera, const BodyDesc& da, const BodyDesc& db, const Quat& qb, const Vec3& offset) {
  const BakedBodyPtr ma = bake(da), mb = bake(db);
  LayeredBody a(ma, da), b(mb, db);
  b.editState().orientation = qb;
  b.editState().position = offset;
  // a little skin deformation so that the surfaces are not the rest ones
  for (int i = 0; i < a.nodeCount(); ++i) a.editState().q[size_t(i)] = 0.004 * std::sin(3.0 * i) * ma->restSkin[size_t(i)].normalized();
  for (int i = 0; i < b.nodeCount(); ++i) b.editState().q[size_t(i)] = 0.004 * std::cos(5.0 * i) * mb->restSkin[size_t(i)].normalized();
  const std::vector<LayeredBody*> bodies = {&a, &b};
  const std::vector<ConvexProxy> proxies = {makeProxy(*ma), makeProxy(*mb)};
  const std::vector<ProxyContact> pairs = findProxyContacts(bodies, proxies, 0.01, nullptr);
  EXPECT_EQ(pairs.size(), 1u);
  Compared r;
  if (pairs.empty()) return r;
  std::vector<NodeContact> ca, cb, ga, gb;
  findSkinContacts(a, b, pairs[0], &ca, &cb);
  camera.find(a, b, pairs[0], &ga, &gb);
  // node spacing: mean skin edge
  double edge = 0;
  for (const Vec3i& t : ma->atlas.triangles) edge += (ma->restSkin[size_t(t[1])] - ma->restSkin[size_t(t[0])]).norm();
  r.spacing = edge / double(ma->atlas.triangles.size());
  size_t inter = 0, uni = 0;
  for (int side = 0; side < 2; ++side) {
    std::map<int, double> cpu, gpu;
    for (const NodeContact& c : side ? cb : ca) cpu[c.node] = c.depth;
    for (const NodeContact& c : side ? gb : ga) gpu[c.node] = c.depth;
    std::set<int> all;
    for (const auto& [k, d] : cpu) all.insert(k);
    for (const auto& [k, d] : gpu) all.insert(k);
    uni += all.size();
    for (int k : all)
      if (!cpu.count(k) || !gpu.count(k))
        std::printf("  side %d node %d: cpu %s %.2e, gpu %s %.2e\n", side, k, cpu.count(k) ? "yes" : "no",
                    cpu.count(k) ? cpu[k] : 0.0, gpu.count(k) ? "yes" : "no", gpu.count(k) ? gpu[k] : 0.0);
    for (const auto& [k, d] : cpu) {
      auto it = gpu.find(k);
      if (it == gpu.end()) continue;
      ++inter;
      r.worstDepth = std::max(r.worstDepth, std::abs(it->second - d));
    }
    for (const auto& [k, d] : cpu) {
      const Atlas& at = side ? mb->atlas : ma->atlas;
      (side ? r.facesB : r.facesA).insert(at.texelPatch[size_t(at.nodeTexel[size_t(k)])]);
    }
    r.cpu += cpu.size();
    r.gpu += gpu.size();
  }
  r.iou = uni ? double(inter) / double(uni) : 1.0;
  // the pair's one normal (unifyPairNormal): the mean of the surfaces' normals, not
  // stage 1's direction
  if (!cb.empty() && !gb.empty()) {
    auto angle = [](const Vec3& u, const Vec3& v) { return std::atan2(u.cross(v).norm(), u.dot(v)); };
    r.normalAngle = angle(cb[0].normal, gb[0].normal);
    r.proxyAngle = angle(cb[0].normal, pairs[0].normal);
  }
  return r;
}

TEST_F(ContactCameraTest, ContactSetsMatchTheCpuReference) {
  ContactCamera camera(256);
  BodyDesc ball = test::ball(0.5, 48, 1e5);
  BodyDesc pumpkin = test::ball(0.5, 48, 1e5);
  pumpkin.shape = std::make_shared<test::Ellipsoid>(Vec3(0.6, 0.4, 0.5));
  struct Case {
    const char* name;
    BodyDesc b;
    Quat q;
    Vec3 offset;
  } cases[] = {
      {"ball on ball", ball, Quat::Identity(), Vec3(0.02, 0.95, -0.03)},
      {"ball on ball, tilted", ball, Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())), Vec3(0.6, 0.73, 0.2)},
      {"ellipsoid on ball", pumpkin, Quat(Eigen::AngleAxisd(0.4, Vec3::UnitX())), Vec3(-0.1, 0.88, 0.1)},
  };
  for (const Case& c : cases) {
    const Compared r = compare(camera, ball, c.b, c.q, c.offset);
    std::printf("%s: CPU %zu / GPU %zu colliding nodes, IoU %.3f, worst depth difference %.2e m (node spacing "
                "%.2e m, D texel %.2e m); the pair's normals %.1e rad apart (stage 1's %.1e rad from the CPU's)\n",
                c.name, r.cpu, r.gpu, r.iou, r.worstDepth, r.spacing, camera.texelSize(), r.normalAngle,
                r.proxyAngle);
    EXPECT_LT(r.normalAngle, 1e-4) << c.name;
    EXPECT_GT(r.cpu, 20u) << c.name;  // a contact patch, not a point
    EXPECT_GE(r.iou, 0.95) << c.name;
    EXPECT_LE(r.worstDepth, camera.texelSize()) << c.name;  // within one texel of D (finer than the atlas)
    EXPECT_LE(r.worstDepth, 1e-5) << c.name;  // in fact on the same triangle as the CPU's, in float
  }
  // the passes leave GL's defaults for whoever draws next (the renderer)
  GLint depthFunc = 0;
  glGetIntegerv(GL_DEPTH_FUNC, &depthFunc);
  EXPECT_EQ(depthFunc, GL_LESS);
  EXPECT_FALSE(glIsEnabled(GL_CULL_FACE));
  EXPECT_FALSE(glIsEnabled(GL_DEPTH_TEST));
}

// A ball against a mesh collider: the GPU (the collider drawn as side B, only the
// ball's nodes mapped) against findColliderContacts; an open sheet from either side (its
// triangles wound to face the ball, ColliderSide).
TEST_F(ContactCameraTest, ContactSetsWithAMeshColliderMatchTheCpuReference) {
  ContactCamera camera(256);
  const BodyDesc d = test::ball(0.5, 48, 1e5);
  const BakedBodyPtr m = bake(d);
  auto shape = [](const char* json) { return parseShape(JsonReader(nlohmann::json::parse(json), "test")); };
  // each collider `depth` into the ball along `d` (its nearest vertex), shifted sideways
  // an open sheet (double-sided: its triangles face up, met from above and from below)
  auto sheet = [] {
    TriMesh m = squareSheet(2.5, 6);
    const MeshReport r = orientPieces(&m);
    return makeOpenMeshShape(m, "sheet", r);
  };
  struct Case {
    const char* name;
    ShapePtr shape;
    Vec3 d, side;
    Quat q;
    double depth;
  } cases[] = {
      {"ball on a box", shape(R"({"type": "box", "size": [3, 1, 3], "bevel": 0})"), -Vec3::UnitY(), Vec3(0.4, 0, -0.3),
       Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY())), 0.04},
      {"ball on a box's rounded edge", shape(R"({"type": "box", "size": [1, 1, 1]})"), -Vec3::UnitY(),
       Vec3(0.05, 0, 0.02), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY()) * Eigen::AngleAxisd(kPi / 4, Vec3::UnitX())),
       0.06},
      {"fist into the ball", shape(R"({"type": "fist", "size": 0.55})"), -Vec3::UnitX(), Vec3(0, 0.05, 0),
       Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitY())), 0.08},
      // (level: `depth` is measured to the collider's nearest vertex, a tilted sheet's corner)
      {"ball on an open sheet", sheet(), -Vec3::UnitY(), Vec3(0.1, 0, 0.05), Quat::Identity(), 0.04},
      {"ball under an open sheet (its back)", sheet(), Vec3::UnitY(), Vec3(-0.1, 0, 0.05), Quat::Identity(), 0.04},
  };
  for (const Case& c : cases) {
    LayeredBody a(m, d);
    for (int i = 0; i < a.nodeCount(); ++i) a.editState().q[size_t(i)] = 0.004 * std::sin(3.0 * i) * m->restSkin[size_t(i)].normalized();
    ColliderDesc cd;
    cd.name = "collider";
    cd.type = ColliderType::Mesh;
    cd.shape = c.shape;
    cd.orientation = c.q;
    double reach = -1e300;  // how far the collider reaches back towards the ball: max of -d . (q v)
    for (const Vec3& v : Collider(cd).worldMesh().positions) reach = std::max(reach, -c.d.dot(v));
    cd.position = (0.5 - c.depth + reach) * c.d + c.side;
    const Collider collider(cd);
    // the ball and the collider's pieces (one for each of these: closed, near their hulls)
    std::vector<PlacedProxy> placed = {placeProxy(a, makeProxy(*m))};
    for (int k = 0; k < int(collider.pieces().size()); ++k) placed.push_back(placeProxy(collider, k));
    const std::vector<ProxyContact> pairs = findProxyContacts(placed, 0.01, nullptr);
    ASSERT_EQ(pairs.size(), 1u) << c.name;
    std::vector<NodeContact> cpu, gpu;
    findColliderContacts(a, collider, pairs[0].b - 1, pairs[0], &cpu);
    camera.keepSnapshots(true);
    camera.find(a, collider, pairs[0].b - 1, pairs[0], &gpu);
    // the texture viewer's D of the pair: the body and the collider, overlapping
    const std::vector<ContactCamera::Snapshot> snaps = camera.takeSnapshots();
    ASSERT_EQ(snaps.size(), 1u) << c.name;
    EXPECT_EQ(snaps[0].bodyA, d.name);
    EXPECT_EQ(snaps[0].bodyB, "collider");
    float deepest = 0;
    for (float v : snaps[0].d)
      if (v == v) deepest = std::max(deepest, v);
    EXPECT_GT(deepest, 0.5 * c.depth) << c.name;
    std::map<int, double> dc, dg;
    for (const NodeContact& k : cpu) dc[k.node] = k.depth;
    for (const NodeContact& k : gpu) dg[k.node] = k.depth;
    size_t inter = 0, uni = dc.size();
    double worst = 0;
    for (const auto& [node, depth] : dg) {
      auto it = dc.find(node);
      if (it == dc.end()) {
        ++uni;
        continue;
      }
      ++inter;
      worst = std::max(worst, std::abs(it->second - depth));
    }
    const double iou = uni ? double(inter) / double(uni) : 1.0;
    int colliding = 0;
    for (const NodeContact& k : cpu) colliding += k.depth > 0;
    // the pair's one normal, the collider's smooth normal at the contacts on both
    const double normalAngle =
        cpu.empty() || gpu.empty() ? 0 : std::atan2(cpu[0].normal.cross(gpu[0].normal).norm(),
                                                    cpu[0].normal.dot(gpu[0].normal));
    std::printf("%s: CPU %zu / GPU %zu nodes (%d colliding), IoU %.3f, worst depth difference %.2e m (D texel %.2e m), "
                "normals %.1e rad apart\n",
                c.name, dc.size(), dg.size(), colliding, iou, worst, camera.texelSize(), normalAngle);
    EXPECT_LT(normalAngle, 1e-4) << c.name;
    EXPECT_GE(colliding, 8) << c.name;
    EXPECT_GE(iou, 0.95) << c.name;
    EXPECT_LE(worst, camera.texelSize()) << c.name;
    EXPECT_LE(worst, 1e-5) << c.name;  // the same triangle as the CPU's, in float
    // the collider's contacts: none of the correction, its velocity, one normal out of it
    for (const NodeContact& k : gpu) {
      EXPECT_EQ(k.stiffnessShare, 1.0);
      EXPECT_EQ(k.other, -1);
      EXPECT_LT((k.normal - gpu[0].normal).norm(), 1e-12);
      EXPECT_LT(k.normal.dot(pairs[0].normal), 0) << c.name;
    }
  }
}

// Where the overlap lens sits on the seams of the cube-map atlas: across the edge between
// two faces, and at a corner where three meet (each body sees the other's lens at the
// opposite seam); the lens's nodes span two and three atlas patches.
TEST_F(ContactCameraTest, ContactSetsAcrossCubeMapSeamsMatchTheCpuReference) {
  const auto t0 = std::chrono::steady_clock::now();
  ContactCamera camera(256);
  const BodyDesc ball = test::ball(0.5, 48, 1e5);
  const Vec3 edge = Vec3(1, 1, 0).normalized(), corner = Vec3(1, 1, 1).normalized();
  struct Case {
    const char* name;
    Quat q;
    Vec3 offset;
    size_t faces;  // the patches the lens spans on each side
  } cases[] = {
      {"across a face edge", Quat::Identity(), 0.95 * edge, 2},
      {"across a face edge, off centre along it", Quat::Identity(), 0.95 * edge + Vec3(0, 0, 0.2), 2},
      {"at a cube corner", Quat::Identity(), 0.95 * corner, 3},
      {"at a corner of A, B turned (its face centre)",
       Quat::FromTwoVectors(Vec3::UnitY(), -corner), 0.95 * corner, 3},
  };
  for (const Case& c : cases) {
    const Compared r = compare(camera, ball, ball, c.q, c.offset);
    std::printf("%s: CPU %zu / GPU %zu colliding nodes on %zu + %zu patches, IoU %.3f, worst depth difference %.2e m "
                "(node spacing %.2e m, D texel %.2e m); the pair's normals %.1e rad apart\n",
                c.name, r.cpu, r.gpu, r.facesA.size(), r.facesB.size(), r.iou, r.worstDepth, r.spacing,
                camera.texelSize(), r.normalAngle);
    EXPECT_EQ(r.facesA.size(), c.faces) << c.name;  // (the lens is on A's seam)
    EXPECT_GT(r.cpu, 20u) << c.name;
    // (measured: IoU 1.000 in every case (79, 61, 100, 66 nodes); depths within 7.8e-8, 6.4e-8, 7.9e-8,
    // 8.7e-8 m; normals 7e-9 rad)
    EXPECT_GE(r.iou, 0.98) << c.name;  // (one node in 50 may flip at the margin)
    EXPECT_LE(r.worstDepth, 3e-7) << c.name;
    EXPECT_LT(r.normalAngle, 1e-4) << c.name;
  }
  std::printf("%.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST_F(ContactCameraTest, SeparatedSkinsDrawNothing) {
  ContactCamera camera(64);
  const BodyDesc d = test::ball(0.5, 32, 1e5);
  const BakedBodyPtr m = bake(d);
  LayeredBody a(m, d), b(m, d);
  b.editState().position = Vec3(0, 1.005, 0);  // 5 mm apart: stage 1 passes, the skins do not overlap
  ProxyContact p;
  p.normal = Vec3::UnitY();
  std::vector<NodeContact> ca, cb;
  EXPECT_EQ(camera.find(a, b, p, &ca, &cb), 0);
  EXPECT_TRUE(ca.empty() && cb.empty());
}


// The texture viewer's copy of D: two balls (r 0.5 m) overlapping by 2 cm along y.
// D peaks at the overlap (2 cm, less the chords of the skin mesh), the overlap covers
// the lens of radius sqrt(0.5^2 - 0.49^2) = 0.0995 m, and the copy is taken only on request.
TEST_F(ContactCameraTest, SnapshotOfDShowsTheOverlapLens) {
  ContactCamera camera(128);
  BodyDesc da = test::ball(0.5, 32, 1e5), db = da;
  da.name = "lower";
  db.name = "upper";
  const BakedBodyPtr ma = bake(da), mb = bake(db);
  LayeredBody a(ma, da), b(mb, db);
  b.editState().position = Vec3(0, 0.98, 0);
  ProxyContact p;
  p.normal = Vec3::UnitY();
  std::vector<NodeContact> ca, cb;
  camera.find(a, b, p, &ca, &cb);
  EXPECT_TRUE(camera.takeSnapshots().empty());  // not kept unless asked
  camera.keepSnapshots(true);
  ca.clear();
  cb.clear();
  EXPECT_GT(camera.find(a, b, p, &ca, &cb), 0);
  std::vector<ContactCamera::Snapshot> snaps = camera.takeSnapshots();
  ASSERT_EQ(snaps.size(), 1u);
  const ContactCamera::Snapshot& s = snaps[0];
  EXPECT_EQ(s.bodyA, "lower");
  EXPECT_EQ(s.bodyB, "upper");
  ASSERT_EQ(s.d.size(), size_t(128 * 128));
  EXPECT_NEAR(s.normal.y(), 1.0, 1e-12);
  double deepest = -1;
  int overlap = 0, missing = 0;
  for (float v : s.d) {
    if (!std::isfinite(v)) {
      ++missing;
      continue;
    }
    deepest = std::max(deepest, double(v));
    overlap += v > 0;
  }
  // the skins are inscribed in the spheres (chords): D is at most the spheres' overlap,
  // and at least the deepest node the same passes found (within a texel's slope)
  double nodeDepth = 0;
  for (const auto* cs : {&ca, &cb})
    for (const NodeContact& c : *cs) nodeDepth = std::max(nodeDepth, c.depth);
  const double area = overlap * s.texelSize * s.texelSize, lens = M_PI * (0.25 - 0.49 * 0.49);
  std::printf("D: deepest %.4f m (deepest node %.4f m), overlap %.4f m2 (spheres' lens %.4f m2), %d texels "
              "without a skin\n",
              deepest, nodeDepth, area, lens, missing);
  EXPECT_LE(deepest, 0.02 + 1e-5);
  EXPECT_GE(deepest, nodeDepth - 0.002);
  EXPECT_GT(deepest, 0.4 * 0.02);
  EXPECT_LE(area, 1.05 * lens);
  EXPECT_GE(area, 0.5 * lens);
  EXPECT_GT(missing, 0);  // the window's corners see no skin
  EXPECT_TRUE(camera.takeSnapshots().empty());  // taken once
}

}  // namespace
}  // namespace d2t
