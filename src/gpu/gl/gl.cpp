#include "gpu/gl/gl.h"

namespace d2t {

void checkGl(const char* where) {
  const GLenum e = glGetError();
  if (e == GL_NO_ERROR) return;
  const char* name = "unknown";
  switch (e) {
    case GL_INVALID_ENUM: name = "GL_INVALID_ENUM"; break;
    case GL_INVALID_VALUE: name = "GL_INVALID_VALUE"; break;
    case GL_INVALID_OPERATION: name = "GL_INVALID_OPERATION"; break;
    case GL_INVALID_FRAMEBUFFER_OPERATION: name = "GL_INVALID_FRAMEBUFFER_OPERATION"; break;
    case GL_OUT_OF_MEMORY: name = "GL_OUT_OF_MEMORY"; break;
    default: break;
  }
  throw GlError(std::string("OpenGL error ") + name + " in " + where);
}

void loadGlFunctions() {
  glewExperimental = GL_TRUE;
  const GLenum r = glewInit();
  // In an EGL context GLEW loads every entry point and then fails to find a GLX
  // display (GLEW_ERROR_NO_GLX_DISPLAY = 4): that is success for us.
  if (r != GLEW_OK && r != 4)
    throw GlError(std::string("glewInit failed: ") +
                  reinterpret_cast<const char*>(glewGetErrorString(r)));
  if (!glGenFramebuffers || !glCreateShader || !glGenVertexArrays)
    throw GlError("OpenGL entry points missing after glewInit (need OpenGL 3.3 core or newer)");
  while (glGetError() != GL_NO_ERROR) {
  }  // glewInit may leave GL_INVALID_ENUM in core profiles
}

std::string glRenderer() {
  const GLubyte* s = glGetString(GL_RENDERER);
  return s ? reinterpret_cast<const char*>(s) : "unknown";
}

std::string glVersion() {
  const GLubyte* s = glGetString(GL_VERSION);
  return s ? reinterpret_cast<const char*>(s) : "unknown";
}

}  // namespace d2t
