#include "app/window/ui_scale.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>

namespace d2t {

float windowUiScale(GLFWwindow* window) {
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window, &sx, &sy);
  return std::clamp(std::max(sx, sy), 1.0f, 4.0f);
}

void applyUiScale(float scale, bool uploadFont) {
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig font;
  font.SizePixels = std::round(13.0f * scale);
  io.Fonts->AddFontDefault(&font);
  if (uploadFont) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
}

}  // namespace d2t
