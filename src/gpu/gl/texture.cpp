#include "gpu/gl/texture.h"

#include <algorithm>
#include <vector>

namespace d2t {

namespace {
std::vector<TextureDeletionWatch*>& watches() {
  static std::vector<TextureDeletionWatch*> w;  // (GL calls come from one thread)
  return w;
}
}  // namespace

TextureDeletionWatch::TextureDeletionWatch(std::function<void(GLuint)> onDelete) : onDelete_(std::move(onDelete)) {
  watches().push_back(this);
}

TextureDeletionWatch::~TextureDeletionWatch() {
  auto& w = watches();
  w.erase(std::remove(w.begin(), w.end(), this), w.end());
}

void TextureDeletionWatch::deleting(GLuint id) {
  for (TextureDeletionWatch* w : watches()) w->onDelete_(id);
}

GlTexture::GlTexture(int width, int height, int layers, GLenum internalFormat)
    : width_(width), height_(height), layers_(layers) {
  const GLenum target = layers > 0 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
  glGenTextures(1, &id_);
  glBindTexture(target, id_);
  if (layers > 0)
    glTexStorage3D(target, 1, internalFormat, width, height, layers);
  else
    glTexStorage2D(target, 1, internalFormat, width, height);
  glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  checkGl("allocating a D2T texture");
}

GlTexture::~GlTexture() {
  if (id_) {
    TextureDeletionWatch::deleting(id_);
    glDeleteTextures(1, &id_);
  }
}

GlTexture& GlTexture::operator=(GlTexture&& o) noexcept {
  if (this != &o) {
    if (id_) {
      TextureDeletionWatch::deleting(id_);
      glDeleteTextures(1, &id_);
    }
    id_ = o.id_;
    width_ = o.width_;
    height_ = o.height_;
    layers_ = o.layers_;
    o.id_ = 0;
  }
  return *this;
}

}  // namespace d2t
