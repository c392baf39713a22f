#pragma once
// A skeleton for any closed surface, from its medial axis: the curve skeleton that a user who
// asks a mesh body for bones gets (a banana's chain along its arc, a star's arms from its
// middle), as segments a character's skeleton takes (skeleton.h: ball joints where they meet).
//
// How (a Reeb graph of geodesic distance, as the level-set diagrams of Lazarus and Verroust
// 1999): the solid is cut into cubes (voxel_grid.h); the distance through it from a tip (the
// cube farthest, through the solid, from the deepest one) is cut into bands two cubes wide;
// each band's connected pieces are the graph's nodes, at their centroids, and a piece hangs
// from the piece of the band before it that it touches most, which makes a tree (a handle, as
// in a mug, is cut where its two ways round meet). A side branch shorter than 1.5 times the
// radius where it leaves is a bump, not a limb, and is pruned; the branches between the tip,
// the forks and the ends are smoothed and split into bones of about equal length.
#include <string>
#include <vector>

#include "sim/scene/tri_mesh.h"

namespace d2t {

struct MedialBone {
  Vec3 head = Vec3::Zero(), tail = Vec3::Zero();  ///< on the medial axis [m]
  double radius = 0;  ///< the solid's largest half-thickness along the bone [m]
  int parent = -1;    ///< the bone whose tail is this one's head (-1: the root)
};

struct MedialSkeleton {
  std::vector<MedialBone> bones;  ///< parents before children
  int forks = 0;                  ///< where three or more branches meet
  double length = 0;              ///< of the whole curve skeleton [m]
  double cube = 0;                ///< the grid's cubes' side [m]
  /// "B bones (a chain | a tree with F forks), L m of medial axis".
  std::string summary() const;
};

/// The curve skeleton of a closed, outward surface, cut into about `bones` bones (each
/// branch gets a whole number of the skeleton's length over `bones`, at least one; a chain
/// gets exactly `bones`). Throws InputError naming `path` when the solid is too thin for the
/// grid or `bones` is below 1.
MedialSkeleton medialSkeleton(const TriMesh& surface, int bones, const std::string& path);

}  // namespace d2t
