"""Reports over a results table: ratios against certified bases, wins, runtimes, factors.

Every ratio names its base:

``ALG/LB``
    a schedule's value over the **best certified lower bound** of its instance: the largest
    value among the rows of the bound methods (kind ``lower_bound``).  The bound that attains
    it is named per instance (``lb_source``) and counted per method in the report.  Exact
    methods do not count by default (``lb_from_exact=True`` adds their optima and the proven
    bounds of searches stopped by a time limit): so ALG/LB says what polynomial-time
    certificates prove, and ALG/OPT what is true.
``ALG/OPT``
    a schedule's value over a **proven optimum** (a row of kind ``optimal``); reported only
    over the instances that have one, and says how many.

In a run of the **integral matching model** (rows with ``model = "integral"``, from a spec
with ``model = "integral"``) the schedules are slotted ones verified by ``verify_slotted`` and
the optimum is the *integral* one (an ``integral_model`` exact method, e.g. integral-mip), so
ALG/OPT is ALG over the integral optimum; the report says so in its first line.  Rows of the
two models never share a base (the model is part of the instance key).

Statistics are n, mean, median, p95 and max (percentiles by linear interpolation, numpy's
default).  Everything here works on plain row dicts (:func:`coflowopt.experiments.store
.load_rows`), so it needs neither DuckDB nor a run folder; the same tables can be written as
SQL over :func:`coflowopt.experiments.store.connect`.

**Completion metrics** (rows written since the ``metrics`` column, see
:func:`coflowopt.experiments.tasks.completion_metrics`): per schedule algorithm, the mean over
instances of the slowdown CCT/OCT (mean, p50, p99, max over coflows), the normalised FCT (mean,
p99 over flows), Jain's index over OCT/CCT and the throughput.  **Factors of improvement**
(:func:`improvement_factors`) can be split per coflow class: Sincronia's OCT bins
(:func:`oct_bins`), Varys's SN/LN/SW/LW bins, mice/elephant by total size
(:data:`CLASSIFICATIONS`, :func:`coflow_classes`).

A report also lists **inconsistencies**: a verified schedule below a certified lower bound, or
two proven optima that disagree (relative tolerance ``rtol``).  There should be none; each one
is a bug in a bound, an exact method or the verifier.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = ["analyse", "stats", "instance_bases", "ratio_rows", "improvement_factors",
           "format_report", "format_table", "format_factors", "format_integrity", "RTOL",
           "CLASSIFICATIONS", "oct_bins", "coflow_classes", "completion_metric_table",
           "format_class_factors"]

#: Relative tolerance for "equal" values (ties in wins, checks against bounds).
RTOL = 1e-9


def stats(values: Iterable[float]) -> dict[str, Any]:
    """n, mean, median, p95, max (and min) of the finite values; ``None`` entries if empty.

    Examples
    --------
    >>> round(stats([1.0, 2.0, 3.0, 4.0])["p95"], 12)
    3.85
    """
    a = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if a.size == 0:
        return {"n": 0, "mean": None, "median": None, "p95": None, "max": None, "min": None}
    return {"n": int(a.size), "mean": float(a.mean()), "median": float(np.median(a)),
            "p95": float(np.percentile(a, 95)), "max": float(a.max()), "min": float(a.min())}


def _inst(r: Mapping[str, Any]) -> tuple:
    key = (r.get("instance_hash") or r.get("instance_key"), r.get("objective"))
    # an integral-model row never shares a base with a fluid one (fluid keys unchanged)
    return key + ("integral",) if r.get("model") == "integral" else key


def instance_bases(rows: Sequence[Mapping[str, Any]], rtol: float = RTOL,
                   lb_from_exact: bool = False) -> dict[tuple, dict]:
    """Per (instance, objective): best certified lower bound with its source(s), and the
    proven optimum with its source.

    The lower bound comes from the bound methods' rows; with ``lb_from_exact`` also from
    exact methods (their optima, and the proven bounds of searches stopped by a limit).

    Returns
    -------
    dict
        ``{(instance_hash, objective): {"lb", "lb_source", "lb_sources", "opt",
        "opt_source", "opt_values"}}``; ``lb_sources`` lists every method within ``rtol`` of
        the best.
    """
    cand: dict[tuple, list[tuple[float, str]]] = defaultdict(list)
    opts: dict[tuple, list[tuple[float, str]]] = defaultdict(list)
    for r in rows:
        k = _inst(r)
        v = r.get("value")
        kind = r.get("result_kind")
        exact = r.get("algorithm_kind") == "exact"
        if v is not None and (kind == "lower_bound" or
                              (kind == "optimal" and (lb_from_exact or not exact))):
            cand[k].append((float(v), r["algorithm"]))
        if kind == "optimal" and v is not None:
            opts[k].append((float(v), r["algorithm"]))
        if lb_from_exact and exact and kind != "optimal" and \
                r.get("bound") is not None and r.get("status") not in (
                    "error", "crashed", "not_supported"):
            cand[k].append((float(r["bound"]), f"{r['algorithm']} (bound)"))
    out = {}
    for k in set(cand) | set(opts):
        d: dict[str, Any] = {"lb": None, "lb_source": None, "lb_sources": [], "opt": None,
                             "opt_source": None, "opt_values": []}
        if cand[k]:
            best = max(v for v, _ in cand[k])
            d["lb"] = best
            srcs = sorted({s for v, s in cand[k] if v >= best - rtol * abs(best)})
            d["lb_sources"] = srcs
            # name one source: prefer a bound method over the optimum (it says which bound
            # is tight), else the first name
            bounds = [s for s in srcs if s not in {n for _, n in opts[k]}]
            d["lb_source"] = (bounds or srcs)[0]
        if opts[k]:
            d["opt"], d["opt_source"] = min(opts[k])
            d["opt_values"] = sorted(opts[k])
        out[k] = d
    return out


def ratio_rows(rows: Sequence[Mapping[str, Any]], bases: Mapping[tuple, dict] | None = None
               ) -> list[dict[str, Any]]:
    """One dict per verified schedule row with ``alg_lb`` (ALG/LB) and ``alg_opt``
    (ALG/OPT, ``None`` without an optimum), plus the base values and the LB's source."""
    bases = bases if bases is not None else instance_bases(rows)
    out = []
    for r in rows:
        if r.get("algorithm_kind") != "schedule" or r.get("result_kind") is None or \
                r.get("value") is None:
            continue
        b = bases.get(_inst(r), {})
        v = float(r["value"])
        lb, opt = b.get("lb"), b.get("opt")
        out.append({"instance_key": r.get("instance_key"), "instance_hash": r.get("instance_hash"),
                    "instance_group": r.get("instance_group"), "coflows": r.get("coflows"),
                    "flows": r.get("flows"), "max_port_load": r.get("max_port_load"),
                    "instance_params": r.get("instance_params") or {},
                    "algorithm": r["algorithm"], "repetition": r.get("repetition", 0),
                    "value": v, "lb": lb, "lb_source": b.get("lb_source"), "opt": opt,
                    "alg_lb": _div(v, lb), "alg_opt": _div(v, opt)})
    return out


def _div(a: float, b: float | None) -> float | None:
    if b is None:
        return None
    if b > 0:
        return a / b
    return 1.0 if a == 0 else math.inf


def _wins(rrows: list[dict], rtol: float) -> tuple[dict, dict]:
    """Against the best heuristic per (instance, repetition), and pairwise."""
    groups: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in rrows:
        groups[(r["instance_hash"], r["repetition"])][r["algorithm"]] = r["value"]
    vs_best: dict[str, dict[str, Any]] = defaultdict(lambda: {"n": 0, "best": 0,
                                                             "unique_best": 0, "excess": []})
    pair: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for vals in groups.values():
        best = min(vals.values())
        tol = rtol * max(abs(best), 1.0)
        at_best = [a for a, v in vals.items() if v <= best + tol]
        for a, v in vals.items():
            s = vs_best[a]
            s["n"] += 1
            s["best"] += v <= best + tol
            s["unique_best"] += at_best == [a]
            s["excess"].append(_div(v, best))
        names = sorted(vals)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                va, vb = vals[a], vals[b]
                t = rtol * max(abs(va), abs(vb), 1.0)
                k = 0 if va < vb - t else (2 if vb < va - t else 1)
                pair[a][b][k] += 1
                pair[b][a][2 - k] += 1
    best_out = {a: {"n": s["n"], "best": s["best"], "unique_best": s["unique_best"],
                    "mean_over_best": stats(s["excess"])["mean"]} for a, s in vs_best.items()}
    pair_out = {a: {b: {"wins": w, "ties": t, "losses": l} for b, (w, t, l) in d.items()}
                for a, d in pair.items()}
    return best_out, pair_out


def _runtime_table(rows: Sequence[Mapping[str, Any]], baseline: str | None) -> dict[str, Any]:
    secs: dict[str, list[float]] = defaultdict(list)
    per_inst: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in rows:
        s = r.get("seconds")
        if s is None or r.get("status") in ("time_limit", "crashed"):
            continue
        secs[r["algorithm"]].append(float(s))
        per_inst[(r.get("instance_hash"), r.get("repetition", 0))][r["algorithm"]] = float(s)
    out = {}
    for a, v in secs.items():
        st = stats(v)
        st["total"] = float(sum(v))
        if baseline is not None and baseline in secs:
            ratios = [d[a] / d[baseline] for d in per_inst.values()
                      if a in d and baseline in d and d[baseline] > 0]
            st["median_vs_baseline"] = stats(ratios)["median"]
        out[a] = st
    return out


def analyse(rows: Sequence[Mapping[str, Any]], *, rtol: float = RTOL,
            baseline: str | None = "fifo+greedy", planned: int | None = None,
            lb_from_exact: bool = False, planned_ids: Iterable[str] | None = None,
            store: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Every table of a report, as plain data.

    Parameters
    ----------
    rows : sequence of dict
        The logical results table (one row per task).
    rtol : float
        Relative tolerance for ties and consistency checks.
    baseline : str, optional
        Runtime ratios are against this algorithm, per instance in the same run (default
        ``fifo+greedy``; ignored when absent).
    planned : int, optional
        Number of planned tasks, to report missing rows.
    planned_ids : iterable of str, optional
        The planned task ids: rows of other tasks are counted as ``extra`` and planned tasks
        without a row as ``missing`` (``planned`` is then their number).
    store : mapping, optional
        ``stats`` of :func:`~coflowopt.experiments.store.load_rows` (physical lines,
        superseded and unreadable ones), repeated in the integrity line.
    lb_from_exact : bool
        Let exact methods' optima and proven bounds count as lower bounds (see the module
        docstring).

    Returns
    -------
    dict
        ``instances``, ``with_lb``, ``with_opt``, ``lb_sources`` (how often each method gave
        the best bound, ties counted for each), ``schedules`` (per algorithm: counts, ALG/LB
        and ALG/OPT statistics, wins vs best), ``bounds`` (LB/OPT and LB/best-LB per bound),
        ``exact`` (statuses, times), ``runtimes``, ``pairwise``, ``statuses``,
        ``failures`` (first few errors), ``inconsistencies``, ``integrity`` (row count,
        duplicated (instance, algorithm, repetition) keys, missing and extra task ids).
    """
    rows = list(rows)
    integrity = _integrity(rows, planned_ids, store)
    if planned_ids is not None:
        planned = integrity["planned"]
    bases = instance_bases(rows, rtol, lb_from_exact)
    rr = ratio_rows(rows, bases)
    by_alg: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_alg[r["algorithm"]].append(r)
    kinds = {a: rs[0].get("algorithm_kind") for a, rs in by_alg.items()}

    best, pair = _wins(rr, rtol)
    sched = []
    for a in sorted(a for a, k in kinds.items() if k == "schedule"):
        mine = [x for x in rr if x["algorithm"] == a]
        st = _status_counts(by_alg[a])
        at_opt = sum(1 for x in mine if x["alg_opt"] is not None and
                     x["alg_opt"] <= 1.0 + max(rtol, 1e-9))
        sched.append({"algorithm": a, "rows": len(by_alg[a]), "feasible": len(mine),
                      "statuses": st, "at_opt": at_opt,
                      "alg_lb": stats(x["alg_lb"] for x in mine),
                      "alg_opt": stats(x["alg_opt"] for x in mine),
                      **{f"vs_best_{k}": v for k, v in best.get(a, {}).items()}})
    sched.sort(key=lambda d: (d["alg_lb"]["mean"] is None, d["alg_lb"]["mean"] or 0,
                              d["algorithm"]))

    lb_count: dict[str, int] = defaultdict(int)
    for b in bases.values():
        for s in b["lb_sources"]:
            lb_count[s] += 1
    bnd = []
    for a in sorted(a for a, k in kinds.items() if k == "bound"):
        lo, lb_ratio = [], []
        for r in by_alg[a]:
            if r.get("result_kind") != "lower_bound" or r.get("value") is None:
                continue
            b = bases.get(_inst(r), {})
            lo.append(_div(float(r["value"]), b.get("opt")) if b.get("opt") else None)
            lb_ratio.append(_div(float(r["value"]), b.get("lb")))
        bnd.append({"algorithm": a, "rows": len(by_alg[a]), "certified": len(lb_ratio),
                    "statuses": _status_counts(by_alg[a]), "best_count": lb_count.get(a, 0),
                    "lb_opt": stats(lo), "lb_best": stats(lb_ratio)})
    exact = []
    for a in sorted(a for a, k in kinds.items() if k == "exact"):
        rs = by_alg[a]
        exact.append({"algorithm": a, "rows": len(rs), "statuses": _status_counts(rs),
                      "optimal": sum(r.get("result_kind") == "optimal" for r in rs),
                      "gap": stats(r.get("gap") for r in rs if r.get("result_kind") != "optimal"),
                      "seconds": stats(r.get("seconds") for r in rs)})

    incons = []
    for r in rr:
        if r["lb"] is not None and r["value"] < r["lb"] - rtol * max(abs(r["lb"]), 1.0):
            incons.append({"instance_key": r["instance_key"], "algorithm": r["algorithm"],
                           "value": r["value"], "lb": r["lb"], "lb_source": r["lb_source"],
                           "rule": "a verified schedule is below a certified lower bound"})
    for k, b in bases.items():
        if b["opt"] is not None and b["lb"] is not None and \
                b["opt"] < b["lb"] - rtol * max(abs(b["lb"]), 1.0):
            incons.append({"instance_hash": k[0], "opt": b["opt"], "lb": b["lb"],
                           "lb_source": b["lb_source"],
                           "rule": "a proven optimum is below a certified lower bound"})
        vals = [v for v, _ in b["opt_values"]]
        if vals and max(vals) - min(vals) > rtol * max(abs(max(vals)), 1.0):
            incons.append({"instance_hash": k[0], "optima": b["opt_values"],
                           "rule": "proven optima disagree"})
    failures = [{"instance_key": r.get("instance_key"), "algorithm": r["algorithm"],
                 "status": r.get("status"),
                 "error": (r.get("error") or {}).get("type", "") + ": " +
                          (r.get("error") or {}).get("message", "")}
                for r in rows if r.get("error")]
    instances = {_inst(r) for r in rows}
    extra = {}
    met = completion_metric_table(rows)
    if met:  # only rows written since the metrics column exists carry them
        extra["metrics"] = met
    return {**extra,
        "objective": sorted({r.get("objective") for r in rows if r.get("objective")}),
        "model": sorted({r.get("model") or "fluid" for r in rows}),
        "rows": len(rows), "planned": planned,
        "missing": None if planned is None else planned - len(rows),
        "instances": len(instances),
        "with_lb": sum(1 for b in bases.values() if b["lb"] is not None),
        "with_opt": sum(1 for b in bases.values() if b["opt"] is not None),
        "lb_sources": dict(sorted(lb_count.items(), key=lambda kv: -kv[1])),
        "schedules": sched, "bounds": bnd, "exact": exact,
        "runtimes": _runtime_table(rows, baseline), "runtime_baseline": baseline,
        "pairwise": pair, "statuses": _status_counts(rows),
        "failures": failures[:50], "failure_count": len(failures),
        "inconsistencies": incons, "integrity": integrity,
    }


#: Columns of :func:`completion_metric_table`: (name, path into a row's ``metrics``).
_METRIC_COLUMNS = (("slowdown mean", ("slowdown", "mean")), ("p50", ("slowdown", "p50")),
                   ("p99", ("slowdown", "p99")), ("max", ("slowdown", "max")),
                   ("nFCT mean", ("nfct", "mean")), ("p99", ("nfct", "p99")),
                   ("Jain", ("jain",)), ("throughput", ("throughput",)))


def completion_metric_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per schedule algorithm, the mean over its rows (instances and repetitions) of each
    completion metric the rows carry (:func:`coflowopt.experiments.tasks.completion_metrics`):
    slowdown ``CCT/OCT`` (mean, p50, p99, max over coflows), normalised FCT (mean, p99 over
    flows), Jain's index over ``OCT/CCT``, throughput.  Empty when no row has metrics (run
    folders written before the ``metrics`` column).

    Examples
    --------
    >>> rows = [{"algorithm": "a", "metrics": {"slowdown": {"mean": 2.0}, "jain": 0.5}},
    ...         {"algorithm": "a", "metrics": {"slowdown": {"mean": 4.0}, "jain": 1.0}}]
    >>> t = completion_metric_table(rows)[0]
    >>> t["n"], t["slowdown_mean"], t["jain"], t["nfct_mean"]
    (2, 3.0, 0.75, None)
    """
    by: dict[str, list[Mapping]] = defaultdict(list)
    for r in rows:
        if isinstance(r.get("metrics"), Mapping):
            by[r["algorithm"]].append(r["metrics"])
    out = []
    for a in sorted(by):
        d: dict[str, Any] = {"algorithm": a, "n": len(by[a])}
        for _, path in _METRIC_COLUMNS:
            vals = []
            for m in by[a]:
                v = m
                for p in path:
                    v = v.get(p) if isinstance(v, Mapping) else None
                vals.append(v)
            d["_".join(path)] = stats(vals)["mean"]
        out.append(d)
    return out


def _integrity(rows: Sequence[Mapping[str, Any]], planned_ids: Iterable[str] | None,
               store: Mapping[str, int] | None) -> dict[str, Any]:
    """Row count, duplicated (instance, algorithm, repetition, objective) keys among the
    logical rows, and (with the plan) missing and extra task ids."""
    keys: dict[tuple, int] = defaultdict(int)
    for r in rows:
        keys[(r.get("instance_hash") or r.get("instance_key"), r.get("algorithm"),
              r.get("repetition", 0), r.get("objective"))] += 1
    dup = {k: n for k, n in keys.items() if n > 1}
    out: dict[str, Any] = {"rows": len(rows), "distinct_keys": len(keys),
                           "duplicated_keys": len(dup),
                           "duplicated_examples": [list(map(str, k)) for k in list(dup)[:5]],
                           "planned": None, "missing_ids": None, "extra_ids": None}
    if planned_ids is not None:
        want = set(planned_ids)
        have = {r.get("task_id") for r in rows}
        out.update(planned=len(want), missing_ids=len(want - have), extra_ids=len(have - want))
    if store:
        out["store"] = dict(store)
    return out


def _status_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for r in rows:
        out[str(r.get("status"))] += 1
    return dict(sorted(out.items()))


# ------------------------------------------------------------------------------ factors
def improvement_factors(rows: Sequence[Mapping[str, Any]], target: str, baseline: str, *,
                        percentiles: Sequence[float] = (90, 95, 99), rtol: float = RTOL,
                        classes: Mapping[str, Sequence[str]] | None = None,
                        by: Mapping[str, Mapping[str, Sequence]] | None = None
                        ) -> dict[str, Any]:
    """Factor of improvement of ``target`` over ``baseline`` from per-coflow CCTs.

    Factor = CCT_baseline / CCT_target (> 1: the target is faster), computed per instance both
    ways the papers may mean it, each labelled:

    ``ratio_of_means``           mean CCT_baseline / mean CCT_target
    ``mean_of_ratios``           mean over coflows of CCT_baseline,k / CCT_target,k
    ``ratio_of_p<q>``            q-th percentile CCT_baseline / q-th percentile CCT_target
    ``p<q>_of_ratios``           q-th percentile of the per-coflow ratios
    ``faster``, ``slower``       fraction of coflows with ratio > 1 (< 1) beyond ``rtol``

    Parameters
    ----------
    rows : sequence of dict
        Results with ``cct`` lists (``completion_times = true`` in the spec).
    target, baseline : str
        Algorithm labels.
    classes : mapping, optional
        ``instance_hash -> per-coflow class labels`` (e.g. the SN/LN/SW/LW bins): the
        factors are also given per class.
    by : mapping, optional
        ``classification name -> {instance_hash -> per-coflow labels}`` (see
        :data:`CLASSIFICATIONS` and :func:`coflow_classes`): each instance gets
        ``"by": {name: {label: factors}}``, labels in increasing order (numerically for
        OCT bins), each with its coflow count.

    Returns
    -------
    dict
        ``{"target", "baseline", "instances": [{"instance_key", ...factors...,
        "classes": {label: factors}, "by": {name: {label: factors}}}],
        "mean_over_instances": {...}}``.

    Examples
    --------
    Two coflows of OCT 1 and 3 (bins 0 and 1): the target is twice as fast on the first.

    >>> rows = [{"algorithm": "t", "instance_hash": "h", "instance_key": "i", "cct": [1, 3]},
    ...         {"algorithm": "b", "instance_hash": "h", "instance_key": "i", "cct": [2, 3]}]
    >>> f = improvement_factors(rows, "t", "b", by={"oct-bin": {"h": [0, 1]}})
    >>> {k: v["mean_of_ratios"] for k, v in f["instances"][0]["by"]["oct-bin"].items()}
    {'0': 2.0, '1': 1.0}
    """
    cct: dict[tuple, dict[str, np.ndarray]] = defaultdict(dict)
    keys = {}
    for r in rows:
        if r["algorithm"] in (target, baseline) and r.get("cct") and r.get("repetition", 0) == 0:
            k = _inst(r)
            cct[k][r["algorithm"]] = np.asarray(r["cct"], dtype=float)
            keys[k] = r.get("instance_key")
    per = []
    for k, d in cct.items():
        if target not in d or baseline not in d:
            continue
        f = _factors(d[baseline], d[target], percentiles, rtol)
        f["instance_key"] = keys[k]
        if classes is not None and k[0] in classes:
            lab = np.asarray(classes[k[0]])
            f["classes"] = {c: _factors(d[baseline][lab == c], d[target][lab == c],
                                        percentiles, rtol)
                            for c in sorted(set(lab.tolist()))}
        for name, labels in (by or {}).items():
            if k[0] not in labels:
                continue
            lab = np.asarray(labels[k[0]])
            if lab.shape != d[target].shape:
                continue  # the rebuilt instance does not match the row (file changed)
            f.setdefault("by", {})[name] = {
                str(c): _factors(d[baseline][lab == c], d[target][lab == c], percentiles,
                                 rtol)
                for c in sorted(set(lab.tolist()))}
        per.append(f)
    per.sort(key=lambda f: f["instance_key"])
    mean = {}
    if per:
        for name in per[0]:
            if name in ("instance_key", "classes", "coflows", "by"):
                continue
            mean[name] = float(np.mean([f[name] for f in per]))
    return {"target": target, "baseline": baseline,
            "definition": "factor = CCT_baseline / CCT_target (> 1: target faster)",
            "instances": per, "mean_over_instances": mean}


#: The per-coflow classifications of ``coflowopt report --factor A:B --by NAME``.
CLASSIFICATIONS: dict[str, str] = {
    "oct-bin": "bin i = floor(log2(OCT_k / OCT_min)), OCT = the coflow alone (Instance.rho), "
               "OCT_min over the instance (Sincronia Fig. 5e)",
    "sn-ln-sw-lw": "short = longest flow < 5, narrow = at most 50 flows (Varys's bins, "
                   "Instance.bins)",
    "mice-elephant": "mice = total coflow size < THRESHOLD (mice-elephant:THRESHOLD; default "
                     "1000, Creek's group I, under 1 GB, with sizes in MB)",
}

#: Default threshold of the mice-elephant classification (data units of the instance).
MICE_THRESHOLD = 1000.0


def oct_bins(oct_) -> np.ndarray:
    """Sincronia's OCT bins: ``floor(log2(OCT_k / min_j OCT_j))`` for every coflow.

    "An OCT bin i contains the set of coflows whose OCT is within [2^i, 2^(i+1)) of the OCT
    of the smallest coflow" (Sincronia, SIGCOMM 2018, Sec. 5.2 on Fig. 5e; Fig. 6e of the
    technical report).  The floor of the base-2 logarithm is read off the float's exponent
    (``numpy.frexp``), so a ratio that is exactly a power of two opens its bin.

    Examples
    --------
    >>> oct_bins([2.0, 3.0, 4.0, 7.9, 8.0, 100.0]).tolist()
    [0, 0, 1, 1, 2, 5]
    """
    o = np.asarray(oct_, dtype=float)
    if o.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, e = np.frexp(o / o.min())
    return (e - 1).astype(np.int64)


def coflow_classes(instance, name: str) -> np.ndarray:
    """Every coflow's class under a classification of :data:`CLASSIFICATIONS`
    (``mice-elephant:THRESHOLD`` sets the threshold).

    Examples
    --------
    >>> from coflowopt import Coflow, Instance
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 3.0)]),
    ...                               Coflow("C", [(0, 1, 2.0), (1, 1, 2.0)])])
    >>> coflow_classes(inst, "oct-bin").tolist()
    [0, 1, 2]
    >>> coflow_classes(inst, "mice-elephant:3").tolist()
    ['mice', 'elephant', 'elephant']
    """
    base, _, param = name.partition(":")
    if base == "oct-bin" and not param:
        return oct_bins(instance.rho)
    if base == "sn-ln-sw-lw" and not param:
        return np.asarray(instance.bins())
    if base == "mice-elephant":
        thr = float(param) if param else MICE_THRESHOLD
        return np.where(np.asarray(instance.total_size, dtype=float) < thr, "mice",
                        "elephant")
    raise ValueError(f"unknown classification {name!r} (one of "
                     f"{', '.join(CLASSIFICATIONS)}; mice-elephant:THRESHOLD)")


def _factors(base: np.ndarray, tgt: np.ndarray, percentiles, rtol) -> dict[str, Any]:
    ratio = base / tgt
    f: dict[str, Any] = {"coflows": int(base.size),
                         "ratio_of_means": float(base.mean() / tgt.mean()),
                         "mean_of_ratios": float(ratio.mean())}
    for q in percentiles:
        qs = f"{q:g}"
        f[f"ratio_of_p{qs}"] = float(np.percentile(base, q) / np.percentile(tgt, q))
        f[f"p{qs}_of_ratios"] = float(np.percentile(ratio, q))
    f["faster"] = float(np.mean(ratio > 1 + rtol))
    f["slower"] = float(np.mean(ratio < 1 - rtol))
    return f


# ------------------------------------------------------------------------------ text
# the one table printer (coflowopt.tables); kept importable from here
from ..tables import cell as _cell, format_table  # noqa: E402


def format_report(a: Mapping[str, Any], *, pairwise: bool = False,
                  markdown: bool = False) -> str:
    """The human-readable report of :func:`analyse` (tables in Markdown with ``markdown``)."""
    def format_table(*args, **kw):
        return _table(*args, markdown=markdown, **kw)
    out = []
    obj = ", ".join(a["objective"]) or "-"
    out.append(f"{a['rows']} rows over {a['instances']} instances ({obj}); "
               f"{a['with_lb']} with a certified lower bound, {a['with_opt']} with a proven "
               f"optimum" + ("" if a.get("missing") is None else
                             f"; {a['missing']} of {a['planned']} planned tasks have no row"))
    if "integral" in (a.get("model") or []):
        out.append("model: " + ", ".join(a["model"]) + " (integral: the matching model, slot 1, "
                   "whole units per slot and port; schedules are slotted ones verified by "
                   "verify_slotted; ALG/OPT is over the integral optimum, proved by an "
                   "integral_model exact method; ALG/LB over integral_model bounds only)")
    if a.get("integrity"):
        out.append(format_integrity(a["integrity"]))
    if a["schedules"]:
        out.append("")
        out.append("Schedules.  ALG/LB: value over the best certified lower bound of the "
                   "instance (bound methods); ALG/OPT: over the proven optimum (instances "
                   "with one only); at OPT: instances where ALG/OPT = 1; "
                   "wins: instances where the algorithm matches the best schedule found "
                   "(ties count for each), sole: it alone does; losses: another schedule is "
                   "strictly better.")
        body = []
        for s in a["schedules"]:
            lb, op = s["alg_lb"], s["alg_opt"]
            wins = s.get("vs_best_best")
            losses = None if wins is None else s.get("vs_best_n", 0) - wins
            body.append([s["algorithm"], s["feasible"], s["rows"] - s["feasible"],
                         lb["mean"], lb["median"], lb["p95"], lb["max"], op["n"], op["mean"],
                         op["median"], op["p95"], op["max"], s.get("at_opt"), wins,
                         s.get("vs_best_unique_best"), losses])
        out.append(format_table(
            ["algorithm", "ok", "fail", "ALG/LB mean", "median", "p95", "max", "n OPT",
             "ALG/OPT mean", "median", "p95", "max", "at OPT", "wins", "sole", "losses"],
            body))
    if a.get("metrics"):
        out.append("")
        out.append("Completion metrics (verified schedules with per-coflow CCTs; mean over "
                   "instances).  slowdown = CCT/OCT per coflow, OCT = the coflow alone; nFCT = "
                   "FCT / FCT alone per flow; Jain = Jain's index over OCT/CCT; throughput = "
                   "total data / (max C - min r).")
        body = [[m["algorithm"], m["n"]] + [m["_".join(p)] for _, p in _METRIC_COLUMNS]
                for m in a["metrics"]]
        out.append(format_table(["algorithm", "n"] + [c for c, _ in _METRIC_COLUMNS], body))
    if a["bounds"]:
        out.append("")
        out.append("Bounds.  LB/OPT over instances with a proven optimum; LB/best: over the "
                   "best certified bound; best: instances where the bound is the best (ties "
                   "count for each).")
        body = [[b["algorithm"], b["certified"], b["rows"] - b["certified"], b["lb_opt"]["n"],
                 b["lb_opt"]["mean"], b["lb_opt"]["min"], b["lb_best"]["mean"],
                 b["lb_best"]["min"], b["best_count"]] for b in a["bounds"]]
        out.append(format_table(["bound", "certified", "fail", "n OPT", "LB/OPT mean", "min",
                                 "LB/best mean", "min", "best"], body))
    if a["exact"]:
        out.append("")
        out.append("Exact methods.")
        body = [[e["algorithm"], e["rows"], e["optimal"],
                 ", ".join(f"{k} {v}" for k, v in e["statuses"].items()),
                 e["gap"]["max"], e["seconds"]["median"], e["seconds"]["max"]]
                for e in a["exact"]]
        out.append(format_table(["method", "rows", "optimal", "statuses", "max gap",
                                 "median s", "max s"], body, left=(0, 3)))
    if a["lb_sources"]:
        out.append("")
        out.append("Best lower bound by source (instances; ties count for each): " +
                   ", ".join(f"{k} {v}" for k, v in a["lb_sources"].items()))
    if a["runtimes"]:
        out.append("")
        base = a.get("runtime_baseline")
        has_base = base in a["runtimes"]
        out.append("Runtimes (seconds per task in the workers, verification included)" +
                   (f"; x{base}: median over instances of the time ratio to {base} in the "
                    "same run" if has_base else ""))
        body = []
        for name, r in sorted(a["runtimes"].items(), key=lambda kv: -(kv[1]["median"] or 0)):
            row = [name, r["n"], r["mean"], r["median"], r["p95"], r["max"], r["total"]]
            if has_base:
                row.append(r.get("median_vs_baseline"))
            body.append(row)
        head = ["algorithm", "n", "mean", "median", "p95", "max", "total"]
        out.append(format_table(head + ([f"x{base}"] if has_base else []), body))
    if pairwise and a["pairwise"]:
        out.append("")
        out.append("Pairwise: wins/ties/losses of the row algorithm against the column one "
                   "(per instance and repetition).")
        names = sorted(a["pairwise"])
        body = []
        for x in names:
            body.append([x] + ["" if x == y else
                               "{wins}/{ties}/{losses}".format(**a["pairwise"][x].get(
                                   y, {"wins": 0, "ties": 0, "losses": 0})) for y in names])
        out.append(format_table(["algorithm"] + names, body))
    out.append("")
    out.append("Statuses: " + ", ".join(f"{k} {v}" for k, v in a["statuses"].items()))
    if a["failure_count"]:
        out.append(f"Failures: {a['failure_count']} (first ones below)")
        for f in a["failures"][:10]:
            out.append(f"  {f['instance_key']} {f['algorithm']}: {f['status']}: {f['error']}")
    if a["inconsistencies"]:
        out.append(f"INCONSISTENCIES: {len(a['inconsistencies'])}")
        for i in a["inconsistencies"][:10]:
            out.append(f"  {i}")
    else:
        out.append("Consistency: no verified schedule below a certified bound; proven optima "
                   "agree.")
    return "\n".join(out)


def format_integrity(i: Mapping[str, Any]) -> str:
    """One line: rows, whether (instance, algorithm, repetition) keys are unique, missing and
    extra task ids, and the store's physical line counts."""
    txt = (f"Integrity: {i['rows']} rows, {i['distinct_keys']} distinct (instance, algorithm, "
           f"repetition) keys: " + ("unique" if not i["duplicated_keys"] else
                                    f"{i['duplicated_keys']} DUPLICATED"))
    if i.get("planned") is not None:
        txt += (f"; {i['planned']} planned tasks, {i['missing_ids']} without a row, "
                f"{i['extra_ids']} rows outside the plan")
    st = i.get("store")
    if st:
        txt += (f"; store: {st.get('physical', 0)} readable lines, {st.get('superseded', 0)} "
                f"superseded, {st.get('unreadable', 0)} unreadable")
    return txt


def format_class_factors(f: Mapping[str, Any], name: str,
                         percentiles: Sequence[float] = (90, 95, 99),
                         markdown: bool = False) -> str:
    """Text of the per-class factors of :func:`improvement_factors` (``by=``) under one
    classification: a table per instance, one line per class with its coflow count."""
    names = ["coflows", "ratio_of_means", "mean_of_ratios"]
    for q in percentiles:
        names += [f"ratio_of_p{q:g}", f"p{q:g}_of_ratios"]
    names += ["faster", "slower"]
    out = []
    for inst in f["instances"]:
        classes = (inst.get("by") or {}).get(name)
        if not classes:
            continue
        body = [[c] + [v.get(n) for n in names] for c, v in classes.items()]
        out.append(f"{f['target']} over {f['baseline']} on {inst['instance_key']} by {name} "
                   f"({CLASSIFICATIONS.get(name.partition(':')[0], name)})\n" +
                   format_table(["class"] + names, body, markdown=markdown))
    return "\n".join(out)


def format_factors(f: Mapping[str, Any], percentiles: Sequence[float] = (90, 95, 99),
                   markdown: bool = False) -> str:
    """Text of :func:`improvement_factors`: one line per instance and the mean."""
    names = ["ratio_of_means", "mean_of_ratios"]
    for q in percentiles:
        names += [f"ratio_of_p{q:g}", f"p{q:g}_of_ratios"]
    names += ["faster", "slower"]
    body = [[i["instance_key"]] + [i.get(n) for n in names] for i in f["instances"]]
    if len(f["instances"]) > 1 and f.get("mean_over_instances"):
        body.append(["mean"] + [f["mean_over_instances"].get(n) for n in names])
    return (f"{f['target']} over {f['baseline']} ({f['definition']})\n" +
            format_table(["instance"] + names, body, markdown=markdown))


_table = format_table
