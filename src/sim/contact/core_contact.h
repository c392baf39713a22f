#pragma once
// The skin's limits against its own core (docs/decisions/0027-skin-limits-on-the-core.md).
//
// A real soft body squashes until its skin is crushed against what is inside, and then
// rests on it; and its skin never slides far over what is inside (a linear skin in the
// body frame would, without bound, until the blow-up check resets it). Node i, with its
// rest layer thickness h_i = |ub_i - f_i| over its core point f_i and its rest
// direction d_i = (ub_i - f_i) / h_i, keeps two one-sided limits:
//
//   crush    gap_i = d_i . q_i + (1 - keep) h_i >= 0   along n_i = d_i
//            (it keeps `keep` = Material::minLayer of its layer: the skin bottoms out)
//   stretch  gap_i = kMaxStretch h_i - |s_i| >= 0      along n_i = -s_i / |s_i|
//            (it moves at most kMaxStretch layers from its rest place over the core,
//            sideways and outwards: s_i = q_i less its part into the layer, which the
//            crush limit bounds: stretchPart)
//
// so that gap_i changes at the rate n_i . qdot_i. The violated limits become one-sided
// rows of the contact response against the body's own core (ContactRow::onCore): the
// row pushes the node along n_i and its reaction pushes the core in the same step,
// through the mass coupling of the skin on the core (RigidCore::skinRowCoupling). For
// the rest of the step's response the node is held on the core along n_i (heldInverse:
// what pushes it along n_i pushes the core: a crushed layer carries the core onto the
// ground), and the position correction moves what is left of a violation out along n_i.
#include <utility>
#include <vector>

#include "sim/model/baked_body.h"

namespace d2t {

/// The stretch limit in layer thicknesses: below the blow-up check's 2 (a node displaced
/// by more than twice its layer is a blow-up) and above what the shipped scenes reach
/// (docs/decisions/0027).
constexpr double kMaxStretch = 1.0;
/// The part of q_i that the stretch limit bounds: q_i less its component into the layer
/// (-d_i), which the crush limit bounds (a node crushed onto its core is not stretched:
/// measured whole, a crushed node sliding sideways was corrected back along -q_i, into
/// the ground under it).
inline Vec3 stretchPart(const Vec3& q, const Vec3& d) {
  const double along = d.dot(q);
  return along < 0 ? Vec3(q - along * d) : q;
}

/// Nodes within this fraction of their layer thickness of a limit at the predicted state,
/// or within the distance the core can close in the step (its fastest point's speed
/// times dt), are held on the core in the step's response too, not only those past it:
/// a node that a contact stops while the core comes on would be pushed past the limit
/// otherwise; held, it stops the core (docs/decisions/0027).
constexpr double kCoreHoldMargin = 0.05;

/// A skin node at or past one of its limits.
struct CoreContact {
  int node = -1;
  double depth = 0;        ///< -gap_i [m] (> 0: past the limit; <= 0: within the margin)
  Vec3 normal = Vec3::Zero();  ///< n_i (body frame, unit): the direction out of the violation
  bool stretch = false;        ///< the stretch limit (else the crush limit)
};

/// The rest direction d_i of node i (body frame, unit) and its layer thickness h_i [m].
inline const Vec3& restDirection(const BakedBody& m, int i, double* thickness) {
  *thickness = m.layer[size_t(i)];
  return m.layerDirection[size_t(i)];
}

/// The limits of every node within margin h_i + reach [m] of them at displacements q, by
/// node (crush before stretch), into out: the CPU reference of the GPU's core contact pass.
void findCoreContacts(const BakedBody& m, const std::vector<Vec3>& q, double keep, double margin, double reach,
                      std::vector<CoreContact>* out);

/// Mh_i^-1 of a node held on the core along n (unit): H - H n n^T H / (n^T H n), the
/// node's response to an impulse with the constraint n . dqdot = 0 eliminated (its
/// multiplier is the layer's reaction, internal to the body). H itself where it already
/// gives nothing along n (a node held twice along one direction: crushed straight in
/// near its stretch limit too).
inline Mat3 heldInverse(const Mat3& H, const Vec3& n) {
  const Vec3 hn = H * n;
  const double nhn = n.dot(hn);
  if (!(nhn > 1e-9 * H.trace())) return H;
  return H - hn * hn.transpose() / nhn;
}

/// The held nodes' Mh_i^-1 (hinv: every node's), each node once in node order, held
/// along each of its listed directions in turn (eliminating one constraint after the
/// other is eliminating them together).
std::vector<std::pair<int, Mat3>> heldBlocks(const std::vector<Mat3>& hinv,
                                             const std::vector<std::pair<int, Vec3>>& held);

}  // namespace d2t
