#pragma once
// The solid inside a closed triangle mesh as a grid of cubes: a cube is in when its centre
// is, by the parity of a ray along x through it (each row's crossings sorted once). What
// the characters' interior mass (inner_surface.h) and the medial skeleton
// (medial_skeleton.h) are measured on.
#include <cstdint>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

struct VoxelGrid {
  Vec3 lo = Vec3::Zero();  ///< the grid's corner [m]
  double h = 1;            ///< the cubes' side [m]
  int nx = 0, ny = 0, nz = 0;
  std::vector<std::uint8_t> inside;  ///< (nx ny nz) 1 where the cube's centre is inside, x fastest

  size_t index(int i, int j, int k) const { return (size_t(k) * size_t(ny) + size_t(j)) * size_t(nx) + size_t(i); }
  Vec3 centre(int i, int j, int k) const { return lo + h * Vec3(i + 0.5, j + 0.5, k + 0.5); }
  bool contains(int i, int j, int k) const { return i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz; }
};

/// The cubes of side h over the box of a closed mesh's vertices, marked inside by parity.
VoxelGrid voxelizeClosed(const std::vector<Vec3>& vertices, const std::vector<Vec3i>& triangles, double h);

}  // namespace d2t
