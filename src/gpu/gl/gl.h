#pragma once
// OpenGL through GLEW, plus the error type of the GPU layer.
#include <GL/glew.h>

#include <stdexcept>
#include <string>

namespace d2t {

/// A failure of the GPU layer (context, shader, framebuffer). what() is the full message.
class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws GlError naming `where` when glGetError() reports an error.
void checkGl(const char* where);

/// Loads GL entry points into the current context (GLEW). Must follow context creation.
void loadGlFunctions();

/// GL_RENDERER / GL_VERSION strings of the current context.
std::string glRenderer();
std::string glVersion();

}  // namespace d2t
