#!/usr/bin/env python3
"""The implicit step's solvers side by side on one machine: each scene and atlas run with
each --solver in turn (alternating, so that both see the same machine state), the median
step, solve and GPU solve time of the measured steps, the CG iterations and the time per
iteration. Figures only.

  bench/solver_ab.py --backend gpu                       # multigrid vs block Jacobi on the GPU
  bench/solver_ab.py --backend cpu --solvers cg direct --resolutions 64
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(a, scene, res, solver, path):
    p = subprocess.run([a.binary, os.path.join(ROOT, "scenes", scene + ".json"), "--headless", "--backend", a.backend,
                        "--resolution", str(res), "--solver", solver, "--frames", str(a.warmup + a.steps),
                        "--bench", path], capture_output=True, text=True)
    if p.returncode:
        return f"failed (exit {p.returncode}): {p.stderr.strip()[-200:]}"
    rows = list(csv.DictReader(open(path)))[a.warmup:]
    med = lambda k: statistics.median(float(r[k]) for r in rows) if k in rows[0] else float("nan")
    cg = statistics.fmean(float(r["cg_iterations"]) for r in rows)
    solve = med("gpu_solve_ms") if a.backend == "gpu" else med("solve_ms")
    per = f"{1000 * solve / cg:6.0f}" if cg > 0 else "     -"
    return (f"step {med('step_ms'):7.2f} ms  solve {med('solve_ms'):7.2f} ms"
            + (f"  gpu_solve {solve:7.2f} ms" if a.backend == "gpu" else "")
            + f"  CG {cg:5.1f}  us/it {per}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--backend", choices=["cpu", "gpu"], default="gpu")
    p.add_argument("--solvers", nargs="+", default=["cg", "cg_dilu"])
    p.add_argument("--scenes", nargs="+", default=["peer_ball_drop", "heterogeneous_cylinder", "head_punch"])
    p.add_argument("--resolutions", nargs="+", type=int, default=[256, 64])
    p.add_argument("--warmup", type=int, default=200, help="steps before the measured ones (the bodies land)")
    p.add_argument("--steps", type=int, default=100)
    a = p.parse_args()
    a.binary = os.path.join(a.build, "d2tsim")
    if not os.path.exists(a.binary):
        sys.exit(f"solver_ab: {a.binary} not found: build first")
    print(f"# bench/solver_ab.py --backend {a.backend} --solvers {' '.join(a.solvers)} --scenes {' '.join(a.scenes)} "
          f"--resolutions {' '.join(map(str, a.resolutions))} --warmup {a.warmup} --steps {a.steps}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for res in a.resolutions:
            for scene in a.scenes:
                for solver in a.solvers:
                    print(f"{scene:22s} {res:3d}^2 {solver:8s} {run(a, scene, res, solver, os.path.join(tmp, 'b.csv'))}",
                          flush=True)


if __name__ == "__main__":
    main()
