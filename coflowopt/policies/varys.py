"""Offline Varys: SEBF re-evaluated at every coflow event, iterative MADD and backfilling.

At every coflow release and completion (Pseudocode 1, ``minCCTOffline``):

1. sort the active coflows by SEBF -- smallest *remaining* Gamma first, Gamma being Eq. (4.1)
   on each coflow's remaining demand with ``Rem(.)`` the capacity available to coflow traffic
   (the full port capacities here: the sort happens before any allocation);
2. ``allocBandwidth``: iterative MADD in that order, each coflow's Gamma computed on the residual
   capacity its predecessors left;
3. distribute the unused bandwidth (backfilling, :mod:`coflowopt.rates.madd`).

On an instance on resources (a topology) Gamma is taken over the resources of each coflow's
paths and MADD decrements every resource of a flow's path (:mod:`coflowopt.rates.madd`, "On
resources").

Ties in the SEBF key are broken by the instance order (Remark B.3.2 lets ties go either way;
Fig. B.2's text picks C1, the first).

What is *not* here: the online T/delta alternation for starvation freedom and the deadline mode
(Pseudocode 2) belong to the online module.  :class:`VarysPolicy` is written to be subclassed for
them; see its Notes.

References
----------
M. Chowdhury, PhD dissertation (UC Berkeley, 2015), Sec. 5.5.3, Pseudocode 1, Remark B.3.2;
M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014,
Sec. 5.3.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..orderings.basic import validate_order
from ._keyed_order import KeyedOrder
from ..rates import _madd_kernel as _k
from ..rates.madd import (WINDOW_PIECES, MaddPolicy, _flow_paths, _refuse_python,
                          _run_python, backfill_rule, check_engine, run_madd_kernel,
                          run_madd_windows)
from ..registry import register
from ..schedule import Schedule
from ..simulate import SimState

__all__ = ["varys", "varys_windows", "VarysPolicy", "remaining_gamma", "resource_loads"]


def remaining_gamma(instance: Instance, remaining, coflows, capacity=None) -> np.ndarray:
    """Gamma (Eq. 4.1) of each listed coflow on its remaining demand.

    Parameters
    ----------
    instance : Instance
    remaining : ndarray, shape (F,)
        Remaining size of every flow (0 for finished flows).
    coflows : array_like of int
        Coflow indices.
    capacity : ndarray, shape (R,), optional
        ``Rem(.)``: the capacity each resource offers (ports ``m_in + m_out`` on a big switch;
        default: the instance's capacities).

    Returns
    -------
    ndarray of float
        ``max_p (remaining load of the coflow at p) / capacity_p`` per coflow, ``p`` over the
        resources of its flows' paths (its two ports per flow on a big switch): 0 for a coflow
        with nothing left, ``inf`` when a resource it needs offers 0.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 1)])])
    >>> remaining_gamma(inst, inst.flow_size.copy(), [0]).tolist()
    [3.0]
    """
    cf = np.ascontiguousarray(coflows, dtype=np.int64)
    cap = instance.capacity.astype(float) if capacity is None else \
        np.ascontiguousarray(capacity, dtype=float)
    if cap.shape != (instance.num_ports,):
        what = "port" if instance.is_big_switch else "resource"
        raise InvalidParameterError(f"capacity must have {instance.num_ports} entries (one per "
                                    f"{what}), got shape {cap.shape}")
    rem = np.ascontiguousarray(remaining, dtype=float)
    out = np.zeros(cf.size)
    if instance.is_big_switch:
        _k.remaining_gamma(cf, np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
                           np.ascontiguousarray(instance.flow_src, dtype=np.int64),
                           np.ascontiguousarray(instance.flow_egress_port, dtype=np.int64),
                           rem, cap, np.zeros(instance.num_ports),
                           np.zeros(instance.num_ports, dtype=np.int64), out)
    else:
        _k.remaining_gamma_paths(cf, np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
                                 *_flow_paths(instance), rem, cap, np.zeros(instance.num_ports),
                                 np.zeros(instance.num_ports, dtype=np.int64), out)
    return out


def resource_loads(instance: Instance, flows, values) -> np.ndarray:
    """Sum ``values[i]`` over the resources of flow ``flows[i]``'s path: shape (R,).

    On a big switch this is ``bincount(ingress) + bincount(egress)`` (a flow loads its two
    ports), on resources every resource of the flow's path.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 1)])])
    >>> resource_loads(inst, [0, 1], [2.0, 1.0]).tolist()
    [2.0, 1.0, 3.0]
    """
    fl = np.asarray(flows, dtype=np.int64)
    v = np.asarray(values, dtype=float)
    P = instance.num_ports
    if instance.is_big_switch:
        return (np.bincount(instance.flow_src[fl], v, minlength=P)
                + np.bincount(instance.flow_egress_port[fl], v, minlength=P))
    rptr, rres = instance.flow_resource_ptr, instance.flow_resource
    length = rptr[fl + 1] - rptr[fl]
    first = np.cumsum(length) - length
    entry = np.repeat(rptr[fl] - first, length) + np.arange(int(length.sum()))
    return np.bincount(rres[entry], np.repeat(v, length), minlength=P)


class VarysPolicy(MaddPolicy):
    """Varys' offline scheduler (Pseudocode 1, ``minCCTOffline``) as a
    :class:`~coflowopt.simulate.RatePolicy`.

    Parameters
    ----------
    backfill : {"varys", "coflowsim", None, True, False}
        Work-conservation rule (:mod:`coflowopt.rates.madd`).
    tie_order : array_like of int, optional
        Coflow order that breaks SEBF ties (default: instance order).
    tol_rel : float

    Notes
    -----
    Extension points (for the online engineer):

    * :meth:`sort_capacity` -- ``Rem(.)`` used for the SEBF key (default: full capacities;
      subtract the reservations of admitted deadline coflows in a mixed mode);
    * :meth:`sebf_key` -- the ranking key of the active coflows (smaller first);
    * :meth:`coflow_order` -- which coflows are scheduled and in which order; a starvation-free
      subclass returns only the starved set ``C_zero`` during a delta-interval (treated as one
      coflow: pass their union by returning them with a common duration from
      :meth:`durations`);
    * :meth:`durations` -- per-coflow MADD duration (``NaN`` = Gamma on the residual); deadline
      mode returns ``deadline - state.time``;
    * :attr:`reschedule_on` / :meth:`next_timer` -- add ``"timer"`` and return the end of the
      current T- or delta-interval;
    * after each call, :attr:`last_order`, :attr:`last_gamma` (``inf`` = got nothing from
      MADD) and :attr:`last_residual` describe the allocation.
    """

    name = "varys"

    def __init__(self, backfill="varys", tie_order=None, tol_rel: float = 1e-12):
        super().__init__(order=None, backfill=backfill, tol_rel=tol_rel)
        self.tie_order = None if tie_order is None else np.asarray(tie_order, dtype=np.int64)

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        K = instance.num_coflows
        tie = np.arange(K) if self.tie_order is None else validate_order(
            instance, self.tie_order, "tie_order")
        self._rank = np.empty(K, dtype=np.int64)
        self._rank[tie] = np.arange(K)
        self._sebf_order = KeyedOrder(self._rank)
        self._sort_cap = self._cap
        # the coflows by release, and how many of them the SEBF order has been given
        self._sebf_rel = np.argsort(instance.release, kind="stable")
        self._sebf_rel_next = 0

    def sort_capacity(self, state: SimState) -> np.ndarray:
        """``Rem(.)`` for the SEBF sort (default: the port capacities)."""
        return self._cap

    def sebf_key(self, state: SimState, coflows: np.ndarray) -> np.ndarray:
        """Remaining Gamma of ``coflows`` on :meth:`sort_capacity`."""
        return remaining_gamma(self.inst, state.remaining, coflows, self.sort_capacity(state))

    def coflow_order(self, state: SimState) -> np.ndarray:
        act = state.active_coflows
        if self._incremental_sebf(state):
            # fixed capacities: a key changes only when the coflow was served
            return self._sebf_active(state)
        act = act[np.argsort(self._rank[act], kind="stable")]
        return act[np.argsort(self.sebf_key(state, act), kind="stable")]

    def _sebf_active(self, state: SimState) -> np.ndarray:
        """Every active coflow in SEBF order, kept across calls (:class:`KeyedOrder`): the
        released coflows joined since the last call are found through the release order, the
        finished ones dropped by ``state.finished``, so no pass over the active list."""
        rel, j = self._sebf_rel, self._sebf_rel_next
        while j < rel.size and state.released[rel[j]]:
            j += 1
        arrived = rel[self._sebf_rel_next:j]
        self._sebf_rel_next = j
        return self._sebf_order.order_alive(state.finished, arrived,
                                            lambda c: self.sebf_key(state, c))

    def _incremental_sebf(self, state: SimState) -> bool:
        """The SEBF order may be kept across events (:class:`KeyedOrder`): the keys are
        remaining Gammas on the capacities fixed at reset, so only served coflows change."""
        return (self.sort_capacity(state) is self._sort_cap
                and type(self).sebf_key is VarysPolicy.sebf_key)

    def allocate(self, state: SimState):
        f, r = super().allocate(state)
        # these flows are served until the next call: their coflows' keys change
        self._sebf_order.mark(self.inst.flow_coflow[f])
        return f, r


@register("policy", "varys", summary="offline Varys: at every coflow release/completion, SEBF "
          "on the remaining demand (smallest remaining Gamma first), iterative MADD on the "
          "residual capacity, then backfilling",
          reference="Chowdhury dissertation (2015) Pseudocode 1 (minCCTOffline), Sec. 5.5.3; "
          "Varys (SIGCOMM 2014)",
          tags=("preemptive", "release_dates", "heterogeneous_capacities"))
def varys(instance: Instance, *, backfill="varys", tie_order=None, engine: str = "auto",
          tol_rel: float = 1e-12) -> Schedule:
    """Offline Varys: SEBF re-evaluated at coflow events + iterative MADD + backfilling.

    Parameters
    ----------
    instance : Instance
    backfill : {"varys", "coflowsim", None, True, False}, default "varys"
        Work-conservation rule (see :mod:`coflowopt.rates.madd`).
    tie_order : array_like of int, optional
        Breaks ties of the SEBF key (default: instance order).
    engine : {"auto", "kernel", "python"}
        ``kernel``: the compiled event loop; ``python``: :class:`VarysPolicy` in the generic
        simulator (same schedule).
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records the algorithm, parameters, events and policy calls.

    Raises
    ------
    InvalidParameterError
        For an unknown ``backfill`` or ``engine``, or a ``tie_order`` that is not a
        permutation of the coflows.

    Examples
    --------
    Fig. B.2 of the dissertation: SEBF ties and picks C1; iterative MADD gives C1 half of every
    port and C2 the other half, so both finish at 2 (the optimum):

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    >>> verify_schedule(inst, varys(inst)).coflow_completion.tolist()
    [2.0, 2.0]

    Notes
    -----
    *Guarantee.*  None for the weighted completion time (SEBF ignores weights; permutation
    schedules are not optimal, Thm B.3.1).  A coflow alone finishes at its rho.

    *Assumptions.*  Offline and clairvoyant: remaining sizes are known at every event.
    Releases are honoured; weights are ignored.

    *Running time.*  Per coflow event O(flows of the active coflows) for the keys and MADD,
    plus the backfilling (see :func:`coflowopt.rates.madd.madd`); the event loop is compiled.

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Pseudocode 1, Sec. 5.5.3, App. B.3.
    """
    tie, rank, rule, engine, meta = _varys_args(instance, backfill, tie_order, engine)
    if engine == "python":
        return _run_python(instance, VarysPolicy(rule, tie, tol_rel), meta)
    return run_madd_kernel(instance, rank, sebf=True, backfill=rule, tol_rel=tol_rel, meta=meta)


def _varys_args(instance: Instance, backfill, tie_order, engine: str):
    """:func:`varys`'s checked arguments: ``tie, rank, rule, engine, meta``."""
    rule = backfill_rule(backfill)
    engine = check_engine(engine)
    K = instance.num_coflows
    tie = np.arange(K) if tie_order is None else validate_order(instance, tie_order, "tie_order")
    meta = {"algorithm": "varys", "backfill": rule, "engine": engine,
            "tie_order": None if tie_order is None else tie.tolist()}
    rank = np.empty(K, dtype=np.int64)
    rank[tie] = np.arange(K)
    return tie, rank, rule, engine, meta


def varys_windows(instance: Instance, on_window, *, backfill="varys", tie_order=None,
                  engine: str = "auto", tol_rel: float = 1e-12,
                  window: int = WINDOW_PIECES) -> dict:
    """:func:`varys` handed over window by window
    (:func:`coflowopt.rates.madd.run_madd_windows`), never held.

    Parameters
    ----------
    instance, backfill, tie_order, tol_rel
        As for :func:`varys` (the same checks).
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order.
    engine : {"auto", "kernel"}
        ``"python"`` is refused (the Python engine holds its schedule: call :func:`varys`).
    window : int
        Pieces per window (at least).

    Returns
    -------
    dict
        The statistics of :func:`~coflowopt.rates.madd.run_madd_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    >>> st = varys_windows(inst, lambda s, a, b: None)
    >>> st["coflow_completion"].tolist(), st["windows"]
    ([2.0, 2.0], 1)
    """
    _, rank, rule, engine, meta = _varys_args(instance, backfill, tie_order, engine)
    _refuse_python(engine)
    return run_madd_windows(instance, rank, on_window, sebf=True, backfill=rule,
                            tol_rel=tol_rel, meta=meta, window=window)
