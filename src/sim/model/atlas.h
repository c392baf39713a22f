#pragma once
// D2T texture atlas (ch. 3.5.1, 3.5.3): which texel is a simulation node, the
// implicit surface mesh over the nodes, the 7-slot stencil of every node and
// the gutter that gives every node a full neighbourhood at patch boundaries.
//
// Texel index = y * N + x (row-major), x to the right, y up.
// Stencil slots (Fragment Programs E.1-E.2): slot 0 is the node itself, slots
// 1..6 the texel offsets (0,+1) (+1,0) (+1,-1) (0,-1) (-1,0) (-1,+1). Inside a
// patch every grid cell is split along its anti-diagonal, so these are exactly
// the 6 mesh neighbours. Across a patch edge a slot lands on a gutter texel,
// which after fillGutter() holds a copy of one node (its gutterSource).
//
// Cube map (star-shaped bodies): 6 patches of P x P nodes, P = N/3 - 2, in a
// 3 x 2 arrangement of cells of (P+2) x (P+2) texels; patch f sits at cell
// (f % 3, f / 3) with a 1-texel gutter around it. Face f spans the cube face
// n_f + a u_f + b v_f (|a|, |b| <= 1, u_f x v_f = n_f), node (i, j) at
// a = (2i+1)/P - 1, b = (2j+1)/P - 1, so no node lies on a cube edge.
// Faces: 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z (side faces have v = +Y).
//
// Seams: the strip between the edge rows a(t), b(t) of two adjacent faces
// (t = position along the shared cube edge) is zipped with rungs (a(t), b(t))
// and one diagonal per quad, either (a(t), b(t+1)) for all t or
// (a(t+1), b(t)) for all t. An edge node reads two gutter texels of its edge,
// at its own position t and at t + sigma (sigma = +-1, set by which patch side
// the edge is and how the patch is oriented along the cube edge). The gutter
// at position t holds b(t + delta) with delta in {0, +-1}: "aligned"
// (delta = 0) where the diagonal goes toward +sigma, else "shifted" by one
// toward the diagonal. Then every edge node sees its rung and its diagonal
// partner. A shifted gutter needs one texel beyond the end of the edge; for
// the bottom and right sides (and the top and left sides) of a patch that is
// the same corner gutter texel, so the two may not both be shifted. The
// diagonal direction of each of the 12 seams is picked (once, by exhaustive
// search over the seams where it matters) so that no corner texel is claimed
// twice; the 8 cube corners are closed by one triangle joining the 3 corner
// nodes, whose sides are the end rungs of the 3 seams.
//
// Torus: one periodic patch of M x M nodes, M = N - 2, at texels 1..M; node
// (i, j) has parameters u = (i + 1/2)/M (around Y), v = (j + 1/2)/M (around
// the tube); the 1-texel gutter wraps around.
#include <array>
#include <cstdint>
#include <vector>

#include "d2t/layout.glsl"
#include "sim/base/math.h"

namespace d2t {

enum class AtlasLayout : uint8_t { CubeMap, Torus };
enum class TexelKind : uint8_t { Invalid = 0, Node = 1, Gutter = 2 };

constexpr int kStencilSlots = D2T_STENCIL_SLOTS;
/// Texel offsets (dx, dy) of the stencil slots: self, then the 6 mesh neighbours
/// (shaders/d2t/layout.glsl: the shaders read the same).
inline constexpr int kStencilDx[kStencilSlots] = {D2T_STENCIL_DX};
inline constexpr int kStencilDy[kStencilSlots] = {D2T_STENCIL_DY};

/// Node indices read by the 7 stencil slots (-1: unused slot).
using Stencil = std::array<int, kStencilSlots>;

struct Atlas {
  AtlasLayout layout = AtlasLayout::CubeMap;
  int resolution = 0;  ///< N: the atlas is N x N texels
  int patchSize = 0;   ///< nodes per patch side (P for the cube map, M for the torus)
  int patchCount = 0;  ///< 6 (cube map) or 1 (torus)

  // per texel (N*N, index y*N + x)
  std::vector<TexelKind> texelKind;  ///< (N*N) invalid / node / gutter
  std::vector<int8_t> texelPatch;    ///< (N*N) patch of a node, or the patch a gutter texel surrounds; -1 invalid
  std::vector<int> texelNode;        ///< (N*N) node index of a node texel, else -1
  std::vector<int> gutterSource;     ///< (N*N) node whose value a gutter texel holds after the fill, else -1
  std::vector<int> gutterTexels;     ///< (ngutter) texels with gutterSource >= 0 (the fill list)

  // per node (nnode)
  std::vector<int> nodeTexel;         ///< (nnode) texel index of each node
  std::vector<Vec3> nodeDirection;    ///< (nnode) cube map: unit direction from the centre; torus: empty
  std::vector<Vec2> nodeParam;        ///< (nnode) torus: (u, v) in [0,1)^2; cube map: empty
  std::vector<Stencil> stencil;       ///< (nnode x 7) node read by each slot after the gutter fill

  // implicit surface mesh
  std::vector<Vec3i> triangles;  ///< (ntri) node indices, counter-clockwise seen from outside

  int nodeCount() const { return static_cast<int>(nodeTexel.size()); }
  int texelCount() const { return resolution * resolution; }
};

/// Nodes per patch side of a cube-map atlas of resolution N.
inline int cubeMapPatchSize(int resolution) { return resolution / 3 - 2; }

/// Cube-map atlas (6 patches); needs N >= 15 (P >= 3).
Atlas buildCubeMapAtlas(int resolution);
/// Periodic torus atlas (1 patch); needs N >= 5.
Atlas buildTorusAtlas(int resolution);

/// Copies each gutter texel's value from its source node's texel (the CPU
/// reference of the gutter pass). texels: (N*N x channels), texel-major.
void fillGutter(const Atlas& atlas, float* texels, int channels);
void fillGutter(const Atlas& atlas, double* texels, int channels);

/// Number of (triangle edge, direction) pairs (a, b) for which b is not in
/// a's stencil slots 1..6; 0 when every node sees all its mesh neighbours.
int countUnreachableEdges(const Atlas& atlas);

/// True when every undirected edge of `triangles` is used exactly twice, in
/// opposite directions (closed, consistently oriented 2-manifold edges).
bool isClosedSurface(const std::vector<Vec3i>& triangles);

}  // namespace d2t
