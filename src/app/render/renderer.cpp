#include "app/render/renderer.h"

#include <algorithm>
#include <iostream>

#include "app/panels/overlay.h"

namespace d2t {

namespace {

Eigen::Matrix4f poseMatrix(const Vec3& p, const Quat& q) {
  Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
  m.block<3, 3>(0, 0) = q.toRotationMatrix().cast<float>();
  m.block<3, 1>(0, 3) = p.cast<float>();
  return m;
}

const Eigen::Vector3f kBodyColors[] = {{0.85f, 0.35f, 0.20f}, {0.25f, 0.55f, 0.85f},
                                       {0.35f, 0.70f, 0.35f}, {0.85f, 0.70f, 0.25f},
                                       {0.65f, 0.40f, 0.75f}, {0.30f, 0.75f, 0.75f}};

// The textures a skin is drawn from, on units first.. first + 2.
void bindSkinTextures(const ShaderProgram& p, const GpuSkin& skin, int first) {
  glActiveTexture(GLenum(GL_TEXTURE0 + first));
  glBindTexture(GL_TEXTURE_2D, skin.surfaceTexture().id());
  glUniform1i(p.uniform("uSurface"), first);
  glActiveTexture(GLenum(GL_TEXTURE0 + first + 1));
  glBindTexture(GL_TEXTURE_2D, skin.normalTexture().id());
  glUniform1i(p.uniform("uNormals"), first + 1);
  glActiveTexture(GLenum(GL_TEXTURE0 + first + 2));
  glBindTexture(GL_TEXTURE_BUFFER, skin.nodeTexelTexture());
  glUniform1i(p.uniform("uNodeTexel"), first + 2);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace

namespace {
std::vector<float> interleave(const TriMesh& mesh) {
  const std::vector<Vec3> normals = mesh.vertexNormals();
  std::vector<float> data;
  data.reserve(mesh.positions.size() * 6);
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    for (int k = 0; k < 3; ++k) data.push_back(float(mesh.positions[i][k]));
    for (int k = 0; k < 3; ++k) data.push_back(float(normals[i][k]));
  }
  return data;
}
}  // namespace

void GpuMesh::update(const TriMesh& mesh) {
  if (mesh.positions.size() != vertices_) return;
  const std::vector<float> data = interleave(mesh);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(data.size() * sizeof(float)), data.data());
}

GpuMesh::GpuMesh(const TriMesh& mesh) {
  const std::vector<float> data = interleave(mesh);
  vertices_ = mesh.positions.size();
  std::vector<uint32_t> idx;
  idx.reserve(mesh.triangles.size() * 3);
  for (const Vec3i& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) idx.push_back(uint32_t(t[k]));
  count_ = GLsizei(idx.size());
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glGenBuffers(1, &vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * sizeof(float)), data.data(), GL_DYNAMIC_DRAW);
  glGenBuffers(1, &ebo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * 4), idx.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                        reinterpret_cast<void*>(3 * sizeof(float)));
  glBindVertexArray(0);
  checkGl("GpuMesh upload");
}

GpuMesh::~GpuMesh() {
  glDeleteBuffers(1, &vbo_);
  glDeleteBuffers(1, &ebo_);
  glDeleteVertexArrays(1, &vao_);
}

void GpuMesh::draw() const {
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, count_, GL_UNSIGNED_INT, nullptr);
}

SkinIndexBuffer::SkinIndexBuffer(const std::vector<Vec3i>& triangles) {
  std::vector<uint32_t> idx;
  idx.reserve(triangles.size() * 3);
  for (const Vec3i& t : triangles)
    for (int k = 0; k < 3; ++k) idx.push_back(uint32_t(t[k]));
  count_ = GLsizei(idx.size());
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glGenBuffers(1, &ebo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * 4), idx.data(), GL_STATIC_DRAW);
  glBindVertexArray(0);
  checkGl("SkinIndexBuffer");
}

SkinIndexBuffer::~SkinIndexBuffer() {
  glDeleteBuffers(1, &ebo_);
  glDeleteVertexArrays(1, &vao_);
}

void SkinIndexBuffer::draw() const {
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, count_, GL_UNSIGNED_INT, nullptr);
}

LineBatch::LineBatch() {
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glGenBuffers(1, &vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  static_assert(sizeof(LineVertex) == 6 * sizeof(float), "LineVertex: 3 + 3 floats, packed");
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex), reinterpret_cast<void*>(3 * sizeof(float)));
  glBindVertexArray(0);
  checkGl("LineBatch");
}

LineBatch::~LineBatch() {
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void LineBatch::draw(const std::vector<LineVertex>& vertices) {
  if (vertices.size() < 2) return;
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const GLsizeiptr bytes = GLsizeiptr(vertices.size() * sizeof(LineVertex));
  if (vertices.size() > capacity_) {
    capacity_ = vertices.size() * 2;
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(capacity_ * sizeof(LineVertex)), nullptr, GL_STREAM_DRAW);
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, vertices.data());
  glDrawArrays(GL_LINES, 0, GLsizei(vertices.size() / 2 * 2));
  glBindVertexArray(0);
}

// the deformed skin in world coordinates (CPU backend: from the solver's state)
static TriMesh skinMesh(const Body& b) {
  TriMesh m;
  m.positions = b.skinPositions();
  m.triangles = b.model->atlas.triangles;
  return m;
}

// a character's skin in world coordinates, from its solved positions
static TriMesh characterMesh(const Character& c) {
  TriMesh m;
  m.positions = c.body->skinPositions();
  m.triangles = c.model->triangles;
  return m;
}

// the rigid core surface in the body frame: the core points f under the skin nodes
static TriMesh coreMesh(const BakedBody& m) {
  TriMesh t;
  t.positions = m.core;
  t.triangles = m.atlas.triangles;
  return t;
}

Renderer::Renderer()
    : meshProgram_("mesh.vert", "mesh.frag"), shadowProgram_("shadow.vert", "shadow.frag"),
      lineProgram_("lines.vert", "lines.frag"), lines_(std::make_unique<LineBatch>()) {
  try {  // texel fetches from buffer textures: fine on OpenGL 3.3; kept optional all the same
    skinProgram_ = ShaderProgram("mesh.vert", "mesh.frag", "#define SKIN_TEXTURES");
    skinShadowProgram_ = ShaderProgram("shadow.vert", "shadow.frag", "#define SKIN_TEXTURES");
  } catch (const GlError& e) {
    skinProgram_ = ShaderProgram();
    skinShadowProgram_ = ShaderProgram();
    std::cerr << "d2tsim: warning: the shaders that draw a skin from the GPU solver's textures failed ("
              << e.what() << "): skins on the GPU are read back and drawn from a mesh every frame\n";
  }
}

void Renderer::setWorld(World& world) {
  bodyMeshes_.clear();
  colliderMeshes_.clear();
  skinIndices_.clear();
  coreMeshes_.clear();
  coreModels_.clear();
  for (Body& b : world.bodies()) {
    b.layered.syncSkin();  // (a world that already ran on the GPU)
    bodyMeshes_.push_back(std::make_unique<GpuMesh>(skinMesh(b)));
    coreMeshes_.push_back(std::make_unique<GpuMesh>(coreMesh(*b.model)));
    coreModels_.push_back(b.model.get());
    skinIndices_.push_back(std::make_unique<SkinIndexBuffer>(b.model->atlas.triangles));
  }
  characterMeshes_.clear();
  for (const Character& c : world.characters()) characterMeshes_.push_back(std::make_unique<GpuMesh>(characterMesh(c)));
  for (const Collider& c : world.colliders()) {
    const bool plane = c.type() == ColliderType::Plane;
    colliderMeshes_.push_back(std::make_unique<GpuMesh>(plane ? c.worldMesh(400) : c.localMesh()));
  }
}

// One frame: what to draw (collectDraws, with the scene's bounds for the light), the
// shadow map, the lit scene, the overlay lines.
void Renderer::render(World& world, const Camera& camera, RenderTarget& target, const ViewOptions& options,
                      const std::vector<std::shared_ptr<GpuSkin>>& gpuSkins) {
  Aabb bounds;
  const std::vector<Draw> draws = collectDraws(world, options, gpuSkins, bounds);
  if (bounds.empty()) bounds.grow(camera.target());
  bounds.grow(camera.target() - Vec3::Constant(2.0));
  bounds.grow(camera.target() + Vec3::Constant(2.0));

  // light: from above, slightly to the side; orthographic over the scene bounds
  const Vec3 lightDir = Vec3(0.45, 1.0, 0.35).normalized();
  const Vec3 c = bounds.center();
  const double radius = 0.5 * (bounds.hi - bounds.lo).norm() + 0.5;
  const Eigen::Matrix4f lightViewProj =
      orthographic(-radius, radius, -radius, radius, 0.01, 4 * radius) *
      lookAt(c + 2 * radius * lightDir, c, Vec3::UnitY());

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  shadowPass(draws, lightViewProj, options);
  const double aspect = double(target.width()) / std::max(1, target.height());
  const Eigen::Matrix4f viewProj = camera.projection(aspect) * camera.view();
  litPass(draws, camera, target, viewProj, lightViewProj, lightDir, options);
  overlayPass(world, viewProj, options);
  glBindVertexArray(0);
  checkGl("Renderer::render");
}

// What to draw this frame, with its model matrix and colour; `bounds` grows by each.
std::vector<Renderer::Draw> Renderer::collectDraws(World& world, const ViewOptions& options,
                                                   const std::vector<std::shared_ptr<GpuSkin>>& gpuSkins,
                                                   Aabb& bounds) {
  // a picked or dragged object is drawn brighter
  auto highlight = [](Eigen::Vector3f c) { return Eigen::Vector3f(c.array() * 0.5f + 0.5f); };
  std::vector<Draw> draws;
  draws.reserve(world.bodies().size() + world.colliders().size());
  frameSkins_ = FrameSkins{};
  for (size_t i = 0; i < world.bodies().size() && i < bodyMeshes_.size(); ++i) {
    Body& b = world.bodies()[i];
    const Eigen::Matrix4f pose = poseMatrix(b.layered.core().position, b.layered.core().orientation);
    const Eigen::Vector3f color = int(i) == options.highlightBody ? highlight(kBodyColors[i % 6]) : kBodyColors[i % 6];
    GpuSkin* skin = i < gpuSkins.size() ? gpuSkins[i].get() : nullptr;
    if (skin && b.layered.freeMotionSolver() != skin) skin = nullptr;  // (dropped: the body is on the CPU)
    if (!options.skin) {
      // skin hidden
    } else if (skin && skinProgram_.id()) {
      // GPU backend: the surface and normals passes, then draw from the textures
      skin->updateSurface(b.layered);
      draws.push_back({nullptr, pose, color, false, skin, skinIndices_[i].get(), true});
      ++frameSkins_.fromTextures;
    } else {
      b.layered.syncSkin();  // (a body dropped by its GPU solver, or drawn without the skin program)
      bodyMeshes_[i]->update(skinMesh(b));
      draws.push_back({bodyMeshes_[i].get(), Eigen::Matrix4f::Identity(), color, false, nullptr, nullptr, true});
      ++frameSkins_.fromMesh;
    }
    if (options.core && i < coreMeshes_.size()) {
      if (coreModels_[i] != b.model.get()) {  // a new material re-baked the model
        coreMeshes_[i] = std::make_unique<GpuMesh>(coreMesh(*b.model));
        coreModels_[i] = b.model.get();
      }
      draws.push_back({coreMeshes_[i].get(), pose, Eigen::Vector3f(0.45f, 0.42f, 0.40f), false});
    }
    const double r = b.desc.shape->boundingRadius();
    bounds.grow(b.state.position - Vec3::Constant(r));
    bounds.grow(b.state.position + Vec3::Constant(r));
  }
  for (size_t i = 0; i < world.characters().size() && i < characterMeshes_.size(); ++i) {
    const Character& c = world.characters()[i];
    if (!options.skin) continue;
    const size_t colour = world.bodies().size() + i;
    const TriMesh mesh = characterMesh(c);
    characterMeshes_[i]->update(mesh);
    draws.push_back({characterMeshes_[i].get(), Eigen::Matrix4f::Identity(), kBodyColors[colour % 6], false, nullptr,
                     nullptr, true});
    const Aabb box = mesh.bounds();
    bounds.grow(box.lo);
    bounds.grow(box.hi);
  }
  for (size_t i = 0; i < world.colliders().size() && i < colliderMeshes_.size(); ++i) {
    const Collider& c = world.colliders()[i];
    const bool plane = c.type() == ColliderType::Plane;
    const bool field = c.type() == ColliderType::HeightField;
    Eigen::Vector3f color = plane ? Eigen::Vector3f(0.78f, 0.78f, 0.76f)
                            : field ? Eigen::Vector3f(0.55f, 0.62f, 0.45f)
                                    : Eigen::Vector3f(0.80f, 0.66f, 0.55f);
    if (int(i) == options.highlightCollider) color = highlight(color);
    draws.push_back({colliderMeshes_[i].get(),
                     plane ? Eigen::Matrix4f(Eigen::Matrix4f::Identity())
                           : poseMatrix(c.position(), c.orientation()),
                     color, plane || field});
    if (!plane) {
      const Aabb lb = c.localMesh().bounds();
      const double r = std::min(0.5 * (lb.hi - lb.lo).norm(), 6.0);
      bounds.grow(c.position() - Vec3::Constant(r));
      bounds.grow(c.position() + Vec3::Constant(r));
    }
  }
  return draws;
}

void Renderer::shadowPass(const std::vector<Draw>& draws, const Eigen::Matrix4f& lightViewProj,
                          const ViewOptions& options) {
  // pass 1: shadow map
  shadowMap_.bind();
  glClear(GL_DEPTH_BUFFER_BIT);
  if (options.shadows) {
    shadowProgram_.use();
    glUniformMatrix4fv(shadowProgram_.uniform("uLightViewProj"), 1, GL_FALSE, lightViewProj.data());
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    for (const Draw& d : draws) {
      const ShaderProgram& p = d.skin ? skinShadowProgram_ : shadowProgram_;
      p.use();
      glUniformMatrix4fv(p.uniform("uLightViewProj"), 1, GL_FALSE, lightViewProj.data());
      glUniformMatrix4fv(p.uniform("uModel"), 1, GL_FALSE, d.model.data());
      if (d.skin) {
        bindSkinTextures(p, *d.skin, 1);
        d.indices->draw();
      } else {
        d.mesh->draw();
      }
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
  }
}

void Renderer::litPass(const std::vector<Draw>& draws, const Camera& camera, RenderTarget& target,
                       const Eigen::Matrix4f& viewProj, const Eigen::Matrix4f& lightViewProj, const Vec3& lightDir,
                       const ViewOptions& options) {
  // pass 2: lit scene
  target.bind();
  glClearColor(0.62f, 0.70f, 0.80f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  const Eigen::Vector3f l = lightDir.cast<float>(), e = camera.eye().cast<float>();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, shadowMap_.texture());
  for (const Draw& d : draws) {
    const ShaderProgram& p = d.skin ? skinProgram_ : meshProgram_;
    glPolygonMode(GL_FRONT_AND_BACK, d.isSkin && options.wireframe ? GL_LINE : GL_FILL);
    p.use();
    glUniformMatrix4fv(p.uniform("uViewProj"), 1, GL_FALSE, viewProj.data());
    glUniformMatrix4fv(p.uniform("uLightViewProj"), 1, GL_FALSE, lightViewProj.data());
    glUniform3fv(p.uniform("uLightDir"), 1, l.data());
    glUniform3fv(p.uniform("uEye"), 1, e.data());
    glUniform1f(p.uniform("uShadowTexel"), 1.0f / float(shadowMap_.size()));
    glUniform1i(p.uniform("uShadowMap"), 0);
    glUniformMatrix4fv(p.uniform("uModel"), 1, GL_FALSE, d.model.data());
    glUniform3fv(p.uniform("uColor"), 1, d.color.data());
    glUniform1i(p.uniform("uChecker"), d.checker ? 1 : 0);
    if (d.skin) {
      bindSkinTextures(p, *d.skin, 1);
      d.indices->draw();
    } else {
      d.mesh->draw();
    }
  }
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
}

void Renderer::overlayPass(World& world, const Eigen::Matrix4f& viewProj, const ViewOptions& options) {
  // pass 3: overlay lines. Contacts are drawn over everything (they lie under the
  // bodies that make them); proxy crosses are depth-tested (the far side is hidden).
  const bool metaphors =
      (options.metaphors && !world.metaphors().empty()) || options.paintBody >= 0 || options.draftBody >= 0;
  if (options.contacts || options.proxies || options.bones || metaphors) {
    lineProgram_.use();
    glUniformMatrix4fv(lineProgram_.uniform("uViewProj"), 1, GL_FALSE, viewProj.data());
    std::vector<LineVertex> lines;
    if (options.proxies) {
      proxyLines(world, &lines);
      lines_->draw(lines);
    }
    if (options.bones) {  // (over the skin that hides them)
      lines.clear();
      boneLines(world, &lines);
      glDisable(GL_DEPTH_TEST);
      lines_->draw(lines);
      glEnable(GL_DEPTH_TEST);
    }
    if (metaphors) {  // (over the skin: the rings are on it)
      lines.clear();
      if (options.metaphors) metaphorLines(world, options.selectedMetaphor, &lines);
      paintedLines(world, options.paintBody, options.paintNodes, &lines);
      if (options.draftBody >= 0 && options.draftBody < int(world.bodies().size())) {
        const Body& b = world.bodies()[size_t(options.draftBody)];
        structureLines(options.draft, b.layered.core(), b.model->comOffset, Eigen::Vector3f(0.3f, 0.95f, 1.0f), &lines);
      }
      glDisable(GL_DEPTH_TEST);
      lines_->draw(lines);
      glEnable(GL_DEPTH_TEST);
    }
    if (options.contacts) {
      lines.clear();
      contactLines(world, world.lastContacts(), 0.08, &lines);
      glDisable(GL_DEPTH_TEST);
      lines_->draw(lines);
      glEnable(GL_DEPTH_TEST);
    }
  }
}

}  // namespace d2t
