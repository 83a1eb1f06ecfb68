"""The best of the registered certified bounds within a time budget.

The exact methods start from it (issue 10, item 3): their anytime bound is never below what
``coflowopt bound --method all`` certifies for the same instance, provided the budget lets every
bound finish.  The bounds run cheapest first (:data:`BOUND_ORDER`); each LP bound gets the time
that is left as its own limit, and a bound that cannot run on the instance (too large, backend
missing) or fails is skipped and listed, never fatal: the seed only ever *raises* a bound that
the caller has proved by other means.
"""

from __future__ import annotations

import inspect
import math
import time
from fractions import Fraction
from typing import Any

from ..exceptions import CoflowOptError
from ..instance import Instance
from ..results import Result

__all__ = ["BOUND_ORDER", "best_certified_bound", "seed_value"]

#: Registered bounds, cheapest first (combinatorial, then the LPs by their usual solve time).
#: A bound registered later and missing here runs last.  ``lp-ov-branch`` comes before
#: ``lp-ov``: its root is LP-OV, so it is never below it, and an exact method's seed gives it
#: the time left rather than what LP-OV and the interval LPs leave over.
BOUND_ORDER = ("isolated", "port", "bssi-dual", "ordering-lp", "lp-ov-branch", "lp-ov", "interval-lp",
               "time-indexed-lp")


def best_certified_bound(instance: Instance, *, time_limit: float | None = None,
                         methods: tuple[str, ...] | None = None,
                         objective: str = "weighted_completion_time"
                         ) -> tuple[Result | None, list[dict[str, Any]]]:
    """Run the registered bounds cheapest first and return the best certified one.

    Parameters
    ----------
    instance : Instance
    time_limit : float, optional
        Seconds for all of them together; a bound after the first is not started when less time
        is left than the previous one took, and the LP bounds get the remaining time as their own
        ``time_limit``.
    methods : tuple of str, optional
        Registered bound names (default: every registered bound, in :data:`BOUND_ORDER`).
    objective : {"weighted_completion_time", "weighted_cct"}

    Returns
    -------
    (Result or None, list of dict)
        The certified ``lower_bound`` result with the largest value (``None`` when none
        certified), and one record per bound: ``algorithm``, ``value`` (float or None),
        ``status``, ``seconds`` (and ``message`` when it was skipped or failed).

    Examples
    --------
    >>> from coflowopt.library import load_instance
    >>> best, runs = best_certified_bound(load_instance("papers/sincronia-t-s4"))
    >>> best.algorithm, round(float(best.value), 6), [r["algorithm"] for r in runs][:3]
    ('lp-ov-branch', 33.0, ['isolated', 'port', 'bssi-dual'])
    """
    from ..registry import algorithms

    regs = {a.name: a for a in algorithms("bound")}
    if methods is None:
        names = [n for n in BOUND_ORDER if n in regs] + sorted(set(regs) - set(BOUND_ORDER))
    else:
        names = list(methods)
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    best: Result | None = None
    runs: list[dict[str, Any]] = []
    last = 0.0
    for name in names:
        left = None if deadline is None else deadline - time.perf_counter()
        # the bounds come cheapest first, so one that cannot be interrupted (the combinatorial
        # bounds, the exact certificate checks) is not started with less time left than the
        # previous one took; the first (isolated: linear time) always runs, so there is a bound
        if left is not None and runs and left <= last:
            runs.append({"algorithm": name, "value": None, "status": "not_started",
                         "seconds": 0.0, "message": "time budget spent"})
            continue
        alg = regs[name]
        kw: dict[str, Any] = {"objective": objective}
        if left is not None and "time_limit" in inspect.signature(alg.func).parameters:
            # the first bound runs even when the time is gone (a call with no time left, or
            # the clock passed the deadline since): with a limit of 0, not a negative one
            # its own check refuses
            kw["time_limit"] = max(left, 0.0)
        t0 = time.perf_counter()
        try:
            res = alg.func(instance, **kw)
        except CoflowOptError as e:
            # too large for this bound, backend missing, solver failure: the other bounds
            # still stand, so this one is listed and skipped
            runs.append({"algorithm": name, "value": None, "status": "skipped",
                         "seconds": time.perf_counter() - t0, "message": str(e)})
            continue
        last = time.perf_counter() - t0
        rec = {"algorithm": name, "status": res.status, "seconds": last,
               "value": float(res.value) if res.kind == "lower_bound" else None}
        runs.append(rec)
        if res.kind == "lower_bound" and (best is None or
                                          Fraction(res.value) > Fraction(best.value)):
            best = res
    return best, runs


def seed_value(best: Result | None) -> Fraction | None:
    """The exact value of a certified seed bound (``None`` when there is none)."""
    if best is None or best.kind != "lower_bound" or best.value is None:
        return None
    v = Fraction(best.value)
    return v if math.isfinite(float(v)) else None
