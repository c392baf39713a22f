// A recording's file (recording.h): written and read back, every error naming the file,
// the field and what was expected (no World here: the readers' fuzz target builds it).
#include "sim/world/recording.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "sim/base/json_reader.h"

namespace d2t {

namespace {

constexpr int kFormat = 1;  // "d2tsim_recording": the format's version

uint64_t readHash(JsonReader& r, const std::string& key) {
  const std::string s = r.requiredString(key);
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.fail(key, "expected 16 hex digits (a state hash), got \"" + s + "\"");
  return std::stoull(s, nullptr, 16);
}

}  // namespace

std::string hexHash(uint64_t h) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}

void writeRecording(const std::string& path, const Recording& r) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const TimedInput& e : r.inputs) {
    nlohmann::json j = {{"step", e.step}};
    j.update(toJson(e.input));
    inputs.push_back(j);
  }
  nlohmann::json checkpoints = nlohmann::json::array();
  for (const auto& [k, h] : r.checkpoints) checkpoints.push_back({{"step", k}, {"hash", hexHash(h)}});
  const nlohmann::json j = {{"d2tsim_recording", kFormat}, {"scene", r.scene},     {"scene_json", r.sceneJson},
                            {"overrides", r.overrides},    {"first_step", r.firstStep}, {"steps", r.steps},
                            {"inputs", inputs},            {"checkpoints", checkpoints}};
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot write");
  f << j.dump(1) << "\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

Recording readRecording(const std::string& path) {
  const nlohmann::json root = readJsonFile(path);
  JsonReader r(root, path);
  if (!root.is_object()) r.failHere("a recording must be a JSON object, got " + describeJson(root));
  if (!r.has("d2tsim_recording")) r.fail("d2tsim_recording", "missing: not a d2tsim recording (--record writes one)");
  r.integer("d2tsim_recording", kFormat, kFormat, kFormat);
  Recording rec;
  rec.scene = r.requiredString("scene");
  rec.sceneJson = r.value("scene_json");
  if (!rec.sceneJson.is_object()) r.fail("scene_json", "expected the scene (an object), got " + describeJson(rec.sceneJson));
  rec.overrides = r.value("overrides");
  if (!rec.overrides.is_object()) r.fail("overrides", "expected an object, got " + describeJson(rec.overrides));
  rec.firstStep = r.integer("first_step", 0, 0, 1 << 30);
  rec.steps = r.integer("steps", 0, int(rec.firstStep), 1 << 30);
  long last = rec.firstStep;
  for (JsonReader& e : r.objectArray("inputs", true)) {
    if (!e.has("step")) e.fail("step", "required: the step the input came before");
    const int step = e.integer("step", 0, int(last), int(rec.steps));
    nlohmann::json input = e.node();
    input.erase("step");
    rec.inputs.push_back({step, readWorldInput(input, path, e.path())});
    last = step;
  }
  last = rec.firstStep - 1;
  for (JsonReader& c : r.objectArray("checkpoints", true)) {
    if (!c.has("step")) c.fail("step", "required");
    const int step = c.integer("step", 0, int(last + 1), int(rec.steps));
    rec.checkpoints.emplace_back(step, readHash(c, "hash"));
    last = step;
    c.finish();
  }
  r.finish();
  return rec;
}

}  // namespace d2t
