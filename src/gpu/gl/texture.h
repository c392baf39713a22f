#pragma once
// A GL texture the program owns (the D2T fields, the contact camera's images).
#include <functional>

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

/// Hears of every GlTexture's deletion, just before it happens, for as long as it lives.
/// GL hands a deleted texture's name out again (NVIDIA's driver at once), so a cache keyed
/// by texture names (AtlasPasses's framebuffers) must forget the name: a new texture with
/// it would find a framebuffer whose attachment was taken away with the old texture (an
/// incomplete framebuffer) or still holds the old texture's storage (a silent write into
/// it). Declare it as its owner's last member: it then stops listening before the owner's
/// other members are destroyed. (The program makes one GL context at a time, whose names
/// these are.)
class TextureDeletionWatch {
 public:
  explicit TextureDeletionWatch(std::function<void(GLuint)> onDelete);
  ~TextureDeletionWatch();
  TextureDeletionWatch(const TextureDeletionWatch&) = delete;
  TextureDeletionWatch& operator=(const TextureDeletionWatch&) = delete;

 private:
  friend class GlTexture;
  static void deleting(GLuint id);
  std::function<void(GLuint)> onDelete_;
};

}  // namespace d2t
