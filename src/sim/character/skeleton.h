#pragma once
// A character's skeleton (dissertation 4.1.1, 4.2.1): k bones, each a free 6-dof frame
// (maximal coordinates: no root, no joint coordinates), joined by joints that are rows of
// a Lagrange system with Baumgarte drift stabilisation (4.17), and joint springs and
// dampers towards a target relative rotation (appendix C).
//
// Frames. World bind coordinates are where the character's rest skin, its bones and its
// joints are given (the "pose space": the skin's displacement q lives there). Bone i's
// frame at bind is (c^w_i, R_b,i): origin at its link's centre of mass, x axis along the
// bone. Its state is a CoreState (c_i, R_i, cdot_i world, omega_i bone frame), and its pose
// rotation P_i = R_i R_b,i^T maps bind directions to world (I at bind).
//
// A joint relates parent i and child j at an anchor a (world bind), with r_i = R_b,i^T (a -
// c^w_i) the anchor in bone i's frame:
//   ball   g = c_i + R_i r_i - c_j - R_j r_j = 0           (3 rows, J = [I, -R_i[r_i]x | -I, R_j[r_j]x])
//   hinge  the ball's rows and (P_i p_k) . (P_j e) = 0   for the two p_k perpendicular to the
//          axis e (2 rows, J_k = [0, (p_k' x e')^T R_i | 0, -(p_k' x e')^T R_j], primes: posed)
//   fixed  the ball's rows and the relative rotation's vector phi (3 rows, J = [0, -R_i | 0, R_j])
// A joint with parent -1 pins its child to the world at the anchor (placed with the body).
//
// The spring's relative rotation is rho = P_i^T P_j (I at bind; unchanged by a rigid motion
// of the whole skeleton); towards a target rho_0 the error rotation, world frame, is
// E = P_j rho_0^T P_i^T with rotation vector phi = theta u, and the child feels the torque
// -k phi - c (Omega_j - Omega_i), the parent its opposite (Omega: world angular velocities).
#include <string>
#include <vector>

#include "sim/base/math.h"
#include "sim/body/core/rigid_core.h"

namespace d2t {

enum class JointType { Ball, Hinge, Fixed };

/// "ball" | "hinge" | "fixed".
const char* jointTypeName(JointType t);

struct Bone {
  std::string name;
  Vec3 head = Vec3::Zero();  ///< the bone's segment at bind, world bind coordinates [m]
  Vec3 tail = Vec3::UnitX();
  double radius = 0.05;  ///< the flesh around it [m] (the skinning weights' falloff)
  // ---- set by the bake ----
  Vec3 bindPosition = Vec3::Zero();          ///< c^w_i: the link's centre of mass at bind [m]
  Quat bindOrientation = Quat::Identity();   ///< R_b,i: bone frame -> world at bind (x along the bone)
};

struct Joint {
  JointType type = JointType::Ball;
  int parent = -1;  ///< a bone index, or -1: the child is pinned to the world at the anchor
  int child = -1;
  Vec3 anchor = Vec3::Zero();  ///< world bind coordinates [m]
  Vec3 axis = Vec3::UnitZ();   ///< the hinge's axis, world bind (unit)
  double stiffness = 0;        ///< the spring towards `target` [N m/rad], >= 0
  double damping = 0;          ///< [N m s/rad], >= 0
  Quat target = Quat::Identity();  ///< the spring's rest relative rotation rho_0 (bind: identity)
  double limit = 0;  ///< the largest angle of rho away from the bind pose [rad] (0: none)

  /// Constraint rows of this joint: 3 (ball), 5 (hinge), 6 (fixed).
  int rows() const { return type == JointType::Ball ? 3 : type == JointType::Hinge ? 5 : 6; }
};

struct Skeleton {
  std::vector<Bone> bones;
  std::vector<Joint> joints;

  int boneCount() const { return int(bones.size()); }
  int rowCount() const;
  /// The joints in an order where a bone's joint to its parent comes after its parent's
  /// (forward kinematics); throws InputError if a bone has two parents or a cycle.
  std::vector<int> treeOrder(const std::string& owner) const;
  /// Throws InputError ("<owner>: skeleton.<field>: ...") for no bones, a joint on a missing
  /// bone or on itself, a bone that is a child twice, a zero-length bone or hinge axis, or a
  /// negative stiffness, damping or radius.
  void validate(const std::string& owner) const;
};

/// A bone's pose rotation P_i = R_i R_b,i^T.
inline Mat3 poseRotation(const Bone& b, const CoreState& s) {
  return (s.orientation * b.bindOrientation.conjugate()).toRotationMatrix();
}
/// The rotation vector (theta u, |theta| <= pi) of a rotation.
Vec3 rotationVector(const Quat& q);
/// A joint's relative rotation rho = P_i^T P_j; for parent -1 the parent's pose is `world`
/// (the rotation the character was placed with).
Quat relativeRotation(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world);
/// The spring's error rotation vector phi of a joint (world frame; see above).
Vec3 jointError(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world);
/// The angle of a joint's relative rotation rho away from the bind pose [rad].
double jointAngle(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world);

}  // namespace d2t
