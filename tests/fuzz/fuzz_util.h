#pragma once
// Shared by the fuzz targets: a private temp directory, writing the input there,
// and the check that a rejection is a clean d2t::InputError naming the file.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace d2t::fuzz {

/// A fresh directory under $TMPDIR (or /tmp) for this process, removed at a normal exit
/// (libFuzzer often ends with _Exit: tests/fuzz/run.sh points TMPDIR at its own temp dir).
inline const std::filesystem::path& tempDir() {
  static const std::filesystem::path dir = [] {
    std::string t = (std::filesystem::temp_directory_path() / "d2t_fuzz_XXXXXX").string();
    if (!mkdtemp(t.data())) {
      std::perror("d2t fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(tempDir(), ec);
    });
    return std::filesystem::path(t);
  }();
  return dir;
}

inline void writeFile(const std::filesystem::path& path, const void* data, size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) {
    std::fprintf(stderr, "d2t fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

/// A rejection must say which file it is about: "FILE: ..." or "FILE:LINE: ...".
/// Anything else is reported as a finding (abort: libFuzzer keeps the input).
/// D2T_FUZZ_PRINT=1 prints every message (to read what a reproducer gets).
inline void expectNamesFile(const std::string& message, const std::string& file) {
  static const bool print = std::getenv("D2T_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "InputError: %s\n", message.c_str());
  if (message.compare(0, file.size() + 1, file + ":") == 0) return;
  std::fprintf(stderr, "d2t fuzz: InputError does not start with \"%s:\": %s\n", file.c_str(),
               message.c_str());
  std::abort();
}

}  // namespace d2t::fuzz
