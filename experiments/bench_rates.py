"""Benchmark the rate allocations and flow-level policies on the Facebook trace.

Times (wall and CPU), peak memory and schedule sizes (a child killed by the OOM killer is
recorded as failed) of

* ``sebf+greedy``   -- the baseline (Sincronia Algorithm 2, compiled kernel), same order;
* ``sebf+madd``     -- iterative MADD, backfilling ``varys`` (default), ``coflowsim``, none;
* ``varys``         -- the offline Varys policy (SEBF re-evaluated at coflow events);
* ``priority``      -- per-flow SRTF;
* ``fair``          -- per-flow max-min fairness;
* ``wss``           -- Orchestra's WSS (``--wss``),
* ``fair(count-only)``, ``wss(count-only)`` -- the same kernels counting pieces instead of
  storing them (the time of schedules too large to hold),

for the trace's releases and for all releases at 0.  Every run happens in a fresh process
(``multiprocessing``, spawn) so that its peak resident memory (``ru_maxrss``) is its own; a
tiny warm-up call first loads the compiled kernels, so the times exclude compilation.  Speed is
reported as a ratio to ``sebf+greedy`` measured the same way.  Schedules up to
``--verify-max-pieces`` pieces are checked by the independent verifier (objective and average
CCT are reported only for verified schedules).

Usage::

    python experiments/bench_rates.py [--trace PATH] [--out FILE] [--wss] [--coflowsim-zero]
                                      [--only NAME ...] [--releases {both,trace,zero}]

``--coflowsim-zero`` adds MADD with the coflowsim backfilling on the all-at-0 trace: about
1.7e8 pieces and ~17 GB of memory, so it is off by default.  A run whose expected memory
(:data:`MEMORY_GB`) exceeds what the machine has available is skipped and recorded as such.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = REPO.parent / "shared" / "data" / "FB2010-1Hr-150-0.txt"


def _order(instance):
    """SEBF (ascending isolated Gamma = rho, ties by index)."""
    try:
        from coflowopt.orderings import sebf
        return sebf(instance)
    except ImportError:  # the ordering package may not have it yet
        import numpy as np
        return np.argsort(instance.rho, kind="stable")


def _algorithms():
    from coflowopt.policies import fair, priority, varys, wss
    from coflowopt.rates import greedy, madd
    return {
        "sebf+greedy": lambda inst, o: greedy(inst, o),
        "sebf+madd": lambda inst, o: madd(inst, o, backfill="varys"),
        "sebf+madd(coflowsim)": lambda inst, o: madd(inst, o, backfill="coflowsim"),
        "sebf+madd(none)": lambda inst, o: madd(inst, o, backfill=None),
        "varys": lambda inst, o: varys(inst),
        "priority": lambda inst, o: priority(inst),
        "fair": lambda inst, o: fair(inst),
        "wss": lambda inst, o: wss(inst),
        # the same kernels counting the pieces instead of storing them: the time of schedules
        # too large to hold on a small machine (no schedule, so nothing to verify)
        "fair(count-only)": lambda inst, o: _count_only(inst, "unit"),
        "wss(count-only)": lambda inst, o: _count_only(inst, "size"),
    }


def _count_only(instance, weights):
    from coflowopt.policies.flow_level import _maxmin_kernel
    _, stats, cc = _maxmin_kernel(instance, weights, store=False)
    return {**stats, "unverified_average_cct": float(np.mean(cc - instance.release))}


def _run_one(args):
    """Child process: load the trace, warm up, run one algorithm, report."""
    name, trace, zero, verify_max = args
    from coflowopt.formats import read_instance
    from coflowopt.verify import verify_schedule

    inst = read_instance(trace)
    if zero:
        inst = inst.with_releases(0.0)
    order = _order(inst)
    algo = _algorithms()[name]
    tiny = inst.select_coflows(np.arange(3))
    algo(tiny, np.arange(3))                       # load / compile the kernels
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t_wall, t_cpu = time.perf_counter(), time.process_time()
    sched = algo(inst, order)
    wall, cpu = time.perf_counter() - t_wall, time.process_time() - t_cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"algorithm": name, "releases": "zero" if zero else "trace",
           "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
           "peak_rss_gb": round(rss / 2 ** 20, 3),          # ru_maxrss is in KiB on Linux
           "rss_before_gb": round(rss0 / 2 ** 20, 3)}
    if isinstance(sched, dict):                             # a count-only run
        out.update(pieces=sched.pop("pieces"), meta=sched, verified=None,
                   verify_note="count-only run: no schedule")
        return out
    out["pieces"] = int(sched.num_pieces)
    out["meta"] = {k: v for k, v in sched.meta.items()
                   if k in ("events", "policy_calls", "level_changes", "preemptions",
                            "max_active_pairs", "backfill")}
    if sched.num_pieces <= verify_max:
        t0 = time.perf_counter()
        rep = verify_schedule(inst, sched)
        out["verified"] = bool(rep.ok)
        out["verify_s"] = round(time.perf_counter() - t0, 3)
        if rep.ok:
            out["weighted_completion_time"] = float(rep.weighted_completion_time)
            out["average_cct"] = float(rep.average_cct)
    else:
        out["verified"] = None
        out["verify_note"] = (f"{sched.num_pieces} pieces > --verify-max-pieces {verify_max}: "
                              "too large for the verifier's memory here; the slow tests "
                              "verify the policy on the trace's first 100 coflows")
    return out


def _child(job, queue):
    queue.put(_run_one(job))


def _in_child(ctx, job):
    """Run one job in a fresh process; a child killed (e.g. by the OOM killer) is reported."""
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(job, queue))
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        return {"algorithm": job[0], "releases": "zero" if job[2] else "trace",
                "failed": f"child process exit code {proc.exitcode} (negative: killed by that "
                          "signal; -9 is typically the out-of-memory killer)"}
    return queue.get(timeout=60)


#: Rough peak memory (GB) of a run without verification, measured on this trace; a run is
#: skipped (and recorded as skipped) when the machine has less available memory than this
#: plus a margin, so that the benchmark never pushes a shared machine into swapping or the
#: OOM killer.  fair/wss: the schedule (32 bytes a piece) is copied once by ``Schedule``.
MEMORY_GB = {"fair": 13.0, "wss": 5.0, "sebf+madd(coflowsim)": 3.0}
#: ... with every release at 0 (more pieces)
MEMORY_GB_ZERO = {"fair": 17.0, "wss": 7.0, "sebf+madd(coflowsim)": 18.0}


def _available_gb() -> float:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2 ** 20
    except OSError:
        pass
    return float("inf")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--out", type=Path, default=REPO / "experiments" / "results" /
                    "bench_rates.json")
    ap.add_argument("--wss", action="store_true", help="also run WSS")
    ap.add_argument("--coflowsim-zero", action="store_true",
                    help="also run MADD + coflowsim backfilling with all releases at 0")
    ap.add_argument("--only", nargs="*", help="run only these algorithms (plus the baseline)")
    ap.add_argument("--releases", choices=("both", "trace", "zero"), default="both")
    ap.add_argument("--verify-max-pieces", type=int, default=15_000_000,
                    help="verify schedules up to this many pieces (the float verifier needs "
                         "about 0.3 GB per million pieces)")
    ap.add_argument("--memory-margin-gb", type=float, default=2.0)
    args = ap.parse_args(argv)
    if not args.trace.is_file():
        print(f"trace not found: {args.trace}", file=sys.stderr)
        return 2
    names = ["sebf+greedy", "sebf+madd", "sebf+madd(none)", "sebf+madd(coflowsim)", "varys",
             "priority", "fair", "fair(count-only)"] + \
        (["wss", "wss(count-only)"] if args.wss else [])
    if args.only:
        names = ["sebf+greedy"] + [n for n in args.only if n != "sebf+greedy"]
    jobs = []
    variants = {"both": (False, True), "trace": (False,), "zero": (True,)}[args.releases]
    for zero in variants:
        for n in names:
            if n == "sebf+madd(coflowsim)" and zero and not args.coflowsim_zero:
                continue
            jobs.append((n, str(args.trace), zero, args.verify_max_pieces))
    ctx = mp.get_context("spawn")
    results = []
    for job in jobs:                  # one at a time: the figures must not share the cores
        need = (MEMORY_GB_ZERO if job[2] else MEMORY_GB).get(job[0], 1.5) + \
            args.memory_margin_gb
        if _available_gb() < need:
            r = {"algorithm": job[0], "releases": "zero" if job[2] else "trace",
                 "skipped": f"needs about {need:.1f} GB, {_available_gb():.1f} GB available"}
        else:
            r = _in_child(ctx, job)
        results.append(r)
        print(json.dumps(r), flush=True)
    base = {r["releases"]: r for r in results if r["algorithm"] == "sebf+greedy"}
    for r in results:
        b = base[r["releases"]]
        if "cpu_s" not in r or "cpu_s" not in b:
            continue
        r["cpu_ratio_to_greedy"] = round(r["cpu_s"] / b["cpu_s"], 3) if b["cpu_s"] else None
        r["wall_ratio_to_greedy"] = round(r["wall_s"] / b["wall_s"], 3) if b["wall_s"] else None
    import numpy
    import numba
    doc = {"benchmark": "bench_rates", "trace": str(args.trace),
           "machine": {"python": platform.python_version(), "numpy": numpy.__version__,
                       "numba": numba.__version__, "cpus": mp.cpu_count(),
                       "platform": platform.platform()},
           "notes": "times exclude compilation (a warm-up call first); peak_rss_gb is the "
                    "child process's peak resident memory, including the trace and the "
                    "schedule; ratios are against sebf+greedy run the same way",
           "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
