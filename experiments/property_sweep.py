"""The invariant ``lower bound <= optimum <= every feasible schedule`` on thousands of instances.

The hypothesis tests in ``tests/test_bounds_dominance.py`` and ``tests/test_exact_properties.py``
run a few dozen examples each so that the default test run stays short; this sweep runs the same
checks on thousands of seeded small random instances (with and without release dates,
heterogeneous capacities and weights) and counts every check, so that "it held on N instances"
is a measured statement.  Per instance:

* every registered bound's certified value (``isolated``, ``port``, ``bssi-dual``,
  ``ordering-lp``, ``interval-lp``, ``lp-ov``, and ``time-indexed-lp`` on a share of them)
  <= the exact optimum (``bnb``, verified in exact arithmetic, proved exactly);
* the optimum <= every verified schedule of a set of algorithms (orderings x greedy/MADD,
  Varys, QSZ, per-flow fairness);
* the dominance relations that ``proofs/bound_dominance.md`` proves:
  isolated <= port <= ordering-LP, bssi-dual <= ordering-LP, and the time-indexed LP's relation
  to the ordering LP.

Run: ``python experiments/property_sweep.py [--instances 3000] [--workers 2]``; writes
``experiments/results/property_sweep.json``.  ``tests/test_property_sweep.py`` runs
:func:`check_instance` on a few instances so that this script stays in step with the code.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import platform
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from coflowopt.api import run_schedule  # noqa: E402
from coflowopt.bounds import (bssi_dual, interval_lp_bound, isolated_bound,  # noqa: E402
                              lp_ov_bound, ordering_lp_bound, port_bound, time_indexed_lp_bound)
from coflowopt.exact import bnb  # noqa: E402
from coflowopt.testing import random_instance  # noqa: E402

#: Relative slack for float comparisons: certified values are exact rationals slightly below
#: the solver's optimum, schedules are verified in float mode.
SLACK = 1e-6

SCHEDULES = [("fifo", "greedy"), ("bssi", "greedy"), ("sebf", "greedy"), ("sebf", "madd"),
             ("lp-ov", "greedy"), ("random", "greedy"), ("bssi", "bvn")]
POLICIES = ["varys", "qsz", "fair", "sincronia-online"]


def _le(a: float, b: float) -> bool:
    return a <= b * (1 + SLACK) + SLACK


def make_instance(seed: int):
    """Seeded instance; the seed also picks the switches (releases, weights, capacities)."""
    rng = np.random.default_rng(seed)
    releases, weights, hetero = bool(seed % 2), bool((seed // 2) % 2), bool((seed // 4) % 2)
    inst = random_instance(rng, max_ports=3, max_coflows=5, max_flows=3, releases=releases,
                           weights=weights, heterogeneous=hetero,
                           name=f"sweep-{seed}")
    return inst, {"releases": releases, "weights": weights, "heterogeneous": hetero}


def check_instance(seed: int, time_indexed: bool | None = None) -> dict:
    """Run every check on instance ``seed``; return counts of checks and any violation."""
    inst, switches = make_instance(seed)
    if time_indexed is None:
        time_indexed = seed % 5 == 0      # the slowest bound on a fifth of the instances
    out = {"seed": seed, **switches, "coflows": inst.num_coflows, "flows": inst.num_flows,
           "checks": 0, "violations": []}

    def check(ok: bool, what: str) -> None:
        out["checks"] += 1
        if not ok:
            out["violations"].append(what)

    opt = bnb(inst, time_limit=60)
    if opt.kind != "optimal":
        out["violations"].append(f"bnb did not prove an optimum: {opt.status} {opt.message}")
        return out
    v_opt = float(opt.value)
    out["opt"] = v_opt
    bounds = {"isolated": isolated_bound(inst), "port": port_bound(inst),
              "bssi-dual": bssi_dual(inst), "ordering-lp": ordering_lp_bound(inst),
              "ordering-lp-norel": ordering_lp_bound(inst, release_cuts=False),
              "interval-lp": interval_lp_bound(inst), "lp-ov": lp_ov_bound(inst)}
    if time_indexed:
        bounds["time-indexed-lp"] = time_indexed_lp_bound(inst)
    vals = {}
    for name, res in bounds.items():
        check(res.kind == "lower_bound" and res.certificate_status == "certified",
              f"{name}: kind {res.kind}, certificate {res.certificate_status}")
        vals[name] = float(res.value)
        check(_le(vals[name], v_opt), f"{name} {vals[name]!r} > OPT {v_opt!r}")
    out["bounds"] = vals
    check(_le(vals["isolated"], vals["port"]), "isolated > port")
    check(_le(vals["port"], vals["ordering-lp-norel"]), "port > ordering-lp (no release rows)")
    check(_le(vals["bssi-dual"], vals["ordering-lp-norel"]), "bssi-dual > ordering-lp")
    check(_le(vals["ordering-lp-norel"], vals["ordering-lp"]), "ordering-lp rows not monotone")
    check(_le(vals["ordering-lp-norel"], vals["lp-ov"]), "ordering-lp > lp-ov")
    if "time-indexed-lp" in vals:
        delta = bounds["time-indexed-lp"].params["slot"]
        check(_le(vals["ordering-lp-norel"],
                  vals["time-indexed-lp"] + delta / 2 * float(np.sum(inst.weight))),
              "ordering-lp > time-indexed-lp + delta/2 sum w")
    costs = {}
    uniform = np.ptp(np.concatenate([inst.ingress_capacity, inst.egress_capacity])) == 0
    for order, rates in SCHEDULES:
        if rates == "bvn" and not uniform:
            continue          # BvN refuses heterogeneous capacities (NotSupportedError)
        r = run_schedule(inst, order, rates, order_params={"seed": seed}
                         if order == "random" else None)
        costs[f"{order}+{rates}"] = r
    for pol in POLICIES:
        costs[pol] = run_schedule(inst, policy=pol)
    out["schedules"] = {}
    for label, r in costs.items():
        check(r.kind == "feasible", f"{label}: kind {r.kind} ({r.message})")
        out["schedules"][label] = float(r.value)
        check(_le(v_opt, float(r.value)), f"OPT {v_opt!r} > {label} {float(r.value)!r}")
    return out


def _worker(seed: int) -> dict:
    try:
        return check_instance(seed)
    except Exception as exc:  # a crash is a finding, recorded with the seed
        return {"seed": seed, "checks": 0, **make_instance(seed)[1],
                "violations": [f"error: {type(exc).__name__}: {exc}"]}


def sweep(n: int, workers: int = 2, first_seed: int = 0) -> dict:
    seeds = range(first_seed, first_seed + n)
    t0 = time.perf_counter()
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            rows = pool.map(_worker, seeds, chunksize=8)
    else:
        rows = [_worker(s) for s in seeds]
    wall = time.perf_counter() - t0
    bad = [r for r in rows if r["violations"]]
    ratios = Counter()
    for r in rows:
        if "opt" in r and r["opt"] > 0:
            best_lb = max(r["bounds"].values())
            ratios["opt_over_best_lb_max"] = max(ratios["opt_over_best_lb_max"],
                                                 r["opt"] / best_lb)
    return {
        "instances": n, "first_seed": first_seed, "workers": workers,
        "wall_seconds": round(wall, 1),
        "checks": int(sum(r["checks"] for r in rows)),
        "with_releases": sum(bool(r.get("releases")) for r in rows),
        "with_weights": sum(bool(r.get("weights")) for r in rows),
        "heterogeneous": sum(bool(r.get("heterogeneous")) for r in rows),
        "with_time_indexed_lp": sum("time-indexed-lp" in r.get("bounds", {}) for r in rows),
        "violations": [{"seed": r["seed"], "violations": r["violations"]} for r in bad],
        "largest_opt_over_best_bound": ratios["opt_over_best_lb_max"],
        "max_ratio_to_opt": {label: max((r["schedules"][label] / r["opt"] for r in rows
                                         if label in r.get("schedules", {}) and r["opt"] > 0),
                                        default=math.nan)
                             for label in [f"{o}+{q}" for o, q in SCHEDULES] + POLICIES},
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "experiments" / "results" /
                                         "property_sweep.json"))
    a = ap.parse_args(argv)
    res = sweep(a.instances, a.workers, a.first_seed)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"{res['instances']} instances ({res['with_releases']} with releases, "
          f"{res['with_weights']} weighted, {res['heterogeneous']} heterogeneous), "
          f"{res['checks']} checks, {len(res['violations'])} instances with a violation, "
          f"{res['wall_seconds']} s on {res['workers']} workers")
    print(f"largest OPT / best certified bound: {res['largest_opt_over_best_bound']:.4f}")
    for label, v in res["max_ratio_to_opt"].items():
        print(f"  max {label}/OPT = {v:.4f}")
    for v in res["violations"][:20]:
        print("VIOLATION", v)
    return 1 if res["violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
