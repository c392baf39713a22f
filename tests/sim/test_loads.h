#pragma once
// Node loads for tests (NodeLoad): a constant force on a cap of the skin; a control
// metaphor on a band about y.
#include <string>
#include <vector>

#include "sim/body/layered_body.h"
#include "sim/loads/metaphor.h"

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

/// A metaphor of `type` / `mode` on the band |y| < 0.3 of `body` (a cylinder region of radius
/// 1 about y), P = `magnitude`, on from t = 0 for 100 s.
inline MetaphorDesc bandMetaphor(const std::string& body, const std::string& type, const std::string& mode,
                                 double magnitude = 1000, bool balanced = false) {
  MetaphorDesc m;
  m.name = type + " " + mode;
  m.body = body;
  m.type = type;
  m.mode = mode;
  m.region = "cylinder";
  m.radius = 1;
  m.height = 0.6;
  m.magnitude = magnitude;
  m.start = 0;
  m.end = 100;
  m.balanced = balanced;
  return m;
}

}  // namespace d2t::test
