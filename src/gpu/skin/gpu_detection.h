#pragma once
// Collision detection of a skin against planes and height fields on the GPU (Fig. 3.5
// steps 8 and 14; Collider::query's arithmetic): one pass over the skin in a texture
// (detect.frag), each node taking its deepest collider within the margin; the hits are
// appended to a buffer through an atomic counter, so that only they cross to the CPU.
// The height fields' grids are kept as a texture array. The skin's contacts with its own
// core (core_contact.h) are found the same way (core_contact.frag).
#include <vector>

#include "gpu/skin/atlas_passes.h"
#include "sim/body/layered_body.h"
#include "sim/contact/collider.h"

namespace d2t {

/// Planes and height fields one detection pass takes (more: one pass per batch of them).
constexpr int kMaxDetectedColliders = D2T_MAX_DETECTED_COLLIDERS;

class GpuDetection {
 public:
  /// Compiles the pass, allocates the hit buffer. Throws GlError.
  explicit GpuDetection(AtlasPasses& passes);
  ~GpuDetection();
  GpuDetection(const GpuDetection&) = delete;
  GpuDetection& operator=(const GpuDetection&) = delete;

  /// The nodes of the skin q (body frame, at the core state s) within `margin` of one of
  /// `colliders`, deepest collider each, sorted by node, into hits (as Collider::query;
  /// one pass per kMaxDetectedColliders of them). Throws GlError for a collider that is
  /// neither a plane nor a height field.
  void detect(const CoreState& s, const std::vector<const Collider*>& colliders, double margin, const GlTexture& q,
              std::vector<ColliderHit>* hits);
  /// The nodes of the skin q crushed past `keep` of their layer thickness onto the core,
  /// or within margin h_i + reach of it, by node, into hits (as findCoreContacts).
  void detectCore(const GlTexture& q, double keep, double margin, double reach, std::vector<CoreContact>* hits);

 private:
  // detect.frag's hit record, declared by layout.glsl's D2T_DETECT_HIT (std430)
  struct Int4 {
    GLint v[4];
    GLint operator[](int i) const { return v[i]; }
  };
  struct Float4 {
    GLfloat v[4];
    GLfloat operator[](int i) const { return v[i]; }
  };
  struct Hit {
    D2T_DETECT_HIT(Int4, Float4)
  };
  static_assert(sizeof(Hit) == 48, "the std430 layout of detect.frag's Hit");
  /// heights_ holds the grids of these height fields (uploaded when the list changes;
  /// a HeightField's grid is fixed for its lifetime).
  void syncHeights(const std::vector<const HeightField*>& fields);
  /// Runs `program` (in use, its inputs bound) over the atlas with the hit buffer bound,
  /// and reads the hits it appended back.
  std::vector<Hit> appendedHits(const ShaderProgram& program);
  size_t capacity() const { return 2 * size_t(passes_.model().nodeCount()); }  // hits the buffer holds

  AtlasPasses& passes_;
  ShaderProgram program_, coreProgram_;
  GLuint hitBuffer_ = 0;  // a counter, then the list
  GlTexture heights_;     // R32F array: the height fields' grids, a layer each
  std::vector<const HeightField*> heightFields_;  // ... of these
};

}  // namespace d2t
