#include "gpu/gl/shader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace d2t {

namespace fs = std::filesystem;

std::string shaderDirectory() {
  if (const char* env = std::getenv("D2T_SHADER_DIR")) return env;
  return D2T_SHADER_DIR;
}

namespace {

void appendFile(const std::string& path, ShaderSource& out, int depth, const std::string& defines,
                bool top) {
  if (depth > 16) throw GlError(path + ": #include nested too deeply (a cycle?)");
  std::ifstream in(path);
  if (!in) throw GlError(path + ": cannot open shader file");
  std::string line;
  int number = 0;
  static const std::regex includeRe(R"(^\s*#\s*include\s+\"([^\"]+)\"\s*$)");
  while (std::getline(in, line)) {
    ++number;
    std::smatch m;
    if (std::regex_match(line, m, includeRe)) {
      const fs::path inc = fs::path(path).parent_path() / m[1].str();
      appendFile(inc.string(), out, depth + 1, defines, false);
      continue;
    }
    out.text += line + "\n";
    out.lineOrigin.emplace_back(path, number);
    if (top && line.rfind("#version", 0) == 0 && !defines.empty()) {
      std::istringstream d(defines);
      std::string dl;
      while (std::getline(d, dl)) {
        out.text += dl + "\n";
        out.lineOrigin.emplace_back("<defines>", 0);
      }
    }
  }
}

}  // namespace

ShaderSource loadShaderSource(const std::string& file, const std::string& defines) {
  const std::string path = fs::path(file).is_absolute() ? file : (fs::path(shaderDirectory()) / file).string();
  ShaderSource s;
  appendFile(path, s, 0, defines, true);
  return s;
}

std::string ShaderSource::mapLog(const std::string& log) const {
  // Mesa: "0:12(3): error: ..."; NVIDIA: "0(12) : error C0000: ..."
  static const std::regex mesa(R"(^\s*\d+:(\d+)\(\d+\):\s*(.*)$)");
  static const std::regex nvidia(R"(^\s*\d+\((\d+)\)\s*:\s*(.*)$)");
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, mesa) || std::regex_match(line, m, nvidia)) {
      const int n = std::stoi(m[1].str());
      if (n >= 1 && n <= int(lineOrigin.size())) {
        const auto& o = lineOrigin[n - 1];
        out += o.first + ":" + std::to_string(o.second) + ": " + m[2].str() + "\n";
        continue;
      }
    }
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

namespace {

// the info log of a shader or a program object
template <typename GetIv, typename GetLog>
std::string infoLog(GLuint id, GetIv getIv, GetLog getLog) {
  GLint len = 0;
  getIv(id, GL_INFO_LOG_LENGTH, &len);
  std::string log(std::max(len, 1), '\0');
  getLog(id, len, nullptr, log.data());
  return log.c_str();
}

GLuint compile(GLenum stage, const ShaderSource& src) {
  GLuint s = glCreateShader(stage);
  const char* text = src.text.c_str();
  glShaderSource(s, 1, &text, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = infoLog(s, glGetShaderiv, glGetShaderInfoLog);
    glDeleteShader(s);
    const std::string file = src.lineOrigin.empty() ? "?" : src.lineOrigin.front().first;
    throw GlError("shader compile error in " + file + " (GL " + glVersion() + "):\n" +
                  src.mapLog(log));
  }
  return s;
}

}  // namespace

ShaderProgram::ShaderProgram(const std::string& vertexFile, const std::string& fragmentFile,
                             const std::string& defines) {
  const ShaderSource vs = loadShaderSource(vertexFile, defines);
  const ShaderSource fsrc = loadShaderSource(fragmentFile, defines);
  GLuint v = compile(GL_VERTEX_SHADER, vs);
  GLuint f = 0;
  try {
    f = compile(GL_FRAGMENT_SHADER, fsrc);
  } catch (...) {
    glDeleteShader(v);
    throw;
  }
  id_ = glCreateProgram();
  glAttachShader(id_, v);
  glAttachShader(id_, f);
  glLinkProgram(id_);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = infoLog(id_, glGetProgramiv, glGetProgramInfoLog);
    glDeleteProgram(id_);
    id_ = 0;
    throw GlError("shader link error (" + vertexFile + " + " + fragmentFile + "):\n" + log);
  }
  files_ = vertexFile + " + " + fragmentFile;
  // the declared names: "uniform [precision] type name[N], name2;" (blocks are not used)
  static const std::regex declaration(R"(\buniform\s+(?:(?:lowp|mediump|highp)\s+)?\w+\s+([^;{]+);)");
  static const std::regex name(R"((\w+)\s*(?:\[[^\]]*\])?)");
  for (const ShaderSource* src : {&vs, &fsrc})
    for (std::sregex_iterator it(src->text.begin(), src->text.end(), declaration), end; it != end; ++it) {
      const std::string list = (*it)[1].str();
      for (std::sregex_iterator n(list.begin(), list.end(), name); n != end; ++n) declared_.push_back((*n)[1].str());
    }
  std::sort(declared_.begin(), declared_.end());
}

GLint ShaderProgram::uniform(const char* name) const {
  const GLint at = glGetUniformLocation(id_, name);
  if (at >= 0) return at;
  std::string base(name);
  base = base.substr(0, base.find_first_of("[."));
  if (!std::binary_search(declared_.begin(), declared_.end(), base))
    throw GlError("shader program (" + files_ + "): no uniform '" + name + "' is declared in its sources");
  return at;
}

ShaderProgram::~ShaderProgram() {
  if (id_) glDeleteProgram(id_);
}

ShaderProgram::ShaderProgram(ShaderProgram&& o) noexcept
    : id_(o.id_), files_(std::move(o.files_)), declared_(std::move(o.declared_)) {
  o.id_ = 0;
}

ShaderProgram& ShaderProgram::operator=(ShaderProgram&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteProgram(id_);
    id_ = o.id_;
    o.id_ = 0;
    files_ = std::move(o.files_);
    declared_ = std::move(o.declared_);
  }
  return *this;
}

void ShaderProgram::set(const char* name, const Vec3& v) const {
  glUniform3f(uniform(name), float(v.x()), float(v.y()), float(v.z()));
}

void ShaderProgram::set(const char* name, const Mat3& m) const {
  const Eigen::Matrix3f f = m.cast<float>();  // (column-major, as GL takes it)
  glUniformMatrix3fv(uniform(name), 1, GL_FALSE, f.data());
}

}  // namespace d2t
