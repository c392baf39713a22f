// Mesh shapes (OBJ files): a bounding volume hierarchy over the triangles
// answers the ray casts of radius(d) (one per atlas texel) and the nearest-
// triangle queries of signedDistance.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/base/triangle_bvh.h"
#include "sim/scene/obj_loader.h"
#include "sim/scene/shape_impl.h"
#include "sim/scene/winding_number.h"

namespace d2t {

namespace {

// Whether p is inside the closed surface in `bvh`: the parity of the crossings of three
// rays in unrelated directions, majority vote (a ray that grazes an edge or vertex may
// miscount; two of three will not).
bool insideByParity(const TriangleBvh& bvh, const Vec3& p) {
  static const Vec3 dirs[3] = {Vec3(0.5773, 0.5774, 0.5775).normalized(), Vec3(-0.6211, 0.3117, 0.7194).normalized(),
                               Vec3(0.2303, -0.9031, 0.3625).normalized()};
  int votes = 0;
  for (const Vec3& d : dirs) votes += bvh.crossings(p, d) % 2;
  return votes >= 2;
}

class MeshShape final : public Shape {
 public:
  MeshShape(TriMesh mesh, std::string path, int pieces)
      : mesh_(std::move(mesh)), path_(std::move(path)), bvh_(mesh_.positions, mesh_.triangles) {
    star_ = isStarShaped(mesh_, Vec3::Zero(), &why_);
    // closed pieces may nest or overlap, where a ray's parity miscounts: the winding number
    // counts them (inside where w > 1/2)
    if (!star_ && pieces > 1) winding_ = std::make_unique<WindingNumber>(mesh_.positions, mesh_.triangles);
    for (const Vec3& p : mesh_.positions) boundingRadius_ = std::max(boundingRadius_, p.norm());
  }

  std::string type() const override { return "obj"; }
  std::string source() const override { return path_; }
  ShapeTopology topology() const override {
    return star_ ? ShapeTopology::Star : ShapeTopology::Solid;
  }
  double boundingRadius() const override { return boundingRadius_; }
  TriMesh mesh(int /*resolution*/) const override { return mesh_; }

  std::string notDeformableReason() const override {
    return star_ ? std::string() : notStarShapedMessage(path_, why_);
  }

  double radius(const Vec3& d) const override {
    if (!star_) return Shape::radius(d);
    // a star-shaped mesh is crossed exactly once; widen the edge tolerance if
    // rounding lets the ray slip through a vertex
    for (double eps : {1e-9, 1e-6, 1e-3}) {
      const double t = bvh_.nearestHit(Vec3::Zero(), d, eps);
      if (t > 0) return t;
    }
    return boundingRadius_;  // unreachable for a closed mesh around the origin
  }

  double signedDistance(const Vec3& p) const override {
    const double dist = std::sqrt(bvh_.distanceSq(p));
    return inside(p) ? -dist : dist;
  }

 private:
  bool inside(const Vec3& p) const {
    if (star_) {
      const double r = p.norm();
      return r == 0 || r < radius(p / r);
    }
    return winding_ ? (*winding_)(p) > 0.5 : insideByParity(bvh_, p);
  }

  TriMesh mesh_;
  std::string path_;
  TriangleBvh bvh_;
  std::unique_ptr<WindingNumber> winding_;  ///< several pieces: inside is w > 1/2
  bool star_ = false;
  std::string why_;             ///< why not star-shaped
  double boundingRadius_ = 0;   ///< [m]
};

// A triangle soup that is not closed: a collider's shape only. Its distance is to the
// nearest triangle; inside (negative) only within its closed pieces (insideByParity on
// them alone: an open piece has no inside).
class OpenMeshShape final : public Shape {
 public:
  OpenMeshShape(TriMesh mesh, std::string path, const MeshReport& report)
      : mesh_(std::move(mesh)), path_(std::move(path)), bvh_(mesh_.positions, mesh_.triangles) {
    why_ = path_ + ": mesh is not closed: " + report.openProblems() +
           " (an open mesh can be a rigid collider, double-sided where it is open; as a soft body it is "
           "closed by a winding-number repair first: d2tsim --mesh-report " + path_ + " says what it does)";
    TriMesh closed;  // the closed pieces' triangles
    closed.positions = mesh_.positions;
    for (size_t t = 0; t < mesh_.triangles.size(); ++t)
      if (report.closedTriangle[t]) closed.triangles.push_back(mesh_.triangles[t]);
    if (!closed.triangles.empty()) closed_ = std::make_unique<TriangleBvh>(closed.positions, closed.triangles);
    for (const Vec3& p : mesh_.positions) boundingRadius_ = std::max(boundingRadius_, p.norm());
  }

  std::string type() const override { return "obj"; }
  std::string source() const override { return path_; }
  ShapeTopology topology() const override { return ShapeTopology::Solid; }
  double boundingRadius() const override { return boundingRadius_; }
  TriMesh mesh(int /*resolution*/) const override { return mesh_; }
  std::string notDeformableReason() const override { return why_; }
  bool hasInside() const override { return false; }  // (its open pieces have none)

  double signedDistance(const Vec3& p) const override {
    const double dist = std::sqrt(bvh_.distanceSq(p));
    return closed_ && insideByParity(*closed_, p) ? -dist : dist;
  }

 private:
  TriMesh mesh_;
  std::string path_, why_;
  TriangleBvh bvh_;
  std::unique_ptr<TriangleBvh> closed_;
  double boundingRadius_ = 0;  ///< [m]
};

}  // namespace

ShapePtr makeOpenMeshShape(TriMesh mesh, const std::string& path, const MeshReport& report) {
  return std::make_shared<OpenMeshShape>(std::move(mesh), path, report);
}

ShapePtr makeMeshShape(TriMesh mesh, const std::string& path, int pieces) {
  return std::make_shared<MeshShape>(std::move(mesh), path, pieces);
}

ShapePtr parseObj(JsonReader& r) {
  const std::string rel = r.requiredString("path");
  const double scale = r.number("scale", 1.0, 0, 1e300, true);
  const bool center = r.boolean("center", true);
  // paths are relative to the directory of the scene file
  std::filesystem::path file(rel);
  if (file.is_relative()) file = std::filesystem::path(r.file()).parent_path() / file;
  const std::string path = file.lexically_normal().string();

  TriMesh mesh;
  MeshReport report;
  try {
    mesh = loadObjSoup(path);
    report = orientPieces(&mesh);
  } catch (const InputError& e) {
    r.fail("path", e.what());  // prefix the scene file and field
  }
  const bool closed = report.closed();
  const double diag = (report.bounds.hi - report.bounds.lo).norm();
  if (closed && !(report.volume > 1e-9 * diag * diag * diag))
    r.fail("path", path + ": degenerate: zero volume (" + std::to_string(report.volume) + " m^3)");
  mesh.transform(scale * Mat3::Identity(), Vec3::Zero());
  // centred on the centre of mass of a closed mesh; an open one has no volume: its box's centre
  if (center)
    mesh.transform(Mat3::Identity(), closed ? Vec3(-mesh.massProperties(1.0).com) : Vec3(-mesh.bounds().center()));
  return closed ? makeMeshShape(std::move(mesh), path, report.pieces) : makeOpenMeshShape(std::move(mesh), path, report);
}

}  // namespace d2t
