#pragma once
// GLSL programs loaded from files in shaders/, with `#include "file"` and
// compile errors reported as FILE:LINE: message.
#include <string>
#include <vector>

#include "gpu/gl/gl.h"
#include "sim/base/math.h"

namespace d2t {

/// Directory the shaders are read from: $D2T_SHADER_DIR, else the source tree's shaders/.
std::string shaderDirectory();

/// GLSL source assembled from a file and its includes, with a map from the
/// assembled line numbers back to (file, line).
struct ShaderSource {
  std::string text;
  std::vector<std::pair<std::string, int>> lineOrigin;  ///< (assembled line - 1) -> (file, line)
  /// Rewrites a driver info log ("0:12(3): error ..." or "0(12) : error ...") to "FILE:LINE: ...".
  std::string mapLog(const std::string& log) const;
};

/// Reads `file` (relative to shaderDirectory() unless absolute), expanding includes and
/// inserting `defines` after the #version line. Throws GlError naming the file on failure.
ShaderSource loadShaderSource(const std::string& file, const std::string& defines = "");

class ShaderProgram {
 public:
  ShaderProgram() = default;
  /// Compiles and links; throws GlError "FILE:LINE: error ..." with the driver's log.
  ShaderProgram(const std::string& vertexFile, const std::string& fragmentFile,
                const std::string& defines = "");
  ~ShaderProgram();
  ShaderProgram(ShaderProgram&& o) noexcept;
  ShaderProgram& operator=(ShaderProgram&& o) noexcept;
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  GLuint id() const { return id_; }
  void use() const { glUseProgram(id_); }
  /// The location of uniform `name` ("uA", "uA[3]", "uS.member"): -1 where the compiler
  /// dropped it as unused (setting it is then a no-op, as GL has it); throws GlError
  /// naming the program where no source of the program declares it (a misspelt name
  /// would otherwise be set nowhere without a word).
  GLint uniform(const char* name) const;
  /// Sets a vec3 or mat3 uniform of this program (in use), in float.
  void set(const char* name, const Vec3& v) const;
  void set(const char* name, const Mat3& m) const;

 private:
  GLuint id_ = 0;
  std::string files_;                  // "vertex + fragment", for messages
  std::vector<std::string> declared_;  // the uniforms the sources declare, sorted
};

}  // namespace d2t
