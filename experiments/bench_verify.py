"""Benchmark the float verifier on the Facebook trace's large schedules, for before/after figures.

Cases (the schedules are made once and cached as ``.npz`` under ``--cache``, so that every
revision checks the very same pieces):

* ``sebf+madd/trace``  -- SEBF + MADD, the trace's releases, big switch (one-shot
  :func:`~coflowopt.verify.verify_schedule` and :func:`~coflowopt.verify.verify_in_windows`);
* ``sebf+madd-coflowsim/trace`` -- the same with coflowsim's backfilling
  (``backfill="coflowsim"``: 3.4e7 pieces, which ``coflowopt schedule`` verifies in windows);
* ``bssi+greedy/zero`` -- BSSI + greedy, all released at 0, big switch;
* ``bssi+greedy/fat-tree16`` -- the same on ``fat_tree(16)`` (ECMP seed 0, random placement
  seed 0: paths of up to 6 links, the topology-oversubscription experiment's instance);
* ``fair/trace-windows`` -- the first ``--fair-windows`` windows of per-flow fairness
  (:func:`~coflowopt.policies.flow_level.maxmin_windows`, about 1e6 pieces each), checked by
  :class:`~coflowopt.verify.WindowedVerifier` as ``coflowopt schedule --policy fair`` does.

Each case is timed after a warm-up check of a tiny schedule (so numba's kernel loading is not
counted), wall and CPU time of the process, every thread's (CPU time is the steadier figure on
a shared machine; the verifier checks a batch of 2^16 pieces or more on two threads where it
may use two cores and one is idle by the load average, ``--threads off`` keeps it on one), and the verdict and objective are
printed with the time: a faster verifier must give the same verdict and the same objective.  Before/after: run the script under each revision
in one sitting (``PYTHONPATH=<old checkout> python experiments/bench_verify.py --label old``,
then ``--label new``, and again, alternating), rows accumulate in ``--out``; ``--table``
prints the fastest run of each and the ratios.

Usage::

    python experiments/bench_verify.py [--trace PATH] [--cache DIR] [--out FILE] [--label L]
                                       [--only CASE ...] [--fair-windows N] [--threads off]
    python experiments/bench_verify.py --table [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = HERE.parent.parent / "shared" / "data" / "FB2010-1Hr-150-0.txt"
CASES = ("sebf+madd/trace", "sebf+madd-coflowsim/trace", "bssi+greedy/zero",
         "bssi+greedy/fat-tree16", "fair/trace-windows")


def _instance(trace, case):
    from coflowopt.formats import read_instance
    inst = read_instance(trace)
    if not case.startswith(("sebf+madd", "fair/")):
        inst = inst.with_releases(np.zeros(inst.num_coflows))
    if case.endswith("fat-tree16"):
        from coflowopt.topology import fat_tree, on_topology
        inst = on_topology(inst, fat_tree(16), routing="ecmp", seed=0, placement="random",
                           placement_seed=0)
    return inst


def _make(case, inst, path: Path, fair_windows: int) -> None:
    """Make the case's schedule with this revision's schedulers and cache it."""
    from coflowopt.api import run_schedule
    print(f"making {case} ...", file=sys.stderr, flush=True)
    if case.startswith("fair/"):
        from coflowopt.policies.flow_level import maxmin_windows
        got = []

        class _Enough(Exception):
            pass

        def keep(s, a, b):
            got.append((a, b, s.flow, s.start, s.end, s.rate))
            if len(got) >= fair_windows:
                raise _Enough

        try:
            maxmin_windows(inst, keep)
        except _Enough:
            pass
        with open(path, "wb") as fh:
            pickle.dump(got, fh)
        return
    order, rates = case.split("/")[0].split("+")
    rate_params = {}
    if rates.endswith("-coflowsim"):
        rates, rate_params = rates[:-len("-coflowsim")], {"backfill": "coflowsim"}
    res = run_schedule(inst, order=order, rates=rates, rate_params=rate_params,
                       keep_schedule=True)
    s = res.schedule
    np.savez(path, flow=s.flow, start=s.start, end=s.end, rate=s.rate)


def _revision() -> str:
    import coflowopt
    root = Path(coflowopt.__file__).resolve().parent.parent
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                "coflowopt"], capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _warm_up():
    from coflowopt import Coflow, Instance, Schedule
    from coflowopt.rates._jit import load_kernels
    from coflowopt.verify import WindowedVerifier, verify_schedule
    load_kernels()
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)] * 5000)])
    n = 5000
    s = Schedule(np.arange(n), np.arange(n, dtype=float), np.arange(1, n + 1, dtype=float),
                 np.ones(n))
    verify_schedule(inst, s)
    WindowedVerifier(inst).add(0.0, float(n), s)


def run_case(case, trace, cache: Path, fair_windows: int) -> list[dict]:
    from coflowopt.schedule import Schedule
    from coflowopt.verify import WindowedVerifier, verify_in_windows, verify_schedule
    inst = _instance(trace, case)
    cache.mkdir(parents=True, exist_ok=True)
    name = case.replace("/", "_").replace("+", "_")
    path = cache / (f"{name}_{fair_windows}.pkl" if case.startswith("fair/") else f"{name}.npz")
    if not path.exists():
        _make(case, inst, path, fair_windows)
    rows = []
    if case.startswith("fair/"):
        with open(path, "rb") as fh:
            windows = pickle.load(fh)
        n = sum(len(w[2]) for w in windows)
        v = WindowedVerifier(inst)
        t, c = time.perf_counter(), time.process_time()
        for a, b, f, s, e, r in windows:
            v.add(a, b, Schedule(f, s, e, r))
        rep = v.report()  # only the windows given: incomplete, so "not ok" is expected
        dt, dc = time.perf_counter() - t, time.process_time() - c
        rows.append({"case": case, "check": "windowed", "pieces": n, "seconds": dt,
                     "cpu_seconds": dc, "ns_per_piece": dt / n * 1e9,
                     "violations": rep.violation_counts, "objective": None})
        return rows
    z = np.load(path)
    sched = Schedule(z["flow"], z["start"], z["end"], z["rate"])
    n = sched.num_pieces
    for check, fn in (("one-shot", verify_schedule), ("windows", verify_in_windows)):
        t, c = time.perf_counter(), time.process_time()
        rep = fn(inst, sched)
        dt, dc = time.perf_counter() - t, time.process_time() - c
        rows.append({"case": case, "check": check, "pieces": n, "seconds": dt,
                     "cpu_seconds": dc, "ns_per_piece": dt / n * 1e9,
                     "violations": rep.violation_counts,
                     "objective": rep.weighted_completion_time})
    return rows


def table(out: Path) -> str:
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    labels = list(dict.fromkeys(r["label"] for r in rows))
    keys = list(dict.fromkeys((r["case"], r["check"]) for r in rows))
    # the fastest run of each (label, case, check): the least disturbed by other work
    best = {}
    for r in rows:
        key = (r["label"], r["case"], r["check"])
        if key not in best or r["seconds"] < best[key]["seconds"]:
            best[key] = r
    head = ["case", "check", "pieces"] + [f"{lab} s (CPU s)" for lab in labels]
    if len(labels) >= 2:
        head.append(f"{labels[0]} / {labels[-1]} (CPU)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def cell(g):
        if not g:
            return "-"
        return f"{g['seconds']:.2f}" + (f" ({g['cpu_seconds']:.2f})" if "cpu_seconds" in g
                                        else "")
    for case, check in keys:
        got = [best.get((lab, case, check)) for lab in labels]
        pieces = next(g["pieces"] for g in got if g)
        cells = [case, check, f"{pieces:,}"] + [cell(g) for g in got]
        if len(labels) >= 2:
            a, b = got[0], got[-1]
            ratio = "-"
            if a and b:
                ratio = f"{a['seconds'] / b['seconds']:.1f}x"
                if "cpu_seconds" in a and "cpu_seconds" in b:
                    ratio += f" ({a['cpu_seconds'] / b['cpu_seconds']:.1f}x)"
            cells.append(ratio)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", default=str(DEFAULT_TRACE), help="the coflow-benchmark trace")
    ap.add_argument("--cache", default=os.environ.get("TMPDIR", "/tmp") +
                    "/coflowopt-bench-verify", help="directory of the cached schedules")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_verify.jsonl"),
                    help="JSON lines, one per case and check (appended)")
    ap.add_argument("--label", default=None, help="name of this run (default: the revision)")
    ap.add_argument("--only", nargs="+", choices=CASES, default=None, help="cases to run")
    ap.add_argument("--fair-windows", type=int, default=6,
                    help="windows of per-flow fairness to check (about 1e6 pieces each)")
    ap.add_argument("--threads", choices=("auto", "off"), default="auto",
                    help="the verifier's second thread for large batches: as it decides "
                         "(default: with two cores, one idle) or never "
                         "(coflowopt.verify._THREADS = False)")
    ap.add_argument("--table", action="store_true", help="print the table of --out and stop")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.table:
        print(table(out))
        return 0
    if not Path(args.trace).exists():
        print(f"bench_verify: trace not found: {args.trace} (give --trace)", file=sys.stderr)
        return 2
    label = args.label or _revision()
    if args.threads == "off":
        from coflowopt import verify
        verify._THREADS = False     # absent before the two threads: then a no-op
    _warm_up()
    out.parent.mkdir(parents=True, exist_ok=True)
    for case in args.only or CASES:
        for row in run_case(case, args.trace, Path(args.cache), args.fair_windows):
            row.update(label=label, revision=_revision(), threads=args.threads)
            print(json.dumps(row), flush=True)
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
    print(table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
