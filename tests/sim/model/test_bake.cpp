// Bake: volumes, masses and inertia against closed forms; K_e symmetric positive
// definite and local; heterogeneous material; refusal of unbakeable bodies.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/model/bake_report.h"
#include "sim/model/baked_body.h"
#include "test_shapes.h"

namespace d2t {
namespace {

constexpr double kR = 0.5, kS = 0.6;

BodyDesc sphereBody(int res, double radius = kR, double coreScale = kS) {
  BodyDesc d;
  d.name = "ball";
  d.shape = makeSphere(radius);
  d.coreScale = coreScale;
  d.atlasResolution = res;
  return d;
}

BodyDesc torusBody(int res, double major = 0.4, double minor = 0.15, double coreScale = kS) {
  BodyDesc d;
  d.name = "tire";
  d.shape = std::make_shared<test::Torus>(major, minor);
  d.coreScale = coreScale;
  d.atlasResolution = res;
  return d;
}

using test::Ellipsoid;

// a closed shape that is neither star-shaped nor a torus
class Blob final : public Shape {
 public:
  std::string type() const override { return "blob"; }
  ShapeTopology topology() const override { return ShapeTopology::Solid; }
  double signedDistance(const Vec3& p) const override { return p.norm() - 1; }
  TriMesh mesh(int) const override { return {}; }
  double boundingRadius() const override { return 1; }
};

double shellVolume(double r, double s) { return 4.0 / 3.0 * kPi * (r * r * r) * (1 - s * s * s); }

TEST(BakeSphere, LayerVolumeConvergesToClosedForm) {
  const double exact = shellVolume(kR, kS);
  double prev = 1;
  for (int res : {32, 64, 128}) {
    const BakedBodyPtr b = bake(sphereBody(res));
    const double err = std::abs(b->skinVolume - exact) / exact;
    const double coreErr = std::abs(b->coreVolume - 4.0 / 3.0 * kPi * std::pow(kS * kR, 3)) /
                           (4.0 / 3.0 * kPi * std::pow(kS * kR, 3));
    std::printf("[ figures  ] sphere N=%d nodes=%d tets=%d layer volume error %.4f%%, core %.4f%%\n", res,
                b->nodeCount(), b->tetCount(), 100 * err, 100 * coreErr);
    if (res == 64) {
      EXPECT_LT(err, 0.01);
    }
    EXPECT_LT(err, prev);
    prev = err;
    for (double v : b->tetVolume) ASSERT_GT(v, 0);
  }
}

// the tets fill the layer exactly once: conforming faces, no gaps or overlaps
void expectConformingLayer(const BakedBody& b) {
  const int n = b.nodeCount();
  std::map<std::array<int, 3>, int> faces;
  for (const Tet& t : b.tets)
    for (int k = 0; k < 4; ++k) {
      std::array<int, 3> f;
      for (int j = 0, m = 0; j < 4; ++j)
        if (j != k) f[m++] = t[j];
      std::sort(f.begin(), f.end());
      ++faces[f];
    }
  int skin = 0, core = 0, inner = 0, bad = 0;
  for (const auto& [f, count] : faces) {
    const bool allSkin = f[2] < n, allCore = f[0] >= n;
    if (count == 2 && !allSkin && !allCore) ++inner;
    else if (count == 1 && allSkin) ++skin;
    else if (count == 1 && allCore) ++core;
    else ++bad;
  }
  const int ntri = static_cast<int>(b.atlas.triangles.size());
  EXPECT_EQ(bad, 0) << "tet faces used more than twice, or boundary faces inside the layer";
  EXPECT_EQ(skin, ntri);
  EXPECT_EQ(core, ntri);
  // layer volume = volume inside the skin surface - volume inside the core surface
  double outer = 0, innerVol = 0;
  for (const Vec3i& t : b.atlas.triangles) {
    outer += b.restSkin[t[0]].cross(b.restSkin[t[1]]).dot(b.restSkin[t[2]]) / 6;
    innerVol += b.core[t[0]].cross(b.core[t[1]]).dot(b.core[t[2]]) / 6;
  }
  EXPECT_NEAR(b.skinVolume, outer - innerVol, 1e-12 * outer);
  EXPECT_NEAR(b.coreVolume, innerVol, 1e-12 * outer);
}

TEST(BakeTets, PrismSplitConformsAcrossNeighbours) {
  expectConformingLayer(*bake(sphereBody(32)));
  expectConformingLayer(*bake(torusBody(32)));
}

TEST(BakeSphere, MassCountedOnceAndInertiaOfABall) {
  BodyDesc d = sphereBody(64);
  d.material.density = 1100;
  const BakedBodyPtr b = bake(d);
  // every kilogram once: skin nodes + rigid core = density x (layer + core volume)
  double skin = 0, coreShares = 0;
  for (int i = 0; i < b->nodeCount(); ++i) {
    skin += b->nodeMass[i];
    coreShares += b->coreVertexMass[i];
  }
  const double expect = 1100 * (b->skinVolume + b->coreVolume);
  EXPECT_NEAR(b->totalMass, expect, 1e-12 * expect);
  EXPECT_NEAR(b->coreMass + skin, b->totalMass, 1e-12 * expect);
  EXPECT_NEAR(skin + coreShares, 1100 * b->skinVolume, 1e-12 * expect);
  // symmetric body: com near the shape's centre. Not exactly: the tet split
  // follows the node order, so the lumped shares at patch edges are uneven
  // (the solid's com is at the shape's centre: its body-frame com is -comOffset)
  const Vec3 solidCom = solidMassProperties(*b).com + b->comOffset;
  std::printf("[ figures  ] sphere N=64 body origin offset %.3g m, lumped com %.3g m, solid com %.3g m "
              "(shape frame)\n", b->comOffset.norm(), (b->totalCom + b->comOffset).norm(), solidCom.norm());
  EXPECT_LT(b->comOffset.norm(), 0.01 * kR);
  EXPECT_LT(b->totalCom.norm(), 0.01 * kR);
  EXPECT_LT(solidCom.norm(), 1e-12);
  // inertia of a uniform ball 2/5 m r^2: the solid (exact integral over the
  // tets) within 2%; the lumped model (skin nodes + rigid core) equals it, since
  // the core carries the second moment that lumping moves (~3.4% at s = 0.6)
  const double ball = 0.4 * b->totalMass * kR * kR;
  const SolidMassProperties solid = solidMassProperties(*b);
  EXPECT_NEAR(solid.mass, b->totalMass, 1e-12 * b->totalMass);
  const double isoSolid = solid.inertia.trace() / 3;
  const double iso = b->totalInertia.trace() / 3;
  std::printf("[ figures  ] sphere N=64 inertia vs 2/5 m r^2 = %.6g: solid %.6g (%+.2f%%), lumped %.6g (%+.2f%%), "
              "lumped off-diagonal %.2g\n", ball, isoSolid, 100 * (isoSolid / ball - 1), iso, 100 * (iso / ball - 1),
              (b->totalInertia - iso * Mat3::Identity()).norm());
  EXPECT_NEAR(isoSolid, ball, 0.02 * ball);
  EXPECT_LT((solid.inertia - isoSolid * Mat3::Identity()).norm(), 1e-3 * isoSolid);
  EXPECT_NEAR(iso, ball, 0.02 * ball);
  EXPECT_LT((b->totalInertia - solid.inertia).norm(), 1e-9 * iso);
  EXPECT_LT((b->totalInertia - iso * Mat3::Identity()).norm(), 5e-3 * iso);
  // the core is a rigid body about its own com: I_c symmetric positive definite
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(b->coreInertia).eigenvalues().minCoeff(), 0);
}

void expectStiffnessSound(const BakedBody& b, const char* what) {
  EXPECT_EQ(b.incompleteNeighbourhoods, 0);
  EXPECT_TRUE(isClosedSurface(b.atlas.triangles));
  const double sym = stiffnessSymmetryError(b);
  const StiffnessSpectrum spec = stiffnessSpectrum(b);
  std::printf("[ figures  ] %s: symmetry error %.2g, min eigenvalue of M^-1/2 K M^-1/2 %.6g 1/s^2 "
              "(%d iterations)\n", what, sym, spec.minEigenvalue, spec.iterations);
  EXPECT_LT(sym, 1e-12);
  EXPECT_TRUE(spec.converged);
  EXPECT_TRUE(spec.positiveDefinite);
  EXPECT_GT(spec.minEigenvalue, 0);
  // y = K x through the stencil equals the assembled matrix
  const int n = b.nodeCount();
  Eigen::VectorXd x(3 * n), y(3 * n);
  for (int i = 0; i < 3 * n; ++i) x[i] = std::sin(0.1 * i) + 0.01 * (i % 7);
  multiplyK(b, x.data(), y.data());
  const Eigen::VectorXd ref = assembleK(b) * x;
  EXPECT_LE((y - ref).norm(), 1e-12 * ref.norm());
  // rigid motions of skin AND core are in the null space of the full K; with the
  // core held, a uniform skin translation must cost energy (x^T K x > 0)
  Eigen::VectorXd t(3 * n);
  for (int i = 0; i < n; ++i) t.segment<3>(3 * i) = Vec3(1, 0, 0);
  multiplyK(b, t.data(), y.data());
  EXPECT_GT(t.dot(y), 0);
}

TEST(BakeStiffness, SymmetricPositiveDefiniteSphere) {
  expectStiffnessSound(*bake(sphereBody(32)), "sphere N=32");
}

TEST(BakeStiffness, SymmetricPositiveDefiniteTorus) {
  expectStiffnessSound(*bake(torusBody(32)), "torus N=32");
}

TEST(BakeStiffness, MinEigenvalueMatchesDenseSolver) {
  // LOBPCG against a dense eigensolver of M^-1/2 K M^-1/2 on small bodies
  for (const BodyDesc& d : {sphereBody(18), torusBody(12)}) {
    const BakedBodyPtr b = bake(d);
    const Eigen::MatrixXd k = Eigen::MatrixXd(assembleK(*b));
    Eigen::VectorXd s(k.rows());
    for (int i = 0; i < b->nodeCount(); ++i) s.segment<3>(3 * i).setConstant(1 / std::sqrt(b->nodeMass[i]));
    const Eigen::MatrixXd a = s.asDiagonal() * k * s.asDiagonal();
    const double exact = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues().minCoeff();
    const StiffnessSpectrum spec = stiffnessSpectrum(*b);
    EXPECT_TRUE(spec.converged);
    EXPECT_NEAR(spec.minEigenvalue, exact, 1e-7 * exact) << d.name;
  }
}

TEST(BakeStiffness, MinEigenvalueScalesWithYoungOverDensity) {
  // omega^2 ~ E / (rho L^2): doubling E doubles every eigenvalue, doubling rho halves it
  BodyDesc d = sphereBody(32);
  const double l1 = stiffnessSpectrum(*bake(d)).minEigenvalue;
  d.material.young *= 2;
  const double l2 = stiffnessSpectrum(*bake(d)).minEigenvalue;
  d.material.density *= 4;
  const double l3 = stiffnessSpectrum(*bake(d)).minEigenvalue;
  EXPECT_NEAR(l2 / l1, 2.0, 1e-6);
  EXPECT_NEAR(l3 / l1, 0.5, 1e-6);
}

TEST(BakeMaterial, StifferRegionChangesOnlyNearbyBlocks) {
  BodyDesc soft = sphereBody(32);
  BodyDesc mixed = soft;
  mixed.regions.push_back(test::stiffHalf(soft.material, 20));
  const BakedBodyPtr a = bake(soft), b = bake(mixed);
  ASSERT_EQ(a->nodeCount(), b->nodeCount());
  EXPECT_EQ(b->incompleteNeighbourhoods, 0);
  // nodes whose incident tets touch x > 0 (shape frame = body frame here)
  const int n = a->nodeCount();
  std::vector<char> touches(n, 0);
  for (const Tet& t : a->tets) {
    bool any = false;
    for (int id : t) any = any || (a->vertex(id) + a->comOffset).x() > 0;
    if (!any) continue;
    for (int id : t)
      if (id < n) touches[id] = 1;
  }
  int changed = 0, identical = 0, farChecked = 0;
  for (int i = 0; i < n; ++i) {
    bool same = true;
    for (int s = 0; s < kStencilSlots; ++s)
      same = same && (a->stiffness[i][s].array() == b->stiffness[i][s].array()).all();
    if (touches[i]) {
      changed += !same;
    } else {
      identical += same;
      ++farChecked;
    }
  }
  int touching = 0;
  for (char c : touches) touching += c;
  EXPECT_EQ(changed, touching) << "every node with a tet touching x > 0 has stiffer blocks";
  EXPECT_EQ(identical, farChecked) << "nodes away from x > 0 keep bitwise identical blocks";
  EXPECT_GT(farChecked, n / 3);
  // stiffer where x > 0: the diagonal block of a node well inside the region grows ~20x
  for (int i = 0; i < n; ++i)
    if (b->restSkin[i].x() > 0.3) {
      EXPECT_NEAR(b->stiffness[i][0].trace() / a->stiffness[i][0].trace(), 20.0, 1e-9);
      EXPECT_EQ(b->material[i].young, 20 * soft.material.young);
      break;
    }
  expectStiffnessSound(*b, "sphere N=32, x > 0 20x stiffer");
}

TEST(BakeMaterial, DenserHalfMovesTheBodyFrame) {
  BodyDesc d = sphereBody(32);
  MaterialRegion r;
  r.young = d.material.young;
  r.poisson = d.material.poisson;
  r.density = 3 * d.material.density;
  d.regions.push_back(r);
  const BakedBodyPtr b = bake(d);
  EXPECT_GT(b->comOffset.x(), 0.01);
  // body frame origin = com of the rigid part: its first moment vanishes there,
  // so the whole body's com is the skin nodes' contribution alone
  Vec3 s = Vec3::Zero();
  double m = 0;
  for (int i = 0; i < b->nodeCount(); ++i) {
    s += b->nodeMass[i] * b->restSkin[i];
    m += b->nodeMass[i];
  }
  EXPECT_LT((b->totalCom - s / b->totalMass).norm(), 1e-12);
}

TEST(BakeTorus, LayerVolumeMatchesClosedForm) {
  const double major = 0.4, minor = 0.15;
  const double exact = 2 * kPi * kPi * major * (minor * minor - std::pow(kS * minor, 2));
  const BakedBodyPtr b = bake(torusBody(64, major, minor));
  const double err = std::abs(b->skinVolume - exact) / exact;
  std::printf("[ figures  ] torus N=64 nodes=%d layer volume error %.4f%%\n", b->nodeCount(), 100 * err);
  EXPECT_LT(err, 0.02);
  EXPECT_EQ(b->incompleteNeighbourhoods, 0);
  const double coreExact = 2 * kPi * kPi * major * std::pow(kS * minor, 2);
  EXPECT_NEAR(b->coreVolume, coreExact, 0.02 * coreExact);
  // symmetric about the axis: com near the centre (see BakeSphere)
  EXPECT_LT(b->comOffset.norm(), 1e-3 * major);
}

TEST(BakeErrors, RefusesSolidShapes) {
  BodyDesc d = sphereBody(32);
  d.name = "fist";
  d.shape = std::make_shared<Blob>();
  try {
    bake(d);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("fist"), std::string::npos) << msg;
    EXPECT_NE(msg.find("star-shaped"), std::string::npos) << msg;
    EXPECT_NE(msg.find("torus"), std::string::npos) << msg;
  }
}

TEST(BakeErrors, CoreOutsideSkinIsAnError) {
  BodyDesc d = sphereBody(32);
  d.name = "lumpy";
  d.coreShape = std::make_shared<Ellipsoid>(Vec3(0.6, 0.3, 0.3));  // pokes through along x
  try {
    bake(d);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("lumpy"), std::string::npos) << msg;
    EXPECT_NE(msg.find("core"), std::string::npos) << msg;
  }
  d.coreShape = std::make_shared<Ellipsoid>(Vec3(0.4, 0.3, 0.3));  // inside: fine
  EXPECT_EQ(bake(d)->incompleteNeighbourhoods, 0);
}

TEST(BakeReport, FieldsAndTiming) {
  for (int res : {64, 128, 256}) {
    int calls = 0;
    float last = -1;
    const auto t0 = std::chrono::steady_clock::now();
    const BakedBodyPtr b = bake(sphereBody(res), [&](float f, const char*) {
      EXPECT_GE(f, last);
      last = f;
      ++calls;
    });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(last, 1.0f);
    EXPECT_GT(calls, 3);
    std::printf("[ figures  ] bake sphere N=%d: %d nodes, %d tets, %.1f ms\n", res, b->nodeCount(),
                b->tetCount(), ms);
    if (res != 64) continue;
    const nlohmann::json r = bakeReport(*b, "ball", ms);
    std::printf("[ figures  ] report %s\n", r.dump().c_str());
    EXPECT_EQ(r["atlas_resolution"], 64);
    EXPECT_EQ(r["patches"], 6);
    EXPECT_EQ(r["nodes"], 2166);
    EXPECT_EQ(r["tets"], b->tetCount());
    EXPECT_EQ(r["incomplete_neighbourhoods"], 0);
    EXPECT_EQ(r["surface_watertight"], true);
    EXPECT_LT(r["stiffness_symmetry_error"].get<double>(), 1e-12);
    EXPECT_GT(r["stiffness_min_eigenvalue"].get<double>(), 0);
    EXPECT_NEAR(r["mass"].get<double>(), b->totalMass, 0);
    EXPECT_EQ(r["inertia"].size(), 3u);
  }
}

}  // namespace
}  // namespace d2t
