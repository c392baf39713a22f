#pragma once
// A mesh collider's surface as stage 1 and 2 see it: one or more pieces, each a set
// of its triangles with a convex proxy and a hierarchy of its own. A closed mesh close
// to its hull (a box, a fist) is one piece, as a body is; any other (a bowl, a
// staircase, an open or broken model) is cut into nearly flat clusters, so that each
// cluster's hull hugs its triangles and gives stage 1 a meaningful pair normal: the
// side a body approaches the cluster from. Triangles of open pieces (mesh_check.h) are
// double-sided: a body meets them from either side.
#include <vector>

#include "sim/contact/convex_proxy.h"
#include "sim/model/skin_bvh.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

struct ColliderPiece {
  TriMesh mesh;               ///< its own vertices and triangles, collider frame
  int own = 0;                ///< the first `own` of mesh.triangles are its cluster's, the rest its skirt
  SkinBvh bvh;                ///< over mesh
  ConvexProxy proxy;          ///< of mesh's vertices
  Vec3 centre = Vec3::Zero(); ///< of its vertices' box, collider frame
  bool doubleSided = false;   ///< from an open piece of the mesh: met from either side
  /// A flat cluster's normal axis (unit, collider frame; along its triangles' summed
  /// normals: outward for a closed mesh's): stage 2 casts along it, from the side of the
  /// body (double-sided) or from outside, not along the proxies' GJK/EPA direction, which
  /// near a cluster's edge is sideways. Zero for a whole hull (a body's way: EPA).
  Vec3 axis = Vec3::Zero();
  /// A flat cluster's own triangles' area centroid (collider frame): which side of it a body
  /// is on is measured from here, not from the piece's box centre, which its skirt and its
  /// curve pull off the sheet (a bowl wall's piece: into the bowl, past a ball touching it).
  Vec3 sheet = Vec3::Zero();
};

/// How the pieces are cut.
struct PieceRules {
  /// A cluster is flat enough when every triangle's normal (either sign) is within
  /// this angle of the cluster's mean axis [rad].
  double maxConeAngle = 0.44;  // 25 degrees
  /// ... and its thickness along that axis is at most this fraction of its width.
  double maxThickness = 0.15;
  int maxTriangles = 256;
  /// ... or when it is this small, as a fraction of the mesh's half diagonal (a small
  /// curved feature's hull is tight enough; this bounds the count of pieces).
  double minSize = 1.0 / 16;
  /// A piece also takes the triangles around its cluster, up to this far from it (a
  /// fraction of the half diagonal; its first ring of neighbours always): a node near a
  /// cluster's rim projects onto them (collider_pieces.cpp, Skirts).
  double skirt = 1.0 / 20;
  /// A closed mesh stays one piece while no vertex is deeper than this inside its
  /// hull, as a fraction of its bounding radius (the hull is then a tight proxy).
  double maxConcavity = 0.3;
};

/// Cuts `mesh` (wound by orientPieces; closedTriangle from its report) into pieces.
std::vector<ColliderPiece> cutIntoPieces(const TriMesh& mesh, const std::vector<char>& closedTriangle,
                                         const PieceRules& rules = {});

/// How deep the deepest vertex of `mesh` lies inside the convex hull of all its vertices
/// [m] (0 for a convex mesh).
double concavity(const TriMesh& mesh);

}  // namespace d2t
