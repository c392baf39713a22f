// GL layer on a headless EGL context: shader errors name the file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gl_test.h"
#include "gpu/gl/render_target.h"
#include "gpu/gl/shader.h"

using namespace d2t;

namespace {

std::string writeShader(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "d2t_shader_test";
  std::filesystem::create_directories(dir);
  const std::string p = (dir / name).string();
  std::ofstream(p) << text;
  return p;
}

using test::GlTest;

}  // namespace

TEST_F(GlTest, ContextIsCoreProfileWithFloatTargets) {
  GLint major = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  EXPECT_GE(major, 3);
  EXPECT_FALSE(glRenderer().empty());
  // float render targets are what the D2T passes render into
  GLuint tex, fbo;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 32, 32, 0, GL_RGBA, GL_FLOAT, nullptr);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  EXPECT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), GLenum(GL_FRAMEBUFFER_COMPLETE));
  glDeleteFramebuffers(1, &fbo);
  glDeleteTextures(1, &tex);
}

TEST_F(GlTest, CompileErrorNamesFileAndLine) {
  const std::string vert = writeShader("ok.vert", "#version 330 core\nvoid main() { gl_Position = vec4(0); }\n");
  const std::string frag = writeShader("broken.frag",
                                       "#version 330 core\nout vec4 c;\nvoid main() {\n  c = vec4(undefinedThing);\n}\n");
  try {
    ShaderProgram p(vert, frag);
    FAIL() << "broken shader compiled";
  } catch (const GlError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(frag + ":4:"), std::string::npos) << m;
    EXPECT_NE(m.find("undefinedThing"), std::string::npos) << m;
  }
}

TEST_F(GlTest, ErrorsInIncludedFilesNameTheIncludedFile) {
  const std::string inc = writeShader("common.glsl", "// helper\nfloat helper() { return missing; }\n");
  const std::string frag = writeShader("uses_include.frag",
                                       "#version 330 core\n#include \"common.glsl\"\nout vec4 c;\nvoid main() { c = vec4(helper()); }\n");
  const std::string vert = writeShader("ok2.vert", "#version 330 core\nvoid main() { gl_Position = vec4(0); }\n");
  try {
    ShaderProgram p(vert, frag);
    FAIL() << "broken include compiled";
  } catch (const GlError& e) {
    EXPECT_NE(std::string(e.what()).find(inc + ":2:"), std::string::npos) << e.what();
  }
}

TEST_F(GlTest, MissingShaderFileIsNamed) {
  try {
    ShaderProgram p("/nonexistent/a.vert", "/nonexistent/a.frag");
    FAIL();
  } catch (const GlError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/a.vert: cannot open shader file"),
              std::string::npos);
  }
}

TEST_F(GlTest, ShippedShadersCompile) {
  EXPECT_NO_THROW(ShaderProgram("mesh.vert", "mesh.frag"));
  EXPECT_NO_THROW(ShaderProgram("shadow.vert", "shadow.frag"));
}
