// Procedural shapes: meshes closed and on the surface, radius(d) consistent
// with the signed distance, star shapes continuous, torus orientation, exact
// distances where they are exact, and parse errors that name file and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "sim/scene/shape.h"

using namespace d2t;

namespace {

ShapePtr shapeFrom(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  return parseShape(JsonReader(j, "scene.json", "/shape"));
}

// The InputError message of parsing `text`, or "" when it parses.
std::string errorOf(const std::string& text) {
  try {
    shapeFrom(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Every procedural kind, with non-default parameters where they matter.
const std::vector<std::string> kStarShapes = {
    R"({"type": "sphere", "radius": 0.4})",
    R"({"type": "pumpkin", "radius": 0.5, "ribs": 9, "rib_depth": 0.12})",
    R"({"type": "gear", "radius": 0.5, "thickness": 0.2, "teeth": 10, "tooth_depth": 0.08, "bevel": 0.03})",
    R"({"type": "cylinder", "radius": 0.3, "height": 0.8})",
    R"({"type": "box", "size": [0.6, 0.3, 0.4], "bevel": 0.05})",
    R"({"type": "head", "size": 0.35})",
    R"({"type": "ellipsoid", "radii": [0.6, 0.16, 0.14], "bumps": [{"direction": [-1, 0, 0], "height": 0.35,
        "width": 0.1}, {"direction": [0.1, 1, 0], "height": 1.0, "width": 0.18}, {"direction": [0, 0, 1],
        "height": -0.3, "width": 0.4}]})",
};
const std::vector<std::string> kAllShapes = {
    kStarShapes[0], kStarShapes[1], kStarShapes[2], kStarShapes[3], kStarShapes[4], kStarShapes[5], kStarShapes[6],
    R"({"type": "torus", "major_radius": 0.4, "minor_radius": 0.15, "treads": 24, "tread_depth": 0.02})",
    R"({"type": "fist", "size": 0.3})",
    R"({"type": "bird", "size": 0.3})",
};

std::vector<Vec3> randomDirections(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  std::vector<Vec3> out;
  for (int i = 0; i < n; ++i) out.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
  // and the awkward ones: poles, axes, the atan2 branch cut, cube-map corners
  for (const Vec3& d : {Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(1, 0, 0), Vec3(-1, 0, 0),
                        Vec3(-1, 0, 1e-12), Vec3(-1, 0, -1e-12), Vec3(0, 0, 1), Vec3(1, 1, 1),
                        Vec3(-1, 1, -1), Vec3(1e-9, 1, 0)})
    out.push_back(d.normalized());
  return out;
}

}  // namespace

TEST(Shape, EveryMeshIsClosedOutwardAndOnTheSurface) {
  for (const std::string& text : kAllShapes) {
    SCOPED_TRACE(text);
    const ShapePtr s = shapeFrom(text);
    const TriMesh m = s->mesh(32);
    EXPECT_TRUE(m.isClosed());
    EXPECT_GT(m.volume(), 0.0);
    const double R = s->boundingRadius();
    double worst = 0;
    for (const Vec3& p : m.positions) {
      EXPECT_LE(p.norm(), R * (1 + 1e-9));
      worst = std::max(worst, std::abs(s->signedDistance(p)));
    }
    // procedural meshes sample the surface exactly (fist and bird: a vertex
    // of one part may lie inside another part)
    if (s->topology() != ShapeTopology::Solid) {
      EXPECT_LT(worst, 1e-9 * R);
    }
  }
}

TEST(Shape, MeshVolumeMatchesClosedFormForCylinderBoxAndTorus) {
  // a cylinder with bevel b: pi r^2 h minus the rim, which is the ring swept by
  // the corner square minus quarter disc: 2 * 2 pi * (r - b + 4b/(3 pi)) * (b^2 - pi b^2 / 4)
  const double r = 0.3, h = 0.8, b = 0.03;
  const ShapePtr cyl = shapeFrom(R"({"type": "cylinder", "radius": 0.3, "height": 0.8, "bevel": 0.03})");
  const double corner = b * b * (1 - kPi / 4);
  // centroid of the cut-off corner (square b^2 at b/2 minus quarter disc at 4b/(3 pi)),
  // measured from the axis
  const double centroidR = r - b + 2 * b / (12 - 3 * kPi);
  const double Vcyl = kPi * r * r * h - 2 * 2 * kPi * centroidR * corner;
  EXPECT_NEAR(cyl->mesh(128).volume() / Vcyl, 1.0, 2e-3);
  // plain torus: 2 pi^2 R r^2
  const ShapePtr torus = shapeFrom(R"({"type": "torus", "major_radius": 0.4, "minor_radius": 0.1})");
  EXPECT_NEAR(torus->mesh(64).volume() / (2 * kPi * kPi * 0.4 * 0.01), 1.0, 3e-3);
  // sharp cube: the cube-sphere faces land on the cube's faces, so exact
  const ShapePtr box = shapeFrom(R"({"type": "box", "size": [0.4, 0.4, 0.4], "bevel": 0})");
  EXPECT_NEAR(box->mesh(8).volume(), 0.4 * 0.4 * 0.4, 1e-14);
}

TEST(Shape, RadiusAgreesWithSignedDistance) {
  for (const std::string& text : kStarShapes) {
    SCOPED_TRACE(text);
    const ShapePtr s = shapeFrom(text);
    ASSERT_EQ(s->topology(), ShapeTopology::Star);
    const double R = s->boundingRadius();
    for (const Vec3& d : randomDirections(2000, 7)) {
      const double r = s->radius(d);
      ASSERT_GT(r, 0.0);
      ASSERT_LE(r, R * (1 + 1e-12));
      EXPECT_NEAR(s->signedDistance(r * d), 0.0, 1e-9 * R) << d.transpose();
      EXPECT_LT(s->signedDistance(0.95 * r * d), 0.0);
      EXPECT_GT(s->signedDistance(1.05 * r * d), 0.0);
    }
  }
}

TEST(Shape, StarRadiusIsContinuous) {
  // the largest change of radius between directions delta apart must shrink
  // with delta (a jump would not), and stay a modest multiple of delta
  for (const std::string& text : kStarShapes) {
    SCOPED_TRACE(text);
    const ShapePtr s = shapeFrom(text);
    const double R = s->boundingRadius();
    auto worstChange = [&](double delta) {
      double worst = 0;
      std::mt19937 rng(3);
      std::normal_distribution<double> g;
      for (const Vec3& d : randomDirections(20000, 11)) {
        const Vec3 e = (d + delta * Vec3(g(rng), g(rng), g(rng)).normalized()).normalized();
        worst = std::max(worst, std::abs(s->radius(d) - s->radius(e)) / (d - e).norm());
      }
      return worst;
    };
    const double slopeCoarse = worstChange(1e-3), slopeFine = worstChange(1e-5);
    EXPECT_LT(slopeCoarse, 10 * R);  // |dr/dtheta| bounded: no steps
    EXPECT_LT(slopeFine, 1.5 * slopeCoarse + 1e-9);
  }
}

TEST(Shape, NormalIsTheOutwardUnitGradient) {
  const ShapePtr sphere = makeSphere(0.5);
  for (const Vec3& d : randomDirections(100, 5))
    EXPECT_LT((sphere->normal(0.5 * d) - d).norm(), 1e-8);
  const ShapePtr box = shapeFrom(R"({"type": "box", "size": [0.6, 0.3, 0.4]})");
  EXPECT_LT((box->normal(Vec3(0.3, 0.01, -0.02)) - Vec3::UnitX()).norm(), 1e-8);
  EXPECT_LT((box->normal(Vec3(0.02, -0.15, 0.03)) + Vec3::UnitY()).norm(), 1e-8);
  // star shapes with the radial estimate: outward (positive along d) and unit
  for (const std::string& text : kStarShapes) {
    SCOPED_TRACE(text);
    const ShapePtr s = shapeFrom(text);
    for (const Vec3& d : randomDirections(200, 9)) {
      const Vec3 n = s->normal(s->radius(d) * d);
      EXPECT_NEAR(n.norm(), 1.0, 1e-12);
      EXPECT_GT(n.dot(d), 0.0);
    }
  }
}

TEST(Shape, CylinderBoxAndSphereDistancesAreExact) {
  const ShapePtr sphere = makeSphere(0.5);
  EXPECT_DOUBLE_EQ(sphere->signedDistance(Vec3(0, 2, 0)), 1.5);
  EXPECT_DOUBLE_EQ(sphere->signedDistance(Vec3::Zero()), -0.5);
  EXPECT_DOUBLE_EQ(sphere->radius(Vec3::UnitZ()), 0.5);

  const ShapePtr box = shapeFrom(R"({"type": "box", "size": [2, 1, 1], "bevel": 0.1})");
  EXPECT_NEAR(box->signedDistance(Vec3(2, 0, 0)), 1.0, 1e-15);
  EXPECT_NEAR(box->signedDistance(Vec3(0, 0, 0)), -0.5, 1e-15);
  // beyond a rounded corner: distance to the corner sphere of radius 0.1 at (0.9, 0.4, 0.4)
  EXPECT_NEAR(box->signedDistance(Vec3(1.5, 1, 1)), std::sqrt(3 * 0.36) - 0.1, 1e-14);
  EXPECT_NEAR(box->radius(Vec3::UnitX()), 1.0, 1e-15);
  // along (1, 1, 1) the ray meets the rounded edge parallel to x: the cylinder
  // of radius 0.1 about the line y = z = 0.4
  const Vec3 d = Vec3(1, 1, 1).normalized();
  const Vec3 p = box->radius(d) * d;
  EXPECT_LT(p.x(), 0.9);
  EXPECT_NEAR(Vec2(p.y() - 0.4, p.z() - 0.4).norm(), 0.1, 1e-12);

  const ShapePtr cyl = shapeFrom(R"({"type": "cylinder", "radius": 0.5, "height": 1, "bevel": 0.1})");
  EXPECT_NEAR(cyl->signedDistance(Vec3(0, 2, 0)), 1.5, 1e-15);
  EXPECT_NEAR(cyl->signedDistance(Vec3(0.3, 0, 0.4)), 0.0, 1e-15);
  EXPECT_NEAR(cyl->radius(Vec3(0.6, 0, 0.8)), 0.5, 1e-15);
  EXPECT_NEAR(cyl->radius(Vec3::UnitY()), 0.5, 1e-15);
}

TEST(Shape, PumpkinAndGearHaveTheirFeatures) {
  const ShapePtr p = shapeFrom(R"({"type": "pumpkin", "radius": 0.5, "height": 0.4, "ribs": 8, "rib_depth": 0.1})");
  // rib centre at phi = 0, groove at phi = pi / ribs: depth = rib_depth * radius on the equator
  EXPECT_NEAR(p->radius(Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(p->radius(Vec3(std::cos(kPi / 8), 0, std::sin(kPi / 8))), 0.45, 1e-12);
  // dimpled poles: below the vertical semi-axis
  EXPECT_LT(p->radius(Vec3::UnitY()), 0.4 * 0.9);
  EXPECT_LT(p->radius(-Vec3::UnitY()), 0.4 * 0.9);

  const ShapePtr g = shapeFrom(R"({"type": "gear", "radius": 0.5, "thickness": 0.2, "teeth": 10, "tooth_depth": 0.08})");
  // tooth tip at phi = 0, gap at phi = pi / teeth
  EXPECT_NEAR(g->radius(Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(g->radius(Vec3(std::cos(kPi / 10), 0, std::sin(kPi / 10))), 0.42, 1e-12);
  EXPECT_NEAR(g->radius(Vec3::UnitY()), 0.1, 1e-12);
}

TEST(Shape, TorusSurfaceIsOutwardAndOnTheSurface) {
  const ShapePtr t = shapeFrom(R"({"type": "torus", "major_radius": 0.4, "minor_radius": 0.15, "treads": 20, "tread_depth": 0.03})");
  ASSERT_EQ(t->topology(), ShapeTopology::Torus);
  const double h = 1e-6;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) {
      const double u = (i + 0.37) / 40, v = (j + 0.61) / 40;
      const Vec3 p = t->surfacePoint(u, v);
      const Vec3 pu = (t->surfacePoint(u + h, v) - t->surfacePoint(u - h, v)) / (2 * h);
      const Vec3 pv = (t->surfacePoint(u, v + h) - t->surfacePoint(u, v - h)) / (2 * h);
      const Vec3 anchor = t->coreAnchor(p);
      EXPECT_NEAR(Vec2(anchor.x(), anchor.z()).norm(), 0.4, 1e-12);
      EXPECT_EQ(anchor.y(), 0.0);
      EXPECT_GT(pu.cross(pv).dot(p - anchor), 0.0) << "u=" << u << " v=" << v;
      EXPECT_NEAR(t->signedDistance(p), 0.0, 1e-12);
      // periodic in both parameters
      EXPECT_LT((t->surfacePoint(u + 1, v) - p).norm(), 1e-12);
      EXPECT_LT((t->surfacePoint(u, v + 1) - p).norm(), 1e-12);
    }
  // treads only on the outer side: the inner equator keeps the tube radius
  EXPECT_NEAR(t->surfacePoint(0.013, 0.5).norm(), 0.4 - 0.15, 1e-12);
  EXPECT_THROW(t->radius(Vec3::UnitX()), std::logic_error);
}

TEST(Shape, PlainTorusDistanceIsExact) {
  const ShapePtr t = shapeFrom(R"({"type": "torus", "major_radius": 0.4, "minor_radius": 0.1})");
  EXPECT_NEAR(t->signedDistance(Vec3(0.6, 0, 0)), 0.1, 1e-15);
  EXPECT_NEAR(t->signedDistance(Vec3(0, 0, -0.4)), -0.1, 1e-15);
  EXPECT_NEAR(t->signedDistance(Vec3(0, 0, 0)), 0.3, 1e-15);
  EXPECT_NEAR(t->signedDistance(Vec3(0, 0.5, 0.4)), 0.4, 1e-15);
  EXPECT_TRUE(t->notDeformableReason().empty());
}

TEST(Shape, FistAndBirdAreSolidColliders) {
  for (const char* text : {R"({"type": "fist", "size": 0.3})", R"({"type": "bird", "size": 0.3})"}) {
    SCOPED_TRACE(text);
    const ShapePtr s = shapeFrom(text);
    EXPECT_EQ(s->topology(), ShapeTopology::Solid);
    EXPECT_THROW(s->radius(Vec3::UnitX()), std::logic_error);
    EXPECT_THROW(s->surfacePoint(0, 0), std::logic_error);
    EXPECT_NE(s->notDeformableReason().find("rigid collider"), std::string::npos);
    EXPECT_LT(s->signedDistance(Vec3::Zero()), 0.0);
    // far away the distance approaches the distance to the bounding sphere from outside
    const double R = s->boundingRadius();
    EXPECT_GT(s->signedDistance(Vec3(3 * R, 0, 0)), 1.9 * R);
    EXPECT_GT(s->signedDistance(Vec3(0, -3 * R, 0)), 1.9 * R);
    EXPECT_GT(s->signedDistance(Vec3(0, 0, 3 * R)), 1.9 * R);
    EXPECT_LT(R, 0.3);  // `size` is the overall extent
    EXPECT_GT(R, 0.1);
  }
}

// Each type with no parameters: its documented defaults (docs/scenes.md) give a closed,
// outward mesh inside the bounding radius, with the volume of those defaults where it has
// a closed form (sphere r 0.5; torus R 0.4, r 0.15; cylinder r 0.5, h 1 and box 1 m^3,
// both less their bevels), and a positive one otherwise.
TEST(Shape, DefaultsGiveValidShapes) {
  const double pi = 3.14159265358979324;
  struct Expect {
    const char* type;
    double lo, hi;  // volume bounds [m^3] (0, 0: only > 0)
  };
  const Expect expects[] = {{"sphere", 0.99 * 4 / 3.0 * pi * 0.125, 4 / 3.0 * pi * 0.125},
                            {"torus", 0.99 * 2 * pi * pi * 0.4 * 0.0225, 2 * pi * pi * 0.4 * 0.0225},
                            {"cylinder", 0.97 * pi * 0.25, pi * 0.25},
                            {"box", 0.98, 1.0},
                            {"pumpkin", 0, 0},
                            {"gear", 0, 0},
                            {"fist", 0, 0},
                            {"bird", 0, 0},
                            {"head", 0, 0},
                            {"ellipsoid", 0.99 * 4 / 3.0 * pi * 0.125, 4 / 3.0 * pi * 0.125}};
  for (const Expect& e : expects) {
    SCOPED_TRACE(e.type);
    const ShapePtr s = shapeFrom(std::string(R"({"type": ")") + e.type + "\"}");
    EXPECT_EQ(s->type(), e.type);
    const TriMesh m = s->mesh(64);
    EXPECT_TRUE(m.isClosed());
    double reach = 0;
    for (const Vec3& p : m.positions) reach = std::max(reach, p.norm());
    EXPECT_LE(reach, s->boundingRadius() * (1 + 1e-9));
    const double v = m.volume();
    std::printf("%-8s volume %.5f m^3 (closed form bounds %.5f .. %.5f), reach %.4f m, bounding radius %.4f m\n",
                e.type, v, e.lo, e.hi, reach, s->boundingRadius());
    EXPECT_GT(v, 0.0);  // (outward)
    if (e.hi > 0) {
      EXPECT_GE(v, e.lo);
      EXPECT_LE(v, e.hi);
    }
  }
}

double sq(double x) { return x * x; }

// An ellipsoid without bumps is the closed form (its radial function and its volume); a
// bump raises the radius at its centre by its height and leaves the far side alone.
TEST(Shape, EllipsoidIsTheClosedFormAndBumpsAreWhereTheySay) {
  const ShapePtr e = shapeFrom(R"({"type": "ellipsoid", "radii": [0.6, 0.2, 0.3]})");
  for (const Vec3& d : randomDirections(200, 5)) {
    const double r = e->radius(d);
    EXPECT_NEAR(sq(r * d.x() / 0.6) + sq(r * d.y() / 0.2) + sq(r * d.z() / 0.3), 1.0, 1e-12);
  }
  const double v = e->mesh(128).volume(), exact = 4 / 3.0 * 3.14159265358979324 * 0.6 * 0.2 * 0.3;
  std::printf("ellipsoid 0.6 x 0.2 x 0.3: mesh volume %.6f m^3 vs %.6f\n", v, exact);
  EXPECT_NEAR(v, exact, 0.01 * exact);
  const ShapePtr b = shapeFrom(R"({"type": "ellipsoid", "radii": [0.6, 0.2, 0.3],
                                   "bumps": [{"direction": [0, 2, 0], "height": 1.5, "width": 0.2}]})");
  EXPECT_NEAR(b->radius(Vec3::UnitY()), 2.5 * 0.2, 1e-12);
  EXPECT_NEAR(b->radius(-Vec3::UnitY()), 0.2, 1e-12);
  EXPECT_NEAR(b->radius(Vec3::UnitX()), 0.6, 1e-12 + 0.6 * std::exp(-sq(M_PI / 2 / 0.2)) * 1.5);
}

TEST(Shape, ParseErrorsNameFileFieldAndExpectation) {
  std::string e = errorOf(R"({"type": "sphere", "radius": -1})");
  EXPECT_NE(e.find("scene.json: /shape/radius: must be a number > 0, got -1"), std::string::npos) << e;

  e = errorOf(R"({"type": "sphere", "radius": 1, "radiu": 2})");
  EXPECT_NE(e.find("scene.json: /shape/radiu: unknown field"), std::string::npos) << e;

  e = errorOf(R"({"type": "cube"})");
  EXPECT_NE(e.find("/shape/type"), std::string::npos) << e;
  for (const char* t : {"sphere", "pumpkin", "gear", "cylinder", "torus", "fist", "bird", "box", "obj"})
    EXPECT_NE(e.find(t), std::string::npos) << e;
  EXPECT_NE(e.find("got \"cube\""), std::string::npos) << e;

  e = errorOf(R"({"radius": 1})");
  EXPECT_NE(e.find("/shape/type: required field is missing"), std::string::npos) << e;

  e = errorOf(R"({"type": "torus", "major_radius": 0.3, "minor_radius": 0.5})");
  EXPECT_NE(e.find("/shape/minor_radius: must be in (0, 0.3), got 0.5"), std::string::npos) << e;

  e = errorOf(R"({"type": "gear", "teeth": 2.5})");
  EXPECT_NE(e.find("/shape/teeth: expected an integer"), std::string::npos) << e;

  e = errorOf(R"({"type": "box", "size": [1, -1, 1]})");
  EXPECT_NE(e.find("/shape/size: must have all three extents > 0"), std::string::npos) << e;

  e = errorOf(R"({"type": "cylinder", "radius": 0.5, "height": 1, "bevel": 0.5})");
  EXPECT_NE(e.find("/shape/bevel: must be in [0, 0.5), got 0.5"), std::string::npos) << e;

  e = errorOf(R"({"type": "pumpkin", "ribs": "ten"})");
  EXPECT_NE(e.find("/shape/ribs: expected an integer in [0, 64], got a string \"ten\""),
            std::string::npos) << e;

  e = errorOf(R"({"type": "ellipsoid", "radii": [0.5, 0, 0.5]})");
  EXPECT_NE(e.find("/shape/radii: expected three semi-axes > 0"), std::string::npos) << e;
  e = errorOf(R"({"type": "ellipsoid", "bumps": [{"direction": [0, 0, 0]}]})");
  EXPECT_NE(e.find("/shape/bumps/0/direction: expected a direction other than zero"), std::string::npos) << e;
  e = errorOf(R"({"type": "ellipsoid", "bumps": [{"height": -1}]})");
  EXPECT_NE(e.find("/shape/bumps/0/height"), std::string::npos) << e;

  e = errorOf(R"({"type": "obj"})");
  EXPECT_NE(e.find("/shape/path: required field is missing"), std::string::npos) << e;
}
