#!/usr/bin/env python3
"""d2tsim benchmark suite: runs the scenes headless, writes bench/results/<machine>/.

Run through bench/run_suite.sh (installs the Debian packages, builds, then calls this).
Prints figures, never passes or fails on speed. Python standard library only.

Per run (scene x backend x atlas resolution x repeat): d2tsim --headless --frames W+M
--bench CSV --metrics JSON; the first W steps are warm-up (bake, first contact), the
figures come from the M measured steps. Over the repeats: median / min / max steps/s and
the median of every stage column.

Files written to bench/results/<machine>/:
  runs.csv        one row per repeat (raw figures)
  suite.csv       one row per configuration (medians over the repeats, every stage)
  scaling.csv     ball_drop: ms/step against nodes (32^2 .. 256^2) + the least-squares fit
  collision.csv   per step: contacts (colliding nodes) and detect_ms of the scaling runs
  papers.csv      the DDT paper's / dissertation's figures against today's
  peer.csv        Bullet's soft body and d2tsim on the peer ball drop
  scaling.png, collision.png (when gnuplot is installed)
  summary.md      all of it as Markdown tables
  raw/            the per-step CSVs and metrics JSONs of every run (not committed)
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The scenes of the DDT paper (Tables 1-2, dissertation Table 3.1) and the peer scene.
PAPER_SCENES = ["heterogeneous_cylinder", "tires", "pumpkins", "cylinder_gear", "head_drop", "head_punch"]
DEFAULT_SCENES = ["ball_drop", "peer_ball_drop"] + PAPER_SCENES

# DDT paper (SCA 2006) sec. 7 / dissertation sec. 3.6: 3.4 GHz Pentium 4 + GeForce 7800GTX,
# 256^2 atlases. Table 1 = Table 3.1 (nodes, tets per model); the frame rates are from the
# text; one simulation step per frame (the cylinder's 21K nodes x 6 fps = the quoted 120K
# nodes/s, 161K tets x 6 = 1M tets/s, 2,600 contacts x 6 = 15K contacts/s).
PAPER = [
    # (paper model, our scene, nodes, tets, steps/s, contacts per step or None, note)
    ("Cylinder (heterogeneous, soft side in contact)", "heterogeneous_cylinder", 21e3, 161e3, 6.0, 2600,
     "6 fps, up to 2,600 colliding nodes"),
    ("Cylinder (heterogeneous, stiff side in contact)", "heterogeneous_cylinder", 21e3, 161e3, 1.5, None,
     "1-2 fps"),
    ("Tire (playground of tires)", "tires", 31e3, 162e3, 0.5, None,
     "2 s/frame; nodes of one tire (the paper does not give the number of tires)"),
    ("Pumpkin (two pumpkins)", "pumpkins", 2 * 30e3, 2 * 183e3, None, None, "no frame rate given"),
    ("Gear + cylinder", "cylinder_gear", 29e3 + 21e3, 173e3 + 161e3, 1.0, None, "1 fps"),
    ("Head (dropped)", "head_drop", 40e3, 240e3, 2.0, None, "2 fps"),
    ("Head (punched by the fist)", "head_punch", 40e3, 240e3, 1.0, None, "1 fps"),
]
PAPER_TABLE2 = {"nodes_per_s": 120e3, "tets_per_s": 1e6, "contacts_per_s": 15e3}

# issue 8's reference figures for the peer ball drop (measured elsewhere, quoted, not re-run)
PEER_REFERENCE = [
    ("VegaFEM implicit linear FEM", "74", "35 K (surface)", "3 cm at impact", "yes"),
    ("Bullet implicit FEM deformable", "297", "8.3 K", "", "CG at its 300-iteration cap"),
    ("Bullet classic soft body", "0.77-2", "", "2 cm (or collapses)", ""),
    ("Jolt XPBD tetrahedral", "1.86", "1.34 M", "", "still jiggling at 10 s"),
    ("Jolt pressure sphere", "0.42", "", "", "never"),
    ("Bender's PBD FEM-XPBD", "7.5", "", "11 cm", ""),
]


def log(msg):
    print(msg, flush=True)


def median(v):
    return statistics.median(v) if v else float("nan")


def fmt(x, digits=3):
    """Human number: 1.34 M, 120 K, 7.43."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    a = abs(x)
    if a >= 1e6:
        return f"{x / 1e6:.{digits - 1}f} M"
    if a >= 1e4:
        return f"{x / 1e3:.0f} K"
    if a >= 1e3:
        return f"{x / 1e3:.{digits - 2}f} K"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def read_bench_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [[float(x) for x in line.split(",")] for line in f if line.strip()]
    return header, rows


def cpu_pressure():
    """Share of the last 60 s in which some runnable task waited for a CPU (Linux PSI), or None."""
    try:
        with open("/proc/pressure/cpu") as f:
            return float(re.search(r"avg60=([0-9.]+)", f.readline()).group(1))
    except (OSError, AttributeError):
        return None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def default_machine_name():
    model = cpu_model().lower()
    model = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*|\d+-core", " ", model)
    words = [w for w in re.split(r"[^a-z0-9]+", model) if w][:3]
    return "-".join(words + [f"{os.cpu_count()}c"])


class Runner:
    def __init__(self, args, outdir):
        self.args = args
        self.out = outdir
        self.raw = os.path.join(outdir, "raw")
        os.makedirs(self.raw, exist_ok=True)
        self.renderer = None
        self.env = dict(os.environ)
        # timings need spinning OpenMP threads: PASSIVE (test.sh's setting) halves the speed
        self.env.pop("OMP_WAIT_POLICY", None)

    def d2tsim(self, scene, backend, res, frames, tag, dt=None):
        """Runs one headless simulation; returns (header, rows, metrics) or None on failure."""
        csv = os.path.join(self.raw, tag + ".csv")
        js = os.path.join(self.raw, tag + ".json")
        path = scene if scene.endswith(".json") else os.path.join(ROOT, "scenes", scene + ".json")
        cmd = [self.args.binary, path, "--headless", "--backend", backend,
               "--frames", str(frames), "--bench", csv, "--metrics", js]
        if res:
            cmd += ["--resolution", str(res)]
        if dt:
            cmd += ["--dt", str(dt)]
        t0 = time.time()
        p = subprocess.run(cmd, cwd=ROOT, env=self.env, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            log(f"  ! {tag}: d2tsim failed (exit {p.returncode}): {p.stderr.strip()[-400:]}")
            return None
        warn = [l for l in p.stderr.splitlines() if "warning" in l]
        if warn:
            log(f"  ! {tag}: {warn[0][:200]}")
        with open(js) as f:
            metrics = json.load(f)
        if self.renderer is None and metrics.get("renderer"):
            self.renderer = metrics["renderer"]
        header, rows = read_bench_csv(csv)
        metrics["_wall_s"] = wall
        metrics["_gpu_fallback"] = backend == "gpu" and metrics.get("backend") != "gpu"
        return header, rows, metrics


def run_figures(header, rows, metrics, warmup):
    """Figures of one run over its measured steps (step > warmup)."""
    col = {n: i for i, n in enumerate(header)}
    meas = [r for r in rows if r[0] > warmup]
    step_ms = median([r[col["step_ms"]] for r in meas])
    stages = {n[:-3]: median([r[i] for r in meas]) for n, i in col.items()
              if n.endswith("_ms") and n != "step_ms"}
    contacts = statistics.fmean([r[col["contacts"]] for r in meas]) if "contacts" in col else float("nan")
    touching = (sum(1 for r in meas if r[col["contacts"]] > 0) / len(meas)) if "contacts" in col and meas else 0.0
    cg = statistics.fmean([r[col["cg_iterations"]] for r in meas]) if "cg_iterations" in col else float("nan")
    bodies = metrics.get("bodies", [])
    return {
        "steps": len(meas),
        "ms": step_ms,
        "steps_per_s": 1000.0 / step_ms if step_ms > 0 else float("nan"),
        "nodes": sum(b.get("nodes", 0) for b in bodies),
        "tets": sum(b.get("tets", 0) for b in bodies),
        "bodies": len(bodies),
        "contacts": contacts,
        "touching": touching,
        "phase": phase(warmup, len(meas), metrics.get("dt"), touching),
        "cg": cg,
        "stages": stages,
        "resets": sum(b.get("resets", 0) for b in bodies),
        "max_penetration": max([b.get("max_penetration", 0) for b in bodies] or [0]),
        "backend_ran": metrics.get("backend", "?"),
        "wall_s": metrics["_wall_s"],
    }


def phase(warmup, steps, dt, touching):
    """What a run's measured steps are: their time span and the share of them in contact."""
    span = f"steps {warmup + 1}-{warmup + steps}"
    if dt:
        span = f"t {warmup * dt:.2f}-{(warmup + steps) * dt:.2f} s"
    return f"{span}, {100 * touching:.0f}% in contact"


def lstsq_line(xs, ys):
    """y = a + b x by least squares; returns a, b, R^2."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx if sxx > 0 else 0.0
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    return a, b, r2


def rest_from_trajectory(traj, dt, tol=1e-3):
    """(time from which the centre-of-mass speed stays below tol to the end, first time it is
    below tol), each None when never."""
    rest = first = None
    for k in range(1, len(traj)):
        p, q = traj[k - 1], traj[k]
        v = math.sqrt(sum((q[i] - p[i]) ** 2 for i in (1, 2, 3))) / dt
        if v < tol:
            rest = q[0] if rest is None else rest
            first = q[0] if first is None else first
        else:
            rest = None
    return rest, first


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(("%.6g" % x) if isinstance(x, float) else str(x) for x in r) + "\n")


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# ---- the suite ---------------------------------------------------------------------------

def suite(R, a):
    """Scenes x backends x resolutions x repeats; returns (configs, runs rows)."""
    configs = []
    runs = []
    plan = []
    for backend in a.backends:
        gpu = backend == "gpu"
        for scene in a.scenes:
            for res in (a.gpu_resolutions if gpu else a.resolutions):
                plan.append((scene, backend, res))
    log(f"suite: {len(plan)} configurations x {a.repeats} repeats "
        f"(cpu: {a.warmup}+{a.steps} steps, gpu: {a.gpu_warmup}+{a.gpu_steps} steps, repeats {a.gpu_repeats})")
    for i, (scene, backend, res) in enumerate(plan):
        gpu = backend == "gpu"
        warm, steps, reps = (a.gpu_warmup, a.gpu_steps, a.gpu_repeats) if gpu else (a.warmup, a.steps, a.repeats)
        figs = []
        for k in range(reps):
            tag = f"{scene}-{backend}-{res}-r{k + 1}"
            out = R.d2tsim(scene, backend, res, warm + steps, tag)
            if not out:
                continue
            f = run_figures(out[0], out[1], out[2], warm)
            if out[2]["_gpu_fallback"]:
                log(f"  ! {tag}: ran on the CPU backend (the GPU solver could not run)")
            figs.append(f)
            runs.append([scene, backend, res, k + 1, f["bodies"], f["nodes"], f["tets"], f["steps"], f["ms"],
                         f["steps_per_s"], f["contacts"], f["cg"], f["resets"], f["max_penetration"],
                         f["backend_ran"], f["wall_s"]])
        if not figs:
            continue
        sps = [f["steps_per_s"] for f in figs]
        c = dict(scene=scene, backend=backend, res=res, repeats=len(figs), bodies=figs[0]["bodies"],
                 nodes=figs[0]["nodes"], tets=figs[0]["tets"], steps=figs[0]["steps"],
                 sps=median(sps), sps_min=min(sps), sps_max=max(sps),
                 contacts=median([f["contacts"] for f in figs]), cg=median([f["cg"] for f in figs]),
                 resets=sum(f["resets"] for f in figs), backend_ran=figs[0]["backend_ran"], phase=figs[0]["phase"])
        c["ms"] = 1000 / c["sps"]
        c["nodes_s"] = c["nodes"] * c["sps"]
        c["tets_s"] = c["tets"] * c["sps"]
        c["contacts_s"] = c["contacts"] * c["sps"]
        names = []
        for f in figs:
            names += [n for n in f["stages"] if n not in names]
        c["stages"] = {n: median([f["stages"].get(n, 0.0) for f in figs]) for n in names}
        configs.append(c)
        log(f"[{i + 1}/{len(plan)}] {scene:24s} {backend} {res:4d}^2: {c['sps']:8.1f} steps/s "
            f"({c['sps_min']:.1f}-{c['sps_max']:.1f}), {fmt(c['nodes_s'])} nodes/s, "
            f"{c['contacts']:.0f} contacts, CG {c['cg']:.1f}")
    return configs, runs


DETECT_STAGES = ("proxies_ms", "pairs_ms", "nodes_ms", "redetect_ms")  # steps 6-8 and 14


def detect_ms(col, row):
    """Both detection passes of a step (steps 6-8 and 14) [ms]."""
    return sum(float(row[col[n]]) for n in DETECT_STAGES if n in col)


def scaling(R, a):
    """ball_drop at every scaling resolution: ms/step against nodes, detect against contacts."""
    points, collision = [], []
    for res in a.scaling_resolutions:
        ms, nodes = [], 0
        for k in range(a.scaling_repeats):
            tag = f"scaling-ball_drop-cpu-{res}-r{k + 1}"
            out = R.d2tsim("ball_drop", "cpu", res, a.scaling_warmup + a.scaling_steps, tag)
            if not out:
                continue
            header, rows, metrics = out
            f = run_figures(header, rows, metrics, a.scaling_warmup)
            ms.append(f["ms"])
            nodes = f["nodes"]
            col = {n: i for i, n in enumerate(header)}
            if k == 0:  # every step after the bake: detect time against colliding nodes
                for r in rows[1:]:
                    collision.append([f"scaling {res}^2 (E 50 kPa)", res, nodes, int(r[col["contacts"]]), detect_ms(col, r),
                                      r[col["step_ms"]]])
        if ms:
            points.append([res, nodes, median(ms), min(ms), max(ms)])
            log(f"scaling: ball_drop {res:4d}^2 {nodes:6d} nodes {median(ms):8.3f} ms/step")
    # contact area at a fixed node count: ball_drop made softer and stiffer
    with open(os.path.join(ROOT, "scenes", "ball_drop.json")) as f:
        base = json.load(f)
    for young in a.sweep_youngs:
        base["bodies"][0]["material"]["young"] = young
        path = os.path.join(R.raw, f"ball_drop_E{young:g}.json")
        with open(path, "w") as f:
            json.dump(base, f)
        out = R.d2tsim(path, "cpu", a.sweep_resolution, a.sweep_frames,
                       f"collision-ball_drop-E{young:g}-{a.sweep_resolution}")
        if not out:
            continue
        header, rows, metrics = out
        col = {n: i for i, n in enumerate(header)}
        nodes = sum(b["nodes"] for b in metrics["bodies"])
        label = f"{a.sweep_resolution}^2 E {young / 1e3:g} kPa"
        for r in rows[1:]:
            collision.append([label, a.sweep_resolution, nodes, int(r[col["contacts"]]), detect_ms(col, r),
                              r[col["step_ms"]]])
        log(f"collision: ball_drop E {young:g} Pa at {a.sweep_resolution}^2: up to "
            f"{max(int(r[col['contacts']]) for r in rows)} contacts")
    return points, collision


def peer(R, a):
    """Bullet's classic soft body and d2tsim on the peer ball drop (600 steps of 1/60 s), run
    alternately (Bullet, then each d2tsim backend, per repeat: the same machine state for both)."""
    rows = []
    bullet = os.path.join(a.build, "bench", "bullet_ball")
    if not os.path.exists(bullet):
        bullet = None
        log("peer: build/bench/bullet_ball is not built (libbullet-dev missing): Bullet column skipped")
    res, ms, last = [], {b: [] for b in a.peer_backends}, {}
    for k in range(a.peer_repeats):
        if bullet:
            p = subprocess.run([bullet, "--steps", str(a.peer_steps)], capture_output=True, text=True)
            if p.returncode == 0:
                res.append(json.loads(p.stdout))
            else:
                log(f"  ! bullet_ball failed: {p.stderr.strip()[-300:]}")
        for backend in a.peer_backends:
            tag = f"peer-peer_ball_drop-{backend}-r{k + 1}"
            out = R.d2tsim("peer_ball_drop", backend, None, a.peer_steps, tag)
            if out:
                ms[backend].append(run_figures(out[0], out[1], out[2], 1)["ms"])  # all steps after the bake
                last[backend] = out[2]
    if res:
        b = res[0]
        m = median([r["ms_per_step"] for r in res])
        rows.append([b["engine"], b["nodes"], m, b["nodes"] * 1000 / m, b["max_penetration"], "",
                     "yes" if b["rests"] else "no", b["rest_time"] if b["rests"] else "",
                     b["first_still_time"] if b["first_still_time"] >= 0 else "", b["final_speed"], b["final_com_y"],
                     b["min_com_y"]])
        log(f"peer: Bullet {m:.3f} ms/step, rests: {b['rests']}")
    for backend in a.peer_backends:
        if not ms[backend]:
            continue
        b = last[backend]["bodies"][0]
        dt = last[backend]["dt"]
        rest, first = rest_from_trajectory(b["trajectory"], dt)
        traj = b["trajectory"]
        speed = math.sqrt(sum((traj[-1][i] - traj[-2][i]) ** 2 for i in (1, 2, 3))) / dt
        m = median(ms[backend])
        rows.append([f"d2tsim {backend} (D2T, {b['nodes']} skin nodes at 64^2)", b["nodes"], m, b["nodes"] * 1000 / m,
                     b["max_penetration"], b.get("max_penetration_detected", ""),
                     "yes" if rest is not None else "no", rest if rest is not None else "",
                     first if first is not None else "", speed,
                     traj[-1][2], min(t[2] for t in traj)])
        log(f"peer: d2tsim {backend} {m:.3f} ms/step, rests: {rest is not None}")
    return rows


def gnuplot_plots(outdir, fit, cfits):
    gp = shutil.which("gnuplot")
    if not gp:
        log("plots: gnuplot is not installed (Debian gnuplot-nox): scaling.png and collision.png skipped")
        return False
    a, b, r2 = fit
    script = f"""
set terminal pngcairo size 800,520 font ",11"
set datafile separator ","
set key top left
set grid
set output "scaling.png"
set title "ball drop, CPU: time per step against skin nodes (32^2 .. 256^2 atlas)"
set xlabel "skin nodes"
set ylabel "ms / step (median over repeats)"
f(x) = {a!r} + {b!r} * x
plot "scaling.csv" using 2:3:4:5 with yerrorbars pt 7 lc rgb "#1f77b4" title "median (min-max)", \\
     f(x) with lines lc rgb "#d62728" title sprintf("fit: %.3g + %.3g us x nodes (R^2 = %.3f)", {a!r}, {b * 1000!r}, {r2!r})
set output "collision.png"
set title "ball drop, CPU: collision detection time against contact area (every step)"
set key outside right
set xlabel "colliding skin nodes (contact area in atlas texels)"
set ylabel "detect ms / step (both detection passes)"
set logscale y
plot """
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
              "#bcbd22", "#17becf"]
    parts = []
    for i, (name, _) in enumerate(cfits):
        parts.append(f"\"< awk -F, 'NR > 1 && $1 == \\\"{name}\\\"' collision.csv\" using 4:5 with points "
                     f"pt {7 if name.startswith('scaling') else 5} ps 0.5 lc rgb \"{colors[i % len(colors)]}\" "
                     f"title \"{name}\"")
    script += ", \\\n     ".join(parts) + "\n"
    with open(os.path.join(outdir, "plots.gp"), "w") as f:
        f.write(script)
    p = subprocess.run([gp, "plots.gp"], cwd=outdir, capture_output=True, text=True)
    if p.returncode != 0:
        log(f"plots: gnuplot failed: {p.stderr.strip()[-400:]}")
        return False
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    env = os.environ.get
    ints = lambda s: [int(x) for x in s.replace(",", " ").split()]
    words = lambda s: s.replace(",", " ").split()
    p.add_argument("--machine", default=env("D2T_BENCH_MACHINE") or default_machine_name())
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--quick", action="store_true", default=env("D2T_BENCH_QUICK") == "1",
                   help="smoke test: 2 scenes, 64^2 and 128^2, few steps, 1 repeat")
    p.add_argument("--scenes", type=words, default=words(env("D2T_BENCH_SCENES", "")) or None)
    p.add_argument("--resolutions", type=ints, default=ints(env("D2T_BENCH_RESOLUTIONS", "")) or None)
    p.add_argument("--backends", type=words, default=words(env("D2T_BENCH_BACKENDS", "")) or None)
    p.add_argument("--gpu-resolutions", type=ints, default=ints(env("D2T_BENCH_GPU_RESOLUTIONS", "")) or None,
                   help="default: 64 128 on a software rasterizer (llvmpipe), else the CPU list")
    p.add_argument("--warmup", type=int, default=int(env("D2T_BENCH_WARMUP", "0")) or None)
    p.add_argument("--steps", type=int, default=int(env("D2T_BENCH_STEPS", "0")) or None)
    p.add_argument("--repeats", type=int, default=int(env("D2T_BENCH_REPEATS", "0")) or None)
    p.add_argument("--gpu-warmup", type=int, default=int(env("D2T_BENCH_GPU_WARMUP", "0")) or None)
    p.add_argument("--gpu-steps", type=int, default=int(env("D2T_BENCH_GPU_STEPS", "0")) or None)
    p.add_argument("--gpu-repeats", type=int, default=int(env("D2T_BENCH_GPU_REPEATS", "0")) or None)
    p.add_argument("--no-scaling", action="store_true")
    p.add_argument("--no-peer", action="store_true")
    a = p.parse_args()
    a.binary = os.path.join(a.build, "d2tsim")
    if not os.path.exists(a.binary):
        sys.exit(f"suite: {a.binary} not found: build first (bench/run_suite.sh does)")

    q = a.quick
    a.scenes = a.scenes or (["peer_ball_drop", "heterogeneous_cylinder"] if q else DEFAULT_SCENES)
    a.resolutions = a.resolutions or ([64, 128] if q else [64, 128, 256])
    a.backends = a.backends or ["cpu", "gpu"]
    # (what users see: the warm-up covers the fall of the dropped bodies, 1 s at dt 5 ms, so
    # that the measured steps are in contact; the table states each run's phase)
    a.warmup = a.warmup or (10 if q else 200)
    a.steps = a.steps or (20 if q else 100)
    a.repeats = a.repeats or (1 if q else 3)
    a.scaling_resolutions = [32, 64] if q else [32, 64, 128, 256]
    # (ball_drop rests from 2.1 s at 128^2 and 3.3 s at 256^2; settling, the 256^2 step
    # took 99.5 ms against 21.7 ms at rest: the warm-up covers 3.5 s)
    a.scaling_warmup, a.scaling_steps = (150, 30) if q else (700, 100)
    a.scaling_repeats = 1 if q else 3
    a.sweep_resolution = 64 if q else 128
    a.sweep_youngs = [5e3, 5e4] if q else [3e3, 1e4, 3e4, 1e5, 3e5]
    a.sweep_frames = 250 if q else 400  # 2 s at dt 5 ms: the fall, the impact and the rest
    a.peer_steps = 600
    a.peer_repeats = 1 if q else 3

    outdir = os.path.join(ROOT, "bench", "results", a.machine)
    os.makedirs(outdir, exist_ok=True)
    R = Runner(a, outdir)

    # the GL renderer decides the GPU defaults: a software rasterizer gets a short GPU set
    probe = R.d2tsim("ball_drop", "cpu", 16, 1, "probe")
    renderer = (probe[2].get("renderer") if probe else None) or "unknown"
    software = bool(re.search(r"llvmpipe|softpipe|swrast|lavapipe", renderer, re.I))
    a.gpu_resolutions = a.gpu_resolutions or ([64] if q else [64, 128] if software else a.resolutions)
    a.gpu_warmup = a.gpu_warmup or (3 if q else 5 if software else a.warmup)
    a.gpu_steps = a.gpu_steps or (5 if q else 10 if software else a.steps)
    a.gpu_repeats = a.gpu_repeats or (1 if q or software else a.repeats)
    a.peer_backends = ["cpu"] + (["gpu"] if "gpu" in a.backends and not software and not q else [])
    log(f"machine {a.machine}: {cpu_model()}, {os.cpu_count()} cores; GL renderer: {renderer}"
        + (" (software: short GPU set)" if software else ""))

    t0 = time.time()
    load0, psi0 = os.getloadavg(), cpu_pressure()
    configs, runs = suite(R, a)
    points, collision = scaling(R, a) if not a.no_scaling else ([], [])
    peers = peer(R, a) if not a.no_peer else []
    load1, psi1 = os.getloadavg(), cpu_pressure()
    minutes = (time.time() - t0) / 60

    # ---- CSVs ----
    write_csv(os.path.join(outdir, "runs.csv"),
              ["scene", "backend", "atlas", "repeat", "bodies", "nodes", "tets", "measured_steps", "ms_per_step",
               "steps_per_s", "contacts_per_step", "cg_iterations_per_step", "resets", "max_penetration_m",
               "backend_ran", "wall_s"], runs)
    stage_names = []
    for c in configs:
        stage_names += [n for n in c["stages"] if n not in stage_names]
    write_csv(os.path.join(outdir, "suite.csv"),
              ["scene", "backend", "atlas", "repeats", "bodies", "nodes", "tets", "steps_per_s_median",
               "steps_per_s_min", "steps_per_s_max", "ms_per_step", "nodes_per_s", "tets_per_s",
               "contacts_per_step", "contacts_per_s", "cg_iterations_per_step"] + [n + "_ms" for n in stage_names],
              [[c["scene"], c["backend"], c["res"], c["repeats"], c["bodies"], c["nodes"], c["tets"], c["sps"],
                c["sps_min"], c["sps_max"], c["ms"], c["nodes_s"], c["tets_s"], c["contacts"], c["contacts_s"],
                c["cg"]] + [c["stages"].get(n, 0.0) for n in stage_names] for c in configs])
    fit, cfits = (float("nan"),) * 3, []
    if points:
        fit = lstsq_line([p_[1] for p_ in points], [p_[2] for p_ in points]) if len(points) > 1 else fit
        write_csv(os.path.join(outdir, "scaling.csv"), ["atlas", "nodes", "ms_median", "ms_min", "ms_max"], points)
        write_csv(os.path.join(outdir, "collision.csv"),
                  ["series", "atlas", "nodes", "contacts", "detect_ms", "step_ms"], collision)
        series = []
        for c in collision:
            series += [c[0]] if c[0] not in series else []
        for name in series:
            pts = [c for c in collision if c[0] == name]
            if len(pts) > 2:
                cfits.append((name, (pts[0][2],) + lstsq_line([c[3] for c in pts], [c[4] for c in pts])
                              + (max(c[3] for c in pts),)))
    plotted = gnuplot_plots(outdir, fit, cfits) if points else False

    # papers side by side: today's figure for the same scene at the paper's 256^2 (else the finest run)
    paper_rows, paper_csv = [], []
    for model, scene, nodes, tets, sps, contacts, note in PAPER:
        for backend in a.backends:
            cands = [c for c in configs if c["scene"] == scene and c["backend"] == backend]
            if not cands:
                continue
            c = max(cands, key=lambda c: c["res"])
            pn = nodes * sps if sps else None
            pt = tets * sps if sps else None
            pc = contacts * sps if sps and contacts else None
            ratio = lambda ours, theirs: f"{ours / theirs:.2f}x" if theirs else "n/a"
            paper_rows.append([model, note, fmt(pn), fmt(pt), fmt(pc),
                               f"{scene} {backend} {c['res']}^2", fmt(c["nodes_s"]), fmt(c["tets_s"]),
                               fmt(c["contacts_s"]), ratio(c["nodes_s"], pn), ratio(c["tets_s"], pt),
                               ratio(c["contacts_s"], pc)])
            paper_csv.append([model, pn or "", pt or "", pc or "", scene, backend, c["res"], c["nodes_s"],
                              c["tets_s"], c["contacts_s"]])
    write_csv(os.path.join(outdir, "papers.csv"),
              ["paper_model", "paper_nodes_per_s", "paper_tets_per_s", "paper_contacts_per_s", "scene", "backend",
               "atlas", "nodes_per_s", "tets_per_s", "contacts_per_s"], paper_csv)
    if peers:
        write_csv(os.path.join(outdir, "peer.csv"),
                  ["engine", "nodes", "ms_per_step", "nodes_per_s", "max_penetration_m",
                   "max_penetration_detected_m", "rests", "rest_time_s", "first_still_s", "final_speed_m_s", "final_com_y_m",
                   "min_com_y_m"], peers)

    # ---- summary.md ----
    compiler = ""
    cache = os.path.join(a.build, "CMakeCache.txt")
    if os.path.exists(cache):
        m = re.search(r"CMAKE_CXX_COMPILER:\w+=(.*)", open(cache).read())
        if m:
            v = subprocess.run([m.group(1), "--version"], capture_output=True, text=True).stdout.splitlines()
            compiler = v[0] if v else ""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    # the wrapper that called this (run_suite.sh, gpu_check.sh) names itself; else this script
    cmdline = ((env("D2T_BENCH_COMMAND") + ", which ran ") if env("D2T_BENCH_COMMAND") else "") + \
        "bench/suite.py " + " ".join(sys.argv[1:])
    L = []
    L.append(f"# d2tsim benchmark: {a.machine}\n")
    L.append(f"Generated {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} by `{cmdline.strip()}` "
             f"(commit {commit}) in {minutes:.1f} min. Figures only: nothing here passes or fails.\n")
    L.append(f"- CPU: {cpu_model()}, {os.cpu_count()} cores; {platform.system()} {platform.release()}")
    L.append(f"- compiler: {compiler or 'unknown'}, Release build")
    L.append(f"- GL renderer: {renderer}" + (" (software rasterizer: GPU figures say nothing about a real GPU)"
                                               if software else ""))
    L.append(f"- load average at start / end: {load0[0]:.2f} / {load1[0]:.2f} (the machine is shared: medians "
             f"over repeats)" + (f"; CPU pressure (PSI some avg60) at start / end: {psi0:.0f}% / {psi1:.0f}% "
                                   "of the time some task waited for a core" if psi0 is not None else ""))
    L.append(f"- CPU runs: {a.warmup} warm-up + {a.steps} measured steps, {a.repeats} repeats; GPU runs: "
             f"{a.gpu_warmup} + {a.gpu_steps} steps, {a.gpu_repeats} repeat(s); the scene's own dt; every body "
             f"at the run's atlas resolution (`--resolution`)\n")
    L.append("## Suite\n")
    L.append("steps/s: median over repeats of each run's median step (min-max over repeats). nodes/s, tets/s = "
             "(skin nodes, tetrahedra of all bodies) x median steps/s; contacts/s = mean colliding nodes per "
             "measured step x median steps/s; CG = mean CG iterations per step (0: the direct solver).\n")
    L.append("phase: the measured steps' span in simulated time and the share of them with a contact (the "
             "first repeat's): a run measured before its bodies land says little about the scene in use.\n")
    L.append(md_table(["scene", "backend", "atlas", "phase", "bodies", "nodes", "tets", "steps/s (min-max)", "ms/step",
                       "nodes/s", "tets/s", "contacts/step", "contacts/s", "CG it/step"],
                      [[c["scene"], c["backend"] + ("" if c["backend_ran"] == c["backend"] else " (ran cpu)"),
                        f"{c['res']}^2", c["phase"], c["bodies"], f"{c['nodes']:,}", f"{c['tets']:,}",
                        f"{fmt(c['sps'])} ({fmt(c['sps_min'])}-{fmt(c['sps_max'])})", fmt(c["ms"]),
                        fmt(c["nodes_s"]), fmt(c["tets_s"]), f"{c['contacts']:.0f}", fmt(c["contacts_s"]),
                        f"{c['cg']:.1f}"] for c in configs]))
    for backend in a.backends:
        cs = [c for c in configs if c["backend"] == backend]
        if not cs:
            continue
        names = []
        for c in cs:
            names += [n for n in c["stages"] if n not in names and any(c2["stages"].get(n, 0) > 0 for c2 in cs)]
        L.append(f"\n### Stage medians, {backend} backend [ms]\n")
        L.append("The stages of Fig. 3.5 as the step times them (CPU clocks; `gpu_*` columns are GL timer "
                 "queries). Median over the measured steps, then over the repeats.\n")
        L.append(md_table(["scene", "atlas", "phase", "step"] + names,
                          [[c["scene"], f"{c['res']}^2", c["phase"], fmt(c["ms"])] +
                           [fmt(c["stages"].get(n, 0.0)) for n in names] for c in cs]))
    gpu_runs = [c for c in configs if c["backend"] == "gpu" and c["backend_ran"] == "gpu"]
    if gpu_runs:
        L.append("\n### Where a GPU step goes\n")
        L.append("GPU = the sum of the step's GL timer queries (`gpu_*`: the time the passes took on the GPU); "
                 "the rest of the step is the CPU's work and its waits (draw calls, readbacks, detection on the "
                 "CPU). The solve's time per CG iteration shows a fixed cost per pass when it does not grow with "
                 "the atlas.\n")
        rows_ = []
        for c in gpu_runs:
            g = {n[4:]: v for n, v in c["stages"].items() if n.startswith("gpu_")}
            total = sum(g.values())
            top = sorted(g.items(), key=lambda kv: -kv[1])[:3]
            per_it = (f"{g.get('solve', 0.0) * 1e3 / c['cg']:.0f}" if c["cg"] > 0 else "direct")
            rows_.append([c["scene"], f"{c['res']}^2", fmt(c["ms"]), fmt(total),
                          f"{100 * total / c['ms']:.0f}%" if c["ms"] > 0 else "", f"{c['cg']:.1f}", per_it,
                          ", ".join(f"{n} {fmt(v)}" for n, v in top)])
        L.append(md_table(["scene", "atlas", "step ms", "GPU ms", "GPU share", "CG it", "us / CG iteration",
                           "largest passes [ms]"], rows_))
    if points:
        a_, b_, r2 = fit
        L.append("\n## Scaling\n")
        L.append(f"ball_drop on the CPU, {a.scaling_warmup} warm-up steps (the ball lands and rests) + "
                 f"{a.scaling_steps} measured, {a.scaling_repeats} repeats.\n")
        L.append(md_table(["atlas", "nodes", "ms/step median", "min", "max", "ns / node / step"],
                          [[f"{p_[0]}^2", f"{p_[1]:,}", fmt(p_[2]), fmt(p_[3]), fmt(p_[4]),
                            f"{p_[2] * 1e6 / p_[1]:.0f}"] for p_ in points]))
        L.append(f"\nLeast squares: time per step = {a_:.3f} ms + {b_ * 1e3:.3f} us x nodes "
                 f"(b = {b_ * 1e6:.0f} ns per node per step), R^2 = {r2:.4f}.\n")
        L.append("Collision detection (`detect`: both detection passes of the step, proxies + pairs + nodes + redetect) against the contact area "
                 "(colliding skin nodes), every step of the first repeat:\n")
        L.append(md_table(["ball_drop", "nodes", "max contacts", "detect = a + b x contacts", "R^2"],
                          [[name, f"{f_[0]:,}", f_[4], f"{f_[1]:.4f} ms + {f_[2] * 1e3:.3f} us x contacts",
                            f"{f_[3]:.3f}"] for name, f_ in cfits]))
        L.append("\nThe first rows: the scaling runs (`scaling`, E 50 kPa); the others: the same ball at "
                 f"{a.sweep_resolution}^2 made softer or stiffer, for a range of contact areas at a fixed node "
                 "count. a is the part of the detection that does not depend on the contacts; b the part that "
                 "does (the output-sensitive part).\n")
        if plotted:
            L.append("![time per step against nodes](scaling.png)\n")
            L.append("![collision detection against contact area](collision.png)\n")
        else:
            L.append("(plots skipped: gnuplot not available)\n")
    if paper_rows:
        L.append("\n## The papers side by side\n")
        L.append("DDT paper (SCA 2006) Table 1 / dissertation Table 3.1 (nodes and tetrahedra per model) with the "
                 "frame rates of sec. 7 / 3.6, one step per frame, on a 3.4 GHz Pentium 4 + GeForce 7800 GTX at "
                 "256^2; Table 2 / 3.2 quotes D2T as "
                 f"{fmt(PAPER_TABLE2['nodes_per_s'])} nodes/s, {fmt(PAPER_TABLE2['tets_per_s'])} tets/s, "
                 f"{fmt(PAPER_TABLE2['contacts_per_s'])} contacts/s. Ratio = today / paper.\n")
        L.append(md_table(["paper model", "paper note", "paper nodes/s", "tets/s", "contacts/s", "today", "nodes/s",
                           "tets/s", "contacts/s", "nodes ratio", "tets ratio", "contacts ratio"], paper_rows))
    if peers:
        L.append("\n## Peer side by side: the peer ball drop\n")
        L.append("Ball r = 0.5 m, rho 1000, E 1 MPa, nu 0.3 (d2tsim; Bullet's classic soft body has no Young's "
                 "modulus: stiff links + a gas pressure giving the Hertz contact patch of that ball, see "
                 "bench/bullet_ball.cpp), bottom 1 m above the ground, dt 1/60 s, "
                 f"{a.peer_steps} steps, median step over {a.peer_repeats} run(s), the engines run alternately. Penetration: deepest node "
                 "below the ground after a step (d2tsim also reports the depth found before its response). "
                 "Rests: centre-of-mass speed < 1 mm/s from that time to the end (first < 1 mm/s: the first step "
                 "below it).\n")
        L.append(md_table(["engine", "nodes", "ms/step", "nodes/s", "max penetration", "detected before response",
                           "rests", "at", "first < 1 mm/s", "final speed", "final com y", "lowest com y"],
                          [[r[0], f"{r[1]:,}", fmt(r[2]), fmt(r[3]), f"{r[4] * 100:.1f} cm",
                            f"{r[5] * 100:.1f} cm" if r[5] != "" else "", r[6],
                            f"{r[7]:.2f} s" if r[7] != "" else "", f"{r[8]:.2f} s" if r[8] != "" else "never",
                            f"{r[9]:.2g} m/s", f"{r[10]:.3f} m", f"{r[11]:.3f} m"] for r in peers]))
        L.append("\nIssue 8's reference figures for the same scene (measured elsewhere on this kind of 2-core "
                 "machine, quoted, not re-run here):\n")
        L.append(md_table(["engine", "ms/step", "nodes/s", "penetration", "rests"], PEER_REFERENCE))
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    log(f"written: {outdir}/summary.md ({minutes:.1f} min)")


if __name__ == "__main__":
    main()
