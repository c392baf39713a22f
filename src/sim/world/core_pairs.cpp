// Step 15's part between two bodies' cores (policy `skin_on_core`): a soft ball stacked on
// a soft ball rests core on crushed skin on crushed skin on core. Each skin keeps
// Material::minLayer of its layer on its own core (core_contact.h) and the skins' rows
// keep the skins apart, but neither row sees both crushed layers at once: under a heavy
// load the two responses, each with the other's surface as given, let the cores creep
// into each other. Here, as a rigid contact between the cores grown by their crushed
// layers: the pair's closing speed at the deepest core point is taken out by an
// inelastic impulse on the two bodies (rigidified; equal and opposite), and what is left
// of the overlap moves them apart (the body above, under gravity, as shock propagation
// does; else by inverse mass). docs/decisions/0027-skin-limits-on-the-core.md.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sim/contact/body_contact.h"
#include "sim/world/world.h"

namespace d2t {

namespace {

// From how many nodes a body's core points are probed across the threads.
constexpr int kParallelProbes = 1024;

// Body b's core seen from world point x: the ray from the core's anchor a through x (the
// core is the shape scaled by s toward a, f = a + s (g - a); an explicit core instead)
// gives the core's surface point there (world), b's crushed layer there (minLayer of the
// layer |g - f|) and x's signed distance from the core's surface with its outward normal
// (s sd(a + (x - a) / s): exact for a sphere and a round tube). False where b's core
// gives no answer (x at the anchor; an explicit core of a torus).
struct CoreProbe {
  Vec3 surface = Vec3::Zero(), normal = Vec3::UnitY();
  double distance = 0, crushed = 0;
};

bool probeCore(const LayeredBody& b, const Vec3& x, CoreProbe* out) {
  const BodyDesc& d = b.desc();
  if (!d.shape) return false;
  const Shape& shape = *d.shape;
  const CoreState& s = b.core();
  const Vec3 off = b.model().comOffset;  // (the shape's frame is the body's + comOffset)
  const Vec3 p = s.orientation.conjugate() * (x - s.position) + off;
  const Vec3 a = shape.coreAnchor(p);
  const double r = (p - a).norm();
  if (!(r > 0)) return false;
  const Vec3 dir = (p - a) / r;
  const bool star = shape.topology() == ShapeTopology::Star;
  // |g - a|: the shape's surface along the ray (a torus: from its signed distance)
  const double toSurface = star ? shape.radius(dir) : r - shape.signedDistance(p);
  double toCore = 0;
  if (const Shape* core = d.coreShape.get()) {
    if (!star) return false;
    toCore = core->radius(dir);
    out->distance = core->signedDistance(p);
    out->normal = s.orientation * core->normal(p);
  } else {
    const double sc = d.coreScale;
    const Vec3 onShape = a + (p - a) / sc;
    toCore = sc * toSurface;
    out->distance = sc * shape.signedDistance(onShape);
    out->normal = s.orientation * shape.normal(onShape);
  }
  out->surface = s.position + s.orientation * (a + toCore * dir - off);
  out->crushed = d.material.minLayer * (toSurface - toCore);
  return std::isfinite(out->distance) && std::isfinite(out->crushed) && out->normal.allFinite() &&
         out->surface.allFinite();
}

// The overlap of a's core with b's core, each grown by its crushed layer: the depth [m]
// (> 0: too near), the point (world, on a's core) and the normal out of b (world).
struct CoreOverlap {
  double depth = -1e300;
  Vec3 point = Vec3::Zero(), normal = Vec3::UnitY();
};

// From a's core points (its nodes') the deepest in b's grown core, then the nearest pair
// of the two surfaces by alternating projections (a's point -> its nearest on b's core ->
// a's core point toward it): the nodes are a few degrees apart, the cores' nearest points
// anywhere between them. The result (sign: -1 with the normal turned, a and b swapped)
// replaces out where deeper.
void deepestOverlap(const LayeredBody& a, const LayeredBody& b, double sign, CoreOverlap* out) {
  constexpr int kProjections = 6;
  const BakedBody& m = a.model();
  const CoreState& s = a.core();
  const Mat3 R = s.orientation.toRotationMatrix();
  const double keep = a.desc().material.minLayer;
  const auto [reachB, thickestB] = b.coreExtent();
  const double near = reachB + b.desc().material.minLayer * thickestB + keep * a.coreExtent().second;
  const Vec3 cb = b.core().position;
  // (the nodes across the threads, each thread's deepest kept; the deepest of those, the
  // lowest node of equal depths: the same seed for any thread count)
  const int n = m.nodeCount();
  const int threads = n >= kParallelProbes ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<std::pair<double, int>> deepest(size_t(threads), {-1e300, -1});
  bool unanswered = false;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::pair<double, int> mine{-1e300, -1};
#pragma omp for schedule(static)
    for (int i = 0; i < n; ++i) {
      const Vec3 x = s.position + R * m.core[size_t(i)];
      if ((x - cb).norm() > near) continue;
      CoreProbe p;
      if (!probeCore(b, x, &p)) {
#pragma omp atomic write
        unanswered = true;
        continue;
      }
      const double depth = keep * m.layer[size_t(i)] + p.crushed - p.distance;
      if (depth > mine.first) mine = {depth, i};
    }
    deepest[size_t(omp_get_thread_num())] = mine;
  }
  if (unanswered) return;
  int seed = -1;
  double seedDepth = -1e300;
  for (const auto& [depth, i] : deepest)
    if (i >= 0 && (depth > seedDepth || (depth == seedDepth && i < seed))) seedDepth = depth, seed = i;
  if (seed < 0) return;
  Vec3 x = s.position + R * m.core[size_t(seed)];
  CoreOverlap best{seedDepth, x, Vec3::UnitY()};
  for (int k = 0; k < kProjections; ++k) {
    CoreProbe onB, onA;
    if (!probeCore(b, x, &onB)) return;
    if (!probeCore(a, x - onB.distance * onB.normal, &onA)) return;
    x = onA.surface;
    if (!probeCore(b, x, &onB)) return;
    const double depth = onA.crushed + onB.crushed - onB.distance;
    if (k == 0 || depth > best.depth) best = {depth, x, onB.normal};
  }
  if (best.depth > out->depth) *out = {best.depth, best.point, sign * best.normal};
}

}  // namespace

void World::separateCores() {
  const ResponsePolicies& policy = settings().response;
  if (!policy.skinOnCore || !policy.correction || bodies_.size() < 2) return;
  StageTimer timer(profile_, Stage::Correct);
  const Vec3 g = settings().gravity;
  for (size_t ia = 0; ia < bodies_.size(); ++ia)
    for (size_t ib = ia + 1; ib < bodies_.size(); ++ib) {
      LayeredBody& a = bodies_[ia].layered;
      LayeredBody& b = bodies_[ib].layered;
      const auto [reachA, thickestA] = a.coreExtent();
      const auto [reachB, thickestB] = b.coreExtent();
      // (each core grown by its crushed layer lies within reach + minLayer thickest of
      // its centre)
      const double grownA = reachA + a.desc().material.minLayer * thickestA;
      const double grownB = reachB + b.desc().material.minLayer * thickestB;
      if ((a.core().position - b.core().position).norm() > grownA + grownB) continue;
      // (the normal out of b into a: a's points against b's core, b's against a's, the deeper)
      CoreOverlap o;
      deepestOverlap(a, b, 1.0, &o);
      deepestOverlap(b, a, -1.0, &o);
      if (!(o.depth > 0)) continue;
      const bool fixedA = a.settings().fixedCore, fixedB = b.settings().fixedCore;
      if (fixedA && fixedB) continue;
      const RigidMotion ra = rigidMotion(a), rb = rigidMotion(b);
      // the closing speed at the point, out by an inelastic impulse j n on a, -j n on b
      const double closing = -o.normal.dot(ra.velocityAt(o.point) - rb.velocityAt(o.point));
      if (closing > 0) {
        const double wa = fixedA ? 0 : 1 / ra.effectiveMass(o.point, o.normal);
        const double wb = fixedB ? 0 : 1 / rb.effectiveMass(o.point, o.normal);
        const double j = closing / (wa + wb);
        if (!fixedA) a.applyRigidImpulse(j * o.normal, o.point);
        if (!fixedB) b.applyRigidImpulse(-j * o.normal, o.point);
      }
      // the overlap left: apart along n, the lower body (along gravity) held as in shock
      // propagation, else by inverse mass
      double shareA = fixedA ? 0 : fixedB ? 1 : rb.mass / (ra.mass + rb.mass);
      if (!fixedA && !fixedB && g.norm() > 0) {
        const double up = -g.normalized().dot(o.normal);  // (> 0: a is above b)
        if (std::abs(up) > 0.5) shareA = up > 0 ? 1 : 0;
      }
      if (shareA > 0) a.liftCoreBy(shareA * o.depth * o.normal);
      if (shareA < 1) b.liftCoreBy(-(1 - shareA) * o.depth * o.normal);
    }
}

}  // namespace d2t
