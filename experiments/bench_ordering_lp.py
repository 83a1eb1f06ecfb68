"""Benchmark: the ordering-LP lower bound on the whole Facebook trace.

Run:  python experiments/bench_ordering_lp.py [--trace ../shared/data/FB2010-1Hr-150-0.txt]
                                              [--out experiments/results/bench_ordering_lp.json]
                                              [--skip-cold]

Instance: the FB trace (526 coflows, 706,397 flows, 150 x 150 ports, unit capacities), every
release set to 0 (Sincronia's offline setting), read with ``coflowopt.formats.read_instance``.

What runs, all in this process (wall-clock seconds):

* ``ordering-lp``: the registered bound: cutting planes with the exact greedy oracle (a most
  violated parallel inequality per port, by sorting the LP completion times), warm start from
  the BSSI sets, rows added to the solved model so that each round is a warm dual simplex; then
  the exact certificate check of the final dual (Fractions / Python integers);
* baseline ``bssi-dual``: BSSI's dual bound (``coflowopt.orderings.bssi.bssi_dual_bound``), the
  combinatorial bound the LP improves on; ``isolated`` and ``port`` for scale;
* baseline ``cold``: the same cutting planes, but every round rebuilt and solved from scratch
  (no basis reuse), to show what the warm start buys (skip with ``--skip-cold``);
* ``full-start``: warm rounds, but starting from the full sets only (no BSSI sets);
* upper bounds: the verified greedy schedules in BSSI order and in ordering-LP order, so that
  ``UB / LB`` is a certified optimality gap.

Target from the task: the ordering-LP bound for the whole trace in under 60 s.  No timing is
asserted anywhere in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = Path(os.environ.get("COFLOWOPT_SHARED", HERE.parent.parent / "shared")) \
    / "data" / "FB2010-1Hr-150-0.txt"


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", default=str(DEFAULT_TRACE))
    ap.add_argument("--out", default=str(HERE / "results" / "bench_ordering_lp.json"))
    ap.add_argument("--skip-cold", action="store_true")
    args = ap.parse_args(argv)
    if not Path(args.trace).is_file():
        print(f"trace not found: {args.trace}", file=sys.stderr)
        return 2

    from coflowopt.api import run_schedule
    from coflowopt.bounds import isolated_bound, ordering_lp_bound, port_bound
    from coflowopt.formats import read_instance
    from coflowopt.formulations.highs import highs_version
    from coflowopt.formulations.ordering_lp import solve_ordering_lp
    from coflowopt.orderings.bssi import bssi_dual_bound

    t_read, inst = timed(lambda: read_instance(args.trace).with_releases(0.0))
    print(f"{args.trace}: {inst!r}, read in {t_read:.2f} s (releases set to 0)")
    rows = {}

    t, b = timed(lambda: bssi_dual_bound(inst))
    rows["bssi-dual"] = {"seconds": t, "value": float(b.value_exact)}
    t, r = timed(lambda: isolated_bound(inst))
    rows["isolated"] = {"seconds": t, "value": float(r.value)}
    t, r = timed(lambda: port_bound(inst))
    rows["port"] = {"seconds": t, "value": float(r.value), "port": r.extra["port"]}

    t, res = timed(lambda: ordering_lp_bound(inst))
    assert res.kind == "lower_bound" and res.certificate_status == "certified", res.message
    rows["ordering-lp"] = {"seconds": t, "value": float(res.value),
                           "value_exact": res.extra["value_exact"],
                           "lp_objective": res.extra["solver_objective"],
                           "rounds": res.extra["rounds"], "cuts": res.extra["cuts"],
                           "converged": res.extra["converged"],
                           "timings": res.timings,
                           "certificate": res.extra["certificate_check"]["details"]}

    t, s = timed(lambda: solve_ordering_lp(inst, initial="full"))
    rows["full-start"] = {"seconds": t, "lp_objective": s.objective, "rounds": s.rounds,
                          "cuts": len(s.cuts), "converged": s.converged}
    if not args.skip_cold:
        t, s = timed(lambda: solve_ordering_lp(inst, warm_start=False))
        rows["cold"] = {"seconds": t, "lp_objective": s.objective, "rounds": s.rounds,
                        "cuts": len(s.cuts), "converged": s.converged}

    ub = {}
    for order in ("bssi", "ordering-lp"):
        t, r = timed(lambda: run_schedule(inst, order, "greedy"))
        assert r.kind == "feasible", r.message
        ub[order + "+greedy"] = {"seconds": t, "value": float(r.value)}

    lb = rows["ordering-lp"]["value"]
    best_ub = min(v["value"] for v in ub.values())
    ratios = {
        "ordering-lp / bssi-dual (bound)": lb / rows["bssi-dual"]["value"],
        "ordering-lp / port (bound)": lb / rows["port"]["value"],
        "ordering-lp / isolated (bound)": lb / rows["isolated"]["value"],
        "best UB / ordering-lp (certified gap)": best_ub / lb,
        "best UB / bssi-dual (certified gap)": best_ub / rows["bssi-dual"]["value"],
        "time ordering-lp / bssi-dual": rows["ordering-lp"]["seconds"] /
        rows["bssi-dual"]["seconds"],
    }
    if "cold" in rows:
        ratios["time cold / warm (cutting planes)"] = rows["cold"]["seconds"] / \
            (res.timings["build"] + res.timings["solve"] + res.timings["separate"])
    ratios["time full-start / bssi-start"] = rows["full-start"]["seconds"] / \
        (res.timings["build"] + res.timings["solve"] + res.timings["separate"])

    print(f"\n{'method':14s} {'value':>16s} {'seconds':>9s}")
    for k, v in rows.items():
        val = v.get("value", v.get("lp_objective"))
        print(f"{k:14s} {val:16.6f} {v['seconds']:9.3f}")
    for k, v in ub.items():
        print(f"{k:14s} {v['value']:16.6f} {v['seconds']:9.3f}  (verified schedule)")
    print()
    for k, v in ratios.items():
        print(f"{k:42s} {v:.4f}")
    r = rows["ordering-lp"]
    print(f"\nordering-lp: {r['rounds']} rounds, {r['cuts']} cuts, converged {r['converged']}; "
          f"time " + ", ".join(f"{k} {x:.2f}s" for k, x in r["timings"].items()))

    out = {"trace": str(args.trace), "instance": inst.summary(), "read_seconds": t_read,
           "bounds": rows, "upper_bounds": ub, "ratios": ratios,
           "environment": {"python": sys.version.split()[0], "machine": platform.machine(),
                           "highs": highs_version(), "cpus": os.cpu_count()}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=2, default=float)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
