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

// ---- the static textures' channels ---------------------------------------------------
// uRest (common.glsl; GpuSkin::uploadStaticFields): per node texel (ub, m), the rest skin
// position (body frame) [m] in channels 0-2 and the node's mass [kg] in this channel
// (0 off nodes)
#define D2T_REST_MASS 3
// The triangles around each node (nodeTriangleTexture; normals.frag, contact_map.frag):
// a texture array of D2T_AROUND_LAYERS layers of 4 ints, the node's triangle ids (-1: none)
#define D2T_AROUND_LAYERS 2

// ---- the passes' outputs: what each layout location holds --------------------------
// A pass's output at location L is its draw's L-th target; where the pass writes terms
// of a sum, GpuSkin reduces location L's terms in terms_[L] into the 1 x 1 sums_[L].
// Body frame unless said; u = ub + q; w a node's mass on node texels, 0 on gutters.

// forces.frag (step 1): the force terms, then the terms of the core sums (.xyz each)
#define D2T_FORCES_Z 0            // z = q + (beta + dt) qdot
#define D2T_FORCES_MA 1           // m (alpha qdot + a) - s (s: the node's external force)
#define D2T_FORCES_SUM_MQ 2       // w q
#define D2T_FORCES_SUM_MQDOT 3    // w qdot
#define D2T_FORCES_SUM_MA 4       // w a
#define D2T_FORCES_SUM_MUXA 5     // w u x a
#define D2T_FORCES_SUM_UU_DIAG 6  // w (u u^T - ub ub^T): the diagonal
#define D2T_FORCES_SUM_UU_OFF 7   // ... its (xy, xz, yz)
#define D2T_FORCES_OUTPUTS 8

// cg_precondition.frag and cg_update.frag: the channels of the CG's dot products
#define D2T_CG_RZ 0  // r . z
#define D2T_CG_RR 1  // r . r
#define D2T_CG_BB 2  // b . b (cg_precondition.frag only)

// coupling.frag (step 3): the skin-state parts of M_ce y and M_ce Y (.xyz each)
#define D2T_COUPLING_MY 0      // pass A: w y'
#define D2T_COUPLING_MUXY 1    //         w u x y'
#define D2T_COUPLING_QXWT 2    //         w q x W_t[j], j = 0..2 (locations 2..4)
#define D2T_COUPLING_QXWR 5    //         w q x W_r[j], j = 0..2 (locations 5..7)
#define D2T_COUPLING_H 0       // pass B: w m h_k, h_k = Mh^-1 (q x e_k), k = 0..2
#define D2T_COUPLING_UXH 3     //         w m u x h_k, k = 0..2
#define D2T_COUPLING_OUTPUTS 8

// velocities.frag (step 4) and response_apply.frag (step 13): the new skin state and
// the terms of its first moments (.xyz)
#define D2T_STATE_QDOT 0
#define D2T_STATE_Q 1
#define D2T_STATE_SUM_MQ 2     // w q
#define D2T_STATE_SUM_MQDOT 3  // w qdot
#define D2T_STATE_OUTPUTS 4

// response_condense.frag (step 9), rows r = 0..2 of 3x3 matrices with H = m^2 Mh^-1:
// location D2T_CONDENSE_HQ + r: (row r of H [q]x, sym), D2T_CONDENSE_BHQ + r: (row r of
// [ub]x H [q]x, sym); the six .w hold [q]x H [q]x's (0,0) (0,1) (0,2) (1,1) (1,2) (2,2)
#define D2T_CONDENSE_HQ 0
#define D2T_CONDENSE_BHQ 3
#define D2T_CONDENSE_OUTPUTS 6

// The contact rows (rows_common.glsl): row k's inputs are the layers of uRowIn
// (GpuSkin::setRows), at texel (k mod N, k div N)
#define D2T_ROW_IN_NODE 0     // (node texel index, previous row of the node, next row, release)
#define D2T_ROW_IN_NORMAL 1   // (world unit normal, depth)
#define D2T_ROW_IN_SURFACE 2  // (world surface velocity, start gap)
#define D2T_ROW_IN_LIMITS 3   // (lo, mu, on the body's own core, 0)
#define D2T_ROW_IN_LAYERS 4
// rows.frag (step 9): U_k, D_k, b_k and the row's state
#define D2T_ROWS_U 0      // U_k[0..3]
#define D2T_ROWS_V 1      // (U_k[4..5], D_k, b_k)
#define D2T_ROWS_STATE 2  // (lambda, 1 in the active set, start gap, 0)
#define D2T_ROWS_OUTPUTS 3
// The core's generalised velocities the rows couple to (Core::kDofs of
// src/sim/body/core/rigid_core.h: the GPU solver is the rigid core's): U_k above, the
// round's S and rhs below are packed for it.
#define D2T_CORE_DOFS 6
// rows_round.frag (step 10): the row's state, then 7 locations of 28 terms of the sums:
// S's upper triangle row by row (21), rhs (6), the rows below lo (1)
#define D2T_ROUND_STATE 0
#define D2T_ROUND_TERMS 1
#define D2T_ROUND_TERM_OUTPUTS 7
#define D2T_ROUND_OUTPUTS 8
#define D2T_ROUND_S 0
#define D2T_ROUND_RHS 21
#define D2T_ROUND_BELOW 27
#define D2T_ROUND_TERM_COUNT 28  // = 4 D2T_ROUND_TERM_OUTPUTS
// rows_impulse.frag (step 11): r_k = R^T lambda_k n_k, then the terms of the sums
#define D2T_IMPULSE_R 0
#define D2T_IMPULSE_SUM_F 1    // lambda n (world)
#define D2T_IMPULSE_SUM_UXR 2  // u x R^T lambda n
#define D2T_IMPULSE_SUM_MT 3   // m Mh^-1 r
#define D2T_IMPULSE_SUM_MR 4   // m u x Mh^-1 r
#define D2T_IMPULSE_OUTPUTS 5

// summary.frag (SkinSummary): sums, then maxima (reduce.frag's max mode)
#define D2T_SUMMARY_MQ 0       // (w q, w |qdot|^2)
#define D2T_SUMMARY_MQDOT 1    // (w qdot, q . (K q) / 2)
#define D2T_SUMMARY_MUXQDOT 2  // (w u x qdot, -q . f0)
#define D2T_SUMMARY_UU_A 3     // w (u u^T - ub ub^T): (xx, yy, zz, xy)
#define D2T_SUMMARY_UU_B 4     // ... (xz, yz, 0, 0)
#define D2T_SUMMARY_SUMS 5     // the locations below this one are sums
#define D2T_SUMMARY_MAX 5      // maxima: (|q|, |q| / thickness, |qdot|, -up . u)
#define D2T_SUMMARY_BAD 6      // (1 where q or qdot is not finite, -d . q / h (the crush), 0, 0)
#define D2T_SUMMARY_OUTPUTS 7

// contact_map.frag (the contact camera's pass 4), per patch node: location 0 holds the
// depth [m], 1 where the node collides, and the barycentric (u, v) on the other side's
// triangle, whose id location 1 holds (an int; -1: none)
#define D2T_MAP_DEPTH 0
#define D2T_MAP_HIT 1
#define D2T_MAP_BARY_U 2
#define D2T_MAP_BARY_V 3

// detect.frag's hit record (std430: three 16-byte vectors after the 16-byte counter):
// declared in both languages by D2T_DETECT_HIT(the 4-int type, the 4-float type)
#define D2T_DETECT_HIT(IVEC4, VEC4) \
  IVEC4 id;         /* node texel x, y; collider; 0 */ \
  VEC4 normalDepth; /* world unit normal, depth */ \
  VEC4 velocity;    /* the collider surface's velocity (world), 0 */
#define D2T_DETECT_HITS_OFFSET 16

#endif
