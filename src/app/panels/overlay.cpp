#include "app/panels/overlay.h"

#include <algorithm>

namespace d2t {

void contactLines(World& world, const std::vector<std::vector<NodeContact>>& contacts, double length,
                  std::vector<LineVertex>* out) {
  const Eigen::Vector3f red(1.0f, 0.15f, 0.1f), yellow(1.0f, 0.85f, 0.1f), magenta(0.95f, 0.2f, 0.95f);
  auto& bodies = world.bodies();
  for (size_t i = 0; i < contacts.size() && i < bodies.size(); ++i) {
    std::vector<int> nodes;  // (one gather from a GPU solver, not the whole skin)
    for (const NodeContact& c : contacts[i])
      if (c.node >= 0 && c.node < bodies[i].nodes()) nodes.push_back(c.node);
    bodies[i].layered.syncNodes(nodes);
    for (const NodeContact& c : contacts[i]) {
      if (c.node < 0 || c.node >= bodies[i].nodes()) continue;
      const Vec3 x = bodies[i].layered.nodePosition(c.node);
      const Eigen::Vector3f color = c.depth <= 0 ? yellow : c.other >= 0 ? magenta : red;
      out->push_back({x.cast<float>(), color});
      out->push_back({(x + length * c.normal).cast<float>(), color});
    }
  }
}

double grownProxyMargin(Body& body) {
  return body.proxy.margin + body.layered.maxDisplacement();  // (a summary pass where a GPU solver holds the skin)
}

void proxyLines(World& world, std::vector<LineVertex>* out) {
  // a cross at x whose arms are the grown margin, but small enough that the crosses stay apart
  const auto cross = [&](const Vec3& x, double margin, const Eigen::Vector3f& color) {
    const double arm = std::clamp(margin, 0.005, 0.05);
    for (int k = 0; k < 3; ++k) {
      const Vec3 d = arm * Vec3::Unit(k);
      out->push_back({(x - d).cast<float>(), color});
      out->push_back({(x + d).cast<float>(), color});
    }
  };
  for (Body& b : world.bodies()) {
    const CoreState& s = b.layered.core();
    const Mat3 R = s.orientation.toRotationMatrix();
    for (const Vec3& p : b.proxy.points) cross(s.position + R * p, grownProxyMargin(b), Eigen::Vector3f(0.2f, 0.9f, 0.9f));
  }
  for (const Character& c : world.characters())  // (each bone's, grown by its bound: bone_proxies.h)
    for (const PlacedProxy& p : placeBoneProxies(*c.model, c.body->state().bones, c.body->state().q))
      for (const Vec3& x : p.points) cross(x, p.margin, Eigen::Vector3f(0.3f, 0.6f, 1.0f));
}

void boneLines(const World& world, std::vector<LineVertex>* out) {
  const Eigen::Vector3f bone(0.95f, 0.95f, 0.95f), joint(1.0f, 0.55f, 0.1f);
  for (const Character& c : world.characters()) {
    const Skeleton& sk = c.model->skeleton;
    for (int b = 0; b < sk.boneCount(); ++b) {
      const Bone& bb = sk.bones[size_t(b)];
      const CoreState& s = c.body->state().bones[size_t(b)];
      const auto posed = [&](const Vec3& x) { return Vec3(s.position + s.orientation * (bb.bindOrientation.conjugate() * (x - bb.bindPosition))); };
      out->push_back({posed(bb.head).cast<float>(), bone});
      out->push_back({posed(bb.tail).cast<float>(), bone});
    }
    for (int j = 0; j < int(sk.joints.size()); ++j) {
      const Vec3 x = c.body->childAnchor(j);
      const double arm = 0.3 * sk.bones[size_t(sk.joints[size_t(j)].child)].radius;
      for (int k = 0; k < 3; ++k) {
        out->push_back({(x - arm * Vec3::Unit(k)).cast<float>(), joint});
        out->push_back({(x + arm * Vec3::Unit(k)).cast<float>(), joint});
      }
    }
  }
}

}  // namespace d2t
