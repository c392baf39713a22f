// "metaphors": [...] of a scene (issue 30): localized control metaphors on the bodies
// (sim/loads/metaphor.h has the laws), read and written. Every error names the file, the
// field and what was expected.
#include <array>
#include <cmath>

#include "sim/scene/scene.h"

namespace d2t {

MetaphorDesc readMetaphor(JsonReader& r, int index, const Scene* s) {
  MetaphorDesc d;
  d.name = r.string("name", "metaphor" + std::to_string(index));
  if (!r.has("body")) r.fail("body", "required: the name of the body it acts on");
  d.body = r.requiredString("body");
  bool found = !s;
  for (const BodyDesc& b : s ? s->bodies : std::vector<BodyDesc>{}) found = found || b.name == d.body;
  if (!found) {
    for (const CharacterSpec& c : s->characters)
      if (c.name == d.body)
        r.fail("body", "\"" + d.body + "\" is a character or a mesh body: metaphors act on the atlas bodies for now");
    r.fail("body", "no body is named \"" + d.body + "\"");
  }
  d.type = r.requiredString("type", {"twist", "bend", "sphere", "flatten", "squash", "stretch"});
  if (d.type == "twist") d.mode = r.string("mode", "wring", {"wring", "uniform", "linear"});
  if (d.type == "bend") d.mode = r.string("mode", "three_point", {"three_point", "cantilever", "stretch"});
  JsonReader region = r.object("region");
  int kinds = 0;
  for (const char* k : {"cylinder", "box", "sphere", "nodes"}) kinds += region.has(k);
  if (kinds != 1)
    region.failHere("expected exactly one of \"cylinder\", \"box\", \"sphere\", \"nodes\", got " +
                    std::to_string(kinds));
  JsonReader g(region.node(), region.file());
  if (region.optionalObject("cylinder", &g)) {
    d.region = "cylinder";
    d.center = g.vec3("center", d.center);
    d.axis = g.vec3("axis", d.axis);
    d.radius = g.number("radius", d.radius, 0, 1e3, true);
    d.height = g.number("height", d.height, 0, 1e3, true);
  } else if (region.optionalObject("box", &g)) {
    d.region = "box";
    d.center = g.vec3("center", d.center);
    d.size = g.vec3("size", d.size);
    if (d.size.minCoeff() <= 0) g.fail("size", "expected three extents > 0");
  } else if (region.optionalObject("sphere", &g)) {
    d.region = "sphere";
    d.center = g.vec3("center", d.center);
    d.radius = g.number("radius", d.radius, 0, 1e3, true);
  } else {
    d.region = "nodes";
    const nlohmann::json& list = region.value("nodes");
    if (!list.is_array() || list.empty()) region.fail("nodes", "expected a non-empty array of node indices, got " + describeJson(list));
    for (const auto& n : list) {
      if (!n.is_number_integer() || n.get<long long>() < 0 || n.get<long long>() > (1 << 30))
        region.fail("nodes", "expected node indices (integers >= 0), got " + describeJson(n));
      d.nodes.push_back(n.get<int>());
    }
    d.center = region.vec3("center", d.center);
  }
  // the metaphor's axis a: the cylinder's own; else region/axis (default +y)
  if (d.region != "cylinder") d.axis = region.vec3("axis", d.axis);
  if (d.region != "nodes") g.finish();
  region.finish();
  if (d.axis.norm() < 1e-9) r.fail("region", "its axis must not be zero");
  if (std::abs(d.axis.norm() - 1) > 1e-14) d.axis.normalize();  // (a unit axis read back keeps its bits)
  d.magnitude = r.requiredNumber("magnitude", -1e8, 1e8);
  if (d.magnitude == 0) r.fail("magnitude", "expected a traction [Pa] other than 0");
  if (d.type == "bend") d.direction = r.vec3("direction", std::abs(d.axis.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitZ());
  if (d.type == "sphere") d.sphereRadius = r.number("radius", 0, 0, 1e3);
  d.start = r.number("start", 0, 0, 1e6);
  d.end = r.number("end", d.start + 1, 0, 1e6);
  if (d.end <= d.start) r.fail("end", "expected a time after start (" + std::to_string(d.start) + " s)");
  d.easeIn = r.number("ease_in", 0, 0, 1e6);
  d.easeOut = r.number("ease_out", 0, 0, 1e6);
  if (d.easeIn + d.easeOut > d.end - d.start + 1e-12)
    r.fail("ease_out", "ease_in + ease_out must fit the window (" + std::to_string(d.end - d.start) + " s)");
  d.smooth = r.string("ease", "linear", {"linear", "smooth"}) == "smooth";
  d.balanced = r.boolean("balanced", false);
  // the corrections: true for Greway's fractions, or the fractions per 1/60 s
  if (r.has("neighbor_damping")) {
    const nlohmann::json& v = r.value("neighbor_damping");
    if (v.is_boolean()) {
      d.neighborDamping = v.get<bool>() ? std::array<double, 2>{0.5, 0.25} : std::array<double, 2>{0, 0};
    } else if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() && v[0].get<double>() >= 0 &&
               v[0].get<double>() < 1 && v[1].get<double>() >= 0 && v[1].get<double>() < 1) {
      d.neighborDamping = {v[0].get<double>(), v[1].get<double>()};
    } else {
      r.fail("neighbor_damping", "expected true, false or two fractions in [0, 1) (the first and second rings' "
                                 "velocity taken per 1/60 s), got " + describeJson(v));
    }
  }
  if (r.has("mitigation")) {
    const nlohmann::json& v = r.value("mitigation");
    if (v.is_boolean()) d.mitigation = v.get<bool>() ? 0.5 : 0.0;
    else d.mitigation = r.number("mitigation", 0, 0, 1);
  }
  d.frame = r.string("frame", "core", {"core", "nodes"});
  r.finish();
  return d;
}

namespace {
nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
}  // namespace

nlohmann::json toJson(const MetaphorDesc& d) {
  nlohmann::json j = {{"name", d.name}, {"body", d.body}, {"type", d.type}};
  if (!d.mode.empty()) j["mode"] = d.mode;
  nlohmann::json region = nlohmann::json::object();
  if (d.region == "cylinder") {
    region["cylinder"] = {{"center", vec(d.center)}, {"axis", vec(d.axis)}, {"radius", d.radius}, {"height", d.height}};
  } else {
    if (d.region == "box") region["box"] = {{"center", vec(d.center)}, {"size", vec(d.size)}};
    else if (d.region == "sphere") region["sphere"] = {{"center", vec(d.center)}, {"radius", d.radius}};
    else {
      region["nodes"] = d.nodes;
      region["center"] = vec(d.center);
    }
    region["axis"] = vec(d.axis);
  }
  j["region"] = region;
  j["magnitude"] = d.magnitude;
  if (d.type == "bend") j["direction"] = vec(d.direction);
  if (d.type == "sphere") j["radius"] = d.sphereRadius;
  j["start"] = d.start;
  j["end"] = d.end;
  j["ease_in"] = d.easeIn;
  j["ease_out"] = d.easeOut;
  j["ease"] = d.smooth ? "smooth" : "linear";
  j["balanced"] = d.balanced;
  j["frame"] = d.frame;
  j["neighbor_damping"] = {d.neighborDamping[0], d.neighborDamping[1]};
  j["mitigation"] = d.mitigation;
  return j;
}

MetaphorDesc checkedMetaphor(const MetaphorDesc& d, const std::string& where) {
  const nlohmann::json j = toJson(d);
  JsonReader r(j, where, "/metaphor");
  return readMetaphor(r, 0, nullptr);
}

void readMetaphors(JsonReader& root, Scene* s) {
  std::vector<JsonReader> list = root.objectArray("metaphors", false);
  for (size_t i = 0; i < list.size(); ++i) {
    s->metaphors.push_back(readMetaphor(list[i], int(i), s));
    for (size_t j = 0; j < i; ++j)
      if (s->metaphors[j].name == s->metaphors[i].name)
        list[i].fail("name", "another metaphor is named \"" + s->metaphors[i].name + "\"");
  }
}

}  // namespace d2t
