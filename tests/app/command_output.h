#pragma once
// Running a shell command in a test and reading what it printed.
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace d2t::test {

/// The standard output of `sh -c cmd` (add 2>&1 for stderr too); *code: its exit
/// status (128 + the signal when a signal ended it), -1 when it could not start.
inline std::string commandOutput(const std::string& cmd, int* code = nullptr) {
  std::string out;
  if (code) *code = -1;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (code) *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace d2t::test
