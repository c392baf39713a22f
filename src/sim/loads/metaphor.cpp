// Localized control metaphors (metaphor.h): the region, the force laws, the balance and
// the ease.
#include "sim/loads/metaphor.h"

#include <algorithm>
#include <cmath>

#include "sim/base/json_reader.h"
#include "sim/body/layered_body.h"
#include "sim/model/baked_body.h"

namespace d2t {

namespace {

double ramp(double u, bool smooth) {
  u = std::clamp(u, 0.0, 1.0);
  return smooth ? u * u * (3 - 2 * u) : u;
}

double sat(double x) { return std::clamp(x, -1.0, 1.0); }

[[noreturn]] void refuse(const MetaphorDesc& d, const std::string& why) {
  throw InputError("metaphor '" + d.name + "' on body '" + d.body + "': " + why);
}

bool inside(const MetaphorDesc& d, const Vec3& r) {
  if (d.region == "sphere") return r.norm() <= d.radius;
  if (d.region == "box") return (r.cwiseAbs() - 0.5 * d.size).maxCoeff() <= 0;
  // cylinder
  const double z = d.axis.dot(r);
  return std::abs(z) <= 0.5 * d.height && (r - z * d.axis).norm() <= d.radius;
}

// Takes the net force and the net torque about the weighted centroid out of f by a rigid
// field m_i (F0 + Omega x (x_i - xbar)), m_i the nodes' weights (A_i w_i).
void balance(const std::vector<Vec3>& x, const std::vector<double>& m, std::vector<Vec3>* f) {
  double mass = 0;
  Vec3 xbar = Vec3::Zero(), force = Vec3::Zero();
  for (size_t i = 0; i < x.size(); ++i) {
    mass += m[i];
    xbar += m[i] * x[i];
    force += (*f)[i];
  }
  xbar /= mass;
  Vec3 torque = Vec3::Zero();
  Mat3 J = Mat3::Zero();  // sum m_i (|d|^2 I - d d^T): d -> Omega x d's torque
  for (size_t i = 0; i < x.size(); ++i) {
    const Vec3 d = x[i] - xbar;
    torque += d.cross((*f)[i]);
    J += m[i] * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  // (a region on a line has no torque about it to take out: the pseudo-inverse leaves it)
  const Vec3 omega = J.completeOrthogonalDecomposition().solve(torque);
  const Vec3 f0 = force / mass;
  for (size_t i = 0; i < x.size(); ++i) (*f)[i] -= m[i] * (f0 + omega.cross(x[i] - xbar));
}

}  // namespace

double easeFactor(const MetaphorDesc& d, double t) {
  if (t < d.start || t >= d.end) return 0;
  double e = 1;
  if (d.easeIn > 0) e = std::min(e, ramp((t - d.start) / d.easeIn, d.smooth));
  if (d.easeOut > 0) e = std::min(e, ramp((d.end - t) / d.easeOut, d.smooth));
  return e;
}

std::vector<double> Metaphor::nodeAreas(const BakedBody& m) {
  std::vector<double> area(size_t(m.nodeCount()), 0.0);
  for (const Vec3i& t : m.atlas.triangles) {
    const Vec3 &a = m.restSkin[size_t(t[0])], &b = m.restSkin[size_t(t[1])], &c = m.restSkin[size_t(t[2])];
    const double third = (b - a).cross(c - a).norm() / 6;
    for (int k = 0; k < 3; ++k) area[size_t(t[k])] += third;
  }
  return area;
}

Metaphor::Metaphor(const MetaphorDesc& desc, const BakedBody& model) : desc_(desc) {
  const MetaphorDesc& d = desc_;
  const Vec3 a = d.axis.normalized();
  // the selected nodes, their rest points from the structure's centre (shape frame)
  std::vector<Vec3> r;
  const auto rel = [&](int i) { return Vec3(model.restSkin[size_t(i)] + model.comOffset - d.center); };
  if (d.region == "nodes") {
    for (int i : d.nodes) {
      if (i < 0 || i >= model.nodeCount())
        refuse(d, "region node " + std::to_string(i) + " is not a node of the body (it has " +
                      std::to_string(model.nodeCount()) + ")");
      nodes_.push_back(i);
    }
    std::sort(nodes_.begin(), nodes_.end());
    nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  } else {
    for (int i = 0; i < model.nodeCount(); ++i)
      if (inside(d, rel(i))) nodes_.push_back(i);
  }
  if (nodes_.empty()) refuse(d, "its " + d.region + " region holds no skin node of the body");
  const std::vector<double> area = nodeAreas(model);
  // (the sphere law rounds towards a sphere about the shape's origin: the body's own centre)
  const auto fromOrigin = [&](int i) { return Vec3(model.restSkin[size_t(i)] + model.comOffset); };
  double R = 0, H = 0, meanR = 0;
  for (int i : nodes_) {
    const Vec3 x = rel(i);
    const double z = a.dot(x);
    R = std::max(R, (x - z * a).norm());
    H = std::max(H, std::abs(z));
    meanR += fromOrigin(i).norm() / double(nodes_.size());
    r.push_back(x);
    weights_.push_back(1.0);
  }
  const double Rs = d.sphereRadius > 0 ? d.sphereRadius : meanR;
  const bool needsR = d.type == "twist", needsH = d.type == "bend" || d.type == "flatten" || d.type == "squash" ||
                                                  d.type == "stretch" || (d.type == "twist" && d.mode == "linear");
  if (needsR && R <= 1e-12) refuse(d, "every node of its region lies on its axis: a twist has no lever there");
  if (needsH && H <= 1e-12) refuse(d, "every node of its region lies on its mid-plane: the " + d.type + " law is zero");
  if (d.type == "sphere" && Rs <= 1e-12) refuse(d, "its sphere has no radius");
  Vec3 b = d.direction - d.direction.dot(a) * a;
  if (d.type == "bend" && d.mode != "stretch" && b.norm() < 1e-9)
    refuse(d, "its bend direction is along its axis: give one across it");
  if (b.norm() > 0) b.normalize();
  // three_point's offset: the region's area-weighted mean of 3 xi^2 (1 on an even band), so
  // that the ends and the middle push with no net force on any region
  double mean3xi2 = 0, weight = 0;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const double xi = H > 0 ? a.dot(r[k]) / H : 0, m = area[size_t(nodes_[k])] * weights_[k];
    mean3xi2 += m * 3 * xi * xi;
    weight += m;
  }
  mean3xi2 /= weight > 0 ? weight : 1;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Vec3& x = r[k];
    const double z = a.dot(x), xi = H > 0 ? z / H : 0;
    const Vec3 rho = x - z * a;
    const double pa = d.magnitude * area[size_t(nodes_[k])] * weights_[k];
    Vec3 f = Vec3::Zero();
    if (d.type == "twist") {
      const double s = d.mode == "uniform" ? 1.0 : d.mode == "linear" ? xi : (z > 0 ? 1.0 : z < 0 ? -1.0 : 0.0);
      f = rho.norm() > 0 ? Vec3(pa * (rho.norm() / R) * s * a.cross(rho.normalized())) : Vec3::Zero();
    } else if (d.type == "bend") {
      if (d.mode == "stretch") f = pa * xi * a;
      else if (d.mode == "cantilever") f = pa * 0.5 * (1 + xi) * b;
      else f = pa * (3 * xi * xi - mean3xi2) * b;  // three_point
    } else if (d.type == "sphere") {
      const Vec3 o = fromOrigin(nodes_[k]);
      f = o.norm() > 0 ? Vec3(pa * sat((Rs - o.norm()) / (0.1 * Rs)) * o.normalized()) : Vec3::Zero();
    } else if (d.type == "flatten") {
      f = -pa * sat(xi / 0.1) * a;
    } else if (d.type == "squash") {
      f = -pa * xi * a;
    } else {  // stretch
      f = pa * xi * a;
    }
    force_.push_back(f);
  }
  if (d.balanced) {
    std::vector<double> m;
    for (size_t k = 0; k < nodes_.size(); ++k) m.push_back(area[size_t(nodes_[k])] * weights_[k]);
    balance(r, m, &force_);
  }
  // Greway's frame: the region's top and bottom nodes along a and its farthest across it
  // (towards b, or any direction across a), picked once at rest
  if (d.frame == "nodes") {
    Vec3 across = b;
    if (across.norm() == 0) {
      const Vec3 t = std::abs(a.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitZ();
      across = (t - t.dot(a) * a).normalized();
    }
    size_t top = 0, bottom = 0, side = 0;
    for (size_t k = 1; k < nodes_.size(); ++k) {
      if (a.dot(r[k]) > a.dot(r[top])) top = k;
      if (a.dot(r[k]) < a.dot(r[bottom])) bottom = k;
      if (across.dot(r[k]) > across.dot(r[side])) side = k;
    }
    frameNodes_ = {nodes_[top], nodes_[bottom], nodes_[side]};
    const auto basis = [](const Vec3& t, const Vec3& bo, const Vec3& s) {
      Mat3 F;
      const Vec3 e1 = (t - bo).normalized();
      const Vec3 e2 = (s - 0.5 * (t + bo) - (s - 0.5 * (t + bo)).dot(e1) * e1).normalized();
      F << e1, e2, e1.cross(e2);
      return F;
    };
    const Vec3 &gt = model.restSkin[size_t(frameNodes_[0])], &gb = model.restSkin[size_t(frameNodes_[1])],
               &gs = model.restSkin[size_t(frameNodes_[2])];
    if ((gt - gb).norm() < 1e-9 ||
        ((gs - 0.5 * (gt + gb)) - (gs - 0.5 * (gt + gb)).dot((gt - gb).normalized()) * (gt - gb).normalized()).norm() < 1e-9)
      refuse(d, "its region's nodes do not span a frame (\"frame\": \"nodes\" needs a region with extent along and "
                "across its axis)");
    frame0_ = basis(gt, gb, gs);
  }
  // the rings and their mitigation directions: each node's the unit sum of its parents'
  rings_ = rings(model.atlas.stencil, nodes_);
  std::vector<Vec3> parent(size_t(model.nodeCount()), Vec3::Zero());  // unit directions by node
  for (size_t k = 0; k < nodes_.size(); ++k)
    if (force_[k].norm() > 0) parent[size_t(nodes_[k])] = force_[k].normalized();
  for (int level = 0; level < 2; ++level) {
    for (int j : rings_[size_t(level)]) {
      Vec3 sum = Vec3::Zero();
      for (int slot = 1; slot < kStencilSlots; ++slot) {
        const int p = model.atlas.stencil[size_t(j)][size_t(slot)];
        if (p >= 0) sum += parent[size_t(p)];
      }
      ringDirections_[size_t(level)].push_back(sum.norm() > 1e-9 ? Vec3(sum.normalized()) : Vec3::Zero());
    }
    // (the next ring's parents are this ring's nodes only)
    std::fill(parent.begin(), parent.end(), Vec3::Zero());
    for (size_t k = 0; k < rings_[size_t(level)].size(); ++k)
      parent[size_t(rings_[size_t(level)][k])] = ringDirections_[size_t(level)][k];
  }
}

std::array<std::vector<int>, 2> Metaphor::rings(const std::vector<Stencil>& stencil, const std::vector<int>& region) {
  std::vector<int8_t> level(stencil.size(), -1);  // 0 region, 1 L1, 2 L2
  for (int i : region) level[size_t(i)] = 0;
  std::array<std::vector<int>, 2> out;
  const std::vector<int>* from = &region;
  for (int l = 0; l < 2; ++l) {
    for (int i : *from)
      for (int slot = 1; slot < kStencilSlots; ++slot) {
        const int j = stencil[size_t(i)][size_t(slot)];
        if (j >= 0 && level[size_t(j)] < 0) {
          level[size_t(j)] = int8_t(l + 1);
          out[size_t(l)].push_back(j);
        }
      }
    std::sort(out[size_t(l)].begin(), out[size_t(l)].end());
    from = &out[size_t(l)];
  }
  return out;
}

Mat3 Metaphor::frameRotation(const LayeredBody& body) const {
  if (frameNodes_.empty()) return body.core().orientation.toRotationMatrix();
  const Vec3 t = body.nodePosition(frameNodes_[0]), b = body.nodePosition(frameNodes_[1]),
             s = body.nodePosition(frameNodes_[2]);
  const Vec3 e1 = (t - b).normalized();
  const Vec3 m = s - 0.5 * (t + b);
  const Vec3 e2 = (m - m.dot(e1) * e1).normalized();
  Mat3 F;
  F << e1, e2, e1.cross(e2);
  if (!F.allFinite())  // (the nodes collapsed onto a line: the core's frame rather than none)
    return body.core().orientation.toRotationMatrix();
  return F * frame0_.transpose();
}

void Metaphor::reads(std::vector<int>& nodes) const {
  if (easeFactor(desc_, time_) > 0) nodes.insert(nodes.end(), frameNodes_.begin(), frameNodes_.end());
}

void Metaphor::forces(const LayeredBody& body, std::vector<NodeForce>& out) const {
  const double e = easeFactor(desc_, time_);
  if (e == 0) return;
  const Mat3 R = frameRotation(body);
  for (size_t k = 0; k < nodes_.size(); ++k) out.push_back({nodes_[k], e * (R * force_[k])});
}

void Metaphor::corrections(const LayeredBody&, double dt, std::vector<VelocityCorrection>& out,
                           std::vector<int>& absorbers) const {
  const double e = easeFactor(desc_, time_);
  if (e == 0 || !(dt > 0)) return;
  const double x = e * dt / kCorrectionStep;  // (Greway's fractions are per 60 Hz frame)
  const double portion = desc_.mitigation > 0 ? 1 - std::pow(1 - desc_.mitigation, x) : 0.0;
  for (int level = 0; level < 2; ++level) {
    const double d = desc_.neighborDamping[size_t(level)];
    const double keep = d > 0 ? std::pow(1 - d, x) : 1.0;
    if (keep == 1 && portion == 0) continue;
    const std::vector<int>& ring = rings_[size_t(level)];
    for (size_t k = 0; k < ring.size(); ++k)
      out.push_back({ring[k], keep, ringDirections_[size_t(level)][k], portion});
  }
  if (!out.empty()) absorbers.insert(absorbers.end(), nodes_.begin(), nodes_.end());
}

}  // namespace d2t
