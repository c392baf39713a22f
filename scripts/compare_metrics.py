#!/usr/bin/env python3
"""Compares the end states of two scene_metrics.sh runs, body by body:
    scripts/compare_metrics.py BEFORE_DIR AFTER_DIR
Prints, per scene and backend, the largest difference in centre of mass [m],
velocity [m/s], energy [J] and resets, and the largest trajectory difference."""
import json, math, pathlib, sys

def load(p):
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None

def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))

before, after = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
print(f"{'run':34s} {'d com [m]':>10s} {'d vel':>10s} {'d E [J]':>10s} {'resets':>9s} {'d traj':>10s}")
worst = 0.0
for p in sorted(before.glob("*.json")):
    a, b = load(p), load(after / p.name)
    if a is None or b is None:
        print(f"{p.stem:34s} missing")
        continue
    dc = dv = de = dt = 0.0
    resets = []
    for x, y in zip(a["bodies"], b["bodies"]):
        dc = max(dc, dist(x["com"], y["com"]))
        dv = max(dv, dist(x["velocity"], y["velocity"]))
        de = max(de, abs(x["energy"]["total"] - y["energy"]["total"]))
        resets.append(f'{x["resets"]}/{y["resets"]}')
        for s, t in zip(x.get("trajectory", []), y.get("trajectory", [])):
            dt = max(dt, dist(s[1:], t[1:]))
    worst = max(worst, dc)
    print(f"{p.stem:34s} {dc:10.2e} {dv:10.2e} {de:10.2e} {','.join(resets)[:9]:>9s} {dt:10.2e}")
print(f"largest centre-of-mass difference: {worst:.3e} m")
