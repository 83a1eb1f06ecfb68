"""Benchmark of the exact solvers: how many coflows can be solved to proven optimality.

Run:  python experiments/bench_exact.py [--seeds 20] [--coflows 8] [--time-limit 60]
                                        [--ladder 8,10,12,14,16,18,20,22] [--ladder-seeds 5]
                                        [--naive-max 8] [--quick]
                                        [--reach "4x4:22,23,24;8x8:12,14,16"]
                                        [--reach-seeds 5] [--only-reach] [--variants new]
                                        [--every-k]
                                        [--clock cpu]
                                        [--out experiments/results/bench_exact.json]

What it measures (wall-clock seconds on this machine, all in this process):

1. ``target``: ``bnb`` (branch and bound over completion orders, coflowopt.exact) on ``--seeds``
   random instances with ``--coflows`` coflows on a 4x4 fabric, 1-4 flows per coflow, integer
   sizes 1-10 (``coflowopt.generators.uniform_random``, seeds 0..n-1); the median time and
   how many were proved optimal (target: 8 coflows in < 10 s median).  Baselines on the same
   instances: ``bnb`` with cheap bounds only (``node_lp=False``, no LP at inner nodes) and with
   nothing but the DP bound at the root and plain best-first search (``node_lp=False``,
   ``local_search=False``, ``dominance=False``); ratios are printed.
2. ``ladder``: for K = 8, 10, 12, ... (``--ladder``), ``--ladder-seeds`` instances each with a
   ``--time-limit`` (60 s): how many are proved optimal, median and maximum time; the largest K
   at which every instance is proved within the limit is reported.
3. ``naive``: the naive time-indexed MIP (slotted model, slot 1, provably safe horizon) built in
   Pyomo and solved by HiGHS through Pyomo (``coflowopt.exact.pyomo_slotted_mip``), on the same
   families for K = 2, 3, ... until it fails to prove optimality within the limit on some seed
   (or ``--naive-max``); side by side with ``bnb`` on the same instances.  The slotted model is
   not the fluid model: the naive MIP's optimum is an upper bound on the fluid optimum (equal on
   these integral instances only when an optimal fluid schedule has integral events).

0. ``reach`` (run first): the first search (:data:`OLD_SEARCH`) and the current one on the
   same instances, K by K (``--reach``), ``--reach-seeds`` seeds each, ``--time-limit`` each:
   the largest K at which every seed is proved optimal within the limit, for each search, on
   the 4x4 family above and on an 8x8 family (1-8 flows per coflow, integer sizes 1-10,
   integer weights 1-5, integer releases 0-5: CoflowLib's ``bs8`` weights+releases draw with
   K coflows).  ``--variants`` adds ``lns`` (:data:`LNS_SEARCH`), ``sub``
   (:data:`SUB_SEARCH`: the current search with the sub-instance bound and the LNS) and
   ``prev`` (:data:`PREV_SEARCH`: the defaults without the dive back-off), ``unlowered``
   (:data:`UNLOWERED_SEARCH`: the defaults without the lowered DP tables), ``split``
   (:data:`SPLIT_SEARCH`: the defaults with the split node LP), ``presub``
   (:data:`PRESUB_SEARCH`: without the sub-instance bound and the LNS).  Seed
   by seed the variants alternate, in one process; they must agree on every optimum two of
   them prove.  ``--clock cpu``: the limit counts the process's CPU seconds (a loaded
   host).  ``--every-k``: every K for every variant (else a variant stops at its first
   failing K).  ``--only-reach`` stops there (the JSON then holds only this part).

Figures are printed and written as JSON (with the machine and library versions).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


FAMILIES = {
    "4x4": "uniform_random(4 ports, K coflows, 1-4 flows per coflow, integer sizes 1-10, unit "
           "capacities, weights 1, releases 0), seeds 0..n-1",
    "8x8": "uniform_random(8 ports, K coflows, 1-8 flows per coflow, integer sizes 1-10, unit "
           "capacities, integer weights 1-5, integer releases 0-5), seeds 0..n-1 (CoflowLib's "
           "bs8 weights+releases draw at K coflows)",
}

#: The branch and bound as first written (issue 15, item 3, measures against it): DP tables
#: built with numpy up to 22 coflows, the certified seed bounds computed before the search,
#: dominance between identical coflows only (both use adjacent-swap local search only), node
#: LPs with the block uncharged, no dives, the queue ordered by the float bound, DP tables over
#: all subsets (not only the chain-prefix sets of the dominance chains).
OLD_SEARCH = {"dp_table_max": 22, "dp_kernel": False, "seed_after": False, "dominance": True,
              "block_charge": False, "dive_period": 0, "tie_digits": 0, "dp_chains": False,
              "lns": False, "dive_backoff": False, "sub_max": 0}
#: The current defaults.
NEW_SEARCH: dict = {}
#: The defaults before the dive back-off (``bnb(dive_backoff=False)``: a dive every
#: ``DIVE_PERIOD`` expanded nodes), measured against them
#: (experiments/results/bench_exact_dive_backoff_2026-11-28.md).
PREV_SEARCH: dict = {"dive_backoff": False}
#: The search with the sub-instance bound (``bnb(sub_max=SUB_MAX)``,
#: proofs/bnb-sub-bound.md) and the LNS (which finds the optimum it needs as incumbent): the
#: defaults since 2026-11-29.
SUB_SEARCH: dict = {"sub_max": 12, "lns": True}
#: The search with the incumbent's large-neighbourhood search (``bnb(lns=True)``; a default
#: since 2026-11-29).
LNS_SEARCH: dict = {"lns": True}
#: The defaults without the lowered DP tables (``bnb(dp_lowered_max=0)``: above the tables'
#: limit the fallback bound, the search before proofs/bnb-dpb-lowered.md), measured against
#: them (experiments/results/bench_exact_lowered_2026-11-28.md).
UNLOWERED_SEARCH: dict = {"dp_lowered_max": 0}
#: The current search with the split node LP (``bnb(split_max=16)``,
#: proofs/bnb-split-block.md), measured against the defaults
#: (experiments/results/bench_exact_coupling_2026-11-29.md).
SPLIT_SEARCH: dict = {"split_max": 16}
#: The defaults before the sub-instance bound and the LNS became defaults (``bnb(sub_max=0,
#: lns=False)``), measured against them
#: (experiments/results/bench_exact_sub_default_2026-11-29.md).
PRESUB_SEARCH: dict = {"sub_max": 0, "lns": False}
#: The sub-instance bound on nodes of up to 16 or 20 unplaced coflows (``bnb(sub_max=16)``,
#: ``bnb(sub_max=20)``) and up to 12 (the default before 2026-11-29 evening), measured against
#: each other (experiments/results/bench_exact_lookahead_2026-11-29.md).
SUB16_SEARCH: dict = {"sub_max": 16}
SUB20_SEARCH: dict = {"sub_max": 20}
SUB12_SEARCH: dict = {"sub_max": 12}
VARIANTS = {"old": OLD_SEARCH, "presub": PRESUB_SEARCH, "prev": PREV_SEARCH, "new": NEW_SEARCH,
            "lns": LNS_SEARCH, "sub": SUB_SEARCH, "unlowered": UNLOWERED_SEARCH,
            "split": SPLIT_SEARCH, "sub16": SUB16_SEARCH, "sub20": SUB20_SEARCH,
            "sub12": SUB12_SEARCH}


def family(K: int, seed: int, name: str = "4x4"):
    from coflowopt.generators import uniform_random
    if name == "8x8":
        return uniform_random(8, K, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                              releases=(0, 5), seed=seed)
    return uniform_random(4, K, flows_per_coflow=(1, 4), size=(1, 10), seed=seed)


class _CpuClock:
    """``time`` as the search sees it under ``--clock cpu``: its limit counts the process's
    CPU seconds (``perf_counter`` is ``process_time``), so that other jobs on a loaded host
    do not eat the limit."""
    perf_counter = staticmethod(time.process_time)
    process_time = staticmethod(time.process_time)
    monotonic = staticmethod(time.process_time)


#: the clock of the search's limit: "wall" (default) or "cpu" (``--clock``)
CLOCK = "wall"


def run_bnb(inst, time_limit, **kw) -> dict:
    from coflowopt.exact import bnb
    from coflowopt.exact import branch_and_bound as bb_mod
    t0, c0 = time.perf_counter(), time.process_time()
    if CLOCK == "cpu":
        bb_mod.time = _CpuClock
    try:
        res = bnb(inst, time_limit=time_limit, **kw)
    finally:
        bb_mod.time = time
    dt = time.perf_counter() - t0
    s = res.extra.get("search", {})
    return {"seconds": dt, "cpu_seconds": time.process_time() - c0, "clock": CLOCK,
            "kind": res.kind,
            "status": res.status,
            "proof": res.certificate_status, "value": float(res.value),
            "value_exact": str(res.value), "bound": float(res.bound),
            "nodes": s.get("nodes_expanded"), "lps": s.get("lps_solved"),
            "root_bound": s.get("root_bound")}


def _load() -> float | None:
    """The 1-minute load average (the other jobs on the host), None where not available."""
    try:
        import os
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def summarise(rows: list[dict], time_limit: float) -> dict:
    """``optimal``: proved optimal within the time limit (a search that completes just after
    the limit, e.g. while verifying, does not count); the limit on CPU seconds under
    ``--clock cpu``."""
    times = [r["cpu_seconds" if r.get("clock") == "cpu" else "seconds"] for r in rows]
    return {"n": len(rows),
            "optimal": sum(r["kind"] == "optimal" and t <= time_limit
                           for r, t in zip(rows, times)),
            "proved_exactly": sum(r["proof"] == "proved exactly" for r in rows),
            "median_seconds": statistics.median(times), "max_seconds": max(times),
            "mean_seconds": statistics.fmean(times)}


def bench_target(K, seeds, time_limit) -> dict:
    variants = {
        "bnb": {},
        "bnb_cheap_bounds": {"node_lp": False},
        "bnb_dp_root_only": {"node_lp": False, "local_search": False, "dominance": False},
    }
    out = {}
    for name, kw in variants.items():
        rows = []
        for s in range(seeds):
            r = run_bnb(family(K, s), time_limit, **kw)
            r["seed"] = s
            rows.append(r)
        out[name] = {"params": kw, "summary": summarise(rows, time_limit), "runs": rows}
        sm = out[name]["summary"]
        print(f"  {name:18s} K={K}: {sm['optimal']}/{sm['n']} optimal, median "
              f"{sm['median_seconds']:.3f} s, max {sm['max_seconds']:.3f} s", flush=True)
    # the variants must agree on every proved optimum
    for s in range(seeds):
        vals = {n: v["runs"][s]["value"] for n, v in out.items()
                if v["runs"][s]["kind"] == "optimal"}
        if len(set(round(v, 9) for v in vals.values())) > 1:
            raise SystemExit(f"variants disagree on seed {s}: {vals}")
    base = out["bnb"]["summary"]["median_seconds"]
    out["ratios"] = {f"{n}/bnb": v["summary"]["median_seconds"] / base
                     for n, v in out.items() if n != "bnb"}
    for k, v in out["ratios"].items():
        print(f"  ratio of medians {k}: {v:.2f}")
    return out


def bench_reach(name, ladder, seeds, time_limit, which=("old", "new"),
                every_k: bool = False) -> dict:
    """Old and new search (and ``lns``, ``sub``) on the same instances, K by K: the largest K
    at which every seed is proved optimal within the limit, for each.  A variant stops at its
    first failing K; the ladder stops when all have.  ``which``: the variants to run
    (``("new",)`` with ``PYTHONPATH`` at a worktree of another revision measures that
    revision's search with the same script).  ``every_k``: run every K of the ladder, every
    variant (``--every-k``), not only up to each variant's first failing K."""
    out = {"family": FAMILIES[name], "time_limit": time_limit, "seeds": seeds, "rows": {}}
    variants = {v: kw for v, kw in VARIANTS.items() if v in which}
    largest = {v: None for v in variants}
    alive = set(variants)
    for K in ladder:
        row = {}
        # seed by seed, the variants alternating (the host's speed drifts during a ladder)
        runs: dict = {v: [] for v in variants if v in alive or every_k}
        for s in range(seeds):
            for v in runs:
                r = run_bnb(family(K, s, name), time_limit, **variants[v])
                r["seed"] = s
                r["load1"] = _load()
                runs[v].append(r)
                print(f"    {name} K={K} {v} seed {s}: {r['kind']} {r['status']} "
                      f"{r['value']:.6g} (bound {r['bound']:.6g}) {r['seconds']:.2f} s "
                      f"({r['cpu_seconds']:.2f} s CPU), {r['nodes']} nodes, load "
                      f"{r['load1']}", flush=True)
        for v, rows in runs.items():
            sm = summarise(rows, time_limit)
            row[v] = {"summary": sm, "runs": rows}
            print(f"  {name} K={K} {v}: {sm['optimal']}/{sm['n']} proved optimal within "
                  f"{time_limit:g} s, median {sm['median_seconds']:.2f} s, max "
                  f"{sm['max_seconds']:.2f} s", flush=True)
            if sm["optimal"] == sm["n"] and v in alive:
                largest[v] = K
            else:
                alive.discard(v)
        # every two variants that proved a seed must agree
        for a_rows in zip(*(row[v]["runs"] for v in row)):
            vals = {r["value"] for r in a_rows if r["kind"] == "optimal"}
            if vals and max(vals) - min(vals) > 1e-9 * max(vals):
                raise SystemExit(f"variants disagree on {name} K={K} seed "
                                 f"{a_rows[0]['seed']}: {sorted(vals)}")
        out["rows"][K] = row
        if not alive and not every_k:
            break
    out["largest_K_all_proved"] = largest
    return out


def bench_ladder(ladder, seeds, time_limit) -> dict:
    out = {"time_limit": time_limit, "rows": {}}
    largest = None
    for K in ladder:
        rows = []
        for s in range(seeds):
            r = run_bnb(family(K, s), time_limit)
            r["seed"] = s
            rows.append(r)
            print(f"    K={K} seed {s}: {r['kind']} {r['status']} {r['value']:.6g} "
                  f"{r['seconds']:.2f} s, {r['nodes']} nodes", flush=True)
        sm = summarise(rows, time_limit)
        out["rows"][K] = {"summary": sm, "runs": rows}
        print(f"  ladder K={K}: {sm['optimal']}/{sm['n']} proved optimal within "
              f"{time_limit:g} s ({sm['proved_exactly']} exactly), median "
              f"{sm['median_seconds']:.2f} s, max {sm['max_seconds']:.2f} s", flush=True)
        if sm["optimal"] == sm["n"]:
            largest = K
        else:
            break
    out["largest_K_all_proved"] = largest
    return out


def bench_naive(time_limit, naive_max, seeds) -> dict:
    from coflowopt.exact import pyomo_slotted_mip, slotted_mip
    out = {"rows": {}, "time_limit": time_limit}
    largest = None
    for K in range(2, naive_max + 1):
        rows = []
        for s in range(seeds):
            inst = family(K, s)
            nv = pyomo_slotted_mip(inst, delta=1.0, time_limit=time_limit)
            t0 = time.perf_counter()
            mx = slotted_mip(inst, delta=1.0, time_limit=time_limit)
            mx_t = time.perf_counter() - t0
            b = run_bnb(inst, time_limit)
            rows.append({"seed": s, "naive_status": nv["status"],
                         "naive_seconds": nv["build_seconds"] + nv["solve_seconds"],
                         "naive_objective": nv["objective"], "naive_bound": nv["bound"],
                         "slots": nv["slots"], "matrix_mip_status": mx.status,
                         "matrix_mip_seconds": mx_t,
                         "matrix_mip_objective": mx.extra.get("slotted_value"),
                         "bnb_seconds": b["seconds"], "bnb_value": b["value"],
                         "bnb_kind": b["kind"]})
            print(f"    K={K} seed {s}: naive pyomo MIP {nv['status']} "
                  f"{rows[-1]['naive_seconds']:.2f} s (obj {nv['objective']}, bound "
                  f"{nv['bound']}, {nv['slots']} slots); matrix MIP {mx.status} "
                  f"{mx_t:.2f} s; bnb {b['kind']} {b['value']:.6g} {b['seconds']:.3f} s",
                  flush=True)
        solved = sum(r["naive_status"] == "optimal" and r["naive_seconds"] <= time_limit
                     for r in rows)
        out["rows"][K] = {"naive_optimal": solved, "n": len(rows), "runs": rows,
                          "naive_median_seconds": statistics.median(r["naive_seconds"]
                                                                    for r in rows),
                          "bnb_median_seconds": statistics.median(r["bnb_seconds"]
                                                                  for r in rows)}
        if solved == len(rows):
            largest = K
        else:
            break
    out["largest_K_all_proved"] = largest
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--coflows", type=int, default=8)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--ladder", default="8,10,12,14,16,18,20,22")
    ap.add_argument("--ladder-seeds", type=int, default=5)
    ap.add_argument("--naive-max", type=int, default=8)
    ap.add_argument("--naive-seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="5 seeds, ladder 8,10,12, naive up to 4 coflows (a smoke run)")
    ap.add_argument("--reach", default="4x4:20,22,24,26,28;8x8:10,12,14,16,18,20,22",
                    help="old-versus-new reach ladders, FAMILY:K,K,...;FAMILY:... "
                         "(families 4x4 and 8x8; empty: skip)")
    ap.add_argument("--reach-seeds", type=int, default=5)
    ap.add_argument("--variants", default="old,new",
                    help="reach variants to run, comma-separated: old (OLD_SEARCH), prev (PREV_SEARCH: the "
                         "defaults without the dive back-off), new (the "
                         "defaults), lns (LNS_SEARCH: with the incumbent's LNS), sub "
                         "(SUB_SEARCH: with sub_max and the LNS), unlowered "
                         "(UNLOWERED_SEARCH: without the lowered DP tables), split "
                         "(SPLIT_SEARCH: with the split node LP), presub (PRESUB_SEARCH: "
                         "without the sub-instance bound and the LNS), sub16 / sub20 / "
                         "sub12 (SUB16_SEARCH / ...: sub_max=16 / 20 / 12)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="what the reach ladders' limit counts: wall seconds (default) or the "
                         "process's CPU seconds (a loaded host)")
    ap.add_argument("--every-k", action="store_true",
                    help="run every K of the reach ladders for every variant, not only up to "
                         "its first failing K")
    ap.add_argument("--only-reach", action="store_true",
                    help="run only the old-versus-new reach ladders")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_exact.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds, args.ladder, args.ladder_seeds = 5, "8,10,12", 2
        args.naive_max, args.naive_seeds = 4, 2
        args.reach, args.reach_seeds = "4x4:10,12;8x8:8,10", 2
    global CLOCK
    CLOCK = args.clock
    import coflowopt
    from coflowopt.exact import bnb
    from coflowopt.formulations.highs import highs_version
    bnb(family(3, 0), time_limit=10)          # untimed warm-up: numba compiles the greedy kernel
    t0 = time.perf_counter()
    reach = {}
    for part in filter(None, args.reach.split(";")):
        name, ks = part.split(":")
        print(f"reach ({name}): old and new search, {args.reach_seeds} seeds, "
              f"{args.time_limit:g} s each", flush=True)
        reach[name] = bench_reach(name, [int(k) for k in ks.split(",")], args.reach_seeds,
                                  args.time_limit, tuple(args.variants.split(",")),
                                  every_k=args.every_k)
        print(f"  {name}: largest K with every seed proved: "
              f"{reach[name]['largest_K_all_proved']}", flush=True)
    if args.only_reach:
        doc = {"benchmark": "bench_exact (reach only)",
               "machine": {"python": platform.python_version(),
                           "platform": platform.platform()},
               "versions": {"coflowopt": coflowopt.__version__, "highs": highs_version()},
               "old_search": OLD_SEARCH, "variants": VARIANTS, "clock": CLOCK,
               "reach": reach,
               "coflowopt_path": str(Path(coflowopt.__file__).resolve().parent),
               "headline": {f"largest_K_{n}_{v}": r["largest_K_all_proved"][v]
                            for n, r in reach.items() for v in r["largest_K_all_proved"]},
               "total_seconds": time.perf_counter() - t0}
        return write_doc(doc, args.out)
    print(f"target: {args.coflows} coflows, 4x4, {args.seeds} seeds", flush=True)
    target = bench_target(args.coflows, args.seeds, args.time_limit)
    print("ladder: largest K proved within the time limit", flush=True)
    ladder = bench_ladder([int(k) for k in args.ladder.split(",")], args.ladder_seeds,
                          args.time_limit)
    print(f"  largest K with every seed proved optimal: {ladder['largest_K_all_proved']}")
    print("naive time-indexed MIP through Pyomo (slotted model), side by side", flush=True)
    naive = bench_naive(args.time_limit, args.naive_max, args.naive_seeds)
    print(f"  naive Pyomo MIP: largest K with every seed proved: "
          f"{naive['largest_K_all_proved']}; bnb: {ladder['largest_K_all_proved']}")
    doc = {
        "benchmark": "bench_exact",
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": platform.processor()},
        "versions": {"coflowopt": coflowopt.__version__, "highs": highs_version()},
        "family": "uniform_random(4 ports, K coflows, 1-4 flows per coflow, integer sizes "
                  "1-10, unit capacities, weights 1, releases 0), seeds 0..n-1",
        "target": target, "ladder": ladder, "naive": naive, "reach": reach,
        "old_search": OLD_SEARCH,
        "headline": {
            "median_seconds_K%d" % args.coflows: target["bnb"]["summary"]["median_seconds"],
            "proved_K%d" % args.coflows: f"{target['bnb']['summary']['optimal']}/"
                                         f"{target['bnb']['summary']['n']}",
            "largest_K_bnb_within_limit": ladder["largest_K_all_proved"],
            "largest_K_naive_pyomo_mip_within_limit": naive["largest_K_all_proved"],
            **{f"largest_K_{n}_{v}": r["largest_K_all_proved"][v]
               for n, r in reach.items() for v in r["largest_K_all_proved"]},
            "time_limit": args.time_limit},
        "total_seconds": time.perf_counter() - t0,
    }
    return write_doc(doc, args.out)


def write_doc(doc: dict, path) -> int:
    """Write the JSON document, print its headline; exit status 0."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print(json.dumps(doc["headline"], indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
