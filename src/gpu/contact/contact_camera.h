#pragma once
// Stage 2 of the collision detection between two deformable bodies, or a body
// and a mesh collider, on the GPU:
// the image-space "contact camera" of dissertation 3.5.4 (Figs. 3.10-3.11,
// Fragment Programs E.3-E.5, fixed as docs/design.md 7b says; shaders/d2t/contact_*).
//
//   1-2  an orthographic camera along the pair normal n over the window where
//        the two skins overlap renders A's front faces (nearest) and B's back
//        faces (farthest): heights h = n . x and triangle ids (integer targets)
//   3    D = h_A - h_B with both ids (the contact texture; > 0: penetration)
//   4-5  each body's atlas pass projects every node into D: colliding where
//        D > 0 and the triangle on its side is one of the node's own, with the
//        overlap between its exact height and the other skin's interpolated one
//        (one sample per node: a node's depth taken as the deepest D texel of a
//        footprint would overestimate it by the slope times the footprint)
//
// Only each skin's patch (sim/body_contact.h: findPairPatches, through the
// skins' bounding-volume hierarchies) is uploaded, drawn and mapped: passes 4-5
// draw one point per patch node into a compact output, and only that is read
// back, so the cost follows the contact area, not the skins' resolution. A mesh
// collider is drawn as a skin (its patch: the triangles facing the body), and
// only the body's nodes are mapped. The CPU reference is findSkinContacts and
// findColliderContacts (sim/body_contact.h).
// Needs a current OpenGL 4.3 context; throws GlError otherwise.
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/skin/gpu_skin.h"
#include "sim/contact/body_contact.h"

namespace d2t {

class ContactCamera final : public PairContactFinder {
 public:
  /// `resolution`: D is resolution^2 texels over the window.
  explicit ContactCamera(int resolution = 256);
  ~ContactCamera() override;
  ContactCamera(const ContactCamera&) = delete;
  ContactCamera& operator=(const ContactCamera&) = delete;

  /// Stage 2 for one pair of bodies at their current states (as findSkinContacts).
  int find(LayeredBody& a, LayeredBody& b, const ProxyContact& pair, std::vector<NodeContact>* outA,
           std::vector<NodeContact>* outB) override;
  /// ... for a body and a mesh collider (as findColliderContacts).
  int find(LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
           std::vector<NodeContact>* outA) override;

  int resolution() const { return resolution_; }
  /// Side of a D texel in the last window [m].
  double texelSize() const { return texelSize_; }

  /// A copy of the contact texture D of one pair, for the texture viewer.
  struct Snapshot {
    std::string bodyA, bodyB;      ///< the pair's bodies or collider (A: front faces, B: back faces)
    int resolution = 0;            ///< D is resolution^2 texels
    double texelSize = 0;          ///< side of a texel [m]
    Vec3 normal = Vec3::UnitY();   ///< camera direction n, from A to B
    std::vector<float> d;          ///< (resolution^2) D = h_A - h_B [m], row 0 first; NaN: a skin missing
  };
  /// While on, every find() that draws reads D back (resolution^2 floats) into a
  /// snapshot of its pair; off by default (the readback costs time).
  void keepSnapshots(bool on) {
    keepSnapshots_ = on;
    if (!on) snapshots_.clear();
  }
  bool keepingSnapshots() const { return keepSnapshots_; }
  /// The snapshots taken since the last call, the latest per pair.
  std::vector<Snapshot> takeSnapshots();

 private:
  struct Slot;
  /// Passes 1-3 for a pair: its patches, the window over them, D (and its snapshot).
  /// False when the surfaces do not overlap along n (nothing drawn).
  bool draw(const ContactSurface& a, const ContactSurface& b, const ProxyContact& pair, const std::string& nameA,
            const std::string& nameB, PairPatches* patches);
  /// Pass 1 (A: nearest, slot 0) or 2 (B: farthest, slot 1) for one side's patch.
  void drawSide(int side, const std::vector<Vec3i>& triangles, const SkinPatch& patch);
  /// A patch node that passes 4-5 found colliding: its index in the patch, its depth [m],
  /// the other side's triangle and the node's barycentric coordinates on it.
  struct MappedNode {
    size_t index = 0;
    double depth = 0;
    int triangle = -1;
    std::array<double, 3> bary{};
  };
  /// Passes 4-5 for one body's patch: its colliding nodes (with a triangle id below
  /// `otherTriangles`, the other side's count).
  std::vector<MappedNode> mapNodes(const BakedBodyPtr& model, const SkinPatch& patch, int side,
                                   size_t otherTriangles);
  /// The triangles around each node of a body's atlas (nodeTriangleTexture), kept per model.
  const GlTexture& nodeTriangles(const BakedBodyPtr& model);

  int resolution_;
  double texelSize_ = 0;
  ShaderProgram depth_, difference_, map_;
  GlTexture hA_, hB_, idA_, idB_, d_, ids_;
  GLuint depthBuffer_ = 0, emptyVao_ = 0;
  GLuint fboA_ = 0, fboB_ = 0, fboD_ = 0;
  // passes 4-5: the patch's nodes as points, and their compact outputs
  static constexpr int kMapWidth = 256;
  int mapHeight_ = 0;
  GlTexture mapContact_, mapOther_;
  GLuint fboMap_ = 0, pointVao_ = 0, pointPositions_ = 0, pointTexels_ = 0;
  std::unique_ptr<Slot> slots_[2];  // the patch meshes of sides A and B, re-filled every pair
  struct NodeTriangles {
    std::weak_ptr<const BakedBody> model;
    GlTexture texture;
  };
  // per model; an entry whose model is gone is rebuilt (a new model may reuse its address)
  std::map<const BakedBody*, NodeTriangles> nodeTriangles_;
  // window of the current pair
  Vec3 t1_, t2_, n_;
  Vec2 lo_, hi_;
  double hMin_ = 0, hMax_ = 0;
  double margin_ = 0;  // the pair's margin (ProxyContact::margin) [m]
  bool keepSnapshots_ = false;
  std::map<std::pair<std::string, std::string>, Snapshot> snapshots_;
};

}  // namespace d2t
