#include "sim/model/bake_report.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>

#include <cmath>
#include <vector>

#include "sim/model/tet_fem.h"

namespace d2t {

double stiffnessSymmetryError(const BakedBody& body) {
  const Eigen::SparseMatrix<double> k = assembleK(body);
  const Eigen::SparseMatrix<double> d = k - Eigen::SparseMatrix<double>(k.transpose());
  double dmax = 0, kmax = 0;
  for (int c = 0; c < d.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(d, c); it; ++it) dmax = std::max(dmax, std::abs(it.value()));
  for (int c = 0; c < k.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(k, c); it; ++it) kmax = std::max(kmax, std::abs(it.value()));
  return kmax > 0 ? dmax / kmax : 0;
}

SolidMassProperties solidMassProperties(const BakedBody& body) {
  // core solid = rigid core minus the tet shares lumped on core points; the rigid
  // core's first moment about the body origin is zero, so the solid's is -sum m f
  const int n = body.nodeCount();
  double m = body.coreMass;
  Vec3 s = Vec3::Zero();
  Mat3 c = body.coreInertia.trace() / 2 * Mat3::Identity() - body.coreInertia;  // second moment
  c -= body.lumpingCorrection;
  for (int i = 0; i < n; ++i) {
    const double mi = body.coreVertexMass[i];
    const Vec3& f = body.core[i];
    m -= mi;
    s -= mi * f;
    c -= mi * f * f.transpose();
  }
  // skin tetrahedra, exact
  for (int k = 0; k < body.tetCount(); ++k) {
    const Tet& t = body.tets[k];
    const double rho = body.tetDensity[k], v = body.tetVolume[k];
    const Vec3 &x0 = body.vertex(t[0]), &x1 = body.vertex(t[1]), &x2 = body.vertex(t[2]), &x3 = body.vertex(t[3]);
    m += rho * v;
    s += rho * v * (x0 + x1 + x2 + x3) / 4;
    c += rho * tetSecondMoment(x0, x1, x2, x3, v);
  }
  SolidMassProperties p;
  p.mass = m;
  p.com = s / m;
  p.inertia = inertiaFromSecondMoment(c - m * p.com * p.com.transpose());
  return p;
}

namespace {

using Block = Eigen::MatrixXd;

// Orthonormal basis of the columns of y (SVQB: through the eigenvectors of the
// Gram matrix, twice for accuracy); columns that are numerically dependent are dropped.
Block orthonormalize(Block y) {
  for (int pass = 0; pass < 2 && y.cols() > 0; ++pass) {
    const Eigen::MatrixXd g = y.transpose().lazyProduct(y);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(g);
    const double top = es.eigenvalues().maxCoeff();
    std::vector<int> keep;
    for (int c = 0; c < g.cols(); ++c)
      if (es.eigenvalues()[c] > 1e-13 * top && es.eigenvalues()[c] > 0) keep.push_back(c);
    Eigen::MatrixXd v(g.rows(), keep.size());
    for (size_t c = 0; c < keep.size(); ++c)
      v.col(c) = es.eigenvectors().col(keep[c]) / std::sqrt(es.eigenvalues()[keep[c]]);
    y = y.lazyProduct(v).eval();
  }
  return y;
}

// The two-level preconditioner T = S + P_A A_c^-1 P_A^T of stiffnessSpectrum's LOBPCG:
//  - S: inverse 3x3 block diagonal of A (block Jacobi), for the rough error;
//  - coarse space: displacements constant over blocks of a x a texels of a patch
//    (u = P_u u_c); in A-space P_A = M^1/2 P_u, so the Galerkin coarse matrix is
//    A_c = P_A^T A P_A = P_u^T K P_u, factorised once (n / a^2 nodes). It carries the
//    smooth, low modes that block Jacobi alone resolves slowly.
class TwoLevelPreconditioner {
 public:
  TwoLevelPreconditioner(const BakedBody& body, const Eigen::SparseMatrix<double>& kmat,
                         const Eigen::VectorXd& minvSqrt)
      : minvSqrt_(minvSqrt), blockInverse_(body.nodeCount()) {
    const int n = body.nodeCount();
    // (M_i^-1/2 K_ii M_i^-1/2)^-1 = m_i K_ii^-1
    for (int i = 0; i < n; ++i) blockInverse_[i] = body.nodeMass[i] * body.stiffness[i][0].inverse();
    const int agg = 3;
    const int res = body.atlas.resolution;
    const int perSide = (res + agg - 1) / agg;
    std::vector<int> coarseOf(static_cast<size_t>(body.atlas.patchCount) * perSide * perSide, -1);
    std::vector<Eigen::Triplet<double>> pTrip;
    int nc = 0;
    for (int i = 0; i < n; ++i) {
      const int t = body.atlas.nodeTexel[i];
      const int key = (body.atlas.texelPatch[t] * perSide + (t / res) / agg) * perSide + (t % res) / agg;
      if (coarseOf[key] < 0) coarseOf[key] = nc++;
      for (int c = 0; c < 3; ++c) pTrip.emplace_back(3 * i + c, 3 * coarseOf[key] + c, 1.0);
    }
    pu_.resize(3 * n, 3 * nc);
    pu_.setFromTriplets(pTrip.begin(), pTrip.end());
    put_ = pu_.transpose();  // column-major copy: serial products
    coarse_.compute(Eigen::SparseMatrix<double>(put_ * kmat) * pu_);
    twoLevel_ = coarse_.info() == Eigen::Success;
  }
  Block apply(const Block& r) const {
    const int n = static_cast<int>(blockInverse_.size());
    Block w(3 * n, r.cols());
    for (int c = 0; c < r.cols(); ++c)
      for (int i = 0; i < n; ++i) w.col(c).segment<3>(3 * i) = blockInverse_[i] * r.col(c).segment<3>(3 * i);
    if (twoLevel_) {
      // P_A^T r = P_u^T M^1/2 r;  P_A y = M^1/2 P_u y
      const Block rc = put_ * Block(r.array().colwise() / minvSqrt_.array());
      const Block yc = coarse_.solve(rc);
      w += Block((pu_ * yc).array().colwise() / minvSqrt_.array());
    }
    return w;
  }

 private:
  const Eigen::VectorXd& minvSqrt_;
  std::vector<Mat3> blockInverse_;
  Eigen::SparseMatrix<double> pu_, put_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> coarse_;
  bool twoLevel_ = false;
};

// LOBPCG's start: rigid rotations of the skin about the body axes and a translation,
// over the held core, which is what the lowest modes of a layer look like; x = M^1/2 u
Block rigidStartBlock(const BakedBody& body) {
  const int n = body.nodeCount();
  const int k = std::min(4, 3 * n);
  Block x(3 * n, k);
  for (int i = 0; i < n; ++i) {
    const double ms = std::sqrt(body.nodeMass[i]);
    for (int c = 0; c < k; ++c) {
      const Vec3 u = c < 3 ? Vec3(Vec3::Unit(c).cross(body.restSkin[i])) : Vec3(1, 1, 1);
      x.block<3, 1>(3 * i, c) = ms * u;
    }
  }
  return orthonormalize(x);
}

}  // namespace

StiffnessSpectrum stiffnessSpectrum(const BakedBody& body) {
  // Smallest eigenvalue of A = M^-1/2 K M^-1/2 (M = diag(m_i I3)) by block LOBPCG
  // (Knyazev 2001): each round a Rayleigh-Ritz step on [X, T R, P] with the two-level
  // preconditioner T above. It needs products with K and one factorisation of a 9x
  // smaller coarse matrix, in 35-60 rounds nearly independent of the resolution; the
  // block of 4 vectors copes with the clustered lowest modes of symmetric bodies. Being
  // a minimisation of the Rayleigh quotient, it finds a negative eigenvalue too, where a
  // shift-invert solver's factorisation of K fails (the measured alternatives, Spectra
  // among them: docs/decisions/0024-stiffness-spectrum-lobpcg.md).
  StiffnessSpectrum out;
  const int n = body.nodeCount();
  const int dim = 3 * n;
  if (n == 0) return out;
  Eigen::VectorXd minvSqrt(dim);
  for (int i = 0; i < n; ++i) minvSqrt.segment<3>(3 * i).setConstant(1.0 / std::sqrt(body.nodeMass[i]));
  // Everything below runs serially (column-major sparse products, lazy dense
  // products): OpenMP regions this fine-grained stall badly when the cores are
  // shared with other work. Products with A go through the assembled K.
  const Eigen::SparseMatrix<double> kmat = assembleK(body);
  auto applyA = [&](const Block& x) {
    const Block y = kmat * Block(x.array().colwise() * minvSqrt.array());
    return Block(y.array().colwise() * minvSqrt.array());
  };
  const TwoLevelPreconditioner precond(body, kmat, minvSqrt);

  Block x = rigidStartBlock(body);
  Block ax = applyA(x);
  {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(x.transpose().lazyProduct(ax));
    x = x.lazyProduct(es.eigenvectors()).eval();
    ax = ax.lazyProduct(es.eigenvectors()).eval();
  }
  Block p(dim, 0), ap(dim, 0);
  for (int it = 1; it <= 1000; ++it) {
    const int kx = static_cast<int>(x.cols());
    const Eigen::VectorXd rq = x.transpose().lazyProduct(ax).diagonal();
    const Block r = ax - x * rq.asDiagonal();
    out.minEigenvalue = rq[0];
    out.iterations = it;
    // converged: residual of the lowest pair below 1e-5 of the eigenvalue; the
    // eigenvalue error is then about |r|^2 / gap, ~1e-8 relative or better
    if (r.col(0).norm() <= 1e-5 * std::abs(rq[0])) {
      out.converged = true;
      break;
    }
    // search directions: preconditioned residuals and previous steps, made
    // orthogonal to X and orthonormal
    Block wp(dim, r.cols() + p.cols());
    wp << precond.apply(r), p;
    for (int pass = 0; pass < 2; ++pass) wp -= x.lazyProduct(Eigen::MatrixXd(x.transpose().lazyProduct(wp)));
    const Block q = orthonormalize(wp);
    if (q.cols() == 0) break;
    const Block aq = applyA(q);
    // Rayleigh-Ritz on S = [X Q]
    const int ns = kx + static_cast<int>(q.cols());
    Eigen::MatrixXd h(ns, ns);
    h.topLeftCorner(kx, kx) = x.transpose().lazyProduct(ax);
    h.topRightCorner(kx, q.cols()) = x.transpose().lazyProduct(aq);
    h.bottomRightCorner(q.cols(), q.cols()) = q.transpose().lazyProduct(aq);
    h.bottomLeftCorner(q.cols(), kx) = h.topRightCorner(kx, q.cols()).transpose();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (h + h.transpose()));
    const Eigen::MatrixXd c = es.eigenvectors().leftCols(kx);
    const Eigen::MatrixXd cx = c.topRows(kx), cq = c.bottomRows(q.cols());
    p = q.lazyProduct(cq);
    ap = aq.lazyProduct(cq);
    x = (x.lazyProduct(cx) + p).eval();
    ax = (ax.lazyProduct(cx) + ap).eval();
  }
  out.positiveDefinite = out.converged && out.minEigenvalue > 0;
  return out;
}

namespace {

nlohmann::json toJson(const Vec3& v) {
  nlohmann::json j = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) j.push_back(v[i]);
  return j;
}

nlohmann::json toJson(const Mat3& m) {
  nlohmann::json j = nlohmann::json::array();
  for (int r = 0; r < 3; ++r) j.push_back(toJson(Vec3(m.row(r).transpose())));
  return j;
}

}  // namespace

nlohmann::json bakeReport(const BakedBody& body, const std::string& name, double bakeMs) {
  const StiffnessSpectrum spec = stiffnessSpectrum(body);
  const SolidMassProperties solid = solidMassProperties(body);
  nlohmann::json j;
  // (a string member assigned in place: GCC 12 reports a false -Warray-bounds
  // for json(std::string) under JSON_DIAGNOSTICS)
  j["name"] = nlohmann::json(nlohmann::json::value_t::string);
  j["name"].get_ref<std::string&>() = name;
  j["atlas_resolution"] = body.atlas.resolution;
  j["patches"] = body.atlas.patchCount;
  j["nodes"] = body.nodeCount();
  j["tets"] = body.tetCount();
  j["skin_volume"] = body.skinVolume;
  j["core_volume"] = body.coreVolume;
  j["mass"] = body.totalMass;
  j["core_mass"] = body.coreMass;
  j["com"] = toJson(body.totalCom);
  j["com_offset"] = toJson(body.comOffset);
  j["inertia"] = toJson(body.totalInertia);
  j["com_solid"] = toJson(solid.com);
  j["inertia_solid"] = toJson(solid.inertia);
  j["stiffness_symmetry_error"] = stiffnessSymmetryError(body);
  j["stiffness_min_eigenvalue"] = spec.minEigenvalue;
  j["stiffness_positive_definite"] = spec.positiveDefinite;
  j["stiffness_eigen_iterations"] = spec.iterations;
  j["incomplete_neighbourhoods"] = body.incompleteNeighbourhoods;
  j["surface_watertight"] = isClosedSurface(body.atlas.triangles);
  j["bake_ms"] = bakeMs;
  return j;
}

}  // namespace d2t
