#include "app/panels/atlas_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace d2t {

namespace {
constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
}  // namespace

const std::vector<std::pair<AtlasChannel, const char*>>& atlasChannels() {
  static const std::vector<std::pair<AtlasChannel, const char*>> c = {
      {AtlasChannel::RestPosition, "rest skin position g"},
      {AtlasChannel::CorePosition, "core position f"},
      {AtlasChannel::ValidMask, "valid mask"},
      {AtlasChannel::PatchId, "patch id"},
      {AtlasChannel::Young, "material: Young's modulus (log)"},
      {AtlasChannel::Density, "material: density"},
      {AtlasChannel::NodeMass, "lumped node mass"},
      {AtlasChannel::Displacement, "displacement |q| (live)"},
      {AtlasChannel::Velocity, "skin velocity |qdot| (live)"},
      {AtlasChannel::ContactDepth, "contact depth (live)"},
      {AtlasChannel::ContactNormal, "contact normal (live)"}};
  return c;
}

bool isLiveChannel(AtlasChannel c) {
  return c == AtlasChannel::Displacement || c == AtlasChannel::Velocity || c == AtlasChannel::ContactDepth ||
         c == AtlasChannel::ContactNormal;
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

namespace {

// A picture of the atlas in the making: each texel shows its node (or a gutter texel
// its source node, dimmed); the images below colour it and keep the values shown
// under the cursor.
class PictureBuilder {
 public:
  explicit PictureBuilder(const BakedBody& body)
      : a_(body.atlas), texels_(a_.texelCount()), nodes_(body.nodeCount()) {
    pic_.width = pic_.height = a_.resolution;
    pic_.rgba.assign(size_t(texels_) * 4, 0);
    for (int t = 0; t < texels_; ++t) pic_.rgba[size_t(t) * 4 + 3] = 255;
    pic_.node.assign(size_t(texels_), -1);
    for (int t = 0; t < texels_; ++t) {
      if (a_.texelKind[t] == TexelKind::Node) pic_.node[size_t(t)] = a_.texelNode[t];
      if (a_.texelKind[t] == TexelKind::Gutter) pic_.node[size_t(t)] = a_.gutterSource[t];
    }
  }
  TexturePicture take() { return std::move(pic_); }
  int nodes() const { return nodes_; }

  /// A value per node, as float.
  template <class F>
  std::vector<float> perNode(F value) const {
    std::vector<float> v(static_cast<size_t>(nodes_));
    for (int i = 0; i < nodes_; ++i) v[size_t(i)] = float(value(i));
    return v;
  }
  /// A scalar per node (NaN: none, drawn dark grey) on the colour map over its range
  /// (from 0 if fromZero).
  void scalarImage(const std::vector<float>& v, const char* unit, bool fromZero) {
    double lo = fromZero ? 0.0 : 1e300, hi = fromZero ? 0.0 : -1e300;
    for (float x : v)
      if (std::isfinite(x)) {
        lo = std::min(lo, double(x));
        hi = std::max(hi, double(x));
      }
    if (lo > hi) lo = hi = 0;
    pic_.lo = lo;
    pic_.hi = hi;
    const double span = hi - lo > 1e-12 * std::max(1.0, std::abs(hi)) ? hi - lo : 0.0;
    for (int t = 0; t < texels_; ++t) {
      const int i = pic_.node[size_t(t)];
      if (i < 0) continue;
      uint8_t* p = &pic_.rgba[size_t(t) * 4];
      const float x = v[size_t(i)];
      if (!std::isfinite(x)) {
        p[0] = p[1] = p[2] = 40;
      } else {
        colorMap(span > 0 ? (x - lo) / span : (fromZero ? 0.0 : 0.5), p);
      }
      dimGutter(t);
    }
    setValues(1, v, unit);
  }
  /// A vector per node as its magnitude on the colour map; the values are the vector.
  void vectorImage(const std::vector<Vec3>& v, const char* unit) {
    std::vector<float> mag(static_cast<size_t>(nodes_)), comp(static_cast<size_t>(nodes_) * 3);
    for (int i = 0; i < nodes_; ++i) {
      mag[size_t(i)] = float(v[size_t(i)].norm());
      for (int k = 0; k < 3; ++k) comp[size_t(i) * 3 + size_t(k)] = float(v[size_t(i)][k]);
    }
    scalarImage(mag, unit, true);
    setValues(3, comp, unit);
  }
  /// Positions as RGB over their bounding box.
  void positionImage(const std::vector<Vec3>& pos) {
    Aabb box;
    for (const Vec3& x : pos) box.grow(x);
    const Vec3 ext = (box.hi - box.lo).cwiseMax(Vec3::Constant(1e-9));
    std::vector<float> comp(size_t(nodes_) * 3);
    for (int i = 0; i < nodes_; ++i)
      for (int k = 0; k < 3; ++k) comp[size_t(i) * 3 + size_t(k)] = float(pos[size_t(i)][k]);
    for (int t = 0; t < texels_; ++t) {
      const int i = pic_.node[size_t(t)];
      if (i < 0) continue;
      const Vec3 c = (pos[size_t(i)] - box.lo).cwiseQuotient(ext);
      for (int k = 0; k < 3; ++k) pic_.rgba[size_t(t) * 4 + size_t(k)] = uint8_t(255 * std::clamp(c[k], 0.0, 1.0));
      dimGutter(t);
    }
    setValues(3, comp, "m");
  }
  /// Nodes white, gutter texels grey (darker without a source), the rest black.
  void maskImage() {
    for (int t = 0; t < texels_; ++t) {
      const uint8_t v = a_.texelKind[t] == TexelKind::Node     ? 255
                        : a_.texelKind[t] == TexelKind::Gutter ? (a_.gutterSource[t] >= 0 ? 110 : 50)
                                                               : 0;
      for (int k = 0; k < 3; ++k) pic_.rgba[size_t(t) * 4 + size_t(k)] = v;
    }
  }
  /// Each patch its colour.
  void patchImage() {
    for (int t = 0; t < texels_; ++t) {
      if (a_.texelPatch[t] < 0) continue;
      colorMap((a_.texelPatch[t] + 0.5) / std::max(1, a_.patchCount), &pic_.rgba[size_t(t) * 4]);
      dimGutter(t);
    }
  }
  /// The deepest contact of each node: its depth on the colour map, or its normal as RGB.
  void contactImage(const std::vector<NodeContact>& contacts, bool depth) {
    std::vector<const NodeContact*> deepest(size_t(nodes_), nullptr);
    for (const NodeContact& c : contacts) {
      if (c.node < 0 || c.node >= nodes_) continue;
      const NodeContact*& d = deepest[size_t(c.node)];
      if (!d || c.depth > d->depth) d = &c;
    }
    if (depth) {
      scalarImage(perNode([&](int i) { return deepest[size_t(i)] ? deepest[size_t(i)]->depth : double(kNone); }), "m",
                  true);
      return;
    }
    std::vector<float> comp(size_t(nodes_) * 3, kNone);
    for (int i = 0; i < nodes_; ++i)
      if (deepest[size_t(i)])
        for (int k = 0; k < 3; ++k) comp[size_t(i) * 3 + size_t(k)] = float(deepest[size_t(i)]->normal[k]);
    for (int t = 0; t < texels_; ++t) {
      const int i = pic_.node[size_t(t)];
      if (i < 0) continue;
      uint8_t* p = &pic_.rgba[size_t(t) * 4];
      for (int k = 0; k < 3; ++k)
        p[k] = deepest[size_t(i)] ? uint8_t(std::clamp(127.5 * (comp[size_t(i) * 3 + size_t(k)] + 1.0), 0.0, 255.0))
                                  : uint8_t(40);
      dimGutter(t);
    }
    setValues(3, comp, "");
  }

 private:
  void dimGutter(int t) {
    if (a_.texelKind[t] != TexelKind::Gutter) return;
    for (int k = 0; k < 3; ++k) pic_.rgba[size_t(t) * 4 + size_t(k)] /= 2;
  }
  // per-node values (nnode x components, NaN: none) -> per-texel values
  void setValues(int components, const std::vector<float>& perNode, const char* unit) {
    pic_.components = components;
    pic_.unit = std::string(unit);
    pic_.values.assign(size_t(texels_) * size_t(components), kNone);
    for (int t = 0; t < texels_; ++t) {
      const int i = pic_.node[size_t(t)];
      if (i < 0) continue;
      for (int k = 0; k < components; ++k)
        pic_.values[size_t(t) * size_t(components) + size_t(k)] = perNode[size_t(i) * size_t(components) + size_t(k)];
    }
  }
  const Atlas& a_;
  const int texels_, nodes_;
  TexturePicture pic_;
};

}  // namespace

TexturePicture atlasPicture(const BakedBody& body, AtlasChannel channel, const LayeredState* state,
                            const std::vector<NodeContact>* contacts) {
  PictureBuilder p(body);
  const int nodes = p.nodes();
  const bool haveState = state && int(state->q.size()) == nodes && int(state->qdot.size()) == nodes;
  switch (channel) {
    case AtlasChannel::RestPosition: p.positionImage(body.restSkin); break;
    case AtlasChannel::CorePosition: p.positionImage(body.core); break;
    case AtlasChannel::ValidMask: p.maskImage(); break;
    case AtlasChannel::PatchId: p.patchImage(); break;
    case AtlasChannel::Young:
      p.scalarImage(p.perNode([&](int i) { return std::log10(body.material[size_t(i)].young); }), "log10 Pa", false);
      break;
    case AtlasChannel::Density:
      p.scalarImage(p.perNode([&](int i) { return body.material[size_t(i)].density; }), "kg/m3", false);
      break;
    case AtlasChannel::NodeMass:
      p.scalarImage(p.perNode([&](int i) { return body.nodeMass[size_t(i)]; }), "kg", false);
      break;
    case AtlasChannel::Displacement:
      if (haveState) p.vectorImage(state->q, "m");
      break;
    case AtlasChannel::Velocity:
      if (haveState) p.vectorImage(state->qdot, "m/s");
      break;
    case AtlasChannel::ContactDepth:
    case AtlasChannel::ContactNormal:
      if (contacts) p.contactImage(*contacts, channel == AtlasChannel::ContactDepth);
      break;
  }
  return p.take();
}

std::vector<uint8_t> atlasImage(const BakedBody& body, AtlasChannel channel) {
  return atlasPicture(body, channel).rgba;
}

TexturePicture contactTexturePicture(int resolution, const std::vector<float>& d) {
  TexturePicture pic;
  const int r = std::max(resolution, 0);
  if (d.size() != size_t(r) * size_t(r)) return pic;  // nothing to show
  pic.width = pic.height = r;
  pic.components = 1;
  pic.unit = std::string("m");
  pic.values = d;
  pic.node.assign(d.size(), -1);
  pic.rgba.assign(d.size() * 4, 0);
  double deepest = 0, widest = 0;
  for (float x : d)
    if (std::isfinite(x)) {
      deepest = std::max(deepest, double(x));
      widest = std::max(widest, -double(x));
    }
  pic.lo = 0;
  pic.hi = deepest;
  for (size_t t = 0; t < d.size(); ++t) {
    uint8_t* p = &pic.rgba[t * 4];
    p[3] = 255;
    const float x = d[t];
    if (!std::isfinite(x)) continue;  // a skin is missing: black
    if (x > 0) {
      colorMap(deepest > 0 ? x / deepest : 1.0, p);
    } else {
      // separated: grey from 150 (touching) to 60 (the widest gap in the window)
      const uint8_t g = uint8_t(150 - 90 * (widest > 0 ? -x / widest : 0.0));
      p[0] = p[1] = p[2] = g;
    }
  }
  return pic;
}

std::string pictureReadout(const TexturePicture& pic, int x, int y) {
  if (x < 0 || y < 0 || x >= pic.width || y >= pic.height) return "";
  const size_t t = size_t(y) * size_t(pic.width) + size_t(x);
  char buf[200];
  int n = std::snprintf(buf, sizeof buf, "texel (%d, %d)", x, y);
  const int node = t < pic.node.size() ? pic.node[t] : -1;
  if (node >= 0) n += std::snprintf(buf + n, sizeof buf - size_t(n), " node %d", node);
  std::string s(buf, size_t(n));
  if (pic.components == 0 || pic.values.size() < (t + 1) * size_t(pic.components)) return s;
  const float* v = &pic.values[t * size_t(pic.components)];
  if (!std::isfinite(v[0])) return s + ": no value";
  const char* unit = pic.unit.c_str();
  if (pic.components == 1) {
    std::snprintf(buf, sizeof buf, ": %.4g %s", double(v[0]), unit);
  } else {
    const double norm = std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]);
    std::snprintf(buf, sizeof buf, ": (%.4g, %.4g, %.4g) %s, |.| %.4g", double(v[0]), double(v[1]), double(v[2]),
                  unit, norm);
  }
  return s + buf;
}

}  // namespace d2t
