// The skeleton (skeleton.h).
#include "sim/character/skeleton.h"

#include <cmath>

#include "sim/base/json_reader.h"

namespace d2t {

const char* jointTypeName(JointType t) {
  return t == JointType::Ball ? "ball" : t == JointType::Hinge ? "hinge" : "fixed";
}

int Skeleton::rowCount() const {
  int c = 0;
  for (const Joint& j : joints) c += j.rows();
  return c;
}

void Skeleton::validate(const std::string& owner) const {
  const auto fail = [&](const std::string& field, const std::string& what) {
    throw InputError(owner + ": skeleton." + field + ": " + what);
  };
  if (bones.empty()) fail("bones", "a character needs at least one bone, got 0");
  for (size_t b = 0; b < bones.size(); ++b) {
    const Bone& bone = bones[b];
    const std::string f = "bones[" + std::to_string(b) + "]";
    if (!((bone.tail - bone.head).norm() > 1e-9)) fail(f, "head and tail coincide: a bone needs a length");
    if (!(bone.radius > 0)) fail(f + ".radius", "must be > 0, got " + std::to_string(bone.radius));
  }
  const int k = boneCount();
  std::vector<int> parentOf(size_t(k), -2);
  for (size_t n = 0; n < joints.size(); ++n) {
    const Joint& j = joints[n];
    const std::string f = "joints[" + std::to_string(n) + "]";
    if (j.child < 0 || j.child >= k)
      fail(f + ".child", "bone " + std::to_string(j.child) + " does not exist (the skeleton has " +
                             std::to_string(k) + " bones)");
    if (j.parent < -1 || j.parent >= k)
      fail(f + ".parent", "bone " + std::to_string(j.parent) + " does not exist (the skeleton has " +
                              std::to_string(k) + " bones; -1 pins to the world)");
    if (j.parent == j.child) fail(f, "joins bone " + std::to_string(j.child) + " to itself");
    if (parentOf[size_t(j.child)] != -2)
      fail(f + ".child", "bone " + std::to_string(j.child) + " already has a joint to its parent");
    parentOf[size_t(j.child)] = j.parent;
    if (j.type == JointType::Hinge && !(j.axis.norm() > 1e-9)) fail(f + ".axis", "a hinge needs a nonzero axis");
    if (!(j.stiffness >= 0)) fail(f + ".stiffness", "must be >= 0, got " + std::to_string(j.stiffness));
    if (!(j.damping >= 0)) fail(f + ".damping", "must be >= 0, got " + std::to_string(j.damping));
  }
  treeOrder(owner);
}

std::vector<int> Skeleton::treeOrder(const std::string& owner) const {
  const int k = boneCount();
  std::vector<int> jointOf(size_t(k), -1);  // the joint to each bone's parent
  for (size_t n = 0; n < joints.size(); ++n) jointOf[size_t(joints[n].child)] = int(n);
  std::vector<int> depth(size_t(k), -1), order;
  for (int b = 0; b < k; ++b) {
    // walk up to a root or a bone of known depth
    std::vector<int> path;
    int x = b;
    while (x >= 0 && depth[size_t(x)] < 0) {
      if (int(path.size()) > k)
        throw InputError(owner + ": skeleton.joints: the joints form a cycle through bone " + std::to_string(b));
      path.push_back(x);
      const int j = jointOf[size_t(x)];
      x = j < 0 ? -1 : joints[size_t(j)].parent;
    }
    int d = x < 0 ? 0 : depth[size_t(x)] + 1;
    for (auto it = path.rbegin(); it != path.rend(); ++it) depth[size_t(*it)] = d++;
  }
  for (int d = 0; d <= k; ++d)
    for (int b = 0; b < k; ++b)
      if (depth[size_t(b)] == d && jointOf[size_t(b)] >= 0) order.push_back(jointOf[size_t(b)]);
  return order;
}

Vec3 rotationVector(const Quat& q0) {
  Quat q = q0.normalized();
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const Vec3 v = q.vec();
  const double s = v.norm();
  if (s < 1e-12) return 2.0 * v;  // (theta u -> 2 sin(theta/2) u)
  const double theta = 2.0 * std::atan2(s, q.w());
  return theta / s * v;
}

Quat relativeRotation(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world) {
  const Bone& c = sk.bones[size_t(j.child)];
  const Quat pj = bones[size_t(j.child)].orientation * c.bindOrientation.conjugate();
  const Quat pi = j.parent < 0 ? world
                               : bones[size_t(j.parent)].orientation * sk.bones[size_t(j.parent)].bindOrientation.conjugate();
  return pi.conjugate() * pj;
}

Vec3 jointError(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world) {
  const Quat pi = j.parent < 0 ? world
                               : bones[size_t(j.parent)].orientation * sk.bones[size_t(j.parent)].bindOrientation.conjugate();
  // E = P_j rho_0^T P_i^T = P_i (rho rho_0^T) P_i^T
  return pi * rotationVector(relativeRotation(sk, j, bones, world) * j.target.conjugate());
}

double jointAngle(const Skeleton& sk, const Joint& j, const std::vector<CoreState>& bones, const Quat& world) {
  return rotationVector(relativeRotation(sk, j, bones, world)).norm();
}

}  // namespace d2t
