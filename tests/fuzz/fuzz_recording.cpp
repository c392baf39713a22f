// libFuzzer target of the recording reader (issue 30: `d2tsim --replay PATH` reads a file a
// user hands it). readRecording must return a recording or throw d2t::InputError naming
// the file; an accepted one, written back and read again, must be the same recording (the
// inputs' doubles to the bit), and each input must describe itself. Any other exception, a
// crash, a sanitizer report or a hang is a finding.
//   build: tests/fuzz/CMakeLists.txt (-DD2T_FUZZ=ON, clang); run: see ./test.sh
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz_util.h"
#include "sim/base/json_reader.h"
#include "sim/world/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace d2t;
  const std::string path = (fuzz::tempDir() / "run.d2trec.json").string();
  fuzz::writeFile(path, data, size);
  Recording rec;
  try {
    rec = readRecording(path);
  } catch (const InputError& e) {
    fuzz::expectNamesFile(e.what(), path);
    return 0;
  }
  for (const TimedInput& e : rec.inputs) (void)describe(e.input);
  const std::string again = (fuzz::tempDir() / "again.d2trec.json").string();
  writeRecording(again, rec);
  const Recording back = readRecording(again);
  if (!(back.inputs == rec.inputs) || back.checkpoints != rec.checkpoints || back.scene != rec.scene ||
      back.sceneJson != rec.sceneJson || back.overrides != rec.overrides || back.steps != rec.steps ||
      back.firstStep != rec.firstStep) {
    std::fprintf(stderr, "d2t fuzz: a recording written back reads as another one\n");
    std::abort();
  }
  return 0;
}
