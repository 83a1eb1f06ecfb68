"""The Facebook trace on real topologies: how far from the best certified bound do the seed
algorithms land when the network core is oversubscribed?

The experiment is the spec ``experiments/specs/topology-oversubscription.toml`` (instances,
topologies, routing, placement, algorithms and bounds are all there), run by the standard
runner::

    coflowopt bench experiments/specs/topology-oversubscription.toml --workers 2
    python experiments/topology_oversubscription.py runs/topology-oversubscription

This script is the analysis: it reads the run's rows (every schedule verified, every bound a
certified ``lower_bound``), takes for each network the best certified bound as the base of
every ratio (``ALG / best LB``, an upper bound on ``ALG / OPT``), and writes
``experiments/results/topology_oversubscription.json`` (every number with its kind, the time
it took), ``.md`` (the table) and ``experiments/results/plots/topology_oversubscription.{png,pdf}``
(ratio against oversubscription, one panel per topology, the big switch dotted).  A task that
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


def collect(run_dir) -> tuple[list[dict], list[str]]:
    """One row per network (instance group) with its bounds, best bound and schedules."""
    from coflowopt.experiments.spec import load_spec
    from coflowopt.experiments.store import load_rows
    rows = load_rows(run_dir)
    if not rows:
        raise SystemExit(f"topology_oversubscription: error: {run_dir} holds no rows (run "
                         f"coflowopt bench {SPEC.relative_to(REPO)} first)")
    spec = load_spec(SPEC)
    labels = [a.label for a in spec.algorithms if a.kind == "schedule"]
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
        out.append(net)
    return out, labels


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", nargs="?", default=str(REPO / "runs" / "topology-oversubscription"),
                    help="the run folder of coflowopt bench (default runs/topology-oversubscription)")
    ap.add_argument("--out", default=str(REPO / "experiments" / "results"),
                    help="folder for the JSON, the table and plots/")
    args = ap.parse_args(argv)
    nets, labels = collect(args.run_dir)
    out = Path(args.out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    stem = "topology_oversubscription"
    doc = {"experiment": stem, "spec": str(SPEC.relative_to(REPO)), "run_dir": args.run_dir,
           "objective": "weighted_completion_time", "releases": 0, "weights": 1,
           "ratio_base": "best certified lower bound of the spec's bounds", "networks": nets}
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / f"{stem}.md").write_text(table(nets, labels))
    plot(nets, labels, out / "plots" / stem)
    print(table(nets, labels))
    return 0


def table(nets, labels) -> str:
    """ALG / best LB per network; a task without a number shows its status."""
    head = ("| network | o | best LB (which) | " + " | ".join(f"{n} ALG/LB" for n in labels)
            + " |\n|---|---|---|" + "---|" * len(labels) + "\n")
    lines = []
    for r in nets:
        cells = []
        for label in labels:
            s = next((s for s in r["schedules"] if s["algorithm"] == label), None)
            cells.append("not run" if s is None else f"{s['ratio_to_best_bound']:.3f}"
                         if "ratio_to_best_bound" in s else s["status"])
        lb = f"{r['best_bound']:.6g} ({r['best_bound_name']})" if r["best_bound"] else "-"
        o = f"{r['oversubscription']:g}:1" if r["oversubscription"] else "-"
        lines.append(f"| {r['family']} | {o} | {lb} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def plot(rows, labels, stem: Path) -> None:
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
        for label in labels:
            xs, ys = [], []
            for r in sorted(rs, key=lambda r: r["oversubscription"]):
                s = next((s for s in r["schedules"] if s["algorithm"] == label), {})
                if "ratio_to_best_bound" in s:
                    xs.append(r["oversubscription"])
                    ys.append(s["ratio_to_best_bound"])
            line, = ax.plot(xs, ys, marker="o", label=label)
            if ref is not None:
                s = next((s for s in ref["schedules"] if s["algorithm"] == label), {})
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
