"""The Facebook trace on real topologies: how far from the best certified bound do the seed
algorithms land when the network core is oversubscribed?

The experiment is the spec ``experiments/specs/topology-oversubscription.toml`` (instances,
topologies, routing, placement, algorithms and bounds are all there; every release 0), run by
the standard runner::

    coflowopt bench experiments/specs/topology-oversubscription.toml --workers 2
    python experiments/topology_oversubscription.py runs/topology-oversubscription

and its companion with the trace's release dates, ``topology-oversubscription-releases.toml``
(the same networks; there per-flow fairness is computable)::

    coflowopt bench experiments/specs/topology-oversubscription-releases.toml --workers 1
    python experiments/topology_oversubscription.py \
        --spec experiments/specs/topology-oversubscription-releases.toml \
        runs/topology-oversubscription-releases

This script is the analysis: it reads the run's rows (every schedule verified, every bound a
certified ``lower_bound``), takes for each network the best certified bound as the base of
every ratio (``ALG / best LB``, an upper bound on ``ALG / OPT``), and writes
``experiments/results/<spec name>.json`` (every number with its kind, the time it took), ``.md``
(the table) and ``experiments/results/plots/<spec name>.{png,pdf}`` (ratio against
oversubscription, one panel per topology, the big switch dotted), ``<spec name>`` with ``_`` for
``-``.  With release dates the sum of completion times carries ``sum_k w_k r_k`` (a constant
that no schedule can change: 97% of the bound on this trace), so the table gives the ratio of
both objectives, ``sum w C`` and the weighted CCT ``sum w (C - r)``, each as ALG / best LB on
that objective (the bound minus the same constant is a certified bound on the CCT, since the
constant is exact), and the plot shows the CCT ratio.  A task that
did not give a number (``not_supported``, ``time_limit``, ``error``) is shown with its status,
never dropped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "experiments" / "specs" / "topology-oversubscription.toml"
OVERSUBSCRIPTION = (1, 2, 4)
GROUP = re.compile(r"^(?P<family>[\w-]+)(?:/o=(?P<o>[\d.]+))?$")


def collect(run_dir, spec_path=SPEC) -> tuple[list[dict], list[str], float]:
    """One row per network (instance group) with its bounds, best bound and schedules; the
    schedule labels; and ``sum_k w_k r_k`` of the instances (0 without release dates)."""
    from fractions import Fraction

    from coflowopt.experiments.spec import load_spec
    from coflowopt.experiments.store import load_rows
    rows = load_rows(run_dir)
    if not rows:
        raise SystemExit(f"topology_oversubscription: error: {run_dir} holds no rows (run "
                         f"coflowopt bench {spec_path} first)")
    spec = load_spec(spec_path)
    labels = [a.label for a in spec.algorithms if a.kind == "schedule"]
    # the releases and weights do not depend on the network: one sum for every instance
    # (checked), in exact arithmetic so that subtracting it from a bound keeps it certified
    sums = set()
    for ref in spec.instances():
        inst = ref.load()
        sums.add(sum((Fraction(float(w)) * Fraction(float(r))
                      for w, r in zip(inst.weight, inst.release)), Fraction(0)))
    if len(sums) != 1:
        raise SystemExit("topology_oversubscription: error: the spec's instances differ in "
                         "sum_k w_k r_k; the CCT ratios need one constant")
    wr = sums.pop()
    out = []
    for group in dict.fromkeys(r["instance_group"] for r in rows):
        m = GROUP.match(group)
        if m is None:
            raise SystemExit(f"topology_oversubscription: error: instance group {group!r} is "
                             "not <network>[/o=<oversubscription>]")
        mine = [r for r in rows if r["instance_group"] == group]
        net = {"family": m["family"], "oversubscription": float(m["o"]) if m["o"] else None,
               "instance": {k: mine[0][k] for k in ("coflows", "flows")},
               "bounds": [], "schedules": []}
        for r in mine:
            item = {"algorithm": r["algorithm"], "kind": r["result_kind"],
                    "status": r["status"], "value": r["value"],
                    "value_exact": r.get("value_exact"), "seconds": r["seconds"]}
            net["bounds" if r["algorithm_kind"] == "bound" else "schedules"].append(item)
        certified = [b for b in net["bounds"] if b["kind"] == "lower_bound"]
        best = max(certified, key=lambda b: b["value"]) if certified else None
        net["best_bound"] = best["value"] if best else None
        net["best_bound_name"] = best["algorithm"] if best else None
        for s in net["schedules"]:
            if s["kind"] == "feasible" and best:
                s["ratio_to_best_bound"] = s["value"] / best["value"]
                if wr:
                    # ALG - sum w r over (LB - sum w r): both on the weighted CCT
                    s["cct_ratio_to_best_bound"] = float(
                        (Fraction(s["value"]) - wr) / (Fraction(best["value"]) - wr))
        out.append(net)
    return out, labels, float(wr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", nargs="?", default=None,
                    help="the run folder of coflowopt bench (default runs/<spec name>)")
    ap.add_argument("--spec", default=str(SPEC),
                    help="the spec that was run (default the zero-release one)")
    ap.add_argument("--out", default=str(REPO / "experiments" / "results"),
                    help="folder for the JSON, the table and plots/")
    args = ap.parse_args(argv)
    spec_path = Path(args.spec)
    if not spec_path.is_file():
        ap.error(f"--spec {args.spec}: no such file")
    name = spec_path.name.removesuffix(".toml")
    run_dir = args.run_dir or str(REPO / "runs" / name)
    nets, labels, wr = collect(run_dir, spec_path)
    out = Path(args.out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    stem = name.replace("-", "_")
    spec_rel = spec_path.resolve()
    spec_rel = spec_rel.relative_to(REPO) if spec_rel.is_relative_to(REPO) else spec_rel
    doc = {"experiment": stem, "spec": str(spec_rel), "run_dir": run_dir,
           "objective": "weighted_completion_time",
           "releases": "trace" if wr else 0, "sum_weighted_release": wr, "weights": 1,
           "ratio_base": "best certified lower bound of the spec's bounds"
           + ("; cct_ratio_to_best_bound: (ALG - sum_weighted_release) / (LB - "
              "sum_weighted_release)" if wr else ""),
           "networks": nets}
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / f"{stem}.md").write_text(table(nets, labels, bool(wr)))
    plot(nets, labels, out / "plots" / stem, bool(wr))
    print(table(nets, labels, bool(wr)))
    return 0


def table(nets, labels, cct: bool = False) -> str:
    """ALG / best LB per network (with release dates: on the sum of completion times / on the
    weighted CCT); a task without a number shows its status."""
    unit = "ALG/LB (sum C / CCT)" if cct else "ALG/LB"
    head = ("| network | o | best LB (which) | " + " | ".join(f"{n} {unit}" for n in labels)
            + " |\n|---|---|---|" + "---|" * len(labels) + "\n")
    lines = []
    for r in nets:
        cells = []
        for label in labels:
            s = next((s for s in r["schedules"] if s["algorithm"] == label), None)
            if s is None:
                cells.append("not run")
            elif "ratio_to_best_bound" not in s:
                cells.append(s["status"])
            elif cct:
                cells.append(f"{s['ratio_to_best_bound']:.4f} / "
                             f"{s['cct_ratio_to_best_bound']:.3f}")
            else:
                cells.append(f"{s['ratio_to_best_bound']:.3f}")
        lb = f"{r['best_bound']:.6g} ({r['best_bound_name']})" if r["best_bound"] else "-"
        o = f"{r['oversubscription']:g}:1" if r["oversubscription"] else "-"
        lines.append(f"| {r['family']} | {o} | {lb} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def plot(rows, labels, stem: Path, cct: bool = False) -> None:
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType, not Type 3 (camera-ready checks)
    matplotlib.rcParams["ps.fonttype"] = 42
    import matplotlib.pyplot as plt
    key = "cct_ratio_to_best_bound" if cct else "ratio_to_best_bound"
    fams = [f for f in ("fat-tree", "leaf-spine") if any(r["family"] == f for r in rows)]
    fig, axes = plt.subplots(1, len(fams), figsize=(4.2 * len(fams), 3.2), sharey=True,
                             squeeze=False)
    ref = next((r for r in rows if r["family"] == "big-switch"), None)
    for ax, fam in zip(axes[0], fams):
        rs = [r for r in rows if r["family"] == fam]
        for label in labels:
            xs, ys = [], []
            for r in sorted(rs, key=lambda r: r["oversubscription"]):
                s = next((s for s in r["schedules"] if s["algorithm"] == label), {})
                if key in s:
                    xs.append(r["oversubscription"])
                    ys.append(s[key])
            line, = ax.plot(xs, ys, marker="o", label=label)
            if ref is not None:
                s = next((s for s in ref["schedules"] if s["algorithm"] == label), {})
                if key in s:
                    ax.axhline(s[key], color=line.get_color(), ls=":",
                               lw=0.8)
        ax.set_xscale("log", base=2)
        if cct:
            # BSSI + greedy ignores arrivals in its order: its CCT ratio is 20x the others'
            ax.set_yscale("log")
        ax.set_xlim(0.8, 5.0)
        ax.set_xticks(list(OVERSUBSCRIPTION), [f"{o}:1" for o in OVERSUBSCRIPTION])
        ax.set_xlabel("core oversubscription")
        ax.set_title(fam)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("weighted CCT: ALG / best certified LB" if cct
                          else "ALG / best certified LB")
    axes[0][-1].legend(fontsize=7, title="dotted: big switch", title_fontsize=7)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(f"{stem}.{ext}", dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
