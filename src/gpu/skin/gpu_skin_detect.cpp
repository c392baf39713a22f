// GpuSkin's collision detection against planes and height fields (Fig. 3.5 steps 8 and
// 14) in one pass over the resident skin, the heights synced as a texture array.

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

namespace {

// The colliders as detect.frag's uniform arrays take them (matrices column-major), and
// the height fields among them in their texture layers' order.
struct DetectedColliders {
  static constexpr int K = kMaxDetectedColliders;
  std::array<GLint, K> kind{}, layer{};
  std::array<GLfloat, 4 * K> plane{}, grid{};
  std::array<GLfloat, 3 * K> position{}, velocity{}, spin{};
  std::array<GLfloat, 9 * K> orientation{};
  std::vector<const HeightField*> fields;

  explicit DetectedColliders(const std::vector<const Collider*>& colliders) {
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
  }
  // the first `count` of each array into the program's uniforms (the program in use)
  void set(const ShaderProgram& p, GLsizei count) const {
    glUniform1i(p.uniform("uColliders"), count);
    glUniform1iv(p.uniform("uKind"), count, kind.data());
    glUniform1iv(p.uniform("uLayer"), count, layer.data());
    glUniform4fv(p.uniform("uPlane"), count, plane.data());
    glUniform4fv(p.uniform("uGrid"), count, grid.data());
    glUniform3fv(p.uniform("uPosition"), count, position.data());
    glUniform3fv(p.uniform("uVelocity"), count, velocity.data());
    glUniform3fv(p.uniform("uSpin"), count, spin.data());
    glUniformMatrix3fv(p.uniform("uOrientation"), count, GL_FALSE, orientation.data());
  }
};

}  // namespace

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

bool GpuSkin::detectColliders(const BodyView& body, const std::vector<const Collider*>& colliders, double margin,
                              std::vector<ColliderHit>* hits, Profile& profile) {
  requireHeld(body);
  if (colliders.size() > size_t(kMaxDetectedColliders)) return false;
  hits->clear();
  if (colliders.empty()) return true;
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
  std::vector<Hit> raw;
  {
    const PassTimer timer(passes_, Stage::Nodes);
    const DetectedColliders packed(colliders);
    syncHeights(packed.fields);
    const CoreState& s = body.core;
    const Mat3 R = s.orientation.toRotationMatrix();
    std::array<GLfloat, 9> rot{};
    for (int j = 0; j < 3; ++j)
      for (int r = 0; r < 3; ++r) rot[size_t(3 * j + r)] = GLfloat(R(r, j));
    passes_.beginPass(detect_);
    passes_.bind(detect_, "uQ", qNew_);
    passes_.bind(detect_, "uHeights", GL_TEXTURE_2D_ARRAY, heights_.id());
    detect_.set("uCenter", s.position);
    glUniformMatrix3fv(detect_.uniform("uRotation"), 1, GL_FALSE, rot.data());
    glUniform1f(detect_.uniform("uMargin"), float(margin));
    packed.set(detect_, GLsizei(colliders.size()));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, hitBuffer_);
    const GLuint zero[4] = {0, 0, 0, 0};
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(zero), zero);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, hitBuffer_);
    passes_.draw(detect_, {{passes_.terms(0).id(), -1}});  // (the hits go to the buffer; the target is scratch)
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    GLuint found = 0;
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(found), &found);
    raw.resize(std::min<size_t>(found, size_t(model_->nodeCount())));
    if (!raw.empty()) glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, D2T_DETECT_HITS_OFFSET, GLsizeiptr(raw.size() * sizeof(Hit)), raw.data());
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

}  // namespace d2t
