// A World's inputs as JSON, and their one-line descriptions (world_input.h): what a
// recording holds (no World here: the readers' fuzz target builds this file alone).
#include "sim/world/world_input.h"

#include <array>
#include <cmath>
#include <stdexcept>

#include "sim/base/json_reader.h"

namespace d2t {

namespace {

using Kind = WorldInput::Kind;

// Each kind's name in a recording, and the name of its `index` field ("" : none).
struct KindName {
  Kind kind;
  const char* type;
  const char* index;
};
constexpr std::array<KindName, 10> kKinds = {{
    {Kind::ColliderDrag, "collider_drag", "collider"},
    {Kind::ColliderRelease, "collider_release", "collider"},
    {Kind::SkinDrag, "skin_drag", "body"},
    {Kind::CharacterDrag, "character_drag", "character"},
    {Kind::DragMove, "drag_move", ""},
    {Kind::DragEnd, "drag_end", ""},
    {Kind::Material, "material", "body"},
    {Kind::Settings, "settings", ""},
    {Kind::Metaphors, "metaphors", ""},
    {Kind::Pose, "pose", "body"},
}};

const KindName& named(Kind k) {
  for (const KindName& n : kKinds)
    if (n.kind == k) return n;
  throw std::logic_error("WorldInput: unknown kind");
}

nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }

}  // namespace

nlohmann::json toJson(const WorldInput& in) {
  const KindName& n = named(in.kind);
  nlohmann::json j = {{"type", n.type}};
  if (*n.index) j[n.index] = in.index;
  switch (in.kind) {
    case Kind::ColliderDrag:
      j["target"] = vec(in.target);
      j["dt"] = in.dt;
      break;
    case Kind::SkinDrag:
    case Kind::CharacterDrag:
      j["node"] = in.node;
      j["target"] = vec(in.target);
      break;
    case Kind::DragMove:
      j["target"] = vec(in.target);
      break;
    case Kind::Material:
      j["material"] = toJson(in.material);
      break;
    case Kind::Settings:
      j["settings"] = toJson(in.settings);
      break;
    case Kind::Metaphors:
      j["metaphors"] = nlohmann::json::array();
      for (const MetaphorDesc& m : in.metaphors) j["metaphors"].push_back(toJson(m));
      break;
    case Kind::Pose:
      j["pose"] = in.pose;
      j["enabled"] = in.morphOn;
      break;
    case Kind::ColliderRelease:
    case Kind::DragEnd:
      break;
  }
  return j;
}

WorldInput readWorldInput(const nlohmann::json& node, const std::string& file, const std::string& path) {
  JsonReader r(node, file, path);
  if (!node.is_object()) r.failHere("expected an input object, got " + describeJson(node));
  std::vector<std::string> types;
  for (const KindName& n : kKinds) types.push_back(n.type);
  const std::string type = r.requiredString("type", types);
  WorldInput in;
  for (const KindName& n : kKinds)
    if (type == n.type) in.kind = n.kind;
  const KindName& n = named(in.kind);
  if (*n.index) {
    if (!r.has(n.index)) r.fail(n.index, "required for a " + type + " input");
    in.index = r.integer(n.index, 0, 0, 1 << 30);
  }
  const auto target = [&] {
    if (!r.has("target")) r.fail("target", "required for a " + type + " input");
    in.target = r.vec3("target", Vec3::Zero());
  };
  switch (in.kind) {
    case Kind::ColliderDrag:
      target();
      in.dt = r.number("dt", 0, 0, 1);
      break;
    case Kind::SkinDrag:
    case Kind::CharacterDrag:
      if (!r.has("node")) r.fail("node", "required for a " + type + " input");
      in.node = r.integer("node", 0, 0, 1 << 30);
      target();
      break;
    case Kind::DragMove:
      target();
      break;
    case Kind::Material: {
      JsonReader m = r.object("material");
      in.material = readMaterial(m);
      m.finish();
      break;
    }
    case Kind::Settings: {
      JsonReader s = r.object("settings");
      in.settings = readSimulation(s);
      break;
    }
    case Kind::Metaphors: {
      if (!r.has("metaphors")) r.fail("metaphors", "required for a metaphors input (the list, maybe empty)");
      std::vector<JsonReader> list = r.objectArray("metaphors", true);
      for (size_t i = 0; i < list.size(); ++i) in.metaphors.push_back(readMetaphor(list[i], int(i), nullptr));
      break;
    }
    case Kind::Pose: {
      const nlohmann::json& v = r.value("pose");
      if (!v.is_array() || v.size() > 64)
        r.fail("pose", "expected the held pose (up to 64 numbers; [] follows the track), got " + describeJson(v));
      for (const auto& x : v) {
        if (!x.is_number() || !std::isfinite(x.get<double>())) r.fail("pose", "expected finite numbers, got " + describeJson(x));
        in.pose.push_back(x.get<double>());
      }
      in.morphOn = r.boolean("enabled", true);
      break;
    }
    case Kind::ColliderRelease:
    case Kind::DragEnd:
      break;
  }
  r.finish();
  return in;
}

std::string describe(const WorldInput& in) {
  const KindName& n = named(in.kind);
  std::string s = n.type;
  for (char& c : s)
    if (c == '_') c = ' ';
  if (*n.index) s += std::string(", ") + n.index + " " + std::to_string(in.index);
  if (in.kind == Kind::SkinDrag || in.kind == Kind::CharacterDrag) s += " node " + std::to_string(in.node);
  if (in.kind == Kind::Material) s += ": young " + std::to_string(in.material.young) + " Pa";
  if (in.kind == Kind::Settings) s += ": dt " + std::to_string(in.settings.dt * 1e3) + " ms";
  if (in.kind == Kind::Metaphors) {
    s += ": " + std::to_string(in.metaphors.size()) + (in.metaphors.size() == 1 ? " metaphor" : " metaphors");
    for (size_t i = 0; i < in.metaphors.size() && i < 3; ++i) s += (i ? ", " : " (") + in.metaphors[i].name;
    if (!in.metaphors.empty()) s += in.metaphors.size() > 3 ? ", ...)" : ")";
  }
  return s;
}

}  // namespace d2t
