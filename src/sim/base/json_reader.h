#pragma once
// Strict, self-describing reading of JSON input (scene files, shapes).
//
// Every accessor checks type and range and, on failure, throws InputError with
//   FILE: /json/pointer/path: <what was expected>, got <what was found>
// finish() rejects keys that were never read, so typos are errors.
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// An error in user input (scene, mesh, command line). what() is the full message.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A view of one JSON object (or array element) with its file and path.
class JsonReader {
 public:
  JsonReader(const nlohmann::json& node, std::string file, std::string path = "");

  const std::string& file() const { return file_; }
  /// JSON pointer of this node ("" for the root).
  const std::string& path() const { return path_; }
  const nlohmann::json& node() const { return *node_; }
  bool has(const std::string& key) const;

  /// Throws InputError "FILE: PATH/key: MESSAGE".
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void failHere(const std::string& message) const;

  // scalar fields; `def` is used when the key is absent
  double number(const std::string& key, double def, double lo, double hi,
                bool loOpen = false, bool hiOpen = false);
  double requiredNumber(const std::string& key, double lo, double hi, bool loOpen = false,
                        bool hiOpen = false);
  int integer(const std::string& key, int def, int lo, int hi);
  bool boolean(const std::string& key, bool def);
  std::string string(const std::string& key, const std::string& def,
                     const std::vector<std::string>& allowed = {});
  std::string requiredString(const std::string& key, const std::vector<std::string>& allowed = {});
  Vec3 vec3(const std::string& key, const Vec3& def);
  Vec2 vec2(const std::string& key, const Vec2& def);
  /// Unit quaternion given as [w, x, y, z] (normalised; zero length is an error).
  Quat quat(const std::string& key, const Quat& def);

  /// A required value of any type, read as it is (the caller checks it).
  const nlohmann::json& value(const std::string& key) { return *get(key, true); }

  // nested nodes
  JsonReader object(const std::string& key);          ///< required object
  bool optionalObject(const std::string& key, JsonReader* out);
  std::vector<JsonReader> objectArray(const std::string& key, bool required);

  /// Fails on any key of this object that was not read.
  void finish() const;

 private:
  const nlohmann::json* get(const std::string& key, bool required);
  std::string childPath(const std::string& key) const;

  const nlohmann::json* node_;
  std::string file_;
  std::string path_;
  std::set<std::string> used_;
};

/// A point or vector for messages: "(x, y, z)".
std::string formatVec(const Vec3& v);

/// Short human-readable description of a JSON value for messages ("a string \"abc\"").
std::string describeJson(const nlohmann::json& v);

/// Parses a JSON file; malformed JSON or a missing file throws InputError naming the file.
nlohmann::json readJsonFile(const std::string& path);

}  // namespace d2t
