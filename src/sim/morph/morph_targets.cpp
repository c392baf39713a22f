// bakeMorphTargets (morph_targets.h): each target's rest shape, material, stiffness and
// rest force on the body's atlas and tets, and the RBF of the examples' poses.
#include "sim/morph/morph_targets.h"
#include "sim/morph/modal_basis.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "sim/model/baked_body.h"
#include "sim/scene/scene.h"

namespace d2t {

namespace {

Vec3 applyOp(const TargetShapeOp& op, const Vec3& p, const Vec3& outward, int node, const Atlas& atlas) {
  using T = TargetShapeOp::Type;
  switch (op.type) {
    case T::Bulge: {
      const double r2 = (p - op.center).squaredNorm();
      return p + op.amplitude * std::exp(-r2 / (2 * op.width * op.width)) * outward;
    }
    case T::Crease: {
      const Vec3 r = p - op.center;
      const double r2 = (r - op.axis.dot(r) * op.axis).squaredNorm();
      return p + op.amplitude * std::exp(-r2 / (2 * op.width * op.width)) * outward;
    }
    case T::Scale:
      return op.center + op.factor.cwiseProduct(p - op.center);
    case T::Twist: {
      const double angle = op.rate * kPi / 180 * op.axis.dot(p - op.center);
      return op.center + Eigen::AngleAxisd(angle, op.axis) * (p - op.center);
    }
    case T::Shape:
      if (atlas.layout == AtlasLayout::CubeMap) {
        const Vec3& dir = atlas.nodeDirection[size_t(node)];
        return op.shape->radius(dir) * dir;
      }
      return op.shape->surfacePoint(atlas.nodeParam[size_t(node)].x(), atlas.nodeParam[size_t(node)].y());
  }
  return p;
}

bool sameBits(const MorphTarget& a, const MorphTarget& b) {
  if (a.d.size() != b.d.size()) return false;
  for (size_t i = 0; i < a.d.size(); ++i) {
    if (std::memcmp(a.d[i].data(), b.d[i].data(), sizeof(double) * 3) != 0) return false;
    for (int s = 0; s < kStencilSlots; ++s)
      if (std::memcmp(a.K[i][size_t(s)].data(), b.K[i][size_t(s)].data(), sizeof(double) * 9) != 0) return false;
  }
  return true;
}

}  // namespace

std::vector<Vec3> targetRestSkin(const BakedBody& body, const std::vector<TargetShapeOp>& ops) {
  const int n = body.nodeCount();
  std::vector<Vec3> g(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Vec3 p = body.restSkin[size_t(i)] + body.comOffset;
    for (const TargetShapeOp& op : ops) p = applyOp(op, p, body.layerDirection[size_t(i)], i, body.atlas);
    g[size_t(i)] = p;
  }
  return g;
}

std::shared_ptr<const MorphTargetSet> bakeMorphTargets(const BodyDesc& desc, const BakedBody& body) {
  const auto start = std::chrono::steady_clock::now();
  auto set = std::make_shared<MorphTargetSet>();
  set->desc = desc.morph;
  const MorphTargetsDesc& md = *desc.morph;
  const int n = body.nodeCount();
  // shape frame (the regions are evaluated there, as the bake's)
  std::vector<Vec3> g0(static_cast<size_t>(n)), f(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    g0[size_t(i)] = body.restSkin[size_t(i)] + body.comOffset;
    f[size_t(i)] = body.core[size_t(i)] + body.comOffset;
  }
  std::vector<std::vector<double>> poses;
  for (size_t k = 0; k < md.targets.size(); ++k) {
    const MorphTargetDesc& td = md.targets[k];
    const std::string owner = "body '" + desc.name + "': morph_targets/targets/" + std::to_string(k) + " ('" +
                              td.name + "')";
    MorphTarget t;
    t.name = td.name;
    t.pose = td.pose;
    poses.push_back(td.pose);
    // the body's own shape and material: its K_e, bit for bit (the frames' rounding aside)
    const bool ownMaterial = k == 0 || !td.hasMaterial || (td.young == desc.material.young &&
                                                 td.poisson == desc.material.poisson && td.regions.empty() &&
                                                 desc.regions.empty());
    if (td.shape.empty() && ownMaterial) {
      t.d.assign(size_t(n), Vec3::Zero());
      t.K = body.stiffness;
      t.t.assign(size_t(n), Vec3::Zero());
      set->targets.push_back(std::move(t));
      continue;
    }
    const std::vector<Vec3> g = targetRestSkin(body, td.shape);
    t.d.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      t.d[size_t(i)] = g[size_t(i)] - g0[size_t(i)];
      if (!t.d[size_t(i)].allFinite())
        throw InputError(owner + "/shape: the displacement of node " + std::to_string(i) + " is not finite");
      t.maxDisplacement = std::max(t.maxDisplacement, t.d[size_t(i)].norm());
    }
    // its material: the tets' moduli as the bake's (the mean of their 4 vertices'), the
    // target's regions evaluated at the body's rest points
    std::vector<double> young = body.tetYoung, poisson = body.tetPoisson;
    if (td.hasMaterial) {
      BodyDesc mat;
      mat.material = desc.material;
      mat.material.young = td.young;
      mat.material.poisson = td.poisson;
      mat.regions = td.regions;
      auto at = [&](int id) { return mat.materialAt(id < n ? g0[size_t(id)] : f[size_t(id - n)]); };
      for (size_t e = 0; e < body.tets.size(); ++e) {
        double y = 0, nu = 0;
        for (int id : body.tets[e]) {
          const Material m = at(id);
          y += m.young;
          nu += m.poisson;
        }
        young[e] = y / 4;
        poisson[e] = nu / 4;
      }
    }
    t.K = assembleStencilStiffness(body, owner + "/shape", g, f, young, poisson);
    if (td.hasMaterial) {
      t.tetYoung = std::move(young);
      t.tetPoisson = std::move(poisson);
    }
    t.t.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      Vec3 kd = Vec3::Zero();
      for (int s = 0; s < kStencilSlots; ++s) {
        const int j = body.atlas.stencil[size_t(i)][size_t(s)];
        if (j >= 0) kd += t.K[size_t(i)][size_t(s)] * t.d[size_t(j)];
      }
      t.t[size_t(i)] = kd;
      t.restEnergy += 0.5 * t.d[size_t(i)].dot(kd);
    }
    set->targets.push_back(std::move(t));
  }
  for (size_t k = 0; k < set->targets.size(); ++k) {
    MorphTarget& t = set->targets[k];
    t.same = int(k);
    for (size_t j = 0; j < k; ++j)
      if (sameBits(set->targets[j], t)) {
        t.same = set->targets[j].same;
        break;
      }
  }
  // each target's relative stiffness change, and the nodes where some target differs from
  // the body (in K or in its rest force): one pass over the blocks
  set->varies.assign(size_t(n), 0);
  for (MorphTarget& t : set->targets) {
    if (t.same == 0) continue;  // (the body itself, or bit for bit the same)
    for (int i = 0; i < n; ++i) {
      double diff = 0, base = 0;
      for (int s = 0; s < kStencilSlots; ++s) {
        diff += (t.K[size_t(i)][size_t(s)] - body.stiffness[size_t(i)][size_t(s)]).squaredNorm();
        base += body.stiffness[size_t(i)][size_t(s)].squaredNorm();
      }
      if (base > 0) t.stiffnessSpread = std::max(t.stiffnessSpread, std::sqrt(diff / base));
      if (diff > 0 || t.t[size_t(i)] != Vec3::Zero()) set->varies[size_t(i)] = 1;
    }
  }
  set->rbf = PoseRbf(poses, md.smoothing, md.clampWeights);
  if (md.reduced)
    set->basis = std::make_shared<const ModalBasis>(
        buildModalBasis(body, *set, md.reduction, "body '" + desc.name + "': morph_targets"));
  set->bakeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return set;
}

}  // namespace d2t
