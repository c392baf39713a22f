#pragma once
// What the files of LayeredBody share and keep out of its interface: from how many
// nodes a node loop runs in parallel, the rotation matrix of an orientation, and a row
// of a product over the 7-slot stencil.
#include <array>

#include "sim/base/math.h"
#include "sim/model/atlas.h"

namespace d2t::layered_detail {

// parallel loops only pay off for large atlases (and stall when oversubscribed)
constexpr int kParallelNodes = 8192;
static_assert(sizeof(Vec3) == 3 * sizeof(double), "node arrays are mapped as flat 3n vectors");

inline Mat3 rotation(const Quat& q) { return q.toRotationMatrix(); }

// row i of a stencil product, sum over the 7 slots of block(i, slot) x_(node read by the slot);
// float blocks are widened to double for the product
template <class Block, class Nodes>
Vec3 stencilRow(const Stencil& st, const std::array<Block, kStencilSlots>& blocks, const Nodes& x) {
  Vec3 s = Vec3::Zero();
  for (int k = 0; k < kStencilSlots; ++k)
    if (st[k] >= 0) s += blocks[k].template cast<double>() * x[st[k]];
  return s;
}

}  // namespace d2t::layered_detail
