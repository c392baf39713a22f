#include "gpu/gl/egl_context.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/gl/gl.h"

namespace d2t {

namespace {

bool hasExtension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = std::strstr(list, name); p; p = std::strstr(p + 1, name))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

// A display on a hardware EGL device, or EGL_NO_DISPLAY.
EGLDisplay hardwareDeviceDisplay() {
  auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto queryDeviceString =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  auto getPlatformDisplay =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!queryDevices || !getPlatformDisplay) return EGL_NO_DISPLAY;
  EGLint count = 0;
  if (!queryDevices(0, nullptr, &count) || count <= 0) return EGL_NO_DISPLAY;
  std::vector<EGLDeviceEXT> devices(count);
  queryDevices(count, devices.data(), &count);
  for (EGLDeviceEXT d : devices) {
    const char* ext = queryDeviceString ? queryDeviceString(d, EGL_EXTENSIONS) : nullptr;
    if (hasExtension(ext, "EGL_MESA_device_software")) continue;  // llvmpipe: use surfaceless
    EGLDisplay dpy = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, d, nullptr);
    if (dpy != EGL_NO_DISPLAY) return dpy;
  }
  return EGL_NO_DISPLAY;
}

EGLDisplay surfacelessDisplay() {
  auto getPlatformDisplay =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!getPlatformDisplay) return EGL_NO_DISPLAY;
  return getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
}

}  // namespace

std::unique_ptr<EglContext> EglContext::create() {
  std::unique_ptr<EglContext> c(new EglContext());
  const char* force = std::getenv("D2T_EGL_PLATFORM");
  const std::string want = force ? force : "";
  EGLDisplay dpy = EGL_NO_DISPLAY;
  if (want != "surfaceless") {
    dpy = hardwareDeviceDisplay();
    c->platform_ = "device";
  }
  EGLint major = 0, minor = 0;
  if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, &major, &minor)) dpy = EGL_NO_DISPLAY;
  if (dpy == EGL_NO_DISPLAY && want != "device") {
    dpy = surfacelessDisplay();
    c->platform_ = "surfaceless";
    if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, &major, &minor)) dpy = EGL_NO_DISPLAY;
  }
  if (dpy == EGL_NO_DISPLAY)
    throw GlError("no headless OpenGL: neither an EGL GPU device nor Mesa's surfaceless EGL "
                  "platform could be initialised (install libegl-mesa0 and libgl1-mesa-dri)");
  c->display_ = dpy;
  if (!eglBindAPI(EGL_OPENGL_API)) throw GlError("EGL: eglBindAPI(EGL_OPENGL_API) failed");

  const EGLint configAttribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8,
                                  EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_DEPTH_SIZE, 24,
                                  EGL_NONE};
  EGLConfig config = nullptr;
  EGLint numConfigs = 0;
  if (!eglChooseConfig(dpy, configAttribs, &config, 1, &numConfigs) || numConfigs < 1) {
    // surfaceless displays may offer configs without a depth buffer; we render to FBOs anyway
    const EGLint minimal[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    if (!eglChooseConfig(dpy, minimal, &config, 1, &numConfigs) || numConfigs < 1)
      config = nullptr;
  }
  const int versions[][2] = {{4, 6}, {4, 5}, {4, 3}, {3, 3}};
  for (const auto& v : versions) {
    const EGLint ctxAttribs[] = {EGL_CONTEXT_MAJOR_VERSION, v[0], EGL_CONTEXT_MINOR_VERSION, v[1],
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                 EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctxAttribs);
    if (ctx != EGL_NO_CONTEXT) {
      c->context_ = ctx;
      break;
    }
  }
  if (!c->context_) throw GlError("EGL: cannot create an OpenGL 3.3+ core context");
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, static_cast<EGLContext>(c->context_)))
    throw GlError("EGL: eglMakeCurrent without a surface failed (EGL_KHR_surfaceless_context missing?)");
  loadGlFunctions();
  return c;
}

EglContext::~EglContext() {
  if (display_) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_) eglDestroyContext(display_, static_cast<EGLContext>(context_));
    eglTerminate(display_);
  }
}

}  // namespace d2t
