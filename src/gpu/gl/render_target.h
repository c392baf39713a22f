#pragma once
// Offscreen framebuffers: the colour target every frame is drawn into
// (windowed and headless alike), and the depth-only shadow map.
#include <cstdint>
#include <vector>

#include "gpu/gl/gl.h"

namespace d2t {

/// RGBA8 colour texture + 24-bit depth, complete or throws GlError.
class RenderTarget {
 public:
  RenderTarget() = default;
  ~RenderTarget();
  RenderTarget(const RenderTarget&) = delete;
  RenderTarget& operator=(const RenderTarget&) = delete;

  /// (Re)allocates when the size changed.
  void resize(int width, int height);
  void bind() const;
  int width() const { return width_; }
  int height() const { return height_; }
  GLuint framebuffer() const { return fbo_; }
  GLuint colorTexture() const { return color_; }
  /// Reads the colour back as tightly packed RGB rows, top row first.
  std::vector<uint8_t> readRgb() const;

 private:
  void release();
  GLuint fbo_ = 0, color_ = 0, depth_ = 0;
  int width_ = 0, height_ = 0;
};

/// Depth texture with hardware comparison for shadow lookups.
class ShadowMap {
 public:
  explicit ShadowMap(int size = 2048);
  ~ShadowMap();
  ShadowMap(const ShadowMap&) = delete;
  ShadowMap& operator=(const ShadowMap&) = delete;
  void bind() const;
  GLuint texture() const { return depth_; }
  int size() const { return size_; }

 private:
  GLuint fbo_ = 0, depth_ = 0;
  int size_;
};

/// Throws GlError describing an incomplete framebuffer.
void checkFramebuffer(const char* what);

}  // namespace d2t
