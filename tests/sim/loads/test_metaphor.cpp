// Localized control metaphors (issue 30): the laws' sums (balanced: no net force or torque;
// the symmetric ones without it too), traction rather than per-node force (the same twist at
// any atlas resolution), the held core's skin settling to the static solve of a twist, the
// eased impulse a free body receives, the rings of neighbours and their corrections (damping,
// mitigation), and the scene's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "sim/loads/metaphor.h"
#include "sim/world/world.h"
#include "static_solve.h"
#include "test_loads.h"
#include "test_shapes.h"

namespace d2t {
namespace {

// A soft cylinder (r 0.5 m, height 2 m, along y; core 0.8) at atlas resolution n.
BodyDesc cylinder(int n) {
  BodyDesc d = test::ball(0.5, n, 1e5);
  d.name = "bar";
  d.shape = parseShape(JsonReader(nlohmann::json::parse(R"({"type": "cylinder", "radius": 0.5, "height": 2})"), "test"));
  d.coreScale = 0.8;
  return d;
}

Scene single(const BodyDesc& d) {
  Scene s;
  s.bodies.push_back(d);
  return s;
}

MetaphorDesc band(const std::string& type, const std::string& mode, bool balanced = false) {
  return test::bandMetaphor("bar", type, mode, 1000, balanced);
}

// The 32^2 cylinder in zero gravity with one metaphor.
Scene floating(const MetaphorDesc& md) {
  Scene sc = single(cylinder(32));
  sc.simulation.gravity = Vec3::Zero();
  sc.metaphors.push_back(md);
  return sc;
}

// The net force and the net torque about the origin of a metaphor's field at rest [N],
// [N m], and the sum of its force magnitudes [N].
struct Sums {
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  double magnitude = 0;
};
Sums sums(const Metaphor& m, const BakedBody& model) {
  Sums s;
  for (size_t k = 0; k < m.nodes().size(); ++k) {
    const Vec3& f = m.fullForces()[k];
    s.force += f;
    s.torque += model.restSkin[size_t(m.nodes()[k])].cross(f);
    s.magnitude += f.norm();
  }
  return s;
}

}  // namespace

// Balanced, every law has no net force and no net torque; the symmetric laws (a wring
// twist, a three-point bend on a centred band) nearly none without it.
TEST(Metaphor, BalancedLawsHaveNoNetForceOrTorque) {
  World w(single(cylinder(32)));
  const BakedBody& model = *w.bodies()[0].model;
  const std::vector<std::pair<std::string, std::string>> laws = {
      {"twist", "wring"}, {"twist", "uniform"}, {"twist", "linear"}, {"bend", "three_point"},
      {"bend", "cantilever"}, {"bend", "stretch"}, {"sphere", ""}, {"flatten", ""}, {"squash", ""}, {"stretch", ""}};
  for (const auto& [type, mode] : laws) {
    MetaphorDesc d = band(type, mode);
    d.center = Vec3(0.1, 0.4, 0);  // (off centre: the unbalanced sums are not zero by symmetry)
    const Sums raw = sums(Metaphor(d, model), model);
    d.balanced = true;
    const Metaphor m(d, model);
    const Sums s = sums(m, model);
    std::printf("%-7s %-11s unbalanced |F| %.3e N |T| %.3e N m; balanced |F| %.1e |T| %.1e (sum |f| %.3e N)\n",
                type.c_str(), mode.c_str(), raw.force.norm(), raw.torque.norm(), s.force.norm(), s.torque.norm(),
                s.magnitude);
    EXPECT_GT(m.nodes().size(), 50u) << type;
    EXPECT_LT(s.force.norm(), 1e-12 * raw.magnitude) << type << " " << mode;
    EXPECT_LT(s.torque.norm(), 1e-12 * raw.magnitude) << type << " " << mode;
  }
  for (const auto& [type, mode] : {std::pair<std::string, std::string>{"twist", "wring"}, {"bend", "three_point"}}) {
    const Sums s = sums(Metaphor(band(type, mode), model), model);
    std::printf("%s %s on the centred band, unbalanced: |F| %.2e N, |T| %.2e N m of sum |f| %.3e N\n", type.c_str(),
                mode.c_str(), s.force.norm(), s.torque.norm(), s.magnitude);
    EXPECT_LT(s.force.norm(), 0.01 * s.magnitude) << type;
    EXPECT_LT(s.torque.norm(), 0.01 * s.magnitude) << type;
    EXPECT_GT(s.magnitude, 10.0) << type;
  }
}

// A traction, not a force per node: the torque of a uniform twist on the band (P times the
// band's area times its lever) is the same at 32^2, 64^2 and 128^2, and the held core's
// skin twists by the same angle.
TEST(Metaphor, ATwistIsTheSameAtAnyAtlasResolution) {
  double torque[3], angle[3];
  const int res[3] = {32, 64, 128};
  for (int k = 0; k < 3; ++k) {
    World w(single(cylinder(res[k])));
    const BakedBody& model = *w.bodies()[0].model;
    const Metaphor m(band("twist", "uniform"), model);
    torque[k] = sums(m, model).torque.y();
    std::vector<Vec3> f(size_t(model.nodeCount()), Vec3::Zero());
    for (size_t i = 0; i < m.nodes().size(); ++i) f[size_t(m.nodes()[i])] = m.fullForces()[i];
    const std::vector<Vec3> q = test::solveStatic(model, f);
    double num = 0, den = 0;  // the mean angle: sum (rho x q).a / sum rho^2 over the band
    for (int i : m.nodes()) {
      const Vec3 rho(model.restSkin[size_t(i)].x(), 0, model.restSkin[size_t(i)].z());
      num += rho.cross(q[size_t(i)]).y();
      den += rho.squaredNorm();
    }
    angle[k] = num / den;
    std::printf("uniform twist of 1 kPa on the band, %d^2: %zu nodes, torque %.4f N m, static angle %.4e rad\n", res[k],
                m.nodes().size(), torque[k], angle[k]);
  }
  // the band's side: 2 pi r h (0.6 m of a 0.5 m radius; the bevel is outside it)
  const double closed = 1000 * 2 * kPi * 0.5 * 0.6 * 0.5;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(torque[k], closed, 0.03 * closed) << res[k];
    EXPECT_NEAR(angle[k], angle[2], 0.05 * std::abs(angle[2])) << res[k];
  }
  EXPECT_GT(angle[2], 1e-4);
}

// The thin-annulus closed form: a uniform tangential traction P on the outer surface of a
// skin layer between a held core of radius a and the surface at b, long enough for plane
// strain, turns the surface by phi = P (b^2 / a^2 - 1) / (2 G) (u_theta = C (r - a^2 / r),
// tau r^2 constant, tau(b) = P). A cylinder 4 m long, its middle 2 m twisted; the angle of
// the band's middle metre (away from its ends) from the static solve, within 10%, for a
// layer of a tenth and of a fifth of the radius.
TEST(Metaphor, ATwistOnALongBandIsTheAnnulusClosedForm) {
  for (const double core : {0.9, 0.8}) {
    BodyDesc d = cylinder(64);
    d.shape = parseShape(JsonReader(nlohmann::json::parse(R"({"type": "cylinder", "radius": 0.5, "height": 4})"), "t"));
    d.coreScale = core;
    World w(single(d));
    const BakedBody& model = *w.bodies()[0].model;
    MetaphorDesc md = band("twist", "uniform");
    md.height = 2;
    const Metaphor m(md, model);
    std::vector<Vec3> f(size_t(model.nodeCount()), Vec3::Zero());
    for (size_t i = 0; i < m.nodes().size(); ++i) f[size_t(m.nodes()[i])] = m.fullForces()[i];
    const std::vector<Vec3> q = test::solveStatic(model, f);
    double num = 0, den = 0;
    int used = 0;
    for (int i : m.nodes()) {
      const Vec3 x = model.restSkin[size_t(i)] + model.comOffset;
      if (std::abs(x.y()) > 0.5) continue;
      const Vec3 rho(x.x(), 0, x.z());
      num += rho.cross(q[size_t(i)]).y();
      den += rho.squaredNorm();
      ++used;
    }
    const double angle = num / den;
    const Material& mat = d.material;
    const double G = mat.young / (2 * (1 + mat.poisson)), a = core * 0.5, b = 0.5;
    const double closed = md.magnitude * (b * b / (a * a) - 1) / (2 * G);
    std::printf("uniform twist of 1 kPa on a 2 m band, core %.1f: angle %.4e rad over %d nodes vs the annulus's %.4e "
                "(%+.1f%%)\n", core, angle, used, closed, 100 * (angle / closed - 1));
    EXPECT_GT(used, 100);
    EXPECT_NEAR(angle, closed, 0.1 * closed) << "core " << core;
  }
}

// A uniform twist on a held core's skin, stepped: the skin settles where K_e q = f.
TEST(Metaphor, AHeldCoresSkinSettlesToTheStaticSolveOfATwist) {
  BodyDesc d = cylinder(32);
  d.material.alpha = 5;
  Scene sc = single(d);
  sc.metaphors.push_back(band("twist", "uniform"));
  World w(sc);
  w.settings().gravity = Vec3::Zero();
  w.rebaseEnergy();
  LayeredBody& body = w.bodies()[0].layered;
  body.settings().fixedCore = true;
  for (int n = 0; n < 800; ++n) w.step(0.005);
  const Metaphor& m = *w.metaphors()[0];
  std::vector<Vec3> f(size_t(body.nodeCount()), Vec3::Zero());
  for (size_t i = 0; i < m.nodes().size(); ++i) f[size_t(m.nodes()[i])] = m.fullForces()[i];
  const std::vector<Vec3> ref = test::solveStatic(body.model(), f);
  const double err = test::fieldError(body.state().q, ref);
  double peak = 0;
  for (const Vec3& q : ref) peak = std::max(peak, q.norm());
  std::printf("held core, uniform twist: skin vs K_e q = f: %.2e (peak %.2e m)\n", err, peak);
  EXPECT_GT(peak, 1e-4);
  EXPECT_LT(err, 1e-4);
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// A free body in zero gravity: an unbalanced cantilever bend eased in and out gives the body
// exactly its impulse (the eased forces summed over the steps), which is the trapezoid's
// within one step's ramp; a balanced one leaves the momentum at zero.
TEST(Metaphor, AFreeBodyGainsTheEasedImpulseAndNoneWhenBalanced) {
  for (bool balanced : {false, true}) {
    MetaphorDesc md = band("bend", "cantilever", balanced);
    md.start = 0.1;
    md.end = 0.6;
    md.easeIn = 0.15;
    md.easeOut = 0.1;
    World w(floating(md));
    const double dt = 0.005;
    const Metaphor& m = *w.metaphors()[0];
    LayeredBody& body = w.bodies()[0].layered;
    Vec3 impulse = Vec3::Zero();
    double eased = 0, sumF = 0;
    for (int n = 0; n < 160; ++n) {
      Metaphor probe(md, body.model());  // the forces the step will take, at its start
      probe.setTime(w.time());
      std::vector<NodeForce> out;
      probe.forces(body, out);
      for (const NodeForce& f : out) {
        impulse += dt * f.force;
        sumF += dt * f.force.norm();
      }
      eased += dt * easeFactor(md, w.time());
      w.step(dt);
    }
    const Vec3 p = body.linearMomentum();
    std::printf("%s cantilever bend, 0.1-0.6 s: momentum |p| %.6e vs impulse %.6e kg m/s; eased time %.4f s vs "
                "trapezoid %.4f s\n", balanced ? "balanced" : "unbalanced", p.norm(), impulse.norm(), eased,
                0.5 - 0.125);
    EXPECT_EQ(m.desc().balanced, balanced);
    EXPECT_NEAR(eased, 0.5 - 0.5 * (0.15 + 0.1), dt);
    if (balanced) {
      EXPECT_LT(p.norm(), 1e-10 * sumF);
    } else {
      EXPECT_GT(impulse.norm(), 1.0);
      EXPECT_LT((p - impulse).norm(), 1e-9 * impulse.norm());
    }
    EXPECT_EQ(w.bodies()[0].stats.resets, 0);
  }
}

// The rings of neighbours from the stencil are the surface mesh's: for every node of a
// cube-map atlas, its first and second rings found through stencil slots 1-6 equal those
// found through the triangles, across the patches' seams and at the cube's corners. A node
// away from the corners has 6 and 12; a closed triangulated sphere cannot have 6 everywhere
// (Euler: the sum of 6 - valence is 12), so the 12 nodes of valence 5 sit at the corners.
TEST(Metaphor, RingsAreTheSurfaceMeshsAcrossSeamsAndCorners) {
  for (int N : {32, 64}) {
    const Atlas a = buildCubeMapAtlas(N);
    const int n = a.nodeCount();
    std::vector<std::set<int>> adj(static_cast<size_t>(n));
    for (const Vec3i& t : a.triangles)
      for (int k = 0; k < 3; ++k) {
        adj[size_t(t[k])].insert(t[(k + 1) % 3]);
        adj[size_t(t[(k + 1) % 3])].insert(t[k]);
      }
    int mismatched = 0, valence5 = 0, regular = 0, regularOnSeams = 0, curvature = 0;
    std::vector<std::array<std::vector<int>, 2>> rings(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      rings[size_t(i)] = Metaphor::rings(a.stencil, {i});
      std::set<int> l1 = adj[size_t(i)], l2;
      for (int j : l1)
        for (int k : adj[size_t(j)])
          if (k != i && !l1.count(k)) l2.insert(k);
      const auto& r = rings[size_t(i)];
      if (std::set<int>(r[0].begin(), r[0].end()) != l1 || std::set<int>(r[1].begin(), r[1].end()) != l2 ||
          r[0].size() != l1.size() || r[1].size() != l2.size())
        ++mismatched;
      curvature += 6 - int(r[0].size());
      valence5 += r[0].size() == 5;
    }
    for (int i = 0; i < n; ++i) {  // the nodes with no valence-5 node within two rings
      const auto& r = rings[size_t(i)];
      bool nearCorner = r[0].size() != 6;
      for (int l = 0; l < 2; ++l)
        for (int j : r[size_t(l)]) nearCorner = nearCorner || rings[size_t(j)][0].size() != 6;
      if (nearCorner) continue;
      ++regular;
      EXPECT_EQ(r[0].size(), 6u) << "node " << i;
      EXPECT_EQ(r[1].size(), 12u) << "node " << i;
      bool seam = false;  // (a neighbour on another patch)
      for (int j : r[0]) seam = seam || a.texelPatch[size_t(a.nodeTexel[size_t(j)])] !=
                                            a.texelPatch[size_t(a.nodeTexel[size_t(i)])];
      regularOnSeams += seam;
    }
    // the valence-5 nodes are the ones nearest the cube's corners
    double farthest = 0;
    for (int i = 0; i < n; ++i)
      if (rings[size_t(i)][0].size() == 5)
        farthest = std::max(farthest, 1 - a.nodeDirection[size_t(i)].cwiseAbs().normalized().dot(Vec3::Ones().normalized()));
    std::printf("atlas %d: %d nodes, %d rings unlike the triangles'; %d of valence 5 (sum of 6 - valence %d; at most "
                "%.3f from a corner's direction); %d nodes 6 / 12 (%d on seams)\n", N, n, mismatched, valence5,
                curvature, farthest, regular, regularOnSeams);
    EXPECT_EQ(mismatched, 0);
    EXPECT_EQ(curvature, 12);
    EXPECT_EQ(valence5, 12);
    EXPECT_LT(farthest, 0.05);
    EXPECT_GT(regular, n / 2);
    EXPECT_GT(regularOnSeams, 12 * (cubeMapPatchSize(N) - 4));
  }
}

namespace {

// The same state stepped once by two worlds whose metaphors differ only in their
// corrections: after k steps of the plain one (a wring twist in zero gravity at dt = 1/60 s),
// its state with the skin's velocity stirred by a wave of 2 cm/s (so that ring nodes move
// both with and against the twist) is restored into both, and both step.
struct OneStepApart {
  LayeredState plain, corrected;
  Vec3 plainP, correctedP, plainL, correctedL;  // linear, angular momentum (about the centre of mass)
  double taken = 0;                             // sum m_j |dqdot_j| of the corrections [kg m/s]
  const Metaphor* metaphor = nullptr;
  OneStepApart(const std::array<double, 2>& damping, double mitigation, int k) {
    MetaphorDesc md = band("twist", "wring");
    md.magnitude = 3000;
    md.easeIn = 0.05;
    Scene sc = floating(md);
    World a(sc);
    sc.metaphors[0].neighborDamping = damping;
    sc.metaphors[0].mitigation = mitigation;
    World b(sc);
    const double dt = 1.0 / 60;
    for (int n = 0; n < k; ++n) a.step(dt);
    WorldState at = a.capture();
    const BakedBody& model = *a.bodies()[0].model;
    for (size_t i = 0; i < at.bodies[0].layered.state.qdot.size(); ++i) {
      const Vec3& g = model.restSkin[i];
      at.bodies[0].layered.state.qdot[i] +=
          0.02 * Vec3(std::sin(11 * g.x() + 5 * g.y()), std::cos(7 * g.z() - 4 * g.y()), std::sin(3 * g.y() + 9 * g.z()));
    }
    a.restore(at);
    b.restore(at);
    a.step(dt);
    b.step(dt);
    plain = a.bodies()[0].layered.state();
    corrected = b.bodies()[0].layered.state();
    LayeredBody &la = a.bodies()[0].layered, &lb = b.bodies()[0].layered;
    plainP = la.linearMomentum();
    correctedP = lb.linearMomentum();
    plainL = la.angularMomentum(la.centerOfMass());
    correctedL = lb.angularMomentum(lb.centerOfMass());
    std::vector<char> inRings(plain.qdot.size(), 0);
    for (int l = 0; l < 2; ++l)
      for (int j : b.metaphors()[0]->ring(l)) inRings[size_t(j)] = 1;
    for (size_t i = 0; i < plain.qdot.size(); ++i)
      if (inRings[i]) taken += model.nodeMass[i] * (corrected.qdot[i] - plain.qdot[i]).norm();
    static std::vector<std::shared_ptr<Metaphor>> keep;  // (the metaphor outlives its world)
    keep.push_back(b.metaphors()[0]);
    metaphor = keep.back().get();
    EXPECT_EQ(a.bodies()[0].stats.resets + b.bodies()[0].stats.resets, 0);
  }
};

// The corrections are internal and leave the core alone: the core's state bit for bit as
// without them, the body's linear and angular momentum as without them (the region takes
// what the rings lose) to rounding.
void expectSameCoreAndMomentum(const OneStepApart& r) {
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(r.corrected.position[k], r.plain.position[k]);
    EXPECT_EQ(r.corrected.velocity[k], r.plain.velocity[k]);
    EXPECT_EQ(r.corrected.angularVelocity[k], r.plain.angularVelocity[k]);
  }
  EXPECT_EQ(r.corrected.orientation.coeffs(), r.plain.orientation.coeffs());
  const double dP = (r.correctedP - r.plainP).norm(), dL = (r.correctedL - r.plainL).norm();
  std::printf("  momentum: the corrections took %.3e kg m/s from the rings; linear momentum off by %.1e, angular "
              "by %.1e kg m^2/s (of %.3e); the core bit for bit\n", r.taken, dP, dL, r.plainL.norm());
  EXPECT_GT(r.taken, 1e-3);
  EXPECT_LT(dP, 1e-12 * r.taken);
  EXPECT_LT(dL, 1e-5 * r.plainL.norm());  // (O(dt): q moves with the corrected qdot over the step)
}

}  // namespace

// Neighbour damping at dt = 1/60 s (Greway's frame): the first ring's skin velocity
// (relative to the core) exactly halved, the second's three quarters kept, every node
// outside the rings and the region bit for bit as without it; q follows the velocity over
// the step; the core is left alone and the body's momentum is kept (the region takes what
// the rings lose).
TEST(Metaphor, DampingScalesTheRingsVelocityLeavesTheCoreAndKeepsTheMomentum) {
  const OneStepApart r({0.5, 0.25}, 0, 12);
  expectSameCoreAndMomentum(r);
  const Metaphor& m = *r.metaphor;
  std::vector<int> level(r.plain.qdot.size(), 0);
  for (int l = 0; l < 2; ++l)
    for (int j : m.ring(l)) level[size_t(j)] = l + 1;
  for (int j : m.nodes()) level[size_t(j)] = -1;  // (the region: it absorbs the momentum)
  double moved = 0, qGap = 0;
  const double dt = 1.0 / 60;
  for (size_t i = 0; i < level.size(); ++i) {
    const Vec3 &v = r.plain.qdot[i], &c = r.corrected.qdot[i];
    const double keep = level[i] == 1 ? 0.5 : level[i] == 2 ? 0.75 : 1.0;
    if (level[i] >= 0) {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(c[k], keep * v[k]) << "node " << i << " ring " << level[i];
    }
    if (level[i] > 0) moved = std::max(moved, (v - c).norm());
    qGap = std::max(qGap, (r.corrected.q[i] - (r.plain.q[i] + dt * (c - v))).norm());
  }
  std::printf("damping: rings of %zu and %zu nodes, their velocity changed by up to %.3e m/s; q off its velocity's "
              "by %.1e m\n", m.ring(0).size(), m.ring(1).size(), moved, qGap);
  EXPECT_GT(m.ring(0).size(), 20u);
  EXPECT_GT(m.ring(1).size(), 20u);
  EXPECT_GT(moved, 1e-4);
  EXPECT_LT(qGap, 1e-15);
}

// Mitigation: a ring node moving along its parents' force loses half of that component
// (m = 0.5 at dt = 1/60 s); one moving against it is left alone, bit for bit; the core is
// left alone and the body's momentum kept.
TEST(Metaphor, MitigationTakesTheComponentAlongTheForceOnly) {
  const OneStepApart r({0, 0}, 0.5, 6);
  expectSameCoreAndMomentum(r);
  const Metaphor& m = *r.metaphor;
  int along = 0, against = 0;
  double worst = 0, changed = 0;
  for (int l = 0; l < 2; ++l)
    for (size_t k = 0; k < m.ring(l).size(); ++k) {
      const size_t j = size_t(m.ring(l)[k]);
      const Vec3& n = m.ringDirections(l)[k];
      const Vec3 &v = r.plain.qdot[j], &c = r.corrected.qdot[j];
      if (v.dot(n) <= 0) {
        ++against;
        for (int i = 0; i < 3; ++i) EXPECT_EQ(c[i], v[i]) << "node " << j;
      } else {
        ++along;
        worst = std::max(worst, (c - (v - 0.5 * v.dot(n) * n)).norm() / v.norm());
        changed = std::max(changed, (c - v).norm());
      }
    }
  std::printf("mitigation: %d ring nodes moving along their parents' force (velocity changed by up to %.2e m/s, "
              "the rule kept to %.1e), %d against\n", along, changed, worst, against);
  EXPECT_GT(along, 10);
  EXPECT_GT(against, 10);
  EXPECT_GT(changed, 1e-4);
  EXPECT_LT(worst, 1e-14);
}

// Greway's node-picked frame: orthonormal; on a body turned rigidly (its skin at rest) it is
// the core's rotation to 1e-12, so the forces are the core frame's; once the skin under the
// metaphor is twisted it turns with it, away from the core's.
TEST(Metaphor, TheNodeFrameTurnsWithTheSkinAndIsTheCoresWhenRigid) {
  BodyDesc d = cylinder(32);
  d.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, -0.5).normalized()));
  MetaphorDesc md = band("twist", "uniform");
  md.frame = "nodes";
  md.magnitude = 5000;
  Scene sc = single(d);
  sc.metaphors.push_back(md);
  World w(sc);
  LayeredBody& body = w.bodies()[0].layered;
  const Metaphor& m = *w.metaphors()[0];
  ASSERT_EQ(m.frameNodes().size(), 3u);
  const Mat3 F = m.frameRotation(body), R = body.core().orientation.toRotationMatrix();
  EXPECT_LT((F.transpose() * F - Mat3::Identity()).norm(), 1e-12);
  EXPECT_NEAR(F.determinant(), 1.0, 1e-12);
  EXPECT_LT((F - R).norm(), 1e-12) << "rigid: the core's frame";
  MetaphorDesc core = md;
  core.frame = "core";
  Metaphor inCore(core, body.model());
  std::vector<NodeForce> a, b;
  m.forces(body, a);
  inCore.forces(body, b);
  ASSERT_EQ(a.size(), b.size());
  double gap = 0, size = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    gap = std::max(gap, (a[i].force - b[i].force).norm());
    size = std::max(size, b[i].force.norm());
  }
  EXPECT_LT(gap, 1e-12 * size);
  // the skin twisted on a held core: the frame nodes turn about the axis with it
  body.settings().fixedCore = true;
  w.settings().gravity = Vec3::Zero();
  w.rebaseEnergy();
  for (int n = 0; n < 200; ++n) w.step(0.005);
  const Mat3 turned = m.frameRotation(body) * body.core().orientation.toRotationMatrix().transpose();
  const double angle = Eigen::AngleAxisd(turned).angle();
  std::printf("node frame: rigid gap %.1e; after the twist it turned %.4f rad from the core's\n", (F - R).norm(), angle);
  EXPECT_GT(angle, 1e-3);
  EXPECT_LT((m.frameRotation(body).transpose() * m.frameRotation(body) - Mat3::Identity()).norm(), 1e-12);
  EXPECT_EQ(w.bodies()[0].stats.resets, 0);
}

// The scene's metaphors: read with their defaults; every error names the file and the field.
TEST(Metaphor, SceneErrorsNameTheField) {
  const auto scene = [](const std::string& metaphor) {
    return nlohmann::json::parse(R"({"bodies": [{"name": "bar", "shape": {"type": "sphere", "radius": 0.5}},
                                                {"name": "tube", "shape": {"type": "tube"}}],
                                     "metaphors": [)" + metaphor + "]}");
  };
  const auto error = [&](const std::string& metaphor) {
    try {
      const Scene s = parseScene(scene(metaphor), "m.json");
      World w(s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string ok = R"({"body": "bar", "type": "twist", "region": {"cylinder": {"radius": 0.6, "height": 0.4}},
                             "magnitude": 2000, "start": 0.5, "end": 2, "ease_in": 0.3, "ease_out": 0.3})";
  const Scene s = parseScene(scene(ok), "m.json");
  ASSERT_EQ(s.metaphors.size(), 1u);
  EXPECT_EQ(s.metaphors[0].mode, "wring");
  EXPECT_EQ(s.metaphors[0].name, "metaphor0");
  EXPECT_EQ(s.metaphors[0].neighborDamping[0], 0.0);
  EXPECT_EQ(s.metaphors[0].mitigation, 0.0);
  std::string on = ok;
  on.insert(on.size() - 1, R"(, "neighbor_damping": true, "mitigation": true)");
  const Scene t = parseScene(scene(on), "m.json");
  EXPECT_EQ(t.metaphors[0].neighborDamping[0], 0.5);
  EXPECT_EQ(t.metaphors[0].neighborDamping[1], 0.25);
  EXPECT_EQ(t.metaphors[0].mitigation, 0.5);
  EXPECT_EQ(error(ok), "(accepted)");
  const std::pair<const char*, const char*> cases[] = {
      {R"({"body": "nobody", "type": "twist", "region": {"sphere": {}}, "magnitude": 1})", "m.json: /metaphors/0/body"},
      {R"({"body": "tube", "type": "twist", "region": {"sphere": {}}, "magnitude": 1})", "character"},
      {R"({"body": "bar", "type": "wave", "region": {"sphere": {}}, "magnitude": 1})", "m.json: /metaphors/0/type"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}, "box": {}}, "magnitude": 1})",
       "m.json: /metaphors/0/region"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 0})", "m.json: /metaphors/0/magnitude"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "end": 1, "ease_in": 0.6,
           "ease_out": 0.6})", "m.json: /metaphors/0/ease_out"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "neighbor_damping": [0.5]})",
       "m.json: /metaphors/0/neighbor_damping: expected true, false or two fractions"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "neighbor_damping": [1, 0.2]})",
       "m.json: /metaphors/0/neighbor_damping"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "mitigation": 1.5})",
       "m.json: /metaphors/0/mitigation"},
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "frame": "bones"})",
       "m.json: /metaphors/0/frame"},
      {R"({"body": "bar", "type": "squash", "region": {"sphere": {"center": [5, 0, 0], "radius": 0.1}}, "magnitude": 1})",
       "m.json: /metaphors/0: metaphor 'metaphor0' on body 'bar': its sphere region holds no skin node"},
      {R"({"body": "bar", "type": "twist", "region": {"nodes": [3, 2000000]}, "magnitude": 1})",
       "is not a node of the body"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string e = error(text);
    EXPECT_NE(e.find(expected), std::string::npos) << text << "\n -> " << e;
  }
}

}  // namespace d2t
