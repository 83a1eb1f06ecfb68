"""The Facebook trace on real topologies: how far from the best certified bound do the seed
algorithms land when the network core is oversubscribed?

Spec (every knob is here; ``--quick`` only shrinks the instance):

* **Instance**: FB2010-1Hr-150-0 (526 coflows, 150 racks; coflowsim's uniform reducer split,
  1 MB per time unit per port), every release 0 and unit weights (Sincronia's offline setting,
  where BSSI+greedy has its guarantee).
* **Topologies**, each at core oversubscription 1:1, 2:1 and 4:1, plus the big switch as the
  reference:

  - ``fat-tree``: k = 16 (1,024 hosts, 320 switches, 6,144 links), aggregation-core links at
    ``1/o`` of the host capacity; the 150 racks are placed on hosts by the seeded random
    injective placement (seed 0) so that traffic spreads over all 16 pods (the identity
    placement would fill only pods 0-2);
  - ``leaf-spine``: 10 leaves x 15 hosts (the 150 racks, identity placement), 4 spines,
    leaf-spine links at ``15 / (4 o)`` host capacities (full bisection at o = 1).

  Routing: ECMP, hash seed 0 (:func:`coflowopt.topology.route`).
* **Algorithms**: BSSI + greedy (Sincronia), SEBF + MADD (Varys' offline core), the Varys
  policy (SEBF + MADD with work conservation), per-flow max-min fairness (``fair``).  Every
  schedule goes through the verifier; its value is ``feasible``.
* **Bounds**: ``isolated``, ``port`` (per resource), ``bssi-dual`` and ``ordering-lp``, each a
  certified ``lower_bound``; the best of them is the base of every ratio (``ALG / best LB``,
  an upper bound on ``ALG / OPT``).

Output: ``experiments/results/topology_oversubscription.json`` (every number with its kind,
the time each took, the instance summaries), ``.md`` (the table) and
``experiments/results/plots/topology_oversubscription.{png,pdf}`` (ratio against
oversubscription, one panel per topology).  Algorithms or bounds that do not run on resources
(tag ``big_switch_only``) are recorded as such, never dropped silently.

Run: ``python experiments/topology_oversubscription.py [--quick] [--out DIR]``
(about 10 minutes on 2 cores for the full trace; ``--quick`` takes the first 60 coflows).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from coflowopt.api import run_schedule
from coflowopt.exceptions import NotSupportedError
from coflowopt.formats.coflow_benchmark import read_coflow_benchmark
from coflowopt.registry import get_algorithm
from coflowopt.topology import fat_tree, leaf_spine, on_topology

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COFLOWOPT_SHARED", REPO.parent / "shared"))
TRACE = SHARED / "data" / "FB2010-1Hr-150-0.txt"

OVERSUBSCRIPTION = (1, 2, 4)
SCHEDULES = (("bssi+greedy", dict(order="bssi", rates="greedy")),
             ("sebf+madd", dict(order="sebf", rates="madd")),
             ("varys", dict(order=None, rates=None, policy="varys")),
             ("per-flow-fair", dict(order=None, rates=None, policy="fair")))
BOUNDS = ("isolated", "port", "bssi-dual", "ordering-lp")


def topologies(quick: bool):
    """(family, oversubscription, builder, placement) for every network of the study."""
    out = [("big-switch", None, None, None)]
    for o in OVERSUBSCRIPTION:
        out.append(("fat-tree", o, lambda o=o: fat_tree(16, core_oversubscription=float(o)),
                    "random"))
    for o in OVERSUBSCRIPTION:
        out.append(("leaf-spine", o, lambda o=o: leaf_spine(10, 4, 15,
                                                            oversubscription=float(o)),
                    "modulo"))
    return out


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run_one(inst, label, kw) -> dict:
    t = time.perf_counter()
    try:
        res = run_schedule(inst, kw.get("order"), kw.get("rates"), policy=kw.get("policy"),
                           keep_schedule=False)
    except NotSupportedError as e:
        return {"algorithm": label, "status": "not_supported", "message": str(e)}
    return {"algorithm": label, "kind": res.kind, "status": res.status,
            "value": float(res.value) if res.value is not None else None,
            "seconds": round(time.perf_counter() - t, 3)}


def bound_one(inst, name) -> dict:
    t = time.perf_counter()
    try:
        res = get_algorithm("bound", name)(inst)
    except NotSupportedError as e:
        return {"bound": name, "status": "not_supported", "message": str(e)}
    return {"bound": name, "kind": res.kind, "status": res.status,
            "value": float(res.value) if res.value is not None else None,
            "seconds": round(time.perf_counter() - t, 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the first 60 coflows only")
    ap.add_argument("--out", default=str(REPO / "experiments" / "results"),
                    help="folder for the JSON, the table and plots/")
    args = ap.parse_args(argv)
    if not TRACE.exists():
        print(f"topology_oversubscription: error: {TRACE} not found (needs ../shared)",
              file=sys.stderr)
        return 2
    bs = read_coflow_benchmark(TRACE).with_releases(0.0).with_weights(1.0)
    if args.quick:
        bs = bs.select_coflows(range(60))
    rows = []
    for family, o, build, placement in topologies(args.quick):
        if build is None:
            inst = bs
        else:
            inst = on_topology(bs, build(), routing="ecmp", seed=0, placement=placement)
        summ = inst.summary()
        log(f"{family} o={o}: {summ.get('resources', summ.get('ports'))} resources, most "
            f"loaded {summ.get('most_loaded_resource')}")
        row = {"family": family, "oversubscription": o, "placement": placement,
               "instance": {k: summ[k] for k in ("coflows", "flows") if k in summ},
               "schedules": [], "bounds": []}
        if not inst.is_big_switch:
            row["instance"].update({k: summ[k] for k in ("hosts", "switches", "links",
                                                          "max_path_length",
                                                          "most_loaded_resource")})
        for name in BOUNDS:
            b = bound_one(inst, name)
            log(f"  bound {name}: {b}")
            row["bounds"].append(b)
        certified = [b["value"] for b in row["bounds"] if b.get("kind") == "lower_bound"]
        best = max(certified) if certified else None
        row["best_bound"] = best
        for label, kw in SCHEDULES:
            s = run_one(inst, label, kw)
            if s.get("kind") == "feasible" and best:
                s["ratio_to_best_bound"] = s["value"] / best
            log(f"  {label}: {s}")
            row["schedules"].append(s)
        rows.append(row)
    out = Path(args.out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    stem = "topology_oversubscription" + ("_quick" if args.quick else "")
    doc = {"experiment": "topology_oversubscription", "quick": args.quick,
           "trace": TRACE.name, "releases": 0, "weights": 1, "routing": "ecmp", "seed": 0,
           "ratio_base": "best certified lower bound of " + ", ".join(BOUNDS), "rows": rows}
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / f"{stem}.md").write_text(table(rows))
    plot(rows, out / "plots" / stem)
    print(table(rows))
    return 0


def table(rows) -> str:
    names = [label for label, _ in SCHEDULES]
    head = ("| network | o | best LB (which) | " + " | ".join(f"{n} ALG/LB" for n in names)
            + " |\n|---|---|---|" + "---|" * len(names) + "\n")
    lines = []
    for r in rows:
        ok = [b for b in r["bounds"] if b.get("kind") == "lower_bound"]
        which = max(ok, key=lambda b: b["value"])["bound"] if ok else "-"
        cells = []
        for s in r["schedules"]:
            if "ratio_to_best_bound" in s:
                cells.append(f"{s['ratio_to_best_bound']:.3f}")
            else:
                cells.append(s.get("status", "-"))
        lb = f"{r['best_bound']:.6g} ({which})" if r["best_bound"] else "-"
        lines.append(f"| {r['family']} | {r['oversubscription'] or '-'} | {lb} | "
                     + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def plot(rows, stem: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType, not Type 3 (camera-ready checks)
    matplotlib.rcParams["ps.fonttype"] = 42
    import matplotlib.pyplot as plt
    fams = [f for f in ("fat-tree", "leaf-spine") if any(r["family"] == f for r in rows)]
    fig, axes = plt.subplots(1, len(fams), figsize=(4.2 * len(fams), 3.2), sharey=True,
                             squeeze=False)
    ref = next((r for r in rows if r["family"] == "big-switch"), None)
    for ax, fam in zip(axes[0], fams):
        rs = [r for r in rows if r["family"] == fam]
        for label, _ in SCHEDULES:
            xs, ys = [], []
            for r in rs:
                s = next(s for s in r["schedules"] if s["algorithm"] == label)
                if "ratio_to_best_bound" in s:
                    xs.append(r["oversubscription"])
                    ys.append(s["ratio_to_best_bound"])
            line, = ax.plot(xs, ys, marker="o", label=label)
            if ref is not None:
                s = next(s for s in ref["schedules"] if s["algorithm"] == label)
                if "ratio_to_best_bound" in s:
                    ax.axhline(s["ratio_to_best_bound"], color=line.get_color(), ls=":",
                               lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlim(0.8, 5.0)
        ax.set_xticks(list(OVERSUBSCRIPTION), [f"{o}:1" for o in OVERSUBSCRIPTION])
        ax.set_xlabel("core oversubscription")
        ax.set_title(fam)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("ALG / best certified LB")
    axes[0][-1].legend(fontsize=7, title="dotted: big switch", title_fontsize=7)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(f"{stem}.{ext}", dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
