#include "sim/base/json_reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace d2t {

namespace {

std::string fmtNumber(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string rangeText(double lo, double hi, bool loOpen, bool hiOpen) {
  const bool noLo = lo <= -1e300, noHi = hi >= 1e300;
  if (noLo && noHi) return "a number";
  if (noHi) return std::string("a number ") + (loOpen ? "> " : ">= ") + fmtNumber(lo);
  if (noLo) return std::string("a number ") + (hiOpen ? "< " : "<= ") + fmtNumber(hi);
  return std::string("in ") + (loOpen ? "(" : "[") + fmtNumber(lo) + ", " + fmtNumber(hi) +
         (hiOpen ? ")" : "]");
}

}  // namespace

std::string describeJson(const nlohmann::json& v) {
  std::string dump = v.dump();
  if (dump.size() > 60) dump = dump.substr(0, 57) + "...";
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "a boolean " + dump;
    case nlohmann::json::value_t::string: return "a string " + dump;
    case nlohmann::json::value_t::array: return "an array " + dump;
    case nlohmann::json::value_t::object: return "an object " + dump;
    default: return dump;
  }
}

namespace {

/// "LINE:COLUMN" (1-based) of the byte at the 1-based offset `byte` of `text`.
std::string lineColumn(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

nlohmann::json readJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the offset of the error
    std::string msg = e.what();
    const auto pos = msg.find("syntax error");
    if (pos != std::string::npos) msg = msg.substr(pos);
    throw InputError(path + ":" + lineColumn(text, e.byte) + ": malformed JSON: " + msg);
  } catch (const nlohmann::json::out_of_range& e) {
    // 406: a number literal beyond the range of a double ("number overflow parsing '1e999'");
    // the exception has no offset: point at the first occurrence of the literal
    const std::string msg = e.what();
    const auto open = msg.find('\''), close = msg.rfind('\'');
    const std::string literal =
        open != std::string::npos && close > open ? msg.substr(open + 1, close - open - 1) : "";
    const auto at = literal.empty() ? std::string::npos : text.find(literal);
    throw InputError(path + (at == std::string::npos ? "" : ":" + lineColumn(text, at + 1)) +
                     ": malformed JSON: expected a number within the range of a double "
                     "(|x| < 1.8e308), got " + (literal.empty() ? msg : literal));
  }
}

JsonReader::JsonReader(const nlohmann::json& node, std::string file, std::string path)
    : node_(&node), file_(std::move(file)), path_(std::move(path)) {}

bool JsonReader::has(const std::string& key) const {
  return node_->is_object() && node_->contains(key);
}

std::string JsonReader::childPath(const std::string& key) const { return path_ + "/" + key; }

void JsonReader::fail(const std::string& key, const std::string& message) const {
  throw InputError(file_ + ": " + childPath(key) + ": " + message);
}

void JsonReader::failHere(const std::string& message) const {
  throw InputError(file_ + ": " + (path_.empty() ? "/" : path_) + ": " + message);
}

const nlohmann::json* JsonReader::get(const std::string& key, bool required) {
  if (!node_->is_object()) failHere("expected an object, got " + describeJson(*node_));
  used_.insert(key);
  auto it = node_->find(key);
  if (it == node_->end()) {
    if (required) fail(key, "required field is missing");
    return nullptr;
  }
  return &*it;
}

double JsonReader::number(const std::string& key, double def, double lo, double hi, bool loOpen,
                          bool hiOpen) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  const std::string want = rangeText(lo, hi, loOpen, hiOpen);
  if (!v->is_number()) fail(key, "expected " + want + ", got " + describeJson(*v));
  const double x = v->get<double>();
  const bool bad = !std::isfinite(x) || x < lo || x > hi || (loOpen && x == lo) ||
                   (hiOpen && x == hi);
  if (bad) fail(key, "must be " + want + ", got " + fmtNumber(x));
  return x;
}

double JsonReader::requiredNumber(const std::string& key, double lo, double hi, bool loOpen,
                                  bool hiOpen) {
  get(key, true);
  return number(key, 0.0, lo, hi, loOpen, hiOpen);
}

int JsonReader::integer(const std::string& key, int def, int lo, int hi) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  const std::string want = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v->is_number_integer() && !(v->is_number() && std::floor(v->get<double>()) == v->get<double>()))
    fail(key, "expected " + want + ", got " + describeJson(*v));
  const double x = v->get<double>();
  if (x < lo || x > hi) fail(key, "must be " + want + ", got " + fmtNumber(x));
  return static_cast<int>(x);
}

bool JsonReader::boolean(const std::string& key, bool def) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + describeJson(*v));
  return v->get<bool>();
}

std::string JsonReader::string(const std::string& key, const std::string& def,
                               const std::vector<std::string>& allowed) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  std::string choices;
  for (size_t i = 0; i < allowed.size(); ++i) choices += (i ? " | " : "") + allowed[i];
  if (!v->is_string())
    fail(key, "expected " + (allowed.empty() ? std::string("a string") : "one of " + choices) +
                  ", got " + describeJson(*v));
  std::string s = v->get<std::string>();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(key, "must be one of " + choices + ", got \"" + s + "\"");
  return s;
}

std::string JsonReader::requiredString(const std::string& key, const std::vector<std::string>& allowed) {
  get(key, true);
  return string(key, "", allowed);
}

Vec3 JsonReader::vec3(const std::string& key, const Vec3& def) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  if (!v->is_array() || v->size() != 3)
    fail(key, "expected an array of 3 numbers, got " + describeJson(*v));
  Vec3 r;
  for (int i = 0; i < 3; ++i) {
    const auto& e = (*v)[i];
    if (!e.is_number() || !std::isfinite(e.get<double>()))
      fail(key + "/" + std::to_string(i), "expected a finite number, got " + describeJson(e));
    r[i] = e.get<double>();
  }
  return r;
}

Vec2 JsonReader::vec2(const std::string& key, const Vec2& def) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  if (!v->is_array() || v->size() != 2)
    fail(key, "expected an array of 2 numbers, got " + describeJson(*v));
  Vec2 r;
  for (int i = 0; i < 2; ++i) {
    const auto& e = (*v)[i];
    if (!e.is_number() || !std::isfinite(e.get<double>()))
      fail(key + "/" + std::to_string(i), "expected a finite number, got " + describeJson(e));
    r[i] = e.get<double>();
  }
  return r;
}

Quat JsonReader::quat(const std::string& key, const Quat& def) {
  const nlohmann::json* v = get(key, false);
  if (!v) return def;
  if (!v->is_array() || v->size() != 4)
    fail(key, "expected a quaternion [w, x, y, z], got " + describeJson(*v));
  double c[4];
  for (int i = 0; i < 4; ++i) {
    const auto& e = (*v)[i];
    if (!e.is_number() || !std::isfinite(e.get<double>()))
      fail(key + "/" + std::to_string(i), "expected a finite number, got " + describeJson(e));
    c[i] = e.get<double>();
  }
  Quat q(c[0], c[1], c[2], c[3]);
  if (q.norm() < 1e-9) fail(key, "quaternion must have non-zero length, got " + describeJson(*v));
  q.normalize();
  return q;
}

JsonReader JsonReader::object(const std::string& key) {
  const nlohmann::json* v = get(key, true);
  if (!v->is_object()) fail(key, "expected an object, got " + describeJson(*v));
  return JsonReader(*v, file_, childPath(key));
}

bool JsonReader::optionalObject(const std::string& key, JsonReader* out) {
  const nlohmann::json* v = get(key, false);
  if (!v) return false;
  if (!v->is_object()) fail(key, "expected an object, got " + describeJson(*v));
  *out = JsonReader(*v, file_, childPath(key));
  return true;
}

std::vector<JsonReader> JsonReader::objectArray(const std::string& key, bool required) {
  const nlohmann::json* v = get(key, required);
  std::vector<JsonReader> out;
  if (!v) return out;
  if (!v->is_array()) fail(key, "expected an array of objects, got " + describeJson(*v));
  for (size_t i = 0; i < v->size(); ++i) {
    const auto& e = (*v)[i];
    const std::string p = childPath(key) + "/" + std::to_string(i);
    if (!e.is_object())
      throw InputError(file_ + ": " + p + ": expected an object, got " + describeJson(e));
    out.emplace_back(e, file_, p);
  }
  return out;
}

void JsonReader::finish() const {
  if (!node_->is_object()) return;
  for (auto it = node_->begin(); it != node_->end(); ++it) {
    if (!used_.count(it.key())) {
      std::string known;
      for (const auto& k : used_) known += (known.empty() ? "" : ", ") + k;
      fail(it.key(), "unknown field (known here: " + known + ")");
    }
  }
}

std::string formatVec(const Vec3& v) {
  std::ostringstream s;
  s << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return s.str();
}

}  // namespace d2t
