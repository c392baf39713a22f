#include "gpu/gl/buffer.h"

#include <algorithm>
#include <cstring>

namespace d2t {

GlBuffer::GlBuffer(const void* data, size_t bytes) : bytes_(bytes) {
  std::vector<unsigned char> padded(std::max<size_t>(bytes, 16), 0);
  if (bytes) std::memcpy(padded.data(), data, bytes);
  glGenBuffers(1, &id_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(padded.size()), padded.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  checkGl("allocating a shader storage buffer");
}

GlBuffer::~GlBuffer() {
  if (id_) glDeleteBuffers(1, &id_);
}

GlBuffer& GlBuffer::operator=(GlBuffer&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteBuffers(1, &id_);
    id_ = o.id_;
    bytes_ = o.bytes_;
    o.id_ = 0;
  }
  return *this;
}

void GlBuffer::bindStorage(GLuint index) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, id_); }

}  // namespace d2t
