#!/usr/bin/env bash
# The one command that regenerates the benchmark report: installs what the bench needs
# (Debian: python3, gnuplot-nox for the plots, libbullet-dev for the peer), builds d2tsim
# and the optional bullet_ball target, runs bench/suite.py and writes
# bench/results/<machine>/ (CSVs, PNGs, summary.md). Figures only: nothing passes or fails.
#   bench/run_suite.sh                 full default set (~20-25 min on a 2-core machine)
#   bench/run_suite.sh --quick         smoke test (a few minutes)
#   bench/run_suite.sh --help          every option (scenes, resolutions, backends, steps, ...)
# Environment: D2T_BENCH_MACHINE, D2T_BENCH_SCENES, D2T_BENCH_RESOLUTIONS, D2T_BENCH_BACKENDS,
# D2T_BENCH_GPU_RESOLUTIONS, D2T_BENCH_{,GPU_}{WARMUP,STEPS,REPEATS}, D2T_BENCH_QUICK=1,
# D2T_BENCH_NO_INSTALL=1 (never apt-get), D2T_BENCH_JOBS (build jobs, default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

# packages of the bench only (never needed by ./test.sh): installed when missing
bench_install() {  # package, what it is for
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" && return 0
  if [ "${D2T_BENCH_NO_INSTALL:-0}" = "1" ]; then
    echo "bench: $1 is not installed ($2); D2T_BENCH_NO_INSTALL=1: not installing it"
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      echo "bench: $1 is missing ($2) and there is no sudo to install it: skipping"; return 1; fi
  fi
  echo "bench: installing $1 ($2)"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
         --no-install-recommends "$1" >/dev/null; }; then
    echo "bench: could not install $1 ($2): skipping it"
    return 1
  fi
}

if [ "${D2T_BENCH_NO_INSTALL:-0}" != "1" ]; then d2t_install_deps; fi
if ! command -v python3 >/dev/null; then
  bench_install python3 "the suite driver" || { echo "bench: python3 is required"; exit 1; }
fi
bench_install gnuplot-nox "the scaling plots" || echo "bench: the PNG plots will be skipped"
bench_install libbullet-dev "the Bullet peer benchmark" || echo "bench: the Bullet peer column will be skipped"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=(--target d2tsim)
if grep -q '^BULLET_FOUND:INTERNAL=1' build/CMakeCache.txt; then targets+=(--target bullet_ball); fi
cmake --build build -j"${D2T_BENCH_JOBS:-1}" "${targets[@]}"

# timings need spinning OpenMP threads (test.sh's PASSIVE halves the CPU speed)
unset OMP_WAIT_POLICY
export D2T_BENCH_COMMAND=bench/run_suite.sh
exec python3 bench/suite.py --build build "$@"
