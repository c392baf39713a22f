// GpuCg (gpu_cg.h): preconditioned conjugate gradients in fragment-shader passes.
#include "gpu/skin/gpu_cg.h"

#include <algorithm>
#include <cmath>

#include "gpu/skin/texels.h"

namespace d2t {

using namespace gpu_detail;

GpuCg::GpuCg(AtlasPasses& passes, const GpuOperators& ops) : passes_(passes), ops_(ops), multigrid_(passes) {
  const std::string v = "d2t/pass.vert";
  stencil_ = ShaderProgram(v, "d2t/stencil.frag");
  precondition_ = ShaderProgram(v, "d2t/cg_precondition.frag");
  update_ = ShaderProgram(v, "d2t/cg_update.frag");
  direction_ = ShaderProgram(v, "d2t/cg_direction.frag");
  dots_ = ShaderProgram(v, "d2t/cg_dots.frag");
  // (zeroed: unused texels must hold finite values for the stencil)
  for (GlTexture* t : {&rhs_, &x_[0], &x_[1], &r_[0], &r_[1], &p_[0], &p_[1], &z_, &ap_}) *t = passes_.newField();
  for (GlTexture* t : {&rz_[0], &rz_[1], &pap_}) *t = GlTexture(1, 1, 0, GL_RGBA32F);
}

void GpuCg::sync(const BodyView& body) {
  useMultigrid_ = body.op.key().method != SolverMethod::CgDilu;
  if (useMultigrid_) multigrid_.sync(body);
}

void GpuCg::stencilPass(const GlTexture& x, const GlTexture& addend, double sk, double sm, double sa,
                          const GlTexture& out, bool exact) {
  passes_.beginPass(stencil_);
  passes_.bind(stencil_, "uX", x);
  passes_.bind(stencil_, "uAddend", addend);
  passes_.bind(stencil_, "uK", exact ? ops_.stiffness() : ops_.operatorStiffness());
  glUniform1f(stencil_.uniform("uScaleK"), float(sk));
  glUniform1f(stencil_.uniform("uScaleM"), float(sm));
  glUniform1f(stencil_.uniform("uScaleAdd"), float(sa));
  passes_.draw(stencil_, {{out.id(), -1}, {passes_.terms(0).id(), -1}});
}

int GpuCg::solve(int maxIterations, double tolerance, double* residual, double referenceNorm) {
  const bool mg = multigrid();
  // z = B r (the V-cycle) and the terms of r.z, r.r, b.b into terms(1); at the start p = z
  const auto multigridDots = [&](const GlTexture& r, const GlTexture* p) {
    multigrid_.apply(r, z_);
    passes_.beginPass(dots_);
    passes_.bind(dots_, "uR", r);
    passes_.bind(dots_, "uZ", z_);
    passes_.bind(dots_, "uB", rhs_);
    std::vector<AtlasPasses::Target> targets = {{passes_.terms(1).id(), -1}};
    if (p) targets.push_back({p->id(), -1});
    passes_.draw(dots_, targets);
  };
  // r = b - Mt x; z = Mh^-1 r; p = z, and |r|, |b|
  stencilPass(x_[cur_], rhs_, -ops_.scaleStiffness(), -ops_.scaleMass(), 1.0, r_[0]);
  passes_.beginPass(precondition_);
  passes_.bind(precondition_, "uR", r_[0]);
  passes_.bind(precondition_, "uB", rhs_);
  passes_.bind(precondition_, "uHinv", ops_.diagInverse());
  passes_.draw(precondition_, {{z_.id(), -1}, {p_[0].id(), -1}, {passes_.terms(1).id(), -1}});
  passes_.reduce({&passes_.terms(1)}, {&rz_[0]});
  const std::array<float, 4> start = passes_.readTexel(rz_[0]);
  double bnorm = std::sqrt(std::max(0.0f, start[D2T_CG_BB]));
  double rnorm = std::sqrt(std::max(0.0f, start[D2T_CG_RR]));
  if (bnorm == 0) {
    uploadTexels(x_[cur_], 0, std::vector<float>(size_t(passes_.size()) * size_t(passes_.size()) * 4, 0.0f));
    if (residual) *residual = 0;
    return 0;
  }
  bnorm = std::max(bnorm, referenceNorm);  // (the scale the residual is measured against)
  // the multigrid's z = B r and p = z, once the start is known not to be the answer (a
  // free fall's zero load, a warm start at the tolerance: no V-cycle)
  if (mg && rnorm > tolerance * bnorm) {
    multigridDots(r_[0], &p_[0]);
    passes_.reduce({&passes_.terms(1)}, {&rz_[0]});
  }
  const int check = mg ? kResidualCheckMultigrid : kResidualCheck;
  int rc = 0, rCur = 0, pCur = 0, it = 0;
  while (it < maxIterations && rnorm > tolerance * bnorm) {
    // ap = Mt p and p.ap
    stencilPass(p_[pCur], p_[pCur], ops_.scaleStiffness(), ops_.scaleMass(), 0.0, ap_);
    passes_.reduce({&passes_.terms(0)}, {&pap_});
    // x += alpha p, r -= alpha ap, z = Mh^-1 r, and r.z, r.r (the multigrid: z = B r and
    // the dot products after)
    passes_.beginPass(update_);
    passes_.bind(update_, "uX", x_[cur_]);
    passes_.bind(update_, "uR", r_[rCur]);
    passes_.bind(update_, "uP", p_[pCur]);
    passes_.bind(update_, "uAp", ap_);
    passes_.bind(update_, "uRz", rz_[rc]);
    passes_.bind(update_, "uPap", pap_);
    passes_.bind(update_, "uHinv", ops_.diagInverse());
    if (mg) {
      passes_.draw(update_, {{x_[1 - cur_].id(), -1}, {r_[1 - rCur].id(), -1}});
      multigridDots(r_[1 - rCur], nullptr);
    } else {
      passes_.draw(update_, {{x_[1 - cur_].id(), -1}, {r_[1 - rCur].id(), -1}, {z_.id(), -1}, {passes_.terms(1).id(), -1}});
    }
    cur_ = 1 - cur_;
    rCur = 1 - rCur;
    passes_.reduce({&passes_.terms(1)}, {&rz_[1 - rc]});
    ++it;
    if (it % check == 0 || it == maxIterations) {
      rnorm = std::sqrt(std::max(0.0f, passes_.readTexel(rz_[1 - rc])[D2T_CG_RR]));
      if (!(rnorm > tolerance * bnorm) || it == maxIterations) break;
    }
    // p = z + beta p
    passes_.beginPass(direction_);
    passes_.bind(direction_, "uZ", z_);
    passes_.bind(direction_, "uP", p_[pCur]);
    passes_.bind(direction_, "uRzNew", rz_[1 - rc]);
    passes_.bind(direction_, "uRzOld", rz_[rc]);
    passes_.draw(direction_, {{p_[1 - pCur].id(), -1}});
    pCur = 1 - pCur;
    rc = 1 - rc;
  }
  if (residual) *residual = rnorm / bnorm;
  return it;
}

}  // namespace d2t
