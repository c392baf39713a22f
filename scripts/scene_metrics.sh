#!/usr/bin/env bash
# Records --metrics of every shipped scene with a built d2tsim, for comparing the
# end states of two commits (scripts/compare_metrics.py):
#   scripts/scene_metrics.sh BUILD_DIR OUT_DIR
# CPU: 300 steps at each scene's own resolution; GPU (llvmpipe without a GPU):
# 120 steps at 32^2.
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export OMP_WAIT_POLICY=PASSIVE
for scene in "$root"/scenes/*.json; do
  name=$(basename "$scene" .json)
  "$build/d2tsim" "$scene" --headless --backend cpu --frames 300 \
    --metrics "$out/${name}_cpu.json" >"$out/${name}_cpu.log" 2>&1 || echo "$name cpu: failed (see $out/${name}_cpu.log)"
  "$build/d2tsim" "$scene" --headless --backend gpu --resolution 32 --frames 120 \
    --metrics "$out/${name}_gpu.json" >"$out/${name}_gpu.log" 2>&1 || echo "$name gpu: failed (see $out/${name}_gpu.log)"
  echo "$name done"
done
