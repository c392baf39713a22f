// GpuSkin: the GPU solver (gpu_skin.h lists its parts and passes): the constructor, the
// detection and drawing on its state, and single stages for the tests. The rest:
//   gpu_skin_solve.cpp     the free update's passes and integrate (steps 1-5)
//   gpu_skin_response.cpp  the state in and out, the response's passes (condense, rows,
//                          energy, apply, correct), the summary

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
#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;

GlTexture nodeTriangleTexture(const Atlas& a) {
  std::vector<std::vector<int>> around(size_t(a.nodeCount()));
  for (int t = 0; t < int(a.triangles.size()); ++t)
    for (int k = 0; k < 3; ++k) around[size_t(a.triangles[size_t(t)][k])].push_back(t);
  for (int i = 0; i < a.nodeCount(); ++i)
    if (around[size_t(i)].size() > size_t(4 * D2T_AROUND_LAYERS))
      throw GlError("node " + std::to_string(i) + " of the atlas has " + std::to_string(around[size_t(i)].size()) +
                    " triangles around it; the GPU's triangle texture holds " + std::to_string(4 * D2T_AROUND_LAYERS));
  GlTexture tex(a.resolution, a.resolution, D2T_AROUND_LAYERS, GL_RGBA32I);
  glBindTexture(GL_TEXTURE_2D_ARRAY, tex.id());
  for (int layer = 0; layer < D2T_AROUND_LAYERS; ++layer) {
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

// The solver's GL objects, in the order they are made: the passes' programs, the
// buffers and vertex arrays, the body's static fields, the working fields, the maps
// for drawing, the timer queries.
GpuSkin::GpuSkin(BakedBodyPtr model) : model_(model), passes_(std::move(model)), ops_(passes_), cg_(passes_, ops_), rows_(passes_, ops_), detection_(passes_), summary_(passes_, ops_) {
  renderer_ = glRenderer();
  n_ = model_->atlas.resolution;
  compilePrograms();
  createBuffers();
  createWorkFields();
  createDrawingMaps();
  checkGl("setting up the GPU solver");
}


void GpuSkin::compilePrograms() {
  const std::string v = "d2t/pass.vert";
  forces_ = ShaderProgram(v, "d2t/forces.frag");
  coupling_ = ShaderProgram(v, "d2t/coupling.frag");
  velocities_ = ShaderProgram(v, "d2t/velocities.frag");
  copy_ = ShaderProgram(v, "d2t/copy.frag");
  surfaceProgram_ = ShaderProgram(v, "d2t/surface.frag");
  normalsProgram_ = ShaderProgram(v, "d2t/normals.frag");
  condense_ = ShaderProgram(v, "d2t/response_condense.frag");
  responseEnergy_ = ShaderProgram(v, "d2t/response_energy.frag");
  apply_ = ShaderProgram(v, "d2t/response_apply.frag");
  scatter_ = ShaderProgram("d2t/scatter.vert", "d2t/scatter.frag");
  gather_ = ShaderProgram("d2t/gather.vert", "d2t/gather.frag");
}

void GpuSkin::createBuffers() {
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

}


void GpuSkin::createWorkFields() {
  // fields (zeroed: unused texels must hold finite values for the stencil)
  for (GlTexture* t : {&q_, &qdot_, &qNew_, &qdotNew_, &z_, &ma_, &nodeForces_, &impulseR_, &impulseExtra_})
    *t = newField();
  for (GlTexture& t : momentSums_) t = GlTexture(1, 1, 0, GL_RGBA32F);
}

void GpuSkin::createDrawingMaps() {
  const Atlas& a = model_->atlas;
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
}

GpuSkin::~GpuSkin() {
  const GLuint textures[2] = {triangleTex_, nodeTexelTex_};
  glDeleteTextures(2, textures);
  const GLuint buffers[2] = {triangleBuffer_, nodeTexelBuffer_};
  glDeleteBuffers(2, buffers);
  if (scatterVao_) glDeleteVertexArrays(1, &scatterVao_);
  if (scatterBuffer_) glDeleteBuffers(1, &scatterBuffer_);
  if (gatherVao_) glDeleteVertexArrays(1, &gatherVao_);
  if (gatherBuffer_) glDeleteBuffers(1, &gatherBuffer_);
}

void GpuSkin::requireHeld(const BodyView& body) const {
  if (!holds(body.id)) throw GlError("the GPU solver holds another body's state (load it first)");
}


// ---- detection -------------------------------------------------------------------------------

bool GpuSkin::detectColliders(const BodyView& body, const std::vector<const Collider*>& colliders, double margin,
                              std::vector<ColliderHit>* hits, Profile& profile) {
  requireHeld(body);
  detection_.detect(body.core, colliders, margin, qNew_, hits);
  if (!colliders.empty()) passes_.takeTimes(profile);
  return true;
}

// ---- drawing -----------------------------------------------------------------------------------

void GpuSkin::updateSurface(const LayeredBody& body) {
  if (body.skinResident() && holds(body.id()))
    surfacePasses(qNew_);
  else
    updateSurface(body.state().q);
}

void GpuSkin::updateSurface(const std::vector<Vec3>& q) {
  uploadNodes(z_, q);  // (scratch between steps: the state textures keep the body's state)
  surfacePasses(z_);
}

void GpuSkin::surfacePasses(const GlTexture& q) {
  passes_.beginPass(surfaceProgram_);
  passes_.bind(surfaceProgram_, "uQ", q);
  passes_.draw(surfaceProgram_, {{surface_.id(), -1}});
  passes_.beginPass(normalsProgram_);
  passes_.bind(normalsProgram_, "uSurface", surface_);
  passes_.bind(normalsProgram_, "uAround", around_);
  passes_.bind(normalsProgram_, "uTriangles", GL_TEXTURE_BUFFER, triangleTex_);
  passes_.bind(normalsProgram_, "uNodeTexel", GL_TEXTURE_BUFFER, nodeTexelTex_);
  passes_.draw(normalsProgram_, {{normals_.id(), -1}});
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  checkGl("the surface and normals passes");
}

// ---- single stages for the tests ---------------------------------------------------------------

std::vector<float> GpuSkin::gutterFill(const std::vector<float>& texels) {
  uploadTexels(z_, 0, texels);
  passes_.beginPass(copy_);
  passes_.bind(copy_, "uX", z_);
  passes_.draw(copy_, {{ma_.id(), -1}});
  std::vector<float> out(texels.size());
  glBindTexture(GL_TEXTURE_2D, ma_.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, out.data());
  checkGl("the gutter pass");
  return out;
}

std::vector<Vec3> GpuSkin::stencilProduct(const std::vector<Vec3>& x, double scaleK, double scaleM) {
  uploadNodes(z_, x);
  cg_.stencilPass(z_, z_, scaleK, scaleM, 0.0, ma_);
  return downloadNodes(ma_);
}

Vec3 GpuSkin::sum(const std::vector<Vec3>& x) {
  // gutters hold copies: only node texels may count
  uploadTexels(passes_.terms(0), 0, nodeTexels(model_->atlas, x, false));
  passes_.reduce({&passes_.terms(0)}, {&passes_.sums(0)});
  return passes_.sum(0);
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

int GpuSkin::solve(const BodyView& body, const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations,
                   double tolerance, double* residual) {
  ops_.sync(body);
  cg_.sync(body);
  uploadNodes(cg_.rhs(), b);
  uploadNodes(cg_.x(), x);
  const int it = cg_.solve(maxIterations, tolerance, residual);
  x = downloadNodes(cg_.x());
  return it;
}

GpuSkin::CouplingProducts GpuSkin::coupling(const BodyView& body, const std::vector<Vec3>& q,
                                            const std::vector<Vec3>& y, const Quat& orientation,
                                            const Vec3& gravity) {
  holder_ = nullptr;
  ops_.sync(body);
  uploadNodes(q_, q);
  uploadNodes(cg_.x(), y);
  const Mat3 R = orientation.toRotationMatrix();
  return couplingProducts(R, R.transpose() * gravity);
}

void GpuSkin::velocities(const BodyView& body, const std::vector<Vec3>& q, const std::vector<Vec3>& qdot,
                         const std::vector<Vec3>& y, const Quat& orientation, const Vec3& gravity,
                         const Core::Vector& dvc, double dt, LayeredState& out, Vec3* mqdot, Vec3* mq) {
  holder_ = nullptr;
  ops_.sync(body);
  uploadNodes(q_, q);
  uploadNodes(qdot_, qdot);
  uploadNodes(cg_.x(), y);
  const Mat3 R = orientation.toRotationMatrix();
  velocitiesPass(dt * R.transpose() * gravity - R.transpose() * Core::linear(dvc), Core::angular(dvc), dt, mqdot, mq);
  out.qdot = downloadNodes(qdotNew_);
  out.q = downloadNodes(qNew_);
}

}  // namespace d2t
