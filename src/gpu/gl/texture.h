#pragma once
// A GL texture the program owns (the D2T fields, the contact camera's images).
#include "gpu/gl/gl.h"

namespace d2t {

/// An RGBA32F (or integer) texture, 2-D or a 2-D array; owned.
class GlTexture {
 public:
  GlTexture() = default;
  GlTexture(int width, int height, int layers, GLenum internalFormat);
  ~GlTexture();
  GlTexture(GlTexture&& o) noexcept { *this = std::move(o); }
  GlTexture& operator=(GlTexture&& o) noexcept;
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;
  GLuint id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int layers() const { return layers_; }  ///< 0: a 2-D texture

 private:
  GLuint id_ = 0;
  int width_ = 0, height_ = 0, layers_ = 0;
};

}  // namespace d2t
