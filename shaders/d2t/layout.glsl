// The layouts and constants that C++ and the shaders share, written once. Included
// by the shaders (#include "layout.glsl", through the shader loader) and by C++
// (#include "d2t/layout.glsl": src/sim/model/atlas.h, src/gpu/skin/gpu_skin.h,
// src/gpu/contact/contact_camera.cpp). Only comments and #define lines, which mean
// the same in both languages; the C++ and GLSL constants are made from them.
#ifndef D2T_LAYOUT_GLSL
#define D2T_LAYOUT_GLSL

// ---- the 7-slot stencil (docs/design.md sec. 5; Fragment Programs E.1-E.2) ----------
// Slot k of a node reads the texel at (x + dx_k, y + dy_k): the node itself, then its
// six mesh neighbours (0,+1) (+1,0) (+1,-1) (0,-1) (-1,0) (-1,+1).
#define D2T_STENCIL_SLOTS 7
#define D2T_STENCIL_DX 0, 0, 1, 1, 0, -1, -1
#define D2T_STENCIL_DY 0, 1, 0, -1, -1, 0, 1
// A 3x3 block per slot is stored as rows in a texture array: layer
// D2T_BLOCK_LAYER(k, r) holds row r of slot k's block (K_e; Mh_e^-1 and the coupling
// columns use slot 0 only).
#define D2T_BLOCK_LAYER(k, r) (3 * (k) + (r))

// ---- detection against planes and height fields (detect.frag) ----------------------
// The most colliders one detection pass takes; with more the CPU detects.
#define D2T_MAX_DETECTED_COLLIDERS 8

// ---- sentinels ---------------------------------------------------------------------
// What a texel without a value writes into a max reduction (the lowest float, not
// -inf: a max of infinities is undefined in GLSL).
#define D2T_LOWEST -3.0e38
// The contact camera's contact texture where one of the two skins is missing
// (contact_difference.frag); anything below D2T_NO_CONTACT_BELOW reads as missing.
#define D2T_NO_CONTACT -1.0e30
#define D2T_NO_CONTACT_BELOW -1.0e29

#endif
