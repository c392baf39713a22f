#pragma once
// The baked model of one layered body (ch. 3.1, 3.5.1): atlas, implicit mesh,
// tetrahedra, lumped masses, rigid core and the 7-slot stiffness stencil.
// Immutable after bake(); shared by the CPU reference and the GPU solver,
// which keep their mutable state elsewhere.
//
// Body frame: origin at the centre of mass of the RIGID part (core solid plus
// the tet mass lumped onto core-surface vertices), axes of the shape's frame,
// so the formulas of docs/design.md sec. 3 hold as written. A point x_shape of the
// shape's frame is x_body = x_shape - comOffset.
//
// Vertex ids of the tetrahedra: id < nnode is skin node id (restSkin[id]),
// id >= nnode is the core point of node id - nnode (core[id - nnode]).
//
// Material regions (BodyDesc::regions) are evaluated at rest points in the
// shape's frame (before the com shift, which depends on the densities).
#include <cstdint>
#include <Eigen/SparseCore>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/model/atlas.h"
#include "sim/base/math.h"
#include "sim/scene/scene.h"
#include "sim/model/skin_bvh.h"

namespace d2t {

/// Material of one skin node (the material map).
struct NodeMaterial {
  double young = 0;    ///< Young's modulus [Pa]
  double poisson = 0;  ///< Poisson ratio [-]
  double density = 0;  ///< mass density [kg/m^3]
};

using Tet = std::array<int, 4>;

struct MorphTargetSet;  // sim/morph/morph_targets.h

struct BakedBody {
  std::string name;  ///< body name from the scene (for messages)

  /// Texels, nodes, 7-slot stencils (node indices read after the gutter fill)
  /// and the surface triangles (outward CCW over node indices). See atlas.h.
  Atlas atlas;

  // ---- frame --------------------------------------------------------------
  /// Body-frame origin in the shape's frame [m]. Nonzero even for symmetric
  /// shapes: the prism split follows the node order, so the tet shares lumped
  /// on core vs skin vertices are slightly uneven along patch edges (2 mm for a
  /// r = 0.5 m ball at N = 64, 0.5 mm at 256); the whole body's com stays put.
  Vec3 comOffset = Vec3::Zero();

  // ---- nodes (nnode) --------------------------------------------------------
  std::vector<Vec3> restSkin;          ///< (nnode x 3) rest skin point g, body frame [m]
  std::vector<Vec3> core;              ///< (nnode x 3) core point f under each node, body frame [m]
  std::vector<Vec3> layerDirection;    ///< (nnode) d_i = (g - f) / h_i, the rest direction, body frame
  std::vector<double> layer;           ///< (nnode) h_i = |g - f|, the rest layer thickness [m]
  std::vector<NodeMaterial> material;  ///< (nnode) material at g (regions applied)
  std::vector<double> nodeMass;        ///< (nnode) lumped skin node mass m_i [kg]

  // ---- tetrahedra (ntet) ----------------------------------------------------
  std::vector<Tet> tets;          ///< (ntet x 4) vertex ids (see above), positively oriented
  std::vector<double> tetVolume;  ///< (ntet) rest volume [m^3], > 0
  std::vector<double> tetYoung;   ///< (ntet) Young's modulus, mean of the 4 vertices [Pa]
  std::vector<double> tetPoisson; ///< (ntet) Poisson ratio, mean of the 4 vertices [-]
  std::vector<double> tetDensity; ///< (ntet) density, mean of the 4 vertices [kg/m^3]

  // ---- rigid core ------------------------------------------------------------
  double coreMass = 0;                ///< m_c: core solid + tet shares of core vertices [kg]
  Mat3 coreInertia = Mat3::Zero();    ///< I_c about the body-frame origin (its own com) [kg m^2]
  double coreVolume = 0;              ///< volume enclosed by the core surface [m^3]
  std::vector<double> coreVertexMass; ///< (nnode) tet mass lumped on core point i (part of m_c) [kg]
  /// Second moment [kg m^2] added to the core so that the lumped body has the
  /// exact rest inertia of the solid (exact tets minus their vertex lumping;
  /// the same about any origin, since lumping keeps mass and first moment).
  Mat3 lumpingCorrection = Mat3::Zero();

  // ---- whole body at rest (core + skin nodes as point masses) ------------------
  double skinVolume = 0;              ///< sum of tet volumes [m^3]
  double totalMass = 0;               ///< m = m_c + sum m_i [kg]
  Vec3 totalCom = Vec3::Zero();       ///< centre of mass, body frame [m]
  Mat3 totalInertia = Mat3::Zero();   ///< inertia about totalCom [kg m^2]

  // ---- stiffness ---------------------------------------------------------------
  /// (nnode x 7) 3x3 blocks of K_e [N/m], slot order of atlas.stencil: block s
  /// of node i couples the force on i to the displacement of stencil[i][s].
  /// Unused slots hold zero blocks.
  std::vector<std::array<Mat3, kStencilSlots>> stiffness;
  /// Nodes with a nonzero K block outside their stencil slots (dropped); must be 0.
  int incompleteNeighbourhoods = 0;
  /// The skin's triangles in a bounding-volume hierarchy over the rest skin (stage 2
  /// of the detection between bodies reaches the contact patch through it).
  SkinBvh skinBvh;

  /// A 64-bit hash of the rest skin, the node masses and K_e (bake() sets it): two
  /// bakes of the same description share it, a changed material changes it (a state
  /// of the skin belongs to one).
  uint64_t fingerprint = 0;

  /// The body's dynamic morph targets (ch. 5), baked on this model's atlas, tets and masses
  /// (null: none).
  std::shared_ptr<const MorphTargetSet> morph;

  int nodeCount() const { return static_cast<int>(restSkin.size()); }
  int tetCount() const { return static_cast<int>(tets.size()); }
  /// Rest position [m] (body frame) of a tet vertex id.
  const Vec3& vertex(int id) const {
    const int n = nodeCount();
    return id < n ? restSkin[id] : core[id - n];
  }
};

using BakedBodyPtr = std::shared_ptr<const BakedBody>;

/// Progress callback: fraction done in [0, 1] and the current stage name.
using BakeProgress = std::function<void(float fraction, const char* stage)>;

/// Bakes a body description. Throws InputError (naming the body) when the
/// shape cannot be put on an atlas (a Solid shape), when the core is not
/// strictly inside the skin, or when a tetrahedron is degenerate or inverted.
BakedBodyPtr bake(const BodyDesc& desc, const BakeProgress& progress = {});

/// K_e's stencil blocks of the body's tets placed at skin points g and core points f (shape
/// or body frame: only differences matter), with each tet's Young's modulus and Poisson
/// ratio: bake()'s assembly, and a morph target's on its own rest shape and material.
/// Throws InputError "<owner>: ..." where a tet is degenerate or inverted there.
std::vector<std::array<Mat3, kStencilSlots>> assembleStencilStiffness(const BakedBody& body, const std::string& owner,
                                                                     const std::vector<Vec3>& g,
                                                                     const std::vector<Vec3>& f,
                                                                     const std::vector<double>& young,
                                                                     const std::vector<double>& poisson);

/// K_e as a sparse (3n x 3n) matrix assembled from the slot blocks.
Eigen::SparseMatrix<double> assembleK(const BakedBody& body);

/// y = K_e x through the 7-slot stencil (x, y: 3n, node-major; y may not alias x).
void multiplyK(const BakedBody& body, const double* x, double* y);

/// Gutter fill on an (N*N x channels) texture of this body's atlas.
inline void fillGutter(const BakedBody& body, float* texels, int channels) {
  fillGutter(body.atlas, texels, channels);
}
inline void fillGutter(const BakedBody& body, double* texels, int channels) {
  fillGutter(body.atlas, texels, channels);
}

}  // namespace d2t
