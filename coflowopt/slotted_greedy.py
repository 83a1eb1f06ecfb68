"""Slotted algorithms of the integral matching model: a greedy maximal matching per slot with a
pluggable priority (seed 002's synchronous scheduler, SYN).

The model (:mod:`coflowopt.slotted`): time in slots of length ``slot``, whole units, every
resource carries at most ``capacity x slot`` units per slot, a coflow may use a slot only if
the slot starts at or after its release.  In every slot the scheduler takes the released
unfinished flows in priority order and gives each as many units as its path still has room for
(and it still needs): with unit capacities on a big switch this is exactly a greedy maximal
matching of the (ingress, egress) pairs with data, the matching step of SYN (Sviridov, Bianco,
Giaccone, Globecom 2018, Sec. 3.2.1; digest ``reference/seeds-000-002.md`` Sec. 3.2.1), and it
is also Sincronia's greedy rate allocation (Algorithm 2) restricted to whole units per slot.
On a topology a flow's units count against every resource of its path.

Priorities (:data:`PRIORITIES`):

``order``
    A coflow order (any registered ordering: ``bssi``, ``sebf``, ...): flows of earlier
    coflows first, a coflow's flows in instance order.  Per slot the allocation is
    *prefix-maximal*: a released unfinished flow of the ``k``-th coflow that gets fewer units
    than it needs has a resource on its path filled by flows of coflows ``1..k``.
``ocf``
    Oldest Cell First: the head packet that has queued longest first.  All of a flow's data is
    queued at its coflow's release, so the head packet's age is the time since the release:
    the oldest release first (ties by coflow, then flow position).  [Reconstruction: seed 002
    queues packets as they arrive; here every unit arrives at the release, so OCF is FIFO by
    release, the same allocation as ``order`` with the ``fifo`` ordering.]
``srjf``
    Shortest Remaining Job First: fewest remaining units first (seed 002: ``q_ij = -residual
    bytes`` of the VOQ).  ``job="flow"`` (default, seed 002's flow-level rule) ranks flows by
    their own remaining units; ``job="coflow"`` by their coflow's remaining units (the coflow
    analogue).  Ties: oldest release, then coflow, then flow position.
``mmf``
    Max-Min Fair: the flow whose head unit has waited longest since it became head of its
    queue first (seed 002: ``q_ij`` = waiting time of the head packet since it became head),
    so flows are served round-robin; within a slot one unit per flow per round, rounds until
    nothing more fits (integral progressive filling: with unit capacities one round, seed
    002's matching; with larger capacities a max-min fair integral allocation).  [Reconstruction:
    seed 002 gives the metric for unit slots only; the per-round unit filling is ours.]

Functions
---------
:func:`slotted_greedy`
    The scheduler, returning a :class:`~coflowopt.slotted.SlottedSchedule`.
:func:`slotted_order`, :func:`slotted_ocf`, :func:`slotted_srjf`, :func:`slotted_mmf`
    The registered algorithms (registry kind ``"slotted"``: ``slotted-order``,
    ``slotted-ocf``, ``slotted-srjf``, ``slotted-mmf``; contract ``func(instance, **params)
    -> SlottedSchedule``), also in :data:`ALGORITHMS`.
:func:`run_slotted`
    By name, verified by :func:`~coflowopt.slotted.verify_slotted`.

Command line: ``coflowopt slotted INSTANCE --policy order --order bssi`` (and ``coflowopt
algorithms --kind slotted``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from ._slotted_kernel import (MODE_MMF, MODE_SRJF_COFLOW, MODE_SRJF_FLOW, MODE_STATIC,
                              slotted_greedy_runs)
from .exceptions import InvalidParameterError
from .instance import Instance
from .registry import (_REGISTRY, Algorithm, algorithms, get_algorithm,
                       rate_aware_params, register)
from .slotted import SlottedReport, SlottedSchedule, integral_capacities, verify_slotted
from ._index_ranges import concat_ranges

__all__ = ["slotted_greedy", "run_slotted", "first_slots", "ocf_rank", "order_rank",
           "slotted_order", "slotted_ocf", "slotted_srjf", "slotted_mmf",
           "PRIORITIES", "ALGORITHMS", "slotted_algorithms", "get_slotted"]

PRIORITIES = ("order", "ocf", "srjf", "mmf")


def first_slots(instance: Instance, slot: float = 1.0) -> np.ndarray:
    """The first slot every coflow may use, ``ceil(release / slot)``, exactly (int64, (K,)).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=0.5),
    ...                               Coflow("B", [(0, 0, 1)], release=2)])
    >>> first_slots(inst).tolist(), first_slots(inst, 0.5).tolist()
    ([1, 2], [1, 4])
    """
    rel = instance.release
    if float(slot) == 1.0:
        return np.ceil(rel).astype(np.int64)  # exact for floats
    s = Fraction(float(slot))
    return np.array([-((-Fraction(float(x))) // s) for x in rel.tolist()], dtype=np.int64)


def ocf_rank(instance: Instance) -> np.ndarray:
    """Oldest Cell First as a rank per flow (a permutation, smaller first): earliest release,
    then coflow index, then flow position."""
    F = instance.num_flows
    k = instance.flow_coflow
    order = np.lexsort((np.arange(F), k, instance.release[k]))
    rank = np.empty(F, dtype=np.int64)
    rank[order] = np.arange(F)
    return rank


def order_rank(instance: Instance, order) -> np.ndarray:
    """The rank of every flow under a coflow order: the ``order``'s coflows first to last, a
    coflow's flows in instance order."""
    order = np.asarray(order, dtype=np.int64)
    K = instance.num_coflows
    if order.shape != (K,) or not np.array_equal(np.sort(order), np.arange(K)):
        raise InvalidParameterError(f"order must be a permutation of the {K} coflow indices, "
                                    f"got {order.tolist()[:20]!r}")
    pos = np.empty(K, dtype=np.int64)
    pos[order] = np.arange(K)
    F = instance.num_flows
    perm = np.lexsort((np.arange(F), pos[instance.flow_coflow]))
    rank = np.empty(F, dtype=np.int64)
    rank[perm] = np.arange(F)
    return rank


def slotted_greedy(instance: Instance, priority: str = "order", *, order=None,
                   ordering: str | None = None, ordering_params: Mapping[str, Any] | None = None,
                   job: str = "flow", slot: float = 1.0) -> SlottedSchedule:
    """Schedule ``instance`` in the integral model: per slot, a greedy maximal allocation of
    whole units in priority order.

    Parameters
    ----------
    instance : Instance
        Whole sizes, whole ``capacity x slot`` (else
        :class:`~coflowopt.exceptions.NotSupportedError`); a big switch or resources.
    priority : {"order", "ocf", "srjf", "mmf"}
        See the module docstring.
    order : array_like of int, optional
        ``priority="order"``: the coflow order (highest priority first).
    ordering : str, optional
        ``priority="order"`` without ``order``: a registered ordering's name (default
        ``"bssi"``), run on the instance with ``ordering_params``.
    ordering_params : mapping, optional
        Parameters passed to the ordering ``ordering``.
    job : {"flow", "coflow"}
        ``priority="srjf"``: whose remaining units rank a flow.
    slot : float
        Slot length (> 0).

    Returns
    -------
    SlottedSchedule
        ``meta``: ``algorithm``, ``priority``, ``slot``, the ``order`` used (``"order"``).

    Raises
    ------
    NotSupportedError
        If the instance is not in the integral model.
    InvalidParameterError
        For an unknown priority, job, a bad order, or ``order``/``ordering`` given with a
        priority that does not use them.

    Examples
    --------
    A 2x2 switch, unit capacities: the slot-0 matching serves A's two flows; B's flow (1 -> 0)
    waits for ingress 1 and egress 0.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
    ...                               Coflow("B", [(1, 0, 1)])])
    >>> s = slotted_greedy(inst, order=[0, 1])
    >>> s.slot_index.tolist(), s.flow.tolist(), s.units.tolist()
    ([0, 0, 1, 2], [0, 1, 0, 2], [1, 1, 1, 1])
    >>> verify_slotted(inst, s).weighted_completion_time
    Fraction(5, 1)

    Notes
    -----
    Running time: O(S x A x L) for S slots with activity, A active flows per slot and paths of
    at most L resources (plus a sort per slot for ``srjf``/``mmf``; ``mmf`` repeats its rounds
    up to the largest per-slot capacity); ``order``/``ocf`` repeat an unchanged allocation over
    runs of slots at once.  Compiled (numba).  The number of entries of the result is the
    number of (slot, flow) pairs that send, about the total size over the capacity for unit
    capacities.

    References
    ----------
    A. Sviridov, A. Bianco, P. Giaccone, "To sync or not to sync: why asynchronous traffic
    control is good enough for your data center", IEEE Globecom 2018, Sec. 3.2.1 (SYN, OCF,
    SRJF, MMF); S. Agarwal et al., "Sincronia", SIGCOMM 2018, Algorithm 2 (greedy in coflow
    order).
    """
    if priority not in PRIORITIES:
        raise InvalidParameterError(f"priority must be one of {PRIORITIES}, got {priority!r}")
    if job not in ("flow", "coflow"):
        raise InvalidParameterError(f"job must be 'flow' or 'coflow', got {job!r}")
    if priority != "order" and (order is not None or ordering is not None):
        raise InvalidParameterError(f"order/ordering apply to priority='order', not "
                                    f"{priority!r}")
    if priority != "srjf" and job != "flow":
        raise InvalidParameterError("job applies to priority='srjf'")
    size, cap = integral_capacities(instance, slot)
    meta: dict[str, Any] = {"algorithm": f"slotted-{priority}", "priority": priority,
                            "slot": float(slot)}
    if priority == "order":
        if order is None:
            name = ordering or "bssi"
            alg = get_algorithm("ordering", name)
            params = rate_aware_params(alg, ordering_params, get_algorithm("rates", "greedy"),
                                       None)
            order = alg.func(instance, **params)
            meta["ordering"] = alg.name
        elif ordering is not None:
            raise InvalidParameterError("give order= or ordering=, not both")
        rank = order_rank(instance, order)
        meta["order"] = np.asarray(order, dtype=np.int64).tolist()
        mode = MODE_STATIC
    else:
        rank = ocf_rank(instance)
        mode = {"ocf": MODE_STATIC, "mmf": MODE_MMF,
                "srjf": MODE_SRJF_FLOW if job == "flow" else MODE_SRJF_COFLOW}[priority]
        if priority == "srjf":
            meta["job"] = job
    if instance.num_flows == 0:
        return SlottedSchedule(float(slot), np.zeros(0, np.int64), np.zeros(0, np.int64),
                               np.zeros(0, np.int64), meta)
    first = first_slots(instance, slot)[instance.flow_coflow]
    run_t, run_len, run_flow, run_units, _ = slotted_greedy_runs(
        size, cap, instance.flow_resource_ptr.astype(np.int64),
        instance.flow_resource.astype(np.int64), first,
        instance.flow_coflow.astype(np.int64), rank, mode)
    # expand the runs into one entry per (slot, flow)
    t = concat_ranges(run_t, run_len)
    return SlottedSchedule(float(slot), t, np.repeat(run_flow, run_len),
                           np.repeat(run_units, run_len), meta).canonical()


# ---------------------------------------------------------------------------------- registry
_SEED_002 = ("Sviridov, Bianco, Giaccone, 'To sync or not to sync', IEEE Globecom 2018, "
             "Sec. 3.2.1 (digest reference/seeds-000-002.md Sec. 3.2.1)")
#: Tags every slotted algorithm here carries.  ``work_conserving`` in whole units: in every
#: slot, a released unfinished flow that sends less than it still needs has a full resource
#: on its path (a maximal allocation; ``coflowopt.testing.check_slotted`` checks it).
_TAGS = ("release_dates", "heterogeneous_capacities", "preemptive", "work_conserving")


@register("slotted", "slotted-order", aliases=("order",),
          summary="integral model: greedy maximal matching per slot in a coflow order (any "
                  "registered ordering, ordering=NAME; default bssi)",
          reference=f"{_SEED_002}; Sincronia Algorithm 2 in whole units",
          tags=_TAGS + ("weights", "order_preserving"))
def slotted_order(instance: Instance, *, ordering: str = "bssi",
                  ordering_params: Mapping[str, Any] | None = None, order=None,
                  slot: float = 1.0) -> SlottedSchedule:
    """:func:`slotted_greedy` with ``priority="order"``: per slot, whole units greedily in a
    coflow order, the given ``order`` or that of the registered ordering ``ordering`` (run
    with ``ordering_params``).

    Per slot the allocation is prefix-maximal (tag ``order_preserving``): a released
    unfinished flow of the ``k``-th coflow that gets fewer units than it still needs has a
    resource on its path filled by flows of coflows ``1..k``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> s = slotted_order(inst, ordering="sebf")
    >>> s.meta["order"], verify_slotted(inst, s).coflow_completion
    ([1, 0], [Fraction(3, 1), Fraction(1, 1)])
    """
    return slotted_greedy(instance, "order", order=order,
                          ordering=None if order is not None else ordering,
                          ordering_params=ordering_params, slot=slot)


@register("slotted", "slotted-ocf", aliases=("ocf",),
          summary="integral model: greedy maximal matching per slot, oldest cell (release) "
                  "first",
          reference=_SEED_002, tags=_TAGS + ("online",))
def slotted_ocf(instance: Instance, *, slot: float = 1.0) -> SlottedSchedule:
    """:func:`slotted_greedy` with ``priority="ocf"`` (oldest release first; the module
    docstring says why that is seed 002's Oldest Cell First here).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], release=1),
    ...                               Coflow("B", [(0, 1, 1)])])
    >>> verify_slotted(inst, slotted_ocf(inst)).coflow_completion
    [Fraction(3, 1), Fraction(1, 1)]
    """
    return slotted_greedy(instance, "ocf", slot=slot)


@register("slotted", "slotted-srjf", aliases=("srjf",),
          summary="integral model: greedy maximal matching per slot, shortest remaining job "
                  "(flow, or job=coflow) first",
          reference=_SEED_002, tags=_TAGS + ("online",))
def slotted_srjf(instance: Instance, *, job: str = "flow", slot: float = 1.0
                 ) -> SlottedSchedule:
    """:func:`slotted_greedy` with ``priority="srjf"``: fewest remaining units first, of the
    flow (``job="flow"``, seed 002) or of its coflow (``job="coflow"``).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> verify_slotted(inst, slotted_srjf(inst)).coflow_completion
    [Fraction(3, 1), Fraction(1, 1)]
    """
    return slotted_greedy(instance, "srjf", job=job, slot=slot)


@register("slotted", "slotted-mmf", aliases=("mmf",),
          summary="integral model: max-min fair per slot (head unit waiting longest first, "
                  "one unit per flow per round)",
          reference=_SEED_002, tags=_TAGS + ("online", "starvation_free"))
def slotted_mmf(instance: Instance, *, slot: float = 1.0) -> SlottedSchedule:
    """:func:`slotted_greedy` with ``priority="mmf"`` (round-robin by the head unit's waiting
    time, integral progressive filling within a slot).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 2)])])
    >>> verify_slotted(inst, slotted_mmf(inst)).coflow_completion
    [Fraction(3, 1), Fraction(4, 1)]
    """
    return slotted_greedy(instance, "mmf", slot=slot)


#: The slotted algorithms by name: the registry's entries of kind ``"slotted"`` registered
#: above (``coflowopt algorithms --kind slotted``; contract ``func(instance, **params) ->
#: SlottedSchedule``, judged by ``verify_slotted``).  The fluid conformance suites and the
#: experiment specs enumerate fluid kinds only; ``coflowopt.testing.check_slotted`` is these
#: algorithms' conformance check (tests/test_conformance.py runs it over this kind).
ALGORITHMS: dict[str, Algorithm] = {
    name: _REGISTRY[("slotted", name)]
    for name in ("slotted-mmf", "slotted-ocf", "slotted-order", "slotted-srjf")}


def slotted_algorithms() -> list[Algorithm]:
    """The registered slotted algorithms, by name (the registry's kind ``"slotted"``)."""
    return algorithms("slotted")


def get_slotted(name: str) -> Algorithm:
    """A slotted algorithm by name (``slotted-`` may be left out); a wrong name lists the
    valid ones (:class:`~coflowopt.exceptions.InvalidParameterError`)."""
    return get_algorithm("slotted", name)


def run_slotted(instance: Instance, name: str, **params) -> tuple[SlottedSchedule,
                                                                   SlottedReport]:
    """Run a slotted algorithm by name and verify its schedule in the integral model.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> s, rep = run_slotted(inst, "srjf")
    >>> rep.ok, rep.coflow_completion
    (True, [Fraction(3, 1), Fraction(1, 1)])
    """
    sched = get_slotted(name).func(instance, **params)
    return sched, verify_slotted(instance, sched)
