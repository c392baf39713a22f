#pragma once
// The multigrid preconditioner of the GPU's CG (issue 32): one V-cycle of the smoothed-
// aggregation hierarchy as fragment-shader passes (shaders/d2t/multigrid.glsl). The
// hierarchy is the CPU's (MultigridPreconditioner, built from the body's Mt_e once per
// operator version) and so is every pass's arithmetic, in float: the CPU cycle is the
// reference each pass is tested against (tests/gpu/skin/test_gpu_multigrid.cpp).
//
// Per V-cycle and smoothed level: the Chebyshev smoothing before the coarse correction
// (kSmootherDegree + 1 passes), the restriction, the prolongation, the smoothing after
// (kSmootherDegree + 1 passes); on the coarsest level (at most kCoarsestNodes nodes) a
// product with its dense inverse. A matrix is three storage buffers in compressed rows;
// a coarse level's vectors are small textures, the fine level's the atlas fields.
#include <vector>

#include "gpu/gl/buffer.h"
#include "gpu/skin/atlas_passes.h"
#include "sim/body/body_view.h"
#include "sim/body/multigrid_preconditioner.h"

namespace d2t {

class GpuMultigrid {
 public:
  /// Compiles the passes. Throws GlError.
  explicit GpuMultigrid(AtlasPasses& passes);
  /// Follows the body's operator: uploads its CG's hierarchy, or one built here from its
  /// blocks where the body's CPU solver is the direct factor. Throws std::invalid_argument
  /// where Mt_e is not positive definite (MultigridPreconditioner::build).
  void sync(const BodyView& body);
  /// The largest coarsest level uploaded: its dense inverse takes (3n)^2 floats (17 MB
  /// at 600 nodes) and each of its rows a loop over n blocks. (The CPU coarsens to
  /// kCoarsestNodes = 400; a level that stops coarsening before is larger.)
  static constexpr int kMaxCoarsestNodes = 600;
  /// Uploads a hierarchy of this atlas's nodes (none, ready() false, where its coarsest
  /// level has more than kMaxCoarsestNodes nodes).
  void upload(const MultigridPreconditioner& mg);
  bool ready() const { return !levels_.empty(); }
  /// z = B r, one V-cycle from zero (r, z: atlas fields, z not r).
  void apply(const GlTexture& r, const GlTexture& z);

  // ---- the passes one by one (node vectors in and out, for the tests) ------------------
  enum class Product { A, P, R };
  /// Level l's A_l x, P_l x (x on level l + 1) or R_l x (x on level l) by the pass.
  std::vector<Vec3> multiply(int l, Product which, const std::vector<Vec3>& x);
  /// The coarsest level's solve A_c^-1 f by the pass.
  std::vector<Vec3> coarseSolve(const std::vector<Vec3>& f);
  /// Level l's smoothing before the coarse correction (MultigridPreconditioner::presmooth).
  void presmooth(int l, const std::vector<Vec3>& f, std::vector<Vec3>* x, std::vector<Vec3>* res);

 private:
  struct Layout {  // where a level's node j lies: texel texel[j] of a width x height texture
    bool atlas = false;
    int width = 0, height = 0;
    std::vector<int> texel;
  };
  struct Matrix {  // compressed block rows over (output layout, input layout)
    GlBuffer start, column, block;
  };
  struct Level {
    Layout layout;
    Matrix a, p, r;  // A_l, P_l (rows here, columns on l + 1), R_l (rows on l + 1); coarsest: a = A^-1
    GlBuffer diag;   // rows of A_ii^-1 by texel
    MultigridPreconditioner::Chebyshev chebyshev;
    GlTexture f, e;                  // (coarse levels) the restricted residual, the correction
    GlTexture x[2], res[2], d[2];    // (smoothed levels) the smoother's iterates, ping-pong
    int xi = 0, ri = 0, di = 0;      // ... which of each is current
  };

  Matrix upload(const BlockRows& m, const Layout& rows, const Layout& cols);
  GlTexture field(const Layout& l) const;
  void uploadVector(const Layout& l, const GlTexture& t, const std::vector<Vec3>& v) const;
  std::vector<Vec3> downloadVector(const Layout& l, const GlTexture& t) const;
  void bindMatrix(const Matrix& m) const;
  void setLayouts(const ShaderProgram& p, const Layout& out, const Layout& in);
  // y = M x + scaleAdd addend into `out` (output layout `rows`)
  void multiplyPass(const Matrix& m, const Layout& rows, const Layout& cols, const GlTexture& x,
                    const GlTexture* addend, const GlTexture& out);
  void cycle(int l, const GlTexture& f, const GlTexture& out);
  // smoothing of A_l x = f (MultigridPreconditioner::smooth); the last x into `out` when given
  void smooth(int l, const GlTexture& f, bool zeroStart, bool residual, const GlTexture* out = nullptr);
  void smoothPass(const Level& lv, int mode, bool first, float cd, float cr, const GlTexture& f,
                  const std::vector<AtlasPasses::Target>& targets);

  AtlasPasses& passes_;
  ShaderProgram multiply_, smooth_;
  std::vector<Level> levels_;  // the smoothed levels, then the coarsest
  BodyId syncedBody_ = nullptr;  // what sync() uploaded last: (body, operator version)
  int syncedVersion_ = -1;
  MultigridPreconditioner own_;  // the hierarchy built here for a body solved by its factor
};

}  // namespace d2t
