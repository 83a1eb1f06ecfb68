"""Greedy order-preserving rate allocation (Sincronia Algorithm 2).

At every event (release or flow completion), scan the released coflows in the given order and
their flows in listed order; give each flow ``min(residual ingress, residual egress)`` capacity if
both are positive.  With unit capacities every served flow gets the full port rate and each step
is a greedy maximal matching in priority order ("chooses one flow from the currently highest
ordered coflow at each port, and assigns it the full rate").  The allocation is preemptive,
work-conserving and order-preserving (Definition 1: a flow of the k-th coflow is blocked only by a
port busy with a flow of an earlier coflow), so by Theorem 1 of Sincronia, with the BSSI order and
all releases at 0 it is within 4 of the optimal total weighted completion time.

On an instance over resources (flows on the paths of a topology) a flow gets the smallest
residual capacity over the resources of its path; the big switch is the case path =
{ingress, egress}.  The argument of Lemma 3 carries over with the path length: while a flow of
the k-th coflow is unfinished some resource of its path is saturated by flows of the first k
coflows, so it finishes by the sum over its path's resources of their ordered loads, at most
``L`` times the largest (``proofs/resource-model-guarantees.md``; with BSSI and zero releases,
``<= 2 L OPT``).

Two engines produce the same schedule:

``"kernel"``
    the compiled incremental event loop ``greedy_simulate_paths`` of :mod:`._greedy_kernel`
    (path heads in a bit tree over fixed slots, dirty resources) over the distinct paths
    (:func:`distinct_paths`); a big switch is the paths ``[i, m_in + j]``.  Fast enough for
    the 706,397-flow Facebook trace.
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
from ..limits import TOL_REL_MAX, check_tolerance
from ..orderings.basic import validate_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import COMPLETION_RTOL, SimState, settle_sizes, simulate
from ._pieces import PieceChunks, chunks_to_arrays
from .._index_ranges import concat_ranges

__all__ = ["greedy", "GreedyPolicy", "priority_flow_order", "fill_in_order"]


def priority_flow_order(instance: Instance, order) -> np.ndarray:
    """Global flow indices in priority order: coflows in ``order``, flows in listed order."""
    order = np.asarray(order, dtype=np.int64)
    counts = np.diff(instance.flow_ptr)[order]
    starts = instance.flow_ptr[order]
    return concat_ranges(starts, counts)


class GreedyPolicy:
    """Reference implementation of Algorithm 2 for the generic simulator (from scratch at every
    event, plain Python)."""

    reschedule_on = frozenset({"release", "flow_completion"})

    def __init__(self, order, tol_rel: float = 1e-12):
        self.order = np.asarray(order, dtype=np.int64)
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)
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
          "(Lemma 3); on resources with paths of at most L resources and zero releases, "
          "C_k <= L * ordered load at b_k, so <= 2L OPT with BSSI "
          "(proofs/resource-model-guarantees.md)",
          tags=("order_preserving", "work_conserving", "preemptive", "release_dates",
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
    # one kernel for both models: a big switch is the paths [i, m_in + j]; the slot/bit-tree
    # kernel gives the bits of the sorted-head-list kernel it replaced (which paid the length
    # of a port's head list at every insert and removal: 280 s for 400,000 flows from one
    # ingress to 100,000 egress ports), and on the FB trace (BSSI, zero releases) it took
    # 36.4 s against 93.7-101.7 s in one sitting at machine load ~12
    return _greedy_kernel_paths(instance, order, meta={**meta, "engine": "kernel"})


def distinct_paths(instance: Instance, flow_order=None) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """Group the flows by path: ``(path_of_flow, path_ptr, path_resource)``.

    Flow ``f`` runs over path ``path_of_flow[f]``, whose resources (in the flow's own order)
    are ``path_resource[path_ptr[e]:path_ptr[e + 1]]``.  Paths are numbered in the order in
    which they first appear along ``flow_order`` (default: every flow, in index order); a flow
    that ``flow_order`` leaves out gets -1.

    Why that numbering: the greedy kernel gets its paths numbered along the priority order,
    so the records of the paths of one coflow, served together, lie together in memory; its
    schedule does not depend on the numbering.  The grouping is one pass of a hash table
    (:func:`~coflowopt.rates._greedy_kernel.group_paths`): the sort of packed keys it
    replaces took 0.4 s on the Facebook trace on a k=16 fat-tree (706,397 flows).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 1, 1), (0, 0, 2)]),
    ...                               Coflow("B", [(0, 1, 3)])])
    >>> pof, ptr, res = distinct_paths(inst)      # 1 ingress, 2 egress ports: resources 0..2
    >>> pof.tolist(), ptr.tolist(), res.tolist()
    ([0, 1, 0], [0, 2, 4], [0, 2, 0, 1])
    """
    from ._greedy_kernel import group_paths

    rptr = np.asarray(instance.flow_resource_ptr, dtype=np.int64)
    rres = np.asarray(instance.flow_resource, dtype=np.int64)
    flows = (np.arange(instance.num_flows, dtype=np.int64) if flow_order is None
             else np.asarray(flow_order, dtype=np.int64))
    path_of_flow, first = group_paths(rptr, rres, flows)
    plen = rptr[first + 1] - rptr[first]
    path_ptr = np.zeros(first.size + 1, dtype=np.int64)
    np.cumsum(plen, out=path_ptr[1:])
    return path_of_flow, path_ptr, rres[concat_ranges(rptr[first], plen)]


def _greedy_kernel_paths(instance: Instance, order: np.ndarray, meta: dict) -> Schedule:
    """The greedy kernel over the distinct paths: a "pair" is a distinct path
    (:func:`distinct_paths`), with one head list per resource."""
    from ._greedy_kernel import greedy_simulate_paths, greedy_slots

    rank_to_flow = priority_flow_order(instance, order)
    path_of_flow, pair_rptr, pair_rres = distinct_paths(instance, rank_to_flow)
    pair_of_rank = path_of_flow[rank_to_flow]
    del path_of_flow
    R = instance.num_resources
    port_ptr = np.zeros(R + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_rres, minlength=R), out=port_ptr[1:])
    # one slot per (rank, resource of its path), grouped by resource and in priority order
    # inside a resource (greedy_simulate_paths' docstring says why)
    pair_ptr, pair_ranks, rank_off, rank_slot, slot_pair, res_end = greedy_slots(
        pair_of_rank, pair_rptr, pair_rres, R)
    cap = instance.capacity.astype(float)
    # per-rank arrays: one gather each from the instance's arrays (already int64 / float: an
    # astype after the gather was a second copy, 42 MB of fresh pages each on Custom-4000)
    rank_coflow = np.asarray(instance.flow_coflow, dtype=np.int64)[rank_to_flow]
    rank_release = np.asarray(instance.release, dtype=float)[rank_coflow]
    # the pieces go to chunks as the kernel makes them (no doubling array, no copy of the
    # schedule while it grows, flows written as flow indices)
    chunks = PieceChunks(buffer=1 << 18)
    cct, events = greedy_simulate_paths(
        np.asarray(instance.flow_size, dtype=float)[rank_to_flow], rank_release, rank_coflow,
        rank_to_flow, instance.num_coflows, cap, pair_of_rank, pair_rptr, pair_rres, pair_ptr,
        pair_ranks, port_ptr, rank_off, rank_slot, slot_pair, res_end, 1e-12 * cap,
        COMPLETION_RTOL, *chunks.args())
    if events < 0:  # pragma: no cover - greedy is work-conserving, so this cannot happen
        raise RuntimeError("greedy kernel stalled: no future event while coflows remain")
    del rank_to_flow, pair_of_rank, pair_ranks, rank_off, rank_slot, slot_pair, rank_release
    del rank_coflow
    out_f, out_s, out_e, out_v = chunks_to_arrays(chunks)
    return settle_sizes(instance, Schedule(out_f, out_s, out_e, out_v,
                                           meta={**meta, "events": int(events)}),
                        copy=False)


def fill_in_order(instance: Instance, flows, tol) -> tuple[np.ndarray, np.ndarray]:
    """Serve ``flows`` in the given order, each at ``min(residual ingress, residual egress)``
    (the inner step of Sincronia's Algorithm 2, and of per-flow priority); rates at most
    ``min(tol[ingress], tol[egress])`` are left out (``tol``: one threshold per port, relative
    to its capacity, so that capacities of any ratio are served).  The plain-Python reference
    of the compiled kernels.

    On an instance on resources each flow gets the smallest residual over the resources of
    its path, if that exceeds the smallest ``tol`` on the path (``tol``: one threshold per
    resource); on a big switch the path is ``[ingress, m_in + egress]`` and this is the rule
    above.

    Returns
    -------
    (flows, rates) : ndarray of int64, ndarray of float
    """
    res = instance.capacity.astype(float).copy()
    if not instance.is_big_switch:
        return _fill_in_order_paths(instance, flows, tol, res)
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


def _fill_in_order_paths(instance: Instance, flows, tol, res: np.ndarray):
    """:func:`fill_in_order` over paths (plain Python, the reference of the paths kernel)."""
    ptr = instance.flow_resource_ptr.tolist()
    path = instance.flow_resource.tolist()
    res = res.tolist()
    tol = np.asarray(tol, dtype=float).tolist()
    out_f, out_r = [], []
    for f in flows:
        f = int(f)
        ps = path[ptr[f]:ptr[f + 1]]
        a = min(res[p] for p in ps)
        if a > min(tol[p] for p in ps):
            out_f.append(f)
            out_r.append(a)
            for p in ps:
                res[p] -= a
    return np.asarray(out_f, dtype=np.int64), np.asarray(out_r, dtype=float)
