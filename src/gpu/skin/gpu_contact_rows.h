#pragma once
// The contact response's rows on the GPU (steps 9-12; SkinResponse's row passes): the
// rows uploaded as a list texture, a texel per row (layout.glsl: D2T_ROW_IN_*); per row
// D_k, U_k, b_k and the start gap (rows.frag); the rounds of the SMW active set
// (rows_round.frag, the 6x6 sums by reduction; the 6x6 solves are the CPU's, between
// rounds); the impulses r = R^T lambda n (rows_impulse.frag) and the friction
// (rows_friction.frag, the rows of a node in list order), each scattered by node into
// a contact texture. Only the rows' results (lambda, the start gap, the friction
// impulse) and the 6x6 sums cross back.
#include <vector>

#include "gpu/skin/atlas_passes.h"
#include "gpu/skin/gpu_operators.h"

namespace d2t {

class GpuContactRows {
 public:
  /// Compiles the passes. Throws GlError.
  GpuContactRows(AtlasPasses& passes, const GpuOperators& ops);
  ~GpuContactRows();
  GpuContactRows(const GpuContactRows&) = delete;
  GpuContactRows& operator=(const GpuContactRows&) = delete;

  /// Step 9 for `rows` at state s, its skin in the textures q, qdot (SkinResponse::setRows).
  /// Throws GlError for more rows than the atlas has texels.
  void set(const LayeredState& s, const std::vector<ContactRow>& rows, double dt, bool fixedCore,
           const GlTexture& q, const GlTexture& qdot);
  int count() const { return count_; }
  /// One active-set round (SkinResponse::roundRows).
  RowSums round(const Core::Vector* dv, bool oneSided);
  /// Step 11: the rows' impulses, scattered by node into `contact` (r_i, body frame), and
  /// their sums (SkinResponse::impulse).
  ImpulseSums impulse(const LayeredState& s, const GlTexture& q, const GlTexture& contact);
  /// Step 12: the friction at the rows (SkinResponse::friction), its impulses (body frame)
  /// scattered by node into `extra`, and their sums; `impulse` the contact texture of
  /// impulse().
  ImpulseSums friction(const LayeredState& s, double share, const Vec3& dvt, const Vec3& dw, const GlTexture& q,
                       const GlTexture& qdot, const GlTexture& impulse, const GlTexture& extra);
  /// The rows' results, in row order (SkinResponse::rowResults).
  std::vector<RowResult> results();

 private:
  /// The rows' impulses (lambda n, or with `friction` the friction's) as r = R^T f
  /// scattered by node into `target`, and their sums (rows_impulse.frag).
  ImpulseSums impulses(const LayeredState& s, const GlTexture& q, bool friction, const GlTexture& target);
  /// Rows' values (a texel per row) summed by node into `target` (cleared first).
  void scatter(const GlTexture& values, const GlTexture& target);
  /// The rows' texture rows in use.
  int height() const { return (count_ + n_ - 1) / n_; }

  AtlasPasses& passes_;
  const GpuOperators& ops_;
  int n_ = 0;  // atlas resolution (= the row textures')
  ShaderProgram rowsPass_, roundPass_, impulsePass_, frictionPass_, scatterPass_;
  // the rows, a texel each (made at the first rows): their inputs, U and (U, D, b), their
  // state (lambda, active, gap) ping-ponged by the rounds, r (R^T of the rows' or the
  // friction's impulses) and the friction's impulse (world)
  GlTexture in_, u_, v_, state_[2], r_, frictionImpulse_;
  int count_ = 0, cur_ = 0;
  Vec3 v0_ = Vec3::Zero(), w0_ = Vec3::Zero();  // the core's velocities when the rows were set
  std::vector<double> lo_;                      // the rows' lo, in double
};

}  // namespace d2t
