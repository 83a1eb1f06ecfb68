"""Exhaustive search over event sequences: the completion-order LP for every completion order and
every interleaving of the release times.  The reference the branch and bound is tested against.

By proofs/completion-order-lp-exact.md, Theorem 1, the minimum over all sequences is the
optimum; each LP's certified bound makes the minimum a proven lower bound.  On an instance over
resources each LP has a capacity row per resource and interval (a flow's amount counts on every
resource of its path), and the same argument holds resource by resource.  ``K!`` orders times
the interleavings: tiny instances only (``max_coflows``, default 7).
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

from ..exceptions import InvalidParameterError
from ..formulations.highs import highs_version
from ..instance import Instance
from ..registry import register
from ..results import Result, relative_gap, within_optimality_tolerance
from ..bounds.common import check_time_limit
from ..limits import check_integer, check_tolerance
from .order_lp import (EVENT_LP_OPTIONS, best_interleaving, codes_to_events,
                       new_event_lp_solver, pair_data, verified_schedule)

__all__ = ["enumerate_orders"]


@register("exact", "enumerate-orders",
          summary="completion-order LP for every completion order and release interleaving "
                  "(brute force; the reference for bnb)",
          reference="proofs/completion-order-lp-exact.md, Theorem 1",
          guarantee="optimal within 1e-9 relative (min of certified LP bounds vs the verified "
                    "best schedule); on its time limit: feasible with the best bound",
          tags=("exponential", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "preemptive", "exact_arithmetic", "slow"))
def enumerate_orders(instance: Instance, *, max_coflows: int = 7, rtol: float = 1e-9,
                     verify_mode: str = "exact", time_limit: float | None = None) -> Result:
    """Solve every event sequence's LP and keep the best (tiny instances).

    Parameters
    ----------
    instance : Instance
    max_coflows : int
        Refuse larger instances (``K!`` orders).
    rtol : float
        ``optimal`` when the verified best value is within ``rtol`` of the smallest certified
        LP bound, and within :data:`coflowopt.results.OPTIMALITY_RTOL` (a looser ``rtol`` gives
        ``feasible`` with status ``within_rtol``).
    verify_mode : {"exact", "float"}
        How the best schedule is verified (exact: rational arithmetic, zero tolerance).
    time_limit : float, optional
        Seconds, checked between orders: on the limit the best schedule found so far is
        returned as ``feasible`` with status ``time_limit`` and, as its bound, the best
        certified bound of :mod:`coflowopt.bounds` (the orders not yet solved have no bound).

    Raises
    ------
    InvalidParameterError
        When the instance has more than ``max_coflows`` coflows.

    Examples
    --------
    >>> from coflowopt.library import load_instance
    >>> res = enumerate_orders(load_instance("papers/sincronia-t-s4"))
    >>> res.kind, res.value
    ('optimal', Fraction(33, 1))
    """
    K = instance.num_coflows
    if time_limit is not None:
        check_time_limit(time_limit)
    # a negative rtol never declares the optimum (status gap_not_closed on every instance)
    check_tolerance(rtol, "rtol", 0.0)
    check_integer(max_coflows, "max_coflows", 1)
    if K > max_coflows:
        raise InvalidParameterError(f"enumerate-orders: {K} coflows is more than max_coflows="
                                    f"{max_coflows} ({math.factorial(K)} orders)")
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    pd = pair_data(instance)
    model = new_event_lp_solver()
    best_codes, best_sol = None, None
    lb = math.inf
    count = 0
    stopped = False
    for order in itertools.permutations(range(K)):
        if time.perf_counter() >= deadline and best_sol is not None:
            stopped = True
            break
        codes, sol = best_interleaving(pd, order, model=model)
        count += 1
        if sol is None:
            continue
        lb = min(lb, sol.bound)   # -inf for an LP neither solved nor proved infeasible
        if sol.value is None:     # no schedule from this order's LP
            continue
        if best_sol is None or sol.value < best_sol.value:
            best_codes, best_sol = codes, sol
    t1 = time.perf_counter()
    params = {"max_coflows": max_coflows, "rtol": rtol, "verify_mode": verify_mode,
              "time_limit": time_limit}
    seed = None
    if stopped:
        # the unsolved orders have no LP bound: the proven bound is a certified one
        from ..bounds.best import best_certified_bound, seed_value
        from .subset_bounds import ROUNDING_RTOL, SubsetBounds
        best, _ = best_certified_bound(instance, time_limit=0.25 * time_limit)
        seed = seed_value(best)
        lb = float(seed) if seed is not None else 0.0
        # the DP bound over all positive-weight coflows (proofs/completion-order-lp-exact.md,
        # Lemma 6; at least the isolated bound), deflated by its rounding allowance: it holds
        # on every instance, also where the registered bounds do not run (on resources)
        members = [k for k in range(K) if instance.weight[k] > 0]
        if members:
            sb = SubsetBounds(instance, members)
            dpb = sb.dpb((1 << len(members)) - 1)
            lb = max(lb, dpb - abs(dpb) * ROUNDING_RTOL)
    solver = {"name": "highs", "version": highs_version(), "options": EVENT_LP_OPTIONS}
    if best_sol is None:  # pragma: no cover - some order is always feasible
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="error", algorithm="enumerate-orders", params=params,
                      solver=solver, message="no event sequence had a solvable LP")
    sched, rep = verified_schedule(pd, best_sol, verify_mode=verify_mode,
                                   meta={"algorithm": "enumerate-orders"})
    t2 = time.perf_counter()
    ub = rep.weighted_completion_time
    ubf = float(ub)
    lb = min(lb, ubf)
    gap = relative_gap(ubf, lb)
    closed = not stopped and ubf - lb <= rtol * abs(ubf)
    proved = closed and within_optimality_tolerance(ubf, lb)
    status = "optimal" if proved else ("time_limit" if stopped else
                                       "within_rtol" if closed else "gap_not_closed")
    return Result(value=ub, kind="optimal" if proved else "feasible",
                  objective="weighted_completion_time",
                  status=status, algorithm="enumerate-orders",
                  params=params, schedule=sched, report=rep, bound=lb, incumbent=ub, gap=gap,
                  solver=solver, certificate={"orders": count, "lower_bound": lb,
                                              "events": codes_to_events(pd, best_codes),
                                              "upper_bound_exact": str(ub)
                                              if isinstance(ub, Fraction) else None},
                  certificate_status="proved within rtol" if proved else "open",
                  timings={"search": t1 - t0, "verify": t2 - t1},
                  message=f"{count} orders{' (time limit)' if stopped else ''}; best "
                          f"{ubf:.12g}, {'certified' if stopped else 'smallest certified'} "
                          f"bound {lb:.12g}")
