// How the core seam's operations are dispatched (docs/decisions/0026): the node loops
// over the core of one step (stage 3: M_ce y and M_ce Y summed over the skin; stage 4:
// qdot_i += dt y_i - Y_i dv_c) for n nodes, written three ways:
//   static   Core = RigidCore: fixed sizes, resolved at compile time (what the step does)
//   virtual  the same operations behind an interface chosen per body (a virtual call a node)
//   dynamic  the number of dofs known at run time only (Eigen::Dynamic, as a skeleton's
//            6k), Y one 3n x dofs matrix; no virtual call
// Prints the median of 15 passes per form, alternated, in ms:
//   build/bench/bench_core_dispatch [nodes...]   (default: 2166 9600 41334, the ball's 64^2-256^2)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "sim/body/core/rigid_core.h"

using namespace d2t;

namespace {

struct Skin {  // a skin of n nodes with its coupling columns and y
  std::vector<double> m;
  std::vector<Vec3> u, y, qdot;
  std::vector<Core::Columns> Y;
  Eigen::MatrixXd Yflat;  // (3n x dofs) the same Y for the dynamic form
};

Skin makeSkin(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-1, 1);
  auto v = [&] { return Vec3(d(rng), d(rng), d(rng)); };
  Skin s;
  s.Yflat.resize(3 * n, Core::kDofs);
  for (int i = 0; i < n; ++i) {
    s.m.push_back(1e-3 * (1.5 + d(rng)));
    s.u.push_back(v());
    s.y.push_back(v());
    s.qdot.push_back(Vec3::Zero());
    Core::Columns c;
    for (int k = 0; k < Core::kDofs; ++k) {
      c[size_t(k)] = v();
      s.Yflat.block<3, 1>(3 * i, k) = c[size_t(k)];
    }
    s.Y.push_back(c);
  }
  return s;
}

// the per-body interface the virtual form calls once per node and operation
struct CoreOps {
  virtual ~CoreOps() = default;
  virtual void add(Core::CouplingSum& s, double mi, const Vec3& u, const Vec3& x) const = 0;
  virtual void addColumns(Core::CouplingColumnsSum& s, double mi, const Vec3& u, const Core::Columns& Y) const = 0;
  virtual Vec3 minusCoupled(const Vec3& v, const Core::Columns& Y, const Core::Vector& dv) const = 0;
};
struct RigidOps final : CoreOps {
  void add(Core::CouplingSum& s, double mi, const Vec3& u, const Vec3& x) const override { s.add(mi, u, x); }
  void addColumns(Core::CouplingColumnsSum& s, double mi, const Vec3& u, const Core::Columns& Y) const override {
    s.add(mi, u, Y);
  }
  Vec3 minusCoupled(const Vec3& v, const Core::Columns& Y, const Core::Vector& dv) const override {
    return Core::minusCoupled(v, Y, dv);
  }
};

double ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// one pass of each form; returns a checksum so that nothing is optimised away
double passStatic(Skin& s, const Core::Vector& dv, double dt) {
  Core::CouplingSum my;
  Core::CouplingColumnsSum mY;
  const int n = int(s.m.size());
  for (int i = 0; i < n; ++i) {
    my.add(s.m[i], s.u[i], s.y[i]);
    mY.add(s.m[i], s.u[i], s.Y[i]);
  }
  for (int i = 0; i < n; ++i) s.qdot[i] += Core::minusCoupled(dt * s.y[i], s.Y[i], dv);
  return my.linear.sum() + my.angular.sum() + mY.sums.sum();
}

double passVirtual(Skin& s, const CoreOps& ops, const Core::Vector& dv, double dt) {
  Core::CouplingSum my;
  Core::CouplingColumnsSum mY;
  const int n = int(s.m.size());
  for (int i = 0; i < n; ++i) {
    ops.add(my, s.m[i], s.u[i], s.y[i]);
    ops.addColumns(mY, s.m[i], s.u[i], s.Y[i]);
  }
  for (int i = 0; i < n; ++i) s.qdot[i] += ops.minusCoupled(dt * s.y[i], s.Y[i], dv);
  return my.linear.sum() + my.angular.sum() + mY.sums.sum();
}

double passDynamic(Skin& s, const Eigen::VectorXd& dv, double dt) {
  const int n = int(s.m.size()), dofs = int(dv.size());
  Eigen::VectorXd my = Eigen::VectorXd::Zero(dofs);
  Eigen::MatrixXd mY = Eigen::MatrixXd::Zero(dofs, dofs);
  for (int i = 0; i < n; ++i) {
    const double mi = s.m[i];
    const Vec3& u = s.u[i];
    my.head<3>() += mi * s.y[i];
    my.segment<3>(3) += mi * u.cross(s.y[i]);
    const auto Yi = s.Yflat.middleRows(3 * i, 3);
    mY.topRows<3>() += mi * Yi;
    for (int k = 0; k < dofs; ++k) mY.block<3, 1>(3, k) += mi * u.cross(Vec3(Yi.col(k)));
  }
  for (int i = 0; i < n; ++i) s.qdot[i] += dt * s.y[i] - s.Yflat.middleRows(3 * i, 3) * dv;
  return my.sum() + mY.sum();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {2166, 9600, 41334};
  std::printf("# build/bench/bench_core_dispatch");
  for (int n : sizes) std::printf(" %d", n);
  std::printf("\n# median of 15 alternated passes (stage 3 sums + stage 4 update), ms\n");
  std::printf("nodes,static_ms,virtual_ms,dynamic_ms,checksum_agree\n");
  const Core::Vector dv = (Core::Vector() << 0.1, -0.2, 0.3, 0.01, -0.02, 0.03).finished();
  const Eigen::VectorXd dvDyn = dv;
  const std::unique_ptr<CoreOps> ops = std::make_unique<RigidOps>();
  for (int n : sizes) {
    if (n <= 0) {
      std::fprintf(stderr, "bench_core_dispatch: a node count must be positive, got %d\n", n);
      return 1;
    }
    Skin a = makeSkin(n), b = makeSkin(n), c = makeSkin(n);
    std::vector<double> ts, tv, td;
    double ca = 0, cb = 0, cc = 0;
    for (int r = 0; r < 15; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      ca = passStatic(a, dv, 5e-3);
      ts.push_back(ms(t0));
      t0 = std::chrono::steady_clock::now();
      cb = passVirtual(b, *ops, dv, 5e-3);
      tv.push_back(ms(t0));
      t0 = std::chrono::steady_clock::now();
      cc = passDynamic(c, dvDyn, 5e-3);
      td.push_back(ms(t0));
    }
    const bool agree = std::abs(ca - cb) <= 1e-9 * std::abs(ca) && std::abs(ca - cc) <= 1e-9 * std::abs(ca) &&
                       (a.qdot[0] - c.qdot[0]).norm() <= 1e-12;
    std::printf("%d,%.3f,%.3f,%.3f,%s\n", n, median(ts), median(tv), median(td), agree ? "yes" : "NO");
  }
  return 0;
}
