#pragma once
// A headless OpenGL context shared by the tests of one suite (EGL: the GPU's
// device platform, else Mesa's surfaceless llvmpipe).
#include <gtest/gtest.h>

#include <memory>

#include "gpu/gl/egl_context.h"

namespace d2t::test {

class GlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context() = EglContext::create(); }
  static void TearDownTestSuite() { context().reset(); }

 private:
  static std::unique_ptr<EglContext>& context() {
    static std::unique_ptr<EglContext> c;
    return c;
  }
};

}  // namespace d2t::test
