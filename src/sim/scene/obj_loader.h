#pragma once
// OBJ meshes as shapes: loading with checks, the star-shape test the cube-map
// atlas needs, and the mesh shape itself (ray-cast radius, BVH distance).
#include <string>

#include "sim/base/math.h"
#include "sim/scene/mesh_check.h"
#include "sim/scene/shape.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// Loads the triangles of an OBJ file as they are, open or not: polygons are
/// triangulated, unused vertices dropped and coincident ones welded (exporters split
/// vertices at texture seams; topology needs them shared). Throws InputError naming
/// the file (and the line, for syntax errors): "PATH: cannot open file",
/// "PATH:LINE: parse error: ...", "PATH:LINE: vertex index out of range ...",
/// "PATH: no triangles".
TriMesh loadObjSoup(const std::string& path);

/// Loads a closed triangle mesh (loadObjSoup), each piece wound consistently and
/// outward (orientPieces, whose findings go to `report` if given). Throws InputError
/// as loadObjSoup, and "PATH: mesh is not closed: N boundary edges, ...",
/// "PATH: degenerate: zero volume".
TriMesh loadObj(const std::string& path, MeshReport* report = nullptr);

/// Writes a triangle mesh as an OBJ file (`v x y z` and `f a b c`, 1-based, counter-
/// clockwise from outside), `comment` on its first line: loadObj reads it back to 9
/// significant digits. Throws std::runtime_error naming the path when it cannot write.
void writeObj(const TriMesh& mesh, const std::string& path, const std::string& comment);

/// True when every ray from `centre` crosses the closed, outward mesh exactly
/// once. Test: the winding number of the mesh about the centre is 1 (the centre
/// is inside, enclosed once) and every non-degenerate triangle faces away from
/// the centre (n . (a - centre) > 0): then each crossing of a ray from the
/// centre is an exit, and since the winding number falls from 1 to 0 along the
/// ray, there is exactly one. Otherwise `why` (if not null) says what failed.
bool isStarShaped(const TriMesh& mesh, const Vec3& centre, std::string* why);

/// The error for a mesh the cube-map atlas cannot represent, naming the file
/// and, when `why` is not empty, the reason found by isStarShaped.
std::string notStarShapedMessage(const std::string& path, const std::string& why);

/// A shape from a closed, outward mesh given in the shape frame: topology Star
/// when the mesh is star-shaped about the origin, else Solid (then
/// notDeformableReason() is notStarShapedMessage). `path` names the source in
/// messages; type() is "obj". mesh() returns the mesh itself. `pieces`: how many closed
/// pieces it has (orientPieces); more than one may nest or overlap, and its inside is then
/// the winding number's (w > 1/2), not a ray's parity.
ShapePtr makeMeshShape(TriMesh mesh, const std::string& path, int pieces = 1);

/// A shape from a triangle soup that is not closed (orientPieces has wound its pieces,
/// `report` is what it found): a rigid collider's shape only (topology Solid;
/// notDeformableReason names the file and what keeps it open). Its signed distance is
/// the distance to the nearest triangle, negative inside its closed pieces only: an
/// open surface has no inside, and a point near it is on whichever side it is.
ShapePtr makeOpenMeshShape(TriMesh mesh, const std::string& path, const MeshReport& report);

}  // namespace d2t
