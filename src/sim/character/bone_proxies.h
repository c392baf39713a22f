#pragma once
// Stage 1 of a character's collision detection, per bone (dissertation 4.3, Fig. 4.3;
// ../shared/design/ch4-articulated.md stage 7): each bone i carries a convex proxy (about
// 32 points, farthest-point sampled) over its patch of skin, C_i (the corners of the triangles
// T_i that touch a node of V_i, the nodes whose largest weight is bone i's), in its own bind
// coordinates. (The nodes with w_pi > 0, the thesis's set, reach two bones away through the
// weights' tails: in snake_fish's S those nodes sit up to 14 cm from where bone i's rigid motion
// carries them, and the proxies, grown by that, paired 43% of the skin with the fish; decision
// 0032.) At a state the proxy is placed by the bone's rigid motion and grown by a bound on how
// far the skin's displacement and the blend carry C_i's nodes away from that motion:
//
//   x_p - T_i(u_o,p) = sum_{a != i} w_pa (T_a(u_p) - T_i(u_p)) + P_i q_p,   u_p = u_o,p + q_p,
//   T_a(u) - T_i(u)  = T_a(o) - T_i(o) + (P_a - P_i)(u - o)        (any point o),
//   |x_p - T_i(u_o,p)| <= Q_i (1 + sum_a s_ia W_ia) + sum_a (W_ia |T_a(o_ia) - T_i(o_ia)| + s_ia D_ia),
//
// with T_b(u) = c_b + P_b (u - c_b,bind) bone b's rigid map of bind points, s_ia = ||P_a - P_i||
// = 2 sin(theta_ia / 2) (theta_ia: the two bones' relative rotation), Q_i = max |q_p| over C_i,
// W_ia = max w_pa and D_ia = max w_pa |u_o,p - o_ia| over C_i (BoneProxy::Blend). Growing by
// max |q| alone (the thesis's "max u_s") misses the blended nodes; this bound does not, at any
// pose. A sphere per bone and one per character prune the pairs before the GJK distance.
#include <utility>
#include <vector>

#include "sim/base/math.h"
#include "sim/body/core/rigid_core.h"
#include "sim/character/character_model.h"
#include "sim/contact/body_contact.h"

namespace d2t {

/// Fills m.proxies and the nodes' 1-rings (m.ringStart, m.ringTriangle): the bake's last part.
void buildBoneProxies(CharacterModel& m);

/// Each bone's proxy at a state (bones' poses, skin displacement q): world points, margin =
/// the sampling's cover + the growth bound above, and a bounding sphere.
std::vector<PlacedProxy> placeBoneProxies(const CharacterModel& m, const std::vector<CoreState>& bones,
                                          const std::vector<Vec3>& q);

/// Each bone's placed proxy grown by `time` [s] times the fastest of its patch's corners C_i
/// (velocities v, one per node): what the patch may travel (stage 1 against a surface that
/// moves: every bone by its own speed, not the character's fastest node's).
void sweepBoneProxies(const CharacterModel& m, const std::vector<Vec3>& v, double time,
                      std::vector<PlacedProxy>& proxies);

/// The bounding sphere of a set of placed proxies (the hierarchy's root).
void boundingSphere(const std::vector<PlacedProxy>& proxies, Vec3* centre, double* radius);

/// The pairs (i of a, j of b) whose grown proxies are within `tolerance` of each other: the
/// sets' spheres, then the proxies' spheres, then the hulls' GJK distance less the margins.
std::vector<std::pair<int, int>> proxyPairs(const std::vector<PlacedProxy>& a, const std::vector<PlacedProxy>& b,
                                            double tolerance);
/// Two joined bones' patches share a seam, where their proxies always meet; they are paired with
/// each other only once their joint has turned this far from the bind pose [rad]. (A joint
/// folded at one joint, tubes of radius 0.06-0.3 m, 3-16 bones, blend 0.5-2: the two patches
/// first touch at 115-150 degrees; decision 0032.)
constexpr double kSeamAngle = 60 * kPi / 180;

/// A character with itself (its bones' states): the pairs i < j of its bones within reach; two
/// bones whose patches meet (joined, or sharing a seam: BoneProxy::seams) only once they have
/// turned past kSeamAngle from each other (the deer: 12 of its 69 pairs; decision 0033).
std::vector<std::pair<int, int>> selfProxyPairs(const CharacterModel& m, const std::vector<CoreState>& bones,
                                                const std::vector<PlacedProxy>& proxies, double tolerance);

/// Whether triangle t lies in node p's rest 2-ring (a corner of t is p or one of its
/// neighbours: t touches p's 1-ring).
bool inTwoRing(const CharacterModel& m, int p, const Vec3i& t);

/// The largest distance from node p to its 1-ring's corners at positions x (how far p's ring
/// reaches) [m].
double ringReach(const CharacterModel& m, const std::vector<Vec3>& x, int p);

/// Whether a triangle of node p's 1-ring (positions x) overlaps triangle t (trianglesOverlap).
bool ringOverlaps(const CharacterModel& m, const std::vector<Vec3>& x, int p, const Vec3i& t);

}  // namespace d2t
