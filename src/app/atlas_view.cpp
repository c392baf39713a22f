#include "app/atlas_view.h"

#include <algorithm>
#include <cmath>

namespace d2t {

const std::vector<std::pair<AtlasChannel, const char*>>& atlasChannels() {
  static const std::vector<std::pair<AtlasChannel, const char*>> c = {
      {AtlasChannel::RestPosition, "rest skin position g"},
      {AtlasChannel::CorePosition, "core position f"},
      {AtlasChannel::ValidMask, "valid mask"},
      {AtlasChannel::PatchId, "patch id"},
      {AtlasChannel::Young, "material: Young's modulus (log)"},
      {AtlasChannel::Density, "material: density"},
      {AtlasChannel::NodeMass, "lumped node mass"}};
  return c;
}

void colorMap(double t, uint8_t rgb[3]) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double r = std::clamp(1.5 - std::abs(4 * t - 3), 0.0, 1.0);
  const double g = std::clamp(1.5 - std::abs(4 * t - 2), 0.0, 1.0);
  const double b = std::clamp(1.5 - std::abs(4 * t - 1), 0.0, 1.0);
  rgb[0] = uint8_t(255 * r);
  rgb[1] = uint8_t(255 * g);
  rgb[2] = uint8_t(255 * b);
}

std::vector<uint8_t> atlasImage(const BakedBody& body, AtlasChannel channel) {
  const Atlas& a = body.atlas;
  const int texels = a.texelCount();
  std::vector<uint8_t> img(size_t(texels) * 4, 0);
  for (int t = 0; t < texels; ++t) img[size_t(t) * 4 + 3] = 255;

  // the node a texel shows: itself, or a gutter texel's source
  auto nodeOf = [&](int t) {
    if (a.texelKind[t] == TexelKind::Node) return a.texelNode[t];
    if (a.texelKind[t] == TexelKind::Gutter) return a.gutterSource[t];
    return -1;
  };
  // scalar per node -> colour map over [lo, hi]
  auto scalarImage = [&](auto value) {
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < body.nodeCount(); ++i) {
      lo = std::min(lo, value(i));
      hi = std::max(hi, value(i));
    }
    const double span = hi - lo > 1e-12 * std::max(1.0, std::abs(hi)) ? hi - lo : 1.0;
    for (int t = 0; t < texels; ++t) {
      const int i = nodeOf(t);
      if (i < 0) continue;
      uint8_t* p = &img[size_t(t) * 4];
      colorMap(hi - lo > 0 ? (value(i) - lo) / span : 0.5, p);
      if (a.texelKind[t] == TexelKind::Gutter)
        for (int k = 0; k < 3; ++k) p[k] = uint8_t(p[k] / 2);
    }
  };
  auto positionImage = [&](const std::vector<Vec3>& pos) {
    Aabb box;
    for (const Vec3& x : pos) box.grow(x);
    const Vec3 ext = (box.hi - box.lo).cwiseMax(Vec3::Constant(1e-9));
    for (int t = 0; t < texels; ++t) {
      const int i = nodeOf(t);
      if (i < 0) continue;
      const Vec3 c = (pos[size_t(i)] - box.lo).cwiseQuotient(ext);
      const double dim = a.texelKind[t] == TexelKind::Gutter ? 0.5 : 1.0;
      for (int k = 0; k < 3; ++k) img[size_t(t) * 4 + k] = uint8_t(255 * dim * std::clamp(c[k], 0.0, 1.0));
    }
  };

  switch (channel) {
    case AtlasChannel::RestPosition: positionImage(body.restSkin); break;
    case AtlasChannel::CorePosition: positionImage(body.core); break;
    case AtlasChannel::ValidMask:
      for (int t = 0; t < texels; ++t) {
        const uint8_t v = a.texelKind[t] == TexelKind::Node     ? 255
                          : a.texelKind[t] == TexelKind::Gutter ? (a.gutterSource[t] >= 0 ? 110 : 50)
                                                                : 0;
        for (int k = 0; k < 3; ++k) img[size_t(t) * 4 + k] = v;
      }
      break;
    case AtlasChannel::PatchId:
      for (int t = 0; t < texels; ++t) {
        if (a.texelPatch[t] < 0) continue;
        uint8_t* p = &img[size_t(t) * 4];
        colorMap((a.texelPatch[t] + 0.5) / std::max(1, a.patchCount), p);
        if (a.texelKind[t] == TexelKind::Gutter)
          for (int k = 0; k < 3; ++k) p[k] = uint8_t(p[k] / 2);
      }
      break;
    case AtlasChannel::Young:
      scalarImage([&](int i) { return std::log10(body.material[size_t(i)].young); });
      break;
    case AtlasChannel::Density:
      scalarImage([&](int i) { return body.material[size_t(i)].density; });
      break;
    case AtlasChannel::NodeMass:
      scalarImage([&](int i) { return body.nodeMass[size_t(i)]; });
      break;
  }
  return img;
}

}  // namespace d2t
