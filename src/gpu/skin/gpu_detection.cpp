// GpuDetection (gpu_detection.h): detection against planes and height fields in one pass.
#include "gpu/skin/gpu_detection.h"

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

// The height fields among the colliders, in their texture layers' order.
std::vector<const HeightField*> heightFieldsOf(const std::vector<const Collider*>& colliders) {
  std::vector<const HeightField*> fields;
  for (const Collider* c : colliders)
    if (const HeightField* f = c->heightField()) fields.push_back(f);
  return fields;
}

// A batch of at most K colliders, [first, first + count), as detect.frag's uniform arrays
// take them (matrices column-major; a height field's layer its place among all of them).
struct DetectedColliders {
  static constexpr int K = kMaxDetectedColliders;
  std::array<GLint, K> kind{}, layer{};
  std::array<GLfloat, 4 * K> plane{}, grid{};
  std::array<GLfloat, 3 * K> position{}, velocity{}, spin{};
  std::array<GLfloat, 9 * K> orientation{};

  DetectedColliders(const std::vector<const Collider*>& colliders, size_t first, size_t count) {
    GLint fieldsBefore = 0;
    for (size_t k = 0; k < first; ++k) fieldsBefore += colliders[k]->heightField() != nullptr;
    for (size_t k = 0; k < count; ++k) {
      const Collider& c = *colliders[first + k];
      if (c.type() == ColliderType::Plane) {
        kind[k] = 0;
        for (int j = 0; j < 3; ++j) plane[4 * k + size_t(j)] = GLfloat(c.desc().normal[j]);
        plane[4 * k + 3] = GLfloat(c.desc().offset);
      } else if (const HeightField* f = c.heightField()) {
        kind[k] = 1;
        layer[k] = fieldsBefore++;
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

GpuDetection::GpuDetection(AtlasPasses& passes) : passes_(passes) {
  program_ = ShaderProgram("d2t/pass.vert", "d2t/detect.frag");
  coreProgram_ = ShaderProgram("d2t/pass.vert", "d2t/core_contact.frag");
  // the hits: a counter, then at most one hit per node and collider pass, two per node
  // and core pass (its two limits)
  glGenBuffers(1, &hitBuffer_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, hitBuffer_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(D2T_DETECT_HITS_OFFSET + sizeof(Hit) * capacity()), nullptr,
               GL_DYNAMIC_READ);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  checkGl("the detection's hit buffer");
}

GpuDetection::~GpuDetection() {
  if (hitBuffer_) glDeleteBuffers(1, &hitBuffer_);
}

void GpuDetection::syncHeights(const std::vector<const HeightField*>& fields) {
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

void GpuDetection::detect(const CoreState& s, const std::vector<const Collider*>& colliders, double margin,
                          const GlTexture& q, std::vector<ColliderHit>* hits) {
  hits->clear();
  if (colliders.empty()) return;
  const Atlas& a = passes_.model().atlas;
  const int n = passes_.size();
  syncHeights(heightFieldsOf(colliders));
  const Mat3 R = s.orientation.toRotationMatrix();
  std::array<GLfloat, 9> rot{};
  for (int j = 0; j < 3; ++j)
    for (int r = 0; r < 3; ++r) rot[size_t(3 * j + r)] = GLfloat(R(r, j));
  // one pass per batch of kMaxDetectedColliders (the shader's uniform arrays), each
  // node's deepest collider of the batch; the deepest of the batches kept below
  for (size_t first = 0; first < colliders.size(); first += size_t(kMaxDetectedColliders)) {
    const size_t count = std::min(colliders.size() - first, size_t(kMaxDetectedColliders));
    std::vector<Hit> raw;
    {
      const AtlasPasses::PassTimer timer(passes_, Stage::Nodes);
      const DetectedColliders packed(colliders, first, count);
      passes_.beginPass(program_);
      passes_.bind(program_, "uQ", q);
      passes_.bind(program_, "uHeights", GL_TEXTURE_2D_ARRAY, heights_.id());
      program_.set("uCenter", s.position);
      glUniformMatrix3fv(program_.uniform("uRotation"), 1, GL_FALSE, rot.data());
      glUniform1f(program_.uniform("uMargin"), float(margin));
      packed.set(program_, GLsizei(count));
      raw = appendedHits(program_);
    }
    checkGl("the collision detection pass");
    for (const Hit& h : raw) {
      ColliderHit c;
      c.node = a.texelNode[size_t(h.id[1]) * size_t(n) + size_t(h.id[0])];
      c.collider = int(first) + h.id[2];
      c.depth = h.normalDepth[3];
      c.normal = Vec3(h.normalDepth[0], h.normalDepth[1], h.normalDepth[2]).normalized();
      c.velocity = Vec3(h.velocity[0], h.velocity[1], h.velocity[2]);
      hits->push_back(c);
    }
  }
  // (the atomic counter appends in no fixed order) by node, then each node's deepest
  // (the earlier collider where two are as deep, as Collider::query's loop on the CPU)
  std::sort(hits->begin(), hits->end(), [](const ColliderHit& x, const ColliderHit& y) {
    return x.node != y.node ? x.node < y.node : x.collider < y.collider;
  });
  size_t kept = 0;
  for (size_t k = 0; k < hits->size(); ++k) {
    const ColliderHit& h = (*hits)[k];
    if (kept > 0 && (*hits)[kept - 1].node == h.node) {
      if (h.depth > (*hits)[kept - 1].depth) (*hits)[kept - 1] = h;
    } else {
      (*hits)[kept++] = h;
    }
  }
  hits->resize(kept);
}

std::vector<GpuDetection::Hit> GpuDetection::appendedHits(const ShaderProgram& program) {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, hitBuffer_);
  const GLuint zero[4] = {0, 0, 0, 0};
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(zero), zero);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, hitBuffer_);
  passes_.draw(program, {{passes_.terms(0).id(), -1}});  // (the hits go to the buffer; the target is scratch)
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  GLuint found = 0;
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof(found), &found);
  std::vector<Hit> raw(std::min<size_t>(found, capacity()));
  if (!raw.empty())
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, D2T_DETECT_HITS_OFFSET, GLsizeiptr(raw.size() * sizeof(Hit)), raw.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return raw;
}

void GpuDetection::detectCore(const GlTexture& q, double keep, double margin, double reach,
                              std::vector<CoreContact>* hits) {
  hits->clear();
  std::vector<Hit> raw;
  {
    const AtlasPasses::PassTimer timer(passes_, Stage::Nodes);
    passes_.beginPass(coreProgram_);
    passes_.bind(coreProgram_, "uQ", q);
    passes_.bind(coreProgram_, "uLayer", passes_.layer());
    glUniform1f(coreProgram_.uniform("uKeep"), float(keep));
    glUniform1f(coreProgram_.uniform("uMargin"), float(margin));
    glUniform1f(coreProgram_.uniform("uReach"), float(reach));
    glUniform1f(coreProgram_.uniform("uMaxStretch"), float(kMaxStretch));
    raw = appendedHits(coreProgram_);
  }
  checkGl("the core contact pass");
  const Atlas& a = passes_.model().atlas;
  const int n = passes_.size();
  hits->reserve(raw.size());
  for (const Hit& h : raw) {
    const Vec3 normal = Vec3(h.normalDepth[0], h.normalDepth[1], h.normalDepth[2]).normalized();
    hits->push_back({a.texelNode[size_t(h.id[1]) * size_t(n) + size_t(h.id[0])], h.normalDepth[3], normal, h.id[2] == 1});
  }
  // (the atomic counter appends in no fixed order: by node, a node's crush before its
  // stretch, as on the CPU)
  std::sort(hits->begin(), hits->end(), [](const CoreContact& x, const CoreContact& y) {
    return std::pair(x.node, x.stretch) < std::pair(y.node, y.stretch);
  });
}

}  // namespace d2t
