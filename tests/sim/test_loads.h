#pragma once
// Node loads for tests (NodeLoad): a constant force on a cap of the skin.
#include <vector>

#include "sim/body/layered_body.h"

namespace d2t::test {

// A constant world force on each node of the rest skin's cap beyond `from` along `axis`.
class CapForce final : public NodeLoad {
 public:
  CapForce(const BakedBody& m, const Vec3& axis, double from, const Vec3& perNode) : f_(perNode) {
    for (int i = 0; i < m.nodeCount(); ++i)
      if (m.restSkin[size_t(i)].normalized().dot(axis) > from) nodes_.push_back(i);
  }
  void forces(const LayeredBody& body, std::vector<NodeForce>& out) const override {
    (void)body;
    for (int i : nodes_) out.push_back({i, f_});
  }
  const std::vector<int>& nodes() const { return nodes_; }
  Vec3 total() const { return double(nodes_.size()) * f_; }

 private:
  std::vector<int> nodes_;
  Vec3 f_;
};

}  // namespace d2t::test
