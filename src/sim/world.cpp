#include "sim/world.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace d2t {

namespace {

/// A contact of one skin point with one collider, for the impulse solver.
struct Contact {
  Vec3 r;          // world offset of the point from the body's com [m]
  Vec3 n;          // collider normal (pointing out of the collider, into the body)
  Vec3 vSurface;   // collider surface velocity [m/s]
  double target;   // required normal relative velocity after the step [m/s]
  double kNormal;  // effective mass along n [kg]
  double friction; // Coulomb coefficient
  double lambda = 0, lambdaT1 = 0, lambdaT2 = 0;  // accumulated impulses [N s]
  Vec3 t1, t2;     // tangent basis
};

Vec3 invInertiaApply(const Mat3& invIw, const Vec3& x) { return invIw * x; }

// effective mass of a point impulse along direction d at offset r:
// 1 / (1/m + d . (I^-1 (r x d)) x r)
double effectiveMass(double invMass, const Mat3& invIw, const Vec3& r, const Vec3& d) {
  const Vec3 rd = r.cross(d);
  return 1.0 / (invMass + rd.dot(invIw * rd));
}

}  // namespace

World::World(const Scene& scene) : scene_(scene) {
  for (const ColliderDesc& c : scene_.colliders) colliders_.emplace_back(c);
  for (const BodyDesc& d : scene_.bodies) {
    Body b;
    b.desc = d;
    b.model = bake(d);
    const BakedBody& m = *b.model;
    // rigid model of stage 1: core + skin nodes as one rigid body about their common com
    b.mass = m.totalMass;
    b.inertiaBody = m.totalInertia;
    b.comOffset = m.comOffset + m.totalCom;  // com in the shape's frame
    for (const Vec3& g : m.restSkin) b.skinPoints.push_back(g - m.totalCom);
    b.surface.positions = b.skinPoints;
    b.surface.triangles = m.atlas.triangles;
    // the scene's position places the shape's origin; the state tracks the com
    b.state.orientation = d.orientation;
    b.state.position = d.position + d.orientation * b.comOffset;
    b.state.velocity = d.velocity;
    b.state.angularVelocity = d.angularVelocity;
    b.initial = b.lastGood = b.state;
    bodies_.push_back(std::move(b));
  }
}

void World::reset() {
  time_ = 0;
  steps_ = 0;
  for (Collider& c : colliders_) c.reset();
  for (Body& b : bodies_) {
    b.state = b.lastGood = b.initial;
    b.stats = BodyStats{};
  }
}

std::vector<std::string> World::takeWarnings() {
  std::vector<std::string> w;
  w.swap(warnings_);
  return w;
}

Energy World::energy(const Body& b) const {
  Energy e;
  const Mat3 R = b.state.orientation.toRotationMatrix();
  const Mat3 Iw = R * b.inertiaBody * R.transpose();
  const Vec3& w = b.state.angularVelocity;
  e.kinetic = 0.5 * b.mass * b.state.velocity.squaredNorm() + 0.5 * w.dot(Iw * w);
  e.gravitational = -b.mass * settings().gravity.dot(b.state.position);
  return e;
}

bool World::healthy(const Body& b) const {
  const BodyState& s = b.state;
  const bool finite = s.position.allFinite() && s.velocity.allFinite() &&
                      s.angularVelocity.allFinite() && s.orientation.coeffs().allFinite();
  return finite && s.velocity.norm() < 1e3 && s.angularVelocity.norm() < 1e4 &&
         s.position.norm() < 1e6;
}

double World::deepestPenetration(const Body& b, Vec3* normal) const {
  double deepest = 0;
  const Mat3 R = b.state.orientation.toRotationMatrix();
  for (const Vec3& p : b.skinPoints) {
    const Vec3 x = b.state.position + R * p;
    for (const Collider& c : colliders_) {
      const SurfaceHit h = c.query(x);
      if (-h.distance > deepest) {
        deepest = -h.distance;
        if (normal) *normal = h.normal;
      }
    }
  }
  return deepest;
}

void World::stepBody(Body& b, double dt) {
  BodyState& s = b.state;
  const Vec3 g = settings().gravity;
  const double invMass = 1.0 / b.mass;
  Mat3 R = s.orientation.toRotationMatrix();
  const Mat3 invIw = R * b.inertiaBody.inverse() * R.transpose();

  // 1 forces: gravity, and the gyroscopic torque -w x (I w) of an asymmetric core
  {
    StageTimer t(profile_, "forces");
    s.velocity += dt * g;
    const Mat3 Iw = R * b.inertiaBody * R.transpose();
    s.angularVelocity += dt * invIw * (-s.angularVelocity.cross(Iw * s.angularVelocity));
  }

  // 2 detection: skin points whose next position (at the current velocity) would be
  //   inside a collider become speculative contacts
  std::vector<Contact> contacts;
  {
    StageTimer t(profile_, "collide");
    const double restThreshold = 2.0 * g.norm() * dt + 0.01;
    for (const Vec3& p : b.skinPoints) {
      const Vec3 r = R * p;
      const Vec3 x = s.position + r;
      for (const Collider& c : colliders_) {
        const SurfaceHit h = c.query(x);
        const Vec3 vRel = s.velocity + s.angularVelocity.cross(r) - h.velocity;
        const double vn = h.normal.dot(vRel);
        if (h.distance + dt * std::min(vn, 0.0) >= 1e-4) continue;
        Contact k;
        k.r = r;
        k.n = h.normal;
        k.vSurface = h.velocity;
        // a fast approach that reaches the surface within this step bounces with the
        // restitution; a slow one closes the gap exactly (resting contact)
        const bool impact = vn < -restThreshold;
        k.target = impact ? -b.desc.material.restitution * vn : -std::max(h.distance, 0.0) / dt;
        k.kNormal = effectiveMass(invMass, invIw, r, k.n);
        k.friction = std::sqrt(b.desc.material.friction * c.desc().friction);
        k.t1 = (std::abs(k.n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(k.n).normalized();
        k.t2 = k.n.cross(k.t1);
        contacts.push_back(k);
      }
    }
    b.stats.contacts = int(contacts.size());
  }

  // 3 response: sequential impulses, non-negative normal impulses, Coulomb friction cone
  {
    StageTimer t(profile_, "respond");
    auto apply = [&](const Vec3& r, const Vec3& impulse) {
      s.velocity += invMass * impulse;
      s.angularVelocity += invInertiaApply(invIw, r.cross(impulse));
    };
    for (int it = 0; it < 30 && !contacts.empty(); ++it) {
      for (Contact& k : contacts) {
        const Vec3 vRel = s.velocity + s.angularVelocity.cross(k.r) - k.vSurface;
        const double dl = k.kNormal * (k.target - k.n.dot(vRel));
        const double old = k.lambda;
        k.lambda = std::max(0.0, old + dl);
        apply(k.r, (k.lambda - old) * k.n);
        // friction, limited by mu times the normal impulse
        const double limit = k.friction * k.lambda;
        for (int a = 0; a < 2; ++a) {
          const Vec3& tdir = a == 0 ? k.t1 : k.t2;
          double& lt = a == 0 ? k.lambdaT1 : k.lambdaT2;
          const Vec3 v2 = s.velocity + s.angularVelocity.cross(k.r) - k.vSurface;
          const double d = -effectiveMass(invMass, invIw, k.r, tdir) * tdir.dot(v2);
          const double o = lt;
          lt = std::clamp(o + d, -limit, limit);
          apply(k.r, (lt - o) * tdir);
        }
      }
    }
  }

  // 4 positions: c += dt v, R <- exp(dt [w]x) R
  {
    StageTimer t(profile_, "integrate");
    s.position += dt * s.velocity;
    const double angle = s.angularVelocity.norm() * dt;
    if (angle > 0)
      s.orientation = Quat(Eigen::AngleAxisd(angle, s.angularVelocity.normalized())) * s.orientation;
    s.orientation.normalize();
  }

  // 5 position correction: push the body out along the deepest contact's normal
  {
    StageTimer t(profile_, "correct");
    // (speculative contacts keep penetration near zero; correcting below a small slop
    //  would lift the body without slowing it and feed a rocking motion energy)
    const double slop = 5e-4;
    for (int it = 0; it < 4; ++it) {
      Vec3 n;
      const double d = deepestPenetration(b, &n);
      if (d <= slop) break;
      s.position += (d - slop) * n;
    }
  }
}

void World::step() {
  profile_.clear();
  const double dt = settings().dt;
  {
    StageTimer t(profile_, "colliders");
    for (Collider& c : colliders_) c.animate(time_ + dt);
  }
  for (Body& b : bodies_) {
    stepBody(b, dt);
    // robustness: a non-finite or runaway state is reported and rolled back
    if (!healthy(b)) {
      std::ostringstream w;
      w << "body '" << b.desc.name << "': numerical blow-up at t = " << time_ + dt
        << " s (non-finite or runaway velocity); reset to its last good state";
      warnings_.push_back(w.str());
      b.state = b.lastGood;  // only healthy states are ever stored there
      b.state.velocity.setZero();
      b.state.angularVelocity.setZero();
      ++b.stats.resets;
    } else {
      b.lastGood = b.state;
    }
  }
  time_ += dt;
  ++steps_;
  // statistics seen by --metrics
  for (Body& b : bodies_) {
    const Mat3 R = b.state.orientation.toRotationMatrix();
    double pen = 0;
    for (const Vec3& p : b.skinPoints) {
      const Vec3 x = b.state.position + R * p;
      b.stats.minHeight = std::min(b.stats.minHeight, x.y());
      for (const Collider& c : colliders_) pen = std::max(pen, -c.query(x).distance);
    }
    b.stats.finalMaxPenetration = pen;
    b.stats.maxPenetration = std::max(b.stats.maxPenetration, pen);
    if (recordTrajectory_)
      b.stats.trajectory.push_back({time_, b.state.position.x(), b.state.position.y(),
                                    b.state.position.z()});
  }
}

}  // namespace d2t
