"""LP-OV against LP-OV with branching on pairwise orders, on samples of the FB trace.

Run:  python experiments/fb_lp_ov_branch.py [--trace ../shared/data/FB2010-1Hr-150-0.txt]
          [--dense 15 --dense-samples 8] [--sizes 50,100,200 --samples 2] [--max-nodes 40]
          [--time-limit 120] [--seed 0] [--out experiments/results/fb_lp_ov_branch.json]

All releases 0, unit weights.  Dense samples (``--dense`` coflows sharing one resource, drawn
as ``experiments/fb_gap_samples.py`` draws them) get the exact concurrent open-shop optimum
by the subset DP (a lower bound on the coflow optimum that greedy rates realise closely, so
the reference for how much of LP-OV's gap a bound closes).  Uniform samples of ``--sizes``
coflows get LP-OV and ``lp-ov-branch`` with ``--max-nodes`` and ``--time-limit``.  Times are
wall seconds of in-process calls on a shared machine.  Writes ``--out`` and the ``.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = Path(os.environ.get("COFLOWOPT_SHARED", HERE.parent.parent / "shared")) \
    / "data" / "FB2010-1Hr-150-0.txt"


def _row(sub, label, max_nodes, time_limit, with_opt):
    from coflowopt.bounds.lp_bounds import lp_ov_bound
    from coflowopt.bounds.lp_ov_branch import lp_ov_branch_bound
    from coflowopt.exact.subset_bounds import SubsetBounds
    K = sub.num_coflows
    t0 = time.perf_counter()
    base = lp_ov_bound(sub)
    t1 = time.perf_counter()
    br = lp_ov_branch_bound(sub, max_nodes=max_nodes, time_limit=time_limit)
    t2 = time.perf_counter()
    r = {"sample": label, "coflows": K, "lp_ov": float(base.value), "lp_ov_seconds": t1 - t0,
         "branch": float(br.value), "branch_seconds": t2 - t1, "branch_status": br.status,
         "nodes": br.extra["nodes"], "leaves": br.extra["leaves"],
         "branch_over_lp_ov": float(br.value) / float(base.value)}
    if with_opt:
        opt = SubsetBounds(sub, np.arange(K)).dpb((1 << K) - 1)
        r.update({"open_shop_optimum": opt, "opt_over_lp_ov": opt / r["lp_ov"],
                  "opt_over_branch": opt / r["branch"],
                  "gap_closed": (r["branch"] - r["lp_ov"]) / (opt - r["lp_ov"])
                  if opt > r["lp_ov"] else None})
        # the bound must never exceed the optimum of its relaxation's reference
        assert r["branch"] <= opt * (1 + 1e-9), (r["branch"], opt)
    print(json.dumps(r), file=sys.stderr, flush=True)
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", default=str(DEFAULT_TRACE))
    ap.add_argument("--dense", type=int, default=15)
    ap.add_argument("--dense-samples", type=int, default=8)
    ap.add_argument("--sizes", default="50,100,200")
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--max-nodes", type=int, default=40)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "fb_lp_ov_branch.json"))
    args = ap.parse_args(argv)
    if not Path(args.trace).is_file():
        print(f"trace not found: {args.trace}", file=sys.stderr)
        return 2
    if not 2 <= args.dense <= 20:
        print("--dense must be in 2..20 (the DP has 2^size states)", file=sys.stderr)
        return 2
    try:
        sizes = [int(v) for v in args.sizes.split(",") if v]
    except ValueError:
        print(f"--sizes {args.sizes!r}: expected integers separated by commas", file=sys.stderr)
        return 2
    from coflowopt.formats import read_instance
    from coflowopt.orderings.bssi import processing_times

    inst = read_instance(args.trace).with_releases(0.0).without_deadlines()
    P = np.asarray(processing_times(inst).todense())
    users = (P > 0).sum(axis=0)
    rng = np.random.default_rng(args.seed)
    dense, uniform = [], []
    for s in range(args.dense_samples):
        q = int(np.argmax(users)) if s % 2 == 0 else int(rng.choice(np.flatnonzero(
            users >= args.dense)))
        sel = np.sort(rng.choice(np.flatnonzero(P[:, q] > 0), args.dense, replace=False))
        dense.append(_row(inst.select_coflows(sel), s, args.max_nodes, args.time_limit, True))
    for size in sizes:
        for s in range(args.samples):
            sel = np.sort(rng.choice(inst.num_coflows, min(size, inst.num_coflows),
                                     replace=False))
            uniform.append(_row(inst.select_coflows(sel), f"{size}/{s}", args.max_nodes,
                                args.time_limit, False))
    doc = {"trace": args.trace, "seed": args.seed, "max_nodes": args.max_nodes,
           "time_limit": args.time_limit, "dense": dense, "uniform": uniform}
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    cmd = " ".join(["experiments/fb_lp_ov_branch.py"] + (argv if argv is not None
                                                         else sys.argv[1:]))
    lines = ["# FB trace samples: LP-OV vs LP-OV with branching on pairwise orders", "",
             f"Generated by `{cmd}` (all releases 0, unit weights; every bound certified in "
             "exact arithmetic).", "",
             f"## Dense samples ({args.dense} coflows sharing one resource), against the exact "
             "open-shop optimum (subset DP)", "",
             "| sample | OS optimum | opt / LP-OV | opt / lp-ov-branch | gap closed | nodes | "
             "status | s (LP-OV / branch) |", "|---|---|---|---|---|---|---|---|"]
    for r in dense:
        gc = "-" if r["gap_closed"] is None else f"{100 * r['gap_closed']:.0f} %"
        lines.append(f"| {r['sample']} | {r['open_shop_optimum']:,.1f} | "
                     f"{r['opt_over_lp_ov']:.4f} | {r['opt_over_branch']:.4f} | {gc} | "
                     f"{r['nodes']} | {r['branch_status']} | {r['lp_ov_seconds']:.1f} / "
                     f"{r['branch_seconds']:.1f} |")
    lines += ["", "## Uniform samples (LP-OV's gap to the optimum unknown)", "",
              "| sample | LP-OV | lp-ov-branch | branch / LP-OV | nodes | leaves | status | "
              "s (LP-OV / branch) |", "|---|---|---|---|---|---|---|---|"]
    for r in uniform:
        lines.append(f"| {r['sample']} | {r['lp_ov']:,.1f} | {r['branch']:,.1f} | "
                     f"{r['branch_over_lp_ov']:.4f} | {r['nodes']} | {r['leaves']} | "
                     f"{r['branch_status']} | {r['lp_ov_seconds']:.1f} / "
                     f"{r['branch_seconds']:.1f} |")
    Path(args.out).with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
