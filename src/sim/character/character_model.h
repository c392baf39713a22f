#pragma once
// A baked soft character (dissertation 4.1): its skeleton, its skin on a general surface
// layout (nodes, triangles and a sparse stencil: the cube-map atlas only fits star-shaped
// bodies), the skin layer's tetrahedra between the skin and the inner surface over the
// bones (the same elements, lumping and K_e rows as the atlas bodies: layer_elements.h),
// the skinning weights, and each bone's rigid link. Immutable after bakeCharacter().
//
// Everything is in world bind coordinates (skeleton.h): the rest skin u_o,p, the inner
// points f_p, and the skin displacement q_p of a state (pose-space strain, 4.1.2).
//
// Mass (decision D2 of docs/decisions/0030-articulated-characters.md): the skin nodes carry
// the tets' shares on skin vertices (m_p); each bone's link carries, by the weights, the
// shares on the inner vertices and the solid inside the inner surface (the mesh's interior
// pieces), about its own centre of mass, which is the bone frame's origin.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/base/triangle_bvh.h"
#include "sim/character/skeleton.h"
#include "sim/contact/convex_proxy.h"
#include "sim/model/layer_elements.h"
#include "sim/scene/scene.h"

namespace d2t {

/// A piece of the solid inside the inner surface: its volume and moments (exact, from
/// closed polyhedra), given to the bones by the weights at its centroid.
struct InteriorPiece {
  double volume = 0;                ///< [m^3]
  Vec3 firstMoment = Vec3::Zero();  ///< int x dV [m^4]
  Mat3 secondMoment = Mat3::Zero(); ///< int x x^T dV [m^5]
};

/// The geometry a procedural generator (or, later, a loader) gives for a character.
struct CharacterMesh {
  std::vector<Vec3> skin;        ///< g_p: rest skin nodes, world bind [m]
  std::vector<Vec3> inner;       ///< f_p: the inner (core) point under each node
  std::vector<Vec3i> triangles;  ///< outward counter-clockwise over node indices, closed
  std::vector<InteriorPiece> interior;  ///< the solid inside the inner surface, in pieces
};

struct CharacterDesc {
  std::string name;
  Skeleton skeleton;
  CharacterMesh mesh;
  Material material;
  double blend = 1.0;     ///< the weights' falloff sigma = blend r / 2 (r: the nearest bone's radius)
  int maxInfluences = 4;  ///< the most bones per node, 1..4
};

/// A node's bones and weights (sum 1, each > 0; unused entries: bone -1, weight 0).
struct Influences {
  std::array<int, 4> bone{{-1, -1, -1, -1}};
  std::array<double, 4> weight{{0, 0, 0, 0}};
  int count = 0;
  /// The bone of the largest weight.
  int dominant() const {
    int best = 0;
    for (int a = 1; a < count; ++a)
      if (weight[size_t(a)] > weight[size_t(best)]) best = a;
    return bone[size_t(best)];
  }
};

/// The general surface layout's stencil: node i's neighbours (itself first, then the nodes it
/// shares a triangle edge with) in compressed rows.
struct SurfaceStencil {
  std::vector<int> start;   ///< (n + 1)
  std::vector<int> column;  ///< node indices
  int nodeCount() const { return int(start.size()) - 1; }
  /// The entry of (i, j), or -1.
  int find(int i, int j) const {
    for (int e = start[size_t(i)]; e < start[size_t(i) + 1]; ++e)
      if (column[size_t(e)] == j) return e;
    return -1;
  }
};

/// Stage 1 of a character's collision detection, per bone (dissertation 4.3; bone_proxies.h):
/// the skin bone i moves and a convex proxy over it in the bone's own bind coordinates.
struct BoneProxy {
  /// V_i: the nodes bone i carries most (their dominant bone), in runs of kNodeRun near each
  /// other at rest (what self-contact boxes a run at a time)
  std::vector<int> nodes;
  static constexpr int kNodeRun = 16;
  std::vector<int> triangles;  ///< T_i: the triangles with a corner in V_i
  std::vector<int> corners;    ///< C_i: their corners (V_i and the ring just outside it)
  ConvexProxy hull;            ///< over C_i at rest, y_p - c_i (world bind axes, about the bone's centre)
  TriangleBvh hierarchy;       ///< over T_i at rest (built once; refit to the skin at a state)
  std::vector<int> seams;      ///< the bones whose patches meet this one (a node of V_j in C_i)
  /// Each other bone a moving a node of C_i: the bound of how far the blend carries those
  /// nodes from bone i's rigid motion (bone_proxies.cpp: origin o, largest w_pa, largest
  /// w_pa |u_p - o| at rest).
  struct Blend {
    int bone = -1;
    Vec3 origin = Vec3::Zero();
    double weight = 0, reach = 0;
  };
  std::vector<Blend> blends;
};

struct CharacterModel {
  std::string name;
  Skeleton skeleton;  ///< with each bone's bind frame set
  Material material;

  std::vector<Vec3> restSkin;     ///< u_o,p (world bind)
  std::vector<Vec3> inner;        ///< f_p
  std::vector<Vec3i> triangles;
  std::vector<Influences> influence;  ///< (n) skinning weights of each node (and its inner point)
  std::vector<double> nodeMass;       ///< (n) m_p [kg]

  std::vector<Tet> tets;          ///< ids as layer_elements.h
  std::vector<double> tetVolume;  ///< [m^3]
  SurfaceStencil stencil;
  std::vector<Mat3> stiffness;    ///< K_s blocks by stencil entry [N/m]

  std::vector<BoneProxy> proxies;   ///< (k) stage 1 per bone
  std::vector<int> ringStart;       ///< (n + 1) node p's triangles (its 1-ring): ringTriangle[ringStart[p] ..)
  std::vector<int> ringTriangle;

  std::vector<double> linkMass;     ///< (k) m_L,i [kg]
  std::vector<Mat3> linkInertia;    ///< (k) I_L,i about the bone's origin, bone frame [kg m^2]
  double totalMass = 0;             ///< sum of links and nodes [kg]

  int nodeCount() const { return int(restSkin.size()); }
  int boneCount() const { return skeleton.boneCount(); }
  /// y = K_s x over the stencil (x, y: one Vec3 per node).
  void multiplyK(const std::vector<Vec3>& x, std::vector<Vec3>& y) const;
};

using CharacterModelPtr = std::shared_ptr<const CharacterModel>;

/// Bakes a character. Throws InputError naming the character and the field: a skeleton
/// that validate() refuses, a mesh whose sizes or indices disagree, an inverted element, a
/// node no bone reaches, a bone with no mass.
CharacterModelPtr bakeCharacter(const CharacterDesc& desc);

/// The skinning weights of a point (skeleton.h's bones' segments): w_i proportional to
/// exp(-(d_i - d_min)^2 / 2 sigma^2) for d_i - d_min < 3 sigma, sigma = blend r / 2 with r
/// the nearest bone's radius; the largest maxInfluences kept and normalised.
Influences skinningWeights(const Skeleton& sk, const Vec3& x, double blend, int maxInfluences);

/// Volume and moments of a closed, outward-oriented polyhedron given as triangles, by
/// signed tets fanned from `apex`.
InteriorPiece closedSolidMoments(const Vec3& apex, const std::vector<std::array<Vec3, 3>>& triangles);

}  // namespace d2t
