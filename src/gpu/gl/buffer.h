#pragma once
// A GL buffer object the program owns: the shader storage blocks (SSBOs) of the
// multigrid's sparse matrices.
#include <cstddef>
#include <vector>

#include "gpu/gl/gl.h"

namespace d2t {

/// A shader storage buffer, written once; owned.
class GlBuffer {
 public:
  GlBuffer() = default;
  /// Uploads `bytes` bytes (at least 16 are allocated: GL refuses to bind an empty buffer).
  GlBuffer(const void* data, size_t bytes);
  template <class T>
  explicit GlBuffer(const std::vector<T>& v) : GlBuffer(v.data(), v.size() * sizeof(T)) {}
  ~GlBuffer();
  GlBuffer(GlBuffer&& o) noexcept { *this = std::move(o); }
  GlBuffer& operator=(GlBuffer&& o) noexcept;
  GlBuffer(const GlBuffer&) = delete;
  GlBuffer& operator=(const GlBuffer&) = delete;
  GLuint id() const { return id_; }
  size_t bytes() const { return bytes_; }
  /// Binds it to shader storage binding point `index` (layout(std430, binding = index)).
  void bindStorage(GLuint index) const;

 private:
  GLuint id_ = 0;
  size_t bytes_ = 0;
};

}  // namespace d2t
