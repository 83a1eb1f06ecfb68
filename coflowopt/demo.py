"""``coflowopt demo``: every available algorithm on the embedded default instances, each
schedule verified independently, with the certified lower bounds and the proven optimum, as one
table.

The demo is a small experiment spec (:func:`demo_spec`) run in this process by the
experiments runner (:mod:`coflowopt.experiments`): every registered ordering x rate allocation
and every policy (exponential or slow ones only with ``--all``), every registered bound, and the
exact optimum (``bnb``) of the instances with at most :data:`EXACT_MAX_COFLOWS` coflows.  Per
schedule the table gives ALG/LB (over the best certified lower bound of the instance) and
ALG/OPT (over the proven optimum).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["run_demo", "demo_instances", "demo_spec", "format_table", "EXACT_MAX_COFLOWS",
           "EXACT_TIME_LIMIT"]

_SKIP_TAGS = ["exponential", "slow"]
#: The exact optimum is computed for instances up to this many coflows ...
EXACT_MAX_COFLOWS = 8
#: ... with this time limit in seconds (beyond it the row is ``feasible`` with a bound).
EXACT_TIME_LIMIT = 20.0


def demo_instances():
    """(name, Instance) pairs: the library's default set."""
    from .library import default_instances
    return list(default_instances().items())


def demo_spec(include_slow: bool = False):
    """The demo as an experiment spec (a :class:`~coflowopt.experiments.spec.Spec`)."""
    from .experiments.spec import parse_spec, refs_from_instances, with_instances
    from .registry import algorithms
    raw = {
        "name": "demo",
        "description": "every algorithm on the embedded default instances",
        # a placeholder source, replaced by the library's default set below
        "instances": [{"library": "papers/sincronia-t-s4"}],
        "algorithms": {
            "schedules": "all",
            "skip_tags": [] if include_slow else list(_SKIP_TAGS),
            "exact": {"method": "bnb", "time_limit": EXACT_TIME_LIMIT,
                      "max_coflows": EXACT_MAX_COFLOWS},
        },
    }
    spec = parse_spec(raw)
    # every registered bound, slow or not: on these instances each takes well under a second
    bounds = parse_spec({**raw, "algorithms": {"bounds": [a.name for a in
                                                          algorithms("bound")]}}).algorithms \
        if algorithms("bound") else []
    spec.algorithms = [a for a in spec.algorithms if a.kind == "schedule"] + bounds + \
        [a for a in spec.algorithms if a.kind == "exact"]
    return with_instances(spec, refs_from_instances(dict(demo_instances()), "demo"), "demo")


def run_demo(progress: Callable[[int], Any] | None = None, include_slow: bool = False,
             announce: Callable[[str], Any] | None = None):
    """Run the demo; return ``(rows, failures)``.

    A failure is a schedule the verifier rejected, a bound without a certificate, or an
    algorithm that raised or crashed.

    ``announce`` receives one line saying what is about to run, before the warm-up (which
    compiles the numba kernels on a first run and can take most of a minute): the command line
    prints it on standard error, so that a first run does not look hung.
    """
    from .experiments.report import instance_bases
    from .experiments.runner import run_tasks
    from .experiments.tasks import plan, warm_up

    spec = demo_spec(include_slow)
    pl = plan(spec)
    if announce is not None:
        announce(f"coflowopt demo: {pl.instances} embedded instances x "
                 f"{len(spec.algorithms)} algorithms ({len(pl.tasks)} runs); loading the "
                 "compiled kernels first (the first run after installing compiles them: "
                 "up to a minute)")
    warm_up([a.to_dict() for a in spec.algorithms])
    bar = progress(len(pl.tasks)) if progress else None
    raw: list[dict] = []

    def on_row(task, res):
        raw.append({**task.row_fields(), **res})
        if bar is not None:
            bar.update(1)
    try:
        run_tasks(pl.tasks, workers=0, on_row=on_row, progress=False, desc="demo")
    finally:
        if bar is not None:
            bar.close()
    bases = instance_bases(raw)
    rows, failures = [], []
    for r in raw:
        b = bases.get((r["instance_hash"], r["objective"]), {})
        v = r.get("value")
        sched = r["algorithm_kind"] == "schedule"
        cct = r.get("cct")
        row = {"instance": r["instance_key"], "coflows": r["coflows"], "flows": r["flows"],
               "algorithm": r["algorithm"], "algorithm_kind": r["algorithm_kind"],
               "kind": r.get("result_kind"), "objective": r.get("objective"), "value": v,
               "average_cct": sum(cct) / len(cct) if cct else None,
               "verified": bool(r.get("verified")), "status": r.get("status"),
               "seconds": r.get("seconds") or 0.0,
               "lb": b.get("lb"), "lb_source": b.get("lb_source"), "opt": b.get("opt"),
               "alg_lb": _ratio(v, b.get("lb")) if sched else None,
               "alg_opt": _ratio(v, b.get("opt")) if sched else None}
        if r.get("error"):
            row["error"] = f"{r['error']['type']}: {r['error']['message']}"
        rows.append(row)
        failed = r.get("status") in ("error", "crashed", "time_limit") or \
            (sched and r.get("result_kind") is None) or \
            (r["algorithm_kind"] == "bound" and r.get("status") != "not_supported"
             and r.get("result_kind") != "lower_bound")
        if failed:
            failures.append({"instance": row["instance"], "algorithm": row["algorithm"],
                             "error": row.get("error") or r.get("message") or r.get("status")})
    return rows, failures


def _ratio(v, base):
    if v is None or base is None or base <= 0:
        return None
    return float(v) / float(base)


def format_table(rows) -> str:
    head = ("instance", "K", "F", "algorithm", "kind", "sum w C", "avg CCT", "ALG/LB",
            "ALG/OPT", "verified", "s")
    body = []

    def num(x, fmt="{:.6g}"):
        return "-" if x is None else fmt.format(x)
    for r in rows:
        if r["verified"]:
            ver = "certified" if r["kind"] == "lower_bound" else "yes"
        elif r.get("status") == "not_supported":
            ver = "n/a (" + (r.get("error") or "not supported")[:60] + ")"
        else:
            ver = "NO" + (f" ({r['error']})" if r.get("error") else "")
        body.append((r["instance"], str(r["coflows"]), str(r["flows"]), r["algorithm"],
                     r["kind"] or "-", num(r["value"]), num(r["average_cct"]),
                     num(r["alg_lb"], "{:.4f}"), num(r["alg_opt"], "{:.4f}"), ver,
                     f"{r['seconds']:.3f}"))
    from .tables import format_table as table
    lines = table(head, body, left=(0, 3, 4, 9)).split("\n")
    lines.append("")
    seen = set()
    for r in rows:
        if r["instance"] in seen:
            continue
        seen.add(r["instance"])
        lb = "-" if r["lb"] is None else f"{r['lb']:.6g} ({r['lb_source']})"
        opt = "-" if r["opt"] is None else f"{r['opt']:.6g}"
        lines.append(f"{r['instance']}: LB {lb}, OPT {opt}")
    lines.append("")
    lines.append("kind: feasible = a schedule accepted by the independent verifier; lower_bound = "
                 "a bound whose certificate was checked; optimal = a verified schedule equal to "
                 "a proven bound.  sum w C = total weighted completion time; avg CCT = mean of "
                 "C_k - r_k.  ALG/LB = sum w C over the best certified lower bound of the "
                 "instance (its source named above); ALG/OPT = over the proven optimum.")
    return "\n".join(lines)
