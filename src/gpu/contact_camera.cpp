#include "gpu/contact_camera.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "gpu/render_target.h"

namespace d2t {

// Per-body GL objects: the skin mesh (world positions, drawn triangles and their
// global ids), the atlas textures of passes 4-5, and their outputs.
struct ContactCamera::Skin {
  int n = 0;  // atlas resolution
  GLuint vao = 0, vbo = 0, ebo = 0, idBuffer = 0, idTexture = 0, fbo = 0;
  GlTexture position, triangles, contact, other;
  ~Skin() {
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &idTexture);
    GLuint buffers[3] = {vbo, ebo, idBuffer};
    glDeleteBuffers(3, buffers);
    glDeleteVertexArrays(1, &vao);
  }
};

namespace {

GLuint colorFbo(const std::vector<GLuint>& textures, GLuint depth, const char* what) {
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  std::array<GLenum, 2> bufs{};
  for (size_t i = 0; i < textures.size(); ++i) {
    glFramebufferTexture2D(GL_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + i), GL_TEXTURE_2D, textures[i], 0);
    bufs[i] = GLenum(GL_COLOR_ATTACHMENT0 + i);
  }
  if (depth) glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
  glDrawBuffers(GLsizei(textures.size()), bufs.data());
  checkFramebuffer(what);
  return fbo;
}

void bindTexture(const ShaderProgram& p, const char* name, GLenum target, GLuint id, int unit) {
  glActiveTexture(GLenum(GL_TEXTURE0 + unit));
  glBindTexture(target, id);
  glUniform1i(p.uniform(name), unit);
}

void setWindow(const ShaderProgram& p, const Vec3& t1, const Vec3& t2, const Vec2& lo, const Vec2& hi) {
  glUniform3f(p.uniform("uT1"), float(t1.x()), float(t1.y()), float(t1.z()));
  glUniform3f(p.uniform("uT2"), float(t2.x()), float(t2.y()), float(t2.z()));
  glUniform2f(p.uniform("uLo"), float(lo.x()), float(lo.y()));
  glUniform2f(p.uniform("uHi"), float(hi.x()), float(hi.y()));
}

}  // namespace

ContactCamera::ContactCamera(int resolution) : resolution_(resolution) {
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 43)
    throw GlError("the contact camera needs OpenGL 4.3; this context is " + glVersion());
  depth_ = ShaderProgram("d2t/contact_depth.vert", "d2t/contact_depth.frag");
  difference_ = ShaderProgram("d2t/pass.vert", "d2t/contact_difference.frag");
  map_ = ShaderProgram("d2t/pass.vert", "d2t/contact_map.frag");
  const int r = resolution_;
  hA_ = GlTexture(r, r, 0, GL_R32F);
  hB_ = GlTexture(r, r, 0, GL_R32F);
  idA_ = GlTexture(r, r, 0, GL_R32I);
  idB_ = GlTexture(r, r, 0, GL_R32I);
  d_ = GlTexture(r, r, 0, GL_R32F);
  ids_ = GlTexture(r, r, 0, GL_RG32I);
  glGenRenderbuffers(1, &depthBuffer_);
  glBindRenderbuffer(GL_RENDERBUFFER, depthBuffer_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, r, r);
  fboA_ = colorFbo({hA_.id(), idA_.id()}, depthBuffer_, "contact camera, pass 1");
  fboB_ = colorFbo({hB_.id(), idB_.id()}, depthBuffer_, "contact camera, pass 2");
  fboD_ = colorFbo({d_.id(), ids_.id()}, 0, "contact camera, pass 3");
  glGenVertexArrays(1, &emptyVao_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("setting up the contact camera");
}

ContactCamera::~ContactCamera() {
  skins_.clear();
  GLuint fbos[3] = {fboA_, fboB_, fboD_};
  glDeleteFramebuffers(3, fbos);
  glDeleteRenderbuffers(1, &depthBuffer_);
  glDeleteVertexArrays(1, &emptyVao_);
}

ContactCamera::Skin& ContactCamera::skin(const BakedBody& m) {
  auto it = skins_.find(&m);
  if (it != skins_.end()) return *it->second;
  auto s = std::make_unique<Skin>();
  const Atlas& a = m.atlas;
  s->n = a.resolution;
  glGenVertexArrays(1, &s->vao);
  glBindVertexArray(s->vao);
  glGenBuffers(1, &s->vbo);
  glBindBuffer(GL_ARRAY_BUFFER, s->vbo);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(size_t(m.nodeCount()) * 3 * sizeof(float)), nullptr, GL_STREAM_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glGenBuffers(1, &s->ebo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s->ebo);
  glBindVertexArray(0);
  glGenBuffers(1, &s->idBuffer);
  glGenTextures(1, &s->idTexture);
  s->triangles = nodeTriangleTexture(a);
  s->position = GlTexture(s->n, s->n, 0, GL_RGBA32F);
  s->contact = GlTexture(s->n, s->n, 0, GL_RG32F);
  s->other = GlTexture(s->n, s->n, 0, GL_R32I);
  s->fbo = colorFbo({s->contact.id(), s->other.id()}, 0, "contact camera, passes 4-5");
  checkGl("contact camera: a body's buffers");
  Skin& ref = *s;
  skins_.emplace(&m, std::move(s));
  return ref;
}

// Passes 1-2: the skin's triangles facing the camera (A, nearest) or facing away (B, farthest).
void ContactCamera::drawSkin(Skin& s, const std::vector<Vec3>& x, const std::vector<int>& tris, bool nearest) {
  std::vector<float> xyz(x.size() * 3);
  for (size_t i = 0; i < x.size(); ++i)
    for (int c = 0; c < 3; ++c) xyz[3 * i + size_t(c)] = float(x[i][c]);
  glBindBuffer(GL_ARRAY_BUFFER, s.vbo);
  glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(xyz.size() * sizeof(float)), xyz.data());
  const std::vector<GLint> ids(tris.begin(), tris.end());
  glBindBuffer(GL_TEXTURE_BUFFER, s.idBuffer);
  glBufferData(GL_TEXTURE_BUFFER, GLsizeiptr(std::max<size_t>(ids.size(), 1) * sizeof(GLint)),
               ids.empty() ? nullptr : ids.data(), GL_STREAM_DRAW);
  glBindTexture(GL_TEXTURE_BUFFER, s.idTexture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32I, s.idBuffer);

  glBindFramebuffer(GL_FRAMEBUFFER, nearest ? fboA_ : fboB_);
  glViewport(0, 0, resolution_, resolution_);
  const GLfloat h0 = 0;
  const GLint none = -1;
  glClearBufferfv(GL_COLOR, 0, &h0);
  glClearBufferiv(GL_COLOR, 1, &none);
  const GLfloat depth = nearest ? 1.0f : 0.0f;
  glClearBufferfv(GL_DEPTH, 0, &depth);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(nearest ? GL_LESS : GL_GREATER);
  glDepthMask(GL_TRUE);
  glEnable(GL_CULL_FACE);
  glCullFace(nearest ? GL_BACK : GL_FRONT);
  glFrontFace(GL_CCW);
  glDisable(GL_BLEND);
  depth_.use();
  setWindow(depth_, t1_, t2_, lo_, hi_);
  glUniform3f(depth_.uniform("uN"), float(n_.x()), float(n_.y()), float(n_.z()));
  glUniform2f(depth_.uniform("uRange"), float(hMin_), float(hMax_));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, s.idTexture);
  glUniform1i(depth_.uniform("uTriangleIds"), 0);
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.ebo);
  glDrawElements(GL_TRIANGLES, GLsizei(tris.size() * 3), GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
  // back to GL's defaults (the renderer draws after the step)
  glDisable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glDepthFunc(GL_LESS);
  glDisable(GL_DEPTH_TEST);
}

// Passes 4-5 for one body (side 0: A, 1: B).
void ContactCamera::mapNodes(Skin& s, int side) {
  glBindFramebuffer(GL_FRAMEBUFFER, s.fbo);
  glViewport(0, 0, s.n, s.n);
  map_.use();
  bindTexture(map_, "uPosition", GL_TEXTURE_2D, s.position.id(), 0);
  bindTexture(map_, "uTriangles", GL_TEXTURE_2D_ARRAY, s.triangles.id(), 1);
  bindTexture(map_, "uIds", GL_TEXTURE_2D, ids_.id(), 3);
  bindTexture(map_, "uOtherH", GL_TEXTURE_2D, side == 0 ? hB_.id() : hA_.id(), 4);
  glUniform1i(map_.uniform("uSide"), side);
  glUniform1i(map_.uniform("uResolution"), resolution_);
  glUniform3f(map_.uniform("uN"), float(n_.x()), float(n_.y()), float(n_.z()));
  setWindow(map_, t1_, t2_, lo_, hi_);
  glBindVertexArray(emptyVao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

std::vector<ContactCamera::Snapshot> ContactCamera::takeSnapshots() {
  std::vector<Snapshot> out;
  for (auto& [pair, snap] : snapshots_) out.push_back(std::move(snap));
  snapshots_.clear();
  return out;
}

int ContactCamera::find(const LayeredBody& a, const LayeredBody& b, const ProxyContact& pair,
                        std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) {
  const LayeredBody* body[2] = {&a, &b};
  std::vector<Vec3> x[2];
  for (int k = 0; k < 2; ++k) {
    x[k].resize(size_t(body[k]->nodeCount()));
    for (int i = 0; i < body[k]->nodeCount(); ++i) x[k][size_t(i)] = body[k]->nodePosition(i);
  }
  n_ = pair.normal;
  double hA = -1e300, hB = 1e300;
  for (const Vec3& p : x[0]) hA = std::max(hA, n_.dot(p));
  for (const Vec3& p : x[1]) hB = std::min(hB, n_.dot(p));
  if (hA <= hB) return 0;  // the skins do not overlap along n: stage 2 has nothing to draw
  t1_ = n_.unitOrthogonal();
  t2_ = n_.cross(t1_);
  // the triangles reaching into the overlap slab (A: facing B, B: facing A), and the window over them
  std::vector<int> tris[2];
  lo_ = Vec2(1e300, 1e300);
  hi_ = Vec2(-1e300, -1e300);
  double edge = 0;
  int edges = 0;
  for (int k = 0; k < 2; ++k) {
    const std::vector<Vec3i>& all = body[k]->model().atlas.triangles;
    for (int t = 0; t < int(all.size()); ++t) {
      const Vec3i& v = all[size_t(t)];
      const Vec3 &p0 = x[k][size_t(v[0])], &p1 = x[k][size_t(v[1])], &p2 = x[k][size_t(v[2])];
      const double facing = (p1 - p0).cross(p2 - p0).dot(n_);
      const double hi = std::max({n_.dot(p0), n_.dot(p1), n_.dot(p2)}), lo = std::min({n_.dot(p0), n_.dot(p1), n_.dot(p2)});
      if (k == 0 ? (facing <= 0 || hi <= hB) : (facing >= 0 || lo >= hA)) continue;
      tris[k].push_back(t);
      for (const Vec3* p : {&p0, &p1, &p2}) {
        const Vec2 q(t1_.dot(*p), t2_.dot(*p));
        lo_ = lo_.cwiseMin(q);
        hi_ = hi_.cwiseMax(q);
      }
      edge += (p1 - p0).norm();
      ++edges;
    }
  }
  if (tris[0].empty() || tris[1].empty()) return 0;
  // a square window (square texels), one mean edge of margin
  const double pad = edge / edges;
  const Vec2 centre = 0.5 * (lo_ + hi_);
  const double half = 0.5 * (hi_ - lo_).maxCoeff() + pad;
  lo_ = centre - Vec2(half, half);
  hi_ = centre + Vec2(half, half);
  texelSize_ = 2 * half / resolution_;
  hMin_ = hB - pad;
  hMax_ = hA + pad;

  Skin* s[2] = {&skin(a.model()), &skin(b.model())};
  for (int k = 0; k < 2; ++k) {
    std::vector<GLuint> idx;
    idx.reserve(tris[k].size() * 3);
    for (int t : tris[k])
      for (int c = 0; c < 3; ++c) idx.push_back(GLuint(body[k]->model().atlas.triangles[size_t(t)][c]));
    glBindVertexArray(s[k]->vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s[k]->ebo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * sizeof(GLuint)), idx.data(), GL_STREAM_DRAW);
    glBindVertexArray(0);
    drawSkin(*s[k], x[k], tris[k], k == 0);
  }
  // pass 3: D
  glBindFramebuffer(GL_FRAMEBUFFER, fboD_);
  glViewport(0, 0, resolution_, resolution_);
  difference_.use();
  bindTexture(difference_, "uHA", GL_TEXTURE_2D, hA_.id(), 0);
  bindTexture(difference_, "uHB", GL_TEXTURE_2D, hB_.id(), 1);
  bindTexture(difference_, "uIdA", GL_TEXTURE_2D, idA_.id(), 2);
  bindTexture(difference_, "uIdB", GL_TEXTURE_2D, idB_.id(), 3);
  glBindVertexArray(emptyVao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  if (keepSnapshots_) {  // D for the texture viewer
    Snapshot& snap = snapshots_[{a.desc().name, b.desc().name}];
    snap.bodyA = a.desc().name;
    snap.bodyB = b.desc().name;
    snap.resolution = resolution_;
    snap.texelSize = texelSize_;
    snap.normal = n_;
    snap.d.resize(size_t(resolution_) * size_t(resolution_));
    glBindTexture(GL_TEXTURE_2D, d_.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, snap.d.data());
    for (float& v : snap.d)
      if (v < -1e29f) v = std::numeric_limits<float>::quiet_NaN();  // pass 3's "a skin is missing"
  }
  // passes 4-5 and the contacts they found
  const RigidMotion motion[2] = {rigidMotion(a), rigidMotion(b)};
  std::vector<NodeContact> found[2];
  for (int k = 0; k < 2; ++k) {
    const Atlas& atlas = body[k]->model().atlas;
    std::vector<float> texels(size_t(atlas.texelCount()) * 4, 0.0f);
    for (int i = 0; i < body[k]->nodeCount(); ++i) {
      float* p = &texels[size_t(atlas.nodeTexel[size_t(i)]) * 4];
      for (int c = 0; c < 3; ++c) p[c] = float(x[k][size_t(i)][c]);
      p[3] = 1;
    }
    glBindTexture(GL_TEXTURE_2D, s[k]->position.id());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, s[k]->n, s[k]->n, GL_RGBA, GL_FLOAT, texels.data());
    mapNodes(*s[k], k);
    std::vector<float> contact(size_t(atlas.texelCount()) * 2);
    std::vector<GLint> other(size_t(atlas.texelCount()));
    glBindTexture(GL_TEXTURE_2D, s[k]->contact.id());
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RG, GL_FLOAT, contact.data());
    glBindTexture(GL_TEXTURE_2D, s[k]->other.id());
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_INT, other.data());
    const LayeredBody& mine = *body[k];
    const LayeredBody& theirs = *body[1 - k];
    const std::vector<Vec3i>& theirTris = theirs.model().atlas.triangles;
    for (int i = 0; i < mine.nodeCount(); ++i) {
      const size_t t = size_t(atlas.nodeTexel[size_t(i)]);
      if (contact[2 * t + 1] <= 0) continue;
      const int tri = other[t];
      if (tri < 0 || tri >= int(theirTris.size())) continue;
      const Vec3 nrm = k == 0 ? Vec3(-n_) : n_;  // out of the other body
      found[k].push_back(makePairContact(mine, motion[k], i, x[k][size_t(i)], theirs, motion[1 - k],
                                         theirTris[size_t(tri)], {1.0 / 3, 1.0 / 3, 1.0 / 3}, nrm,
                                         double(contact[2 * t])));
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact camera");
  unifyPairNormal(found[0], found[1], pair.normal);
  outA->insert(outA->end(), found[0].begin(), found[0].end());
  outB->insert(outB->end(), found[1].begin(), found[1].end());
  return int(found[0].size() + found[1].size());
}

}  // namespace d2t
