#include "gpu/gl/render_target.h"

#include <algorithm>
#include <string>

namespace d2t {

void checkFramebuffer(const char* what) {
  const GLenum s = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (s == GL_FRAMEBUFFER_COMPLETE) return;
  throw GlError(std::string("framebuffer '") + what + "' is incomplete (status 0x" +
                [s] { char b[16]; snprintf(b, sizeof b, "%x", s); return std::string(b); }() + ")");
}

RenderTarget::~RenderTarget() { release(); }

void RenderTarget::release() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (color_) glDeleteTextures(1, &color_);
  if (depth_) glDeleteRenderbuffers(1, &depth_);
  fbo_ = color_ = depth_ = 0;
}

void RenderTarget::resize(int width, int height) {
  if (width == width_ && height == height_ && fbo_) return;
  release();
  width_ = width;
  height_ = height;
  glGenTextures(1, &color_);
  glBindTexture(GL_TEXTURE_2D, color_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glGenRenderbuffers(1, &depth_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  checkFramebuffer("scene colour target");
  checkGl("RenderTarget::resize");
}

void RenderTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
}

std::vector<uint8_t> RenderTarget::readRgb() const {
  std::vector<uint8_t> rows(size_t(width_) * height_ * 3);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGB, GL_UNSIGNED_BYTE, rows.data());
  checkGl("RenderTarget::readRgb");
  // GL's first row is the bottom one
  std::vector<uint8_t> flipped(rows.size());
  const size_t stride = size_t(width_) * 3;
  for (int y = 0; y < height_; ++y)
    std::copy_n(&rows[size_t(height_ - 1 - y) * stride], stride, &flipped[size_t(y) * stride]);
  return flipped;
}

ShadowMap::ShadowMap(int size) : size_(size) {
  glGenTextures(1, &depth_);
  glBindTexture(GL_TEXTURE_2D, depth_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT, GL_FLOAT,
               nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
  const float border[4] = {1, 1, 1, 1};
  glTexParameterfv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, border);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth_, 0);
  glDrawBuffer(GL_NONE);
  glReadBuffer(GL_NONE);
  checkFramebuffer("shadow map");
  checkGl("ShadowMap");
}

ShadowMap::~ShadowMap() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (depth_) glDeleteTextures(1, &depth_);
}

void ShadowMap::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, size_, size_);
}

}  // namespace d2t
