"""Flow-level baselines: per-flow fairness, per-flow priority (SRTF/EDF) and Orchestra's WSS.

These policies ignore coflows: they allocate per flow and reallocate at every flow arrival and
completion.  They are the baselines of the coflow papers (Chowdhury's dissertation Sec. 2.1,
Fig. 5.1; Varys Sec. 7; coflowsim's ``FlowSimulator``).

Definitions on the big switch (ingress and egress ports both constrain)
-----------------------------------------------------------------------
``fair``
    Per-flow max-min fairness (TCP-like): at every instant the rates are the max-min fair
    allocation over the active flows, computed by progressive filling over ingress and egress
    ports (every active flow grows at the same speed until one of its ports is full).
``wss``
    Orchestra's Weighted Shuffle Scheduling: *weighted* max-min fairness with each flow's weight
    equal to its size.  When the flows through a port start together and that port is their
    bottleneck (the only constrained side in Fig. 5.1), their rates are proportional to their
    sizes and all of them finish exactly when the port's load is drained; with both sides
    constrained, progressive filling with weights decides which port limits which flow.  The
    weights are the *initial* sizes (Orchestra sets a flow's share from the data it has to move
    when the shuffle starts), which also keeps the allocation between two events exactly the
    weighted max-min allocation of the active flows.
``priority`` (aliases ``pfp``, ``srtf``)
    Per-flow shortest-remaining-time-first (pFabric, PDQ): at every event the active flows are
    ordered by *remaining* size (ties by the coflow ``tie_order``, then flow index) and served
    greedily: each flow takes ``min(residual ingress, residual egress)``.  Remaining rather than
    initial size because that is what pFabric's priority field and PDQ's SRTF carry and what
    coflowsim's PDQ uses after admission; with it a flow in service is never preempted by a
    flow that was already waiting, only by an arrival with less to send (or a cascade of one).
    With ``deadline_first=True`` flows of coflows with a deadline go first by earliest deadline
    (EDF across flows; coflowsim's PDQ deadline mode), then the rest by SRTF.

On resources (a topology: every flow occupies each resource of its path at its rate) the
definitions are the same with "its ingress and egress ports" read as "every resource of its
path": ``fair`` and ``wss`` are (weighted) max-min fairness over the links of a network, the
setting of Bertsekas & Gallager's progressive filling (a session's rate counts against every
link it crosses, and a session freezes when the first link of its path fills); ``priority``
serves the flows in key order, each taking the smallest residual capacity over its path (with
equal capacities: the full capacity when its whole path is free, else nothing).  A big switch
is the case where every path is ``[ingress, m_in + egress]``, and the general code gives the
big switch's schedule bit for bit (tested; for ``fair`` and ``wss`` up to
:data:`HEAP_FILL_RESOURCES` resources, above which the filling takes its rounds from a heap and
exact ties may fill in another order); the big switch keeps its own kernels.

All three are recomputed at every release and flow completion, so their schedules are exact
fluid schedules of those definitions.  (For ``priority`` with unequal port capacities, the
order is re-evaluated at events only; between events the remaining sizes of two served flows
can cross without a reallocation.  With equal capacities every served flow runs at the full
port rate and the greedy allocation cannot change between events.)

Engines: ``kernel`` (compiled event loops of :mod:`._flow_kernel`, fast enough for the
706,397-flow Facebook trace; on resources the ``_paths`` kernels, whose "pairs" are distinct
paths) and ``python`` (a policy in the generic simulator that recomputes from scratch with
independent code, used as the reference in the tests).

References
----------
M. Chowdhury, PhD dissertation (UC Berkeley, 2015), Sec. 2.1, Sec. 5.3 and Fig. 5.1, Fig. 3.2;
M. Chowdhury, M. Zaharia, J. Ma, M. Jordan, I. Stoica, "Managing Data Transfers in Computer
Clusters with Orchestra", SIGCOMM 2011, Sec. 5 (WSS); M. Alizadeh et al., "pFabric", SIGCOMM
2013; C.-Y. Hong, M. Caesar, P. B. Godfrey, "Finishing Flows Quickly with Preemptive Scheduling"
(PDQ), SIGCOMM 2012; D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Sec. 6.5.2
(max-min fairness by progressive filling); ``coflow/coflowsim``
``src/main/java/coflowsim/simulators/FlowSimulator.java``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from ..limits import TOL_REL_MAX, check_tolerance
from ..maxmin import progressive_filling
from ..orderings.basic import validate_order
from ..rates.greedy import fill_in_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import COMPLETION_RTOL, SimState, settle_sizes, simulate
from . import _flow_kernel as _fk
from .._index_ranges import concat_ranges

__all__ = ["fair", "wss", "priority", "MaxMinPolicy", "PriorityPolicy", "max_min_rates",
           "maxmin_windows", "FLOW_ENGINES"]

FLOW_ENGINES = ("auto", "kernel", "python")

#: A recomputed level within this relative distance of the old one is the same level (the
#: rounding of a different summation order); keeping it avoids needless new pieces.
SNAP_RTOL = 1e-12


def _engine(engine: str) -> str:
    if engine not in FLOW_ENGINES:
        raise InvalidParameterError(f"engine must be one of {FLOW_ENGINES}, got {engine!r}")
    return engine


def _pairs(instance: Instance):
    """(pair of every flow, pair ingress, pair egress (unified), pair_ptr by flow count)."""
    m_out = instance.num_egress
    key = instance.flow_src * m_out + instance.flow_dst
    uniq, pof = np.unique(key, return_inverse=True)
    E = uniq.size
    psrc = (uniq // m_out).astype(np.int64)
    pdst = (uniq % m_out + instance.num_ingress).astype(np.int64)
    pptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(np.bincount(pof, minlength=E), out=pptr[1:])
    return pof.astype(np.int64).ravel(), psrc, pdst, pptr


def _path_pairs(instance: Instance):
    """:func:`_pairs` on resources: flows grouped by path.

    Returns ``(pair of every flow, pair_rptr, pair_rres, pair_ptr by flow count)``: pair ``e``
    is a distinct path (resources in path order), ``pair_rres[pair_rptr[e]:pair_rptr[e+1]]``.
    Pairs are numbered in the lexicographic order of their paths, so a big switch written as
    paths ``[i, m_in + j]`` has the pairs of :func:`_pairs` in the same order (its kernels then
    give the same bits).  Flows of one path are alike for max-min fairness (the same
    constraints), which is what lets the kernel treat them as one item of their total weight.
    """
    F = instance.num_flows
    rptr = np.ascontiguousarray(instance.flow_resource_ptr, dtype=np.int64)
    rres = np.ascontiguousarray(instance.flow_resource, dtype=np.int64)
    length = np.diff(rptr)
    L = int(length.max()) if F else 1
    # paths padded with -1 to an (F, L) matrix: sorting its columns sorts the paths
    # lexicographically (a shorter path before its extensions)
    padded = np.full((F, L), -1, dtype=np.int64)
    padded[np.repeat(np.arange(F), length), np.arange(rres.size) - np.repeat(rptr[:-1], length)] \
        = rres
    perm = np.lexsort(tuple(padded[:, c] for c in range(L - 1, -1, -1)))
    pp = padded[perm]
    new = np.ones(F, dtype=bool)
    new[1:] = np.any(pp[1:] != pp[:-1], axis=1)
    pof = np.empty(F, dtype=np.int64)
    pof[perm] = np.cumsum(new) - 1
    rep = perm[new]                       # each pair's first flow carries its path
    E = rep.size
    plen = length[rep]
    prptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(plen, out=prptr[1:])
    prres = rres[np.repeat(rptr[rep] - prptr[:-1], plen) + np.arange(int(prptr[-1]))]
    pptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(np.bincount(pof, minlength=E), out=pptr[1:])
    return pof, prptr, prres, pptr


def _max_events(instance: Instance) -> int:
    return 50 * (instance.num_flows + instance.num_coflows) + 1000


def _schedule_from_chunks(instance: Instance, chunks, meta: dict) -> Schedule:
    f, s, e, v = _fk.chunks_to_arrays(chunks)
    return settle_sizes(instance, Schedule(f, s, e, v, meta=meta), copy=False)


# ------------------------------------------------------------------------------ max-min
def max_min_rates(instance: Instance, flows, weights=None, capacity=None) -> np.ndarray:
    """Weighted max-min fair rates of ``flows`` by progressive filling (plain numpy; the one
    implementation, :func:`coflowopt.maxmin.progressive_filling`, in float64).

    Parameters
    ----------
    instance : Instance
    flows : array_like of int
        Global flow indices (each uses every resource of its path: its ingress and egress port
        on a big switch).
    weights : array_like of float, optional
        One positive weight per listed flow (default 1: per-flow max-min fairness).
    capacity : array_like of float, optional
        Capacity of every resource (ports in the unified numbering on a big switch; default:
        the instance's).

    Returns
    -------
    ndarray of float
        The rate of each listed flow: all flows grow in proportion to their weights until one
        of their resources is full (Bertsekas & Gallager, Sec. 6.5.2: a flow is a session whose
        rate counts against every link of its path).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1), (1, 1, 1)])])
    >>> max_min_rates(inst, [0, 1, 2]).tolist()
    [0.5, 0.5, 0.5]

    On a line ``a -(1)- s -(2)- b`` with flows a->b (links 0, 1) and s->b (link 1), the first
    is held at 1 by link 0 and the second takes the rest of link 1:

    >>> line = Instance.from_paths(resource_capacity=[1.0, 2.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0], flow_src=[0, 1], flow_dst=[2, 2], flow_size=[1.0, 1.0],
    ...     path_ptr=[0, 2, 3], path_resource=[0, 1, 1], host_ids=["a", "s", "b"])
    >>> max_min_rates(line, [0, 1]).tolist()
    [1.0, 1.0]
    """
    fl = np.asarray(flows, dtype=np.int64)
    cap = instance.capacity if capacity is None else np.asarray(capacity, dtype=float)
    if instance.is_big_switch:
        # each flow uses its ingress and its egress port (unified numbering)
        row = np.concatenate([np.arange(fl.size), np.arange(fl.size)])
        col = np.concatenate([instance.flow_src[fl], instance.flow_egress_port[fl]])
    else:
        # the incidence of the listed flows: entry x is (flow position row[x], resource col[x])
        ptr = instance.flow_resource_ptr
        length = ptr[fl + 1] - ptr[fl]
        row = np.repeat(np.arange(fl.size), length)
        col = instance.flow_resource[concat_ranges(ptr[fl], length)]
    return progressive_filling(row, col, fl.size, np.asarray(cap, dtype=float), weights)


class MaxMinPolicy:
    """Reference (weighted) max-min policy for the generic simulator: recomputes from scratch
    at every release and flow completion with :func:`max_min_rates`."""

    reschedule_on = frozenset({"release", "flow_completion"})

    def __init__(self, weights: str = "unit"):
        if weights not in ("unit", "size"):
            raise InvalidParameterError(f"weights must be 'unit' or 'size', got {weights!r}")
        self.weights = weights
        self.name = "fair(python)" if weights == "unit" else "wss(python)"

    def reset(self, instance: Instance) -> None:
        self.inst = instance

    def allocate(self, state: SimState):
        fl = state.active_flows
        w = None if self.weights == "unit" else self.inst.flow_size[fl]
        return fl, max_min_rates(self.inst, fl, w)

    def next_timer(self, state: SimState) -> float:  # pragma: no cover - no timers
        return np.inf


def _maxmin(instance: Instance, weights: str, engine: str) -> Schedule:
    """Per-flow fairness (``weights="unit"``) or WSS (``"size"``) with the given engine."""
    engine = _engine(engine)
    meta = {"algorithm": "fair" if weights == "unit" else "wss",
            "engine": "python" if engine == "python" else "kernel"}
    if engine == "python":
        return _run_python(instance, MaxMinPolicy(weights), meta)
    chunks, stats, _ = _maxmin_kernel(instance, weights, store=True)
    return _schedule_from_chunks(instance, chunks, {**meta, **stats})


#: On resources, instances with more resources than this find the resource that fills next
#: with a heap instead of a scan (``heap_fill`` of :func:`._flow_kernel.maxmin_simulate_paths`):
#: the scan costs O(R^2) per event, the heap O(log R) per freeze.  Below it the scan keeps the
#: big switch's rounds exactly (a big switch written as paths gives the same bits); above it
#: the allocation is the same up to the order in which exactly tied resources fill.
HEAP_FILL_RESOURCES = 512


def _maxmin_call(instance: Instance, w, store: bool, window: int, chunks):
    """Run the max-min kernel of the instance's model: :func:`._flow_kernel.maxmin_simulate`
    over (ingress, egress) pairs on a big switch, :func:`._flow_kernel.maxmin_simulate_paths`
    over distinct paths on resources.  Returns the kernel's tuple."""
    if instance.is_big_switch:
        pof, psrc, pdst, pptr = _pairs(instance)
        return _fk.maxmin_simulate(
            # a writable copy always: the instance's arrays are read-only, and numba compiles
            # a separate kernel for read-only arguments (wss would have compiled a second one)
            np.array(w, dtype=float), instance.release.astype(float),
            np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
            instance.flow_size.astype(float), instance.capacity.astype(float), pof, psrc, pdst,
            pptr, COMPLETION_RTOL, SNAP_RTOL, _max_events(instance), store, window,
            *chunks.args())
    pof, prptr, prres, pptr = _path_pairs(instance)
    return _fk.maxmin_simulate_paths(
        np.array(w, dtype=float), instance.release.astype(float),
        np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
        instance.flow_size.astype(float), np.array(instance.capacity, dtype=float), pof, prptr,
        prres, pptr, COMPLETION_RTOL, SNAP_RTOL, _max_events(instance), store, window,
        instance.num_resources > HEAP_FILL_RESOURCES, *chunks.args())


def _maxmin_kernel(instance: Instance, weights: str, store: bool = True):
    """Run the max-min kernel: ``(PieceChunks, stats, coflow completion times)``.
    ``store=False`` only counts the pieces (``stats["pieces"]``): for timing schedules too large
    to hold in memory (the completion times are then unverified)."""
    w = np.ones(instance.num_flows) if weights == "unit" else instance.flow_size
    chunks = _fk.PieceChunks()
    fc, cc, events, max_active, changes = _maxmin_call(instance, w, bool(store), 0, chunks)
    if events < 0:  # pragma: no cover - max-min gives every active flow a positive rate
        raise RuntimeError(f"max-min kernel stalled after {-events} events")
    return chunks, {"events": int(events), "max_active_pairs": int(max_active),
                    "level_changes": int(changes), "pieces": chunks.total}, cc


#: Default pieces per window of :func:`maxmin_windows` (with the verifier's ~55 bytes per piece
#: of temporaries plus the window's 32, about 0.1 GB per window).
WINDOW_PIECES = 1 << 20


#: The policies with a windowed form (:func:`maxmin_windows`), and its weights.
WINDOWED_POLICIES = {"fair": "unit", "per-flow-maxmin": "unit", "wss": "size"}


def maxmin_windows(instance: Instance, on_window, *, weights: str = "unit",
                   window: int = WINDOW_PIECES) -> dict:
    """Per-flow fairness (``weights="unit"``) or WSS (``"size"``) without holding the schedule:
    the kernel hands over consecutive time windows of it.

    Why: on the Facebook trace per-flow fairness changes flow rates about 1.9e8 times (1.1e8
    pair level changes, each for every flow of the pair), so its schedule is about 6 GB of
    pieces; a window at a time it is checked (:class:`coflowopt.verify.WindowedVerifier`) in
    the memory of one window.

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order: ``schedule`` holds
        the pieces that lie in ``[start, end]`` (pieces open at a window boundary are cut there,
        with the same rate on both sides, so the rates as functions of time are the same as in
        :func:`fair`/:func:`wss`).  The schedule is the callee's to keep.
    weights : {"unit", "size"}
    window : int
        Pieces per window (at least; a window ends at the first event after ``window`` pieces).

    Returns
    -------
    dict
        ``events``, ``max_active_pairs``, ``level_changes``, ``pieces`` (cut pieces included),
        ``windows``, ``callback_s`` (time spent in ``on_window``) and ``coflow_completion``
        (the kernel's own completion times, unverified).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("S", [(0, 0, 1), (0, 1, 1), (1, 0, 1),
    ...                                            (1, 1, 1), (2, 0, 2), (2, 1, 2)])])
    >>> v = WindowedVerifier(inst)
    >>> stats = maxmin_windows(inst, lambda s, a, b: v.add(a, b, s), window=2)
    >>> rep = v.report()
    >>> rep.ok, rep.coflow_completion.tolist(), stats["windows"] > 1
    (True, [5.0], True)
    """
    from ..rates import _pieces

    if weights not in ("unit", "size"):
        raise InvalidParameterError(f"weights must be 'unit' or 'size', got {weights!r}")
    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    w = np.ones(instance.num_flows) if weights == "unit" else instance.flow_size
    # an event and a cut each close at most one piece per flow (kernel docstring)
    chunks = _fk.PieceChunks(buffer=window + 2 * instance.num_flows + 16)
    sink = _pieces.WindowSink(instance, on_window,
                              {"algorithm": "fair" if weights == "unit" else "wss",
                               "engine": "kernel"})
    fc, cc, events, max_active, changes = sink.run(
        lambda: _maxmin_call(instance, w, True, window, chunks), "maxmin_windows")
    if events < 0:  # pragma: no cover - max-min gives every active flow a positive rate
        raise RuntimeError(f"max-min kernel stalled after {-events} events")
    return {"events": int(events), "max_active_pairs": int(max_active),
            "level_changes": int(changes), "pieces": chunks.total,
            "windows": sink.windows, "callback_s": sink.callback_s,
            "coflow_completion": cc}


def _run_python(instance: Instance, policy, meta: dict) -> Schedule:
    res = simulate(instance, policy)
    s = res.schedule
    return Schedule(s.flow, s.start, s.end, s.rate,
                    meta={**meta, "events": res.events, "policy_calls": res.policy_calls})


@register("policy", "fair", summary="per-flow max-min fairness (TCP-like) by progressive "
          "filling over the resources of the flows' paths (ingress and egress ports on a big "
          "switch), recomputed at every flow arrival/completion",
          reference="Chowdhury dissertation (2015) Sec. 2.1, Fig. 3.2, Fig. 5.1; Bertsekas & "
          "Gallager, Data Networks, Sec. 6.5.2; coflowsim FlowSimulator (FAIR)",
          tags=("flow_level", "work_conserving", "preemptive", "release_dates",
                "heterogeneous_capacities", "non_clairvoyant"))
def fair(instance: Instance, *, engine: str = "auto") -> Schedule:
    """Per-flow max-min fair sharing, recomputed at every flow arrival and completion.

    Parameters
    ----------
    instance : Instance
    engine : {"auto", "kernel", "python"}
        ``kernel`` (compiled; pairs -- distinct paths on resources -- with multiplicities) or
        ``python`` (from-scratch progressive filling in the generic simulator).  ``auto`` uses
        the kernel.

    Returns
    -------
    Schedule
        ``meta`` has the number of events (and, for the kernel, of pair level changes).

    Raises
    ------
    InvalidParameterError
        For an unknown ``engine``.

    Examples
    --------
    The dissertation's 3x2 shuffle (Fig. 3.2): per-flow fairness finishes it at 5, 1.25x the
    optimum 4:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("S", [(0, 0, 1), (0, 1, 1), (1, 0, 1),
    ...                                            (1, 1, 1), (2, 0, 2), (2, 1, 2)])])
    >>> verify_schedule(inst, fair(inst)).coflow_completion.tolist()
    [5.0]

    Notes
    -----
    *Guarantee.*  None for coflow completion times: the E4 family (N small senders, one big
    sender with N units per receiver) has fair CCT 3N - 1 against 2N for MADD.

    *Assumptions.*  Flow sizes are not read for the rates (non-clairvoyant), only to know
    when a flow ends.  Weights are ignored.

    *Running time.*  The kernel makes one progressive filling per event over the active
    (ingress, egress) pairs, O(active pairs + ports^2); flows of one pair share a rate and
    finish in order of remaining size, so a flow costs only its arrival, its completion and
    its pieces (one per change of its pair's rate).  Completions are batched per pair.  On the
    Facebook trace: about 3.8e4 events, 1.1e8 pair rate changes and 1.9e8 pieces, i.e. 1.9e8
    genuine rate changes of single flows (the level of a pair moves whenever a flow arrives at
    or leaves a port of its bottleneck), about 6 GB as a held schedule: run it window by
    window with :func:`maxmin_windows` and :class:`coflowopt.verify.WindowedVerifier`
    (0.3-0.4 GB; ``experiments/bench_rates.py``).

    On resources the pairs are distinct paths, and a progressive filling touches every
    (pair, resource) entry of the active pairs.  The Facebook trace on ``fat_tree(16)`` (6144
    links; ``on_topology(..., routing="ecmp", seed=0, placement="random")``: 525,874 distinct
    paths for 706,397 flows) through ``run_schedule(..., keep_schedule=False)``: 2.02e8
    pieces in 182 windows, kernel 1,400 s and windowed verification 1,534 s of wall time on a
    shared 2-core machine at load 6-9 (about 21 min of CPU for both), peak 2.3 GB; feasible.

    References
    ----------
    Chowdhury, PhD dissertation (2015), Sec. 2.1 ("per-flow fairness"), Fig. 3.2, Fig. 5.1;
    Bertsekas & Gallager, *Data Networks*, Sec. 6.5.2.
    """
    return _maxmin(instance, "unit", engine)


@register("policy", "wss", summary="Orchestra's weighted shuffle scheduling: weighted max-min "
          "with weight = flow size (per port, rates proportional to sizes), recomputed at every "
          "flow arrival/completion",
          reference="Orchestra (SIGCOMM 2011) Sec. 5; Chowdhury dissertation (2015) Sec. 5.3, "
          "Fig. 5.1",
          tags=("flow_level", "work_conserving", "preemptive", "release_dates",
                "heterogeneous_capacities"))
def wss(instance: Instance, *, engine: str = "auto") -> Schedule:
    """Weighted Shuffle Scheduling: weighted max-min fairness with weights = flow sizes.

    Parameters
    ----------
    instance : Instance
    engine : {"auto", "kernel", "python"}
        ``kernel`` (compiled, as for :func:`fair`) or ``python`` (from-scratch weighted
        progressive filling in the generic simulator).  ``auto`` uses the kernel.

    Returns
    -------
    Schedule

    Raises
    ------
    InvalidParameterError
        For an unknown ``engine``.

    Examples
    --------
    Fig. 5.1 of the dissertation: at P1 the flows of 1 and 2 units share the port 1:2 and
    both end at 3; every other flow ends at 4 (average FCT 3.6, average CCT 4):

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (1, 1, 2), (2, 2, 4)]),
    ...                               Coflow("C2", [(0, 3, 2), (1, 4, 2)])])
    >>> verify_schedule(inst, wss(inst)).flow_completion.tolist()
    [3.0, 4.0, 4.0, 3.0, 4.0]

    Notes
    -----
    *Definition* (module docstring): rates are the weighted max-min fair allocation over the
    active flows with weight ``w_f = size_f``, recomputed at releases and flow completions.

    *Guarantee.*  A single shuffle alone whose bottleneck is one side (all senders, or all
    receivers) finishes at its optimum; in general none.

    *Running time.*  As :func:`fair`.

    References
    ----------
    M. Chowdhury et al., "Managing Data Transfers in Computer Clusters with Orchestra",
    SIGCOMM 2011, Sec. 5; Chowdhury, PhD dissertation (2015), Sec. 5.3, Fig. 5.1 (3.6 / 4).
    """
    return _maxmin(instance, "size", engine)


# ------------------------------------------------------------------------------ priority
def _priority_keys(instance: Instance, deadline_first: bool, tie_order):
    """(primary key per flow, tie rank per flow)."""
    K = instance.num_coflows
    tie = np.arange(K) if tie_order is None else validate_order(instance, tie_order, "tie_order")
    crank = np.empty(K, dtype=np.int64)
    crank[tie] = np.arange(K)
    fr = crank[instance.flow_coflow]
    order = np.lexsort((np.arange(instance.num_flows), fr))
    tier = np.empty(instance.num_flows, dtype=np.int64)
    tier[order] = np.arange(instance.num_flows)
    if deadline_first:
        d = instance.deadline[instance.flow_coflow]
        prim = np.where(np.isnan(d), np.inf, d)
    else:
        prim = np.zeros(instance.num_flows)
    return prim.astype(float), tier


class PriorityPolicy:
    """Reference per-flow priority policy for the generic simulator: at every release and flow
    completion, sort the active flows by (primary key, remaining size, tie rank) and give each
    ``min(residual ingress, residual egress)`` (on resources: the smallest residual over its
    path, :func:`coflowopt.rates.greedy.fill_in_order`)."""

    reschedule_on = frozenset({"release", "flow_completion"})
    name = "priority(python)"

    def __init__(self, deadline_first: bool = False, tie_order=None, tol_rel: float = 1e-12):
        self.deadline_first = deadline_first
        self.tie_order = tie_order
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        self.prim, self.tier = _priority_keys(instance, self.deadline_first, self.tie_order)
        self.tol = self.tol_rel * instance.capacity.astype(float)  # per port

    def allocate(self, state: SimState):
        inst = self.inst
        fl = state.active_flows
        order = np.lexsort((self.tier[fl], state.remaining[fl], self.prim[fl]))
        return fill_in_order(inst, fl[order].tolist(), self.tol)

    def next_timer(self, state: SimState) -> float:  # pragma: no cover - no timers
        return np.inf


@register("policy", "priority", summary="per-flow shortest-remaining-time-first (pFabric/PDQ): "
          "greedy over flows by remaining size, recomputed at every flow arrival/completion; "
          "optional EDF across flows",
          reference="pFabric (SIGCOMM 2013); PDQ (SIGCOMM 2012); Chowdhury dissertation (2015) "
          "Sec. 2.1, Fig. 5.1; coflowsim FlowSimulator (PDQ)",
          tags=("flow_level", "work_conserving", "preemptive", "release_dates",
                "heterogeneous_capacities", "deadlines"),
          aliases=("pfp", "srtf"))
def priority(instance: Instance, *, deadline_first: bool = False, tie_order=None,
             engine: str = "auto") -> Schedule:
    """Per-flow priority: shortest remaining size first (optionally earliest deadline first).

    Parameters
    ----------
    instance : Instance
    deadline_first : bool
        Flows of coflows with a deadline first, by earliest (absolute) deadline; then the
        others.  Within a deadline, by remaining size.
    tie_order : array_like of int, optional
        Coflow order that breaks ties of equal remaining size (then flow index); default the
        instance order.  Fig. 5.1's printed 2.8 / 3.5 needs the tie at P2 broken toward C2.
    engine : {"auto", "kernel", "python"}
        ``kernel`` (compiled incremental greedy matching -- a greedy packing of paths on
        resources; equal capacities only), ``python`` (:class:`PriorityPolicy` in the generic
        simulator).  ``auto``: the kernel when every port (resource) has the same capacity,
        else ``python``.

    Returns
    -------
    Schedule
        ``meta`` has the number of events and preemptions.

    Raises
    ------
    InvalidParameterError
        For an unknown ``engine`` or a bad ``tie_order``.
    NotSupportedError
        ``engine="kernel"`` with unequal port capacities.

    Examples
    --------
    The 3x2 shuffle (Fig. 3.2): unit flows first, then the two 2-unit flows of s3 one after
    the other: the shuffle ends at 6, though the average FCT (8/3) is the smallest:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("S", [(0, 0, 1), (0, 1, 1), (1, 0, 1),
    ...                                            (1, 1, 1), (2, 0, 2), (2, 1, 2)])])
    >>> verify_schedule(inst, priority(inst)).flow_completion.tolist()
    [1.0, 2.0, 2.0, 1.0, 4.0, 6.0]

    Notes
    -----
    *Definition and why remaining size*: see the module docstring.

    *Guarantee.*  None for coflows (Fig. 3.2: 1.5x the optimal CCT).

    *Running time.*  The kernel keeps, for each (ingress, egress) pair, its waiting flows sorted
    by key (only the smallest can be served) and repairs the greedy matching at each event in
    key order from the changed heads and freed ports: O(log) per touched head plus the
    shifting of sorted per-port lists.  Events: one per release and per flow completion.

    References
    ----------
    Alizadeh et al., pFabric (SIGCOMM 2013); Hong, Caesar, Godfrey, PDQ (SIGCOMM 2012);
    Chowdhury, PhD dissertation (2015), Sec. 2.1, Fig. 5.1; coflowsim ``FlowSimulator.java``.
    """
    engine = _engine(engine)
    prim, tier = _priority_keys(instance, bool(deadline_first), tie_order)
    uniform = instance.uniform_capacity
    if engine == "kernel" and not uniform:
        raise NotSupportedError("engine='kernel' of priority needs equal port capacities; use "
                                "engine='python' (or 'auto')")
    use_kernel = engine == "kernel" or (engine == "auto" and uniform)
    meta = {"algorithm": "priority", "deadline_first": bool(deadline_first),
            "tie_order": None if tie_order is None else np.asarray(tie_order).tolist(),
            "engine": "kernel" if use_kernel else "python"}
    if not use_kernel:
        return _run_python(instance, PriorityPolicy(bool(deadline_first), tie_order), meta)
    chunks = _fk.PieceChunks()
    if instance.is_big_switch:
        pof, psrc, pdst, pptr = _pairs(instance)
        fc, cc, events, preempt = _fk.priority_simulate(
            prim, tier, instance.release.astype(float),
            np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
            instance.flow_size.astype(float), float(instance.capacity[0]), pof, psrc, pdst,
            pptr, COMPLETION_RTOL, _max_events(instance), *chunks.args())
    else:
        pof, prptr, prres, pptr = _path_pairs(instance)
        fc, cc, events, preempt = _fk.priority_simulate_paths(
            prim, tier, instance.release.astype(float),
            np.ascontiguousarray(instance.flow_ptr, dtype=np.int64),
            instance.flow_size.astype(float), float(instance.capacity[0]), pof, prptr, prres,
            pptr, COMPLETION_RTOL, _max_events(instance), *chunks.args())
    if events < 0:  # pragma: no cover - the greedy matching always serves some flow
        raise RuntimeError(f"priority kernel stalled after {-events} events")
    return _schedule_from_chunks(instance, chunks, {**meta, "events": int(events),
                                          "preemptions": int(preempt)})
