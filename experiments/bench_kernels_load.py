"""Per-process cost of loading the compiled kernels: whole ``coflowopt`` processes, warm cache.

Run:  python experiments/bench_kernels_load.py [--baseline REV] [--repeat 5]
                                               [--out experiments/results/bench_kernels_load.json]

What it measures: the wall-clock time of whole processes, as a user runs them, with numba's
on-disk cache already warm (each command is run once first, unmeasured, so that a cold cache --
40-55 s of compilation -- is paid outside the figures):

* ``python -c "import coflowopt"`` -- the floor every command pays (numpy, scipy);
* ``coflowopt algorithms`` -- imports every algorithm, runs no kernel;
* ``coflowopt schedule <small instance> --order sebf --rates madd`` (MADD kernel),
  ``--order fifo --rates greedy`` (greedy kernel) and ``--policy fair`` (flow-level kernel) on
  ``instances/papers/sincronia-t-s4.json`` (3 coflows): the kernel loading cost and nothing else.

With ``--baseline REV`` the same commands also run against git revision ``REV`` (checked out
into a temporary worktree, whose processes run there) in the same sitting, interleaved run
by run so that the machine's load affects both alike; the figures are medians and each command
is reported with its ratio to the baseline.  The worktree's kernels compile once, in the
unmeasured warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SMALL = "instances/papers/sincronia-t-s4.json"

COMMANDS = {
    "import": ["-c", "import coflowopt"],
    "algorithms": ["-m", "coflowopt", "algorithms"],
    "schedule sebf+madd": ["-m", "coflowopt", "schedule", SMALL, "--order", "sebf",
                           "--rates", "madd"],
    "schedule fifo+greedy": ["-m", "coflowopt", "schedule", SMALL, "--order", "fifo",
                             "--rates", "greedy"],
    "schedule fair": ["-m", "coflowopt", "schedule", SMALL, "--policy", "fair"],
}


def run_once(args: list[str], tree: str | None) -> float:
    """Wall-clock seconds of one process run in ``tree`` (default: this checkout); raises if it
    fails.  ``python -c`` and ``-m`` put the working directory first on ``sys.path``, so the
    package of ``tree`` is the one imported (ahead of the editable install)."""
    env = dict(os.environ)
    env["COFLOWOPT_QUIET_JIT"] = "1"
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, *args], cwd=tree or REPO, env=env, capture_output=True,
                       text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {p.returncode}: {p.stderr[-500:]}")
    return dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="git revision to compare against, e.g. HEAD~5")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "bench_kernels_load.json")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        print("bench_kernels_load: --repeat must be >= 1", file=sys.stderr)
        return 2

    variants = {"current": None}
    tmp = None
    if args.baseline:
        tmp = tempfile.mkdtemp(prefix="coflowopt-baseline-")
        wt = Path(tmp) / "wt"
        subprocess.run(["git", "worktree", "add", "--detach", str(wt), args.baseline],
                       cwd=REPO, check=True, capture_output=True)
        variants = {"baseline": str(wt), "current": None}
    try:
        for name, pp in variants.items():  # warm-up: compile (or load) every kernel once
            for label, cmd in COMMANDS.items():
                print(f"warm-up {name}: {label}", file=sys.stderr, flush=True)
                run_once(cmd, pp)
        times: dict[str, dict[str, list[float]]] = {v: {c: [] for c in COMMANDS}
                                                     for v in variants}
        for i in range(args.repeat):
            for label, cmd in COMMANDS.items():
                for name, pp in variants.items():
                    times[name][label].append(run_once(cmd, pp))
            print(f"run {i + 1}/{args.repeat} done", file=sys.stderr, flush=True)
    finally:
        if tmp is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "wt")],
                           cwd=REPO, capture_output=True)

    fig = {"python": platform.python_version(), "machine": platform.machine(),
           "cpus": os.cpu_count(), "repeat": args.repeat, "baseline": args.baseline,
           "instance": SMALL, "median_seconds": {}, "ratio_to_baseline": {}}
    for name in variants:
        fig["median_seconds"][name] = {c: round(statistics.median(v), 3)
                                       for c, v in times[name].items()}
    if args.baseline:
        for c in COMMANDS:
            fig["ratio_to_baseline"][c] = round(fig["median_seconds"]["current"][c]
                                                / fig["median_seconds"]["baseline"][c], 3)
    w = max(len(c) for c in COMMANDS)
    for c in COMMANDS:
        line = f"{c:<{w}}  {fig['median_seconds']['current'][c]:7.3f} s"
        if args.baseline:
            line += (f"   baseline {fig['median_seconds']['baseline'][c]:7.3f} s   ratio "
                     f"{fig['ratio_to_baseline'][c]:.2f}")
        print(line)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fig, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
