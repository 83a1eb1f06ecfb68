"""Orderings by chance and by exhaustive search: ``random`` and ``best-order``.

``random`` is the baseline every ordering should beat.  ``best-order`` tries all ``K!`` orders
with a given rate allocation (greedy by default) and keeps the one whose schedule the verifier
accepts with the smallest objective: the optimum *over orders* for that allocation, which by
Sincronia's Theorem 2 is within 2 of the best order-preserving schedule for greedy rates.  It
is not the coflow optimum in general (``coflowopt.exact`` is).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from ..limits import check_integer
from ..registry import get_algorithm, register
from ..verify import verify_schedule

__all__ = ["random_order", "best_order", "best_order_search", "BestOrder", "MAX_BEST_ORDER_K"]

#: ``best-order`` refuses larger instances: 9! = 362,880 schedules already take minutes.
MAX_BEST_ORDER_K = 9


@register("ordering", "random", summary="a uniformly random permutation (seeded)",
          reference="(baseline)", tags=("randomized",))
def random_order(instance: Instance, *, seed: int | None = None) -> np.ndarray:
    """A uniformly random order of the coflows.

    Parameters
    ----------
    instance : Instance
    seed : int or None
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same order.

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is not None or a non-negative integer.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow(str(k), [(0, 0, 1)]) for k in range(5)])
    >>> random_order(inst, seed=3).tolist() == random_order(inst, seed=3).tolist()
    True

    Notes
    -----
    No guarantee.  Time O(K).
    """
    check_integer(seed, "seed", 0, nullable=True)
    return np.random.default_rng(seed).permutation(instance.num_coflows).astype(np.int64)


@dataclass(frozen=True)
class BestOrder:
    """Outcome of :func:`best_order_search`.

    Attributes
    ----------
    order : ndarray of int64
        The first order (in lexicographic order of permutations) with the smallest verified
        objective.
    objective : float
        Its verified objective.
    evaluated : int
        Orders tried (``K!`` unless the time limit stopped the search).
    rejected : int
        Orders whose schedule the verifier rejected (skipped; 0 for a correct allocation).
    ties : int
        Orders with exactly the same objective as the best.
    complete : bool
        Every order was tried (``False``: the time limit stopped the search, and the order is
        the best of the ``evaluated`` first ones only).
    """

    order: np.ndarray
    objective: float
    evaluated: int
    rejected: int
    ties: int
    rates: str
    objective_name: str
    complete: bool = True


def best_order_search(instance: Instance, *, rates: str = "greedy",
                      rate_params: Mapping[str, Any] | None = None,
                      objective: str = "weighted_completion_time",
                      max_coflows: int = MAX_BEST_ORDER_K,
                      time_limit: float | None = None) -> BestOrder:
    """Try every order with one rate allocation; keep the best verified one.

    Parameters
    ----------
    instance : Instance
    rates : str, default "greedy"
        A registered rate allocation.
    rate_params : mapping, optional
        Its keyword arguments.
    objective : {"weighted_completion_time", "weighted_cct"}
    max_coflows : int, default 9
        Refuse instances with more coflows (at most :data:`MAX_BEST_ORDER_K`).
    time_limit : float, optional
        Seconds, checked between orders (after the first): on the limit the best of the orders
        tried so far is returned with ``complete=False``.

    Returns
    -------
    BestOrder

    Raises
    ------
    NotSupportedError
        If the instance has more than ``max_coflows`` coflows.
    InvalidParameterError
        For an unknown ``rates`` or ``objective``, a bad ``max_coflows``, or when the verifier
        rejects every schedule.

    Notes
    -----
    ``K!`` schedules, each verified: about 0.2 ms each for small instances, so K = 8 takes
    seconds and K = 9 about a minute.
    """
    if objective not in ("weighted_completion_time", "weighted_cct"):
        raise InvalidParameterError("objective must be 'weighted_completion_time' or "
                                    f"'weighted_cct', got {objective!r}")
    if (isinstance(max_coflows, bool) or not isinstance(max_coflows, (int, np.integer))
            or not 1 <= max_coflows <= MAX_BEST_ORDER_K):
        raise InvalidParameterError(f"max_coflows must be an integer in 1..{MAX_BEST_ORDER_K}, "
                                    f"got {max_coflows!r}")
    if time_limit is not None:
        from ..bounds.common import check_time_limit
        check_time_limit(time_limit)
    deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
    K = instance.num_coflows
    if K > max_coflows:
        raise NotSupportedError(
            f"best-order tries all K! orders and refuses K = {K} > {max_coflows} coflows "
            f"({math.factorial(K):,} orders); use bssi, or coflowopt.exact for optima")
    alloc = get_algorithm("rates", rates)
    params = dict(rate_params or {})
    best, best_val, rejected, ties, evaluated = None, math.inf, 0, 0, 0
    complete = True
    for perm in itertools.permutations(range(K)):
        if evaluated and time.perf_counter() >= deadline:
            complete = False
            break
        evaluated += 1
        sigma = np.asarray(perm, dtype=np.int64)
        rep = verify_schedule(instance, alloc.func(instance, sigma, **params))
        if not rep.ok:
            rejected += 1
            continue
        v = float(rep.objective(objective))
        if v < best_val:
            best, best_val, ties = sigma, v, 1
        elif v == best_val:
            ties += 1
    if best is None:
        raise InvalidParameterError(f"rates {rates!r}: the verifier rejected the schedule of "
                                    "every order")
    return BestOrder(order=best, objective=best_val, evaluated=evaluated,
                     rejected=rejected, ties=ties, rates=alloc.name, objective_name=objective,
                     complete=complete)


@register("ordering", "best-order",
          summary="exhaustive search: the order whose schedule (under the rate allocation it "
          "is paired with; greedy alone) has the smallest verified objective; K <= 9",
          reference="(exhaustive search); Sincronia Theorem 2 for what it approximates",
          guarantee="optimal among orders for the given rate allocation",
          tags=("exponential", "weights", "release_dates", "heterogeneous_capacities",
                "slow", "rate_aware"))
def best_order(instance: Instance, *, rates: str = "greedy",
               rate_params: Mapping[str, Any] | None = None,
               objective: str = "weighted_completion_time",
               max_coflows: int = MAX_BEST_ORDER_K,
               time_limit: float | None = None) -> np.ndarray:
    """The best order for a rate allocation, by exhaustive search over all ``K!`` orders.

    Parameters
    ----------
    instance : Instance
    rates : str, default "greedy"
        Registered rate allocation used to evaluate every order.
    rate_params : mapping, optional
        Parameters passed to the rate allocation ``rates``.
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective the search minimises (they differ by the constant ``sum w r``, so the
        best order is the same; the figure compared is the chosen one).
    max_coflows : int, default 9
        Refuse larger instances (``K!`` orders are evaluated).
    time_limit : float, optional
        Seconds; on the limit, the best of the orders tried so far (no longer the guarantee).

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Raises
    ------
    NotSupportedError
        For more than ``max_coflows`` coflows.
    InvalidParameterError
        See :func:`best_order_search`.

    Examples
    --------
    Sincronia Fig. 1 (epsilon = 0): an optimal order is C2, C3, C4, C5, C1 (average CCT 2.4).

    >>> from coflowopt import Instance, Coflow
    >>> c1 = [(i, j, 1) for i in range(4) for j in (i, (i + 1) % 4)]
    >>> inst = Instance.from_coflows([Coflow("C1", c1)] +
    ...                              [Coflow(f"C{i + 2}", [(i, i, 2)]) for i in range(4)])
    >>> [inst.coflow_ids[k] for k in best_order(inst)]
    ['C2', 'C3', 'C4', 'C5', 'C1']

    Notes
    -----
    Guarantee: no order gives a smaller verified objective with these rates.  Ties go to the
    lexicographically first permutation.  Time O(K! x one schedule and its verification).
    """
    return best_order_search(instance, rates=rates, rate_params=rate_params,
                             objective=objective, max_coflows=max_coflows,
                             time_limit=time_limit).order
