// Localized control metaphors (issue 30): the laws' sums (balanced: no net force or torque;
// the symmetric ones without it too), traction rather than per-node force (the same twist at
// any atlas resolution), the held core's skin settling to the static solve of a twist, the
// eased impulse a free body receives, and the scene's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

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
    Scene sc = single(cylinder(32));
    sc.simulation.gravity = Vec3::Zero();
    sc.metaphors.push_back(md);
    World w(sc);
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
      {R"({"body": "bar", "type": "bend", "region": {"sphere": {}}, "magnitude": 1, "neighbor_damping": [0.5, 0.25]})",
       "m.json: /metaphors/0/neighbor_damping: not built yet"},
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
