"""Benchmark of the integral model's exact method: how many coflows it proves optimal in 60 s.

Run:  python experiments/bench_integral_exact.py [--ladder 8,12,16,20,24] [--seeds 4]
                                                 [--time-limit 60] [--mip-alone 4,6,8]
                                                 [--mip-alone-seeds 3] [--quick]
                                                 [--out experiments/results/bench_integral_exact.json]

What it measures (wall-clock seconds, one process, one sitting):

1. ``ladder``: for K = 8, 12, 16, ... (``--ladder``), ``--seeds`` instances of the issue's
   family -- ``coflowopt.generators.uniform_random(4, K, flows_per_coflow=(1, 4), size=(1,
   5), seed=s)``: a 4x4 big switch, unit capacities, weights 1, releases 0, integer sizes 1-5
   -- each solved by

   * ``integral-mip`` (``coflowopt.exact.integral_mip``, slot 1, its defaults: greedy
     incumbents, the fluid ``bnb`` bound on at most half the time limit rounded up to the
     objective lattice, the fluid completion slots as deadlines of a feasibility MIP, then the
     time-indexed MIP over the safe horizon), and
   * the fluid branch and bound ``bnb`` (``coflowopt.exact.bnb``) on the same instance,

   each with ``--time-limit`` (60 s).  Reported per K: how many each proves optimal within
   the limit, how the integral optimum was proved (exactly by a certified bound, or by
   HiGHS's floating-point MIP bound), median and maximum seconds, and integral OPT / fluid OPT
   (both proved).  The largest K at which every seed is proved is the headline (target 12).
2. ``mip_alone``: the same family at small K (``--mip-alone``) with ``fluid_bound="none"``:
   the time-indexed MIP without the fluid bound, to show what the MIP itself proves.

Every integral incumbent is checked with ``coflowopt.slotted.verify_slotted`` (exact
integers) before it is counted.  Results go to the JSON file and a Markdown table next to it.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent


def family(K: int, seed: int):
    from coflowopt.generators import uniform_random
    return uniform_random(4, K, flows_per_coflow=(1, 4), size=(1, 5), seed=seed)


def run_integral(inst, time_limit, **kw) -> dict:
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.slotted import verify_slotted
    t0 = time.perf_counter()
    res = integral_mip(inst, time_limit=time_limit, **kw)
    dt = time.perf_counter() - t0
    rep = verify_slotted(inst, res.schedule)
    if not rep.ok or rep.weighted_completion_time != Fraction(res.value):
        raise SystemExit(f"integral incumbent does not verify: {rep.summary()}")
    ex = res.extra
    return {"seconds": dt, "kind": res.kind, "status": res.status,
            "proof": res.certificate_status, "value": float(res.value),
            "value_exact": str(res.value), "bound": float(res.bound),
            "bound_source": (res.certificate or {}).get("bound_source"),
            "incumbent_source": ex.get("incumbent_source"), "slots": ex.get("slots"),
            "mip_status": ex.get("mip_status", "not_run"),
            "fluid_bound": ex.get("fluid_bound"),
            "timings": {k: round(v, 4) for k, v in res.timings.items()}}


def run_bnb(inst, time_limit) -> dict:
    from coflowopt.exact import bnb
    t0 = time.perf_counter()
    res = bnb(inst, time_limit=time_limit)
    dt = time.perf_counter() - t0
    return {"seconds": dt, "kind": res.kind, "status": res.status,
            "proof": res.certificate_status,
            "value": None if res.value is None else float(res.value),
            "value_exact": None if res.value is None else str(res.value),
            "bound": None if res.bound is None else float(res.bound)}


def summarise(rows: list[dict], time_limit: float) -> dict:
    """``optimal``: proved optimal within the time limit."""
    times = [r["seconds"] for r in rows]
    return {"n": len(rows),
            "optimal": sum(r["kind"] == "optimal" and r["seconds"] <= time_limit
                           for r in rows),
            "proved_exactly": sum(r["proof"] == "proved exactly" for r in rows),
            "median_seconds": statistics.median(times), "max_seconds": max(times)}


def bench_ladder(ladder, seeds, time_limit) -> dict:
    out = {"time_limit": time_limit, "rows": {}}
    largest = {"integral-mip": None, "bnb": None}
    going = {"integral-mip": True, "bnb": True}
    for K in ladder:
        ints, flu = [], []
        for s in range(seeds):
            inst = family(K, s)
            a = run_integral(inst, time_limit)
            b = run_bnb(inst, time_limit)
            a["seed"] = b["seed"] = s
            if a["kind"] == "optimal" and b["kind"] == "optimal":
                a["integral_over_fluid"] = float(Fraction(a["value_exact"]) /
                                                 Fraction(b["value_exact"]))
                if Fraction(a["value_exact"]) < Fraction(b["value_exact"]) * (1 - Fraction(
                        1, 10 ** 9)):
                    raise SystemExit(f"K={K} seed {s}: integral OPT {a['value']} < fluid OPT "
                                     f"{b['value']}")
            ints.append(a)
            flu.append(b)
            print(f"    K={K} seed {s}: integral-mip {a['kind']} ({a['proof']}) {a['value']:.6g}"
                  f" in {a['seconds']:.2f} s [incumbent: {a['incumbent_source']}; MIP "
                  f"{a['mip_status']}]; bnb {b['kind']} {b['value']} in {b['seconds']:.2f} s",
                  flush=True)
        si, sf = summarise(ints, time_limit), summarise(flu, time_limit)
        ratios = [r["integral_over_fluid"] for r in ints if "integral_over_fluid" in r]
        si["proved_by_solver"] = sum(r["proof"].startswith("proved by HiGHS") for r in ints
                                     if r["kind"] == "optimal")
        si["mip_used"] = sum(r["mip_status"] != "not_run" for r in ints)
        row = {"integral-mip": {"summary": si, "runs": ints},
               "bnb": {"summary": sf, "runs": flu},
               "integral_over_fluid": {"n": len(ratios),
                                       "equal": sum(abs(x - 1) <= 1e-12 for x in ratios),
                                       "max": max(ratios) if ratios else None}}
        out["rows"][K] = row
        for name, sm in (("integral-mip", si), ("bnb", sf)):
            if going[name] and sm["optimal"] == sm["n"]:
                largest[name] = K
            else:
                going[name] = False
        print(f"  K={K}: integral-mip {si['optimal']}/{si['n']} proved "
              f"({si['proved_exactly']} exactly), median {si['median_seconds']:.2f} s, max "
              f"{si['max_seconds']:.2f} s; bnb {sf['optimal']}/{sf['n']}, median "
              f"{sf['median_seconds']:.2f} s, max {sf['max_seconds']:.2f} s", flush=True)
        if not going["integral-mip"] and not going["bnb"]:
            break
    out["largest_K_all_proved"] = largest
    return out


def bench_mip_alone(ks, seeds, time_limit) -> dict:
    out = {"time_limit": time_limit, "rows": {}}
    for K in ks:
        rows = []
        for s in range(seeds):
            r = run_integral(family(K, s), time_limit, fluid_bound="none")
            r["seed"] = s
            rows.append(r)
            print(f"    MIP alone K={K} seed {s}: {r['kind']} ({r['proof']}) {r['value']:.6g} "
                  f"in {r['seconds']:.2f} s, {r['slots']} slots, MIP {r['mip_status']}",
                  flush=True)
        out["rows"][K] = {"summary": summarise(rows, time_limit), "runs": rows}
    return out


def markdown(doc: dict) -> str:
    lad = doc["ladder"]
    tl = lad["time_limit"]
    lines = [
        "# Integral exact method (integral-mip) next to the fluid branch and bound (bnb)",
        "",
        f"Family: {doc['family']}.  Time limit {tl:g} s per run; both methods on the same "
        f"instances in one sitting ({doc['machine']['platform']}, HiGHS "
        f"{doc['versions']['highs']}).  `experiments/bench_integral_exact.py`; JSON next to "
        "this file.",
        "",
        "| K | integral-mip proved | of which exactly | by HiGHS's MIP bound | median s | "
        "max s | bnb proved | bnb median s | bnb max s | integral OPT = fluid OPT | "
        "max integral/fluid |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for K, row in lad["rows"].items():
        a, b, r = row["integral-mip"]["summary"], row["bnb"]["summary"], \
            row["integral_over_fluid"]
        mx = "-" if r["max"] is None else f"{r['max']:.4f}"
        lines.append(f"| {K} | {a['optimal']}/{a['n']} | {a['proved_exactly']} | "
                     f"{a['proved_by_solver']} | {a['median_seconds']:.2f} | "
                     f"{a['max_seconds']:.2f} | {b['optimal']}/{b['n']} | "
                     f"{b['median_seconds']:.2f} | {b['max_seconds']:.2f} | "
                     f"{r['equal']}/{r['n']} | {mx} |")
    big = lad["largest_K_all_proved"]
    lines += ["", f"Largest K with every seed proved optimal within {tl:g} s: integral-mip "
                  f"**{big['integral-mip']}**, bnb **{big['bnb']}** (target for the integral "
                  "method: 12).", ""]
    alone = doc.get("mip_alone")
    if alone and alone["rows"]:
        lines += ["The time-indexed MIP alone (`fluid_bound=\"none\"`: no fluid bound, no "
                  "fluid deadlines; greedy incumbents, safe horizon, symmetry rows):", "",
                  "| K | proved | median s | max s | slots (median) |", "|---|---|---|---|---|"]
        for K, row in alone["rows"].items():
            sm = row["summary"]
            slots = [r["slots"] for r in row["runs"] if r["slots"] is not None]
            lines.append(f"| {K} | {sm['optimal']}/{sm['n']} | {sm['median_seconds']:.2f} | "
                         f"{sm['max_seconds']:.2f} | "
                         f"{statistics.median(slots) if slots else '-'} |")
        lines.append("")
    lines += ["How to read it: on this family (unit capacities, integer sizes, no releases) the "
              "fluid optimum is almost always attained by whole units per slot, so "
              "integral-mip's proof usually comes from the fluid bnb bound rounded up to the "
              "objective lattice, met by the feasibility MIP with the fluid completion slots "
              "as deadlines; its time is then mostly bnb's.  The MIP over the safe horizon is "
              "what proves instances with a real integrality gap (releases inside slots, "
              "paths that share links in odd cycles); the second table shows its own reach.",
              ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ladder", default="8,12,16,20,24")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--mip-alone", default="4,6,8")
    ap.add_argument("--mip-alone-seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="ladder 4,6 with 2 seeds and 10 s, MIP alone at 4 (a smoke run)")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_integral_exact.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.ladder, args.seeds, args.time_limit = "4,6", 2, 10.0
        args.mip_alone, args.mip_alone_seeds = "4", 1
    import coflowopt
    from coflowopt.exact import bnb
    from coflowopt.formulations.highs import highs_version
    bnb(family(3, 0), time_limit=10)          # untimed warm-up: numba compiles the kernels
    t0 = time.perf_counter()
    print(f"ladder: 4x4, {args.seeds} seeds, {args.time_limit:g} s", flush=True)
    ladder = bench_ladder([int(k) for k in args.ladder.split(",")], args.seeds,
                          args.time_limit)
    print(f"  largest K with every seed proved: {ladder['largest_K_all_proved']}", flush=True)
    ks = [int(k) for k in args.mip_alone.split(",") if k.strip()]
    print("the time-indexed MIP alone (no fluid bound)", flush=True)
    alone = bench_mip_alone(ks, args.mip_alone_seeds, args.time_limit)
    doc = {
        "benchmark": "bench_integral_exact",
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": platform.processor()},
        "versions": {"coflowopt": coflowopt.__version__, "highs": highs_version()},
        "family": "uniform_random(4 ports, K coflows, 1-4 flows per coflow, integer sizes "
                  "1-5, unit capacities, weights 1, releases 0), seeds 0..n-1; integral "
                  "model with slot 1",
        "ladder": ladder, "mip_alone": alone,
        "headline": {"largest_K_integral_mip_within_limit":
                     ladder["largest_K_all_proved"]["integral-mip"],
                     "largest_K_bnb_within_limit": ladder["largest_K_all_proved"]["bnb"],
                     "time_limit": args.time_limit, "seeds": args.seeds},
        "total_seconds": time.perf_counter() - t0,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    md = out.with_suffix(".md")
    md.write_text(markdown(doc))
    print(json.dumps(doc["headline"], indent=1))
    print(f"wrote {out} and {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
