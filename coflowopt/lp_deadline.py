"""``lp-deadline-greedy``: tau-points of LP-A (or LP-B) as priorities, greedy list scheduling in
the integral matching model.  A reconstruction (theory-frontier digest sections 2.3, 2.4, 3.5),
not the algorithm of any paper.

Algorithm (``proofs/lp-deadline-greedy.md`` proves its guarantee):

1. Solve LP-A (``lp="a"``, default) or LP-B (``lp="b"``) over unit slots
   (:mod:`coflowopt.bounds.integral_time_indexed`); ``X[k,t]`` is coflow ``k``'s LP CDF.
2. For a threshold ``tau`` in (0, 1], coflow ``k``'s tau-point deadline is ``D_k(tau) = min{t :
   X[k,t] >= tau}`` (one common ``tau`` for all coflows).
3. Order the coflows by ``(D_k(tau), k)`` and run the per-slot greedy maximal allocation of
   whole units in that order (:func:`coflowopt.slotted_greedy.slotted_greedy`, priority
   ``order``: per slot, flows of earlier coflows first, each as many units as its path still
   has room for).
4. ``D(tau)`` is a step function of ``tau``: its breakpoints are the values ``X[k,t]`` in (0, 1),
   and on each piece ``(a, b]`` between consecutive breakpoints the order, hence the schedule,
   is constant.  Every piece is evaluated once (at ``tau = b``); the *exact expectation* under
   the density ``2 tau`` is ``sum_pieces (b^2 - a^2) cost(piece)`` and the *best piece* is the
   cheapest.

Guarantee (``proofs/lp-deadline-greedy.md``; ``LP`` = the value of the LP solution used, at
most the integral optimum; ``L`` = the most resources on a flow's path, 2 on a big switch):

* every ``tau`` and coflow ``k``: ``C_k / s <= a_k + 1 + max_{f of k} sum_{q in P_f}
  floor((H_q - 1) / c_q)``, ``H_q`` the units at ``q`` of the coflows up to ``k`` in the order
  (exact, checked per piece by :func:`ordered_load_bound`), and ``H_q <= c_q D_k(tau) / tau``;
* best piece ``<= E_{2 tau}[ALG] <= (2L + 1) LP`` (5 on a big switch); ``<= 2L LP`` (4 on a big
  switch) when every ``capacity x slot`` is 1 and every release is 0.

With ``epsilon`` (the LP over geometric intervals ``(1+epsilon)^l``) the ``2L`` parts are
multiplied by the grid's stretch ``<= 1 + epsilon`` (:func:`grid_stretch`).

The digest's 4 and 5 are these with ``L = 2``; no paper's constant (Fukunaga's gap 4 with
releases, Rohwedder and Schnaars's 140/41 or 4.36) is claimed.

References
----------
Theory-frontier digest (``../shared/reference/theory-frontier.md``) sections 2.3 (tau-points,
mean identity, load lemma), 2.4 (Greedy and its derandomisation), 3.5 (the 5 with releases);
Shafiee and Ghaderi (arXiv 1704.08357), "improved LP + simple list scheduling", 4 and 5 (the
classical constants this reconstruction reproduces on the big switch with unit capacities);
A. Fukunaga, APPROX 2022; L. Rohwedder, L. Schnaars, ICALP 2025 (where tau-points come from).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError, SolverError
from .limits import check_integer
from .instance import Instance
from .registry import register
from .slotted import SlottedSchedule, integral_capacities
from .slotted_greedy import first_slots, slotted_greedy

__all__ = ["lp_deadline_greedy", "lp_deadline_pieces", "DeadlinePieces", "tau_deadlines",
           "breakpoints", "ordered_load_bound", "guarantee_factor", "grid_stretch",
           "solved_lp", "tau_expectation"]


def tau_deadlines(X: np.ndarray, tau: float, boundaries=None) -> np.ndarray:
    """``D_k(tau) = min{b_l : X[k,l] >= tau}`` (slot counts; ``b_l = l`` on unit slots) for
    every coflow.

    Examples
    --------
    >>> X = np.array([[0.0, 0.5, 1.0], [0.25, 1.0, 1.0]])
    >>> tau_deadlines(X, 0.5).tolist(), tau_deadlines(X, 0.6).tolist()
    ([2, 2], [3, 2])
    >>> tau_deadlines(X, 0.6, boundaries=[0, 1, 3, 6]).tolist()
    [6, 3]
    """
    if not (0.0 < tau <= 1.0):
        raise InvalidParameterError(f"tau must be in (0, 1], got {tau!r}")
    col = np.argmax(X >= tau, axis=1).astype(np.int64)
    if boundaries is None:
        return col + 1
    return np.asarray(boundaries, dtype=np.int64)[col + 1]


def breakpoints(X: np.ndarray) -> np.ndarray:
    """The piece ends ``b`` of ``D(tau)``: the distinct values of ``X`` in (0, 1), then 1
    (pieces ``(a, b]`` with ``a`` the previous end, 0 first)."""
    v = np.unique(X[(X > 0.0) & (X < 1.0)])
    return np.r_[v, 1.0]


def grid_stretch(boundaries) -> Fraction:
    """``max_l b_l / (b_{l-1} + 1)``: how much later than the earliest completion in an
    interval its end can be (1 on unit slots, at most ``1 + epsilon`` on
    :func:`~coflowopt.formulations.time_indexed_integral.geometric_boundaries`)."""
    b = [int(v) for v in np.asarray(boundaries).tolist()]
    return max(Fraction(b[i], b[i - 1] + 1) for i in range(1, len(b)))


def guarantee_factor(instance: Instance, slot: float = 1.0, stretch=1) -> Fraction:
    """The proved factor ``rho`` of ``E_{2 tau}[ALG] <= rho LP``: ``2L`` when every
    ``capacity x slot`` (of a resource some flow uses) is 1 and every release is 0, else
    ``2L + 1`` (``L`` = the most resources on a flow's path; ``proofs/lp-deadline-greedy.md``);
    on intervals the ``2L`` part times the grid's :func:`grid_stretch`."""
    _, cap = integral_capacities(instance, slot)
    L = int(np.max(np.diff(instance.flow_resource_ptr))) if instance.num_flows else 1
    used = np.unique(instance.flow_resource)
    unit = bool(np.all(cap[used] == 1))
    f = 2 * L * Fraction(stretch)
    return f if unit and not np.any(instance.release > 0) else f + 1


def ordered_load_bound(instance: Instance, order, slot: float = 1.0) -> np.ndarray:
    """Per coflow ``k``, the proved bound on its completion slot count under the greedy in
    ``order``: ``a_k + 1 + max_{f of k} sum_{q in P_f} floor((H_q - 1) / c_q)``, ``H_q`` the
    units at ``q`` of the coflows up to ``k`` in ``order`` (exact integers; lemma 1 of
    ``proofs/lp-deadline-greedy.md``).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> ordered_load_bound(inst, [0, 1]).tolist()      # B: H = 3 at ingress 0, 1 at egress 1
    [3, 3]
    """
    size, cap = integral_capacities(instance, slot)
    K, R = instance.num_coflows, instance.num_resources
    order = np.asarray(order, dtype=np.int64)
    pos = np.empty(K, dtype=np.int64)
    pos[order] = np.arange(K)
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    fk = np.repeat(instance.flow_coflow, np.diff(ptr))
    fsz = np.repeat(size, np.diff(ptr))
    load = np.zeros((K, R), dtype=np.int64)            # load[k, q] = d_k(q)
    np.add.at(load, (fk, res), fsz)
    H = np.cumsum(load[order], axis=0)[pos]             # H[k, q]: coflows up to k
    term = (H - 1) // cap[None, :]                      # floor((H_q - 1) / c_q)
    per_entry = term[fk, res]
    per_flow = np.add.reduceat(per_entry, ptr[:-1]) if per_entry.size else per_entry
    best = np.zeros(K, dtype=np.int64)
    np.maximum.at(best, instance.flow_coflow, per_flow)
    return first_slots(instance, slot) + 1 + best


@dataclass
class DeadlinePieces:
    """Every piece of ``tau`` of one LP solution.

    Attributes
    ----------
    lp : str
        ``"a"`` or ``"b"``.
    lp_value : Fraction
        The LP value of the (cleaned) solution used (``<=`` the integral optimum up to the
        solver's tolerance; the certified bound is ``bound.value``).
    bound : Result
        The certified LP bound.
    X : ndarray (K, T)
        The CDFs.
    ends : ndarray
        Piece ends ``b`` (pieces ``(a, b]``).
    costs : list of Fraction
        ``sum_k w_k C_k`` of each piece's schedule (computed from the schedule; the caller's
        verifier decides).
    orders : list of tuple
        Each piece's coflow order.
    schedules : dict
        order -> SlottedSchedule (one per distinct order).
    expectation : Fraction
        ``sum (b^2 - a^2) cost``: the exact expectation under the density ``2 tau``.
    best : int
        Index of the cheapest piece (the first among equals).
    factor : Fraction
        The proved ``rho`` (:func:`guarantee_factor`).
    boundaries : ndarray
        The LP's interval ends ``b_0 = 0 .. b_L`` (``0..T`` on unit slots).
    """

    lp: str
    lp_value: Fraction
    bound: Any
    X: np.ndarray
    ends: np.ndarray
    costs: list
    orders: list
    schedules: dict = field(repr=False)
    expectation: Fraction = Fraction(0)
    best: int = 0
    factor: Fraction = Fraction(5)
    boundaries: np.ndarray | None = None

    @property
    def starts(self) -> np.ndarray:
        return np.r_[0.0, self.ends[:-1]]


def _cost(instance: Instance, sched: SlottedSchedule, slot: float) -> Fraction:
    last = np.full(instance.num_coflows, -1, dtype=np.int64)
    np.maximum.at(last, instance.flow_coflow[sched.flow], sched.slot_index)
    s = Fraction(float(slot))
    return sum((Fraction(float(w)) * (int(t) + 1) for w, t in
                zip(instance.weight.tolist(), last.tolist())), Fraction(0)) * s


def solved_lp(instance: Instance, lp: str = "a", **params):
    """LP-A (``lp="a"``) or LP-B (``"b"``) solved and certified, with its cleaned CDFs
    (:func:`~coflowopt.bounds.integral_time_indexed.integral_lp_solution`, ``params`` passed
    on): the LP every rounding of this family reads.

    Raises
    ------
    InvalidParameterError
        For another ``lp``.
    SolverError
        When the LP gives no certified solution.
    """
    from .bounds.integral_time_indexed import integral_lp_solution
    if lp not in ("a", "b"):
        raise InvalidParameterError(f"lp must be 'a' or 'b', got {lp!r}")
    sol = integral_lp_solution(instance, lp, **params)
    if sol.X is None:
        raise SolverError(f"LP-{lp.upper()} gave no certified solution: "
                          f"{sol.result.message}")
    return sol


def tau_expectation(ends, costs) -> tuple[Fraction, int]:
    """The exact expectation under the density ``2 tau`` of a cost constant on every piece
    ``(a, b]`` (``sum (b^2 - a^2) cost``), and the cheapest piece (the first among equals).

    Examples
    --------
    >>> tau_expectation([0.5, 1.0], [Fraction(4), Fraction(2)])
    (Fraction(5, 2), 1)
    """
    a = Fraction(0)
    expectation = Fraction(0)
    for b, c in zip(np.asarray(ends).tolist(), costs):
        fb = Fraction(b)
        expectation += (fb * fb - a * a) * c
        a = fb
    return expectation, int(min(range(len(costs)), key=lambda i: costs[i]))


def lp_deadline_pieces(instance: Instance, *, slot: float = 1.0, lp: str = "a",
                       slots: int | None = None, epsilon: float | None = None,
                       time_limit: float | None = None) -> DeadlinePieces:
    """Solve the LP and run the greedy on every piece of ``tau`` (module docstring).

    Raises
    ------
    NotSupportedError
        When the instance is not in the integral model, or the LP is too large.
    SolverError
        When the LP gives no certified solution.
    """
    sol = solved_lp(instance, lp, slot=slot, slots=slots, epsilon=epsilon,
                    time_limit=time_limit)
    X = sol.X
    ends = breakpoints(X)
    K = instance.num_coflows
    idx = np.arange(K)
    schedules: dict = {}
    costs, orders = [], []
    cost_of: dict = {}
    for b in ends.tolist():
        D = tau_deadlines(X, b, sol.boundaries)
        order = tuple(np.lexsort((idx, D)).tolist())
        if order not in schedules:
            schedules[order] = slotted_greedy(instance, "order", order=list(order), slot=slot)
            cost_of[order] = _cost(instance, schedules[order], slot)
        orders.append(order)
        costs.append(cost_of[order])
    expectation, best = tau_expectation(ends, costs)
    return DeadlinePieces(lp=lp, lp_value=sol.lp_value, bound=sol.result, X=X, ends=ends,
                          costs=costs, orders=orders, schedules=schedules,
                          expectation=expectation, best=best,
                          factor=guarantee_factor(instance, slot,
                                                  grid_stretch(sol.boundaries)),
                          boundaries=sol.boundaries)


@register("slotted", "lp-deadline-greedy",
          summary="integral model: LP-A (or LP-B) tau-points as coflow priorities, greedy "
                  "maximal allocation per slot; the best piece of tau (deterministic), a given "
                  "tau, or tau drawn with density 2 tau (seed); a reconstruction",
          reference="theory-frontier digest sections 2.3-2.4, 3.5 (reconstruction, not a "
                    "paper's algorithm); Shafiee and Ghaderi (arXiv 1704.08357) 4 / 5; "
                    "proofs/lp-deadline-greedy.md",
          guarantee="best piece <= E_{2tau}[ALG] <= (2L+1) x LP (5 on a big switch), <= 2L x "
                    "LP (4 on a big switch) when every capacity x slot is 1 and every release "
                    "is 0; L = longest path; LP = LP-A/LP-B value <= integral OPT (proved: "
                    "proofs/lp-deadline-greedy.md); per tau C_k <= s (a_k + 1 + sum_q "
                    "floor((H_q - 1)/c_q)); with epsilon (intervals (1+eps)^l) the 2L parts "
                    "times <= 1+eps",
          tags=("reconstruction", "integral_model", "release_dates", "weights",
                "heterogeneous_capacities", "needs_solver", "preemptive", "work_conserving",
                "order_preserving", "randomized", "slow"))
def lp_deadline_greedy(instance: Instance, *, slot: float = 1.0, lp: str = "a",
                       tau: float | None = None, seed: int | None = None,
                       slots: int | None = None, epsilon: float | None = None,
                       time_limit: float | None = None) -> SlottedSchedule:
    """The greedy in the order of LP tau-points (module docstring).

    Parameters
    ----------
    instance : Instance
        In the integral model at ``slot`` (whole sizes and ``capacity x slot``).
    slot : float
        Slot length.
    lp : {"a", "b"}
        LP-A or LP-B (:mod:`coflowopt.bounds.integral_time_indexed`).
    tau : float, optional
        A fixed threshold in (0, 1].
    seed : int, optional
        Draw ``tau`` with density ``2 tau`` (``tau = sqrt(U)``, ``U`` uniform from
        ``numpy.random.default_rng(seed)``); recorded in ``meta``.  With neither ``tau`` nor
        ``seed``: the best piece over all breakpoints (deterministic).
    slots : int, optional
        The LP's horizon (default: one that contains some optimal integral schedule).
    epsilon : float, optional
        The LP over geometric intervals ``(1 + epsilon)^l`` (fewer columns; the guarantee's
        ``2L`` part is multiplied by at most ``1 + epsilon``).
    time_limit : float, optional
        Seconds for the LP.

    Returns
    -------
    SlottedSchedule
        ``meta``: ``order`` (the coflow order used), ``tau``, ``deadlines``, ``lp``,
        ``lp_value`` and ``lp_bound`` (certified), ``expectation`` (exact, density ``2 tau``),
        ``pieces``, ``best_piece_cost``, ``guarantee_factor``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.slotted import verify_slotted
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> s = lp_deadline_greedy(inst)
    >>> verify_slotted(inst, s).weighted_completion_time, s.meta["order"]
    (Fraction(4, 1), [1, 0])
    """
    if tau is not None and seed is not None:
        raise InvalidParameterError("give tau= or seed=, not both")
    check_integer(seed, "seed", 0, nullable=True)    # numpy's default_rng refuses -1 itself
    if seed is not None:
        u = float(np.random.default_rng(seed).random())
        tau = float(np.sqrt(1.0 - u))          # in (0, 1]: 1 - u is in (0, 1]
    if tau is not None and not (isinstance(tau, (int, float)) and 0.0 < float(tau) <= 1.0):
        raise InvalidParameterError(f"tau must be in (0, 1], got {tau!r}")
    pieces = lp_deadline_pieces(instance, slot=slot, lp=lp, slots=slots, epsilon=epsilon,
                                time_limit=time_limit)
    if tau is None:
        i = pieces.best
        tau_used = float(pieces.ends[i])
        order = pieces.orders[i]
    else:
        tau_used = float(tau)
        D = tau_deadlines(pieces.X, tau_used, pieces.boundaries)
        order = tuple(np.lexsort((np.arange(instance.num_coflows), D)).tolist())
    sched = pieces.schedules.get(order)
    if sched is None:
        sched = slotted_greedy(instance, "order", order=list(order), slot=slot)
    meta = dict(sched.meta)
    meta.update({"algorithm": "lp-deadline-greedy", "lp": lp, "tau": tau_used,
                 "mode": "best piece" if tau is None else ("seed" if seed is not None
                                                          else "tau"),
                 "seed": seed, "order": list(order),
                 "deadlines": tau_deadlines(pieces.X, tau_used, pieces.boundaries).tolist(),
                 "epsilon": epsilon,
                 "lp_value": str(pieces.lp_value), "lp_bound": str(pieces.bound.value),
                 "expectation": str(pieces.expectation), "pieces": len(pieces.ends),
                 "best_piece_cost": str(pieces.costs[pieces.best]),
                 "guarantee_factor": str(pieces.factor), "slot": float(slot)})
    return SlottedSchedule(sched.slot, sched.slot_index, sched.flow, sched.units, meta)
