// OBJ meshes: star-shaped meshes load as Star with the exact ray-cast radius,
// others as Solid with the reason; every kind of bad file is refused with a
// message naming the file. The OBJ files are written by the tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "sim/scene/obj_loader.h"
#include "sim/scene/sample_meshes.h"
#include "sim/scene/shape.h"
#include "sim/scene/scene.h"
#include "test_shapes.h"

using namespace d2t;
namespace fs = std::filesystem;

namespace {

using test::octahedron;

// Surface of a set of unit voxels (as quads), vertices shared on the lattice:
// closed and outward as long as no two voxels touch only along an edge.
struct Voxels {
  std::vector<Vec3i> cells;
  TriMesh mesh() const {
    auto filled = [&](const Vec3i& c) {
      return std::find(cells.begin(), cells.end(), c) != cells.end();
    };
    TriMesh m;
    std::map<std::array<int, 3>, int> index;
    auto vertex = [&](const Vec3i& p) {
      auto [it, fresh] = index.emplace(std::array<int, 3>{p.x(), p.y(), p.z()}, 0);
      if (fresh) {
        it->second = static_cast<int>(m.positions.size());
        m.positions.push_back(p.cast<double>());
      }
      return it->second;
    };
    for (const Vec3i& c : cells)
      for (int a = 0; a < 3; ++a)
        for (int s : {-1, 1}) {
          if (filled(c + s * Vec3i::Unit(a))) continue;
          // face on the side s of axis a; tangents u, v with e_u x e_v = e_a
          const int u = (a + 1) % 3, v = (a + 2) % 3;
          Vec3i base = c;
          if (s > 0) base[a] += 1;
          const Vec3i eu = Vec3i::Unit(u), ev = Vec3i::Unit(v);
          int q[4] = {vertex(base), vertex(base + eu), vertex(base + eu + ev), vertex(base + ev)};
          if (s < 0) std::swap(q[1], q[3]);
          m.triangles.emplace_back(q[0], q[1], q[2]);
          m.triangles.emplace_back(q[0], q[2], q[3]);
        }
    return m;
  }
};

// Icosphere of radius 1 subdivided `levels` times (20 * 4^levels triangles).
TriMesh icosphere(int levels) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  TriMesh m;
  for (const Vec3& p : {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0),
                        Vec3(0, -1, t), Vec3(0, 1, t), Vec3(0, -1, -t), Vec3(0, 1, -t),
                        Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)})
    m.positions.push_back(p.normalized());
  m.triangles = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      auto [it, fresh] = mid.emplace(std::minmax(a, b), 0);
      if (fresh) {
        it->second = static_cast<int>(m.positions.size());
        m.positions.push_back((m.positions[a] + m.positions[b]).normalized());
      }
      return it->second;
    };
    std::vector<Vec3i> next;
    for (const Vec3i& f : m.triangles) {
      const int ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
      next.insert(next.end(), {Vec3i(f[0], ab, ca), Vec3i(f[1], bc, ab), Vec3i(f[2], ca, bc),
                               Vec3i(ab, bc, ca)});
    }
    m.triangles = std::move(next);
  }
  return m;
}

// A directory for this test's files.
class Obj : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("d2t_test_obj_" + std::to_string(::getpid())) / info->name();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    fs::remove(dir_.parent_path(), ec);  // only once empty, after the last test
  }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::string write(const std::string& name, const TriMesh& m, bool flip = false) const {
    std::string text = "# written by test_obj\n";
    char line[128];
    for (const Vec3& p : m.positions) {
      std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", p.x(), p.y(), p.z());
      text += line;
    }
    for (const Vec3i& t : m.triangles) {
      std::snprintf(line, sizeof line, "f %d %d %d\n", t[0] + 1, (flip ? t[2] : t[1]) + 1,
                    (flip ? t[1] : t[2]) + 1);
      text += line;
    }
    return write(name, text);
  }

  // parseShape of {"type": "obj", ...extra} as read from dir/scene.json
  ShapePtr parse(const std::string& extra) const {
    const nlohmann::json j = nlohmann::json::parse("{\"type\": \"obj\", " + extra + "}");
    return parseShape(JsonReader(j, (dir_ / "scene.json").string(), "/shape"));
  }

  std::string errorOf(const std::string& extra) const {
    try {
      parse(extra);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Obj, OctahedronLoadsAsStarWithTheExactRadius) {
  write("octa.obj", octahedron(0.5), /*flip=*/true);  // inward: the loader must flip it
  const ShapePtr s = parse(R"("path": "octa.obj")");
  ASSERT_EQ(s->topology(), ShapeTopology::Star);
  EXPECT_EQ(s->type(), "obj");
  EXPECT_TRUE(s->notDeformableReason().empty());
  EXPECT_GT(s->mesh(0).volume(), 0.0);
  // the faces are the planes |x| + |y| + |z| = 0.5: r(d) = 0.5 / |d|_1
  std::mt19937 rng(1);
  std::normal_distribution<double> g;
  std::vector<Vec3> dirs = {Vec3(1, 0, 0), Vec3(0, -1, 0), Vec3(1, 1, 0).normalized(),
                            Vec3(1, -1, 1).normalized()};  // through vertices, edges, face centres
  for (int i = 0; i < 2000; ++i) dirs.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
  for (const Vec3& d : dirs) {
    EXPECT_NEAR(s->radius(d), 0.5 / d.lpNorm<1>(), 1e-14) << d.transpose();
    EXPECT_NEAR(s->signedDistance(s->radius(d) * d), 0.0, 1e-14);
  }
  // distances: centre to a face plane, and beyond a vertex
  EXPECT_NEAR(s->signedDistance(Vec3::Zero()), -0.5 / std::sqrt(3.0), 1e-14);
  EXPECT_NEAR(s->signedDistance(Vec3(0.7, 0, 0)), 0.2, 1e-14);
  EXPECT_NEAR(s->signedDistance(Vec3(0.1, 0.1, 0.1)), (0.3 - 0.5) / std::sqrt(3.0), 1e-14);
  EXPECT_LT((s->normal(Vec3(0.2, 0.2, 0.1)) - Vec3(1, 1, 1).normalized()).norm(), 1e-8);
}

TEST_F(Obj, ScaleAndRecentring) {
  TriMesh m = octahedron(1.0);
  m.transform(Mat3::Identity(), Vec3(5, -1, 2));
  write("moved.obj", m);
  const ShapePtr centred = parse(R"("path": "moved.obj", "scale": 0.5)");
  ASSERT_EQ(centred->topology(), ShapeTopology::Star);
  EXPECT_NEAR(centred->radius(Vec3::UnitX()), 0.5, 1e-14);
  EXPECT_NEAR(centred->boundingRadius(), 0.5, 1e-14);
  // without recentring the origin is outside the mesh: not star-shaped about it
  const ShapePtr raw = parse(R"("path": "moved.obj", "center": false)");
  EXPECT_EQ(raw->topology(), ShapeTopology::Solid);
  EXPECT_NE(raw->notDeformableReason().find("outside the mesh"), std::string::npos);
  EXPECT_LT(raw->signedDistance(Vec3(5, -1, 2)), 0.0);
}

TEST_F(Obj, QuadFacesAreTriangulated) {
  write("cube.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
        "f 1 5 7 3\nf 2 4 8 6\nf 1 2 6 5\nf 3 7 8 4\nf 1 3 4 2\nf 5 6 8 7\n");
  const ShapePtr s = parse(R"("path": "cube.obj", "scale": 2)");
  const TriMesh m = s->mesh(0);
  EXPECT_EQ(m.triangles.size(), 12u);
  EXPECT_NEAR(m.volume(), 8.0, 1e-12);
  EXPECT_NEAR(m.massProperties(1).com.norm(), 0.0, 1e-12);
  ASSERT_EQ(s->topology(), ShapeTopology::Star);
  EXPECT_NEAR(s->radius(Vec3::UnitY()), 1.0, 1e-14);
  EXPECT_NEAR(s->radius(Vec3(1, 1, 1).normalized()), std::sqrt(3.0), 1e-14);
}

TEST_F(Obj, OpenMeshIsACollidersShapeAndClosedByARepairAsABody) {
  TriMesh m = octahedron(1);
  m.triangles.pop_back();
  const std::string path = write("open.obj", m);
  // a shape for a collider: it loads, with the reason it cannot be a soft body
  const ShapePtr s = parse(R"("path": "open.obj")");
  EXPECT_EQ(s->topology(), ShapeTopology::Solid);
  EXPECT_EQ(s->mesh(0).triangles.size(), 7u);
  EXPECT_NE(s->notDeformableReason().find(path + ": mesh is not closed: 3 boundary edges"), std::string::npos)
      << s->notDeformableReason();
  // an open surface has no inside: the distance to it is positive on both sides
  EXPECT_GT(s->signedDistance(Vec3::Zero()), 0.0);
  EXPECT_NEAR(s->signedDistance(Vec3(0, 0, 3)), 2.0, 1e-9);  // (centred on its box: z in [-1, 1])
  try {
    loadObj(path);
    ADD_FAILURE() << "loadObj took an open mesh";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": mesh is not closed: 3 boundary edges"), std::string::npos) << e.what();
  }
  // as a body in a scene: closed by the repair (the missing face filled), star-shaped, so on
  // the atlas, with the repair's line
  const nlohmann::json scene = nlohmann::json::parse(R"({"bodies": [{"name": "b", "shape": {"type": "obj", "path": "open.obj"}}]})");
  const Scene sc = parseScene(scene, (dir_ / "scene.json").string());
  ASSERT_EQ(sc.bodies.size(), 1u);
  EXPECT_EQ(sc.bodies[0].shape->topology(), ShapeTopology::Star);
  EXPECT_NE(sc.bodies[0].repair.find(path + ": closed by a winding-number repair: 1 hole filled (3 boundary edges)"),
            std::string::npos) << sc.bodies[0].repair;
  // an open sheet encloses nothing: refused as a body, naming the scene, the field and the file
  write("sheet.obj", squareSheet(1, 4));
  const nlohmann::json sheet = nlohmann::json::parse(R"({"bodies": [{"name": "b", "shape": {"type": "obj", "path": "sheet.obj"}}]})");
  try {
    parseScene(sheet, (dir_ / "scene.json").string());
    ADD_FAILURE() << "an open sheet became a body";
  } catch (const InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("/bodies/0/shape"), std::string::npos) << w;
    EXPECT_NE(w.find((dir_ / "sheet.obj").string() + ": encloses no volume"), std::string::npos) << w;
  }
}

TEST_F(Obj, AClosedMeshWoundEitherWayLoadsOutward) {
  TriMesh m = octahedron(1);
  for (size_t t = 0; t < m.triangles.size(); t += 3) std::swap(m.triangles[t][1], m.triangles[t][2]);
  const std::string path = write("mixed.obj", m);
  MeshReport r;
  const TriMesh loaded = loadObj(path, &r);
  EXPECT_TRUE(loaded.isClosed());
  EXPECT_GT(loaded.volume(), 0.0);
  EXPECT_EQ(r.rewound, 3);  // triangles 0, 3 and 6, turned in the file
  EXPECT_EQ(parse(R"("path": "mixed.obj")")->topology(), ShapeTopology::Star);
}

TEST_F(Obj, DumbbellLoadsAsSolidAndSaysWhyItIsNotStarShaped) {
  // two 3x3x3 blocks joined by a 1x1 bar: the centre is in the bar, and the
  // inner faces of the blocks face it
  Voxels v;
  for (int x : {0, 1, 2, 6, 7, 8})
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 3; ++z) v.cells.emplace_back(x, y, z);
  for (int x : {3, 4, 5}) v.cells.emplace_back(x, 1, 1);
  const TriMesh mesh = v.mesh();
  ASSERT_TRUE(mesh.isClosed());
  const std::string path = write("dumbbell.obj", mesh);

  std::string why;
  EXPECT_FALSE(isStarShaped(mesh, Vec3(4.5, 1.5, 1.5), &why));
  EXPECT_NE(why.find("face the centre"), std::string::npos) << why;

  const ShapePtr s = parse(R"("path": "dumbbell.obj")");
  EXPECT_EQ(s->topology(), ShapeTopology::Solid);
  EXPECT_THROW(s->radius(Vec3::UnitX()), std::logic_error);
  const std::string reason = s->notDeformableReason();
  EXPECT_NE(reason.find(path + ": mesh is not star-shaped about its centre (a ray from the centre "
                               "crosses the surface more than once), so the cube-map atlas cannot "
                               "represent it"),
            std::string::npos) << reason;
  EXPECT_NE(reason.find("face the centre"), std::string::npos) << reason;

  // as the skin of a deformable body: re-meshed and put on the general surface layout (a mesh
  // body: mesh_character.h), with the re-mesh's line
  const nlohmann::json scene = nlohmann::json::parse(
      R"({"bodies": [{"name": "b", "shape": {"type": "obj", "path": "dumbbell.obj"}, "mesh": {"nodes": 600}}]})");
  const Scene sc = parseScene(scene, path.substr(0, path.rfind('/')) + "/scene.json");
  ASSERT_EQ(sc.characters.size(), 1u);
  EXPECT_EQ(sc.characters[0].model, "mesh");
  EXPECT_NEAR(double(sc.characters[0].surface->positions.size()), 600, 12);
  EXPECT_NE(sc.characters[0].repair.find(path + ": closed; re-meshed to"), std::string::npos) << sc.characters[0].repair;
  // signed distance (recentred: the bar's middle is the origin)
  EXPECT_NEAR(s->signedDistance(Vec3(-3, 0, 0)), -1.5, 1e-12);  // centre of the left block
  EXPECT_NEAR(s->signedDistance(Vec3(0, 0, 0)), -0.5, 1e-12);   // middle of the bar
  EXPECT_NEAR(s->signedDistance(Vec3(0, 1, 0)), 0.5, 1e-12);    // above the bar, between the blocks
  EXPECT_NEAR(s->signedDistance(Vec3(0, 0, 1.2)), 0.7, 1e-12);   // beside the bar
  EXPECT_LT((s->normal(Vec3(0, 0.6, 0.1)) - Vec3::UnitY()).norm(), 1e-8);
}

// Closed pieces that overlap (a model built of parts): inside is where either piece is. A
// ray's parity counts two walls from the overlap and would call it outside; the winding
// number counts 2 there.
TEST_F(Obj, OverlappingClosedPiecesAreInsideWhereEitherIs) {
  Voxels block;  // [0, 2]^3
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 2; ++y)
      for (int z = 0; z < 2; ++z) block.cells.emplace_back(x, y, z);
  TriMesh m = block.mesh(), other = block.mesh();
  other.transform(Mat3::Identity(), Vec3(0.9, 0.3, 0.2));  // (no corner or edge shared)
  m.append(other);
  write("overlap.obj", m);
  const ShapePtr s = parse(R"("path": "overlap.obj", "center": false)");
  ASSERT_EQ(s->topology(), ShapeTopology::Solid) << "internal walls: not star-shaped";
  EXPECT_LT(s->signedDistance(Vec3(1.5, 1.2, 1.1)), -0.3);  // in both
  EXPECT_LT(s->signedDistance(Vec3(0.4, 1, 1)), -0.3);      // in the first only
  EXPECT_LT(s->signedDistance(Vec3(2.5, 1.3, 1.2)), -0.3);  // in the second only
  EXPECT_GT(s->signedDistance(Vec3(3.5, 1, 1)), 0.3);
  EXPECT_GT(s->signedDistance(Vec3(1.5, 2.8, 1)), 0.3);
}

TEST_F(Obj, UShapeAndTorusHaveTheCentreOutside) {
  Voxels u;
  for (int x = 0; x < 3; ++x) u.cells.emplace_back(x, 0, 0);
  for (int y : {1, 2}) {
    u.cells.emplace_back(0, y, 0);
    u.cells.emplace_back(2, y, 0);
  }
  write("u.obj", u.mesh());
  const ShapePtr s = parse(R"("path": "u.obj")");
  EXPECT_EQ(s->topology(), ShapeTopology::Solid);
  EXPECT_NE(s->notDeformableReason().find("is outside the mesh"), std::string::npos)
      << s->notDeformableReason();
  EXPECT_GT(s->signedDistance(Vec3::Zero()), 0.0);  // the centroid is in the gap of the U

  const nlohmann::json tj = nlohmann::json::parse(R"({"type": "torus"})");
  write("torus.obj", parseShape(JsonReader(tj, "t.json"))->mesh(16));
  const ShapePtr t = parse(R"("path": "torus.obj")");
  EXPECT_EQ(t->topology(), ShapeTopology::Solid);
  EXPECT_NE(t->notDeformableReason().find("is outside the mesh"), std::string::npos);
}

TEST_F(Obj, BadFilesNameTheFileAndWhatIsWrong) {
  std::string e = errorOf(R"("path": "missing.obj")");
  EXPECT_NE(e.find((dir_ / "missing.obj").string() + ": cannot open file"), std::string::npos) << e;
  EXPECT_NE(e.find("scene.json: /shape/path: "), std::string::npos) << e;

  const std::string bad = write("bad.obj", "v 0 0 0\nv 1 abc 0\nv 0 1 0\nf 1 2 3\n");
  e = errorOf(R"("path": "bad.obj")");
  EXPECT_NE(e.find(bad + ":2: parse error"), std::string::npos) << e;
  EXPECT_NE(e.find("abc"), std::string::npos) << e;

  const std::string zero = write("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n");
  e = errorOf(R"("path": "zero.obj")");
  EXPECT_NE(e.find(zero + ":4: parse error"), std::string::npos) << e;

  const std::string range = write("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n");
  e = errorOf(R"("path": "range.obj")");
  EXPECT_NE(e.find(range + ":5: vertex index out of range"), std::string::npos) << e;

  const std::string none = write("none.obj", "v 0 0 0\nv 1 0 0\n");
  e = errorOf(R"("path": "none.obj")");
  EXPECT_NE(e.find(none + ": no triangles"), std::string::npos) << e;

  // closed (the two sides of one triangle) but flat
  const std::string flat = write("flat.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 3 2\n");
  e = errorOf(R"("path": "flat.obj")");
  EXPECT_NE(e.find(flat + ": degenerate: zero volume"), std::string::npos) << e;

  e = errorOf(R"("path": "octa.obj", "scale": 0)");
  EXPECT_NE(e.find("/shape/scale: must be a number > 0, got 0"), std::string::npos) << e;
}

// (the time is printed, not asserted: speed is for bench/; this checks the answers)
TEST_F(Obj, LargeMeshRadiusMatchesABruteForceRayCast) {
  // ~100K triangles; 256 x 256 x 1.5 directions, about one atlas' worth.
  // (A Debug build measures a 20K-triangle mesh, to keep the suite quick.)
#ifdef NDEBUG
  const TriMesh sphere = icosphere(6);
  const int n = 256 * 256 * 3 / 2;
#else
  const TriMesh sphere = icosphere(5);
  const int n = 256 * 256 * 3 / 16;
#endif
  const std::string path = write("ico.obj", sphere);
  auto t0 = std::chrono::steady_clock::now();
  const ShapePtr s = parse(R"("path": "ico.obj", "center": false)");
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(s->topology(), ShapeTopology::Star);
  std::mt19937 rng(2);
  std::normal_distribution<double> g;
  std::vector<Vec3> dirs(n);
  for (Vec3& d : dirs) d = Vec3(g(rng), g(rng), g(rng)).normalized();
  double lo = 1e300, hi = 0;
  auto t2 = std::chrono::steady_clock::now();
  for (const Vec3& d : dirs) {
    const double r = s->radius(d);
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  auto t3 = std::chrono::steady_clock::now();
  // chords of the icosphere: the radius lies between the inscribed and the unit sphere
  EXPECT_LE(hi, 1.0 + 1e-12);
  EXPECT_GT(lo, 0.999);
  // and it is where the ray from the centre leaves the mesh: every triangle tried
  // (Moller-Trumbore) on 100 of the directions
  double worst = 0;
  for (int k = 0; k < 100; ++k) {
    const Vec3& d = dirs[size_t(k)];
    double far = 0;
    for (const Vec3i& t : sphere.triangles) {
      const Vec3 &a = sphere.positions[size_t(t[0])], e1 = sphere.positions[size_t(t[1])] - a,
                 e2 = sphere.positions[size_t(t[2])] - a;
      const Vec3 p = d.cross(e2);
      const double det = e1.dot(p);
      if (std::abs(det) < 1e-300) continue;
      const Vec3 o = -a;
      const double u = o.dot(p) / det;
      const Vec3 qv = o.cross(e1);
      const double v = d.dot(qv) / det;
      if (u < -1e-12 || v < -1e-12 || u + v > 1 + 1e-12) continue;
      far = std::max(far, e2.dot(qv) / det);
    }
    worst = std::max(worst, std::abs(s->radius(d) - far));
  }
  EXPECT_LT(worst, 1e-12) << "radius(d) against the brute-force ray cast";
  const auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf("icosphere %zu triangles: load + star test + BVH %.3f s, %d radius queries %.3f s (%.2f us each); "
              "radius vs brute-force ray cast %.1e m\n",
              sphere.triangles.size(), sec(t0, t1), n, sec(t2, t3), 1e6 * sec(t2, t3) / n, worst);
}

// writeObj then loadObj gives back the same surface (to writeObj's 9 digits): the
// path by which the shipped assets are made (d2tsim --export-obj) and loaded.
TEST_F(Obj, WrittenMeshLoadsBackAsTheSameSurface) {
  const nlohmann::json j = nlohmann::json::parse(
      R"({"type": "pumpkin", "radius": 0.5, "height": 0.4, "ribs": 10, "rib_depth": 0.08})");
  const TriMesh original = parseShape(JsonReader(j, "pumpkin.json", "/shape"))->mesh(16);
  const std::string path = (dir_ / "pumpkin.obj").string();
  writeObj(original, path, "test");
  const TriMesh back = loadObj(path);
  ASSERT_EQ(back.triangles.size(), original.triangles.size());
  EXPECT_NEAR(back.volume(), original.volume(), 1e-8 * original.volume());
  const Aabb a = original.bounds(), b = back.bounds();
  EXPECT_LT((a.lo - b.lo).norm() + (a.hi - b.hi).norm(), 1e-8);
  // every vertex read back is a vertex written (the loader welds and drops, never moves)
  for (const Vec3& p : back.positions) {
    double nearest = 1e300;
    for (const Vec3& q : original.positions) nearest = std::min(nearest, (p - q).norm());
    ASSERT_LT(nearest, 1e-8) << p.transpose();
  }
  // and the loaded shape is star-shaped, so it can be a soft body
  const ShapePtr s = parse(R"("path": "pumpkin.obj")");
  EXPECT_EQ(s->notDeformableReason(), "");
  // a path that cannot be written is named in the error
  try {
    writeObj(original, (dir_ / "no_such_dir" / "x.obj").string(), "test");
    ADD_FAILURE() << "writeObj wrote into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_dir/x.obj: cannot write"), std::string::npos) << e.what();
  }
}
