// The rigid core's blocks of the step's equations (appendix B).
#include "sim/body/core/rigid_core.h"

namespace d2t {

RigidCore::Matrix RigidCore::massMatrix(double totalMass, const Mat3& coreInertia, const Mat3& R, const Vec3& St,
                                        const Mat3& Muu) {
  Matrix Mc;
  Mc.block<3, 3>(0, 0) = totalMass * Mat3::Identity();
  Mc.block<3, 3>(0, 3) = -R * skew(St);
  Mc.block<3, 3>(3, 0) = skew(St) * R.transpose();
  Mc.block<3, 3>(3, 3) = coreInertia + Muu;
  return Mc;
}

RigidCore::Vector RigidCore::freeForce(double totalMass, const Mat3& coreInertia, const Mat3& R, const Vec3& g,
                                       const Vec3& gb, const Vec3& omega, const SkinCoreSums& sums,
                                       const Vec3& force, const Vec3& torque) {
  Vector Fc;
  Fc.head<3>() = totalMass * g - R * sums.ma + force;
  Fc.tail<3>() = sums.mu.cross(gb) - omega.cross(coreInertia * omega) - sums.muxa + torque;
  return Fc;
}

}  // namespace d2t
