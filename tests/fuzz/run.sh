#!/usr/bin/env bash
# Builds the libFuzzer targets of the readers (fuzz_scene, fuzz_obj, fuzz_recording; clang, ASan + UBSan)
# in build-fuzz/ and runs each for SECONDS (default 15) over a temporary copy of its
# seed corpus plus the regression cases. Fails when a target reports a finding
# (crash, sanitizer report, uncaught exception, timeout); the input is then kept in
# build-fuzz/artifacts/TARGET/. The repository's corpus is never written to.
#   tests/fuzz/run.sh [SECONDS]
# Exits 0 with one line saying why when clang or its libFuzzer runtime is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-15}"

if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null; then
  echo "fuzz: skipped: clang/clang++ not found (the fuzz targets need clang's libFuzzer; Debian: clang)"
  exit 0
fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>/dev/null; then
  echo "fuzz: skipped: clang++ cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing; Debian: libclang-rt-dev)"
  exit 0
fi

dir=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DD2T_FUZZ=ON \
  -DD2T_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_scene fuzz_obj fuzz_recording

export UBSAN_OPTIONS=print_stacktrace=1
export TMPDIR="$probe"                      # the targets' temp dirs go with it
status=0
for target in scene obj recording; do
  case "$target" in
    scene) args=(-dict=tests/fuzz/scene.dict -max_len=4096) ;;
    obj) args=(-dict=tests/fuzz/obj.dict -max_len=16384) ;;
    recording) args=(-dict=tests/fuzz/recording.dict -max_len=4096) ;;
  esac
  corpus="$probe/corpus-$target"           # libFuzzer adds new inputs to the first directory
  mkdir -p "$corpus" "$dir/artifacts/$target"
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  log="$dir/fuzz_$target.log"
  # (-timeout: a hang, not a slow input: the regression fist body, 2,500 mesh nodes, loads in
  # 8.6 s of CPU under ASan + UBSan on a slow 2-core VM, 2026-12-08)
  if "$dir/tests/fuzz/fuzz_$target" "$corpus" "tests/fuzz/regressions/$target" "${args[@]}" \
       -timeout=30 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
       -artifact_prefix="$dir/artifacts/$target/" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz_$target: ok, $runs executions in ${seconds} s ($rate exec/s)"
  else
    echo "fuzz_$target: FAILED (log: $log; input kept in $dir/artifacts/$target/):"
    grep -v '^#' "$log" | tail -40
    status=1
  fi
done
exit "$status"
