// The window's settings file: a round trip keeps every field, a missing file
// gives the defaults quietly, a corrupt one gives the defaults and a warning
// (never an exception), and the directory follows XDG_CONFIG_HOME / HOME.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/settings.h"

using namespace d2t;
namespace fs = std::filesystem;

namespace {

fs::path freshDir(const char* name) {
  const fs::path d = fs::temp_directory_path() / "d2t_settings_test" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
}

// sets an environment variable for the scope, restoring it after
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(Settings, RoundTripKeepsEveryField) {
  const fs::path path = freshDir("roundtrip") / "sub" / "settings.json";  // the folder is created
  AppSettings s;
  s.view.shadows = false;
  s.view.skin = false;
  s.view.wireframe = true;
  s.view.core = true;
  s.view.contacts = true;
  s.view.proxies = true;
  s.panels.scene = false;
  s.panels.atlas = false;
  s.panels.help = true;
  s.windowWidth = 1600;
  s.windowHeight = 900;
  s.lastScene = "/somewhere/scenes/head_punch.json";
  s.atlasTexture = "contact depth (live)";
  std::string error;
  ASSERT_TRUE(saveSettings(path.string(), s, &error)) << error;
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  std::string warning = "stale";
  const AppSettings r = loadSettings(path.string(), &warning);
  EXPECT_TRUE(warning.empty()) << warning;
  EXPECT_EQ(r.view.shadows, false);
  EXPECT_EQ(r.view.skin, false);
  EXPECT_EQ(r.view.wireframe, true);
  EXPECT_EQ(r.view.core, true);
  EXPECT_EQ(r.view.contacts, true);
  EXPECT_EQ(r.view.proxies, true);
  EXPECT_EQ(r.panels.scene, false);
  EXPECT_EQ(r.panels.simulation, true);
  EXPECT_EQ(r.panels.atlas, false);
  EXPECT_EQ(r.panels.help, true);
  EXPECT_EQ(r.windowWidth, 1600);
  EXPECT_EQ(r.windowHeight, 900);
  EXPECT_EQ(r.lastScene, s.lastScene);
  EXPECT_EQ(r.atlasTexture, s.atlasTexture);
}

TEST(Settings, MissingFileGivesTheDefaultsWithoutAWarning) {
  std::string warning;
  const AppSettings r = loadSettings((freshDir("missing") / "settings.json").string(), &warning);
  EXPECT_TRUE(warning.empty());
  const AppSettings d;
  EXPECT_EQ(r.view.shadows, d.view.shadows);
  EXPECT_EQ(r.windowWidth, 0);
  EXPECT_TRUE(r.lastScene.empty());
  EXPECT_TRUE(loadSettings("", &warning).lastScene.empty());
}

TEST(Settings, CorruptFilesGiveTheDefaultsAndAWarningNeverAThrow) {
  const fs::path dir = freshDir("corrupt");
  const fs::path path = dir / "settings.json";
  const AppSettings d;
  for (const char* text : {"", "{", "not json at all", "[1, 2, 3]", "42", "{\"view\": ", "\x01\x02\xff\xfe"}) {
    writeText(path, text);
    std::string warning;
    AppSettings r;
    ASSERT_NO_THROW(r = loadSettings(path.string(), &warning)) << text;
    EXPECT_NE(warning.find(path.string()), std::string::npos) << text << ": " << warning;
    EXPECT_EQ(r.view.shadows, d.view.shadows);
    EXPECT_EQ(r.panels.statistics, d.panels.statistics);
    EXPECT_EQ(r.windowWidth, 0);
  }
  // wrong types: those fields keep their defaults, the good ones are read, the warning names the bad ones
  writeText(path, R"({"view": {"shadows": "yes", "core": true, "contacts": 1},
                      "panels": [1], "window": {"width": -5, "height": 800},
                      "last_scene": 7, "from_the_future": {"x": 1}})");
  std::string warning;
  const AppSettings r = loadSettings(path.string(), &warning);
  EXPECT_EQ(r.view.shadows, d.view.shadows);
  EXPECT_TRUE(r.view.core);
  EXPECT_EQ(r.view.contacts, d.view.contacts);
  EXPECT_EQ(r.windowWidth, 0);
  EXPECT_TRUE(r.lastScene.empty());
  for (const char* bad : {"/view/shadows", "/view/contacts", "/panels", "/window", "/last_scene"})
    EXPECT_NE(warning.find(bad), std::string::npos) << bad << " in " << warning;
  EXPECT_EQ(warning.find("from_the_future"), std::string::npos) << warning;  // unknown keys: ignored
  // a folder where the file should be: a warning, not a crash
  fs::create_directories(dir / "folder.json");
  ASSERT_NO_THROW(loadSettings((dir / "folder.json").string(), &warning));
  EXPECT_FALSE(warning.empty());
}

TEST(Settings, SavingWhereItCannotReportsAnError) {
  const fs::path dir = freshDir("unwritable");
  writeText(dir / "file", "x");
  std::string error;
  EXPECT_FALSE(saveSettings((dir / "file" / "settings.json").string(), AppSettings{}, &error));  // parent is a file
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(saveSettings("", AppSettings{}, &error));
}

TEST(Settings, DirectoryFollowsXdgConfigHomeThenHome) {
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg-test");
    EXPECT_EQ(settingsDirectory(), "/tmp/xdg-test/d2tsim");
    EXPECT_EQ(settingsPath(), "/tmp/xdg-test/d2tsim/settings.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "");
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(settingsDirectory(), "/home/someone/.config/d2tsim");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(settingsDirectory(), "");
    EXPECT_EQ(settingsPath(), "");
  }
}
