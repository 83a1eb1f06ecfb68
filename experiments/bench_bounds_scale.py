"""Benchmark: the cheap certified bounds on large random instances (issue 17, "no cliff at
50,000 coflows").

Run:  python experiments/bench_bounds_scale.py [--sizes 5000,10000,20000,50000]
          [--methods isolated,port,bssi-dual,ordering-lp] [--baseline OLD_CHECKOUT]
          [--timeout 300] [--memory-gb 8] [--out experiments/results/bench_bounds_scale.json]

Instance: ``uniform_random(num_ports=150, num_coflows=K, seed=0)`` (150 x 150 ports, 1-4
flows per coflow, integer sizes 1-10, zero releases, unit weights and capacities), generated
in the measuring process.

Every (method, K) runs in its own child process (``--worker``), which generates the instance,
then times the registered bound -- the run *and* its exact certificate check, as
``coflowopt bound`` does -- and reports the bound's wall time and the process's peak resident
memory (``resource.getrusage``, which includes the interpreter, numpy/scipy and the instance:
the whole-process figure without process start).  Children get an address-space limit
(``--memory-gb``) and a timeout, so a quadratic baseline fails cleanly instead of taking the
machine.  ``--baseline DIR`` runs the same workers with ``PYTHONPATH=DIR`` (a checkout of an
older commit, e.g. ``git worktree add /tmp/old HEAD~1``) and prints old / new ratios measured
in the same sitting.

Target (issue 17): each cheap bound on the 50,000-coflow instance under 60 s and 4 GB, the
certificate checked in exact arithmetic.  No timing is asserted in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METHODS = ("isolated", "port", "bssi-dual", "ordering-lp")


def worker(method: str, K: int, time_limit: float | None) -> dict:
    """Generate the instance, run the bound, report time, peak memory and the exact value."""
    from coflowopt.generators import uniform_random
    from coflowopt.registry import get_algorithm
    t0 = time.perf_counter()
    inst = uniform_random(150, K, seed=0)
    t_gen = time.perf_counter() - t0
    rss_gen = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    func = get_algorithm("bound", method).func
    kwargs = {"time_limit": time_limit} if method == "ordering-lp" and time_limit else {}
    t0 = time.perf_counter()
    res = func(inst, **kwargs)
    t_bound = time.perf_counter() - t0
    v = res.value
    return {"method": method, "K": K, "generate_s": t_gen, "bound_s": t_bound,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "peak_mb_after_generate": rss_gen, "kind": res.kind, "status": res.status,
            "value": None if v is None else float(v),
            "value_exact": None if v is None else f"{v.numerator}/{v.denominator}",
            "timings": {k: float(x) for k, x in (res.timings or {}).items()}}


def run_child(method: str, K: int, *, pythonpath: str | None, timeout: float,
              memory_gb: float, time_limit: float | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    lim = int(memory_gb * 2 ** 30)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", method, str(K)]
    if time_limit:
        cmd += ["--ordering-lp-time-limit", str(time_limit)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=limit, cwd="/")
    except subprocess.TimeoutExpired:
        return {"method": method, "K": K, "failed": f"timeout {timeout:g} s"}
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        if "MemoryError" in p.stderr or "Unable to allocate" in p.stderr:
            last = f"out of memory (limit {memory_gb:g} GB)"
        return {"method": method, "K": K, "failed": last[:120]}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def fmt(r: dict | None) -> str:
    if r is None:
        return "-"
    if "failed" in r:
        return r["failed"]
    what = "" if r["value"] is not None else f" (no certified value: {r['status']})"
    return f"{r['bound_s']:.2f} s, {r['peak_mb']:.0f} MB{what}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="5000,10000,20000,50000")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--baseline", help="checkout of the old code (run with PYTHONPATH=DIR)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--memory-gb", type=float, default=8.0)
    ap.add_argument("--ordering-lp-time-limit", type=float, default=None,
                    help="time_limit of the ordering-lp bound (certified at the stop)")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_bounds_scale.json"))
    ap.add_argument("--worker", nargs=2, metavar=("METHOD", "K"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]),
                                args.ordering_lp_time_limit)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = args.methods.split(",")
    rows = []
    for method in methods:
        for K in sizes:
            row = {"method": method, "K": K}
            kw = dict(timeout=args.timeout, memory_gb=args.memory_gb,
                      time_limit=args.ordering_lp_time_limit)
            row["new"] = run_child(method, K, pythonpath=None, **kw)
            if args.baseline:
                row["old"] = run_child(method, K, pythonpath=args.baseline, **kw)
                o, n = row["old"], row["new"]
                if "failed" not in o and "failed" not in n and \
                        o["value"] is not None and n["value"] is not None:
                    row["same_value"] = o["value_exact"] == n["value_exact"]
                    row["rel_diff"] = abs(o["value"] - n["value"]) / max(abs(o["value"]), 1e-300)
            rows.append(row)
            print(f"{method:12s} K={K:6d}  new: {fmt(row['new']):32s}"
                  + (f"  old: {fmt(row.get('old')):32s}" if args.baseline else ""),
                  flush=True)
    print()
    head = "| method | K | new: bound time, peak RSS |"
    if args.baseline:
        head += " old: bound time, peak RSS | old/new time | old/new memory | same value |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        line = f"| {r['method']} | {r['K']:,} | {fmt(r['new'])} |"
        if args.baseline:
            o, n = r.get("old"), r["new"]
            both = "same_value" in r
            line += (f" {fmt(o)} | "
                     + (f"{o['bound_s'] / n['bound_s']:.1f}x | {o['peak_mb'] / n['peak_mb']:.1f}x"
                        if both else "- | -")
                     + f" | {('yes' if r['same_value'] else 'rel %.1e' % r['rel_diff']) if both else '-'} |")
        print(line)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"machine": platform.platform(),
                                          "python": sys.version.split()[0], "rows": rows},
                                         indent=1) + "\n")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
