#pragma once
// Closing any triangle soup into a surface a soft body can have: the soup's generalized
// winding number w (winding_number.h) says what it encloses, the surface w = 1/2 is meshed
// by surface nets (surface_nets.h) at the node count asked, and what was done is reported
// in one line. A closed input comes out re-meshed (well-shaped triangles at the body's
// node count); holes come out filled (the w = 1/2 surface spans them: for a small hole it
// lies within a fraction of the hole's size of the surface the hole was cut from),
// overlapping pieces merged, internal walls and non-manifold edges gone.
#include <functional>
#include <string>

#include "sim/scene/mesh_check.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// The most of the closed volume that pieces apart from the largest may hold for the repair to
/// keep the largest alone (more, and the soup is refused as a soft body).
constexpr double kMostDropped = 0.1;

struct MeshRepair {
  std::string source;            ///< the input's name in messages (its path)
  TriMesh mesh;                  ///< closed, 2-manifold, outward; the soup's frame
  int nodes = 0;                 ///< mesh.positions.size()
  int piecesIn = 0, piecesOut = 0;
  int piecesDropped = 0;         ///< of piecesOut: all but the largest, when small (kMostDropped)
  double droppedVolume = 0;      ///< their share of the closed volume
  int holesFilled = 0;           ///< loops of the input's boundary edges
  int boundaryEdges = 0, nonManifoldEdges = 0;
  double maxDistance = 0;        ///< of the new surface's nodes from the input's triangles [m]
  double meanDistance = 0;       ///< [m]
  double size = 0;               ///< the input's box diagonal [m]
  bool starShaped = false;       ///< about the new surface's centre of mass (isStarShaped)
  std::string notStarShaped;     ///< why not

  /// "PATH: re-meshed to N nodes (closed) ..." or "PATH: closed by a winding-number repair: H
  /// holes filled (B boundary edges), P pieces merged into Q, E non-manifold edges removed;
  /// N nodes; the new surface lies within X mm of the input (mean Y mm)".
  std::string summary() const;
};

/// What a soft body of this soup would be, one line for `d2tsim --mesh-report`: on the
/// cube-map atlas as it is (closed, star-shaped), or after repairMesh at `nodes` nodes (on
/// the atlas when the result is star-shaped, else on the general surface layout, where
/// `layer`, given, is asked whether a layer fits under the closed surface, about its centre
/// of mass: it throws InputError saying why not), with the repair's summary; or why not.
std::string softBodyText(const TriMesh& soup, const MeshReport& report, int nodes, const std::string& path,
                         const std::function<void(const TriMesh&)>& layer = {});

/// The closed surface of a triangle soup at about `nodes` nodes (within ~1%); the soup is
/// wound by orientPieces first. Throws InputError naming `path`: "encloses no volume" when
/// w never reaches 1/2 (a sheet, a strip), "cannot be closed at N nodes" when the grid does
/// not resolve it (more nodes may), "closes into N separate pieces" (a soft body is one; the
/// largest is kept alone where the others hold no more than kMostDropped of the volume).
/// `signedDistance`, given, is the solid's own (a procedural shape's, a closed mesh's:
/// Shape::hasInside): its zero set is meshed instead of the soup's w = 1/2, exactly and at a
/// fraction of the winding number's cost; the soup then gives the box and the report.
MeshRepair repairMesh(TriMesh soup, int nodes, const std::string& path,
                      const std::function<double(const Vec3&)>& signedDistance = {});

}  // namespace d2t
