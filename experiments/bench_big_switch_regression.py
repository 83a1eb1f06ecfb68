"""Big-switch speed before and after a change, measured in one sitting, whole processes.

The resource model (flows over shared resources) must leave the big switch as fast as it was
(at most 10% slower on the FB benchmarks).  This script runs the same command-line workloads
on two checkouts, alternately, in the same sitting: the baseline (a git revision, checked out
as a temporary worktree) and the working tree.  Each workload is a whole ``coflowopt``
process (reading, scheduling, the verifier, output), timed by wall clock and by CPU time
(user + system of the process: on a shared machine wall time carries the other work too); the
numba kernels of each checkout are compiled once, untimed, before the runs.  Reported per
workload: the median of ``--repeat`` runs of each side, and the ratios ``after / before``.

Workloads (the FB trace, ``../shared/data/FB2010-1Hr-150-0.txt``):

* ``sebf+madd``: ``coflowopt schedule FB --order sebf --rates madd --json`` (trace releases);
* ``bssi+greedy@0``: ``--order bssi --rates greedy --zero-release`` (Sincronia's offline setting);
* ``fifo+greedy``: ``--order fifo --rates greedy`` (trace releases);
* ``ordering-lp@0``: ``coflowopt bound FB --method ordering-lp --zero-release --json``.

Run: ``python experiments/bench_big_switch_regression.py [--baseline REV] [--repeat 3]
[--out experiments/results/bench_big_switch_regression.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COFLOWOPT_SHARED", REPO.parent / "shared"))
TRACE = SHARED / "data" / "FB2010-1Hr-150-0.txt"
#: the last commit before the resource model
DEFAULT_BASELINE = "ddb96e7"

WORKLOADS = {
    "sebf+madd": ["schedule", str(TRACE), "--order", "sebf", "--rates", "madd", "--json"],
    "bssi+greedy@0": ["schedule", str(TRACE), "--order", "bssi", "--rates", "greedy",
                      "--zero-release", "--json"],
    "fifo+greedy": ["schedule", str(TRACE), "--order", "fifo", "--rates", "greedy", "--json"],
    "ordering-lp@0": ["bound", str(TRACE), "--method", "ordering-lp", "--zero-release",
                      "--json"],
}


def run(tree: Path, argv: list[str]) -> tuple[float, dict, float]:
    """Wall seconds, the parsed JSON and the CPU seconds (user + system) of one whole
    process.  CPU time is what a change costs; wall time also carries whatever else the
    machine runs (on a shared 2-core machine the same command's wall time varied 2.5x in one
    sitting), so the report gives both."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = "import sys; from coflowopt.cli import main; sys.exit(main(sys.argv[1:]))"
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True,
                       text=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(argv)} exited {p.returncode}: {p.stderr[-400:]}")
    return wall, json.loads(p.stdout), cpu


def value_of(doc: dict):
    for key in ("value", "objective_value"):
        if key in doc:
            return doc[key]
    return doc.get("result", {}).get("value")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision of the 'before'")
    ap.add_argument("--repeat", type=int, default=3, help="runs per workload and side")
    ap.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    ap.add_argument("--out", default=str(REPO / "experiments" / "results" /
                                         "bench_big_switch_regression.json"))
    args = ap.parse_args(argv)
    if not TRACE.exists():
        print(f"bench_big_switch_regression: error: {TRACE} not found", file=sys.stderr)
        return 2
    names = [n for n in args.only.split(",") if n]
    for n in names:
        if n not in WORKLOADS:
            print(f"bench_big_switch_regression: error: --only: unknown workload {n!r} "
                  f"(known: {', '.join(WORKLOADS)})", file=sys.stderr)
            return 2
    work = Path(tempfile.mkdtemp(prefix="coflowopt-baseline-"))
    base = work / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-f", "--detach", str(base),
                    args.baseline], check=True, capture_output=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], text=True,
                            capture_output=True).stdout.strip()
    sides = {"before": base, "after": REPO}
    try:
        for side, tree in sides.items():  # compile each checkout's kernels, untimed
            for n in names:
                run(tree, WORKLOADS[n])
        results = {}
        for n in names:
            times = {"before": [], "after": []}
            cpus = {"before": [], "after": []}
            values = {}
            for _ in range(args.repeat):
                for side, tree in sides.items():  # alternate: load drifts hit both sides
                    wall, doc, cpu = run(tree, WORKLOADS[n])
                    times[side].append(wall)
                    cpus[side].append(cpu)
                    values[side] = value_of(doc)
            med = {s: statistics.median(v) for s, v in times.items()}
            mcpu = {s: statistics.median(v) for s, v in cpus.items()}
            results[n] = {"before_s": med["before"], "after_s": med["after"],
                          "ratio": med["after"] / med["before"],
                          "before_cpu_s": mcpu["before"], "after_cpu_s": mcpu["after"],
                          "cpu_ratio": mcpu["after"] / mcpu["before"],
                          "runs": times, "cpu_runs": cpus, "value_before": values["before"],
                          "value_after": values["after"],
                          "same_value": values["before"] == values["after"]}
            print(f"{n:15s} wall before {med['before']:7.2f} s after {med['after']:7.2f} s "
                  f"ratio {med['after'] / med['before']:.3f} | cpu before "
                  f"{mcpu['before']:7.2f} s after {mcpu['after']:7.2f} s ratio "
                  f"{mcpu['after'] / mcpu['before']:.3f} | same value: "
                  f"{values['before'] == values['after']}", flush=True)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)],
                       capture_output=True)
    doc = {"benchmark": "big_switch_regression", "baseline": args.baseline,
           "after_commit": commit, "repeat": args.repeat, "machine_cores": os.cpu_count(),
           "workloads": results}
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
