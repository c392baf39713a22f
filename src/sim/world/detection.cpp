// Collision detection of the world (steps 6-8 and 14): the planes and height fields
// per skin node (World::findContacts, on the CPU or on a body's GPU solver), and the
// two stages against other bodies and mesh colliders (World::findAllContacts).
#include <omp.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "sim/world/world.h"

namespace d2t {

namespace {

// The contact of a skin node with a plane or height field.
NodeContact colliderContact(const Material& mat, const Collider& c, int node, double depth, const Vec3& normal,
                            const Vec3& velocity) {
  NodeContact k;
  k.node = node;
  k.normal = normal;
  k.depth = depth;
  k.surfaceVelocity = velocity;
  k.friction = std::sqrt(mat.friction * c.desc().friction);
  k.restitution = mat.restitution;
  k.stiffnessShare = 1.0;  // a rigid collider takes none of the correction
  return k;
}

// The contacts `from` stage 2 merged into a body's list: one contact per node, the deepest.
void keepDeepest(const std::vector<NodeContact>& from, int nodes, std::vector<NodeContact>& mine) {
  if (from.empty()) return;
  std::vector<int> slot(size_t(nodes), -1);
  for (size_t k = 0; k < mine.size(); ++k) slot[size_t(mine[k].node)] = int(k);
  for (const NodeContact& c : from) {
    int& k = slot[size_t(c.node)];
    if (k < 0) {
      k = int(mine.size());
      mine.push_back(c);
    } else if (c.depth > mine[size_t(k)].depth) {
      mine[size_t(k)] = c;
    }
  }
}

}  // namespace

std::vector<const Collider*> World::queriedColliders() const {
  std::vector<const Collider*> near;  // (mesh colliders go through the two stages: findAllContacts)
  for (const Collider& c : colliders_)
    if (!c.detectedInStages()) near.push_back(&c);
  return near;
}

// The world's GPU stages (the detection pass on a body's solver, the contact camera)
// fall back to their CPU references one way: f() runs while the stage is on; if it
// throws, the stage is reported once and switched off (the CPU's from then on).
template <class F>
bool World::onGpuStage(bool& on, const char* stage, const char* cpuFrom, F f) {
  if (!on) return false;
  try {
    return f();
  } catch (const std::exception& e) {
    warnings_.push_back(std::string("the GPU ") + stage + " failed (" + e.what() + "); " + cpuFrom);
    on = false;
    return false;
  }
}

std::vector<CorePointContact> World::findCorePoints(const LayeredBody& body, double margin) const {
  std::vector<CorePointContact> out;
  if (!settings().response.skinOnCore) return out;
  const BakedBody& m = body.model();
  const CoreState& s = body.core();
  const Mat3 R = s.orientation.toRotationMatrix();
  const double keep = body.desc().material.minLayer;
  const auto [reach, thickest] = body.coreExtent();
  const double layer = keep * thickest;  // (the thickest crushed layer)
  for (const Collider* c : queriedColliders()) {
    Vec3 up;
    double top;
    c->boundingHalfSpace(&up, &top);
    if (up.dot(s.position) - reach > top + layer + margin) continue;  // (the core is far above it)
    for (int i = 0; i < m.nodeCount(); ++i) {
      const Vec3 x = s.position + R * m.core[size_t(i)];
      if (up.dot(x) > top + layer + margin) continue;
      const SurfaceHit h = c->query(x);
      const double depth = keep * m.layer[size_t(i)] - h.distance;
      if (depth > -margin) out.push_back({i, h.normal, depth, h.velocity});
    }
  }
  return out;
}

bool World::detectOnSolver(LayeredBody& body, std::vector<NodeContact>* out) {
  if (!body.skinResident()) return false;
  const std::vector<const Collider*> near = queriedColliders();
  std::vector<ColliderHit> hits;
  if (!onGpuStage(solverDetection_, "collision detection",
                  "contacts with planes and height fields are found on the CPU from now on", [&] {
                    return body.freeMotionSolverShared()->detectColliders(body.view(), near, kContactMargin, &hits, profile_);
                  }))
    return false;
  ++gpuRuns_.detection;
  for (const ColliderHit& h : hits)
    out->push_back(colliderContact(body.desc().material, *near[size_t(h.collider)], h.node, h.depth, h.normal,
                                   h.velocity));
  return true;
}

void World::findContacts(LayeredBody& body, double grow, std::vector<NodeContact>* out) const {
  const int n = body.nodeCount();
  const Material& mat = body.desc().material;
  const std::vector<const Collider*> near = queriedColliders();
  if (near.empty()) return;
  // only the nodes that can come within the margin of a collider's bounding
  // half-space are queried: those of the skin triangles reaching below it, through
  // the skin's hierarchy (grown by the largest displacement), so a body resting on
  // the ground queries its bottom patch, not its whole skin. A node let through the
  // hierarchy costs about ten times a node's query, so where more than a tenth of the
  // skin can reach a collider every node is queried instead
  // (docs/decisions/0019-plane-detection-through-skin-hierarchy.md).
  constexpr double kEveryNodeAbove = 0.1;
  const LayeredState& s = body.state();
  const Mat3 R = s.orientation.toRotationMatrix();
  const SkinBvh& bvh = body.model().skinBvh;
  std::vector<int> triangles;
  bool everyNode = false;
  for (const Collider* c : near) {
    Vec3 up;
    double top;
    c->boundingHalfSpace(&up, &top);
    // -up . x > -(top + margin), x = c + R u
    const Vec3 dir = -(R.transpose() * up);
    const double h = up.dot(s.position) - top - kContactMargin;
    if (bvh.extentBeyond(dir, h, grow) > kEveryNodeAbove) {
      everyNode = true;
      break;
    }
    bvh.trianglesBeyond(dir, h, grow, &triangles);
  }
  std::vector<int> nodes;
  if (everyNode) {
    nodes.resize(size_t(n));
    std::iota(nodes.begin(), nodes.end(), 0);
  } else {
    std::vector<char> candidate(size_t(n), 0);
    for (int t : triangles)
      for (int k = 0; k < 3; ++k) candidate[size_t(body.model().atlas.triangles[size_t(t)][k])] = 1;
    for (int i = 0; i < n; ++i)
      if (candidate[size_t(i)]) nodes.push_back(i);
  }
  const int m = int(nodes.size());
  // each thread collects the contacts of its range of nodes, in node order (a contact
  // list per node would write the whole skin's worth of NodeContact twice a step)
  const int threads = m > 8192 ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<std::vector<NodeContact>> parts(static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    std::vector<NodeContact>& part = parts[size_t(t)];
    for (int j = int(int64_t(m) * t / count); j < int(int64_t(m) * (t + 1) / count); ++j) {
      const int i = nodes[size_t(j)];
      const Vec3 x = body.nodePosition(i);
      double deepest = -kContactMargin;
      bool hit = false;
      NodeContact k;
      for (const Collider* c : near) {
        const SurfaceHit h = c->query(x);
        // penetrating, or within the margin (the body keeps the ones that carry a force)
        if (h.distance >= kContactMargin || (hit && -h.distance <= deepest)) continue;
        deepest = -h.distance;
        hit = true;
        k = colliderContact(mat, *c, i, -h.distance, h.normal, h.velocity);
      }
      if (hit) part.push_back(k);
    }
  }
  for (const std::vector<NodeContact>& part : parts) out->insert(out->end(), part.begin(), part.end());
}

std::vector<std::vector<NodeContact>> World::findAllContacts(bool again) {
  const size_t nb = bodies_.size();
  std::vector<std::vector<NodeContact>> out(nb);
  // 6 proxies, 7 pairs, 8 nodes; all of it step 14 when detecting again
  const Stage proxies = again ? Stage::Redetect : Stage::Proxies;
  const Stage pairStage = again ? Stage::Redetect : Stage::Pairs;
  const Stage nodes = again ? Stage::Redetect : Stage::Nodes;
  std::optional<StageTimer> timer;
  // stage 1 over the bodies and the mesh colliders (placed after them: a pair's b
  // >= nb is a collider)
  // (a body's proxy is grown by its largest displacement: a summary pass on a GPU solver;
  // only where there can be a pair, or the CPU detects)
  std::vector<PlacedProxy> placed(nb);
  std::vector<char> isPlaced(nb, 0);
  auto placedBody = [&](size_t i) -> const PlacedProxy& {
    if (!isPlaced[i]) placed[i] = placeProxy(bodies_[i].layered, bodies_[i].proxy);
    isPlaced[i] = 1;
    return placed[i];
  };
  // planes and height fields (on the body's GPU solver, from its resident state, where it
  // has one); the cores' points against them, then against the mesh colliders
  const double coreMargin = again ? 0.0 : kContactMargin;
  std::vector<std::vector<CorePointContact>> corePoints(nb);
  auto setCorePoints = [&] {
    for (size_t i = 0; i < nb; ++i) bodies_[i].layered.setCorePointContacts(std::move(corePoints[i]));
  };
  eachBody([&](size_t i, Profile& profile) {
    std::optional<StageTimer> t(std::in_place, profile, nodes);
    corePoints[i] = findCorePoints(bodies_[i].layered, coreMargin);
    if (detectOnSolver(bodies_[i].layered, &out[i])) return;
    t.emplace(profile, proxies);
    const double grow = placedBody(i).grow;
    t.emplace(profile, nodes);
    findContacts(bodies_[i].layered, grow, &out[i]);
  });
  std::vector<ColliderPieceRef> pieces;  // (the mesh colliders' pieces, after the bodies)
  for (const Collider& c : colliders_)
    if (c.detectedInStages())
      for (int k = 0; k < int(c.pieces().size()); ++k) pieces.push_back({&c, k});
  if (nb + pieces.size() < 2) {  // (no pair)
    pairStats_ = PairStats{};
    setCorePoints();
    return out;
  }
  timer.emplace(profile_, proxies);
  for (size_t i = 0; i < nb; ++i) placedBody(i);
  for (const ColliderPieceRef& c : pieces) placed.push_back(placeProxy(*c.collider, c.piece));
  PairStats stats;
  const std::vector<ProxyContact> pairs = findProxyContacts(placed, kContactMargin, &stats);
  timer.emplace(profile_, pairStage);
  std::vector<std::vector<NodeContact>> fromBodies(nb);  // stage 2's contacts, per body
  // the core points near each (body, mesh collider), from all its pieces: one row per point
  std::map<std::pair<size_t, size_t>, std::vector<CorePointContact>> nearPieces;
  for (const ProxyContact& p : pairs) {
    std::vector<NodeContact> ca, cb;
    const bool collider = size_t(p.b) >= nb;
    stats.contactNodes += findPairContacts(p, pieces, &ca, &cb);
    if (collider && settings().response.skinOnCore) {
      const ColliderPieceRef& c = pieces[size_t(p.b) - nb];
      findCoreColliderPoints(bodies_[size_t(p.a)].layered, *c.collider, c.piece, p, coreMargin,
                             &nearPieces[{size_t(p.a), size_t(c.collider - colliders_.data())}]);
    }
    if (!collider) {
      for (NodeContact& c : ca) c.other = p.b;
      for (NodeContact& c : cb) c.other = p.a;
      fromBodies[size_t(p.b)].insert(fromBodies[size_t(p.b)].end(), cb.begin(), cb.end());
    }
    fromBodies[size_t(p.a)].insert(fromBodies[size_t(p.a)].end(), ca.begin(), ca.end());
  }
  // a point that several pieces of one collider found (their skirts overlap, they meet at a
  // crease) keeps its deepest: two rows on one point along nearly one normal are singular
  for (auto& [key, list] : nearPieces) {
    std::stable_sort(list.begin(), list.end(),
                     [](const CorePointContact& x, const CorePointContact& y) { return x.point < y.point; });
    for (size_t k = 0; k < list.size();) {
      size_t deepest = k, j = k;
      for (; j < list.size() && list[j].point == list[k].point; ++j)
        if (list[j].depth > list[deepest].depth) deepest = j;
      corePoints[key.first].push_back(list[deepest]);
      k = j;
    }
  }
  pairStats_ = stats;  // (the correction pass overwrites the response pass's figures)
  setCorePoints();
  timer.emplace(profile_, nodes);
  for (size_t i = 0; i < nb; ++i) keepDeepest(fromBodies[i], bodies_[i].nodes(), out[i]);
  return out;
}

// Stage 2 of one pair from stage 1 (b >= the body count: collider piece b - count), on the
// contact camera or the CPU reference; the contact nodes it examined.
int World::findPairContacts(const ProxyContact& p, const std::vector<ColliderPieceRef>& pieces,
                            std::vector<NodeContact>* ca, std::vector<NodeContact>* cb) {
  const size_t nb = bodies_.size();
  LayeredBody& la = bodies_[size_t(p.a)].layered;
  auto stage2 = [&](PairContactFinder* gpu) {
    if (size_t(p.b) >= nb) {
      const ColliderPieceRef& c = pieces[size_t(p.b) - nb];
      return gpu ? gpu->find(la, *c.collider, c.piece, p, ca) : findColliderContacts(la, *c.collider, c.piece, p, ca);
    }
    LayeredBody& lb = bodies_[size_t(p.b)].layered;
    return gpu ? gpu->find(la, lb, p, ca, cb) : findSkinContacts(la, lb, p, ca, cb);
  };
  int found = 0;
  bool camera = pairFinder_ != nullptr;
  const bool done = onGpuStage(camera, "contact camera",
                               "contacts between bodies and with mesh colliders are found on the CPU from now on", [&] {
                                 found = stage2(pairFinder_.get());
                                 return true;
                               });
  if (!camera) pairFinder_ = nullptr;
  if (done) {
    ++gpuRuns_.camera;
    return found;
  }
  ca->clear();
  cb->clear();
  return stage2(nullptr);
}

}  // namespace d2t
