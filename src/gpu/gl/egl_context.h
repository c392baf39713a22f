#pragma once
// Headless OpenGL context through EGL, no window and no display server:
//  - the EGL device platform when a hardware GPU is present (NVIDIA),
//  - Mesa's surfaceless platform otherwise (llvmpipe: OpenGL 4.5 core).
// D2T_EGL_PLATFORM=device|surfaceless forces one.
#include <memory>
#include <string>

namespace d2t {

class EglContext {
 public:
  /// Creates an OpenGL core context (4.5, else 4.3, else 3.3), makes it current and loads GL.
  /// Throws GlError with the reason when no context can be had.
  static std::unique_ptr<EglContext> create();
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  /// Which EGL platform was used ("device" or "surfaceless").
  const std::string& platform() const { return platform_; }

 private:
  EglContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  std::string platform_;
};

}  // namespace d2t
