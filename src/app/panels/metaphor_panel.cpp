// The Metaphors panel (issue 30): the world's control metaphors listed, added, edited and
// deleted; each change is an input of the run (the timeline records it: made in the past,
// it keeps the past and re-simulates the future), checked as a scene's metaphor (a refusal
// names the field and leaves the run as it was); "Save scene" writes them into a scene file
// that a headless run reproduces. The View panel's "metaphors" draws the selected one's
// nodes, rings, structure and forces (overlay.h).

#include "app/panels/panels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "app/app.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace {

constexpr std::array<const char*, 6> kTypes = {"twist", "bend", "sphere", "flatten", "squash", "stretch"};
constexpr std::array<const char*, 3> kTwistModes = {"wring", "uniform", "linear"};
constexpr std::array<const char*, 3> kBendModes = {"three_point", "cantilever", "stretch"};
constexpr std::array<const char*, 3> kRegions = {"cylinder", "box", "sphere"};
constexpr std::array<const char*, 2> kFrames = {"core", "nodes"};

// A combo over `names` for `value`; true when changed.
template <size_t N>
bool combo(const char* label, std::string& value, const std::array<const char*, N>& names) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value.c_str())) {
    for (const char* n : names)
      if (ImGui::Selectable(n, value == n)) {
        changed = value != n;
        value = n;
      }
    ImGui::EndCombo();
  }
  return changed;
}

// Applies the list as one input (recorded by the timeline); a refusal is kept for the panel.
void applyList(Ui& ui, const std::vector<MetaphorDesc>& list) {
  WorldInput in;
  in.kind = WorldInput::Kind::Metaphors;
  in.metaphors = list;
  try {
    ui.session.input(in);
    ui.metaphorError.clear();
  } catch (const InputError& e) {
    ui.metaphorError = e.what();
  }
}

// A new metaphor of `type` on body `b`, 2 kPa, from now on for 1.5 s, eased in and out. At
// the clicked node (`node` >= 0): a cylinder region about the surface's outward direction
// there (a third of the body's size across), a twist turning that patch about it (uniform);
// else a sphere region at the top of the shape.
MetaphorDesc fresh(const World& w, size_t b, int node, const std::string& type, const std::vector<MetaphorDesc>& list) {
  MetaphorDesc d;
  d.body = w.bodies()[b].desc.name;
  d.type = type;
  d.mode = type == "twist" ? (node >= 0 ? "uniform" : "wring") : type == "bend" ? "three_point" : "";
  for (int k = 1;; ++k) {
    d.name = type + std::to_string(k);
    if (std::none_of(list.begin(), list.end(), [&](const MetaphorDesc& m) { return m.name == d.name; })) break;
  }
  const BakedBody& model = *w.bodies()[b].model;
  const double r = w.bodies()[b].desc.shape->boundingRadius();
  if (node >= 0 && node < model.nodeCount()) {
    d.region = "cylinder";
    d.center = model.restSkin[size_t(node)] + model.comOffset;  // (the shape's frame)
    d.axis = d.center.norm() > 1e-9 ? Vec3(d.center.normalized()) : Vec3::UnitY();
    d.radius = 0.3 * r;
    d.height = 0.5 * r;
  } else {
    d.region = "sphere";
    d.center = Vec3(0, 0.75 * r, 0);
    d.radius = 0.4 * r;
    d.axis = Vec3::UnitY();
  }
  const Vec3 across = std::abs(d.axis.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitZ();
  d.direction = (across - across.dot(d.axis) * d.axis).normalized();
  d.magnitude = 2000;
  d.start = w.time() + 0.05;
  d.end = d.start + 1.5;
  d.easeIn = d.easeOut = 0.3;
  return d;
}

bool drag3(const char* label, Vec3& v, float speed) {
  float f[3] = {float(v.x()), float(v.y()), float(v.z())};
  const bool changed = ImGui::DragFloat3(label, f, speed, 0, 0, "%.3f");
  if (changed) v = Vec3(f[0], f[1], f[2]);
  return changed;
}

bool dragDouble(const char* label, double& v, float speed, double lo, double hi, const char* format) {
  float f = float(v);
  const bool changed = ImGui::DragFloat(label, &f, speed, float(lo), float(hi), format);
  if (changed) v = f;
  return changed;
}

}  // namespace

void brushPaint(Ui& ui, int body, int node) {
  const BakedBody& model = *ui.session.world->bodies()[size_t(body)].model;
  if (node < 0 || node >= model.nodeCount()) return;
  const Vec3 at = model.restSkin[size_t(node)];
  std::vector<int> add;
  for (int i = 0; i < model.nodeCount(); ++i)
    if ((model.restSkin[size_t(i)] - at).norm() <= ui.brushRadius) add.push_back(i);
  std::vector<int> merged;
  std::set_union(ui.brushNodes.begin(), ui.brushNodes.end(), add.begin(), add.end(), std::back_inserter(merged));
  ui.brushNodes.swap(merged);
  ui.status = "painting " + std::to_string(ui.brushNodes.size()) + " nodes of " +
              ui.session.world->bodies()[size_t(body)].desc.name + " (let go: the selected metaphor's region, or a new " +
              ui.metaphorType + ")";
}

void brushCommit(Ui& ui) {
  World& w = *ui.session.world;
  if (ui.brushBody < 0 || ui.brushBody >= int(w.bodies().size()) || ui.brushNodes.empty()) return;
  const BakedBody& model = *w.bodies()[size_t(ui.brushBody)].model;
  std::vector<MetaphorDesc> list = w.metaphorDescs();
  const bool onSelected = ui.metaphor >= 0 && ui.metaphor < int(list.size()) &&
                          list[size_t(ui.metaphor)].body == w.bodies()[size_t(ui.brushBody)].desc.name;
  MetaphorDesc d = onSelected ? list[size_t(ui.metaphor)] : fresh(w, size_t(ui.brushBody), ui.brushNodes[0], ui.metaphorType, list);
  // the painted nodes; the centre their centroid, the axis its outward direction (shape frame)
  Vec3 centroid = Vec3::Zero();
  for (int i : ui.brushNodes) centroid += model.restSkin[size_t(i)] + model.comOffset;
  centroid /= double(ui.brushNodes.size());
  d.region = "nodes";
  d.nodes = ui.brushNodes;
  d.center = centroid;
  if (centroid.norm() > 1e-9) d.axis = centroid.normalized();
  const Vec3 across = std::abs(d.axis.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitZ();
  if (d.type == "bend") d.direction = (across - across.dot(d.axis) * d.axis).normalized();
  if (onSelected) {
    list[size_t(ui.metaphor)] = d;
  } else {
    list.push_back(d);
  }
  applyList(ui, list);
  if (!onSelected && ui.metaphorError.empty()) ui.metaphor = int(list.size()) - 1;
  ui.metaphorEditing = false;
  ui.status = std::to_string(ui.brushNodes.size()) + " painted nodes: the region of " + d.name;
  ui.brushNodes.clear();
  ui.brushBody = -1;
}

namespace {
const Body* bodyOf(const World& w, const MetaphorDesc& d) {
  for (const Body& b : w.bodies())
    if (b.desc.name == d.body) return &b;
  return nullptr;
}
}  // namespace

bool handlePress(Ui& ui, const Ray& ray) {
  World& w = *ui.session.world;
  if (ui.metaphor < 0 || ui.metaphor >= int(w.metaphors().size()) || !ui.settings.view.metaphors) return false;
  const MetaphorDesc& d = w.metaphors()[size_t(ui.metaphor)]->desc();
  const Body* b = bodyOf(w, d);
  if (!b) return false;
  const CoreState& s = b->layered.core();
  const Vec3 c = s.position + s.orientation * (d.center - b->model->comOffset);
  const double t = (c - ray.origin).dot(ray.dir);
  if (t <= 0 || (c - ray.origin - t * ray.dir).norm() > std::max(0.02, 0.025 * t)) return false;
  ui.metaphorDraft = d;
  ui.metaphorEditing = true;
  ui.drag.emplace(-1, c, c, ui.camera);
  ui.settings.view.draftBody = int(b - w.bodies().data());
  ui.settings.view.draft = d;
  ui.status = "moving " + d.name + "'s region (let go: applied from now on)";
  return true;
}

void handleMove(Ui& ui, const Ray& ray) {
  World& w = *ui.session.world;
  const int k = ui.settings.view.draftBody;
  if (!ui.drag || k < 0 || k >= int(w.bodies().size())) return;
  const Body& b = w.bodies()[size_t(k)];
  const CoreState& s = b.layered.core();
  const Vec3 x = ui.drag->follow(ray);
  ui.metaphorDraft.center = s.orientation.conjugate() * (x - s.position) + b.model->comOffset;
  ui.settings.view.draft = ui.metaphorDraft;
}

void handleCommit(Ui& ui) {
  World& w = *ui.session.world;
  ui.settings.view.draftBody = -1;
  ui.drag.reset();
  if (ui.metaphor < 0 || ui.metaphor >= int(w.metaphors().size())) return;
  std::vector<MetaphorDesc> list = w.metaphorDescs();
  list[size_t(ui.metaphor)] = ui.metaphorDraft;
  ui.metaphorEditing = false;
  applyList(ui, list);
  const Vec3& c = ui.metaphorDraft.center;
  char text[160];
  std::snprintf(text, sizeof text, "%s's region moved to (%.3f, %.3f, %.3f) (shape frame)", ui.metaphorDraft.name.c_str(),
                c.x(), c.y(), c.z());
  ui.status = ui.metaphorError.empty() ? text : ui.metaphorError;
}

void metaphorPanel(Ui& ui) {
  Session& s = ui.session;
  World& w = *s.world;
  ImGui::SetNextWindowPos(px(ui, 690, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 340, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowCollapsed(w.metaphors().empty(), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Metaphors", &ui.settings.panels.metaphors, ImGuiWindowFlags_AlwaysAutoResize)) {
    ui.settings.view.selectedMetaphor = -1;
    return ImGui::End();
  }
  std::vector<MetaphorDesc> list = w.metaphorDescs();
  if (ui.metaphor >= int(list.size())) ui.metaphor = -1;
  // the list: name, type, body, window (the one working now marked)
  for (size_t k = 0; k < list.size(); ++k) {
    const MetaphorDesc& d = list[k];
    const bool working = w.metaphors()[k]->working();
    char label[192];
    std::snprintf(label, sizeof label, "%s%s: %s%s%s on %s, %.2f-%.2f s###m%zu", working ? "* " : "", d.name.c_str(),
                  d.type.c_str(), d.mode.empty() ? "" : " ", d.mode.c_str(), d.body.c_str(), d.start, d.end, k);
    if (ImGui::Selectable(label, ui.metaphor == int(k))) {
      ui.metaphor = ui.metaphor == int(k) ? -1 : int(k);
      ui.metaphorEditing = false;
    }
  }
  if (list.empty()) ImGui::TextDisabled("no metaphor: add one below");
  // add one to the picked body (or the first)
  if (w.bodies().empty()) {
    ImGui::TextDisabled("metaphors act on the atlas bodies: this scene has none");
  } else {
    std::string& type = ui.metaphorType;
    ImGui::SetNextItemWidth(110 * ui.scale);
    combo("##type", type, kTypes);
    ImGui::SameLine();
    const bool picked = ui.picked.kind == Pick::Kind::Body && ui.picked.index < int(w.bodies().size());
    const size_t b = picked ? size_t(ui.picked.index) : 0;
    const std::string add = (picked ? "add at the click on " : "add to ") + w.bodies()[b].desc.name;
    if (ImGui::Button(add.c_str())) {
      list.push_back(fresh(w, b, picked ? ui.picked.node : -1, type, list));
      applyList(ui, list);
      ui.metaphor = int(w.metaphors().size()) - 1;
      ui.metaphorEditing = false;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("A metaphor where you clicked a body (a cylinder about the surface there; a twist turns\n"
                        "that patch), else on the first body's top; 2 kPa, from now for 1.5 s. Edit it below;\n"
                        "made in the past (the Timeline's bar dragged back), the future re-simulates.");
    ImGui::Checkbox("brush", &ui.brush);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("On: a left drag on a body paints nodes (instead of pulling the skin); let go, they are\n"
                        "the selected metaphor's region, or a new metaphor's of the type above. Shift+drag pans.");
    ImGui::SameLine();
    float radius = float(ui.brushRadius * 100);
    ImGui::SetNextItemWidth(120 * ui.scale);
    if (ImGui::SliderFloat("radius [cm]", &radius, 1, 50, "%.0f")) ui.brushRadius = radius / 100;
  }
  // the selected one's fields, applied when a field is let go
  if (ui.metaphor >= 0) {
    const size_t k = size_t(ui.metaphor);
    if (!ui.metaphorEditing) ui.metaphorDraft = list[k];
    MetaphorDesc& d = ui.metaphorDraft;
    bool now = false;  // a change to apply now (a combo, a checkbox, a drag let go)
    const auto held = [&](bool changed) {
      if (changed) ui.metaphorEditing = true;
      if (ImGui::IsItemDeactivatedAfterEdit()) now = true;
    };
    ImGui::Separator();
    ImGui::PushItemWidth(190 * ui.scale);
    if (combo("type", d.type, kTypes)) {
      d.mode = d.type == "twist" ? "wring" : d.type == "bend" ? "three_point" : "";
      now = true;
    }
    if (d.type == "twist") now |= combo("mode", d.mode, kTwistModes);
    if (d.type == "bend") now |= combo("mode", d.mode, kBendModes);
    if (d.region == "nodes") {
      ImGui::Text("region: %zu picked nodes", d.nodes.size());
    } else {
      now |= combo("region", d.region, kRegions);
    }
    held(drag3("center [m]", d.center, 0.005f));
    held(drag3("axis", d.axis, 0.01f));
    if (d.region == "cylinder" || d.region == "sphere") held(dragDouble("radius [m]", d.radius, 0.002f, 0.001, 100, "%.3f"));
    if (d.region == "cylinder") held(dragDouble("height [m]", d.height, 0.002f, 0.001, 100, "%.3f"));
    if (d.region == "box") held(drag3("size [m]", d.size, 0.005f));
    held(dragDouble("traction [Pa]", d.magnitude, 20.0f, -1e6, 1e6, "%.0f"));
    if (d.type == "bend") held(drag3("direction", d.direction, 0.01f));
    held(dragDouble("start [s]", d.start, 0.01f, 0, 1e6, "%.2f"));
    held(dragDouble("end [s]", d.end, 0.01f, 0, 1e6, "%.2f"));
    held(dragDouble("ease in [s]", d.easeIn, 0.01f, 0, 1e6, "%.2f"));
    held(dragDouble("ease out [s]", d.easeOut, 0.01f, 0, 1e6, "%.2f"));
    now |= combo("frame", d.frame, kFrames);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("core: the forces turn with the body's core; nodes: with three of the region's skin\n"
                        "nodes (Greway's frame: it follows the skin as it twists)");
    now |= ImGui::Checkbox("smooth ease", &d.smooth);
    ImGui::SameLine();
    now |= ImGui::Checkbox("balanced", &d.balanced);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("no net force or torque: it only deforms");
    float damping[2] = {float(d.neighborDamping[0]), float(d.neighborDamping[1])};
    if (ImGui::SliderFloat2("ring damping", damping, 0, 0.95f, "%.2f")) {
      d.neighborDamping = {damping[0], damping[1]};
      ui.metaphorEditing = true;
    }
    if (ImGui::IsItemDeactivatedAfterEdit()) now = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the first (yellow) and second (purple) rings' skin velocity taken per 1/60 s (Greway: 0.5, 0.25)");
    held(dragDouble("mitigation", d.mitigation, 0.005f, 0, 1, "%.2f"));
    ImGui::PopItemWidth();
    if (now) {
      list[k] = d;
      ui.metaphorEditing = false;
      applyList(ui, list);
    }
    if (ImGui::Button("delete")) {
      list.erase(list.begin() + long(k));
      applyList(ui, list);
      ui.metaphor = -1;
    }
    const Metaphor& m = *w.metaphors()[std::min(k, w.metaphors().size() - 1)];
    ImGui::SameLine();
    ImGui::TextDisabled("%zu nodes, rings %zu + %zu", m.nodes().size(), m.ring(0).size(), m.ring(1).size());
  }
  ui.settings.view.selectedMetaphor = ui.metaphor;
  ui.settings.view.paintBody = ui.mouse == MouseMode::Brush ? ui.brushBody : -1;
  ui.settings.view.paintNodes = ui.brushNodes;
  if (!ui.metaphorError.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", ui.metaphorError.c_str());
  // save into a scene file
  ImGui::Separator();
  if (ui.saveScenePath.empty()) ui.saveScenePath = s.scenePath;
  char path[512];
  std::snprintf(path, sizeof path, "%s", ui.saveScenePath.c_str());
  ImGui::SetNextItemWidth(230 * ui.scale);
  if (ImGui::InputText("##save", path, sizeof path)) ui.saveScenePath = path;
  ImGui::SameLine();
  if (ImGui::Button("save scene")) {
    try {
      s.saveScene(ui.saveScenePath);
      ui.status = "scene with its metaphors saved to " + ui.saveScenePath;
    } catch (const InputError& e) {
      ui.metaphorError = e.what();
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Writes the scene with these metaphors (a headless run of the file reproduces them;\n"
                      "the run's drags are in --record's recordings, not in the scene).");
  ImGui::End();
}

}  // namespace d2t
