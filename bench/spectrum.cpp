// The bake report's smallest stiffness eigenvalue (stiffnessSpectrum: block LOBPCG with a
// two-level preconditioner) against Spectra's shift-invert Lanczos on a CHOLMOD
// factorisation of K_e, on the first body of a scene at several atlas resolutions: the
// eigenvalue each finds, the work, and the time (median of 3). Figures for
// docs/decisions/0024-stiffness-spectrum-lobpcg.md; built when Debian's libspectra-dev is
// installed.
//   build/bench/bench_spectrum [scene.json] [resolutions...]   (default: ball_drop, 32 64 128 256)
#include <Eigen/CholmodSupport>
#include <Spectra/SymEigsShiftSolver.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/model/bake_report.h"
#include "sim/model/tet_fem.h"
#include "sim/scene/scene.h"

using namespace d2t;

namespace {

using Llt = Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>>;

// Shift-invert at 0 on A = M^-1/2 K M^-1/2: y = A^-1 x = M^1/2 K^-1 M^1/2 x
struct InverseOp {
  using Scalar = double;
  const Llt* llt = nullptr;
  Eigen::VectorXd mSqrt;
  Eigen::Index rows() const { return mSqrt.size(); }
  Eigen::Index cols() const { return mSqrt.size(); }
  void set_shift(double) {}
  void perform_op(const double* x, double* y) const {
    Eigen::Map<const Eigen::VectorXd> in(x, rows());
    Eigen::Map<Eigen::VectorXd>(y, rows()) = mSqrt.cwiseProduct(llt->solve(Eigen::VectorXd(mSqrt.cwiseProduct(in))));
  }
};

struct SpectraResult {
  double eigenvalue = 0;
  bool ok = false;
  int solves = 0;
};

SpectraResult spectraSmallest(const BakedBody& body) {
  SpectraResult out;
  const int n = body.nodeCount();
  Llt llt(assembleK(body));
  if (llt.info() != Eigen::Success) return out;  // K not positive definite: no shift-invert at 0
  InverseOp op{&llt, Eigen::VectorXd(3 * n)};
  for (int i = 0; i < n; ++i) op.mSqrt.segment<3>(3 * i).setConstant(std::sqrt(body.nodeMass[i]));
  Spectra::SymEigsShiftSolver<InverseOp> es(op, 1, std::min(3 * n, 6), 0.0);
  es.init();
  es.compute(Spectra::SortRule::LargestMagn, 1000, 1e-8);
  out.ok = es.info() == Spectra::CompInfo::Successful;
  if (out.ok) out.eigenvalue = es.eigenvalues()[0];
  out.solves = static_cast<int>(es.num_operations());
  return out;
}

template <class F>
double medianMs(F f) {
  std::vector<double> t;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

}  // namespace

int main(int argc, char** argv) try {
  std::string scene = std::string(D2T_SOURCE_DIR) + "/scenes/ball_drop.json";
  std::vector<int> resolutions;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 5 && a.compare(a.size() - 5, 5, ".json") == 0) scene = a;
    else resolutions.push_back(std::atoi(a.c_str()));
  }
  if (resolutions.empty()) resolutions = {32, 64, 128, 256};
  const Scene s = loadScene(scene);
  if (s.bodies.empty()) throw std::runtime_error(scene + ": no bodies");
  std::printf("# %s, body '%s'\nresolution,nodes,lobpcg_eigenvalue,lobpcg_rounds,lobpcg_ms,"
              "spectra_eigenvalue,spectra_solves,spectra_ms,relative_difference\n",
              scene.c_str(), s.bodies[0].name.c_str());
  for (int res : resolutions) {
    BodyDesc d = s.bodies[0];
    d.atlasResolution = res;
    const BakedBodyPtr b = bake(d);
    StiffnessSpectrum l;
    SpectraResult sp;
    const double lobpcgMs = medianMs([&] { l = stiffnessSpectrum(*b); });
    const double spectraMs = medianMs([&] { sp = spectraSmallest(*b); });
    std::printf("%d,%d,%.10g,%d,%.1f,%.10g,%d,%.1f,%.2e\n", res, b->nodeCount(), l.minEigenvalue, l.iterations,
                lobpcgMs, sp.ok ? sp.eigenvalue : 0.0, sp.solves, spectraMs,
                sp.ok ? std::abs(sp.eigenvalue / l.minEigenvalue - 1) : -1.0);
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_spectrum: %s\n", e.what());
  return 1;
}
