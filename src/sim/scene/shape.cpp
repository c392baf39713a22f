#include "sim/scene/shape.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "sim/scene/shape_impl.h"

namespace d2t {

double Shape::radius(const Vec3& /*d*/) const {
  throw std::logic_error("Shape::radius: a \"" + type() +
                         "\" shape is not star-shaped (check topology() first)");
}

Vec3 Shape::surfacePoint(double /*u*/, double /*v*/) const {
  throw std::logic_error("Shape::surfacePoint: a \"" + type() +
                         "\" shape is not a torus (check topology() first)");
}

Vec3 Shape::normal(const Vec3& p) const {
  // central differences of the signed distance, step relative to the size
  const double h = 1e-5 * std::max(boundingRadius(), 1e-9);
  Vec3 g;
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = h * Vec3::Unit(k);
    g[k] = signedDistance(p + e) - signedDistance(p - e);
  }
  const double len = g.norm();
  if (len > 0 && std::isfinite(len)) return g / len;
  // flat spot of the distance (e.g. the exact centre): fall back to the radial direction
  return p.norm() > 0 ? Vec3(p.normalized()) : Vec3(Vec3::UnitY());
}

std::string Shape::notDeformableReason() const {
  if (topology() != ShapeTopology::Solid) return "";
  return "a \"" + type() +
         "\" shape can only be a rigid collider: a deformable body needs a star-shaped or torus "
         "shape";
}

namespace {

// Two triangles per cell of an ni x nj grid whose corner (i, j) is vertex at(i, j),
// (i, j) (i+1, j) (i+1, j+1) and (i, j) (i+1, j+1) (i, j+1): counter-clockwise where the
// grid's u x v points out. at() is called in that corner order (it may create vertices).
template <class At>
void appendGridTriangles(TriMesh& mesh, int ni, int nj, At at) {
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      const int a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
      mesh.triangles.emplace_back(a, b, c);
      mesh.triangles.emplace_back(a, c, d);
    }
}

}  // namespace

TriMesh starMesh(const Shape& shape, int resolution) {
  const int n = std::max(1, resolution);
  TriMesh mesh;
  // vertices live on the integer lattice of the cube [0, n]^3 so that the faces
  // share their edge and corner vertices exactly
  std::unordered_map<int64_t, int> index;
  auto vertex = [&](const Vec3i& c) {
    const int64_t key = c.x() + int64_t(n + 1) * (c.y() + int64_t(n + 1) * c.z());
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    // equal-angle cube map: lattice coordinate -> tan of the angle from the face centre
    Vec3 d;
    for (int k = 0; k < 3; ++k) d[k] = std::tan(0.25 * kPi * (2.0 * c[k] / n - 1.0));
    d.normalize();
    const int id = static_cast<int>(mesh.positions.size());
    mesh.positions.push_back(shape.radius(d) * d);
    index.emplace(key, id);
    return id;
  };
  // face (axis a, side s) with tangent axes (u, v) such that e_u x e_v = s e_a,
  // so that the quads are counter-clockwise seen from outside
  const int faceAxes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
  for (int f = 0; f < 6; ++f) {
    const int a = faceAxes[f][0], u = faceAxes[f][1], v = faceAxes[f][2];
    const int side = (f % 2 == 0) ? n : 0;
    auto at = [&](int i, int j) {
      Vec3i c;
      c[a] = side;
      c[u] = i;
      c[v] = j;
      return vertex(c);
    };
    appendGridTriangles(mesh, n, n, at);
  }
  return mesh;
}

TriMesh torusMesh(const Shape& shape, int nu, int nv) {
  nu = std::max(3, nu);
  nv = std::max(3, nv);
  TriMesh mesh;
  mesh.positions.reserve(size_t(nu) * nv);
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j)
      mesh.positions.push_back(shape.surfacePoint(double(i) / nu, double(j) / nv));
  // (b - a) x (c - a) ~ Pu x (Pu + Pv) = Pu x Pv: outward by the surfacePoint convention
  auto id = [&](int i, int j) { return (i % nu) * nv + (j % nv); };
  appendGridTriangles(mesh, nu, nv, id);
  return mesh;
}

ShapePtr parseShape(JsonReader r) {
  using Parser = ShapePtr (*)(JsonReader&);
  static const std::vector<std::pair<std::string, Parser>> kinds = {
      {"sphere", parseSphere}, {"pumpkin", parsePumpkin}, {"gear", parseGear},
      {"cylinder", parseCylinder}, {"box", parseBox}, {"torus", parseTorus},
      {"fist", parseFist}, {"bird", parseBird}, {"fish", parseFish}, {"head", parseHead}, {"ellipsoid", parseEllipsoid},
      {"obj", parseObj}};
  std::vector<std::string> names;
  for (const auto& k : kinds) names.push_back(k.first);

  const std::string type = r.requiredString("type", names);
  ShapePtr shape;
  for (const auto& [name, parse] : kinds)
    if (name == type) shape = parse(r);
  r.finish();
  return shape;
}

}  // namespace d2t
