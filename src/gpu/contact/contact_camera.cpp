#include "gpu/contact/contact_camera.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "gpu/gl/render_target.h"

namespace d2t {

namespace {

// A new buffer, bound as attribute `index` of the current vertex array: `components`
// floats, or ints.
GLuint attributeBuffer(GLuint index, GLint components, bool integer) {
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glEnableVertexAttribArray(index);
  if (integer)
    glVertexAttribIPointer(index, components, GL_INT, 0, nullptr);
  else
    glVertexAttribPointer(index, components, GL_FLOAT, GL_FALSE, 0, nullptr);
  return buffer;
}

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
  p.set("uT1", t1);
  p.set("uT2", t2);
  glUniform2f(p.uniform("uLo"), float(lo.x()), float(lo.y()));
  glUniform2f(p.uniform("uHi"), float(hi.x()), float(hi.y()));
}

}  // namespace

// One side's patch mesh: world positions, the drawn triangles and their ids
// (indices into the surface's triangles); for passes 4-5 the same buffers as
// texture buffers (positions, the triangles' nodes, their ids).
struct ContactCamera::Slot {
  GLuint vao = 0, vbo = 0, ebo = 0, idBuffer = 0, idTexture = 0, positionTexture = 0, indexTexture = 0;
  Slot() {
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    vbo = attributeBuffer(0, 3, false);
    glGenBuffers(1, &ebo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo);
    glBindVertexArray(0);
    glGenBuffers(1, &idBuffer);
    glGenTextures(1, &idTexture);
    glGenTextures(1, &positionTexture);
    glGenTextures(1, &indexTexture);
  }
  ~Slot() {
    GLuint textures[3] = {idTexture, positionTexture, indexTexture};
    glDeleteTextures(3, textures);
    GLuint buffers[3] = {vbo, ebo, idBuffer};
    glDeleteBuffers(3, buffers);
    glDeleteVertexArrays(1, &vao);
  }
};

ContactCamera::ContactCamera(int resolution) : resolution_(resolution) {
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 43)
    throw GlError("the contact camera needs OpenGL 4.3; this context is " + glVersion());
  depth_ = ShaderProgram("d2t/contact_depth.vert", "d2t/contact_depth.frag");
  difference_ = ShaderProgram("d2t/pass.vert", "d2t/contact_difference.frag");
  map_ = ShaderProgram("d2t/contact_map.vert", "d2t/contact_map.frag");
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
  glGenVertexArrays(1, &pointVao_);
  glBindVertexArray(pointVao_);
  pointPositions_ = attributeBuffer(0, 3, false);
  pointTexels_ = attributeBuffer(1, 2, true);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  for (auto& slot : slots_) slot = std::make_unique<Slot>();
  checkGl("setting up the contact camera");
}

ContactCamera::~ContactCamera() {
  nodeTriangles_.clear();
  for (auto& slot : slots_) slot.reset();
  GLuint fbos[4] = {fboA_, fboB_, fboD_, fboMap_};
  glDeleteFramebuffers(4, fbos);
  GLuint buffers[2] = {pointPositions_, pointTexels_};
  glDeleteBuffers(2, buffers);
  glDeleteVertexArrays(1, &pointVao_);
  glDeleteRenderbuffers(1, &depthBuffer_);
  glDeleteVertexArrays(1, &emptyVao_);
}

const GlTexture& ContactCamera::nodeTriangles(const BakedBodyPtr& model) {
  auto it = nodeTriangles_.find(model.get());
  if (it != nodeTriangles_.end() && it->second.model.lock() == model) return it->second.texture;
  NodeTriangles& t = nodeTriangles_[model.get()];
  t.model = model;
  t.texture = nodeTriangleTexture(model->atlas);
  checkGl("contact camera: a body's triangles around its nodes");
  return t.texture;
}

// Passes 1-2: the patch's triangles facing the camera (A, nearest) or facing away (B, farthest).
void ContactCamera::drawSide(int side, const std::vector<Vec3i>& triangles, const SkinPatch& patch) {
  Slot& s = *slots_[side];
  const bool nearest = side == 0;
  // the patch's nodes, and its triangles indexing them
  std::vector<float> xyz(patch.x.size() * 3);
  for (size_t i = 0; i < patch.x.size(); ++i)
    for (int c = 0; c < 3; ++c) xyz[3 * i + size_t(c)] = float(patch.x[i][c]);
  std::vector<GLuint> idx;
  idx.reserve(patch.triangles.size() * 3);
  for (int t : patch.triangles)
    for (int c = 0; c < 3; ++c) {
      const int node = triangles[size_t(t)][c];
      idx.push_back(GLuint(std::lower_bound(patch.nodes.begin(), patch.nodes.end(), node) - patch.nodes.begin()));
    }
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.vbo);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(xyz.size() * sizeof(float)), xyz.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.ebo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * sizeof(GLuint)), idx.data(), GL_STREAM_DRAW);
  glBindVertexArray(0);
  const std::vector<GLint> ids(patch.triangles.begin(), patch.triangles.end());
  glBindBuffer(GL_TEXTURE_BUFFER, s.idBuffer);
  glBufferData(GL_TEXTURE_BUFFER, GLsizeiptr(std::max<size_t>(ids.size(), 1) * sizeof(GLint)),
               ids.empty() ? nullptr : ids.data(), GL_STREAM_DRAW);
  glBindTexture(GL_TEXTURE_BUFFER, s.idTexture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32I, s.idBuffer);
  glBindTexture(GL_TEXTURE_BUFFER, s.positionTexture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGB32F, s.vbo);
  glBindTexture(GL_TEXTURE_BUFFER, s.indexTexture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, s.ebo);
  glBindTexture(GL_TEXTURE_BUFFER, 0);

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
  depth_.set("uN", n_);
  glUniform2f(depth_.uniform("uRange"), float(hMin_), float(hMax_));
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.ebo);
  glDrawElements(GL_TRIANGLES, GLsizei(idx.size()), GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
  // back to GL's defaults (the renderer draws after the step)
  glDisable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glDepthFunc(GL_LESS);
  glDisable(GL_DEPTH_TEST);
}

// Passes 4-5 for one body's patch (side 0: A, 1: B).
std::vector<ContactCamera::MappedNode> ContactCamera::mapNodes(const BakedBodyPtr& bodyModel, const SkinPatch& patch,
                                                               int side, size_t otherTriangles) {
  const BakedBody& model = *bodyModel;
  const GlTexture& triangles = nodeTriangles(bodyModel);
  const int count = int(patch.nodes.size());
  const int rows = (count + kMapWidth - 1) / kMapWidth;
  if (rows > mapHeight_) {  // the compact output grows with the largest patch seen
    mapHeight_ = std::max(rows, 2 * mapHeight_);
    mapContact_ = GlTexture(kMapWidth, mapHeight_, 0, GL_RGBA32F);
    mapOther_ = GlTexture(kMapWidth, mapHeight_, 0, GL_R32I);
    glDeleteFramebuffers(1, &fboMap_);
    fboMap_ = colorFbo({mapContact_.id(), mapOther_.id()}, 0, "contact camera, passes 4-5");
  }
  std::vector<float> xyz(size_t(count) * 3);
  std::vector<GLint> texel(size_t(count) * 2);
  const int n = model.atlas.resolution;
  for (int k = 0; k < count; ++k) {
    for (int c = 0; c < 3; ++c) xyz[3 * size_t(k) + size_t(c)] = float(patch.x[size_t(k)][c]);
    const int t = model.atlas.nodeTexel[size_t(patch.nodes[size_t(k)])];
    texel[2 * size_t(k)] = t % n;
    texel[2 * size_t(k) + 1] = t / n;
  }
  glBindBuffer(GL_ARRAY_BUFFER, pointPositions_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(xyz.size() * sizeof(float)), xyz.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, pointTexels_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(texel.size() * sizeof(GLint)), texel.data(), GL_STREAM_DRAW);

  glBindFramebuffer(GL_FRAMEBUFFER, fboMap_);
  glViewport(0, 0, kMapWidth, mapHeight_);
  const GLfloat zero[4] = {0, 0, 0, 0};
  const GLint none = -1;
  glClearBufferfv(GL_COLOR, 0, zero);
  glClearBufferiv(GL_COLOR, 1, &none);
  map_.use();
  bindTexture(map_, "uTriangles", GL_TEXTURE_2D_ARRAY, triangles.id(), 1);
  bindTexture(map_, "uIds", GL_TEXTURE_2D, ids_.id(), 3);
  const Slot &mine = *slots_[side], &theirs = *slots_[1 - side];
  bindTexture(map_, "uOwnIds", GL_TEXTURE_BUFFER, mine.idTexture, 4);
  bindTexture(map_, "uOtherIds", GL_TEXTURE_BUFFER, theirs.idTexture, 5);
  bindTexture(map_, "uOtherIndex", GL_TEXTURE_BUFFER, theirs.indexTexture, 6);
  bindTexture(map_, "uOtherPosition", GL_TEXTURE_BUFFER, theirs.positionTexture, 7);
  glUniform1i(map_.uniform("uSide"), side);
  glUniform1i(map_.uniform("uResolution"), resolution_);
  glUniform1f(map_.uniform("uMargin"), float(margin_));
  glUniform1i(map_.uniform("uOutWidth"), kMapWidth);
  glUniform1i(map_.uniform("uOutHeight"), mapHeight_);
  map_.set("uN", n_);
  setWindow(map_, t1_, t2_, lo_, hi_);
  glBindVertexArray(pointVao_);
  glDrawArrays(GL_POINTS, 0, count);
  glBindVertexArray(0);
  // read back the rows the patch covers, and keep the colliding nodes (layout.glsl: D2T_MAP_*)
  std::vector<float> contact(size_t(rows) * kMapWidth * 4, 0.0f);
  std::vector<GLint> other(size_t(rows) * kMapWidth, -1);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glReadPixels(0, 0, kMapWidth, rows, GL_RGBA, GL_FLOAT, contact.data());
  glReadBuffer(GL_COLOR_ATTACHMENT1);
  glReadPixels(0, 0, kMapWidth, rows, GL_RED_INTEGER, GL_INT, other.data());
  std::vector<MappedNode> out;
  for (size_t j = 0; j < patch.nodes.size(); ++j) {
    const float* c = &contact[4 * j];
    if (c[D2T_MAP_HIT] <= 0 || other[j] < 0 || size_t(other[j]) >= otherTriangles) continue;
    const double u = c[D2T_MAP_BARY_U], v = c[D2T_MAP_BARY_V];
    out.push_back({j, double(c[D2T_MAP_DEPTH]), other[j], {1.0 - u - v, u, v}});
  }
  return out;
}

std::vector<ContactCamera::Snapshot> ContactCamera::takeSnapshots() {
  std::vector<Snapshot> out;
  for (auto& [pair, snap] : snapshots_) out.push_back(std::move(snap));
  snapshots_.clear();
  return out;
}

bool ContactCamera::draw(const ContactSurface& a, const ContactSurface& b, const ProxyContact& pair,
                         const std::string& nameA, const std::string& nameB, PairPatches* patches) {
  if (!findPairPatches(a, b, pair, patches)) return false;  // nothing overlaps along n
  const ContactSurface* surface[2] = {&a, &b};
  const SkinPatch* patch[2] = {&patches->a, &patches->b};
  n_ = pair.normal;
  t1_ = n_.unitOrthogonal();
  t2_ = n_.cross(t1_);
  // the window over both patches, square (square texels), one mean edge of margin
  lo_ = Vec2(1e300, 1e300);
  hi_ = Vec2(-1e300, -1e300);
  double edge = 0;
  int edges = 0;
  for (int k = 0; k < 2; ++k) {
    for (const Vec3& p : patch[k]->x) {
      const Vec2 q(t1_.dot(p), t2_.dot(p));
      lo_ = lo_.cwiseMin(q);
      hi_ = hi_.cwiseMax(q);
    }
    const std::vector<Vec3i>& tris = *surface[k]->triangles;
    for (int t : patch[k]->triangles) {
      const Vec3i& v = tris[size_t(t)];
      auto at = [&](int node) {
        return patch[k]->x[size_t(std::lower_bound(patch[k]->nodes.begin(), patch[k]->nodes.end(), node) -
                                   patch[k]->nodes.begin())];
      };
      edge += (at(v[1]) - at(v[0])).norm();
      ++edges;
    }
  }
  const double pad = edge / edges;
  const Vec2 centre = 0.5 * (lo_ + hi_);
  const double half = 0.5 * (hi_ - lo_).maxCoeff() + pad;
  lo_ = centre - Vec2(half, half);
  hi_ = centre + Vec2(half, half);
  texelSize_ = 2 * half / resolution_;
  margin_ = pair.margin;
  hMin_ = patches->hB - margin_ - pad;
  hMax_ = patches->hA + margin_ + pad;

  for (int k = 0; k < 2; ++k) drawSide(k, *surface[k]->triangles, *patch[k]);
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
    Snapshot& snap = snapshots_[{nameA, nameB}];
    snap.bodyA = nameA;
    snap.bodyB = nameB;
    snap.resolution = resolution_;
    snap.texelSize = texelSize_;
    snap.normal = n_;
    snap.d.resize(size_t(resolution_) * size_t(resolution_));
    glBindTexture(GL_TEXTURE_2D, d_.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, snap.d.data());
    for (float& v : snap.d)
      if (v < float(D2T_NO_CONTACT_BELOW)) v = std::numeric_limits<float>::quiet_NaN();  // a skin is missing
  }
  return true;
}

namespace {

// Unifies the pair's normal and appends the contacts; returns the colliding ones.
int finish(std::vector<NodeContact>& a, std::vector<NodeContact>& b, const Vec3& normal,
           std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the contact camera");
  unifyPairNormal(a, b, normal);
  int colliding = 0;
  for (const auto* side : {&a, &b})
    for (const NodeContact& c : *side) colliding += c.depth > 0;
  outA->insert(outA->end(), a.begin(), a.end());
  if (outB) outB->insert(outB->end(), b.begin(), b.end());
  return colliding;
}

}  // namespace

int ContactCamera::find(LayeredBody& a, LayeredBody& b, const ProxyContact& pair,
                        std::vector<NodeContact>* outA, std::vector<NodeContact>* outB) {
  PairPatches patches;
  if (!draw(a, b, pair, a.desc().name, b.desc().name, &patches)) return 0;
  // passes 4-5 for both bodies, and the contacts they found
  LayeredBody* body[2] = {&a, &b};
  const SkinPatch* patch[2] = {&patches.a, &patches.b};
  const RigidMotion motion[2] = {rigidMotion(a), rigidMotion(b)};
  std::vector<NodeContact> found[2];
  for (int k = 0; k < 2; ++k) {
    LayeredBody& mine = *body[k];
    LayeredBody& theirs = *body[1 - k];
    const std::vector<Vec3i>& theirTris = theirs.model().atlas.triangles;
    const ContactSurface self(mine), surface(theirs);
    for (const MappedNode& m : mapNodes(body[k]->modelPtr(), *patch[k], k, theirTris.size())) {
      const int node = patch[k]->nodes[m.index];
      const Vec3i& t = theirTris[size_t(m.triangle)];
      const Vec3 fallback = k == 0 ? Vec3(-n_) : n_;  // out of the other body
      found[k].push_back(makePairContact(mine, motion[k], node, patch[k]->x[m.index], theirs, motion[1 - k], t, m.bary,
                                         pairNormal(self, node, surface, t, m.bary, fallback), m.depth));
    }
  }
  return finish(found[0], found[1], pair.normal, outA, outB);
}

int ContactCamera::find(LayeredBody& a, const Collider& b, int piece, const ProxyContact& pair,
                        std::vector<NodeContact>* outA) {
  const ColliderSide side(b, piece, pair.normal);
  const ContactSurface self(a);
  const ContactSurface& surface = side.surface();
  PairPatches patches;
  if (!draw(self, surface, pair, a.desc().name, b.name(), &patches)) return 0;
  // passes 4-5 for the body only; the normal is the collider's (it keeps its shape),
  // smooth at the contact's barycentric, as the CPU's
  const std::vector<Vec3i>& tris = side.triangles();
  std::vector<NodeContact> found, none;
  for (const MappedNode& m : mapNodes(a.modelPtr(), patches.a, 0, tris.size())) {
    const int node = patches.a.nodes[m.index];
    const Vec3 nrm = pairNormal(self, node, surface, tris[size_t(m.triangle)], m.bary, -n_);
    found.push_back(makeColliderContact(a, node, patches.a.x[m.index], b, nrm, m.depth));
  }
  return finish(found, none, pair.normal, outA, nullptr);
}

}  // namespace d2t
