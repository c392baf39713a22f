#include "sim/contact/collider.h"

#include <cmath>
#include <stdexcept>

namespace d2t {

Collider::Collider(const ColliderDesc& desc) : desc_(desc) {
  if (desc_.type == ColliderType::HeightField) {
    field_ = std::make_unique<HeightField>(desc_.size, desc_.amplitude, desc_.wavelength,
                                           desc_.resolution, Vec3::Zero());
    mesh_ = field_->mesh();
  } else if (desc_.type == ColliderType::Mesh) {
    mesh_ = desc_.shape->mesh(48);
    report_ = orientPieces(&mesh_);  // (a shape's mesh is wound already: this finds its open pieces)
    proxy_ = makeProxy(mesh_.positions);
    pieces_ = cutIntoPieces(mesh_, report_.closedTriangle);
  }
  reset();
}

void Collider::reset() {
  position_ = desc_.keyframes.empty() ? desc_.position : desc_.keyframes.front().position;
  orientation_ = desc_.keyframes.empty() ? desc_.orientation : desc_.keyframes.front().orientation;
  velocity_.setZero();
  angularVelocity_.setZero();
  dragging_ = false;
  released_ = false;
}

void Collider::animate(double t) {
  const auto& k = desc_.keyframes;
  if (k.empty() || dragging_ || released_) return;
  // piecewise-linear position, slerped orientation, held at both ends
  if (t <= k.front().time || k.size() == 1) {
    position_ = k.front().position;
    orientation_ = k.front().orientation;
    velocity_.setZero();
    angularVelocity_.setZero();
    return;
  }
  if (t >= k.back().time) {
    position_ = k.back().position;
    orientation_ = k.back().orientation;
    velocity_.setZero();
    angularVelocity_.setZero();
    return;
  }
  size_t i = 1;
  while (k[i].time < t) ++i;
  const Keyframe& a = k[i - 1];
  const Keyframe& b = k[i];
  const double h = b.time - a.time, s = (t - a.time) / h;
  position_ = a.position + s * (b.position - a.position);
  orientation_ = a.orientation.slerp(s, b.orientation);
  velocity_ = (b.position - a.position) / h;
  const Eigen::AngleAxisd rel(b.orientation * a.orientation.conjugate());
  angularVelocity_ = rel.axis() * rel.angle() / h;
}

void Collider::dragTo(const Vec3& position, double dt) {
  dragging_ = true;
  velocity_ = dt > 0 ? Vec3((position - position_) / dt) : Vec3::Zero();
  angularVelocity_.setZero();
  position_ = position;
}

void Collider::endDrag() {
  if (dragging_) released_ = true;
  dragging_ = false;
  velocity_.setZero();
}

SurfaceHit Collider::query(const Vec3& x) const {
  SurfaceHit h;
  switch (desc_.type) {
    case ColliderType::Plane:
      h.distance = desc_.normal.dot(x) - desc_.offset;
      h.normal = desc_.normal;
      return h;
    case ColliderType::HeightField: {
      const Vec3 p = orientation_.conjugate() * (x - position_);
      // vertical distance (HeightField::signedDistance), one cell lookup for both
      const HeightField::Sample f = field_->sample(p.x(), p.z());
      h.distance = p.y() - f.height;
      h.normal = orientation_ * f.normal;
      break;
    }
    case ColliderType::Mesh:
      throw std::logic_error("Collider::query: collider '" + desc_.name +
                             "' is a mesh, detected through the two stages (findColliderContacts)");
  }
  h.velocity = velocityAt(x);
  return h;
}

void Collider::boundingHalfSpace(Vec3* n, double* h) const {
  if (desc_.type == ColliderType::Plane) {
    *n = desc_.normal;
    *h = desc_.offset;
    return;
  }
  *n = orientation_ * Vec3::UnitY();
  *h = n->dot(position_) + field_->maxHeight();
}

TriMesh Collider::worldMesh(double extent) const {
  TriMesh m;
  if (desc_.type == ColliderType::Plane) {
    const Vec3 n = desc_.normal;
    const Vec3 a = (std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(n).normalized();
    const Vec3 b = n.cross(a);
    const Vec3 o = n * desc_.offset;
    const double e = 0.5 * extent;
    m.positions = {o - e * a - e * b, o + e * a - e * b, o + e * a + e * b, o - e * a + e * b};
    // counter-clockwise seen from the +n side: (a x b) = n
    m.triangles = {Vec3i(0, 1, 2), Vec3i(0, 2, 3)};
    return m;
  }
  m = mesh_;
  m.transform(orientation_.toRotationMatrix(), position_);
  return m;
}

}  // namespace d2t
