// The deer's rig (deer_rig.h).
#include "sim/character/deer_rig.h"

namespace d2t {

std::vector<DeerBone> deerBones() {
  const bool B = false, H = true;
  std::vector<DeerBone> b = {
      {"pelvis", "", B, {-0.45, 0.86, 0}, {-0.28, 0.86, 0}, 0.14, 0.15},
      {"lumbar1", "pelvis", B, {-0.28, 0.86, 0}, {-0.11, 0.86, 0}, 0.15, 0.15},
      {"lumbar2", "lumbar1", B, {-0.11, 0.86, 0}, {0.06, 0.86, 0}, 0.15, 0.155},
      {"thorax1", "lumbar2", B, {0.06, 0.86, 0}, {0.23, 0.87, 0}, 0.16, 0.16},
      {"thorax2", "thorax1", B, {0.23, 0.87, 0}, {0.40, 0.89, 0}, 0.155, 0.13},
      {"neck1", "thorax2", B, {0.40, 0.89, 0}, {0.48, 0.99, 0}, 0.10, 0.085},
      {"neck2", "neck1", B, {0.48, 0.99, 0}, {0.55, 1.09, 0}, 0.08, 0.07},
      {"neck3", "neck2", B, {0.55, 1.09, 0}, {0.61, 1.18, 0}, 0.065, 0.06},
      {"neck4", "neck3", B, {0.61, 1.18, 0}, {0.66, 1.26, 0}, 0.06, 0.06},
      {"head", "neck4", B, {0.66, 1.26, 0}, {0.80, 1.25, 0}, 0.075, 0.065},
      {"snout", "head", B, {0.80, 1.25, 0}, {0.92, 1.21, 0}, 0.055, 0.04},
      {"tail1", "pelvis", B, {-0.45, 0.90, 0}, {-0.57, 0.91, 0}, 0.06, 0.05},
      {"tail2", "tail1", B, {-0.57, 0.91, 0}, {-0.66, 0.88, 0}, 0.045, 0.04},
      {"tail3", "tail2", B, {-0.66, 0.88, 0}, {-0.73, 0.82, 0}, 0.04, 0.035},
  };
  for (int side : {1, -1}) {
    const double s = side;
    // (the stems: deerBoneNames() adds the side)
    const auto leg = [&](std::vector<DeerBone> parts) { b.insert(b.end(), parts.begin(), parts.end()); };
    leg({{"scapula", "thorax2", B, {0.30, 0.95, 0.06 * s}, {0.34, 0.70, 0.11 * s}, 0.08, 0.075},
         {"humerus", "scapula", B, {0.34, 0.70, 0.11 * s}, {0.28, 0.50, 0.11 * s}, 0.065, 0.05},
         {"forearm", "humerus", H, {0.28, 0.50, 0.11 * s}, {0.30, 0.28, 0.11 * s}, 0.048, 0.042},
         {"cannon_front", "forearm", H, {0.30, 0.28, 0.11 * s}, {0.30, 0.10, 0.11 * s}, 0.04, 0.038},
         {"hoof_front", "cannon_front", H, {0.30, 0.10, 0.11 * s}, {0.31, 0.04, 0.11 * s}, 0.04, 0.04},
         {"hip", "pelvis", B, {-0.33, 0.93, 0.06 * s}, {-0.31, 0.70, 0.11 * s}, 0.09, 0.08},
         {"femur", "hip", B, {-0.31, 0.70, 0.11 * s}, {-0.37, 0.50, 0.11 * s}, 0.07, 0.055},
         {"tibia", "femur", H, {-0.37, 0.50, 0.11 * s}, {-0.41, 0.28, 0.11 * s}, 0.048, 0.042},
         {"cannon_hind", "tibia", H, {-0.41, 0.28, 0.11 * s}, {-0.41, 0.10, 0.11 * s}, 0.04, 0.038},
         {"hoof_hind", "cannon_hind", H, {-0.41, 0.10, 0.11 * s}, {-0.40, 0.04, 0.11 * s}, 0.04, 0.04}});
  }
  return b;
}

std::vector<std::string> deerBoneNames() {
  const std::vector<DeerBone> parts = deerBones();
  std::vector<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool leg = i >= 14;  // (left legs 14..23, right 24..33)
    names.push_back(std::string(parts[i].name) + (leg ? ((i - 14) / 10 == 0 ? "_l" : "_r") : ""));
  }
  return names;
}

}  // namespace d2t
