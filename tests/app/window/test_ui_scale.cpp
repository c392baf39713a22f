// HiDPI: the panels' style and font at the window's content scale, rebuilt
// without compounding when the window moves between monitors.
#include <gtest/gtest.h>

#include <imgui.h>

#include <cmath>

#include "app/window/ui_scale.h"

using namespace d2t;

TEST(UiScale, StyleAndFontFollowTheScaleWithoutCompounding) {
  ImGui::CreateContext();
  ImGuiStyle base;
  ImGui::StyleColorsDark(&base);
  auto check = [&](float scale) {
    const ImGuiStyle& s = ImGui::GetStyle();
    EXPECT_FLOAT_EQ(s.WindowPadding.x, std::floor(base.WindowPadding.x * scale)) << scale;
    EXPECT_FLOAT_EQ(s.ItemSpacing.y, std::floor(base.ItemSpacing.y * scale)) << scale;
    EXPECT_FLOAT_EQ(s.ScrollbarSize, std::floor(base.ScrollbarSize * scale)) << scale;
    const ImFontAtlas& fonts = *ImGui::GetIO().Fonts;
    ASSERT_EQ(fonts.ConfigData.Size, 1) << scale;  // the old font is gone, not kept beside the new one
    EXPECT_FLOAT_EQ(fonts.ConfigData[0].SizePixels, std::round(13.0f * scale)) << scale;
    EXPECT_EQ(s.Colors[ImGuiCol_WindowBg].x, base.Colors[ImGuiCol_WindowBg].x);  // still the dark theme
  };
  applyUiScale(2.0f, false);
  check(2.0f);
  applyUiScale(1.5f, false);  // moved to another monitor: 1.5 of the base, not of 2
  check(1.5f);
  applyUiScale(1.0f, false);
  check(1.0f);
  ImGui::DestroyContext();
}
