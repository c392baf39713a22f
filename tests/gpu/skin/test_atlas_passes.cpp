// AtlasPasses' framebuffers, kept per set of target textures, against texture names that
// GL hands out again: NVIDIA's driver reuses a deleted texture's name at once, and a
// framebuffer found by the old name then has no attachment (GL_INVALID_FRAMEBUFFER_OPERATION
// at the next draw: the first real-GPU run of the multigrid test) or writes into the old
// texture's storage. Each temporary target must leave no framebuffer behind, and a pass
// into a texture that took a deleted one's name must land in the new texture. (On an
// NVIDIA H100 every one of the 40 temporaries took the first one's name; llvmpipe hands out
// new names, where the framebuffer count is what fails without the fix.)
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <vector>

#include "gl_test.h"
#include "gpu/skin/atlas_passes.h"
#include "sim/test_shapes.h"

namespace d2t {
namespace {

using AtlasPassesTest = test::GlTest;

std::array<float, 4> firstTexel(const GlTexture& t) {
  std::vector<float> texels(size_t(t.width()) * size_t(t.height()) * 4);
  glBindTexture(GL_TEXTURE_2D, t.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels.data());
  checkGl("reading a test target back");
  return {texels[0], texels[1], texels[2], texels[3]};
}

TEST_F(AtlasPassesTest, TemporaryTargetsLeaveNoFramebufferBehindAndTheirNamesDrawIntoTheNewTexture) {
  AtlasPasses passes(bake(test::ball(0.5, 16, 1e5)));
  const GlTexture kept = passes.newField();
  passes.bindTargets({{kept.id(), -1}});
  const size_t before = passes.framebufferCount();
  std::vector<GLuint> names;
  int reused = 0;
  for (int k = 1; k <= 40; ++k) {
    const GlTexture t = passes.newField();
    bool taken = false;  // (the name of an earlier temporary, deleted)
    for (GLuint n : names) taken = taken || n == t.id();
    reused += taken ? 1 : 0;
    names.push_back(t.id());
    passes.bindTargets({{t.id(), -1}, {kept.id(), -1}});
    const std::array<float, 4> value = {float(k), 0.5f, -float(k), 1.0f};
    glClearBufferfv(GL_COLOR, 0, value.data());
    checkGl("clearing a temporary target");
    EXPECT_EQ(firstTexel(t), value) << "temporary " << k << " (texture name " << t.id() << ")";
  }  // (each t deleted here, its framebuffer bound)
  std::printf("40 temporary targets: %d of them took a deleted texture's name; framebuffers %zu before, %zu after\n",
              reused, before, passes.framebufferCount());
  EXPECT_EQ(passes.framebufferCount(), before);
  // the kept texture's own framebuffer still draws into it
  passes.bindTargets({{kept.id(), -1}});
  const std::array<float, 4> value = {7.0f, 8.0f, 9.0f, 1.0f};
  glClearBufferfv(GL_COLOR, 0, value.data());
  EXPECT_EQ(firstTexel(kept), value);
}

}  // namespace
}  // namespace d2t
