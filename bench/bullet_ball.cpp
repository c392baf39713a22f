// Peer side by side: Bullet's classic soft body (btSoftBody, Debian libbullet-dev) on the
// peer ball drop of scenes/peer_ball_drop.json, printed as one JSON object on stdout.
//
// Scene: ball r = 0.5 m, centre 1.5 m above the ground plane y = 0 (bottom 1 m up),
// rho = 1000 kg/m^3, dt = 1/60 s, 600 steps, gravity 9.81 m/s^2. The ball's surface is an
// icosphere subdivided 4 times: 2,562 nodes, 5,120 triangles (the node count).
//
// Material "as close as the model allows": a classic soft body has no Young's modulus,
// only link stiffness in [0, 1] and a gas pressure. We use fully stiff links (kLST = 1)
// and a pressure chosen so that the ball at rest has the contact patch of the solid
// elastic ball of E = 1 MPa, nu = 0.3 (Hertz):
//   contact radius a = (3 W R / (4 E*))^(1/3),  E* = E / (1 - nu^2),  W = m g
//   mean contact pressure p = W / (pi a^2)
// and Bullet's pressure force is kPR / V per unit area (btSoftBody::applyForces), so
//   kPR = p V.
//
//   bullet_ball [--steps N] [--dt S] [--piterations N]
#include <btBulletDynamicsCommon.h>

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace {

struct Mesh {
  std::vector<btScalar> xyz;  // (nvert x 3)
  std::vector<int> tri;       // (ntri x 3)
};

// unit icosphere: the icosahedron, each triangle split in four `levels` times
Mesh icosphere(int levels) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<std::array<double, 3>> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                          {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                          {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                       {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  auto normalize = [](std::array<double, 3> p) {
    const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return std::array<double, 3>{p[0] / n, p[1] / n, p[2] / n};
  };
  for (auto& p : v) p = normalize(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back(normalize({(v[a][0] + v[b][0]) / 2, (v[a][1] + v[b][1]) / 2, (v[a][2] + v[b][2]) / 2}));
      return mid[key] = int(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> g;
    for (const auto& c : f) {
      const int ab = midpoint(c[0], c[1]), bc = midpoint(c[1], c[2]), ca = midpoint(c[2], c[0]);
      g.push_back({c[0], ab, ca});
      g.push_back({c[1], bc, ab});
      g.push_back({c[2], ca, bc});
      g.push_back({ab, bc, ca});
    }
    f = std::move(g);
  }
  Mesh m;
  for (const auto& p : v)
    for (double x : p) m.xyz.push_back(btScalar(x));
  for (const auto& c : f)
    for (int i : c) m.tri.push_back(i);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 600, piterations = 4;
  double dt = 1.0 / 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dt")) dt = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--piterations")) piterations = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "bullet_ball: unknown option %s (use --steps N, --dt S, --piterations N)\n", argv[i]);
      return 2;
    }
  }
  if (steps < 1 || dt <= 0 || piterations < 1) {
    std::fprintf(stderr, "bullet_ball: --steps and --piterations must be >= 1, --dt > 0\n");
    return 2;
  }
  // scene constants (scenes/peer_ball_drop.json)
  const double radius = 0.5, height = 1.5, rho = 1000, young = 1e6, poisson = 0.3, g = 9.81;
  const double volume = 4.0 / 3.0 * M_PI * radius * radius * radius;
  const double mass = rho * volume;
  // Hertz contact patch of the solid ball at rest, and the pressure that gives it (see top)
  const double eStar = young / (1 - poisson * poisson);
  const double a = std::cbrt(3 * mass * g * radius / (4 * eStar));
  const double kPR = mass * g / (M_PI * a * a) * volume;

  // world: soft-rigid, ground = static box whose top face is y = 0
  auto config = std::make_unique<btSoftBodyRigidBodyCollisionConfiguration>();
  auto dispatcher = std::make_unique<btCollisionDispatcher>(config.get());
  auto broadphase = std::make_unique<btDbvtBroadphase>();
  auto solver = std::make_unique<btSequentialImpulseConstraintSolver>();
  auto world = std::make_unique<btSoftRigidDynamicsWorld>(dispatcher.get(), broadphase.get(), solver.get(),
                                                           config.get());
  world->setGravity(btVector3(0, btScalar(-g), 0));
  btSoftBodyWorldInfo& info = world->getWorldInfo();
  info.m_gravity = btVector3(0, btScalar(-g), 0);
  info.m_sparsesdf.Initialize();
  info.air_density = 0;

  auto groundShape = std::make_unique<btBoxShape>(btVector3(50, 1, 50));
  groundShape->setMargin(0);
  btTransform groundXf;
  groundXf.setIdentity();
  groundXf.setOrigin(btVector3(0, -1, 0));
  auto groundMotion = std::make_unique<btDefaultMotionState>(groundXf);
  btRigidBody::btRigidBodyConstructionInfo gci(0, groundMotion.get(), groundShape.get());
  gci.m_friction = 0.5;
  auto ground = std::make_unique<btRigidBody>(gci);
  world->addRigidBody(ground.get());

  // ball
  Mesh m = icosphere(4);
  for (size_t i = 0; i < m.xyz.size(); ++i) m.xyz[i] = btScalar(m.xyz[i] * radius + (i % 3 == 1 ? height : 0));
  btSoftBody* ball = btSoftBodyHelpers::CreateFromTriMesh(info, m.xyz.data(), m.tri.data(), int(m.tri.size() / 3));
  const int nodes = ball->m_nodes.size();
  ball->m_materials[0]->m_kLST = 1;  // fully stiff links
  ball->m_cfg.kPR = btScalar(kPR);
  ball->m_cfg.kDF = 0.5;   // friction, as the scene
  ball->m_cfg.kDP = 0.01;  // light damping
  ball->m_cfg.kCHR = 1;    // rigid contacts hardness
  ball->m_cfg.piterations = piterations;
  ball->m_cfg.collisions = btSoftBody::fCollision::SDF_RS;
  ball->getCollisionShape()->setMargin(0.01f);
  ball->setTotalMass(btScalar(mass), false);
  world->addSoftBody(ball);

  // run: per step wall time, lowest node, centre-of-mass speed
  std::vector<double> ms;
  double maxPen = 0, restTime = -1, firstStill = -1, minComY = 1e300;
  double lastCom = height, lastSpeed = 0;
  bool resting = false;
  int blownUp = 0;
  for (int s = 1; s <= steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    world->stepSimulation(btScalar(dt), 0, btScalar(dt));
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    double lowest = 1e300;
    btVector3 com(0, 0, 0), vel(0, 0, 0);
    for (int i = 0; i < nodes; ++i) {
      const btSoftBody::Node& n = ball->m_nodes[i];
      lowest = std::min(lowest, double(n.m_x.y()));
      com += n.m_x;
      vel += n.m_v;
    }
    com /= btScalar(nodes);
    vel /= btScalar(nodes);
    if (!std::isfinite(double(com.y()))) { blownUp = s; break; }
    maxPen = std::max(maxPen, -lowest);
    minComY = std::min(minComY, double(com.y()));
    lastCom = com.y();
    lastSpeed = vel.length();
    // at rest: centre-of-mass speed below 1 mm/s from this step to the end
    const bool still = vel.length() < 1e-3;
    if (still && !resting) restTime = s * dt;
    if (still && firstStill < 0) firstStill = s * dt;
    if (!still) restTime = -1;
    resting = still;
  }
  const double msStep = median(ms);
  std::printf("{\n  \"engine\": \"Bullet %d.%02d classic soft body (btSoftBody, pressure + links)\",\n",
              btGetVersion() / 100, btGetVersion() % 100);
  std::printf("  \"nodes\": %d,\n  \"triangles\": %d,\n  \"links\": %d,\n", nodes, ball->m_faces.size(),
              ball->m_links.size());
  std::printf("  \"steps\": %zu,\n  \"dt\": %.9g,\n  \"piterations\": %d,\n  \"kPR\": %.6g,\n", ms.size(), dt,
              piterations, kPR);
  std::printf("  \"ms_per_step\": %.6g,\n  \"ms_per_step_min\": %.6g,\n  \"ms_per_step_max\": %.6g,\n", msStep,
              *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()));
  std::printf("  \"nodes_per_s\": %.6g,\n", msStep > 0 ? nodes * 1000 / msStep : 0.0);
  std::printf("  \"max_penetration\": %.6g,\n  \"final_com_y\": %.6g,\n  \"min_com_y\": %.6g,\n", maxPen, lastCom,
              minComY);
  std::printf("  \"final_speed\": %.6g,\n", lastSpeed);
  std::printf("  \"first_still_time\": %.6g,\n", firstStill);
  std::printf("  \"rests\": %s,\n  \"rest_time\": %.6g,\n  \"blew_up_at_step\": %d\n}\n",
              restTime >= 0 ? "true" : "false", restTime, blownUp);
  world->removeSoftBody(ball);
  delete ball;
  world->removeRigidBody(ground.get());
  return 0;
}
