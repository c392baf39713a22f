#include "app/panels/overlay.h"

#include <algorithm>
#include <cmath>

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

void structureLines(const MetaphorDesc& d, const CoreState& s, const Vec3& offset, const Eigen::Vector3f& color,
                    std::vector<LineVertex>* out) {
  const Mat3 R = s.orientation.toRotationMatrix();
  const auto placed = [&](const Vec3& p) { return Vec3(s.position + R * (p - offset)); };
  const auto segment = [&](const Vec3& a, const Vec3& b) {
    out->push_back({placed(a).cast<float>(), color});
    out->push_back({placed(b).cast<float>(), color});
  };
  const auto circle = [&](const Vec3& c, const Vec3& u, const Vec3& v, double r) {
    constexpr int n = 48;
    for (int j = 0; j < n; ++j) {
      const double a0 = 2 * M_PI * j / n, a1 = 2 * M_PI * (j + 1) / n;
      segment(c + r * (std::cos(a0) * u + std::sin(a0) * v), c + r * (std::cos(a1) * u + std::sin(a1) * v));
    }
  };
  const Vec3 a = d.axis.normalized();
  const Vec3 u = (std::abs(a.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(a).normalized(), v = a.cross(u);
  if (d.region == "cylinder") {
    const Vec3 h = 0.5 * d.height * a;
    circle(d.center - h, u, v, d.radius);
    circle(d.center + h, u, v, d.radius);
    for (const Vec3& e : {u, v, Vec3(-u), Vec3(-v)}) segment(d.center - h + d.radius * e, d.center + h + d.radius * e);
  } else if (d.region == "sphere") {
    circle(d.center, u, v, d.radius);
    circle(d.center, v, a, d.radius);
    circle(d.center, a, u, d.radius);
  } else if (d.region == "box") {
    const Vec3 h = 0.5 * d.size;
    for (int e = 0; e < 12; ++e) {  // the 12 edges: along axis e / 4, the other two signs from e % 4
      const int along = e / 4, o1 = (along + 1) % 3, o2 = (along + 2) % 3;
      Vec3 lo = -h, hi = -h;
      hi[along] = h[along];
      lo[o1] = hi[o1] = (e & 1) ? h[o1] : -h[o1];
      lo[o2] = hi[o2] = (e & 2) ? h[o2] : -h[o2];
      segment(d.center + lo, d.center + hi);
    }
  }
  // the handle at the centre (the mouse drags it): a cross, and the axis
  const double arm = 0.04;
  for (int k = 0; k < 3; ++k) segment(d.center - arm * Vec3::Unit(k), d.center + arm * Vec3::Unit(k));
  segment(d.center, d.center + 2 * arm * a);
}

void metaphorLines(World& world, int selected, std::vector<LineVertex>* out) {
  const Eigen::Vector3f green(0.2f, 0.95f, 0.3f), yellow(1.0f, 0.9f, 0.15f), purple(0.7f, 0.3f, 1.0f),
      white(0.95f, 0.95f, 0.95f), orange(1.0f, 0.55f, 0.1f);
  for (size_t k = 0; k < world.metaphors().size(); ++k) {
    if (selected >= 0 && int(k) != selected) continue;
    const Metaphor& m = *world.metaphors()[k];
    auto body = std::find_if(world.bodies().begin(), world.bodies().end(),
                             [&](const Body& b) { return b.desc.name == m.desc().body; });
    if (body == world.bodies().end()) continue;
    LayeredBody& lb = body->layered;
    std::vector<int> read(m.nodes());
    read.insert(read.end(), m.ring(0).begin(), m.ring(0).end());
    read.insert(read.end(), m.ring(1).begin(), m.ring(1).end());
    lb.syncNodes(read);  // (a gather from a GPU solver: these nodes only)
    const double arm = 0.006;
    const auto cross = [&](const Vec3& x, const Eigen::Vector3f& c) {
      for (int a = 0; a < 3; ++a) {
        out->push_back({(x - arm * Vec3::Unit(a)).cast<float>(), c});
        out->push_back({(x + arm * Vec3::Unit(a)).cast<float>(), c});
      }
    };
    for (int i : m.nodes()) cross(lb.nodePosition(i), green);
    for (int i : m.ring(0)) cross(lb.nodePosition(i), yellow);
    for (int i : m.ring(1)) cross(lb.nodePosition(i), purple);
    structureLines(m.desc(), lb.core(), body->model->comOffset, white, out);
    // the forces while the metaphor works
    std::vector<NodeForce> forces;
    m.forces(lb, forces);
    double largest = 0;
    for (const NodeForce& f : forces) largest = std::max(largest, f.force.norm());
    if (largest > 0)
      for (const NodeForce& f : forces) {
        const Vec3 x = lb.nodePosition(f.node);
        out->push_back({x.cast<float>(), orange});
        out->push_back({(x + 0.06 / largest * f.force).cast<float>(), orange});
      }
  }
}

void paintedLines(World& world, int body, const std::vector<int>& nodes, std::vector<LineVertex>* out) {
  if (body < 0 || body >= int(world.bodies().size())) return;
  LayeredBody& lb = world.bodies()[size_t(body)].layered;
  lb.syncNodes(nodes);
  const Eigen::Vector3f white(1, 1, 1);
  for (int i : nodes) {
    if (i < 0 || i >= lb.nodeCount()) continue;
    const Vec3 x = lb.nodePosition(i);
    for (int a = 0; a < 3; ++a) {
      out->push_back({(x - 0.008 * Vec3::Unit(a)).cast<float>(), white});
      out->push_back({(x + 0.008 * Vec3::Unit(a)).cast<float>(), white});
    }
  }
}

}  // namespace d2t
