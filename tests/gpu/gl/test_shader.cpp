// GL layer on a headless EGL context: shader errors name the file and line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

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

// The context offers what the GPU solver asks for (AtlasPasses checks it at run time and
// falls back; here it must hold, or every GPU test would test the fallback): OpenGL 4.3,
// 8 draw buffers, 16 texture units, complete float render targets.
TEST_F(GlTest, ContextOffersWhatTheGpuSolverNeeds) {
  GLint major = 0, minor = 0, drawBuffers = 0, units = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &units);
  std::printf("%s: OpenGL %d.%d, %d draw buffers, %d texture units\n", glRenderer().c_str(), major, minor,
              drawBuffers, units);
  EXPECT_GE(major * 10 + minor, 43);
  EXPECT_GE(drawBuffers, 8);
  EXPECT_GE(units, 16);
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

// Every program the code builds compiles and links, and every shader file in shaders/ is
// in one of them (a new file must be added here). The programs are those of renderer.cpp,
// gpu_skin.cpp, gpu_cg.cpp, gpu_contact_rows.cpp, gpu_detection.cpp, gpu_summary.cpp,
// atlas_passes.cpp and contact_camera.cpp.
TEST_F(GlTest, ShippedShadersCompile) {
  struct Program {
    const char *vert, *frag, *defines;
  };
  const char* pass = "d2t/pass.vert";
  const Program programs[] = {
      {"mesh.vert", "mesh.frag", ""},
      {"shadow.vert", "shadow.frag", ""},
      {"mesh.vert", "mesh.frag", "#define SKIN_TEXTURES"},
      {"shadow.vert", "shadow.frag", "#define SKIN_TEXTURES"},
      {"lines.vert", "lines.frag", ""},
      {pass, "d2t/forces.frag", ""},
      {pass, "d2t/coupling.frag", ""},
      {pass, "d2t/velocities.frag", ""},
      {pass, "d2t/copy.frag", ""},
      {pass, "d2t/surface.frag", ""},
      {pass, "d2t/normals.frag", ""},
      {pass, "d2t/response_condense.frag", ""},
      {pass, "d2t/response_energy.frag", ""},
      {pass, "d2t/response_apply.frag", ""},
      {"d2t/scatter.vert", "d2t/scatter.frag", ""},
      {"d2t/gather.vert", "d2t/gather.frag", ""},
      {pass, "d2t/stencil.frag", ""},
      {pass, "d2t/cg_precondition.frag", ""},
      {pass, "d2t/cg_update.frag", ""},
      {pass, "d2t/cg_direction.frag", ""},
      {pass, "d2t/cg_dots.frag", ""},
      {pass, "d2t/mg_multiply.frag", ""},
      {pass, "d2t/mg_smooth.frag", ""},
      {pass, "d2t/rows.frag", ""},
      {pass, "d2t/rows_round.frag", ""},
      {pass, "d2t/rows_impulse.frag", ""},
      {pass, "d2t/rows_friction.frag", ""},
      {"d2t/rows_scatter.vert", "d2t/scatter.frag", ""},
      {pass, "d2t/detect.frag", ""},
      {pass, "d2t/core_contact.frag", ""},
      {pass, "d2t/summary.frag", ""},
      {pass, "d2t/reduce.frag", ""},
      {"d2t/contact_depth.vert", "d2t/contact_depth.frag", ""},
      {pass, "d2t/contact_difference.frag", ""},
      {"d2t/contact_map.vert", "d2t/contact_map.frag", ""},
  };
  std::set<std::string> used;
  for (const Program& p : programs) {
    EXPECT_NO_THROW(ShaderProgram(p.vert, p.frag, p.defines)) << p.vert << " + " << p.frag << " " << p.defines;
    used.insert(p.vert);
    used.insert(p.frag);
  }
  namespace fs = std::filesystem;
  const fs::path root = shaderDirectory();
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string ext = e.path().extension().string();
    if (ext != ".vert" && ext != ".frag") continue;
    ++files;
    EXPECT_TRUE(used.count(fs::relative(e.path(), root).generic_string())) << e.path() << " is in no program here";
  }
  EXPECT_EQ(files, 41);  // (a file that went missing)
}
