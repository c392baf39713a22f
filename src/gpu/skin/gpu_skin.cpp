// GpuSkin: the GPU solver (gpu_skin.h lists its passes). Sections, in file order:
//   textures   texel upload, capability checks, the node-triangle texture
//   setup      the constructor (programs, textures), operators synced from the CPU
//   passes     timers; integrate (steps 1-5); stencil, forces, CG; the response's passes
//              (condense, rows, rounds, impulse, energy, friction, apply, correct); the
//              summary and max |q|; detection of planes and height fields; gather; drawing

#include "gpu/skin/gpu_skin.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <stdexcept>

#include "gpu/gl/render_target.h"

namespace d2t {

// ---- textures ----------------------------------------------------------------------------------

GlTexture::GlTexture(int width, int height, int layers, GLenum internalFormat)
    : width_(width), height_(height), layers_(layers) {
  const GLenum target = layers > 0 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
  glGenTextures(1, &id_);
  glBindTexture(target, id_);
  if (layers > 0)
    glTexStorage3D(target, 1, internalFormat, width, height, layers);
  else
    glTexStorage2D(target, 1, internalFormat, width, height);
  glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  checkGl("allocating a D2T texture");
}

GlTexture::~GlTexture() {
  if (id_) glDeleteTextures(1, &id_);
}

GlTexture& GlTexture::operator=(GlTexture&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteTextures(1, &id_);
    id_ = o.id_;
    width_ = o.width_;
    height_ = o.height_;
    layers_ = o.layers_;
    o.id_ = 0;
  }
  return *this;
}

namespace {

// Uploads N x N x 4 floats into a 2-D texture or one layer of an array.
void uploadTexels(const GlTexture& t, int layer, const std::vector<float>& texels) {
  if (t.layers() > 0) {
    glBindTexture(GL_TEXTURE_2D_ARRAY, t.id());
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, t.width(), t.height(), 1, GL_RGBA, GL_FLOAT,
                    texels.data());
  } else {
    glBindTexture(GL_TEXTURE_2D, t.id());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.width(), t.height(), GL_RGBA, GL_FLOAT, texels.data());
  }
  checkGl("uploading a D2T texture");
}

// Node vectors (3 per node) into texels; unused texels 0, gutters filled.
std::vector<float> nodeTexels(const Atlas& a, const std::vector<Vec3>& x, bool fill = true) {
  std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
  for (int i = 0; i < a.nodeCount(); ++i)
    for (int c = 0; c < 3; ++c) t[size_t(a.nodeTexel[i]) * 4 + c] = float(x[i][c]);
  if (fill) fillGutter(a, t.data(), 4);
  return t;
}

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

GlTexture nodeTriangleTexture(const Atlas& a) {
  std::vector<std::vector<int>> around(size_t(a.nodeCount()));
  for (int t = 0; t < int(a.triangles.size()); ++t)
    for (int k = 0; k < 3; ++k) around[size_t(a.triangles[size_t(t)][k])].push_back(t);
  GlTexture tex(a.resolution, a.resolution, 2, GL_RGBA32I);
  glBindTexture(GL_TEXTURE_2D_ARRAY, tex.id());
  for (int layer = 0; layer < 2; ++layer) {
    std::vector<GLint> texels(size_t(a.texelCount()) * 4, -1);
    for (int i = 0; i < a.nodeCount(); ++i)
      for (size_t k = 0; k < 4; ++k) {
        const size_t j = size_t(4 * layer) + k;
        if (j < around[size_t(i)].size()) texels[size_t(a.nodeTexel[size_t(i)]) * 4 + k] = around[size_t(i)][j];
      }
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, a.resolution, a.resolution, 1, GL_RGBA_INTEGER, GL_INT,
                    texels.data());
  }
  checkGl("the triangles around each node");
  return tex;
}

// ---- setup -------------------------------------------------------------------------------------

GpuSkin::GpuSkin(BakedBodyPtr model) : model_(std::move(model)) {
  checkGlCapabilities();
  renderer_ = glRenderer();
  const Atlas& a = model_->atlas;
  n_ = a.resolution;
  const std::string v = "d2t/pass.vert";
  stencil_ = ShaderProgram(v, "d2t/stencil.frag");
  forces_ = ShaderProgram(v, "d2t/forces.frag");
  reduce_ = ShaderProgram(v, "d2t/reduce.frag");
  cgPrecondition_ = ShaderProgram(v, "d2t/cg_precondition.frag");
  cgUpdate_ = ShaderProgram(v, "d2t/cg_update.frag");
  cgDirection_ = ShaderProgram(v, "d2t/cg_direction.frag");
  coupling_ = ShaderProgram(v, "d2t/coupling.frag");
  velocities_ = ShaderProgram(v, "d2t/velocities.frag");
  copy_ = ShaderProgram(v, "d2t/copy.frag");
  surfaceProgram_ = ShaderProgram(v, "d2t/surface.frag");
  normalsProgram_ = ShaderProgram(v, "d2t/normals.frag");
  condense_ = ShaderProgram(v, "d2t/response_condense.frag");
  responseEnergy_ = ShaderProgram(v, "d2t/response_energy.frag");
  apply_ = ShaderProgram(v, "d2t/response_apply.frag");
  scatter_ = ShaderProgram("d2t/scatter.vert", "d2t/scatter.frag");
  detect_ = ShaderProgram(v, "d2t/detect.frag");
  summary_ = ShaderProgram(v, "d2t/summary.frag");
  gather_ = ShaderProgram("d2t/gather.vert", "d2t/gather.frag");
  rows_ = ShaderProgram(v, "d2t/rows.frag");
  rowsRound_ = ShaderProgram(v, "d2t/rows_round.frag");
  rowsImpulse_ = ShaderProgram(v, "d2t/rows_impulse.frag");
  rowsFriction_ = ShaderProgram(v, "d2t/rows_friction.frag");
  rowsScatter_ = ShaderProgram("d2t/rows_scatter.vert", "d2t/scatter.frag");
  {
    // the detection's hits: a 16-byte counter, then at most one 48-byte hit per node
    glGenBuffers(1, &hitBuffer_);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, hitBuffer_);
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(16 + 48 * size_t(a.nodeCount())), nullptr, GL_DYNAMIC_READ);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  }
  glGenVertexArrays(1, &vao_);
  glGenVertexArrays(1, &scatterVao_);
  glGenBuffers(1, &scatterBuffer_);
  glBindVertexArray(scatterVao_);
  glBindBuffer(GL_ARRAY_BUFFER, scatterBuffer_);
  constexpr GLsizei kStride = sizeof(ScatterPoint);
  glEnableVertexAttribArray(0);
  glVertexAttribIPointer(0, 2, GL_INT, kStride, reinterpret_cast<const void*>(offsetof(ScatterPoint, texel)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, kStride,
                        reinterpret_cast<const void*>(offsetof(ScatterPoint, value)));
  glBindVertexArray(0);

  // static per-body data: rest positions and masses, source texels, K_e blocks
  rest_ = newField();
  {
    std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
    for (int i = 0; i < a.nodeCount(); ++i) {
      float* p = &t[size_t(a.nodeTexel[i]) * 4];
      for (int c = 0; c < 3; ++c) p[c] = float(model_->restSkin[i][c]);
      p[3] = float(model_->nodeMass[i]);
    }
    uploadTexels(rest_, 0, t);
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
  {
    std::vector<Vec3> t(size_t(a.nodeCount()));
    for (int i = 0; i < a.nodeCount(); ++i) {
      const double mi = model_->nodeMass[i];
      const Vec3& ub = model_->restSkin[i];
      restSt_ += mi * ub;
      restUu_ += mi * ub * ub.transpose();
      t[size_t(i)] = Vec3((ub - model_->core[i]).norm(), 0, 0);
    }
    thickness_ = newField();
    uploadNodes(thickness_, t);
  }
  k_ = GlTexture(n_, n_, 3 * kStencilSlots, GL_RGBA32F);
  for (int k = 0; k < kStencilSlots; ++k)
    for (int r = 0; r < 3; ++r) {
      std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
      for (int i = 0; i < a.nodeCount(); ++i)
        for (int c = 0; c < 3; ++c) t[size_t(a.nodeTexel[i]) * 4 + c] = float(model_->stiffness[i][k](r, c));
      uploadTexels(k_, 3 * k + r, t);
    }
  hinv_ = GlTexture(n_, n_, 3, GL_RGBA32F);
  wt_ = GlTexture(n_, n_, 3, GL_RGBA32F);
  wr_ = GlTexture(n_, n_, 3, GL_RGBA32F);

  // fields (zeroed: unused texels must hold finite values for the stencil)
  for (GlTexture* t : {&q_, &qdot_, &qNew_, &qdotNew_, &z_, &ma_, &rhs_, &support_, &x_[0], &x_[1], &r_[0], &r_[1],
                       &p_[0], &p_[1], &zc_, &ap_, &impulseR_, &impulseExtra_})
    *t = newField();
  for (GlTexture& t : terms_) t = newField();
  for (int s = 0; s < 8; ++s) {
    for (int size = (n_ + 3) / 4; size > 1; size = (size + 3) / 4)
      levels_[s].emplace_back(size, size, 0, GL_RGBA32F);
    sums_[s] = GlTexture(1, 1, 0, GL_RGBA32F);
  }
  for (GlTexture& t : momentSums_) t = GlTexture(1, 1, 0, GL_RGBA32F);
  rz_[0] = GlTexture(1, 1, 0, GL_RGBA32F);
  rz_[1] = GlTexture(1, 1, 0, GL_RGBA32F);
  pap_ = GlTexture(1, 1, 0, GL_RGBA32F);
  // drawing: the deformed surface, its normals, and the mesh's maps
  surface_ = newField();
  normals_ = newField();
  {
    around_ = nodeTriangleTexture(a);
    std::vector<GLint> tri;
    for (const Vec3i& t : a.triangles) tri.insert(tri.end(), {t[0], t[1], t[2]});
    std::vector<GLint> texel;
    for (int i = 0; i < a.nodeCount(); ++i) texel.insert(texel.end(), {a.nodeTexel[size_t(i)] % n_, a.nodeTexel[size_t(i)] / n_});
    glGenBuffers(1, &triangleBuffer_);
    glBindBuffer(GL_TEXTURE_BUFFER, triangleBuffer_);
    glBufferData(GL_TEXTURE_BUFFER, GLsizeiptr(tri.size() * sizeof(GLint)), tri.data(), GL_STATIC_DRAW);
    glGenTextures(1, &triangleTex_);
    glBindTexture(GL_TEXTURE_BUFFER, triangleTex_);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGB32I, triangleBuffer_);
    glGenBuffers(1, &nodeTexelBuffer_);
    glBindBuffer(GL_TEXTURE_BUFFER, nodeTexelBuffer_);
    glBufferData(GL_TEXTURE_BUFFER, GLsizeiptr(texel.size() * sizeof(GLint)), texel.data(), GL_STATIC_DRAW);
    glGenTextures(1, &nodeTexelTex_);
    glBindTexture(GL_TEXTURE_BUFFER, nodeTexelTex_);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32I, nodeTexelBuffer_);
  }
  GLint bits = 0;
  glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
  if (bits > 0) {
    queryPool_.resize(64);  // (a step stamps about 20)
    glGenQueries(GLsizei(queryPool_.size()), queryPool_.data());
  }
  checkGl("setting up the GPU solver");
}

GpuSkin::~GpuSkin() {
  const GLuint textures[2] = {triangleTex_, nodeTexelTex_};
  glDeleteTextures(2, textures);
  const GLuint buffers[2] = {triangleBuffer_, nodeTexelBuffer_};
  glDeleteBuffers(2, buffers);
  for (auto& f : fbos_) glDeleteFramebuffers(1, &f.second);
  if (!queryPool_.empty()) glDeleteQueries(GLsizei(queryPool_.size()), queryPool_.data());
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (scatterVao_) glDeleteVertexArrays(1, &scatterVao_);
  if (scatterBuffer_) glDeleteBuffers(1, &scatterBuffer_);
  if (hitBuffer_) glDeleteBuffers(1, &hitBuffer_);
  if (gatherVao_) glDeleteVertexArrays(1, &gatherVao_);
  if (gatherBuffer_) glDeleteBuffers(1, &gatherBuffer_);
}

GlTexture GpuSkin::newField() const {
  GlTexture t(n_, n_, 0, GL_RGBA32F);
  const std::vector<float> zero(size_t(n_) * n_ * 4, 0.0f);
  uploadTexels(t, 0, zero);
  return t;
}

void GpuSkin::uploadNodes(const GlTexture& t, const std::vector<Vec3>& x) {
  uploadTexels(t, 0, nodeTexels(model_->atlas, x));
}

std::vector<Vec3> GpuSkin::downloadNodes(const GlTexture& t) const {
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

// The operators of the body's time step: Mh_e^-1 and the coupling columns, and
// the constant parts of the core sums (in double).
void GpuSkin::syncOperators(const LayeredBody& body) {
  if (preparedBody_ == &body && preparedVersion_ == body.preparedVersion()) return;
  const Atlas& a = model_->atlas;
  const BakedBody& m = *model_;
  const int nn = a.nodeCount();
  const auto& hinv = body.mtDiagInverse();
  const auto& wt = body.translationalCoupling();
  const auto& wr = body.rotationalCoupling();
  if (hinv.size() != size_t(nn) || wt.size() != size_t(nn) || wr.size() != size_t(nn))
    throw std::logic_error("the GPU solver needs the body's operators for its time step (a step prepares them)");
  for (int j = 0; j < 3; ++j) {
    std::vector<Vec3> row(nn), ct(nn), cr(nn);
    for (int i = 0; i < nn; ++i) {
      row[i] = hinv[i].row(j).transpose();
      ct[i] = wt[i][j];
      cr[i] = wr[i][j];
    }
    uploadTexels(hinv_, j, nodeTexels(a, row, false));
    uploadTexels(wt_, j, nodeTexels(a, ct, false));
    uploadTexels(wr_, j, nodeTexels(a, cr, false));
  }
  sumMWt_.setZero();
  sumMWr_.setZero();
  sumMubWt_.setZero();
  sumMubWr_.setZero();
  restCondensed_ = CondensedSums{};
  for (int i = 0; i < nn; ++i) {
    const double mi = m.nodeMass[i];
    const Vec3& ub = m.restSkin[i];
    const Mat3 h = mi * mi * hinv[i], ubx = skew(ub);
    restCondensed_.tt += h;
    restCondensed_.tr += h * ubx;
    restCondensed_.rr += ubx * h * ubx;
    for (int j = 0; j < 3; ++j) {
      sumMWt_.col(j) += mi * wt[i][j];
      sumMWr_.col(j) += mi * wr[i][j];
      sumMubWt_.col(j) += mi * ub.cross(wt[i][j]);
      sumMubWr_.col(j) += mi * ub.cross(wr[i][j]);
    }
  }
  preparedBody_ = &body;
  preparedVersion_ = body.preparedVersion();
}

// ---- passes ------------------------------------------------------------------------------------

// Every per-texel pass reads the rest texture (ub, m) and the source map (common.glsl).
void GpuSkin::beginPass(const ShaderProgram& p) {
  p.use();
  resetUnits();
  bind(p, "uRest", rest_);
  bind(p, "uSource", source_);
}

void GpuSkin::bind(const ShaderProgram& p, const char* name, const GlTexture& t) {
  glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
  glBindTexture(t.layers() > 0 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, t.id());
  glUniform1i(p.uniform(name), unit_);
  ++unit_;
}

void GpuSkin::bindTargets(const std::vector<Target>& targets, int w, int h) {
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

void GpuSkin::draw(const ShaderProgram&, const std::vector<Target>& targets, int w, int h) {
  bindTargets(targets, w, h);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void GpuSkin::reduce(const std::vector<const GlTexture*>& inputs, const std::vector<const GlTexture*>& results,
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

void GpuSkin::sumTerms(const ShaderProgram& p, int count) {
  std::vector<Target> targets;
  std::vector<const GlTexture*> in, out;
  for (int k = 0; k < count; ++k) {
    targets.push_back({terms_[k].id(), -1});
    in.push_back(&terms_[k]);
    out.push_back(&sums_[k]);
  }
  draw(p, targets);
  reduce(in, out);
}

std::array<float, 4> GpuSkin::readTexel(const GlTexture& t) const {
  std::array<float, 4> v{};
  glBindTexture(GL_TEXTURE_2D, t.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, v.data());
  checkGl("reading a GPU reduction");
  return v;
}

Vec3 GpuSkin::readSum(const GlTexture& t, int offset) const {
  const std::array<float, 4> v = readTexel(t);
  return Vec3(v[size_t(offset)], v[size_t(offset) + 1], v[size_t(offset) + 2]);
}

// ---- conjugate gradients on the GPU ------------------------------------------------------------

namespace {
struct MtScale {
  double c1, c2;  // Mt_e = c1 M_e + c2 K_e
};
MtScale mtScale(const LayeredBody& b) {
  const double dt = b.preparedDt();
  return {1 + dt * b.desc().material.alpha, dt * b.desc().material.beta + dt * dt};
}
}  // namespace

// out = sk K_e x + sm M_e x + sa addend, and the terms of x . out into terms_[0]
void GpuSkin::stencilPass(const GlTexture& x, const GlTexture& addend, double sk, double sm, double sa,
                          const GlTexture& out) {
  beginPass(stencil_);
  bind(stencil_, "uX", x);
  bind(stencil_, "uAddend", addend);
  bind(stencil_, "uK", k_);
  glUniform1f(stencil_.uniform("uScaleK"), float(sk));
  glUniform1f(stencil_.uniform("uScaleM"), float(sm));
  glUniform1f(stencil_.uniform("uScaleAdd"), float(sa));
  draw(stencil_, {{out.id(), -1}, {terms_[0].id(), -1}});
}

// Step 1 on q_, qdot_: z_, ma_ and the core sums
GpuForceSums GpuSkin::forcesPass(const Vec3& w, double alpha, double beta, double dt, bool support) {
  beginPass(forces_);
  bind(forces_, "uQ", q_);
  bind(forces_, "uQdot", qdot_);
  bind(forces_, "uSupport", support_);
  glUniform1i(forces_.uniform("uHasSupport"), support ? 1 : 0);
  forces_.set("uOmega", w);
  glUniform1f(forces_.uniform("uAlpha"), float(alpha));
  glUniform1f(forces_.uniform("uBeta"), float(beta));
  glUniform1f(forces_.uniform("uDt"), float(dt));
  std::vector<Target> targets = {{z_.id(), -1}, {ma_.id(), -1}};
  for (int k = 2; k < 8; ++k) targets.push_back({terms_[k].id(), -1});
  draw(forces_, targets);
  reduce({&terms_[2], &terms_[3], &terms_[4], &terms_[5], &terms_[6], &terms_[7]},
         {&sums_[0], &sums_[1], &sums_[2], &sums_[3], &sums_[4], &sums_[5]});
  GpuForceSums f;
  f.mq = readSum(sums_[0]);
  f.mqdot = readSum(sums_[1]);
  f.ma = readSum(sums_[2]);
  f.muxa = readSum(sums_[3]);
  const Vec3 d = readSum(sums_[4]), o = readSum(sums_[5]);
  f.uu << d.x(), o.x(), o.y(), o.x(), d.y(), o.z(), o.y(), o.z(), d.z();
  return f;
}

int GpuSkin::cg(int maxIterations, double tolerance, double* residual, double referenceNorm) {
  const MtScale sc = mtScale(*preparedBody_);
  // r = b - Mt x; z = Mh^-1 r; p = z
  stencilPass(x_[xCur_], rhs_, -sc.c2, -sc.c1, 1.0, r_[0]);
  beginPass(cgPrecondition_);
  bind(cgPrecondition_, "uR", r_[0]);
  bind(cgPrecondition_, "uB", rhs_);
  bind(cgPrecondition_, "uHinv", hinv_);
  draw(cgPrecondition_, {{zc_.id(), -1}, {p_[0].id(), -1}, {terms_[1].id(), -1}});
  reduce({&terms_[1]}, {&rz_[0]});
  const std::array<float, 4> start = readTexel(rz_[0]);
  double bnorm = std::sqrt(std::max(0.0f, start[2]));
  double rnorm = std::sqrt(std::max(0.0f, start[1]));
  if (bnorm == 0) {
    uploadTexels(x_[xCur_], 0, std::vector<float>(size_t(n_) * n_ * 4, 0.0f));
    if (residual) *residual = 0;
    return 0;
  }
  bnorm = std::max(bnorm, referenceNorm);  // (the scale the residual is measured against)
  int rc = 0, rCur = 0, pCur = 0, it = 0;
  while (it < maxIterations && rnorm > tolerance * bnorm) {
    // ap = Mt p and p.ap
    stencilPass(p_[pCur], p_[pCur], sc.c2, sc.c1, 0.0, ap_);
    reduce({&terms_[0]}, {&pap_});
    // x += alpha p, r -= alpha ap, z = Mh^-1 r, and r.z, r.r
    beginPass(cgUpdate_);
    bind(cgUpdate_, "uX", x_[xCur_]);
    bind(cgUpdate_, "uR", r_[rCur]);
    bind(cgUpdate_, "uP", p_[pCur]);
    bind(cgUpdate_, "uAp", ap_);
    bind(cgUpdate_, "uRz", rz_[rc]);
    bind(cgUpdate_, "uPap", pap_);
    bind(cgUpdate_, "uHinv", hinv_);
    draw(cgUpdate_, {{x_[1 - xCur_].id(), -1}, {r_[1 - rCur].id(), -1}, {zc_.id(), -1}, {terms_[1].id(), -1}});
    xCur_ = 1 - xCur_;
    rCur = 1 - rCur;
    reduce({&terms_[1]}, {&rz_[1 - rc]});
    ++it;
    if (it % kResidualCheck == 0 || it == maxIterations) {
      rnorm = std::sqrt(std::max(0.0f, readTexel(rz_[1 - rc])[1]));
      if (!(rnorm > tolerance * bnorm) || it == maxIterations) break;
    }
    // p = z + beta p
    beginPass(cgDirection_);
    bind(cgDirection_, "uZ", zc_);
    bind(cgDirection_, "uP", p_[pCur]);
    bind(cgDirection_, "uRzNew", rz_[1 - rc]);
    bind(cgDirection_, "uRzOld", rz_[rc]);
    draw(cgDirection_, {{p_[1 - pCur].id(), -1}});
    pCur = 1 - pCur;
    rc = 1 - rc;
  }
  if (residual) *residual = rnorm / bnorm;
  return it;
}

// ---- the step ----------------------------------------------------------------------------------

void GpuSkin::timestamp(Stage stage) {
  if (queryPool_.empty()) return;
  if (stamps_.size() + 1 >= queryPool_.size()) collectTimes(true);  // (the ring is full: rare)
  const GLuint q = queryPool_[nextQuery_];
  nextQuery_ = (nextQuery_ + 1) % queryPool_.size();
  glQueryCounter(q, GL_TIMESTAMP);
  stamps_.emplace_back(stage, q);
}

void GpuSkin::collectTimes(bool wait) {
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

GpuSkin::PassTimer::PassTimer(GpuSkin& skin, Stage stage) : skin_(skin), first_(skin.stamps_.size()) {
  skin_.timestamp(stage);
}

GpuSkin::PassTimer::~PassTimer() {
  if (std::uncaught_exceptions()) {  // (a failed pass: its stamps are dropped, not waited on)
    skin_.stamps_.resize(std::min(first_, skin_.stamps_.size()));
    return;
  }
  skin_.timestamp(Stage::Count);
  skin_.collectTimes(false);
}

void GpuSkin::takeTimes(Profile& profile) {
  collectTimes(true);  // (a stage's last pass: it ends with a readback, or the GPU is near it)
  profile.merge(times_);
  times_.clear();
}

FreeStepResult GpuSkin::integrate(const LayeredBody& body, LayeredState& s, double dt, const Vec3& g,
                                  Profile& profile) {
  if (&body.model() != model_.get())  // re-assembled (a material change): K_e and masses are stale here
    throw GlError("the body's model changed under its GPU solver (make a new GpuSkin for it)");
  const BakedBody& m = *model_;
  // the state of the last step's end is still here (nothing wrote it on the CPU since):
  // it becomes this step's start instead of crossing again
  const bool resident = body.skinResident();
  const CoreState start = s;
  const double mass = m.totalMass;
  const bool fixed = body.settings().fixedCore;
  const Material& mat = body.desc().material;
  FreeStepResult result;
  stamps_.clear();
  {
    StageTimer t(profile, Stage::Transfer);
    syncOperators(body);
    if (resident) {
      std::swap(q_, qNew_);
      std::swap(qdot_, qdotNew_);
    } else {
      uploadNodes(q_, s.q);
      uploadNodes(qdot_, s.qdot);
      ++stateUploads_;
    }
  }
  const LayeredBody::SupportLoad& support = body.supportLoad();
  if (!support.nodes.empty()) {
    StageTimer t(profile, Stage::Transfer);
    uploadNodes(support_, support.nodes);
  }
  const Mat3 R = s.orientation.toRotationMatrix();
  const Vec3 gb = R.transpose() * g;
  const Vec3 w = s.angularVelocity;

  // 1 forces, the core sums, and Ft_e' = -K z - m (alpha qdot + a)
  Vec3 St, Sa, Sua, momentumStart;
  Mat3 Muu;
  {
    StageTimer t(profile, Stage::Forces);
    timestamp(Stage::Forces);
    const GpuForceSums f = forcesPass(w, mat.alpha, mat.beta, dt, !support.nodes.empty());
    stencilPass(z_, ma_, -1.0, 0.0, -1.0, rhs_);  // Ft_e' = -K z - m (alpha qdot + a)
    St = restSt_ + f.mq;
    Sa = f.ma;
    Sua = f.muxa;
    const Mat3 uu = restUu_ + f.uu;  // sum m u u^T
    Muu = uu.trace() * Mat3::Identity() - uu;
    momentumStart = mass * s.velocity + R * (w.cross(St) + f.mqdot);
  }
  Mat6 Mc;
  Mc.block<3, 3>(0, 0) = mass * Mat3::Identity();
  Mc.block<3, 3>(0, 3) = -R * skew(St);
  Mc.block<3, 3>(3, 0) = skew(St) * R.transpose();
  Mc.block<3, 3>(3, 3) = m.coreInertia + Muu;
  result.coreMass = Mc;

  // 2 Mt_e y' = Ft_e' (warm start: last step's y')
  {
    StageTimer t(profile, Stage::Solve);
    timestamp(Stage::Solve);
    result.cgIterations = cg(body.settings().cgIterations, body.settings().cgTolerance, &result.cgResidual,
                             body.solveReferenceNorm(g));
  }

  // 3 core velocities: the condensed 6x6 system (3.8), sums from the GPU
  Vec6 dvc = Vec6::Zero();
  if (!fixed) {
    StageTimer t(profile, Stage::Core);
    timestamp(Stage::Core);
    auto couplingPass = [&](int part) {  // (each reduction rebinds the texture units)
      beginPass(coupling_);
      bind(coupling_, "uQ", q_);
      bind(coupling_, "uY", x_[xCur_]);
      bind(coupling_, "uWt", wt_);
      bind(coupling_, "uWr", wr_);
      bind(coupling_, "uHinv", hinv_);
      glUniform1i(coupling_.uniform("uPart"), part);
    };
    couplingPass(0);
    sumTerms(coupling_, 8);
    const Vec3 my = readSum(sums_[0]), uy = readSum(sums_[1]);
    Mat3 A1, B1, G, H;
    for (int j = 0; j < 3; ++j) {
      A1.col(j) = readSum(sums_[2 + j]);
      B1.col(j) = readSum(sums_[5 + j]);
    }
    couplingPass(1);
    sumTerms(coupling_, 6);
    for (int k = 0; k < 3; ++k) {
      G.col(k) = readSum(sums_[k]);
      H.col(k) = readSum(sums_[3 + k]);
    }
    // M_ce Y: translational columns Y_t = W_t R^T, rotational Y_r = W_r - m Mh^-1 [q x e_k]
    const Mat3 uWt = sumMubWt_ + A1;  // sum m u x W_t[j]
    Mat6 MceY;
    MceY.block<3, 3>(0, 0) = R * (sumMWt_ * R.transpose());
    MceY.block<3, 3>(3, 0) = uWt * R.transpose();
    MceY.block<3, 3>(0, 3) = R * (sumMWr_ - G);
    MceY.block<3, 3>(3, 3) = sumMubWr_ + B1 - H;
    // M_ce y with y = y' + W_t R^T g
    Vec6 Mcey;
    Mcey << R * (my + sumMWt_ * gb), uy + uWt * gb;
    Vec6 Fc;
    Fc.head<3>() = mass * g - R * Sa + support.force;
    Fc.tail<3>() = St.cross(gb) - w.cross(m.coreInertia * w) - Sua + support.torque;
    dvc = body.solveCore(Mc - MceY, dt * (Fc - Mcey), dt, &result);  // (3.8) with the core springs
  }

  // 4-5 skin velocities and positions
  Vec3 mqdotNew, mqNew;
  {
    StageTimer t(profile, Stage::Velocities);
    timestamp(Stage::Velocities);
    const Vec3 tr = dt * gb - R.transpose() * dvc.head<3>();
    const Vec3 rot = dvc.tail<3>();
    beginPass(velocities_);
    bind(velocities_, "uQ", q_);
    bind(velocities_, "uQdot", qdot_);
    bind(velocities_, "uY", x_[xCur_]);
    bind(velocities_, "uWt", wt_);
    bind(velocities_, "uWr", wr_);
    bind(velocities_, "uHinv", hinv_);
    velocities_.set("uTranslation", tr);
    velocities_.set("uRotation", rot);
    glUniform1f(velocities_.uniform("uDt"), float(dt));
    draw(velocities_, {{qdotNew_.id(), -1}, {qNew_.id(), -1}, {terms_[0].id(), -1}, {terms_[1].id(), -1}});
    reduce({&terms_[0], &terms_[1]}, {&sums_[0], &sums_[1]});
    mqdotNew = readSum(sums_[0]);
    mqNew = readSum(sums_[1]);
  }
  timestamp(Stage::Count);
  {
    StageTimer t(profile, Stage::Positions);
    s.velocity += dvc.head<3>();
    s.angularVelocity += dvc.tail<3>();
    s.position = start.position + dt * s.velocity;
    s.orientation = integrateBodyRotation(start.orientation, s.angularVelocity, dt);
    // linear momentum projection (as on the CPU): internal forces cannot change it
    if (!fixed) {
      const Vec3 S = restSt_ + mqNew;
      const Vec3 momentum = mass * s.velocity + s.orientation * (s.angularVelocity.cross(S) + mqdotNew);
      const Vec3 dcdot = (momentumStart + dt * (mass * g + support.force) + result.springImpulse - momentum) / mass;
      s.velocity += dcdot;
      s.position += dt * dcdot;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the GPU solver step");
  holder_ = &body;
  moments_ = SkinSummary{};
  moments_.mu = restSt_ + mqNew;
  moments_.mqdot = mqdotNew;
  momentsAre_ = Moments::Known;
  momentShift_.setZero();
  takeTimes(profile);
  return result;
}

// ---- the contact response's passes -------------------------------------------------------------

void GpuSkin::load(const LayeredBody& body, const LayeredState& s, const std::vector<Vec3>& startQ) {
  syncOperators(body);
  uploadNodes(q_, startQ);
  uploadNodes(qNew_, s.q);
  uploadNodes(qdotNew_, s.qdot);
  ++stateUploads_;
  holder_ = &body;
  momentsAre_ = Moments::Unknown;
}

void GpuSkin::readSkin(const LayeredBody& body, LayeredState& s) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state");
  s.q = downloadNodes(qNew_);
  s.qdot = downloadNodes(qdotNew_);
  ++stateDownloads_;
}

SkinSummary GpuSkin::moments(const LayeredBody& body) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state");
  if (momentsAre_ == Moments::InTextures) {
    moments_ = SkinSummary{};
    moments_.mu = restSt_ + readSum(momentSums_[0]);
    moments_.mqdot = readSum(momentSums_[1]);
  } else if (momentsAre_ == Moments::Unknown) {
    const LayeredState unused;  // (the pass reads the textures)
    moments_ = summarize(body, unused, Vec3::UnitY());
    momentShift_.setZero();
  }
  momentsAre_ = Moments::Known;
  SkinSummary r = moments_;
  r.mu += momentShift_;
  return r;
}

void GpuSkin::readNodes(const LayeredBody& body, const std::vector<int>& nodes, LayeredState& s) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state");
  if (nodes.empty()) return;
  const Atlas& a = model_->atlas;
  if (!gatherVao_) {
    gatherQ_ = newField();
    gatherQdot_ = newField();
    glGenVertexArrays(1, &gatherVao_);
    glGenBuffers(1, &gatherBuffer_);
    glBindVertexArray(gatherVao_);
    glBindBuffer(GL_ARRAY_BUFFER, gatherBuffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 2, GL_INT, 0, nullptr);
    glBindVertexArray(0);
  }
  std::vector<GLint> sources;
  sources.reserve(2 * nodes.size());
  for (int i : nodes) sources.insert(sources.end(), {a.nodeTexel[size_t(i)] % n_, a.nodeTexel[size_t(i)] / n_});
  bindTargets({{gatherQ_.id(), -1}, {gatherQdot_.id(), -1}});
  gather_.use();
  resetUnits();
  bind(gather_, "uQ", qNew_);
  bind(gather_, "uQdot", qdotNew_);
  glUniform1i(gather_.uniform("uWidth"), n_);
  streamPoints(gatherVao_, gatherBuffer_, sources.data(), sources.size() * sizeof(GLint), int(nodes.size()));
  // the rows the points wrote, from both targets
  std::vector<float> q, qdot;
  readRows(gatherQ_, gatherQdot_, int((nodes.size() + size_t(n_) - 1) / size_t(n_)), &q, &qdot, "the gather pass");
  for (size_t k = 0; k < nodes.size(); ++k) {
    s.q[size_t(nodes[k])] = Vec3(q[4 * k], q[4 * k + 1], q[4 * k + 2]);
    s.qdot[size_t(nodes[k])] = Vec3(qdot[4 * k], qdot[4 * k + 1], qdot[4 * k + 2]);
  }
  gatheredNodes_ += long(nodes.size());
}

void GpuSkin::readRows(const GlTexture& a, const GlTexture& b, int rows, std::vector<float>* outA,
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

void GpuSkin::saveGood(const LayeredBody& body) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state");
  if (!goodQ_.id()) goodQ_ = newField();
  glCopyImageSubData(qNew_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, goodQ_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, n_, n_, 1);
  checkGl("keeping the last good state");
  goodOf_ = &body;
}

void GpuSkin::restoreGood(const LayeredBody& body) {
  if (goodOf_ != &body) throw GlError("the GPU solver keeps no good state of this body");
  glCopyImageSubData(goodQ_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, qNew_.id(), GL_TEXTURE_2D, 0, 0, 0, 0, n_, n_, 1);
  bindTargets({{qdotNew_.id(), -1}});
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, zero);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("restoring the last good state");
  holder_ = &body;
  momentsAre_ = Moments::Unknown;
}

CondensedSums GpuSkin::condense(const LayeredBody& body, const LayeredState&) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  syncOperators(body);
  const PassTimer timer(*this, Stage::Rows);
  beginPass(condense_);
  bind(condense_, "uQ", qNew_);
  bind(condense_, "uHinv", hinv_);
  sumTerms(condense_, 6);
  Mat3 hq, bhq, qhq;
  std::array<double, 6> sym{};
  for (int k = 0; k < 3; ++k) {
    const std::array<float, 4> a = readTexel(sums_[k]), b = readTexel(sums_[3 + k]);
    hq.row(k) << a[0], a[1], a[2];
    bhq.row(k) << b[0], b[1], b[2];
    sym[size_t(k)] = a[3];
    sym[size_t(3 + k)] = b[3];
  }
  qhq << sym[0], sym[1], sym[2], sym[1], sym[3], sym[4], sym[2], sym[4], sym[5];
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // u = ub + q: H [u]x = H [ub]x + H [q]x, [u]x H [u]x = rest + [ub]x H [q]x + its transpose + [q]x H [q]x
  CondensedSums c = restCondensed_;
  c.tr += hq;
  c.rr += bhq + bhq.transpose() + qhq;
  return c;
}

void GpuSkin::drawPoints(const std::vector<ScatterPoint>& points) {
  if (points.empty()) return;
  scatter_.use();
  glUniform1i(scatter_.uniform("uSize"), n_);
  streamPoints(scatterVao_, scatterBuffer_, points.data(), points.size() * sizeof(ScatterPoint), int(points.size()));
}

void GpuSkin::streamPoints(GLuint vao, GLuint buffer, const void* data, size_t bytes, int count) {
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_STREAM_DRAW);
  glDrawArrays(GL_POINTS, 0, GLsizei(count));
  glBindVertexArray(0);
}

void GpuSkin::setRows(const LayeredBody& body, const LayeredState& s, const std::vector<ContactRow>& rows, double dt,
                      bool fixedCore) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  if (rows.size() > size_t(n_) * size_t(n_))
    throw GlError("more contact rows (" + std::to_string(rows.size()) + ") than the atlas has texels");
  syncOperators(body);
  const PassTimer timer(*this, Stage::Rows);
  if (!rowIn_.id()) {
    rowIn_ = GlTexture(n_, n_, 4, GL_RGBA32F);
    for (GlTexture* t : {&rowU_, &rowV_, &rowS_[0], &rowS_[1], &rowR_, &rowDqdot_, &rowFriction_}) *t = newField();
  }
  rowCount_ = int(rows.size());
  rowCur_ = 0;
  rowLo_.resize(rows.size());
  rowV0_ = s.velocity;
  rowW0_ = s.angularVelocity;
  if (rows.empty()) return;
  const Atlas& a = model_->atlas;
  const int h = rowHeight();
  const size_t layer = size_t(h) * size_t(n_) * 4;
  std::vector<float> t(4 * layer, 0.0f);
  for (size_t k = 0; k < rows.size(); ++k) {
    const ContactRow& c = rows[k];
    float* p = &t[4 * k];
    const float in[4][4] = {
        {float(a.nodeTexel[size_t(c.node)]), float(c.previous), float(c.next), c.release ? 1.0f : 0.0f},
        {float(c.normal.x()), float(c.normal.y()), float(c.normal.z()), float(c.depth)},
        {float(c.surfaceVelocity.x()), float(c.surfaceVelocity.y()), float(c.surfaceVelocity.z()), float(c.startGap)},
        {float(c.lo), float(c.friction), 0.0f, 0.0f}};
    for (size_t l = 0; l < 4; ++l) std::copy(in[l], in[l] + 4, p + l * layer);
    rowLo_[k] = c.lo;
  }
  glBindTexture(GL_TEXTURE_2D_ARRAY, rowIn_.id());
  glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, n_, h, 4, GL_RGBA, GL_FLOAT, t.data());
  beginPass(rows_);
  bind(rows_, "uRowIn", rowIn_);
  bind(rows_, "uQ", qNew_);
  bind(rows_, "uQdot", qdotNew_);
  bind(rows_, "uHinv", hinv_);
  glUniform1i(rows_.uniform("uSize"), n_);
  glUniform1i(rows_.uniform("uCount"), rowCount_);
  rows_.set("uR", s.orientation.toRotationMatrix());
  rows_.set("uV", s.velocity);
  rows_.set("uW", s.angularVelocity);
  glUniform1f(rows_.uniform("uDt"), float(dt));
  glUniform1i(rows_.uniform("uFixed"), fixedCore ? 1 : 0);
  draw(rows_, {{rowU_.id(), -1}, {rowV_.id(), -1}, {rowS_[0].id(), -1}}, n_, h);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact rows pass");
}

RowSums GpuSkin::roundRows(const Vec6* dv, bool oneSided) {
  RowSums sums;
  if (rowCount_ == 0) return sums;
  const PassTimer timer(*this, Stage::Multipliers);
  const int h = rowHeight();
  rowsRound_.use();
  resetUnits();
  bind(rowsRound_, "uRowIn", rowIn_);
  bind(rowsRound_, "uU", rowU_);
  bind(rowsRound_, "uV", rowV_);
  bind(rowsRound_, "uS", rowS_[rowCur_]);
  glUniform1i(rowsRound_.uniform("uSize"), n_);
  glUniform1i(rowsRound_.uniform("uCount"), rowCount_);
  std::array<float, 6> d{};
  if (dv)
    for (int j = 0; j < 6; ++j) d[size_t(j)] = float((*dv)[j]);
  glUniform1fv(rowsRound_.uniform("uDv[0]"), 6, d.data());
  glUniform1i(rowsRound_.uniform("uHaveDv"), dv ? 1 : 0);
  glUniform1i(rowsRound_.uniform("uOneSided"), oneSided ? 1 : 0);
  rowCur_ = 1 - rowCur_;
  std::vector<Target> targets{{rowS_[rowCur_].id(), -1}};
  std::vector<const GlTexture*> in, out;
  for (int k = 0; k < 7; ++k) {
    targets.push_back({terms_[k].id(), -1});
    in.push_back(&terms_[k]);
    out.push_back(&sums_[k]);
  }
  draw(rowsRound_, targets, n_, h);
  reduce(in, out, 8, h);
  std::array<float, 28> t{};
  for (int k = 0; k < 7; ++k) {
    const std::array<float, 4> v = readTexel(sums_[k]);
    std::copy(v.begin(), v.end(), t.begin() + 4 * k);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("a contact rows round");
  for (int i = 0, e = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j, ++e) sums.S(i, j) = sums.S(j, i) = t[size_t(e)];
  for (int i = 0; i < 6; ++i) sums.rhs[i] = t[size_t(21 + i)];
  sums.below = int(std::lround(t[27]));
  return sums;
}

void GpuSkin::scatterRows(const GlTexture& values, const GlTexture& target) {
  bindTargets({{target.id(), -1}});
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, zero);
  if (rowCount_ == 0) return;
  rowsScatter_.use();
  resetUnits();
  bind(rowsScatter_, "uRowIn", rowIn_);
  bind(rowsScatter_, "uValue", values);
  glUniform1i(rowsScatter_.uniform("uSize"), n_);
  glEnablei(GL_BLEND, 0);
  glBlendEquationi(0, GL_FUNC_ADD);
  glBlendFunci(0, GL_ONE, GL_ONE);
  glBindVertexArray(vao_);
  glDrawArrays(GL_POINTS, 0, rowCount_);
  glBindVertexArray(0);
  glDisablei(GL_BLEND, 0);
}

ImpulseSums GpuSkin::impulse(const LayeredBody& body, const LayeredState& s) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  ImpulseSums sums;
  const PassTimer timer(*this, Stage::Impulse);
  if (rowCount_ > 0) {
    const int h = rowHeight();
    beginPass(rowsImpulse_);
    bind(rowsImpulse_, "uRowIn", rowIn_);
    bind(rowsImpulse_, "uQ", qNew_);
    bind(rowsImpulse_, "uS", rowS_[rowCur_]);
    bind(rowsImpulse_, "uHinv", hinv_);
    glUniform1i(rowsImpulse_.uniform("uSize"), n_);
    glUniform1i(rowsImpulse_.uniform("uCount"), rowCount_);
    rowsImpulse_.set("uR", s.orientation.toRotationMatrix());
    draw(rowsImpulse_, {{rowR_.id(), -1}, {terms_[0].id(), -1}, {terms_[1].id(), -1}, {terms_[2].id(), -1},
                        {terms_[3].id(), -1}},
         n_, h);
    reduce({&terms_[0], &terms_[1], &terms_[2], &terms_[3]}, {&sums_[0], &sums_[1], &sums_[2], &sums_[3]}, 8, h);
    sums.fc << readSum(sums_[0]), readSum(sums_[1]);
    sums.mt = readSum(sums_[2]);
    sums.mr = readSum(sums_[3]);
  }
  scatterRows(rowR_, impulseR_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact rows' impulse pass");
  return sums;
}

Vec3 GpuSkin::energy(const LayeredBody& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  syncOperators(body);
  const PassTimer timer(*this, Stage::Impulse);
  const Vec3 vb = s.orientation.conjugate() * s.velocity, w = s.angularVelocity;
  beginPass(responseEnergy_);
  bind(responseEnergy_, "uQ", qNew_);
  bind(responseEnergy_, "uQdot", qdotNew_);
  bind(responseEnergy_, "uR", impulseR_);
  bind(responseEnergy_, "uHinv", hinv_);
  responseEnergy_.set("uVb", vb);
  responseEnergy_.set("uW", w);
  responseEnergy_.set("uDvt", dvt);
  responseEnergy_.set("uDw", dw);
  sumTerms(responseEnergy_, 1);
  const Vec3 k = readSum(sums_[0]);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact response's energy pass");
  return k;
}

void GpuSkin::friction(const LayeredBody& body, const LayeredState& s, double share, const Vec3& dvt,
                       const Vec3& dw) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  const PassTimer timer(*this, Stage::Friction);
  if (rowCount_ > 0) {
    beginPass(rowsFriction_);
    bind(rowsFriction_, "uRowIn", rowIn_);
    bind(rowsFriction_, "uQ", qNew_);
    bind(rowsFriction_, "uQdot", qdotNew_);
    bind(rowsFriction_, "uS", rowS_[rowCur_]);
    bind(rowsFriction_, "uImpulse", impulseR_);
    bind(rowsFriction_, "uHinv", hinv_);
    glUniform1i(rowsFriction_.uniform("uSize"), n_);
    glUniform1i(rowsFriction_.uniform("uCount"), rowCount_);
    rowsFriction_.set("uR", s.orientation.toRotationMatrix());
    rowsFriction_.set("uV0", rowV0_);
    rowsFriction_.set("uW0", rowW0_);
    rowsFriction_.set("uV1", s.velocity);
    rowsFriction_.set("uW1", s.angularVelocity);
    rowsFriction_.set("uDvt", dvt);
    rowsFriction_.set("uDw", dw);
    glUniform1f(rowsFriction_.uniform("uShare"), float(share));
    draw(rowsFriction_, {{rowDqdot_.id(), -1}, {rowFriction_.id(), -1}}, n_, rowHeight());
  }
  scatterRows(rowDqdot_, impulseExtra_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact rows' friction pass");
}

std::vector<RowResult> GpuSkin::rowResults() {
  std::vector<RowResult> out(static_cast<size_t>(rowCount_));
  if (rowCount_ == 0) return out;
  std::vector<float> st, fr;
  readRows(rowS_[rowCur_], rowFriction_, rowHeight(), &st, &fr, "reading the contact rows back");
  for (size_t k = 0; k < out.size(); ++k) {
    const float* a = &st[4 * k];
    // (a row out of the active set is exactly at its lo: not its float copy)
    out[k].lambda = a[1] > 0.5f ? double(a[0]) : rowLo_[k];
    out[k].startGap = a[2];
    out[k].frictionImpulse = Vec3(fr[4 * k], fr[4 * k + 1], fr[4 * k + 2]);
  }
  return out;
}

void GpuSkin::apply(const LayeredBody& body, const std::vector<Vec3>&, const Vec3& dvt, const Vec3& dw,
                    double share, double dt, LayeredState&) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  syncOperators(body);
  const PassTimer timer(*this, Stage::Apply);
  beginPass(apply_);
  bind(apply_, "uQ0", q_);
  bind(apply_, "uQ", qNew_);
  bind(apply_, "uQdot", qdotNew_);
  bind(apply_, "uR", impulseR_);
  bind(apply_, "uExtra", impulseExtra_);
  bind(apply_, "uHinv", hinv_);
  apply_.set("uDvt", dvt);
  apply_.set("uDw", dw);
  glUniform1f(apply_.uniform("uShare"), float(share));
  glUniform1f(apply_.uniform("uDt"), float(dt));
  // (z_, ma_: scratch, swapped in below)
  draw(apply_, {{z_.id(), -1}, {ma_.id(), -1}, {terms_[0].id(), -1}, {terms_[1].id(), -1}});
  std::swap(qdotNew_, z_);
  std::swap(qNew_, ma_);
  reduce({&terms_[0], &terms_[1]}, {&momentSums_[0], &momentSums_[1]});
  momentsAre_ = Moments::InTextures;
  momentShift_.setZero();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact response's apply pass");
  ++appliedImpulses_;
}

void GpuSkin::correct(const LayeredBody& body, const std::vector<std::pair<int, Vec3>>& dq, LayeredState& s) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  const PassTimer timer(*this, Stage::Correct);
  // one point per corrected node, added into its texel of qNew_ (its gutter copies are
  // not read: every pass reads a node's values at its own texel)
  const Atlas& a = model_->atlas;
  std::vector<ScatterPoint> points;
  points.reserve(dq.size());
  for (const auto& [i, d] : dq) {
    const int texel = a.nodeTexel[size_t(i)];
    points.push_back({{texel % n_, texel / n_}, {GLfloat(d.x()), GLfloat(d.y()), GLfloat(d.z()), 0}});
  }
  bindTargets({{qNew_.id(), -1}});
  glEnablei(GL_BLEND, 0);
  glBlendEquationi(0, GL_FUNC_ADD);
  glBlendFunci(0, GL_ONE, GL_ONE);
  drawPoints(points);
  glDisablei(GL_BLEND, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the position correction's scatter");
  for (const auto& [i, d] : dq) {
    s.q[size_t(i)] += d;  // the CPU's copy takes the same change
    momentShift_ += model_->nodeMass[size_t(i)] * d;
  }
}

std::vector<std::array<float, 4>> GpuSkin::summaryPass(const LayeredBody& body, const Vec3& up, bool maxQOnly) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  const PassTimer timer(*this, maxQOnly ? Stage::Proxies : Stage::Check);
  beginPass(summary_);
  bind(summary_, "uQ", qNew_);
  bind(summary_, "uQdot", qdotNew_);
  bind(summary_, "uThickness", thickness_);
  bind(summary_, "uK", k_);
  summary_.set("uUp", up);
  glUniform1i(summary_.uniform("uMaxQOnly"), maxQOnly);
  std::vector<Target> targets;
  std::vector<const GlTexture*> in, out;
  for (int k = 0; k < (maxQOnly ? 1 : 7); ++k) {
    targets.push_back({terms_[k].id(), -1});
    in.push_back(&terms_[k]);
    out.push_back(&sums_[k]);
  }
  draw(summary_, targets);
  reduce(in, out, maxQOnly ? 0 : 5);
  std::vector<std::array<float, 4>> v;
  for (const GlTexture* t : out) v.push_back(readTexel(*t));
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the skin summary pass");
  return v;
}

SkinSummary GpuSkin::summarize(const LayeredBody& body, const LayeredState&, const Vec3& up) {
  const std::vector<std::array<float, 4>> v = summaryPass(body, up, false);
  SkinSummary r;
  r.finite = v[6][0] == 0;
  const Vec3 mq(v[0][0], v[0][1], v[0][2]);
  r.mu = restSt_ + mq;
  r.mqdot2 = v[0][3];
  r.mqdot = Vec3(v[1][0], v[1][1], v[1][2]);
  r.elastic = v[1][3];
  r.muxqdot = Vec3(v[2][0], v[2][1], v[2][2]);
  Mat3 uu;  // sum m (u u^T - ub ub^T)
  uu << v[3][0], v[3][3], v[4][0], v[3][3], v[3][1], v[4][1], v[4][0], v[4][1], v[3][2];
  r.muu = restUu_ + uu;
  r.maxQ = v[5][0];
  r.maxStretch = v[5][1];
  r.maxQdot = v[5][2];
  r.lowest = -v[5][3];
  if (!r.finite) {  // (as the CPU's: the sums are meaningless then)
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.elastic = r.mqdot2 = nan;
  }
  return r;
}

double GpuSkin::maxDisplacement(const LayeredBody& body, const LayeredState&) {
  return summaryPass(body, Vec3::UnitY(), true)[0][0];
}

// ---- collision detection against planes and height fields --------------------------------------

void GpuSkin::syncHeights(const std::vector<const HeightField*>& fields) {
  if (fields == heightFields_ && heights_.id()) return;
  int side = 1;
  for (const HeightField* f : fields) side = std::max(side, f->resolution() + 1);
  heights_ = GlTexture(side, side, std::max<int>(1, int(fields.size())), GL_R32F);
  glBindTexture(GL_TEXTURE_2D_ARRAY, heights_.id());
  for (size_t k = 0; k < fields.size(); ++k) {
    const int row = fields[k]->resolution() + 1;
    std::vector<float> h(size_t(row) * row);
    for (int j = 0; j < row; ++j)
      for (int i = 0; i < row; ++i) h[size_t(j) * row + i] = float(fields[k]->gridHeight(i, j));
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, GLint(k), row, row, 1, GL_RED, GL_FLOAT, h.data());
  }
  checkGl("uploading the height fields' grids");
  heightFields_ = fields;
}

bool GpuSkin::detectColliders(const LayeredBody& body, const std::vector<const Collider*>& colliders, double margin,
                              std::vector<ColliderHit>* hits, Profile& profile) {
  if (!holds(body)) throw GlError("the GPU solver holds another body's state (load it first)");
  if (colliders.size() > size_t(kMaxDetectedColliders)) return false;
  hits->clear();
  if (colliders.empty()) return true;
  struct Hit {
    GLint id[4];
    GLfloat normalDepth[4], velocity[4];
  };
  static_assert(sizeof(Hit) == 48, "the std430 layout of detect.frag's Hit");
  std::vector<Hit> raw;
  {
    const PassTimer timer(*this, Stage::Nodes);
    std::vector<const HeightField*> fields;
    constexpr int K = kMaxDetectedColliders;
    std::array<GLint, K> kind{}, layer{};
    std::array<GLfloat, 4 * K> plane{}, grid{};
    std::array<GLfloat, 3 * K> position{}, velocity{}, spin{};
    std::array<GLfloat, 9 * K> orientation{};
    for (size_t k = 0; k < colliders.size(); ++k) {
      const Collider& c = *colliders[k];
      if (c.type() == ColliderType::Plane) {
        kind[k] = 0;
        for (int j = 0; j < 3; ++j) plane[4 * k + size_t(j)] = GLfloat(c.desc().normal[j]);
        plane[4 * k + 3] = GLfloat(c.desc().offset);
      } else if (const HeightField* f = c.heightField()) {
        kind[k] = 1;
        layer[k] = GLint(fields.size());
        fields.push_back(f);
        const Mat3 R = c.orientation().toRotationMatrix();
        for (int j = 0; j < 3; ++j) {
          position[3 * k + size_t(j)] = GLfloat(c.position()[j]);
          velocity[3 * k + size_t(j)] = GLfloat(c.velocity()[j]);
          spin[3 * k + size_t(j)] = GLfloat(c.angularVelocity()[j]);
          for (int r = 0; r < 3; ++r) orientation[9 * k + size_t(3 * j + r)] = GLfloat(R(r, j));  // column-major
        }
        grid[4 * k] = GLfloat(f->origin().x());
        grid[4 * k + 1] = GLfloat(f->origin().z());
        grid[4 * k + 2] = GLfloat(f->size() / f->resolution());
        grid[4 * k + 3] = GLfloat(f->resolution());
      } else {
        throw GlError("the detection pass takes planes and height fields, not collider '" + c.name() + "'");
      }
    }
    syncHeights(fields);
    const CoreState& s = body.core();
    const Mat3 R = s.orientation.toRotationMatrix();
    std::array<GLfloat, 9> rot{};
    for (int j = 0; j < 3; ++j)
      for (int r = 0; r < 3; ++r) rot[size_t(3 * j + r)] = GLfloat(R(r, j));
    beginPass(detect_);
    bind(detect_, "uQ", qNew_);
    glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
    glBindTexture(GL_TEXTURE_2D_ARRAY, heights_.id());
    glUniform1i(detect_.uniform("uHeights"), unit_++);
    detect_.set("uCenter", s.position);
    glUniformMatrix3fv(detect_.uniform("uRotation"), 1, GL_FALSE, rot.data());
    glUniform1f(detect_.uniform("uMargin"), float(margin));
    const GLsizei count = GLsizei(colliders.size());
    glUniform1i(detect_.uniform("uColliders"), count);
    glUniform1iv(detect_.uniform("uKind"), count, kind.data());
    glUniform1iv(detect_.uniform("uLayer"), count, layer.data());
    glUniform4fv(detect_.uniform("uPlane"), count, plane.data());
    glUniform4fv(detect_.uniform("uGrid"), count, grid.data());
    glUniform3fv(detect_.uniform("uPosition"), count, position.data());
    glUniform3fv(detect_.uniform("uVelocity"), count, velocity.data());
    glUniform3fv(detect_.uniform("uSpin"), count, spin.data());
    glUniformMatrix3fv(detect_.uniform("uOrientation"), count, GL_FALSE, orientation.data());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, hitBuffer_);
    const GLuint zero[4] = {0, 0, 0, 0};
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(zero), zero);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, hitBuffer_);
    draw(detect_, {{terms_[0].id(), -1}});  // (the hits go to the buffer; the target is scratch)
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    GLuint found = 0;
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(found), &found);
    raw.resize(std::min<size_t>(found, size_t(model_->nodeCount())));
    if (!raw.empty()) glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 16, GLsizeiptr(raw.size() * sizeof(Hit)), raw.data());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  }
  takeTimes(profile);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the collision detection pass");
  const Atlas& a = model_->atlas;
  hits->reserve(raw.size());
  for (const Hit& h : raw) {
    ColliderHit c;
    c.node = a.texelNode[size_t(h.id[1]) * size_t(n_) + size_t(h.id[0])];
    c.collider = h.id[2];
    c.depth = h.normalDepth[3];
    c.normal = Vec3(h.normalDepth[0], h.normalDepth[1], h.normalDepth[2]).normalized();
    c.velocity = Vec3(h.velocity[0], h.velocity[1], h.velocity[2]);
    hits->push_back(c);
  }
  // (the atomic counter appends in no fixed order)
  std::sort(hits->begin(), hits->end(), [](const ColliderHit& x, const ColliderHit& y) { return x.node < y.node; });
  return true;
}

// ---- drawing -----------------------------------------------------------------------------------

void GpuSkin::updateSurface(const LayeredBody& body) {
  if (body.skinResident() && holds(body))
    surfacePasses(qNew_);
  else
    updateSurface(body.state().q);
}

void GpuSkin::updateSurface(const std::vector<Vec3>& q) {
  uploadNodes(z_, q);  // (scratch between steps: the state textures keep the body's state)
  surfacePasses(z_);
}

void GpuSkin::surfacePasses(const GlTexture& q) {
  beginPass(surfaceProgram_);
  bind(surfaceProgram_, "uQ", q);
  draw(surfaceProgram_, {{surface_.id(), -1}});
  beginPass(normalsProgram_);
  bind(normalsProgram_, "uSurface", surface_);
  bind(normalsProgram_, "uAround", around_);
  glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
  glBindTexture(GL_TEXTURE_BUFFER, triangleTex_);
  glUniform1i(normalsProgram_.uniform("uTriangles"), unit_++);
  glActiveTexture(GLenum(GL_TEXTURE0 + unit_));
  glBindTexture(GL_TEXTURE_BUFFER, nodeTexelTex_);
  glUniform1i(normalsProgram_.uniform("uNodeTexel"), unit_++);
  draw(normalsProgram_, {{normals_.id(), -1}});
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the surface and normals passes");
}

// ---- single stages for the tests ---------------------------------------------------------------

std::vector<float> GpuSkin::gutterFill(const std::vector<float>& texels) {
  uploadTexels(z_, 0, texels);
  beginPass(copy_);
  bind(copy_, "uX", z_);
  draw(copy_, {{ap_.id(), -1}});
  std::vector<float> out(texels.size());
  glBindTexture(GL_TEXTURE_2D, ap_.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, out.data());
  checkGl("the gutter pass");
  return out;
}

std::vector<Vec3> GpuSkin::stencilProduct(const std::vector<Vec3>& x, double scaleK, double scaleM) {
  uploadNodes(z_, x);
  stencilPass(z_, z_, scaleK, scaleM, 0.0, ap_);
  return downloadNodes(ap_);
}

Vec3 GpuSkin::sum(const std::vector<Vec3>& x) {
  // gutters hold copies: only node texels may count
  uploadTexels(terms_[0], 0, nodeTexels(model_->atlas, x, false));
  reduce({&terms_[0]}, {&sums_[0]});
  return readSum(sums_[0]);
}

GpuForceSums GpuSkin::forces(const std::vector<Vec3>& q, const std::vector<Vec3>& qdot, const Vec3& w,
                             double alpha, double beta, double dt, std::vector<Vec3>* z, std::vector<Vec3>* ma) {
  holder_ = nullptr;
  uploadNodes(q_, q);
  uploadNodes(qdot_, qdot);
  const GpuForceSums f = forcesPass(w, alpha, beta, dt);
  if (z) *z = downloadNodes(z_);
  if (ma) *ma = downloadNodes(ma_);
  return f;
}

int GpuSkin::solve(const LayeredBody& body, const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations,
                   double tolerance, double* residual) {
  syncOperators(body);
  uploadNodes(rhs_, b);
  uploadNodes(x_[xCur_], x);
  const int it = cg(maxIterations, tolerance, residual);
  x = downloadNodes(x_[xCur_]);
  return it;
}

}  // namespace d2t
