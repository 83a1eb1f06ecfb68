"""Seed 002 (SYN vs ASY): rate normalisation schemes against the max-throughput LP.

ASY's controller renormalises the offered rate matrix ``R`` into a doubly sub-stochastic
transmission rate matrix ``W`` and, the seed says, "maximizes the overall throughput"
(Sviridov, Bianco, Giaccone, Globecom 2018, Sec. II-B) with a Sinkhorn-style iteration
(Sec. III-B).  This study measures how much throughput each normalisation of
:mod:`coflowopt.normalization` loses against the max-throughput LP, and how fair it is
(Jain's index over the active entries), on random matrices:

* sizes n x n, n in 4, 8, 12, 16; densities (probability that an entry is active) 0.1, 0.25,
  0.5, 1; offered rates uniform in (0, 1] on the support, then scaled so that the most loaded
  line sums to ``load`` in 1, 2, 4 (entries capped at 1: one flow offers at most the link
  rate, the seed's ``r_ij in [0, 1]``); unit capacities; 16 seeds per cell (768 matrices);
* every 0/1 matrix of size 2 x 2 and 3 x 3 (exhaustive), for the worst case of each method.

Methods: cap-only Sinkhorn, Sinkhorn-Knopp with capping (1000 sweeps at most), max-min fair
(progressive filling), HUG (cooperative Stage 2), MADD, and the LP.  Writes
``experiments/results/normalization_study.json`` (every matrix) and ``.md`` (the tables).

Run: ``python experiments/normalization_study.py`` (about a minute on one core).
"""

from __future__ import annotations

import itertools
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from coflowopt.normalization import METHODS, normalize
from coflowopt.packetization import PACKET_MIXES, slot_efficiency

SIZES = (4, 8, 12, 16)
DENSITIES = (0.1, 0.25, 0.5, 1.0)
LOADS = (1.0, 2.0, 4.0)
SEEDS = range(16)
HEURISTICS = [m for m in METHODS if m != "max-throughput"]
OUT = Path(__file__).resolve().parent / "results"


def random_matrix(n: int, density: float, load: float, seed: int) -> np.ndarray:
    """Offered rates on a random support (at least one entry), most loaded line = ``load``,
    entries capped at 1."""
    rng = np.random.default_rng([n, int(density * 100), int(load * 10), seed])
    mask = rng.uniform(size=(n, n)) < density
    if not mask.any():
        mask[rng.integers(n), rng.integers(n)] = True
    R = np.where(mask, rng.uniform(1e-3, 1.0, (n, n)), 0.0)
    top = max(R.sum(axis=0).max(), R.sum(axis=1).max())
    return np.minimum(R * (load / top), 1.0)


def run_matrix(R: np.ndarray) -> dict:
    lp = normalize(R, "max-throughput")
    row = {"lp": lp.throughput, "lp_jain": lp.jain}
    for m in HEURISTICS:
        r = normalize(R, m)
        bad = r.violations()
        assert not bad, (m, bad)
        assert r.throughput <= lp.throughput * (1 + 1e-9), (m, r.throughput, lp.throughput)
        row[m] = {"throughput": r.throughput, "ratio": r.throughput / lp.throughput,
                  "jain": r.jain}
        if m == "sinkhorn-knopp":
            row[m]["converged"] = bool(r.info["converged"])
            row[m]["iterations"] = int(r.info["iterations"])
    return row


def summarise(rows: list[dict], key=lambda r: ()) -> dict:
    groups: dict = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    out = {}
    for g, rs in sorted(groups.items()):
        s = {"matrices": len(rs), "lp_jain_mean": float(np.mean([r["lp_jain"] for r in rs]))}
        for m in HEURISTICS:
            ratio = np.array([r[m]["ratio"] for r in rs])
            jain = np.array([r[m]["jain"] for r in rs])
            s[m] = {"ratio_mean": float(ratio.mean()), "ratio_worst": float(ratio.min()),
                    "optimal_fraction": float(np.mean(ratio >= 1 - 1e-9)),
                    "jain_mean": float(jain.mean())}
            if m == "sinkhorn-knopp":
                s[m]["converged_fraction"] = float(np.mean([r[m]["converged"] for r in rs]))
        out[g] = s
    return out


def exhaustive(n: int) -> dict:
    """Every 0/1 n x n matrix with at least one 1: the worst ratio of each method."""
    worst = {m: (2.0, None) for m in HEURISTICS}
    count = 0
    for bits in itertools.product((0.0, 1.0), repeat=n * n):
        if not any(bits):
            continue
        R = np.array(bits).reshape(n, n)
        count += 1
        row = run_matrix(R)
        for m in HEURISTICS:
            if row[m]["ratio"] < worst[m][0] - 1e-12:
                worst[m] = (row[m]["ratio"], R.astype(int).tolist())
    return {"matrices": count, "worst": {m: {"ratio": v, "matrix": M}
                                         for m, (v, M) in worst.items()}}


def table(summary: dict, label: str) -> list[str]:
    head = (f"| {label} | matrices | " +
            " | ".join(f"{m} mean / worst / Jain" for m in HEURISTICS) + " | LP Jain |")
    lines = [head, "|" + "---|" * (len(HEURISTICS) + 3)]
    for g, s in summary.items():
        name = ", ".join(str(x) for x in g) if isinstance(g, tuple) else str(g)
        cells = [f"{s[m]['ratio_mean']:.3f} / {s[m]['ratio_worst']:.4f} / {s[m]['jain_mean']:.3f}"
                 for m in HEURISTICS]
        lines.append(f"| {name or 'all'} | {s['matrices']} | " + " | ".join(cells) +
                     f" | {s['lp_jain_mean']:.3f} |")
    return lines


def main() -> None:
    t0 = time.perf_counter()
    rows = []
    for n, dens, load, seed in itertools.product(SIZES, DENSITIES, LOADS, SEEDS):
        R = random_matrix(n, dens, load, seed)
        row = run_matrix(R)
        row.update(n=n, density=dens, load=load, seed=seed,
                   active=int((R > 0).sum()))
        rows.append(row)
    t_random = time.perf_counter() - t0
    ex = {n: exhaustive(n) for n in (2, 3)}
    elapsed = time.perf_counter() - t0
    overall = summarise(rows)[()]
    by_size = summarise(rows, key=lambda r: r["n"])
    by_density = summarise(rows, key=lambda r: r["density"])
    by_load = summarise(rows, key=lambda r: r["load"])
    sk_conv = overall["sinkhorn-knopp"]["converged_fraction"]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=Path(__file__).parent).stdout.strip()
    except OSError:  # pragma: no cover
        commit = "?"
    eff = {name: {"efficiency": str(slot_efficiency(name)),
                  "float": float(slot_efficiency(name))} for name in PACKET_MIXES}
    doc = {"study": "normalization_study", "commit": commit, "python": platform.python_version(),
           "seconds": {"random": round(t_random, 1), "total": round(elapsed, 1)},
           "design": {"sizes": SIZES, "densities": DENSITIES, "loads": LOADS,
                      "seeds": len(SEEDS), "methods": list(METHODS)},
           "overall": overall,
           "by_size": {str(k): v for k, v in by_size.items()},
           "by_density": {str(k): v for k, v in by_density.items()},
           "by_load": {str(k): v for k, v in by_load.items()},
           "exhaustive_binary": {str(n): v for n, v in ex.items()},
           "slot_efficiency": eff,
           "rows": rows}
    OUT.mkdir(exist_ok=True)
    (OUT / "normalization_study.json").write_text(json.dumps(doc, indent=1) + "\n")

    md = [f"# normalization_study (commit {commit}, {elapsed:.0f} s)", "",
          f"{len(rows)} random n x n matrices (n in {SIZES}, densities {DENSITIES}, most loaded "
          f"line {LOADS}, {len(SEEDS)} seeds), unit capacities.  Each cell: throughput / LP "
          "throughput, mean / worst, and the mean Jain index over active entries.", ""]
    md += table({(): overall}, "set")
    md += ["", "By size n:", ""] + table({(k,): v for k, v in by_size.items()}, "n")
    md += ["", "By density:", ""] + table({(k,): v for k, v in by_density.items()}, "density")
    md += ["", "By load (most loaded line before capping entries at 1):", ""]
    md += table({(k,): v for k, v in by_load.items()}, "load")
    md += ["", "Fraction of matrices where the method reaches the LP's throughput (within "
           "1e-9): " + ", ".join(f"{m} {overall[m]['optimal_fraction']:.3f}"
                                 for m in HEURISTICS) + ".",
           f"Sinkhorn-Knopp converged (sweep change <= 1e-9 max r) within 1000 sweeps on "
           f"{sk_conv:.3f} of the matrices.", "",
           "Exhaustive 0/1 matrices (worst ratio, one matrix attaining it):", "",
           "| n | matrices | " + " | ".join(HEURISTICS) + " |",
           "|" + "---|" * (len(HEURISTICS) + 2)]
    for n, e in ex.items():
        md.append(f"| {n} | {e['matrices']} | " + " | ".join(
            f"{e['worst'][m]['ratio']:.4f} `{e['worst'][m]['matrix']}`" for m in HEURISTICS)
            + " |")
    md += ["", "Slot efficiency (SYN, one packet per 1500 B slot): " +
           ", ".join(f"{k} {v['efficiency']} = {v['float']:.4f}" for k, v in eff.items()) + "."]
    (OUT / "normalization_study.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    print(f"\n{elapsed:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
