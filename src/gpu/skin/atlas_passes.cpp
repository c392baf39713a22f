// AtlasPasses (atlas_passes.h): the plumbing of the GPU solver's per-texel passes.
#include "gpu/skin/atlas_passes.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "gpu/gl/render_target.h"
#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;

namespace {

void checkGlCapabilities() {
  GLint major = 0, minor = 0, drawBuffers = 0, units = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 43)
    throw GlError("the GPU solver needs OpenGL 4.3; this context is " + glVersion() + " (" + glRenderer() + ")");
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &units);
  if (drawBuffers < 8 || units < 16)
    throw GlError("the GPU solver needs 8 draw buffers and 16 texture units (" + glRenderer() + " has " +
                  std::to_string(drawBuffers) + " and " + std::to_string(units) + ")");
}

}  // namespace

AtlasPasses::AtlasPasses(BakedBodyPtr model) : model_(std::move(model)) {
  checkGlCapabilities();
  n_ = model_->atlas.resolution;
  reduce_ = ShaderProgram("d2t/pass.vert", "d2t/reduce.frag");
  glGenVertexArrays(1, &vao_);
  const Atlas& a = model_->atlas;
  rest_ = newField();
  {
    std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
    for (int i = 0; i < a.nodeCount(); ++i) {
      float* p = &t[size_t(a.nodeTexel[i]) * 4];
      for (int c = 0; c < 3; ++c) p[c] = float(model_->restSkin[i][c]);
      p[D2T_REST_MASS] = float(model_->nodeMass[i]);
    }
    uploadTexels(rest_, 0, t);
  }
  layer_ = newField();
  {
    std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
    for (int i = 0; i < a.nodeCount(); ++i) {
      float* p = &t[size_t(a.nodeTexel[i]) * 4];
      for (int c = 0; c < 3; ++c) p[c] = float(model_->layerDirection[i][c]);
      p[3] = float(model_->layer[i]);
    }
    uploadTexels(layer_, 0, t);
  }
  source_ = GlTexture(n_, n_, 0, GL_RG32I);
  {
    std::vector<GLint> s(size_t(a.texelCount()) * 2, -1);
    for (int t = 0; t < a.texelCount(); ++t) {
      int node = a.texelNode[t];
      if (node < 0) node = a.gutterSource[t];
      if (node < 0) continue;
      s[2 * t] = a.nodeTexel[node] % n_;
      s[2 * t + 1] = a.nodeTexel[node] / n_;
    }
    glBindTexture(GL_TEXTURE_2D, source_.id());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, n_, n_, GL_RG_INTEGER, GL_INT, s.data());
  }
  for (int l = 0; l < kMaxTerms; ++l) {
    terms_[l] = newField();
    for (int size = (n_ + 3) / 4; size > 1; size = (size + 3) / 4) levels_[l].emplace_back(size, size, 0, GL_RGBA32F);
    sums_[l] = GlTexture(1, 1, 0, GL_RGBA32F);
  }
  GLint bits = 0;
  glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
  if (bits > 0) {
    queryPool_.resize(64);  // (a step stamps about 20)
    glGenQueries(GLsizei(queryPool_.size()), queryPool_.data());
  }
  checkGl("setting up the D2T passes");
}

AtlasPasses::~AtlasPasses() {
  for (auto& f : fbos_) glDeleteFramebuffers(1, &f.second);
  if (!queryPool_.empty()) glDeleteQueries(GLsizei(queryPool_.size()), queryPool_.data());
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

GlTexture AtlasPasses::newField() const {
  GlTexture t(n_, n_, 0, GL_RGBA32F);
  const std::vector<float> zero(size_t(n_) * n_ * 4, 0.0f);
  uploadTexels(t, 0, zero);
  return t;
}

void AtlasPasses::uploadNodes(const GlTexture& t, const std::vector<Vec3>& x) {
  uploadTexels(t, 0, nodeTexels(model_->atlas, x));
}

std::vector<Vec3> AtlasPasses::downloadNodes(const GlTexture& t) const {
  const Atlas& a = model_->atlas;
  std::vector<float> texels(size_t(a.texelCount()) * 4);
  glBindTexture(GL_TEXTURE_2D, t.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels.data());
  checkGl("reading a D2T texture back");
  std::vector<Vec3> x(a.nodeCount());
  for (int i = 0; i < a.nodeCount(); ++i) {
    const float* p = &texels[size_t(a.nodeTexel[i]) * 4];
    x[i] = Vec3(p[0], p[1], p[2]);
  }
  return x;
}

// Every per-texel pass reads the rest texture (ub, m) and the source map (common.glsl).
void AtlasPasses::beginPass(const ShaderProgram& p) {
  p.use();
  resetUnits();
  bind(p, "uRest", rest_);
  bind(p, "uSource", source_);
}

void AtlasPasses::bind(const ShaderProgram& p, const char* name, const GlTexture& t) {
  glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
  glBindTexture(t.layers() > 0 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, t.id());
  glUniform1i(p.uniform(name), unit_);
  ++unit_;
}

void AtlasPasses::bind(const ShaderProgram& p, const char* name, GLenum target, GLuint texture) {
  glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
  glBindTexture(target, texture);
  glUniform1i(p.uniform(name), unit_);
  ++unit_;
}

void AtlasPasses::bindTargets(const std::vector<Target>& targets, int w, int h) {
  std::vector<GLuint> key;
  for (const Target& t : targets) {
    key.push_back(t.texture);
    key.push_back(GLuint(t.layer + 1));
  }
  GLuint fbo = 0;
  for (const auto& f : fbos_)
    if (f.first == key) fbo = f.second;
  if (!fbo) {
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    for (size_t i = 0; i < targets.size(); ++i) {
      const GLenum att = GLenum(GL_COLOR_ATTACHMENT0 + i);
      if (targets[i].layer >= 0)
        glFramebufferTextureLayer(GL_FRAMEBUFFER, att, targets[i].texture, 0, targets[i].layer);
      else
        glFramebufferTexture2D(GL_FRAMEBUFFER, att, GL_TEXTURE_2D, targets[i].texture, 0);
    }
    checkFramebuffer("a D2T pass target (RGBA32F)");
    fbos_.emplace_back(key, fbo);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  std::array<GLenum, 8> bufs{};
  for (size_t i = 0; i < targets.size(); ++i) bufs[i] = GLenum(GL_COLOR_ATTACHMENT0 + i);
  glDrawBuffers(GLsizei(targets.size()), bufs.data());
  glViewport(0, 0, w ? w : n_, h ? h : n_);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
}

void AtlasPasses::forgetTexture(GLuint id) {
  for (size_t i = 0; i < fbos_.size();) {
    const std::vector<GLuint>& key = fbos_[i].first;  // (texture, layer + 1) pairs
    bool attached = false;
    for (size_t k = 0; k < key.size(); k += 2) attached = attached || key[k] == id;
    if (attached) {
      glDeleteFramebuffers(1, &fbos_[i].second);
      fbos_[i] = std::move(fbos_.back());
      fbos_.pop_back();
    } else {
      ++i;
    }
  }
}

void AtlasPasses::draw(const ShaderProgram&, const std::vector<Target>& targets, int w, int h) {
  bindTargets(targets, w, h);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void AtlasPasses::reduce(const std::vector<const GlTexture*>& inputs, const std::vector<const GlTexture*>& results,
                     int maxFrom, int height) {
  std::vector<const GlTexture*> cur = inputs;
  int size = n_, rows = height > 0 ? height : n_;
  for (int level = 0;; ++level) {
    const int next = (size + 3) / 4, nextRows = (rows + 3) / 4;
    reduce_.use();
    resetUnits();
    std::array<GLint, 8> units{};
    for (int s = 0; s < 8; ++s) {
      const GlTexture& t = *cur[std::min<size_t>(size_t(s), cur.size() - 1)];
      glActiveTexture(GLenum(GL_TEXTURE0 + s));
      glBindTexture(GL_TEXTURE_2D, t.id());
      units[size_t(s)] = s;
    }
    glUniform1iv(reduce_.uniform("uIn[0]"), 8, units.data());
    glUniform2i(reduce_.uniform("uSize"), size, rows);
    glUniform1i(reduce_.uniform("uMaxFrom"), maxFrom);
    glUniform1i(reduce_.uniform("uCount"), GLint(inputs.size()));
    std::vector<Target> targets;
    std::vector<const GlTexture*> out;
    for (size_t s = 0; s < inputs.size(); ++s) {
      const GlTexture* t = next == 1 ? results[s] : &levels_[s][size_t(level)];
      targets.push_back({t->id(), -1});
      out.push_back(t);
    }
    draw(reduce_, targets, next, nextRows);
    if (next == 1) break;
    cur = out;
    size = next;
    rows = nextRows;
  }
}

void AtlasPasses::sumTerms(const ShaderProgram& p, int outputs, const std::vector<Target>& leading, int maxFrom,
                       int rows) {
  const int first = int(leading.size());
  if (outputs > kMaxTerms || first > outputs) throw std::logic_error("sumTerms: more outputs than terms textures");
  std::vector<Target> targets = leading;
  std::vector<const GlTexture*> in, out;
  for (int l = first; l < outputs; ++l) {
    targets.push_back({terms_[l].id(), -1});
    in.push_back(&terms_[l]);
    out.push_back(&sums_[l]);
  }
  draw(p, targets, rows > 0 ? n_ : 0, rows);
  reduce(in, out, std::max(0, maxFrom - first), rows);
}

std::array<float, 4> AtlasPasses::readTexel(const GlTexture& t) const {
  std::array<float, 4> v{};
  glBindTexture(GL_TEXTURE_2D, t.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, v.data());
  checkGl("reading a GPU reduction");
  return v;
}

Vec3 AtlasPasses::readSum(const GlTexture& t) const {
  const std::array<float, 4> v = readTexel(t);
  return Vec3(v[0], v[1], v[2]);
}

void AtlasPasses::readRows(const GlTexture& a, const GlTexture& b, int rows, std::vector<float>* outA,
                       std::vector<float>* outB, const char* what) {
  outA->resize(size_t(rows) * size_t(n_) * 4);
  outB->resize(outA->size());
  bindTargets({{a.id(), -1}, {b.id(), -1}});
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glReadPixels(0, 0, n_, rows, GL_RGBA, GL_FLOAT, outA->data());
  glReadBuffer(GL_COLOR_ATTACHMENT1);
  glReadPixels(0, 0, n_, rows, GL_RGBA, GL_FLOAT, outB->data());
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl(what);
}

void AtlasPasses::timestamp(Stage stage) {
  if (queryPool_.empty()) return;
  if (stamps_.size() + 1 >= queryPool_.size()) collectTimes(true);  // (the ring is full: rare)
  const GLuint q = queryPool_[nextQuery_];
  nextQuery_ = (nextQuery_ + 1) % queryPool_.size();
  glQueryCounter(q, GL_TIMESTAMP);
  stamps_.emplace_back(stage, q);
}

void AtlasPasses::collectTimes(bool wait) {
  if (stamps_.size() < 2) return;
  if (!wait) {  // (the GPU runs its commands in order: the last one done, all are)
    GLint ready = 0;
    glGetQueryObjectiv(stamps_.back().second, GL_QUERY_RESULT_AVAILABLE, &ready);
    if (!ready) return;
  }
  std::vector<GLuint64> t(stamps_.size());
  for (size_t i = 0; i < stamps_.size(); ++i) glGetQueryObjectui64v(stamps_[i].second, GL_QUERY_RESULT, &t[i]);
  for (size_t i = 0; i + 1 < stamps_.size(); ++i)
    if (stamps_[i].first != Stage::Count) times_.addGpu(stamps_[i].first, double(t[i + 1] - t[i]) * 1e-6);
  const std::pair<Stage, GLuint> last = stamps_.back();
  stamps_.clear();
  if (last.first != Stage::Count) stamps_.push_back(last);  // an open stage: it ends at the next stamp
}

AtlasPasses::PassTimer::PassTimer(AtlasPasses& passes, Stage stage) : passes_(passes), first_(passes.stamps_.size()) {
  passes_.timestamp(stage);
}

AtlasPasses::PassTimer::~PassTimer() {
  if (std::uncaught_exceptions()) {  // (a failed pass: its stamps are dropped, not waited on)
    passes_.stamps_.resize(std::min(first_, passes_.stamps_.size()));
    return;
  }
  passes_.timestamp(Stage::Count);
  passes_.collectTimes(false);
}

void AtlasPasses::takeTimes(Profile& profile) {
  collectTimes(true);  // (a stage's last pass: it ends with a readback, or the GPU is near it)
  profile.merge(times_);
  times_.clear();
}

}  // namespace d2t
