#pragma once
// HiDPI for the panels: the window's content scale, and the ImGui style and
// font rebuilt for it (at start, and whenever the window moves to a monitor
// with another scale).
struct GLFWwindow;

namespace d2t {

/// The window's content scale (the larger of x and y), clamped to [1, 4].
float windowUiScale(GLFWwindow* window);

/// Sets ImGui's style (dark, every size times `scale`) and rasterises its default
/// font at 13 * scale pixels: sharp, unlike FontGlobalScale. Starts from the
/// unscaled style each time, so that scales never compound. With `uploadFont`
/// (the OpenGL3 backend initialised, between frames) the font texture is
/// rebuilt too; before the first frame the backend builds it itself.
void applyUiScale(float scale, bool uploadFont);

}  // namespace d2t
