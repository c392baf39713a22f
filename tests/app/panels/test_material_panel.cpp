// The Bodies panel's material sliders, driven as the mouse drives them: press on
// Young's modulus, drag, release. The edit must apply the value the slider showed
// when it was let go (ImGui does not write a slider on its release frame: the
// panel once applied the old value again, and a dragged stiffness never changed).
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include "app/panels/material_panel.h"

using namespace d2t;

namespace {

struct Frame {
  ImVec2 sliderMin, sliderMax;  // Young's modulus's slider
  std::optional<Material> edited;
};

Frame frame(const Material& current, std::optional<Material>& held, ImVec2 mouse, bool down) {
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = 1.0f / 60;
  io.MousePos = mouse;
  io.MouseDown[0] = down;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(400, 300));
  ImGui::Begin("material");
  Frame f;
  f.sliderMin = ImGui::GetCurrentWindow()->DC.CursorStartPos;  // the first item: Young's modulus
  f.sliderMax = ImVec2(f.sliderMin.x + ImGui::CalcItemWidth(), f.sliderMin.y + ImGui::GetFrameHeight());
  f.edited = materialSliders(current, held);
  ImGui::End();
  ImGui::Render();
  return f;
}

}  // namespace

TEST(MaterialPanel, DraggedSliderAppliesTheValueItShowedWhenReleased) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(800, 600);
  io.IniFilename = nullptr;
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  Material current;
  current.young = 4e4;
  std::optional<Material> held;
  const Frame f0 = frame(current, held, ImVec2(-1, -1), false);
  EXPECT_FALSE(f0.edited);
  const float y = 0.5f * (f0.sliderMin.y + f0.sliderMax.y);
  auto at = [&](float s) { return ImVec2(f0.sliderMin.x + s * (f0.sliderMax.x - f0.sliderMin.x), y); };
  frame(current, held, at(0.7f), false);  // hover
  EXPECT_FALSE(frame(current, held, at(0.7f), true).edited);  // press: held, nothing applied yet
  ASSERT_TRUE(held);
  const double pressed = held->young;
  for (float s : {0.6f, 0.5f, 0.4f, 0.3f}) EXPECT_FALSE(frame(current, held, at(s), true).edited);  // drag
  ASSERT_TRUE(held);
  const double dragged = held->young;
  const Frame released = frame(current, held, at(0.3f), false);
  ASSERT_TRUE(released.edited);
  EXPECT_EQ(released.edited->young, dragged);  // what the slider showed, not `current`
  EXPECT_FALSE(held);
  // the log slider over [1e2, 1e8]: 0.7 of the way is ~1.6e6 and 0.3 ~6e3 (less the grab's width)
  EXPECT_GT(pressed, 1e5);
  EXPECT_LT(dragged, 3e4);
  EXPECT_LT(dragged, pressed);
  EXPECT_EQ(released.edited->poisson, current.poisson);  // the other values untouched
  EXPECT_EQ(released.edited->density, current.density);
  // a frame later nothing is pending
  EXPECT_FALSE(frame(current, held, at(0.3f), false).edited);
  ImGui::DestroyContext();
}
