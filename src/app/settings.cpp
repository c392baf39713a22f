#include "app/settings.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2t {

namespace fs = std::filesystem;
using nlohmann::json;

std::string settingsDirectory() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "d2tsim").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".config" / "d2tsim").string();
  return "";
}

std::string settingsPath() {
  const std::string dir = settingsDirectory();
  return dir.empty() ? "" : (fs::path(dir) / "settings.json").string();
}

namespace {

// one field: kept when present and of the right type, else the default and a note
template <class T>
void read(const json& j, const char* key, T* out, std::vector<std::string>* bad, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  try {
    *out = it->template get<T>();
  } catch (const json::exception&) {
    bad->push_back(where + key);
  }
}

// a boolean only from a JSON boolean (nlohmann would not convert 1 or "yes" anyway)
void readBool(const json& j, const char* key, bool* out, std::vector<std::string>* bad, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (it->is_boolean()) *out = it->get<bool>();
  else bad->push_back(where + key);
}

}  // namespace

AppSettings loadSettings(const std::string& path, std::string* warning) {
  AppSettings s;
  if (warning) warning->clear();
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return s;
  auto warn = [&](const std::string& text) {
    if (warning) *warning = path + ": " + text + " (using the defaults for it)";
  };
  if (!fs::is_regular_file(path, ec)) {
    warn("not a file");
    return s;
  }
  json j;
  try {
    std::ifstream f(path);
    if (!f) {
      warn("cannot be read");
      return s;
    }
    j = json::parse(f);
  } catch (const json::exception& e) {
    warn(std::string("not valid JSON: ") + e.what());
    return s;
  } catch (const std::exception& e) {
    warn(std::string("cannot be read: ") + e.what());
    return s;
  }
  if (!j.is_object()) {
    warn("expected a JSON object");
    return s;
  }
  std::vector<std::string> bad;
  if (const auto v = j.find("view"); v != j.end()) {
    if (!v->is_object()) {
      bad.push_back("/view");
    } else {
      ViewOptions& o = s.view;
      for (auto [key, field] : {std::pair{"shadows", &o.shadows}, {"skin", &o.skin}, {"wireframe", &o.wireframe},
                                {"core", &o.core}, {"contacts", &o.contacts}, {"proxies", &o.proxies},
                                {"bones", &o.bones}, {"metaphors", &o.metaphors}})
        readBool(*v, key, field, &bad, "/view/");
    }
  }
  if (const auto p = j.find("panels"); p != j.end()) {
    if (!p->is_object()) {
      bad.push_back("/panels");
    } else {
      AppSettings::Panels& o = s.panels;
      for (auto [key, field] : {std::pair{"scene", &o.scene}, {"simulation", &o.simulation}, {"view", &o.view},
                                {"bodies", &o.bodies}, {"statistics", &o.statistics}, {"atlas", &o.atlas},
                                {"timeline", &o.timeline}, {"metaphors", &o.metaphors}, {"morph", &o.morph},
                                {"help", &o.help}})
        readBool(*p, key, field, &bad, "/panels/");
    }
  }
  if (const auto w = j.find("window"); w != j.end()) {
    if (!w->is_object()) {
      bad.push_back("/window");
    } else {
      int width = 0, height = 0;
      read(*w, "width", &width, &bad, "/window/");
      read(*w, "height", &height, &bad, "/window/");
      // a size that no screen has is dropped, not obeyed
      if (width >= 16 && width <= 16384 && height >= 16 && height <= 16384) {
        s.windowWidth = width;
        s.windowHeight = height;
      } else if (width || height) {
        bad.push_back("/window (size out of range)");
      }
    }
  }
  read(j, "last_scene", &s.lastScene, &bad, "/");
  read(j, "atlas_texture", &s.atlasTexture, &bad, "/");
  if (!bad.empty()) {
    std::ostringstream text;
    text << "unexpected value at";
    for (const std::string& b : bad) text << " " << b;
    warn(text.str());
  }
  return s;
}

bool saveSettings(const std::string& path, const AppSettings& s, std::string* error) {
  if (path.empty()) {
    if (error) *error = "no settings directory (neither XDG_CONFIG_HOME nor HOME is set)";
    return false;
  }
  const ViewOptions& v = s.view;
  const AppSettings::Panels& p = s.panels;
  json j;
  j["view"] = {{"shadows", v.shadows}, {"skin", v.skin}, {"wireframe", v.wireframe},
               {"core", v.core}, {"contacts", v.contacts}, {"proxies", v.proxies},
               {"bones", v.bones}, {"metaphors", v.metaphors}};
  j["panels"] = {{"scene", p.scene}, {"simulation", p.simulation}, {"view", p.view}, {"bodies", p.bodies},
                 {"statistics", p.statistics}, {"atlas", p.atlas}, {"timeline", p.timeline}, {"metaphors", p.metaphors},
                 {"morph", p.morph}, {"help", p.help}};
  if (s.windowWidth > 0 && s.windowHeight > 0) j["window"] = {{"width", s.windowWidth}, {"height", s.windowHeight}};
  if (!s.lastScene.empty()) j["last_scene"] = s.lastScene;
  if (!s.atlasTexture.empty()) j["atlas_texture"] = s.atlasTexture;
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  // write a sibling and rename it over: a crash mid-write never leaves half a file
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!(f << j.dump(2) << "\n")) {
      if (error) *error = tmp + ": cannot write the settings";
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    if (error) *error = path + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace d2t
