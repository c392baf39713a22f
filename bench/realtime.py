#!/usr/bin/env python3
"""Real time on this machine: what a user sees, scene by scene, after the bodies land.

Sections (all by default; --sections to pick):
  realtime    every shipped default scene (scenes/*.json but the *_high ones) on the CPU at
              its shipped atlas and dt, --frames STEPS; the figures are the steps from
              --measure-from on (after landing: the phase each table states), the solvers
              of --solvers run alternately per repeat (A/B on the same machine state)
  iterations  CG iterations per body and step against the atlas (64^2 .. 512^2), the mark
              of a working multigrid: they should not grow with the resolution
  high        the 256^2 scenes in contact (*_high) with nodes/s
  threads     per-stage medians with 1 and 2 OpenMP threads (the speed-up of each stage), for
              one body and for four side by side

Writes bench/results/<machine>/realtime_<section>.md and .csv. Figures only: nothing here
passes or fails. Python standard library only; needs a built build/d2tsim
(bench/run_suite.sh builds it; or cmake --build build).

  bench/realtime.py                                   # everything (~25 min on 2 cores)
  bench/realtime.py --sections realtime --repeats 1   # the scene table only
"""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite import ROOT, cpu_model, cpu_pressure, default_machine_name, log, median, read_bench_csv  # noqa: E402

HIGH_SCENES = ["heterogeneous_cylinder_high", "pumpkins_high", "cylinder_gear_high", "tires_high"]
ITERATION_SCENES = ["heterogeneous_cylinder", "head_drop", "pumpkins", "ball_drop"]


def shipped_default_scenes():
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(ROOT, "scenes", "*.json")))
    return [n for n in names if not n.endswith("_high")]


class Run:
    """One headless run: per-step columns and the metrics JSON."""

    def __init__(self, binary, raw, scene, tag, frames, solver=None, res=None, threads=None):
        csv, js = os.path.join(raw, tag + ".csv"), os.path.join(raw, tag + ".json")
        cmd = [binary, os.path.join(ROOT, "scenes", scene + ".json"), "--headless", "--backend", "cpu",
               "--frames", str(frames), "--bench", csv, "--metrics", js]
        if solver:
            cmd += ["--solver", solver]
        if res:
            cmd += ["--resolution", str(res)]
        env = dict(os.environ)
        env.pop("OMP_WAIT_POLICY", None)  # (timings need spinning OpenMP threads)
        if threads:
            env["OMP_NUM_THREADS"] = str(threads)
        self.command = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd[:2]) + " " + \
            " ".join(c for c in cmd[2:] if not c.startswith(raw))
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{tag}: d2tsim failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
        self.warnings = [line for line in p.stderr.splitlines() if "warning" in line]
        self.header, self.rows = read_bench_csv(csv)
        with open(js) as f:
            self.metrics = json.load(f)

    def column(self, name, first=0):
        k = self.header.index(name)
        return [r[k] for r in self.rows[first:]]

    def bodies(self):
        return len(self.metrics["bodies"])

    def nodes(self):
        return sum(b["nodes"] for b in self.metrics["bodies"])

    def capped(self):
        return sum(b.get("cg_capped_steps", 0) for b in self.metrics["bodies"])


def fmt(x, d=3):
    if x is None:
        return "-"
    if abs(x) >= 1e6:
        return f"{x / 1e6:.2f} M"
    if abs(x) >= 1e4:
        return f"{x / 1e3:.0f} K"
    return f"{x:.{d}g}"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def section_realtime(a, csv, md):
    scenes = a.scenes or shipped_default_scenes()
    first = a.measure_from
    md.append(f"## Real time: the shipped default scenes\n")
    md.append(f"CPU backend, each scene at its shipped atlas and dt, {a.steps} steps; measured: steps "
              f"{first}-{a.steps - 1} (after the drops land: the phase a user watches), median step over "
              f"them, median over {a.repeats} repeat(s), the solvers alternated per repeat (`scene`: the "
              "scene's own solver, the multigrid's CG on bodies over 4000 nodes, else the direct factor; "
              "`cg_dilu`: CG with the single-level DILU preconditioner it replaces, where a body runs CG). Real time = "
              "dt / median step (>= 1: faster than real time). CG it: mean (max) iterations per body and "
              "step in the measured steps; capped: steps of the whole run whose CG stopped at its cap.\n")
    rows = []
    for scene in scenes:
        per = {s: [] for s in a.solvers}
        last = {}
        for rep in range(a.repeats):
            for solver in a.solvers:
                if rep > 0 and solver not in last:
                    continue
                r = Run(a.binary, a.raw, scene, f"rt_{scene}_{solver}_{rep}", a.steps,
                        solver=None if solver == "scene" else solver)
                if solver == "scene" and max(r.column("cg_iterations")) == 0:
                    # (every body on the direct factor: the other solvers would change what ships)
                    per[solver].append(median(r.column("step_ms", first)))
                    last[solver] = r
                    break
                per[solver].append(median(r.column("step_ms", first)))
                last[solver] = r
        for solver in [s for s in a.solvers if s in last]:
            r = last[solver]
            ms = median(per[solver])
            dt = r.metrics["dt"]
            its = [x / r.bodies() for x in r.column("cg_iterations", first)]
            solve = median(r.column("solve_ms", first))
            row = [scene, solver, r.bodies(), f"{r.nodes():,}", f"{ms:.2f}", f"{dt * 1e3 / ms:.2f}x",
                   f"{solve:.2f}", f"{sum(its) / len(its):.1f} ({max(its):.0f})", r.capped()]
            rows.append(row)
            csv.append(["realtime", scene, solver, "", r.nodes(), ms, dt * 1e3 / ms, solve, sum(its) / len(its),
                        max(its), r.capped()])
            log(f"  {scene} {solver}: {ms:.2f} ms/step ({dt * 1e3 / ms:.2f}x real time), solve {solve:.2f} ms, "
                f"CG {sum(its) / len(its):.1f}")
    md.append(table(["scene", "solver", "bodies", "nodes", "ms/step", "real time", "solve ms", "CG it", "capped"],
                    rows))
    md.append(f"Command per run: `build/d2tsim scenes/SCENE.json --headless --backend cpu --frames {a.steps} "
              f"--solver SOLVER --bench X.csv`.\n")


def section_iterations(a, csv, md):
    md.append("## CG iterations against the atlas\n")
    md.append(f"Multigrid-preconditioned CG (`--solver cg`, also below 4000 nodes where `auto` factors), "
              f"{a.iteration_steps} steps, mean iterations per body and step over the second half.\n")
    header = ["scene"] + [f"{r}^2" for r in a.iteration_resolutions]
    rows = []
    for scene in ITERATION_SCENES:
        row = [scene]
        for res in a.iteration_resolutions:
            r = Run(a.binary, a.raw, scene, f"it_{scene}_{res}", a.iteration_steps, solver="cg", res=res)
            its = [x / r.bodies() for x in r.column("cg_iterations", a.iteration_steps // 2)]
            mean = sum(its) / len(its)
            row.append(f"{mean:.1f} ({max(its):.0f})")
            csv.append(["iterations", scene, "cg", res, r.nodes(), median(r.column("step_ms")), "", "", mean,
                        max(its), r.capped()])
            log(f"  {scene} {res}^2: {mean:.1f} CG iterations (max {max(its):.0f})")
        rows.append(row)
    md.append(table(header, rows))
    md.append("Cells: mean (max) iterations per body and step. Command: `build/d2tsim scenes/SCENE.json "
              f"--headless --backend cpu --frames {a.iteration_steps} --solver cg --resolution R --bench X.csv`.\n")


def section_high(a, csv, md):
    md.append("## 256^2 scenes in contact\n")
    md.append(f"The `_high` scenes (every body at 256^2), CPU, {a.high_steps} steps, measured: the last "
              f"{a.high_steps // 2} (bodies in contact), solvers alternated.\n")
    rows = []
    for scene in HIGH_SCENES:
        per = {s: None for s in a.solvers}
        for solver in a.solvers:
            r = Run(a.binary, a.raw, scene, f"high_{scene}_{solver}", a.high_steps,
                    solver=None if solver == "scene" else solver)
            ms = median(r.column("step_ms", a.high_steps // 2))
            its = [x / r.bodies() for x in r.column("cg_iterations", a.high_steps // 2)]
            contacts = sum(r.column("contacts", a.high_steps // 2)) / (a.high_steps - a.high_steps // 2)
            rows.append([scene, solver, f"{r.nodes():,}", f"{ms:.1f}", fmt(r.nodes() * 1e3 / ms),
                         f"{sum(its) / len(its):.1f} ({max(its):.0f})", f"{contacts:.0f}", r.capped()])
            csv.append(["high", scene, solver, 256, r.nodes(), ms, "", "", sum(its) / len(its), max(its),
                        r.capped()])
            log(f"  {scene} {solver}: {ms:.1f} ms/step, {r.nodes() * 1e3 / ms / 1e6:.2f} M nodes/s")
    md.append(table(["scene", "solver", "nodes", "ms/step", "nodes/s", "CG it", "contacts/step", "capped"], rows))


def section_threads(a, csv, md):
    md.append("## One and two threads, stage by stage\n")
    # one body (its node loops across the threads) and four small ones (the bodies side by
    # side on the threads: World::eachBody)
    for scene in ["heterogeneous_cylinder", "heterogeneous_cylinder_high", "tires"]:
        runs = {t: Run(a.binary, a.raw, scene, f"thr_{scene}_{t}", a.thread_steps, threads=t) for t in (1, 2)}
        first = a.thread_steps // 2
        stages = [h[:-3] for h in runs[1].header if h.endswith("_ms")]
        bodies = f"{runs[1].bodies()} bod" + ("y" if runs[1].bodies() == 1 else "ies")
        md.append(f"`{scene}` ({bodies}, {runs[1].nodes():,} nodes), {a.thread_steps} steps, "
                  f"medians of the last "
                  f"{a.thread_steps - first} [ms]; `OMP_NUM_THREADS=1` and `2`:\n")
        rows = []
        for st in stages:
            one, two = median(runs[1].column(st + "_ms", first)), median(runs[2].column(st + "_ms", first))
            if max(one, two) < 0.05 and st != "step":
                continue
            rows.append([st, f"{one:.3f}", f"{two:.3f}", f"{one / two:.2f}x" if two > 0 else "-"])
            csv.append(["threads", scene, st, "", runs[1].nodes(), one, two, "", "", "", ""])
        md.append(table(["stage", "1 thread", "2 threads", "speed-up"], rows))
        md.append("(stages under 0.05 ms with both left out)\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    words = lambda s: s.replace(",", " ").split()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--machine", default=default_machine_name())
    p.add_argument("--sections", type=words, default=["realtime", "iterations", "high", "threads"])
    p.add_argument("--scenes", type=words, default=None, help="realtime section: these scenes only")
    p.add_argument("--solvers", type=words, default=["scene", "cg_dilu"],
                   help="scene: the scene's own (auto: direct up to 4000 nodes, the multigrid's CG above); "
                        "the others where a body of the scene runs CG")
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--measure-from", type=int, default=200)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--iteration-resolutions", type=lambda s: [int(x) for x in words(s)], default=[64, 128, 256, 512])
    p.add_argument("--iteration-steps", type=int, default=200)
    p.add_argument("--high-steps", type=int, default=150)
    p.add_argument("--thread-steps", type=int, default=200)
    a = p.parse_args()
    a.binary = os.path.join(a.build, "d2tsim")
    if not os.path.exists(a.binary):
        sys.exit(f"realtime: {a.binary} not found: build first (cmake --build build)")
    out = os.path.join(ROOT, "bench", "results", a.machine)
    a.raw = os.path.join(out, "raw")
    os.makedirs(a.raw, exist_ok=True)
    t0 = time.time()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    # one report per section (realtime_<section>.md, .csv), written as each section ends
    for s in a.sections:
        log(f"section {s}")
        md, csv = [], []
        t1, load0, psi0 = time.time(), os.getloadavg(), cpu_pressure()
        {"realtime": section_realtime, "iterations": section_iterations, "high": section_high,
         "threads": section_threads}[s](a, csv, md)
        load1, psi1 = os.getloadavg(), cpu_pressure()
        head = [f"# {s}: {a.machine}\n",
                f"Generated {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} by `bench/realtime.py "
                f"{' '.join(sys.argv[1:])}` (commit {commit}) in {(time.time() - t1) / 60:.1f} min; {cpu_model()}, "
                f"{os.cpu_count()} cores; load average at start / end {load0[0]:.2f} / {load1[0]:.2f}"
                + (f", CPU pressure (PSI avg60) {psi0:.0f}% / {psi1:.0f}%" if psi0 is not None else "")
                + ". Figures only.\n"]
        with open(os.path.join(out, f"realtime_{s}.md"), "w") as f:
            f.write("\n".join(head + md))
        with open(os.path.join(out, f"realtime_{s}.csv"), "w") as f:
            f.write("section,scene,solver_or_stage,atlas,nodes,ms_per_step_or_1_thread,real_time_or_2_threads,"
                    "solve_ms,cg_mean,cg_max,capped\n")
            for r in csv:
                f.write(",".join(str(c) for c in r) + "\n")
        log(f"written: {out}/realtime_{s}.md ({(time.time() - t1) / 60:.1f} min)")
    log(f"all sections: {(time.time() - t0) / 60:.1f} min")


if __name__ == "__main__":
    main()
