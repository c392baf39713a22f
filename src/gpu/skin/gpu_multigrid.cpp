// GpuMultigrid (gpu_multigrid.h): the CPU's multigrid hierarchy in storage buffers and
// its V-cycle as passes.
#include "gpu/skin/gpu_multigrid.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;
using Vec3f = Eigen::Vector3f;

GpuMultigrid::GpuMultigrid(AtlasPasses& passes) : passes_(passes) {
  multiply_ = ShaderProgram("d2t/pass.vert", "d2t/mg_multiply.frag");
  smooth_ = ShaderProgram("d2t/pass.vert", "d2t/mg_smooth.frag");
}

void GpuMultigrid::sync(const BodyView& body) {
  const ImplicitOperator& op = body.op;
  if (syncedBody_ == body.id && syncedVersion_ == op.version()) return;
  if (!op.multigrid().empty()) {
    own_ = MultigridPreconditioner{};
    upload(op.multigrid());
  } else {
    own_.build(op.stencil(), op.blocks());
    upload(own_);
  }
  syncedBody_ = body.id;
  syncedVersion_ = op.version();
}

// ---- upload -------------------------------------------------------------------------------------

GlTexture GpuMultigrid::field(const Layout& l) const {
  if (l.atlas) return passes_.newField();
  GlTexture t(l.width, l.height, 0, GL_RGBA32F);
  uploadTexels(t, 0, std::vector<float>(size_t(l.width) * size_t(l.height) * 4, 0.0f));  // (finite everywhere)
  return t;
}

void GpuMultigrid::uploadVector(const Layout& l, const GlTexture& t, const std::vector<Vec3>& v) const {
  if (l.atlas) {
    uploadTexels(t, 0, nodeTexels(passes_.model().atlas, v));
    return;
  }
  std::vector<float> texels(size_t(l.width) * size_t(l.height) * 4, 0.0f);
  for (size_t j = 0; j < v.size(); ++j)
    for (int c = 0; c < 3; ++c) texels[size_t(l.texel[j]) * 4 + size_t(c)] = float(v[j][c]);
  uploadTexels(t, 0, texels);
}

std::vector<Vec3> GpuMultigrid::downloadVector(const Layout& l, const GlTexture& t) const {
  std::vector<float> texels(size_t(l.width) * size_t(l.height) * 4);
  glBindTexture(GL_TEXTURE_2D, t.id());
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels.data());
  checkGl("reading a multigrid vector back");
  std::vector<Vec3> v(l.texel.size());
  for (size_t j = 0; j < v.size(); ++j) {
    const float* p = &texels[size_t(l.texel[j]) * 4];
    v[j] = Vec3(p[0], p[1], p[2]);
  }
  return v;
}

GpuMultigrid::Matrix GpuMultigrid::upload(const BlockRows& m, const Layout& rows, const Layout& cols) {
  const size_t texels = size_t(rows.width) * size_t(rows.height);
  std::vector<int> rowAt(texels, -1);  // the matrix row at each output texel
  for (size_t i = 0; i < rows.texel.size(); ++i) rowAt[size_t(rows.texel[i])] = int(i);
  std::vector<int> start(texels + 1, 0), column;
  std::vector<float> block;
  column.reserve(m.column.size());
  block.reserve(m.block.size() * 12);
  for (size_t t = 0; t < texels; ++t) {
    if (const int i = rowAt[t]; i >= 0)
      for (int k = m.start[size_t(i)]; k < m.start[size_t(i) + 1]; ++k) {
        column.push_back(cols.texel[size_t(m.column[size_t(k)])]);
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) block.push_back(m.block[size_t(k)](r, c));
          block.push_back(0.0f);
        }
      }
    start[t + 1] = int(column.size());
  }
  return {GlBuffer(start), GlBuffer(column), GlBuffer(block)};
}

void GpuMultigrid::upload(const MultigridPreconditioner& mg) {
  const Atlas& atlas = passes_.model().atlas;
  if (mg.nodeCount() != atlas.nodeCount())
    throw std::invalid_argument("GpuMultigrid: a hierarchy of " + std::to_string(mg.nodeCount()) +
                                " nodes for an atlas of " + std::to_string(atlas.nodeCount()));
  levels_.clear();
  if (mg.levelNodes(mg.levelCount() - 1) > kMaxCoarsestNodes) return;  // (block-Jacobi CG then)
  levels_.resize(size_t(mg.levelCount()));
  for (int l = 0; l < mg.levelCount(); ++l) {
    Layout& lay = levels_[size_t(l)].layout;
    const int n = mg.levelNodes(l);
    if (l == 0) {
      lay.atlas = true;
      lay.width = lay.height = passes_.size();
      lay.texel = atlas.nodeTexel;
    } else {
      lay.width = int(std::ceil(std::sqrt(double(n))));
      lay.height = (n + lay.width - 1) / lay.width;
      lay.texel.resize(size_t(n));
      for (int j = 0; j < n; ++j) lay.texel[size_t(j)] = j;
    }
  }
  const int coarsest = mg.levelCount() - 1;
  for (int l = 0; l < coarsest; ++l) {
    const MultigridPreconditioner::Level& src = mg.level(l);
    Level& lv = levels_[size_t(l)];
    const Layout& next = levels_[size_t(l) + 1].layout;
    lv.a = upload(src.a, lv.layout, lv.layout);
    lv.p = upload(src.p, lv.layout, next);
    lv.r = upload(src.r, next, lv.layout);
    std::vector<float> diag(size_t(lv.layout.width) * size_t(lv.layout.height) * 12, 0.0f);
    for (size_t i = 0; i < src.diagInverse.size(); ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) diag[size_t(lv.layout.texel[i]) * 12 + size_t(4 * r + c)] = src.diagInverse[i](r, c);
    lv.diag = GlBuffer(diag);
    lv.chebyshev = MultigridPreconditioner::chebyshev(src.lambdaMax);
    for (int s = 0; s < 2; ++s)
      for (GlTexture* t : {&lv.x[s], &lv.res[s], &lv.d[s]}) *t = field(lv.layout);
  }
  // the coarsest level: its dense inverse as full block rows
  const Eigen::MatrixXd inv = mg.coarseInverse();
  const int nc = int(inv.rows() / 3);
  BlockRows dense;
  dense.rows = dense.cols = nc;
  dense.start.resize(size_t(nc) + 1);
  for (int i = 0; i < nc; ++i) {
    dense.start[size_t(i)] = i * nc;
    for (int j = 0; j < nc; ++j) {
      dense.column.push_back(j);
      dense.block.push_back(inv.block<3, 3>(3 * i, 3 * j).cast<float>());
    }
  }
  dense.start[size_t(nc)] = nc * nc;
  Level& last = levels_[size_t(coarsest)];
  last.a = upload(dense, last.layout, last.layout);
  for (int l = 1; l <= coarsest; ++l) {
    levels_[size_t(l)].f = field(levels_[size_t(l)].layout);
    levels_[size_t(l)].e = field(levels_[size_t(l)].layout);
  }
}

// ---- passes -------------------------------------------------------------------------------------

void GpuMultigrid::bindMatrix(const Matrix& m) const {
  m.start.bindStorage(0);
  m.column.bindStorage(1);
  m.block.bindStorage(2);
}

void GpuMultigrid::setLayouts(const ShaderProgram& p, const Layout& out, const Layout& in) {
  glUniform1i(p.uniform("uAtlas"), out.atlas ? 1 : 0);
  glUniform1i(p.uniform("uOutWidth"), out.width);
  glUniform1i(p.uniform("uInWidth"), in.width);
}

void GpuMultigrid::multiplyPass(const Matrix& m, const Layout& rows, const Layout& cols, const GlTexture& x,
                                const GlTexture* addend, const GlTexture& out) {
  passes_.beginPass(multiply_);
  passes_.bind(multiply_, "uX", x);
  passes_.bind(multiply_, "uAddend", addend ? *addend : x);
  glUniform1f(multiply_.uniform("uScaleAdd"), addend ? 1.0f : 0.0f);
  setLayouts(multiply_, rows, cols);
  bindMatrix(m);
  passes_.draw(multiply_, {{out.id(), -1}}, rows.width, rows.height);
}

void GpuMultigrid::smoothPass(const Level& lv, int mode, bool first, float cd, float cr, const GlTexture& f,
                              const std::vector<AtlasPasses::Target>& targets) {
  passes_.beginPass(smooth_);
  passes_.bind(smooth_, "uF", f);
  passes_.bind(smooth_, "uX", lv.x[lv.xi]);
  passes_.bind(smooth_, "uRes", lv.res[lv.ri]);
  passes_.bind(smooth_, "uD", lv.d[lv.di]);
  glUniform1i(smooth_.uniform("uMode"), mode);
  glUniform1i(smooth_.uniform("uFirst"), first ? 1 : 0);
  glUniform1f(smooth_.uniform("uTheta"), lv.chebyshev.theta);
  glUniform1f(smooth_.uniform("uCd"), cd);
  glUniform1f(smooth_.uniform("uCr"), cr);
  setLayouts(smooth_, lv.layout, lv.layout);
  bindMatrix(lv.a);
  lv.diag.bindStorage(3);
  passes_.draw(smooth_, targets, lv.layout.width, lv.layout.height);
}

// MultigridPreconditioner::smooth, pass by pass (the same order and scalars).
void GpuMultigrid::smooth(int l, const GlTexture& f, bool zeroStart, bool residual, const GlTexture* out) {
  Level& lv = levels_[size_t(l)];
  smoothPass(lv, 0, zeroStart, 0, 0, f, {{lv.res[1 - lv.ri].id(), -1}, {lv.d[1 - lv.di].id(), -1}});
  lv.ri = 1 - lv.ri;
  lv.di = 1 - lv.di;
  for (int deg = 0; deg < MultigridPreconditioner::kSmootherDegree; ++deg) {
    const bool first = zeroStart && deg == 0;
    const bool last = deg + 1 == MultigridPreconditioner::kSmootherDegree;
    const GLuint xOut = last && out ? out->id() : lv.x[1 - lv.xi].id();
    if (last && !residual) {
      smoothPass(lv, 2, first, 0, 0, f, {{xOut, -1}});
      lv.xi = 1 - lv.xi;
      return;
    }
    std::vector<AtlasPasses::Target> targets = {{lv.res[1 - lv.ri].id(), -1}, {xOut, -1}};
    if (!last) targets.push_back({lv.d[1 - lv.di].id(), -1});
    smoothPass(lv, 1, first, lv.chebyshev.cd[size_t(deg)], lv.chebyshev.cr[size_t(deg)], f, targets);
    lv.ri = 1 - lv.ri;
    lv.xi = 1 - lv.xi;
    if (!last) lv.di = 1 - lv.di;
  }
}

// MultigridPreconditioner::cycle: level l's x into `out`.
void GpuMultigrid::cycle(int l, const GlTexture& f, const GlTexture& out) {
  Level& lv = levels_[size_t(l)];
  if (l + 1 == int(levels_.size())) {
    multiplyPass(lv.a, lv.layout, lv.layout, f, nullptr, out);
    return;
  }
  Level& next = levels_[size_t(l) + 1];
  smooth(l, f, true, true);
  multiplyPass(lv.r, next.layout, lv.layout, lv.res[lv.ri], nullptr, next.f);
  cycle(l + 1, next.f, next.e);
  multiplyPass(lv.p, lv.layout, next.layout, next.e, &lv.x[lv.xi], lv.x[1 - lv.xi]);
  lv.xi = 1 - lv.xi;
  smooth(l, f, false, false, &out);
}

void GpuMultigrid::apply(const GlTexture& r, const GlTexture& z) { cycle(0, r, z); }

// ---- the passes one by one ----------------------------------------------------------------------

std::vector<Vec3> GpuMultigrid::multiply(int l, Product which, const std::vector<Vec3>& x) {
  const Level& lv = levels_[size_t(l)];
  const Layout& here = lv.layout;
  const Layout& next = levels_[size_t(std::min(l + 1, int(levels_.size()) - 1))].layout;
  const Layout& rows = which == Product::R ? next : here;
  const Layout& cols = which == Product::P ? next : here;
  const Matrix& m = which == Product::A ? lv.a : which == Product::P ? lv.p : lv.r;
  const GlTexture in = field(cols), out = field(rows);
  uploadVector(cols, in, x);
  multiplyPass(m, rows, cols, in, nullptr, out);
  return downloadVector(rows, out);
}

std::vector<Vec3> GpuMultigrid::coarseSolve(const std::vector<Vec3>& f) {
  const Level& lv = levels_.back();
  const GlTexture in = field(lv.layout), out = field(lv.layout);
  uploadVector(lv.layout, in, f);
  multiplyPass(lv.a, lv.layout, lv.layout, in, nullptr, out);
  return downloadVector(lv.layout, out);
}

void GpuMultigrid::presmooth(int l, const std::vector<Vec3>& f, std::vector<Vec3>* x, std::vector<Vec3>* res) {
  Level& lv = levels_[size_t(l)];
  const GlTexture in = field(lv.layout);
  uploadVector(lv.layout, in, f);
  smooth(l, in, true, true);
  *x = downloadVector(lv.layout, lv.x[lv.xi]);
  *res = downloadVector(lv.layout, lv.res[lv.ri]);
}

}  // namespace d2t
