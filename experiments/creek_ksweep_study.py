"""How much do K priority queues lose, and does the gain diminish with K? (issue 14, seed 001)

Run:  python experiments/creek_ksweep_study.py [--seed 0] [--workers 2] [--quick]
                                                [--train 6] [--small 24] [--large 5]
                                                [--large-fat-tree 3] [--bnb-time-limit 30]
      python experiments/creek_ksweep_study.py --report-only   # tables and plot from the JSON
      python experiments/creek_ksweep_study.py --fill-missing  # an algorithm added later
      python experiments/creek_ksweep_study.py --large-search-check 3 [--workers 2]
                                          # creek's grid searched on large draws (a check)
      (outputs: experiments/results/creek_ksweep.json and .md,
      experiments/results/plots/creek_ksweep.png and .pdf; --out DIR writes there instead;
      --quick writes to a temporary directory unless --out is given)

Creek (seed 001, Sec. IV-B) schedules many-to-many coflows with a multi-level feedback queue
(MLFQ) on the coflow's bytes received, using the ``K <= 8`` strict-priority queues of commodity
switches, with thresholds "decided by using exhaustive search".  Its introduction promises an
insight into the "diminishing return" of priority-based schemes in the number of queues; the
experiment is absent from the text (digest ``seeds-000-002.md`` Sec. 2.7).  This study runs it
in the fluid model of the toolkit.

Families (all zero releases and unit weights: Creek's offline objective (1), average CCT; sizes
in MB, port or link capacity 1250 MB/s = 10 Gb/s, as ``coflowopt generate creek``):

* **small** (proved optimum): the ``creek`` generator on a 6 x 6 big switch, ``K`` uniform in
  4..7 coflows, 2-3 receivers (sub-coflows) per coflow, Table 2 groups I-III only with
  relative frequencies 0.6 / 0.25 / 0.15 (``group_probabilities``: a scaled-down heavy tail,
  sizes 6 MB - 100 GB, so that 4-7 coflows still span several decades; the generator's
  calibration holds for its default mix only).  OPT by the registry's exact ``bnb`` (proved,
  ``--bnb-time-limit``); an instance whose optimum is not proved is skipped and counted.
* **large-bs** (best certified bound): 30 coflows from the ``creek`` generator on a 16 x 16
  big switch, default 2-6 receivers, groups I-III with frequencies 0.85 / 0.07 / 0.08 (the
  seed's "8 % of coflows of 10 GB or more", but capped at Table 2's group III, 100 GB, to keep
  the flow count and the run time small: groups IV-V have thousands of flows per coflow).
* **large-ft**: the same draws placed on a k = 4 fat-tree (16 hosts, every link 1250 MB/s)
  routed by ECMP (``fat_tree_k=4``, routing seed 0), as Creek's simulations (k = 24 there).
  Large instances are scored against :func:`coflowopt.bounds.best.best_certified_bound` over the
  combinatorial and LP bounds except ``time-indexed-lp`` (14-30 s per instance here and never
  the best in trials; the best was ``lp-ov``).

Instance ``i`` of a family comes from ``numpy.random.default_rng([seed, family, i])``
(:func:`small_instance`, :func:`large_instance` rebuild one alone).  Small instances
``0 .. --train-1`` are the *training* set, ``--train .. --train+--small-1`` the held-out test
set; large instances are all test instances.

Policies (every schedule verified by :func:`coflowopt.api.run_schedule`; a rejected schedule
stops the study):

* swept over ``K = 1..8`` levels: ``mlfq`` with ``within="fifo"`` (``mlfq-fifo``), ``mlfq``
  with ``within="fair"`` (``mlfq-fair``) and ``creek`` (per-flow sharing inside a level plus the
  sub-coflow projection, our reconstruction: :mod:`coflowopt.policies.mlfq`), no aging;
* thresholds **geometric**: Aalo's default ``10 MB x 10^i`` (``i = 0..K-2``), the toolkit's
  default, and **searched**: for each policy and ``K`` the geometric thresholds
  ``first x mult^i`` with the best mean ALG/OPT on the training set over the grid
  ``first in GRID_FIRST = (2, 10, 50) MB`` x ``mult in GRID_MULT = (3, 10, 30)`` (it contains
  the default; with ``K = 2`` only ``first`` matters, with ``K = 1`` nothing), then evaluated
  on the held-out small instances and, transferred unchanged, on the large ones;
* not swept: ``decentralized-las`` (default: 8 levels, 10 MB x 10^i), ``baraat`` (FIFO-LM,
  heavy at the 80th percentile of coflow sizes), ``aalo`` (D-CLAS, its defaults: 10 queues,
  weighted sharing across queues, a finished flow's bandwidth idle until the next event),
  ``aalo-reallocate`` (the same with ``on_flow_completion="reallocate"``: the idealised fluid
  Aalo, work-conserving at every instant like the swept policies), and the clairvoyant
  references ``bssi+greedy`` (Sincronia) and ``sebf+madd`` (Varys).

``K = 1`` is one queue: ``mlfq-fifo`` is FIFO and ``mlfq-fair``/``creek`` are per-flow fair
sharing (PFS, Creek's "FS" baseline).  Reported per family and ``K``: mean and worst ALG/OPT
(small) or ALG/LB (large), the marginal gain ``mean(ratio_K) - mean(ratio_{K+1})`` and the
share of the K = 1 -> 8 gain reached at ``K``; Creek's improvement ratios (``CCT_target /
CCT_Creek``, per instance, then averaged) against Baraat, PFS, Aalo, decentralised LAS.

Sizing: the full setting (6 training + 24 test small, 5 + 3 large) takes about 10-15 minutes of
CPU (``--workers 2`` halves the wall time on an idle machine); ``--quick`` is a smoke run of
under a minute.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

KS = tuple(range(1, 9))
#: the search grid (MB and factor); (10, 10) is the geometric default (Aalo's D-CLAS)
GRID_FIRST = (2.0, 10.0, 50.0)
GRID_MULT = (3.0, 10.0, 30.0)
DEFAULT_GEOMETRIC = (10.0, 10.0)
#: swept policies: label -> (registered policy, fixed parameters)
SWEPT = {"mlfq-fifo": ("mlfq", {"within": "fifo"}),
         "mlfq-fair": ("mlfq", {"within": "fair"}),
         "creek": ("creek", {})}
#: not swept: label -> run_schedule keywords
FIXED = {"decentralized-las": {"policy": "decentralized-las"},
         "baraat": {"policy": "baraat"},
         "aalo": {"policy": "aalo"},
         "aalo-reallocate": {"policy": "aalo",
                             "policy_params": {"on_flow_completion": "reallocate"}},
         "bssi+greedy": {"order": "bssi", "rates": "greedy"},
         "sebf+madd": {"order": "sebf", "rates": "madd"}}
#: bounds for the large instances (``best_certified_bound``; time-indexed-lp left out)
LARGE_BOUNDS = ("isolated", "port", "bssi-dual", "ordering-lp", "lp-ov", "interval-lp")
FAMILIES = {"small": 1, "large-bs": 2, "large-ft": 2}   # large-ft: the large-bs draws, placed
SMALL_GROUPS = [0.6, 0.25, 0.15, 0.0, 0.0]
LARGE_GROUPS = [0.85, 0.07, 0.08, 0.0, 0.0]
LARGE_COFLOWS = 30


# ------------------------------------------------------------------------------- instances
def small_instance(index: int, seed: int = 0):
    """Small instance ``index`` (module docstring): 6 x 6 big switch, 4-7 Creek-like coflows."""
    from coflowopt.generators import creek
    rng = np.random.default_rng([seed, FAMILIES["small"], index])
    K = int(rng.integers(4, 8))
    return creek(6, K, receivers=(2, 3), group_probabilities=SMALL_GROUPS,
                 seed=int(rng.integers(2 ** 31)))


def large_instance(index: int, seed: int = 0, fat_tree: bool = False,
                   num_coflows: int = LARGE_COFLOWS):
    """Large instance ``index``: 30 Creek-like coflows on a 16-port big switch, or the same
    draw on a k = 4 fat-tree with ECMP (``fat_tree=True``)."""
    from coflowopt.generators import creek
    rng = np.random.default_rng([seed, FAMILIES["large-bs"], index])
    return creek(16, num_coflows, group_probabilities=LARGE_GROUPS,
                 fat_tree_k=4 if fat_tree else None, routing_seed=0,
                 seed=int(rng.integers(2 ** 31)))


def build(family: str, index: int, seed: int, num_coflows: int = LARGE_COFLOWS):
    if family == "small":
        return small_instance(index, seed)
    return large_instance(index, seed, fat_tree=family == "large-ft", num_coflows=num_coflows)


# ------------------------------------------------------------------------------- runs
def thresholds(K: int, first: float, mult: float) -> list[float]:
    """Geometric thresholds ``first * mult**i``, ``i = 0..K-2`` (K levels)."""
    return [float(first) * float(mult) ** i for i in range(K - 1)]


def run_value(inst, label: str, thr: list[float] | None = None) -> float:
    """The verified objective (sum of completion times) of one algorithm on ``inst``.

    ``label`` is a key of :data:`SWEPT` (then ``thr`` are its thresholds) or of :data:`FIXED`.
    Raises AssertionError when the verifier rejects the schedule."""
    from coflowopt.api import run_schedule
    if label in SWEPT:
        pol, fixed = SWEPT[label]
        res = run_schedule(inst, policy=pol, policy_params={**fixed, "thresholds": list(thr)})
    else:
        res = run_schedule(inst, **FIXED[label])
    if res.kind != "feasible":
        raise AssertionError(f"{label} thresholds={thr}: schedule rejected: {res.message}")
    return float(res.value)


def grid_thresholds(K: int) -> dict[tuple, tuple]:
    """Distinct threshold tuples of the grid for ``K`` levels -> the first (first, mult)
    giving them (K = 1: one empty tuple; K = 2: one per ``first``)."""
    out: dict[tuple, tuple] = {}
    for f in GRID_FIRST:
        for m in GRID_MULT:
            out.setdefault(tuple(thresholds(K, f, m)), (f, m if K > 2 else None))
    return out


def _opt(inst, time_limit: float) -> dict:
    from coflowopt.registry import get_algorithm
    t0 = time.perf_counter()
    r = get_algorithm("exact", "bnb").func(inst, time_limit=time_limit)
    proved = r.kind == "optimal"
    return {"kind": r.kind, "status": r.status, "proved": proved,
            "value": float(r.value) if r.value is not None else None,
            "value_exact": str(Fraction(r.value)) if r.value is not None else None,
            "seconds": round(time.perf_counter() - t0, 3)}


def _lb(inst) -> dict:
    from coflowopt.bounds.best import best_certified_bound
    t0 = time.perf_counter()
    best, runs = best_certified_bound(inst, methods=LARGE_BOUNDS)
    return {"value": None if best is None else float(best.value),
            "algorithm": None if best is None else best.algorithm,
            "runs": [{"algorithm": r["algorithm"], "value": r["value"], "status": r["status"]}
                     for r in runs], "seconds": round(time.perf_counter() - t0, 3)}


def train_task(args) -> dict:
    """Every grid point of every swept policy and K on training instance ``index``."""
    index, seed, bnb_limit = args
    c0 = time.process_time()
    inst = small_instance(index, seed)
    out = {"index": index, "coflows": inst.num_coflows, "flows": inst.num_flows,
           "opt": _opt(inst, bnb_limit), "grid": {}}
    if out["opt"]["proved"]:
        for label in SWEPT:
            for K in KS:
                for thr, fm in grid_thresholds(K).items():
                    key = f"{label}|{K}|{fm[0]}|{fm[1]}"
                    out["grid"][key] = run_value(inst, label, list(thr))
    out["cpu"] = round(time.process_time() - c0, 3)
    return out


def eval_task(args) -> dict:
    """All algorithms on one test instance: swept policies with the geometric default and the
    searched thresholds for every K, and the fixed ones."""
    family, index, seed, bnb_limit, searched, num_coflows = args
    c0 = time.process_time()
    inst = build(family, index, seed, num_coflows)
    out: dict = {"family": family, "index": index, "coflows": inst.num_coflows,
                 "flows": inst.num_flows, "values": {}}
    if family == "small":
        out["opt"] = _opt(inst, bnb_limit)
        if not out["opt"]["proved"]:
            out["cpu"] = round(time.process_time() - c0, 3)
            return out
        out["base"] = out["opt"]["value"]
    else:
        out["lb"] = _lb(inst)
        out["base"] = out["lb"]["value"]
    vals = out["values"]
    for label in SWEPT:
        for K in KS:
            geo = thresholds(K, *DEFAULT_GEOMETRIC)
            vals[f"{label}|geometric|{K}"] = run_value(inst, label, geo)
            thr = thresholds(K, *searched[label][str(K)])
            vals[f"{label}|searched|{K}"] = (vals[f"{label}|geometric|{K}"] if thr == geo
                                             else run_value(inst, label, thr))
    for label in FIXED:
        vals[label] = run_value(inst, label)
    base = out["base"]
    low = min(vals.values())
    if base is None or low < base * (1 - 1e-6):
        raise AssertionError(f"{family} {index}: an algorithm ({low}) below the "
                             f"{'optimum' if family == 'small' else 'bound'} {base}")
    out["cpu"] = round(time.process_time() - c0, 3)
    return out


# ------------------------------------------------------------------------------- search
def choose(train_rows: list[dict]) -> tuple[dict, dict]:
    """Per swept policy and K, the grid point with the smallest mean ALG/OPT over the proved
    training instances (ties: the first in grid order).  Returns (choice, table) with
    ``choice[label][str(K)] = [first, mult]`` and ``table[label][str(K)]`` = every grid point's
    mean ratio."""
    rows = [r for r in train_rows if r["opt"]["proved"]]
    choice: dict = {}
    table: dict = {}
    for label in SWEPT:
        choice[label], table[label] = {}, {}
        for K in KS:
            means = {}
            for thr, fm in grid_thresholds(K).items():
                key = f"{label}|{K}|{fm[0]}|{fm[1]}"
                means[fm] = statistics.fmean(r["grid"][key] / r["opt"]["value"] for r in rows)
            best = min(means, key=lambda fm: means[fm])
            f, m = best
            choice[label][str(K)] = [f, m if m is not None else DEFAULT_GEOMETRIC[1]]
            table[label][str(K)] = {f"{a}x{b}" if b is not None else f"{a}": round(v, 6)
                                    for (a, b), v in means.items()}
    return choice, table


# ------------------------------------------------------------------------------- summary
def summarise(rows: list[dict]) -> dict:
    """Per family: per swept policy, threshold kind and K the mean / worst ratio to the base
    (OPT or LB), the marginal gains and the share of the K = 1 -> 8 gain; the fixed
    algorithms' ratios; Creek's improvement ratios."""
    out: dict = {}
    for fam in ("small", "large-bs", "large-ft"):
        fr = [r for r in rows if r["family"] == fam]
        ok = [r for r in fr if r.get("base") is not None and r["values"]]
        if not fr:
            continue
        s: dict = {"instances": len(fr), "scored": len(ok),
                   "unproved": len(fr) - len(ok) if fam == "small" else 0,
                   "base": "OPT (bnb, proved)" if fam == "small" else "best certified bound",
                   "flows_mean": round(statistics.fmean(r["flows"] for r in fr), 1),
                   "swept": {}, "fixed": {}, "improvement_over": {}}
        if not ok:
            out[fam] = s
            continue

        def ratios(key):
            return [r["values"][key] / r["base"] for r in ok]

        for label in SWEPT:
            for kind in ("geometric", "searched"):
                means = [statistics.fmean(ratios(f"{label}|{kind}|{K}")) for K in KS]
                worst = [max(ratios(f"{label}|{kind}|{K}")) for K in KS]
                total = means[0] - means[-1]
                s["swept"][f"{label}|{kind}"] = {
                    "mean": [round(x, 6) for x in means], "worst": [round(x, 6) for x in worst],
                    "marginal_gain": [round(means[i] - means[i + 1], 6)
                                      for i in range(len(KS) - 1)],
                    "share_of_gain": [None if total <= 1e-3 else round((means[0] - x) / total, 4)
                                      for x in means]}
        for label in FIXED:
            if not all(label in r["values"] for r in ok):
                continue
            x = ratios(label)
            s["fixed"][label] = {"mean": round(statistics.fmean(x), 6),
                                 "worst": round(max(x), 6)}
        creek8 = [r["values"]["creek|geometric|8"] for r in ok]
        for name, key in (("baraat", "baraat"), ("PFS (K = 1, per-flow fair)",
                                                 "mlfq-fair|geometric|1"),
                          ("FIFO (K = 1)", "mlfq-fifo|geometric|1"),
                          ("aalo", "aalo"), ("aalo-reallocate", "aalo-reallocate"),
                          ("decentralized-las", "decentralized-las"),
                          ("bssi+greedy", "bssi+greedy")):
            if not all(key in r["values"] for r in ok):
                continue
            imp = [r["values"][key] / c for r, c in zip(ok, creek8)]
            s["improvement_over"][name] = {"mean": round(statistics.fmean(imp), 4),
                                           "min": round(min(imp), 4),
                                           "max": round(max(imp), 4)}
        out[fam] = s
    return out


# ------------------------------------------------------------------------------- report
FAM_TITLE = {"small": "small (6 x 6 big switch, 4-7 coflows): ALG / OPT",
             "large-bs": "large, big switch (16 ports, {n} coflows): ALG / LB",
             "large-ft": "large, fat-tree k = 4 with ECMP ({n} coflows): ALG / LB"}


def _title(fam: str, meta: dict) -> str:
    return FAM_TITLE[fam].format(n=meta.get("large_coflows", LARGE_COFLOWS))


def _fmt(x, d=3):
    return "-" if x is None else f"{x:.{d}f}"


def markdown(data: dict) -> str:
    summ, meta = data["summary"], data["meta"]
    L = ["# Creek K-sweep: MLFQ levels K = 1..8 against OPT and the best bound", "",
         f"Generated by `experiments/creek_ksweep_study.py` at commit {meta['commit']} "
         f"({meta['date']}); seed {meta['seed']}; {meta['cpu_seconds']:.0f} s CPU over all "
         f"tasks, {meta['wall_seconds']:.0f} s wall with {meta['workers']} worker(s)"
         + (" (--quick)" if meta.get("quick") else "") + ".", "",
         f"Training set: {meta['train']} small instances ({meta['train_proved']} proved); "
         f"grid first in {list(GRID_FIRST)} MB x multiplier in {list(GRID_MULT)}; "
         "geometric default 10 MB x 10^i.", ""]
    if meta.get("filled_later"):
        L += [f"Added after the run by `--fill-missing` (same instances, verified): "
              f"{', '.join(meta['filled_later'])}.", ""]
    L += ["## Searched thresholds (best mean ALG/OPT on the training set)", "",
          "| policy | " + " | ".join(f"K={K}" for K in KS) + " |",
          "|---|" + "---|" * len(KS)]
    for label in SWEPT:
        cells = []
        for K in KS:
            f, m = data["searched"][label][str(K)]
            cells.append("-" if K == 1 else (f"{f:g}" if K == 2 else f"{f:g} x {m:g}^i"))
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    L.append("")
    chk = data.get("large_search_check")
    if chk:
        L += [f"## Check: {chk['label']} with thresholds searched on large big-switch draws", "",
              f"Grid searched by mean ALG/LB on large-bs draws {chk['train_indices']} "
              f"({chk['train_flows']} flows), evaluated on the {chk['test_instances']} large-bs "
              f"test instances; {chk['cpu_seconds']:.0f} s CPU.", "",
              "| | " + " | ".join(f"K={K}" for K in KS) + " |", "|---|" + "---|" * len(KS),
              "| thresholds | " + " | ".join(
                  "-" if K == 1 else (f"{f:g}" if K == 2 else f"{f:g} x {m:g}^i")
                  for K, (f, m) in ((K, chk["choice"][str(K)]) for K in KS)) + " |",
              "| mean ALG/LB | " + " | ".join(_fmt(x) for x in chk["mean"]) + " |",
              "| worst ALG/LB | " + " | ".join(_fmt(x) for x in chk["worst"]) + " |",
              "| gain K-1 -> K | - | " + " | ".join(_fmt(x, 4) for x in chk["marginal_gain"])
              + " |",
              "| share of K=1->8 gain | " + " | ".join(
                  "-" if x is None else f"{100 * x:.0f}%" for x in chk["share_of_gain"]) + " |",
              ""]
    for fam, s in summ.items():
        L += [f"## {_title(fam, meta)}", "",
              f"{s['instances']} instances, {s['scored']} scored "
              f"({s['unproved']} unproved skipped); base: {s['base']}; "
              f"{s['flows_mean']} flows on average.", ""]
        if not s["swept"]:
            continue
        L += ["| policy | thresholds | " + " | ".join(f"K={K}" for K in KS) + " |",
              "|---|---|" + "---|" * len(KS)]
        for key, v in s["swept"].items():
            lab, kind = key.split("|")
            L.append(f"| {lab} | {kind} mean | " + " | ".join(_fmt(x) for x in v["mean"])
                     + " |")
            L.append(f"| | {kind} worst | " + " | ".join(_fmt(x) for x in v["worst"]) + " |")
            L.append(f"| | {kind} gain K-1 -> K | - | "
                     + " | ".join(_fmt(x, 4) for x in v["marginal_gain"]) + " |")
            L.append(f"| | {kind} share of K=1->8 gain | "
                     + " | ".join("-" if x is None else f"{100 * x:.0f}%"
                                  for x in v["share_of_gain"]) + " |")
        L += ["", "| not swept | mean | worst |", "|---|---|---|"]
        for lab, v in s["fixed"].items():
            L.append(f"| {lab} | {_fmt(v['mean'])} | {_fmt(v['worst'])} |")
        L += ["", "Creek's improvement ratio CCT_target / CCT_creek (creek, K = 8, geometric "
              "default), per instance:", "", "| target | mean | min | max |", "|---|---|---|---|"]
        for lab, v in s["improvement_over"].items():
            L.append(f"| {lab} | {v['mean']:.3f} | {v['min']:.3f} | {v['max']:.3f} |")
        L.append("")
    return "\n".join(L) + "\n"


def plot(data: dict, path: Path) -> list[str]:
    """One panel per family: mean ratio against K for the swept policies (solid: geometric
    default, dashed: searched), the fixed algorithms as horizontal lines."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from coflowopt.experiments.plots import OKABE_ITO, SAVE_RC
    fams = [f for f in ("small", "large-bs", "large-ft")
            if f in data["summary"] and data["summary"][f]["swept"]]
    fig = Figure(figsize=(4.2 * max(1, len(fams)), 3.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, max(1, len(fams)), squeeze=False)[0]
    names = list(SWEPT) + list(FIXED)
    colours = {n: OKABE_ITO[i % len(OKABE_ITO)] for i, n in enumerate(names)}
    dash = {n: (":" if i < len(OKABE_ITO) else "-.") for i, n in enumerate(names)}
    for ax, fam in zip(axes, fams):
        s = data["summary"][fam]
        for key, v in s["swept"].items():
            lab, kind = key.split("|")
            ax.plot(KS, v["mean"], color=colours[lab], marker="o", ms=3,
                    ls="-" if kind == "geometric" else "--", label=f"{lab} ({kind})")
        for lab, v in s["fixed"].items():
            ax.axhline(v["mean"], color=colours[lab], ls=dash[lab], lw=1.2, label=lab)
        ax.set_xlabel("K (priority levels)")
        ax.set_ylabel("mean ALG / OPT" if fam == "small" else "mean ALG / best bound")
        ax.set_title(_title(fam, data["meta"]).split(":")[0] + f" (n = {s['scored']})",
                     fontsize=8.5)
        ax.set_xticks(KS)
        ax.grid(alpha=0.3)
    if fams:
        axes[0].legend(fontsize=6.5, loc="upper right")
    out = []
    path.parent.mkdir(parents=True, exist_ok=True)
    with rc_context(SAVE_RC):      # pdf.fonttype = 42: TrueType fonts, never Type 3
        for ext in (".png", ".pdf"):
            q = path.with_suffix(ext)
            fig.savefig(q, dpi=150 if ext == ".png" else None)
            out.append(str(q))
    return out


# ------------------------------------------------------------------------------- main
def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                              capture_output=True, text=True, check=True).stdout.strip()
    except Exception:  # pragma: no cover
        return "unknown"


def _map(fn, tasks, workers):
    if workers <= 1:
        return [fn(t) for t in tasks]
    with ProcessPoolExecutor(workers) as ex:
        return list(ex.map(fn, tasks))


def run_study(*, seed=0, train=6, small=24, large=5, large_ft=3, bnb_limit=30.0, workers=1,
              num_coflows=LARGE_COFLOWS, quick=False) -> dict:
    """Run everything; return the JSON-able record (``meta``, ``searched``, ``grid_means``,
    ``train``, ``rows``, ``summary``)."""
    t0 = time.perf_counter()
    train_rows = _map(train_task, [(i, seed, bnb_limit) for i in range(train)], workers)
    searched, grid_means = choose(train_rows)
    tasks = [("small", train + i, seed, bnb_limit, searched, num_coflows) for i in range(small)]
    tasks += [("large-bs", i, seed, bnb_limit, searched, num_coflows) for i in range(large)]
    tasks += [("large-ft", i, seed, bnb_limit, searched, num_coflows) for i in range(large_ft)]
    rows = _map(eval_task, tasks, workers)
    cpu = sum(r["cpu"] for r in train_rows) + sum(r["cpu"] for r in rows)
    meta = {"seed": seed, "train": train, "train_proved": sum(r["opt"]["proved"]
                                                              for r in train_rows),
            "small": small, "large": large, "large_ft": large_ft, "bnb_time_limit": bnb_limit,
            "large_coflows": num_coflows, "workers": workers, "quick": quick,
            "grid_first": list(GRID_FIRST), "grid_mult": list(GRID_MULT),
            "geometric_default": list(DEFAULT_GEOMETRIC), "large_bounds": list(LARGE_BOUNDS),
            "small_group_probabilities": SMALL_GROUPS,
            "large_group_probabilities": LARGE_GROUPS,
            "commit": _commit(), "python": platform.python_version(),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu_seconds": round(cpu, 1), "wall_seconds": round(time.perf_counter() - t0, 1)}
    return {"meta": meta, "searched": searched, "grid_means": grid_means,
            "train": train_rows, "rows": rows, "summary": summarise(rows)}


def fill_missing(data: dict) -> int:
    """Run every algorithm of :data:`FIXED` that a scored row of ``data`` lacks (an algorithm
    added after the run) on the same instance, verified, and recompute the summary.  Returns
    the number of runs."""
    seed, n = data["meta"]["seed"], data["meta"].get("large_coflows", LARGE_COFLOWS)
    runs, added = 0, set()
    for r in data["rows"]:
        if r.get("base") is None or not r["values"]:
            continue
        todo = [lab for lab in FIXED if lab not in r["values"]]
        if not todo:
            continue
        inst = build(r["family"], r["index"], seed, n)
        c0 = time.process_time()
        for lab in todo:
            v = run_value(inst, lab)
            if v < r["base"] * (1 - 1e-6):
                raise AssertionError(f"{lab} below the base on {r['family']} {r['index']}")
            r["values"][lab] = v
            runs += 1
            added.add(lab)
        dt = time.process_time() - c0
        r["cpu"] = round(r["cpu"] + dt, 3)
        data["meta"]["cpu_seconds"] = round(data["meta"]["cpu_seconds"] + dt, 1)
    data["meta"]["filled_later"] = sorted(set(data["meta"].get("filled_later", [])) | added)
    data["summary"] = summarise(data["rows"])
    return runs


def _large_train_task(args) -> dict:
    index, seed, n, label = args
    c0 = time.process_time()
    inst = large_instance(index, seed, num_coflows=n)
    out = {"index": index, "flows": inst.num_flows, "lb": _lb(inst), "grid": {}}
    for K in KS:
        for thr, fm in grid_thresholds(K).items():
            out["grid"][f"{K}|{fm[0]}|{fm[1]}"] = run_value(inst, label, list(thr))
    out["cpu"] = round(time.process_time() - c0, 3)
    return out


def large_search_check(data: dict, *, train: int = 2, label: str = "creek",
                       workers: int = 1) -> dict:
    """A check of the transfer: the grid searched for ``label`` on ``train`` *large big-switch*
    draws that are not test instances (indices after the test ones), by mean ALG/LB, then
    evaluated on the large-bs test instances of ``data``.  Stored as
    ``data["large_search_check"]``; the summary is unchanged."""
    seed, n = data["meta"]["seed"], data["meta"].get("large_coflows", LARGE_COFLOWS)
    first = data["meta"]["large"]
    t0 = time.perf_counter()
    rows = _map(_large_train_task, [(first + i, seed, n, label) for i in range(train)], workers)
    choice = {}
    for K in KS:
        means = {fm: statistics.fmean(r["grid"][f"{K}|{fm[0]}|{fm[1]}"] / r["lb"]["value"]
                                      for r in rows)
                 for fm in grid_thresholds(K).values()}
        f, m = min(means, key=lambda fm: means[fm])
        choice[str(K)] = [f, m if m is not None else DEFAULT_GEOMETRIC[1]]
    test = [r for r in data["rows"] if r["family"] == "large-bs" and r.get("base")]
    c0, ratios = time.process_time(), {K: [] for K in KS}
    for r in test:
        inst = build("large-bs", r["index"], seed, n)
        for K in KS:
            thr = thresholds(K, *choice[str(K)])
            v = None
            for kind, fm in (("geometric", DEFAULT_GEOMETRIC),
                             ("searched", data["searched"][label][str(K)])):
                if thr == thresholds(K, *fm):
                    v = r["values"][f"{label}|{kind}|{K}"]
            if v is None:
                v = run_value(inst, label, thr)
            if v < r["base"] * (1 - 1e-6):
                raise AssertionError(f"{label} below the bound on large-bs {r['index']}")
            ratios[K].append(v / r["base"])
    means = [statistics.fmean(ratios[K]) for K in KS]
    total = means[0] - means[-1]
    out = {"label": label, "train_indices": [r["index"] for r in rows],
           "train_flows": [r["flows"] for r in rows], "choice": choice,
           "test_instances": len(test),
           "mean": [round(x, 6) for x in means],
           "worst": [round(max(ratios[K]), 6) for K in KS],
           "marginal_gain": [round(means[i] - means[i + 1], 6) for i in range(len(KS) - 1)],
           "share_of_gain": [None if total <= 1e-3 else round((means[0] - x) / total, 4)
                             for x in means],
           "cpu_seconds": round(sum(r["cpu"] for r in rows) + time.process_time() - c0, 1),
           "wall_seconds": round(time.perf_counter() - t0, 1)}
    data["large_search_check"] = out
    return out


def write(data: dict, out: Path, stem: str = "creek_ksweep") -> list[str]:
    """``out/stem.json``, ``out/stem.md`` and ``out/plots/stem.{png,pdf}``."""
    out.mkdir(parents=True, exist_ok=True)
    j = out / f"{stem}.json"
    j.write_text(json.dumps(data, indent=1) + "\n")
    m = out / f"{stem}.md"
    m.write_text(markdown(data))
    return [str(j), str(m)] + plot(data, out / "plots" / f"{stem}.png")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=int, default=6)
    ap.add_argument("--small", type=int, default=24)
    ap.add_argument("--large", type=int, default=5)
    ap.add_argument("--large-fat-tree", type=int, default=3)
    ap.add_argument("--large-coflows", type=int, default=LARGE_COFLOWS)
    ap.add_argument("--bnb-time-limit", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 1 training, 2 small, 1 large instance of 6 coflows; "
                         "writes to --out (default: a temporary directory, not the repo)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output directory (default experiments/results)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the .md and the plot from the JSON")
    ap.add_argument("--large-search-check", type=int, default=0, metavar="N",
                    help="on the JSON: search creek's thresholds on N large big-switch draws "
                         "(not test instances) and evaluate them on the large-bs test set")
    ap.add_argument("--fill-missing", action="store_true",
                    help="run the not-swept algorithms missing from the JSON's rows (added "
                         "after the run) on the same instances, then rewrite everything")
    a = ap.parse_args(argv)
    out = a.out or (Path(tempfile.mkdtemp(prefix="creek_ksweep_")) if a.quick else RESULTS)
    if a.large_search_check:
        data = json.loads((out / "creek_ksweep.json").read_text())
        chk = large_search_check(data, train=a.large_search_check, workers=a.workers)
        print(json.dumps({k: chk[k] for k in ("choice", "mean", "cpu_seconds")}))
        print("\n".join(write(data, out)))
        return 0
    if a.fill_missing:
        data = json.loads((out / "creek_ksweep.json").read_text())
        print(f"{fill_missing(data)} runs added")
        print("\n".join(write(data, out)))
        return 0
    if a.report_only:
        data = json.loads((out / "creek_ksweep.json").read_text())
        (out / "creek_ksweep.md").write_text(markdown(data))
        print("\n".join(plot(data, out / "plots" / "creek_ksweep.png")))
        return 0
    if a.quick:
        kw = dict(train=1, small=2, large=1, large_ft=0, num_coflows=6)
    else:
        kw = dict(train=a.train, small=a.small, large=a.large, large_ft=a.large_fat_tree,
                  num_coflows=a.large_coflows)
    data = run_study(seed=a.seed, bnb_limit=a.bnb_time_limit, workers=a.workers,
                     quick=a.quick, **kw)
    for p in write(data, out):
        print(p)
    print(markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
