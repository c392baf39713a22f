#pragma once
// The plumbing of the per-texel passes over one body's atlas (DDT paper sec. 6,
// dissertation 3.5), which every part of the GPU solver runs its passes through: a
// full-screen draw of a program into a set of targets (a framebuffer kept per set of
// attachments), the two textures every pass reads (the rest texture (ub, m) and the
// source map, common.glsl), the 4 x 4 reduction pyramids with their 1 x 1 sums (a
// pass's terms at output location L reduced from terms(L) into sums(L): layout.glsl),
// node vectors to and from textures, and the GPU timer queries of the passes.
#include <array>
#include <utility>
#include <vector>

#include "d2t/layout.glsl"
#include "gpu/gl/shader.h"
#include "gpu/gl/texture.h"
#include "sim/base/profile.h"
#include "sim/model/baked_body.h"

namespace d2t {

class AtlasPasses {
 public:
  /// A render target: a 2-D texture (layer -1) or a layer of an array.
  struct Target {
    GLuint texture;
    int layer;
  };
  /// The most outputs of a pass (GL's 8 draw buffers; reduce.frag's inputs).
  static constexpr int kMaxTerms = 8;

  /// Checks the context (OpenGL 4.3, 8 draw buffers, 16 texture units), compiles the
  /// reduction, uploads the static textures. Throws GlError.
  explicit AtlasPasses(BakedBodyPtr model);
  ~AtlasPasses();
  AtlasPasses(const AtlasPasses&) = delete;
  AtlasPasses& operator=(const AtlasPasses&) = delete;

  const BakedBody& model() const { return *model_; }
  const BakedBodyPtr& modelPtr() const { return model_; }
  int size() const { return n_; }  ///< the atlas resolution N

  // ---- textures ------------------------------------------------------------------------
  /// The skin's layer over its core at each node texel: (d_i, h_i), the rest direction
  /// and thickness (BakedBody::layerDirection, layer; 0 elsewhere).
  const GlTexture& layer() const { return layer_; }
  /// An N x N RGBA32F texture, zeroed (unused texels must hold finite values).
  GlTexture newField() const;
  void uploadNodes(const GlTexture& t, const std::vector<Vec3>& x);
  std::vector<Vec3> downloadNodes(const GlTexture& t) const;

  // ---- a pass --------------------------------------------------------------------------
  /// Uses a per-texel pass program and binds the textures every such pass reads.
  void beginPass(const ShaderProgram& p);
  /// Binds a texture to the next unit for `name` of the current program.
  void bind(const ShaderProgram& p, const char* name, const GlTexture& t);
  /// ... any texture object (a buffer texture, an integer array) of `target`.
  void bind(const ShaderProgram& p, const char* name, GLenum target, GLuint texture);
  void resetUnits() { unit_ = 0; }
  /// Binds `targets` as the framebuffer with a w x h viewport (0: the atlas).
  void bindTargets(const std::vector<Target>& targets, int w = 0, int h = 0);
  /// The framebuffers kept (one per set of attachments; none outlives its textures).
  size_t framebufferCount() const { return fbos_.size(); }
  /// Runs `program` (used, its inputs bound) into `targets` over the atlas (or a w x h viewport).
  void draw(const ShaderProgram& program, const std::vector<Target>& targets, int w = 0, int h = 0);
  /// The empty vertex array the passes draw with (a point per vertex id, or a triangle).
  GLuint vertexArray() const { return vao_; }

  // ---- reductions ----------------------------------------------------------------------
  /// Sums each of `inputs` (N x N, or its first `height` rows) down to 1 x 1 into
  /// `results`; inputs from maxFrom on are reduced to their maximum instead.
  void reduce(const std::vector<const GlTexture*>& inputs, const std::vector<const GlTexture*>& results,
              int maxFrom = kMaxTerms, int height = 0);
  /// Runs `p` (used, its inputs bound) into `leading` at its first locations and into
  /// terms(L) at each location L after them up to `outputs` (layout.glsl), then reduces
  /// each terms(L) into sums(L): a sum below location `maxFrom`, a maximum from there
  /// on. The draw covers the atlas, or its first `rows` rows (the contact rows' passes).
  void sumTerms(const ShaderProgram& p, int outputs, const std::vector<Target>& leading = {},
                int maxFrom = kMaxTerms, int rows = 0);
  const GlTexture& terms(int location) const { return terms_[location]; }
  const GlTexture& sums(int location) const { return sums_[location]; }
  /// The 1 x 1 texel of a reduction's result, read back.
  std::array<float, 4> readTexel(const GlTexture& oneByOne) const;
  /// ... its channels 0-2.
  Vec3 readSum(const GlTexture& oneByOne) const;
  /// sums(L) read back: its texel, or its channels 0-2.
  std::array<float, 4> sumTexel(int location) const { return readTexel(sums_[location]); }
  Vec3 sum(int location) const { return readSum(sums_[location]); }
  /// The first `rows` rows of two N x N targets, read back (`what`: for a GL error).
  void readRows(const GlTexture& a, const GlTexture& b, int rows, std::vector<float>* outA,
                std::vector<float>* outB, const char* what);

  // ---- GPU time ------------------------------------------------------------------------
  /// A GPU timestamp: the time to the next one is the stage's (Stage::Count: an end).
  void timestamp(Stage stage);
  /// Drops the stamps not read yet (a step starts its own).
  void dropStamps() { stamps_.clear(); }
  /// The GPU time of the passes since the last call, into `profile` (gpu_* stages).
  void takeTimes(Profile& profile);
  /// The GPU time of the passes in its scope, as the stage `stage`.
  class PassTimer {
   public:
    PassTimer(AtlasPasses& passes, Stage stage);
    ~PassTimer();
    PassTimer(const PassTimer&) = delete;
    PassTimer& operator=(const PassTimer&) = delete;

   private:
    AtlasPasses& passes_;
    size_t first_;  // its first stamp in passes_.stamps_
  };

 private:
  /// The times of the timestamps taken so far into times_, once the GPU has passed
  /// the last of them. Without `wait` nothing is read before that: a pass's timer does
  /// not stall the pipeline (every pass waiting on its own timer made a sync per pass
  /// on a real GPU); the stage's end (takeTimes, after its readbacks) waits, so each
  /// step's times are its own. A stage still open (its end not stamped) is kept.
  void collectTimes(bool wait);

  BakedBodyPtr model_;
  int n_ = 0;  // atlas resolution
  ShaderProgram reduce_;
  GlTexture rest_, source_;  // (ub, m) per node texel; the node texel each texel holds
  GlTexture layer_;          // (d_i, h_i) per node texel
  GlTexture terms_[kMaxTerms];                // the terms of a pass's output at location L, by L
  std::vector<GlTexture> levels_[kMaxTerms];  // reduction pyramid per slot, down to (but not) 1 x 1
  GlTexture sums_[kMaxTerms];                 // 1 x 1: sums_[L] the sum of terms_[L]
  GLuint vao_ = 0;
  std::vector<std::pair<std::vector<GLuint>, GLuint>> fbos_;  // attachments -> framebuffer
  /// Deletes the framebuffers that a texture about to be deleted is attached to.
  void forgetTexture(GLuint id);
  int unit_ = 0;
  // GPU timer queries not yet read (oldest first), from a ring of queries (the next is
  // queryPool_[nextQuery_]), and the times they measured (takeTimes)
  std::vector<std::pair<Stage, GLuint>> stamps_;
  std::vector<GLuint> queryPool_;
  size_t nextQuery_ = 0;
  Profile times_;
  TextureDeletionWatch watch_{[this](GLuint id) { forgetTexture(id); }};  // (the last member)
};

}  // namespace d2t
