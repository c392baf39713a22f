#!/usr/bin/env bash
# Installs what is missing, builds d2tsim and its tests, and runs the whole suite
# headless with ctest (GL tests on EGL: Mesa llvmpipe without a GPU).
#   ./test.sh                 Release build in build/
#   D2T_SANITIZE=1 ./test.sh  AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
d2t_install_deps test
if [ "${D2T_SANITIZE:-0}" = "1" ]; then
  dir=build-asan
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DD2T_SANITIZE=ON >/dev/null
  export ASAN_OPTIONS=detect_leaks=0   # Mesa's drivers keep allocations until exit
  export UBSAN_OPTIONS=print_stacktrace=1
else
  dir=build
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# tests run two at a time: OpenMP threads must sleep, not spin, while they wait
export OMP_WAIT_POLICY=PASSIVE
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j"$(nproc)" --timeout 1200
# fuzz the scene, OBJ and recording readers for 15 s each (clang's libFuzzer, ASan + UBSan, in
# build-fuzz/; skipped with one line when clang is missing: scripts/deps.sh does not install it)
cd ..
tests/fuzz/run.sh 15
