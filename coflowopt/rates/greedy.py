"""Greedy order-preserving rate allocation (Sincronia Algorithm 2).

At every event (release or flow completion), scan the released coflows in the given order and
their flows in listed order; give each flow ``min(residual ingress, residual egress)`` capacity if
both are positive.  With unit capacities every served flow gets the full port rate and each step
is a greedy maximal matching in priority order ("chooses one flow from the currently highest
ordered coflow at each port, and assigns it the full rate").  The allocation is preemptive,
work-conserving and order-preserving (Definition 1: a flow of the k-th coflow is blocked only by a
port busy with a flow of an earlier coflow), so by Theorem 1 of Sincronia, with the BSSI order and
all releases at 0 it is within 4 of the optimal total weighted completion time.

Two engines produce the same schedule:

``"kernel"``
    the compiled incremental event loop of :mod:`._greedy_kernel` (pair heads, dirty ports);
    fast enough for the 706,397-flow Facebook trace.
``"python"``
    :class:`GreedyPolicy` in the generic simulator, recomputing the allocation from scratch at
    each event in plain Python: obviously correct, used as the reference in the tests.

References
----------
S. Agarwal, S. Rajakrishnan, A. Narayan, R. Agarwal, D. Shmoys, A. Vahdat, "Sincronia:
Near-Optimal Network Design for Coflows", SIGCOMM 2018, Algorithm 2 and Definition 1; the
reference simulator ``sincronia-coflow/simulator``, ``offlinesim/scheduler.cpp``,
``assign_rates_to_flows()``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..orderings.basic import validate_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import COMPLETION_RTOL, SimState, settle_sizes, simulate

__all__ = ["greedy", "GreedyPolicy", "priority_flow_order", "fill_in_order"]


def priority_flow_order(instance: Instance, order) -> np.ndarray:
    """Global flow indices in priority order: coflows in ``order``, flows in listed order."""
    order = np.asarray(order, dtype=np.int64)
    counts = np.diff(instance.flow_ptr)[order]
    starts = instance.flow_ptr[order]
    offs = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + offs


class GreedyPolicy:
    """Reference implementation of Algorithm 2 for the generic simulator (from scratch at every
    event, plain Python)."""

    reschedule_on = frozenset({"release", "flow_completion"})

    def __init__(self, order, tol_rel: float = 1e-12):
        self.order = np.asarray(order, dtype=np.int64)
        self.tol_rel = tol_rel
        self.name = "greedy(python)"

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        self.tol = self.tol_rel * instance.capacity.astype(float)  # per port

    def allocate(self, state: SimState):
        inst = self.inst
        flows = [f for k in self.order.tolist()
                 if state.released[k] and not state.finished[k]
                 for f in range(int(inst.flow_ptr[k]), int(inst.flow_ptr[k + 1]))
                 if not state.flow_done[f]]
        return fill_in_order(inst, flows, self.tol)

    def next_timer(self, state):  # pragma: no cover - no timers
        return np.inf


@register("rates", "greedy", summary="Sincronia Algorithm 2: in order, each flow takes "
          "min(residual ingress, residual egress); recomputed at releases and flow completions",
          reference="Sincronia (SIGCOMM 2018) Algorithm 2; sincronia-coflow/simulator "
          "offlinesim/scheduler.cpp",
          guarantee="with the BSSI order and zero releases, <= 4 OPT (Sincronia Theorem 1); for "
          "any order, <= 2 OPT(A(sigma)) (Theorem 2); C_k <= r_k + 2 * ordered load at b_k "
          "(Lemma 3)",
          tags=("big_switch_only", "order_preserving", "work_conserving", "preemptive", "release_dates",
                "heterogeneous_capacities"))
def greedy(instance: Instance, order, *, engine: str = "auto") -> Schedule:
    """Greedy order-preserving rates for a given coflow order (Sincronia Algorithm 2).

    Parameters
    ----------
    instance : Instance
    order : array_like of int
        Coflow indices, highest priority first.
    engine : {"auto", "kernel", "python"}
        ``kernel`` (compiled, incremental) or ``python`` (reference).  ``auto`` uses the kernel.

    Returns
    -------
    Schedule
        Pieces of constant rate; ``meta`` records the algorithm, order and engine.

    Raises
    ------
    InvalidParameterError
        If ``order`` is not a permutation of the coflows or ``engine`` is unknown.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
    ...                               Coflow("B", [(0, 0, 2), (1, 1, 2)])])
    >>> rep = verify_schedule(inst, greedy(inst, [0, 1]))
    >>> rep.coflow_completion.tolist()
    [1.0, 3.0]
    """
    order = validate_order(instance, order)
    if engine not in ("auto", "kernel", "python"):
        raise InvalidParameterError(f"engine must be 'auto', 'kernel' or 'python', got {engine!r}")
    meta = {"algorithm": "greedy", "order": order.tolist(), "engine": engine}
    if engine == "python":
        res = simulate(instance, GreedyPolicy(order))
        return Schedule(res.schedule.flow, res.schedule.start, res.schedule.end,
                        res.schedule.rate, meta={**meta, "engine": "python"})
    return _greedy_kernel(instance, order, meta={**meta, "engine": "kernel"})


def _greedy_kernel(instance: Instance, order: np.ndarray, meta: dict) -> Schedule:
    from ._greedy_kernel import greedy_simulate

    rank_to_flow = priority_flow_order(instance, order)
    m_in, m_out = instance.num_ingress, instance.num_egress
    src = instance.flow_src[rank_to_flow]
    dst = instance.flow_dst[rank_to_flow]
    key = src * m_out + dst
    uniq, pair_of_rank = np.unique(key, return_inverse=True)
    pair_of_rank = pair_of_rank.astype(np.int64)
    pair_src = (uniq // m_out).astype(np.int64)
    pair_dst = (uniq % m_out + m_in).astype(np.int64)
    E = uniq.size
    pair_ranks = np.argsort(pair_of_rank, kind="stable").astype(np.int64)
    pair_ptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_of_rank, minlength=E), out=pair_ptr[1:])
    P = m_in + m_out
    deg = np.bincount(pair_src, minlength=P) + np.bincount(pair_dst, minlength=P)
    port_ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(deg, out=port_ptr[1:])
    cap = instance.capacity.astype(float)
    rank_release = instance.release[instance.flow_coflow[rank_to_flow]].astype(float)
    out_r, out_s, out_e, out_v, cct, events = greedy_simulate(
        src.astype(np.int64), (dst + m_in).astype(np.int64),
        instance.flow_size[rank_to_flow].astype(float), rank_release,
        instance.flow_coflow[rank_to_flow].astype(np.int64), instance.num_coflows, cap,
        pair_of_rank, pair_src, pair_dst, pair_ptr, pair_ranks, port_ptr,
        1e-12 * cap, COMPLETION_RTOL)
    if events < 0:  # pragma: no cover - greedy is work-conserving, so this cannot happen
        raise RuntimeError("greedy kernel stalled: no future event while coflows remain")
    return settle_sizes(instance, Schedule(rank_to_flow[out_r], out_s, out_e, out_v,
                                           meta={**meta, "events": int(events)}),
                        copy=False)


def fill_in_order(instance: Instance, flows, tol) -> tuple[np.ndarray, np.ndarray]:
    """Serve ``flows`` in the given order, each at ``min(residual ingress, residual egress)``
    (the inner step of Sincronia's Algorithm 2, and of per-flow priority); rates at most
    ``min(tol[ingress], tol[egress])`` are left out (``tol``: one threshold per port, relative
    to its capacity, so that capacities of any ratio are served).  The plain-Python reference
    of the compiled kernels.

    Returns
    -------
    (flows, rates) : ndarray of int64, ndarray of float
    """
    res = instance.capacity.astype(float).copy()
    src, dst = instance.flow_src, instance.flow_egress_port
    out_f, out_r = [], []
    for f in flows:
        i, j = int(src[f]), int(dst[f])
        a = min(res[i], res[j])
        if a > min(tol[i], tol[j]):
            out_f.append(f)
            out_r.append(a)
            res[i] -= a
            res[j] -= a
    return np.asarray(out_f, dtype=np.int64), np.asarray(out_r, dtype=float)
