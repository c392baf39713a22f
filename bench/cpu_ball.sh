#!/usr/bin/env bash
# CPU benchmark of the layered solver: the default soft ball resting on the ground at
# atlas resolutions 64, 128, 256, and the peer ball drop. Prints one line per run with
# medians over the second half of the run (the ball at rest: contacts every step).
#   bench/cpu_ball.sh [build/d2tsim]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/d2tsim}
out=$(mktemp -d)
printf "%-22s %6s %7s %9s %10s %12s %9s %9s\n" scene res nodes steps ms_step steps_per_s nodes_per_s contacts
run() {  # scene resolution steps
  local scene=$1 res=$2 steps=$3
  "$bin" "scenes/$scene.json" --headless --resolution "$res" --frames "$steps" \
    --bench "$out/b.csv" --metrics "$out/m.json" > /dev/null
  local nodes contacts
  nodes=$(grep -o '"nodes": [0-9]*' "$out/m.json" | head -1 | grep -o '[0-9]*$')
  contacts=$(grep -o '"contacts": [0-9]*' "$out/m.json" | head -1 | grep -o '[0-9]*$')
  # median of step_ms (column 3) over the second half of the steps
  local ms
  ms=$(awk -F, -v n="$steps" 'NR > 1 && $1 > n / 2 { print $3 }' "$out/b.csv" | sort -g |
       awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
  awk -v s="$scene" -v r="$res" -v n="$nodes" -v st="$steps" -v ms="$ms" -v c="$contacts" \
    'BEGIN { printf "%-22s %6d %7d %9d %10.3f %12.1f %9.0f %9d\n", s, r, n, st, ms, 1000 / ms, n * 1000 / ms, c }'
}
run ball_drop 64 800
run ball_drop 128 800
run ball_drop 256 400
run peer_ball_drop 64 600
rm -rf "$out"
