#pragma once
// What a triangle soup is (pieces, open and non-manifold edges, winding) and the
// one repair every use of it wants: each piece wound consistently, closed pieces
// outward. A closed mesh can be a soft body (star-shaped: the cube-map atlas); any
// soup can be a rigid collider, double-sided where it is open (collider.h).
#include <string>
#include <vector>

#include "sim/scene/tri_mesh.h"

namespace d2t {

struct MeshReport {
  int vertices = 0, triangles = 0;
  int pieces = 0;            ///< sets of triangles joined by shared vertices
  int closedPieces = 0;      ///< pieces whose every edge has two triangles, wound oppositely
  int boundaryEdges = 0;     ///< edges of one triangle (holes, open rims)
  int holes = 0;             ///< loops of boundary edges (sets joined by shared vertices)
  int nonManifoldEdges = 0;  ///< edges of three or more triangles
  int rewound = 0;           ///< triangles turned to agree with their neighbours (or outward)
  int conflicts = 0;         ///< two-triangle edges still wound alike (a Moebius-like piece)
  int degenerate = 0;        ///< triangles of (near) zero area
  double volume = 0;         ///< of the closed pieces, outward [m^3]
  Aabb bounds;
  bool starShaped = false;   ///< closed, and star-shaped about its centre of mass (isStarShaped)
  std::string notStarShaped; ///< why not, where closed
  /// (triangles) whether each belongs to a closed piece (one-sided) or an open one.
  std::vector<char> closedTriangle;

  bool closed() const { return pieces > 0 && closedPieces == pieces && conflicts == 0; }
  /// "N boundary edges, M edges shared by more than two triangles" (empty when closed).
  std::string openProblems() const;
};

/// Winds each piece's triangles consistently, across every edge two of them share
/// (breadth-first from each piece's first triangle; an edge of three or more, or a
/// boundary edge, joins nothing), and turns each closed piece outward (positive
/// volume) and each open one so that its volume fanned from the mesh's box centre is
/// positive (what it nearly encloses faces out); then reports what it found and did.
MeshReport orientPieces(TriMesh* mesh);

/// The report as text, one fact a line, for `d2tsim --mesh-report`: what the loader sees
/// and what a rigid collider makes of it (mesh_repair.h's softBodyText: a soft body).
std::string meshReportText(const MeshReport& report, const std::string& path);

}  // namespace d2t
