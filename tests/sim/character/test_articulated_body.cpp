// The soft articulated character (dissertation ch. 4, appendices B-C) against physics: the
// kinematics against the rest shape, rigid motions and finite differences; the lumped
// kinetic energy against 1/2 v^T M v of the exact mass matrix; free fall of a posed tube
// against the closed form; free flight's momenta and energy; a hanging chain's equilibrium
// and the weight its top joint carries; a joint spring's backward-Euler oscillation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/character/articulated_body.h"
#include "sim/character/tube.h"
#include "character/free_flight.h"
#include "character/soft_material.h"

namespace d2t {
namespace {

CharacterModelPtr tube(int bones, double stiffness, double damping, int nodes = 292, double young = 5e4,
                       JointType joint = JointType::Ball, int influences = 4) {
  TubeSpec t;
  t.bones = bones;
  t.stiffness = stiffness;
  t.damping = damping;
  t.nodes = nodes;
  t.joint = joint;
  CharacterDesc d = tubeCharacter("tube", t, softMaterial(young));
  d.maxInfluences = influences;
  return bakeCharacter(d);
}

Quat rotation(double angle, const Vec3& axis) { return Quat(Eigen::AngleAxisd(angle, axis.normalized())); }

TEST(CharacterModel, TubeHasTheAskedNodesAMassThatAddsUpAndWeightsThatSumToOne) {
  const CharacterModelPtr m = tube(5, 0, 0);
  EXPECT_EQ(m->nodeCount(), 292);  // 10 x 29 + 2, as Table 4.1's tube
  double mass = 0;
  for (double v : m->tetVolume) mass += 1000 * v;
  // the solid inside the inner surface, the layer's tets: the capsule's volume, short of the
  // polygonal rings' area (10 sides: sin(2 pi / 10) 10 / (2 pi) = 0.935 of the circle's)
  const double r = 0.1, L = 1.7, capsule = kPi * r * r * (L - 2 * r) + 4.0 / 3.0 * kPi * r * r * r;
  std::printf("tube: %d nodes, %zu tets, mass %.3f kg (the round capsule's %.3f kg), links", m->nodeCount(),
              m->tets.size(), m->totalMass, 1000 * capsule);
  for (double ml : m->linkMass) std::printf(" %.3f", ml);
  std::printf("\n");
  EXPECT_GT(m->totalMass, 0.9 * 1000 * capsule);
  EXPECT_LT(m->totalMass, 1000 * capsule);
  for (const Influences& in : m->influence) {
    double s = 0;
    for (int a = 0; a < in.count; ++a) s += in.weight[size_t(a)];
    EXPECT_NEAR(s, 1.0, 1e-14);
  }
  // the links and nodes hold the layer's tets and the inner solid, no more, no less
  TubeSpec spec;
  const CharacterDesc d = tubeCharacter("tube", spec, softMaterial());
  double solid = 0;
  for (const InteriorPiece& p : d.mesh.interior) solid += 1000 * p.volume;
  EXPECT_NEAR(m->totalMass, mass + solid, 1e-12 * m->totalMass);
  // the symmetric tube's links mirror each other, but for the prisms' split, which lumps
  // more of a prism's mass on its lower-indexed (here: left) skin vertices and less on
  // their inner points (layer_elements.h; 3.5 % of the end link's mass here)
  EXPECT_NEAR(m->linkMass[0], m->linkMass[4], 0.05 * m->linkMass[0]);
  EXPECT_NEAR(m->linkMass[1], m->linkMass[3], 0.05 * m->linkMass[1]);
}

TEST(CharacterModel, BadSkeletonsAreRefusedNamingTheField) {
  TubeSpec t;
  CharacterDesc d = tubeCharacter("worm", t, softMaterial());
  CharacterDesc bad = d;
  bad.skeleton.bones.clear();
  try {
    bakeCharacter(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("character 'worm': skeleton.bones"), std::string::npos) << e.what();
  }
  bad = d;
  bad.skeleton.joints[1].child = 9;
  try {
    bakeCharacter(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("skeleton.joints[1].child: bone 9 does not exist"), std::string::npos)
        << e.what();
  }
  t.bones = 0;
  EXPECT_THROW(tubeCharacter("worm", t, softMaterial()), InputError);
}

TEST(ArticulatedBody, BindPoseIsTheRestShapeAndARigidMotionMovesTheSkinRigidly) {
  const CharacterModelPtr m = tube(5, 0, 0);
  ArticulatedBody bind(m);
  double err = 0;
  for (int p = 0; p < m->nodeCount(); ++p) err = std::max(err, (bind.nodePosition(p) - m->restSkin[size_t(p)]).norm());
  EXPECT_LT(err, 1e-12);
  CharacterPlacement pl;
  pl.position = Vec3(0.3, 1.2, -0.7);
  pl.orientation = rotation(1.1, Vec3(1, 2, 3));
  ArticulatedBody moved(m, pl);
  err = 0;
  for (int p = 0; p < m->nodeCount(); ++p)
    err = std::max(err, (moved.nodePosition(p) - (pl.position + pl.orientation * m->restSkin[size_t(p)])).norm());
  EXPECT_LT(err, 1e-12);
}

// x(t) of every node along the state's velocities, by central differences, against L_p v.
TEST(ArticulatedBody, NodeVelocityIsTheDerivativeOfThePosition) {
  const CharacterModelPtr m = tube(5, 0, 0);
  ArticulatedBody body(m);
  body.pose({rotation(0.3, Vec3(0, 0, 1)), rotation(-0.5, Vec3(0, 1, 1)), rotation(0.2, Vec3(1, 0, 0)),
             rotation(0.7, Vec3(0, 1, 0))});
  CharacterState& s = body.state();
  unsigned seed = 7;
  const auto rnd = [&]() {
    seed = seed * 1103515245u + 12345u;
    return double((seed >> 8) % 2001) / 1000.0 - 1.0;
  };
  for (CoreState& b : s.bones) {
    b.velocity = Vec3(rnd(), rnd(), rnd());
    b.angularVelocity = Vec3(rnd(), rnd(), rnd());
  }
  for (int p = 0; p < m->nodeCount(); ++p) {
    s.q[size_t(p)] = 0.01 * Vec3(rnd(), rnd(), rnd());
    s.qdot[size_t(p)] = Vec3(rnd(), rnd(), rnd());
  }
  const CharacterState s0 = s;
  const auto at = [&](double h) {
    for (size_t b = 0; b < s.bones.size(); ++b) {
      s.bones[b].position = s0.bones[b].position + h * s0.bones[b].velocity;
      s.bones[b].orientation = integrateBodyRotation(s0.bones[b].orientation, h < 0 ? Vec3(-s0.bones[b].angularVelocity) : s0.bones[b].angularVelocity, std::abs(h));
    }
    for (size_t p = 0; p < s.q.size(); ++p) s.q[p] = s0.q[p] + h * s0.qdot[p];
    return body.skinPositions();
  };
  const double h = 1e-5;
  const std::vector<Vec3> xp = at(h), xm = at(-h);
  s = s0;
  double err = 0, scale = 0;
  for (int p = 0; p < m->nodeCount(); ++p) {
    const Vec3 fd = (xp[size_t(p)] - xm[size_t(p)]) / (2 * h);
    err = std::max(err, (fd - body.nodeVelocity(p)).norm());
    scale = std::max(scale, fd.norm());
  }
  std::printf("L_p v against central differences: %.2e of %.2e m/s\n", err, scale);
  EXPECT_LT(err, 1e-7 * scale);
}

// 1/2 v^T M v with M = sum_p m_p L_p^T L_p + the links (appendix B), assembled from L_p
// column by column (unit velocities), against the kinetic energy of the lumped masses.
TEST(ArticulatedBody, KineticEnergyIsHalfVTransposeMV) {
  const CharacterModelPtr m = tube(3, 0, 0, 120);
  ArticulatedBody body(m);
  body.pose({rotation(0.4, Vec3(0, 0, 1)), rotation(-0.6, Vec3(0, 1, 0))});
  CharacterState& s = body.state();
  const int k = m->boneCount(), n = m->nodeCount(), dofs = 6 * k + 3 * n;
  for (int p = 0; p < n; ++p) s.q[size_t(p)] = 0.005 * Vec3(std::sin(p), std::cos(2.0 * p), std::sin(3.0 * p));
  const auto setVelocity = [&](const Eigen::VectorXd& v) {
    for (int b = 0; b < k; ++b) {
      s.bones[size_t(b)].velocity = v.segment<3>(6 * b);
      s.bones[size_t(b)].angularVelocity = v.segment<3>(6 * b + 3);
    }
    for (int p = 0; p < n; ++p) s.qdot[size_t(p)] = v.segment<3>(6 * k + 3 * p);
  };
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(dofs, dofs);
  std::vector<Eigen::MatrixXd> L(size_t(n), Eigen::MatrixXd::Zero(3, dofs));
  for (int d = 0; d < dofs; ++d) {
    setVelocity(Eigen::VectorXd::Unit(dofs, d));
    for (int p = 0; p < n; ++p) L[size_t(p)].col(d) = body.nodeVelocity(p);
  }
  for (int p = 0; p < n; ++p) M += m->nodeMass[size_t(p)] * L[size_t(p)].transpose() * L[size_t(p)];
  for (int b = 0; b < k; ++b) {
    M.block<3, 3>(6 * b, 6 * b) += m->linkMass[size_t(b)] * Mat3::Identity();
    M.block<3, 3>(6 * b + 3, 6 * b + 3) += m->linkInertia[size_t(b)];
  }
  Eigen::VectorXd v(dofs);
  for (int d = 0; d < dofs; ++d) v(d) = std::sin(1.3 * d + 0.2);
  setVelocity(v);
  const double ke = body.kineticEnergy(), quad = 0.5 * v.dot(M * v);
  std::printf("kinetic energy %.12e J, 1/2 v^T M v %.12e J\n", ke, quad);
  EXPECT_NEAR(ke, quad, 1e-12 * quad);
}

// A posed tube whose joint springs rest in that pose falls as one rigid body: every bone
// at v0 + g t, positions along the discrete (symplectic Euler) closed form, no joint
// bends, no skin displacement (1e-12, decision D4).
TEST(ArticulatedBody, PosedTubeFallsAsTheClosedFormWithoutBending) {
  const CharacterModelPtr m = tube(5, 50, 1);
  CharacterPlacement pl;
  pl.position = Vec3(0, 2, 0);
  pl.velocity = Vec3(0.5, 1.0, -0.2);
  ArticulatedBody body(m, pl);
  const std::vector<Quat> rho = {rotation(0.3, Vec3(0, 0, 1)), rotation(-0.4, Vec3(0, 1, 0)),
                                 rotation(0.5, Vec3(1, 1, 0)), rotation(0.2, Vec3(0, 0, 1))};
  body.pose(rho);
  for (int j = 0; j < 4; ++j) body.setJointTarget(j, rho[size_t(j)]);
  const CharacterState s0 = body.state();
  const std::vector<Vec3> x0 = body.skinPositions();
  const Vec3 g(0, -9.81, 0);
  const double dt = 1.0 / 60;
  const int steps = 60;
  for (int i = 0; i < steps; ++i) body.step(dt, g);
  // symplectic Euler: v_n = v0 + n g dt, x_n = x0 + n dt v0 + n (n + 1) / 2 g dt^2
  const Vec3 vn = pl.velocity + steps * dt * g;
  const Vec3 shift = steps * dt * pl.velocity + 0.5 * steps * (steps + 1) * dt * dt * g;
  double ev = 0, ew = 0, eq = 0, ex = 0, angle = 0;
  for (size_t b = 0; b < s0.bones.size(); ++b) {
    ev = std::max(ev, (body.state().bones[b].velocity - vn).norm());
    ew = std::max(ew, body.state().bones[b].angularVelocity.norm());
  }
  for (int p = 0; p < m->nodeCount(); ++p) {
    eq = std::max({eq, body.state().q[size_t(p)].norm(), body.state().qdot[size_t(p)].norm()});
    ex = std::max(ex, (body.nodePosition(p) - (x0[size_t(p)] + shift)).norm());
  }
  for (int j = 0; j < 4; ++j)
    angle = std::max(angle, std::abs(body.jointAngle(j) - rotationVector(rho[size_t(j)]).norm()));
  std::printf("posed tube, 1 s of free fall: |v - closed form| %.1e m/s, |omega| %.1e, |q|,|qdot| %.1e, "
              "nodes %.1e m, joint angles %.1e rad\n", ev, ew, eq, ex, angle);
  EXPECT_LT(ev, 1e-12);
  EXPECT_LT(ew, 1e-12);
  EXPECT_LT(eq, 1e-12);
  EXPECT_LT(ex, 1e-12);
  EXPECT_LT(angle, 1e-12);
}

// No gravity, a bent, spinning, moving tube with soft skin and joint springs: the linear
// momentum kept to 1e-9, the angular momentum drifting less than 1 % a second, the energy
// never growing, the joints held.
TEST(ArticulatedBody, FreeFlightKeepsMomentaAndNeverGainsEnergy) {
  const CharacterModelPtr m = tube(5, 20, 0.2, 292, 2e4);
  CharacterPlacement pl;
  pl.velocity = Vec3(0.4, -0.3, 0.2);
  pl.angularVelocity = Vec3(0.5, 2.0, -1.0);
  ArticulatedBody body(m, pl);
  std::vector<Quat> rho = {rotation(0.4, Vec3(0, 0, 1)), rotation(-0.3, Vec3(0, 1, 0)),
                           rotation(0.3, Vec3(1, 1, 0)), rotation(0.5, Vec3(0, 0, 1))};
  body.pose(rho);  // (the springs pull it back to straight)
  const FreeFlight f = flyFree(body, 1.0 / 60, 120);
  std::printf("free flight, 2 s at dt 1/60: |dP| %.1e of %.2e kg m/s, |dL|/|L| %.2f %%/s, energy %.4f -> %.4f J "
              "(largest rise %.1e J), joint gap %.1e m\n", f.dP, f.P0.norm(), 100 * f.dLPerSecond, f.e0, f.e, f.grows,
              f.gap);
  EXPECT_LT(f.dP, 1e-9 * f.P0.norm());
  EXPECT_LT(f.dLPerSecond, 0.01);
  EXPECT_LE(f.grows, 1e-9 * f.e0);
  EXPECT_LT(f.gap, 1e-3 * 0.1);
}

// A chain of 5 bones hung from a ball joint to the world, joint stiffness 0, released 20
// degrees off the vertical: it comes to hang vertical, and the joint to the world carries
// the weight of everything below it.
TEST(ArticulatedBody, HangingChainHangsVerticalAndItsTopJointCarriesTheWeight) {
  TubeSpec t;
  t.bones = 5;
  t.stiffness = 0;
  t.damping = 20;
  CharacterDesc d = tubeCharacter("chain", t, softMaterial(2e5));
  Joint top;
  top.parent = -1;
  top.child = 0;
  top.anchor = Vec3::Zero();
  top.damping = 150;
  d.skeleton.joints.push_back(top);
  const CharacterModelPtr m = bakeCharacter(d);
  CharacterPlacement pl;
  pl.position = Vec3(0, 3, 0);
  pl.orientation = rotation(-kPi / 2 + 20 * kPi / 180, Vec3(0, 0, 1));  // x down, 20 degrees off
  ArticulatedBody body(m, pl);
  const Vec3 g(0, -9.81, 0);
  const double dt = 1.0 / 60;
  for (int i = 0; i < 900; ++i) body.step(dt, g);
  double tilt = 0;
  for (int b = 0; b < m->boneCount(); ++b) {
    const Vec3 axis = body.state().bones[size_t(b)].orientation * Vec3::UnitX();
    tilt = std::max(tilt, std::acos(std::min(1.0, -axis.y())));
  }
  const int topRows = m->skeleton.rowCount() - 3;  // the world joint's rows come last
  const Vec3 impulse = body.jointImpulses().segment<3>(topRows);
  const double weight = m->totalMass * 9.81;
  std::printf("hanging chain after 15 s: largest tilt %.3f deg, speed %.1e m/s; the top joint's mu / dt (%.3f, %.3f, "
              "%.3f) N for a weight of %.3f N\n", tilt * 180 / kPi, body.linearMomentum().norm() / m->totalMass,
              impulse.x() / dt, impulse.y() / dt, impulse.z() / dt, weight);
  EXPECT_LT(tilt, 0.5 * kPi / 180);
  // the joint's rows hold g = parent - child: mu pulls the child towards the world anchor
  EXPECT_NEAR(std::abs(impulse.y()) / dt, weight, 0.01 * weight);
}

// Joint limits: a horizontal chain, its first bone fixed to the world, its other joints
// free (no spring) but limited to 0.4 rad: gravity bends each free joint onto its limit
// (without them the chain would hang vertical, 90 degrees at the first), and no joint goes
// past its limit by more than 0.1 degree at any step; the limit rows only push (the
// chain rests against them, not beyond them).
TEST(ArticulatedBody, JointLimitsHoldTheChainAtTheirAngle) {
  TubeSpec t;
  t.bones = 4;
  t.stiffness = 0;
  t.damping = 2;
  CharacterDesc d = tubeCharacter("chain", t, softMaterial(2e5));
  const double limit = 0.4;
  for (Joint& j : d.skeleton.joints) j.limit = limit;
  Joint root;
  root.type = JointType::Fixed;
  root.parent = -1;
  root.child = 0;
  root.anchor = Vec3::Zero();
  d.skeleton.joints.push_back(root);
  const CharacterModelPtr m = bakeCharacter(d);
  CharacterPlacement pl;
  pl.position = Vec3(0, 3, 0);
  ArticulatedBody body(m, pl);
  const Vec3 g(0, -9.81, 0);
  double worst = 0;
  for (int i = 0; i < 600; ++i) {
    body.step(1.0 / 60, g);
    for (int j = 0; j + 1 < int(m->skeleton.joints.size()); ++j) worst = std::max(worst, body.jointAngle(j));
  }
  std::printf("limited chain: largest angle over the run %.4f rad (limit %.1f); at 10 s:", worst, limit);
  for (int j = 0; j + 1 < int(m->skeleton.joints.size()); ++j) std::printf(" %.4f", body.jointAngle(j));
  std::printf(" rad\n");
  EXPECT_LT(worst, limit + 0.1 * kPi / 180);
  for (int j = 0; j + 1 < int(m->skeleton.joints.size()); ++j) EXPECT_NEAR(body.jointAngle(j), limit, 0.01) << j;
  // the same chain without limits bends its first free joint far past 0.4 rad
  for (Joint& j : d.skeleton.joints) j.limit = 0;
  ArticulatedBody free(bakeCharacter(d), pl);
  double freeWorst = 0;
  for (int i = 0; i < 300; ++i) {
    free.step(1.0 / 60, g);
    freeWorst = std::max(freeWorst, free.jointAngle(0));
  }
  EXPECT_GT(freeWorst, 2 * limit);
}

// The signed angle of joint j about z (the planar tests below).
double angleAboutZ(const ArticulatedBody& b, int j) {
  const Skeleton& sk = b.model().skeleton;
  return rotationVector(relativeRotation(sk, sk.joints[size_t(j)], b.state().bones, b.placement().orientation)).z();
}

// One bone held fixed to the world, a second on a hinge with a spring, stiff skin, no
// gravity, each node on one bone: the hinge angle follows backward Euler's discrete
// oscillator theta'' = -Omega^2 theta, Omega^2 = k / I_h, with I_h the child's inertia about
// the hinge from the model (twice its kinetic energy at unit hinge rate): amplitude (1 +
// Omega^2 dt^2)^(-1/2) and phase atan(Omega dt) a step (1 % of the amplitude).
TEST(ArticulatedBody, JointSpringOscillatesAsBackwardEuler) {
  TubeSpec t;
  t.bones = 2;
  t.joint = JointType::Hinge;
  t.stiffness = 500;
  t.damping = 0;
  CharacterDesc d = tubeCharacter("arm", t, softMaterial(1e7));
  d.maxInfluences = 1;
  Joint root;
  root.type = JointType::Fixed;
  root.parent = -1;
  root.child = 0;
  root.anchor = Vec3::Zero();
  d.skeleton.joints.push_back(root);
  const CharacterModelPtr m = bakeCharacter(d);
  ArticulatedBody body(m);
  const double theta0 = 0.05;
  body.pose({rotation(theta0, Vec3::UnitZ()), Quat::Identity()});
  // I_h: the child turning at unit rate about the hinge (the anchor, world z)
  {
    CharacterState& s = body.state();
    const Vec3 a = body.childAnchor(0);
    CoreState& c = s.bones[1];
    c.velocity = Vec3::UnitZ().cross(c.position - a);
    c.angularVelocity = c.orientation.conjugate() * Vec3::UnitZ();
  }
  const double Ih = 2 * body.kineticEnergy();
  body.state().bones[1].velocity.setZero();
  body.state().bones[1].angularVelocity.setZero();
  const double dt = 1.0 / 60, omega = std::sqrt(t.stiffness / Ih);
  double x = angleAboutZ(body, 0), v = 0, err = 0;
  for (int i = 0; i < 90; ++i) {
    body.step(dt, Vec3::Zero());
    v = (v - dt * omega * omega * x) / (1 + dt * dt * omega * omega);  // backward Euler
    x += dt * v;
    err = std::max(err, std::abs(angleAboutZ(body, 0) - x));
  }
  std::printf("joint spring: I_h %.4f kg m^2, Omega %.3f rad/s (Omega dt %.3f); 90 steps: angle %.5f rad, "
              "backward Euler's %.5f, largest difference %.2e rad (%.2f %% of theta0)\n", Ih, omega, omega * dt,
              angleAboutZ(body, 0), x, err, 100 * err / theta0);
  EXPECT_LT(err, 0.01 * theta0);
}

// A cantilever of 4 bones held level at its root (a fixed joint to the world), the other
// joints hinges with springs, under gravity, stiff skin, come to rest: each joint bends by
// the moment of everything outboard of it (the bones' shares of the nodes by their weights
// and the links) over its stiffness, theta_j = tau_j / k_j (2 %, theta < 0.1).
TEST(ArticulatedBody, CantileverSagsByTheClosedFormAngles) {
  TubeSpec t;
  t.bones = 4;
  t.joint = JointType::Hinge;
  t.stiffness = 0;
  CharacterDesc d = tubeCharacter("branch", t, softMaterial(1e7));
  Joint root;
  root.type = JointType::Fixed;
  root.parent = -1;
  root.child = 0;
  d.skeleton.joints.push_back(root);
  const double g = 9.81;
  // the moments at joints 1..3 at bind (lever arms along x), from the model's masses
  const CharacterModelPtr probe = bakeCharacter(d);
  std::vector<double> tau(3, 0.0);
  for (int j = 1; j <= 3; ++j) {
    const double xj = d.skeleton.joints[size_t(j - 1)].anchor.x();
    for (int b = j; b < 4; ++b) tau[size_t(j - 1)] += probe->linkMass[size_t(b)] * g * (probe->skeleton.bones[size_t(b)].bindPosition.x() - xj);
    for (int p = 0; p < probe->nodeCount(); ++p) {
      const Influences& in = probe->influence[size_t(p)];
      for (int a = 0; a < in.count; ++a)
        if (in.bone[size_t(a)] >= j)
          tau[size_t(j - 1)] += probe->nodeMass[size_t(p)] * in.weight[size_t(a)] * g * (probe->restSkin[size_t(p)].x() - xj);
    }
  }
  for (int j = 0; j < 3; ++j) {
    d.skeleton.joints[size_t(j)].stiffness = tau[size_t(j)] / 0.05;  // (a 0.05 rad bend each)
    d.skeleton.joints[size_t(j)].damping = 0.3 * d.skeleton.joints[size_t(j)].stiffness;
  }
  const CharacterModelPtr m = bakeCharacter(d);
  ArticulatedBody body(m);
  for (int i = 0; i < 600; ++i) body.step(1.0 / 60, Vec3(0, -g, 0));
  double worst = 0;
  for (int j = 0; j < 3; ++j) {
    const double expected = -tau[size_t(j)] / d.skeleton.joints[size_t(j)].stiffness;
    const double got = angleAboutZ(body, j);
    std::printf("cantilever joint %d: moment %.2f N m, angle %.5f rad, closed form %.5f rad\n", j + 1, tau[size_t(j)],
                got, expected);
    worst = std::max(worst, std::abs(got / expected - 1));
  }
  EXPECT_LT(worst, 0.02);
}

Collider groundPlane(double friction = 0.5) {
  ColliderDesc d;
  d.name = "ground";
  d.type = ColliderType::Plane;
  d.normal = Vec3::UnitY();
  d.offset = 0;
  d.friction = friction;
  return Collider(d);
}

// A 5-bone tube dropped flat from 0.3 m onto a frictionless ground: every active contact
// row leaves the node's normal velocity at its target (0, or landing on the surface) to 1e-9
// with a push (lambda >= 0); it comes to rest straight (every joint within 1 degree of the
// flat pose, the static solve's by symmetry), no node more than 1 mm under the ground, its
// horizontal momentum kept. (With friction 0.5 it rests bent by 2.7 degrees: the ground holds
// the bend of the landing against the soft joint springs, 50 N m/rad under a 48 kg tube.)
TEST(ArticulatedBody, TubeDroppedFlatLandsRestsStraightAndItsRowsOnlyPush) {
  const CharacterModelPtr m = tube(5, 50, 1);
  CharacterPlacement pl;
  pl.position = Vec3(-0.85, 0.4, 0);  // (the tube's axis 0.4 m up: its skin 0.3 m above the ground)
  ArticulatedBody body(m, pl);
  const Collider ground = groundPlane(0.0);
  const std::vector<const Collider*> colliders = {&ground};
  const double dt = 1.0 / 60;
  double residual = 0, minLambda = 0, lowest = 0;
  int touching = 0, most = 0;
  for (int i = 0; i < 240; ++i) {
    body.step(dt, Vec3(0, -9.81, 0), colliders);
    for (const CharacterContact& c : body.contacts()) {
      residual = std::max(residual, std::abs(c.residual));
      minLambda = std::min(minLambda, c.lambda);
    }
    touching += body.contacts().empty() ? 0 : 1;
    most = std::max(most, int(body.contacts().size()));
    for (const Vec3& x : body.skinPositions()) lowest = std::min(lowest, x.y());
  }
  double angle = 0;
  for (int j = 0; j < 4; ++j) angle = std::max(angle, body.jointAngle(j));
  const double speed = body.linearMomentum().norm() / m->totalMass;
  std::printf("tube dropped flat, 4 s: %d steps in contact (up to %d nodes), row residual %.1e m/s, smallest lambda "
              "%.1e N s, lowest node %.2f mm, largest joint angle %.3f deg, com %.4f m, speed %.1e m/s\n", touching,
              most, residual, minLambda, 1000 * lowest, angle * 180 / kPi, body.centreOfMass().y(), speed);
  EXPECT_GT(touching, 150);
  EXPECT_LT(residual, 1e-9);
  EXPECT_GE(minLambda, 0.0);
  EXPECT_LT(angle, kPi / 180);
  EXPECT_GT(lowest, -1e-3);
  EXPECT_LT(speed, 1e-2);
  EXPECT_GT(body.centreOfMass().y(), 0.05);  // (resting on its skin, not through it)
}

// A tube dropped across a height field's ridges rests on them: no node under the surface by
// more than 1 mm, the rows at their targets with pushes only, at rest.
TEST(ArticulatedBody, TubeRestsOnAHeightField) {
  const CharacterModelPtr m = tube(5, 50, 1);
  ColliderDesc d;
  d.name = "ridges";
  d.type = ColliderType::HeightField;
  d.size = 6;
  d.amplitude = 0.05;
  d.wavelength = 0.8;
  d.resolution = 128;
  const Collider field(d);
  CharacterPlacement pl;
  pl.position = Vec3(-0.85, 0.45, 0.1);
  pl.orientation = rotation(0.4, Vec3::UnitY());
  ArticulatedBody body(m, pl);
  const std::vector<const Collider*> colliders = {&field};
  double residual = 0, minLambda = 0, deepest = 0;
  for (int i = 0; i < 240; ++i) {
    body.step(1.0 / 60, Vec3(0, -9.81, 0), colliders);
    for (const CharacterContact& c : body.contacts()) {
      residual = std::max(residual, std::abs(c.residual));
      minLambda = std::min(minLambda, c.lambda);
    }
    for (const Vec3& x : body.skinPositions()) deepest = std::min(deepest, field.query(x).distance);
  }
  const double speed = body.linearMomentum().norm() / m->totalMass;
  std::printf("tube on a height field, 4 s: %zu nodes in contact, residual %.1e m/s, smallest lambda %.1e N s, "
              "deepest node %.2f mm, speed %.1e m/s\n", body.contacts().size(), residual, minLambda, 1000 * deepest,
              speed);
  EXPECT_FALSE(body.contacts().empty());
  EXPECT_LT(residual, 1e-9);
  EXPECT_GE(minLambda, 0.0);
  EXPECT_GT(deepest, -1e-3);
  EXPECT_LT(speed, 2e-2);
}

// The documented range (E 1e3-1e7 Pa, dt 1e-3 to 1/30 s, joint stiffness 0-1e4 N m/rad),
// a tube dropped tilted onto the ground at the corners of it: everything finite, no energy
// gained (the total at the end at most the total at the start), the joints held.
TEST(ArticulatedBody, RobustOverTheDocumentedRange) {
  const Collider ground = groundPlane();
  const std::vector<const Collider*> colliders = {&ground};
  for (double young : {1e3, 1e7})
    for (double dt : {1e-3, 1.0 / 30})
      for (double kj : {0.0, 1e4}) {
        const CharacterModelPtr m = tube(5, kj, kj > 0 ? 0.1 * kj : 0.0, 120, young);
        CharacterPlacement pl;
        pl.position = Vec3(-0.8, 0.6, 0);
        pl.orientation = rotation(0.3, Vec3::UnitZ());
        ArticulatedBody body(m, pl);
        const Vec3 g(0, -9.81, 0);
        const double e0 = body.kineticEnergy() + body.potentialEnergy(g);
        const int steps = int(std::lround(1.5 / dt));
        bool finite = true;
        double gap = 0;
        for (int i = 0; i < steps && finite; ++i) {
          body.step(dt, g, colliders);
          for (const CoreState& b : body.state().bones) finite = finite && b.position.allFinite() && b.velocity.allFinite();
          for (int j = 0; j < 4; ++j) gap = std::max(gap, body.jointPositionError(j));
        }
        const double e1 = body.kineticEnergy() + body.potentialEnergy(g);
        std::printf("E %.0e Pa, dt %.4f s, k_j %.0e: energy %.2f -> %.2f J, joint gap %.1e m, com %.3f m\n", young, dt,
                    kj, e0, e1, gap, body.centreOfMass().y());
        EXPECT_TRUE(finite);
        EXPECT_LE(e1, e0 + 1e-9 * std::abs(e0));
        EXPECT_LT(gap, 1e-2);
        EXPECT_GT(body.centreOfMass().y(), 0.0);
      }
}

// A long tangled run: a tube of 8 ball-jointed bones with no springs, thrown spinning and
// tumbling onto the ground, 10 s at dt 1/60: the joints' position error stays below 1e-3
// of the bones' radius at every step.
TEST(ArticulatedBody, JointsHoldOverALongTangledRun) {
  const CharacterModelPtr m = tube(8, 0, 0.01, 292);
  CharacterPlacement pl;
  pl.position = Vec3(-0.85, 1.2, 0);
  pl.orientation = rotation(0.7, Vec3(1, 2, 0.5));
  pl.velocity = Vec3(1, 2, -0.5);
  pl.angularVelocity = Vec3(3, -6, 4);
  ArticulatedBody body(m, pl);
  std::vector<Quat> pose;
  for (int j = 0; j < 7; ++j) pose.push_back(rotation(0.5, Vec3(j % 2 ? 1 : 0, 1, j % 3)));
  body.pose(pose);
  const Collider ground = groundPlane();
  double worst = 0;
  for (int i = 0; i < 600; ++i) {
    body.step(1.0 / 60, Vec3(0, -9.81, 0), {&ground});
    for (int j = 0; j < 7; ++j) worst = std::max(worst, body.jointPositionError(j));
  }
  const double radius = m->skeleton.bones[0].radius;
  std::printf("tangled run, 10 s: largest joint error %.2e m (%.1e of the radius)\n", worst, worst / radius);
  EXPECT_LT(worst, 1e-3 * radius);
}

}  // namespace
}  // namespace d2t
