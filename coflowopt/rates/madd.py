"""Iterative MADD with backfilling: Varys' rate allocation for a given coflow order.

MADD (Minimum Allocation for Desired Duration) serves one coflow by giving every flow the rate
``r_ij = d_ij / Gamma``, with ``Gamma`` the coflow's minimum completion time (Eq. 4.1): all its
flows then finish together at ``Gamma`` using the least bandwidth.  *Iterative* MADD (Pseudocode 1,
``allocBandwidth``) walks the coflows in priority order and computes each coflow's Gamma on the
capacity its predecessors left (``Rem(.)``); then the leftover bandwidth is *backfilled* (line 16,
work conservation).  The allocation is recomputed only when a coflow is released or completes,
so between those events flows keep their rates (a backfilled flow may finish early and leave its
ports idle until the next coflow event: that is Varys' design, "to avoid incessant
rescheduling").

Ambiguities of the dissertation and how they are resolved here
---------------------------------------------------------------
* **Remaining bytes.**  At every event ``d_ij`` is the flow's *remaining* size and Gamma is
  computed on the remaining demand.
* **No residual capacity.**  A coflow that needs a port whose residual is 0 has ``Gamma = inf``
  (coflowsim's ``VALUE_UNKNOWN``, Sincronia's ``-1``): MADD gives it no rate; backfilling may.
* **Backfilling** (``backfill=``):

  ``"varys"`` (default, ``True``)
      Coflows in the given order; each coflow's leftover share goes to its flows *in proportion
      to their remaining sizes* -- their current MADD ratios ``r_ij``, which resolves the text's
      undefined ratio for coflows that got ``r_ij = 0`` -- as far as the ingress *and* egress
      leftovers allow: a weighted progressive filling in which a group of flows with the same
      (ingress, egress) pair stops growing when one of its ports is full.  The text's per-ingress
      loop ("for each ingress port ... subject to capacity constraints in corresponding
      P^out_j") is this filling restricted to one ingress port; doing the whole coflow at once
      makes the result independent of how ports are numbered and keeps the priority order
      across ports.  After a coflow is processed, each of its unfinished flows has a full port,
      so the allocation at each event is work-conserving.
  ``"coflowsim"``
      What the reference code does (Sincronia ``offlinesim/scheduler.cpp``,
      ``assign_MADD_rates_to_flows``; the same scheme as coflowsim's ``CoflowSimulator``):
      (1) every flow of a skipped coflow whose two ports have leftover gets the per-port fair
      share ``min(res_i / n_i, res_j / n_j)``, ``n`` counting those flows at the port, computed
      before any is subtracted; (2) a greedy pass over all coflows in the given order, flows in
      listed order, adds ``min(res_i, res_j)`` to each flow.  (coflowsim's Java fills in order of
      start time plus a pseudo-random deadline; here the fill follows the given order, as in
      Sincronia.)
  ``None`` (or ``False``)
      No work conservation: plain iterative MADD.

On resources (a topology)
-------------------------
An instance whose flows run over paths of shared resources (``not instance.is_big_switch``) is
served by the same rules with "port" read as "resource" (Varys states MADD for the big switch;
this reading is the natural one, and on a big switch written as paths it is the same
algorithm): a coflow's Gamma is ``max_p (remaining data of the coflow through p) / Rem(p)``
over the resources ``p`` of its flows' paths, every flow gets ``remaining / Gamma`` -- which
fits every resource of its path, since the coflow's load on each is at most
``Gamma x Rem(p)`` -- and the residual of every resource on the path is decremented.  A
coflow with a resource at 0 residual gets ``Gamma = inf`` (nothing from MADD).  Backfilling:
``"varys"`` groups a coflow's flows by path instead of (ingress, egress) pair and the weighted
progressive filling stops a group when any resource of its path is full; ``"coflowsim"``
shares ``min_p res_p / n_p`` over the path and its greedy pass adds ``min_p res_p``.  The
compiled functions over paths are in :mod:`._madd_kernel` (suffix ``_paths``); the big-switch
ones are untouched, and a big switch written as paths ``[i, m_in + j]`` gives the same
schedule to the last bit (``tests/test_resources_madd_varys.py``).

References
----------
M. Chowdhury, "Coflow: A Networking Abstraction for Distributed Data-Parallel Applications",
PhD dissertation, UC Berkeley, 2015: Eq. (4.1), Sec. 4.5.3 (MADD), Sec. 5.5.3 and Pseudocode 1
(``allocBandwidth``, ``minCCTOffline``); M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow
Scheduling with Varys", SIGCOMM 2014.  Code: ``sincronia-coflow/simulator``
``offlinesim/scheduler.cpp`` (``assign_MADD_rates_to_flows``); ``coflow/coflowsim``
``src/main/java/coflowsim/simulators/CoflowSimulator.java`` (``updateRatesDynamicAlpha``).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..limits import TOL_REL_MAX, check_tolerance
from ..orderings.basic import validate_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import FinishedFlows, SimState, settle_sizes, simulate
from . import _madd_kernel as _k
from ._jit import njit, read_only  # lazy numba, compile announced (see rates/_jit)
from ._pieces import PieceChunks, chunks_to_arrays

#: A recomputed rate within this relative distance of a flow's current rate is the same rate
#: (the rounding of ``rem / Gamma`` recomputed at an event); keeping it avoids a new piece.
#: The same snap as the flow-level kernels (:data:`coflowopt.policies.flow_level.SNAP_RTOL`).
#: Static orders only: Varys (``sebf=True``) re-ranks the coflows on their remaining Gamma at
#: every event, where near-ties flip with a last-bit change of a rate, so the snap would change
#: its decisions (FB trace, all releases at 0: average CCT 8612 -> 9195); with a fixed order the
#: snap moves completion times by ~1e-14 relative (SEBF+MADD on the trace: 2955.7635998751475
#: -> 2955.763599875172) and removes 3.1e6 of 1.3e7 pieces.
SNAP_RTOL = 1e-12

__all__ = ["madd", "MaddPolicy", "BACKFILL_RULES", "backfill_rule", "run_madd_kernel",
           "run_madd_windows", "madd_windows", "WINDOW_PIECES", "held_as_window"]

#: Accepted values of ``backfill`` and the rule each selects.
BACKFILL_RULES = {"varys": _k.BACKFILL_VARYS, "coflowsim": _k.BACKFILL_COFLOWSIM,
                  None: _k.BACKFILL_NONE}


def backfill_rule(backfill) -> str | None:
    """Normalise ``backfill``: ``True`` -> ``"varys"``, ``False``/``None`` -> ``None``.

    Raises
    ------
    InvalidParameterError
        For any other value (the message lists the valid ones).
    """
    if backfill is True:
        return "varys"
    if backfill is False or backfill is None:
        return None
    if isinstance(backfill, str) and backfill in BACKFILL_RULES:
        return backfill
    raise InvalidParameterError(
        f"backfill must be True, False, None, 'varys' or 'coflowsim', got {backfill!r}")


class MaddPolicy:
    """Iterative MADD plus backfilling as a :class:`~coflowopt.simulate.RatePolicy`.

    Called by the simulator at coflow releases and completions only.  At each call the active
    coflows are ranked by :meth:`coflow_order`, each gets its MADD rates on the residual
    capacity for the duration given by :meth:`durations` (its Gamma by default), then the
    leftover is backfilled.

    Parameters
    ----------
    order : array_like of int, optional
        Static priority order of all coflows (highest first).  Subclasses that rank coflows
        dynamically (:class:`coflowopt.policies.varys.VarysPolicy`) leave it ``None`` and
        override :meth:`coflow_order`.
    backfill : {"varys", "coflowsim", None, True, False}
        See the module docstring.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0 (relative
        to each port, so that capacities of any ratio are served).

    Notes
    -----
    Extension points for subclasses (online Varys, deadline mode):

    * :meth:`coflow_order` -- which active coflows, in which order (e.g. admitted deadline
      coflows first, or only the starved set during a delta-interval);
    * :meth:`durations` -- per-coflow duration ``tau`` (``NaN`` = its Gamma on the residual);
      deadline mode returns ``deadline - time`` (Pseudocode 2's ``r_ij = d_ij / D``);
    * :attr:`reschedule_on` and :meth:`next_timer` -- add ``"timer"`` for the T/delta
      alternation;
    * after :meth:`allocate`, :attr:`last_order`, :attr:`last_gamma` (``inf`` = starved by
      MADD) and :attr:`last_residual` describe the allocation (e.g. to update the starved set
      ``C_zero``).
    """

    name = "madd"
    reschedule_on = frozenset({"release", "coflow_completion"})

    def __init__(self, order=None, backfill="varys", tol_rel: float = 1e-12):
        self.order = None if order is None else np.asarray(order, dtype=np.int64)
        self.backfill = backfill_rule(backfill)
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)
        self.last_order = np.zeros(0, dtype=np.int64)
        self._gamma = np.zeros(0)
        self._last_n = 0
        self.last_residual = np.zeros(0)

    @property
    def last_gamma(self) -> np.ndarray:
        """The durations MADD used in the last call, by position in :attr:`last_order`
        (``inf``: got nothing from MADD); copied when read, not at every call (an O(order)
        copy per event that only tests read)."""
        return self._gamma[:self._last_n].copy()

    # ------------------------------------------------------------------ extension points
    def coflow_order(self, state: SimState) -> np.ndarray:
        """Active coflows in priority order (default: the static ``order``)."""
        act = state.active_coflows
        return act[np.argsort(self._rank[act], kind="stable")]

    def durations(self, state: SimState, order: np.ndarray) -> np.ndarray | None:
        """Per-coflow durations for MADD (``None`` or ``NaN`` entries: use Gamma)."""
        return None

    # ------------------------------------------------------------------ RatePolicy
    def reset(self, instance: Instance) -> None:
        self.inst = instance
        K, F, P = instance.num_coflows, instance.num_flows, instance.num_ports
        if self.order is not None:
            self._rank = np.empty(K, dtype=np.int64)
            self._rank[self.order] = np.arange(K)
        self._general = not instance.is_big_switch
        self._ptr = np.ascontiguousarray(instance.flow_ptr, dtype=np.int64)
        self._cap = instance.capacity.astype(float)
        self._tol = self.tol_rel * self._cap  # per port: relative to what it guards
        if self._general:
            # on resources, "src"/"dstu" are the path CSR and the groups are (coflow, path)
            self._src, self._dstu = _flow_paths(instance)
            (self._grp_ptr, self._grp_lo, self._grp_hi, self._grp_src, self._grp_dst,
             self._gflows) = _path_groups(instance)
            self._scratch = _k.madd_scratch_paths(F, P, self._grp_lo.size,
                                                  self._grp_dst.size)
        else:
            self._src = np.ascontiguousarray(instance.flow_src, dtype=np.int64)
            self._dstu = np.ascontiguousarray(instance.flow_egress_port, dtype=np.int64)
            (self._grp_ptr, self._grp_lo, self._grp_hi, self._grp_src, self._grp_dst,
             self._gflows) = _pair_groups(instance)
            self._scratch = _k.madd_scratch(F, P, self._grp_lo.size)
            # what madd_simulate keeps across events so that an event does not read every
            # active coflow (its witnesses, the groups by port pair for backfilling): the
            # same kept here across calls, with the same arithmetic (_madd_allocate_indexed)
            G = self._grp_lo.size
            self._wit = np.full(K, -1, dtype=np.int64)
            self._got = np.zeros(2 * K + 1, dtype=np.int64)
            self._posq = np.full(K, -1, dtype=np.int64)
            self._owit = np.zeros(K, dtype=np.int64)   # wit by position in the order
            self._grp_coflow = np.repeat(np.arange(K, dtype=np.int64), np.diff(self._grp_ptr))
            self._buckets = _k.pair_buckets(self._grp_src, self._grp_dst, instance.num_ingress,
                                            P)
            self._none = np.zeros(0, dtype=np.int64)   # no per-coflow unfinished counts
            self._no_ranges = np.zeros((0, 2), dtype=np.int64)   # group ranges: grp_ptr
            # no port masks: _iterative_madd reads a coflow whose witness is open
            self._no_mask = np.zeros((0, 2), dtype=np.uint64)
            self._no_full = np.zeros(1, dtype=np.uint64)
            self._cand_q = np.zeros(G, dtype=np.int64)
            self._cand_g = np.zeros(G, dtype=np.int64)
            # when a flow finishes, its coflow's witness may no longer carry a flow of it
            # (reset as madd_simulate does)
            self._finished = FinishedFlows(F)
        self._out_f = np.zeros(F, dtype=np.int64)
        self._out_r = np.zeros(F)
        self._gamma = np.zeros(K)
        self._nan = np.full(K, np.nan)
        self._res = np.zeros(P)

    def allocate(self, state: SimState):
        order = np.ascontiguousarray(self.coflow_order(state), dtype=np.int64)
        tau = self.durations(state, order)
        if tau is None:
            # all NaN (Gamma on the residual); the kernels only read it: a slice of one array
            # filled at reset, not a new one per call
            tau = (self._nan[:order.size] if order.size <= self._nan.size
                   else np.full(order.size, np.nan))
        else:
            tau = np.ascontiguousarray(tau, dtype=float)
        if tau.shape != order.shape:
            raise InvalidParameterError(f"durations() returned {tau.shape[0]} values for "
                                        f"{order.size} coflows")
        args = (order, tau, BACKFILL_RULES[self.backfill], self._ptr, self._src, self._dstu,
                state.remaining, self._cap, self._tol, self._grp_ptr, self._grp_lo,
                self._grp_hi, self._grp_src, self._grp_dst, self._gflows, *self._scratch,
                self._out_f, self._out_r, self._gamma, self._res)
        if self._general:
            n = _k.madd_allocate_paths(*args)
        else:
            # the flows finished since the last call: O(those flows) from the simulator's log,
            # where the list of every flow ever given a rate grew with the run
            fin = self._finished.since(state)
            if fin.size:
                k = self.inst.flow_coflow[fin]
                w = self._wit[k]
                self._wit[k[(w == self._src[fin]) | (w == self._dstu[fin])]] = -1
            owit = self._owit[:order.size]
            active_groups = _order_positions(order, self._wit, owit, self._grp_ptr)
            n = _k._madd_allocate_indexed(
                *args, self._wit, owit, self._got, self._posq, self._none,
                self.inst.num_ingress,
                *self._buckets, self._grp_coflow, active_groups, self._cand_q, self._cand_g,
                self._no_ranges, False, self._no_mask, self._no_full, self._none)
            self._finished.given(state, self._out_f[:n])
        self.last_order = order
        self._last_n = order.size
        self.last_residual = self._res.copy()
        return self._out_f[:n].copy(), self._out_r[:n].copy()

    def next_timer(self, state: SimState) -> float:
        return np.inf


@njit(cache=True)
def _order_positions(order, wit, owit, grp_ptr):
    """Per call of :meth:`MaddPolicy.allocate`, in one compiled pass over ``order`` (instead
    of three numpy passes over the active coflows): ``owit[q] = wit[order[q]]``; returns the
    number of groups of the coflows in ``order``.  (The positions ``posq`` are written by the
    kernel, only when backfilling uses them.)"""
    groups = 0
    for q in range(order.shape[0]):
        k = order[q]
        owit[q] = wit[k]
        groups += grp_ptr[k + 1] - grp_ptr[k]
    return groups


def _pair_groups(instance: Instance):
    """Each coflow's flows grouped by (ingress, egress) pair, for backfilling.

    Returns ``grp_ptr`` (K+1, groups of coflow k are ``grp_ptr[k]:grp_ptr[k+1]``), ``grp_lo``,
    ``grp_hi`` (each group's slice of ``gflows``), ``grp_src``, ``grp_dst`` (unified egress
    port) and ``gflows`` (flow indices sorted by coflow, ingress, egress, index).
    """
    K, F = instance.num_coflows, instance.num_flows
    src = np.ascontiguousarray(instance.flow_src, dtype=np.int64)
    dstu = np.ascontiguousarray(instance.flow_egress_port, dtype=np.int64)
    coflow = instance.flow_coflow
    n_s, n_d = (int(src.max()) + 1, int(dstu.max()) + 1) if F else (1, 1)
    if K * n_s * n_d < 2 ** 62:
        # one stable sort of the combined key: lexsort's order (ties by index), 6x faster
        # than lexsort's four sorts on the Facebook trace (0.014 s against 0.09 s)
        key = (np.asarray(coflow, dtype=np.int64) * n_s + src) * n_d + dstu
        perm = np.argsort(key, kind="stable").astype(np.int64)
    else:  # pragma: no cover - a key that would not fit in int64
        perm = np.lexsort((np.arange(F), dstu, src, coflow)).astype(np.int64)
    c, s, d = coflow[perm], src[perm], dstu[perm]
    new = np.ones(F, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    lo = np.flatnonzero(new).astype(np.int64)
    hi = np.append(lo[1:], F).astype(np.int64)
    grp_ptr = np.zeros(K + 1, dtype=np.int64)
    np.cumsum(np.bincount(c[lo], minlength=K), out=grp_ptr[1:])
    return grp_ptr, lo, hi, s[lo].copy(), d[lo].copy(), perm


def _flow_paths(instance: Instance):
    """The flow-to-resource CSR ``(flow_resource_ptr, flow_resource)`` as contiguous int64."""
    return (np.ascontiguousarray(instance.flow_resource_ptr, dtype=np.int64),
            np.ascontiguousarray(instance.flow_resource, dtype=np.int64))


def _path_groups(instance: Instance):
    """:func:`_pair_groups` on resources: each coflow's flows grouped by path.

    Returns ``grp_ptr`` (K+1), ``grp_lo``, ``grp_hi`` (each group's slice of ``gflows``),
    ``grp_rptr`` (G+1) and ``grp_rres`` (each group's path, CSR), and ``gflows`` (flow indices
    sorted by coflow, path -- resource by resource, in path order -- and index).  On a big
    switch written as paths ``[ingress, m_in + egress]`` this is exactly :func:`_pair_groups`
    (same order, same groups).  A group is only a shortcut of the backfilling: flows with the
    same resources and weights proportional to their sizes freeze together in the weighted
    progressive filling, so a group of them behaves as one item of their total weight.
    """
    K, F = instance.num_coflows, instance.num_flows
    rptr, rres = _flow_paths(instance)
    length = np.diff(rptr)
    L = int(length.max()) if F else 0
    # paths padded with -1 to a (F, L) matrix: sorting its columns sorts the paths
    # lexicographically (a shorter path before its extensions)
    padded = np.full((F, max(L, 1)), -1, dtype=np.int64)
    padded[np.repeat(np.arange(F), length),
           np.arange(rres.size) - np.repeat(rptr[:-1], length)] = rres
    coflow = instance.flow_coflow
    keys = (np.arange(F),) + tuple(padded[:, c] for c in range(padded.shape[1] - 1, -1, -1)) \
        + (coflow,)
    perm = np.lexsort(keys).astype(np.int64)
    c, pp = coflow[perm], padded[perm]
    new = np.ones(F, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | np.any(pp[1:] != pp[:-1], axis=1)
    lo = np.flatnonzero(new).astype(np.int64)
    hi = np.append(lo[1:], F).astype(np.int64)
    grp_ptr = np.zeros(K + 1, dtype=np.int64)
    np.cumsum(np.bincount(c[lo], minlength=K), out=grp_ptr[1:])
    rep = perm[lo]                      # each group's first flow carries its path
    glen = length[rep]
    grp_rptr = np.zeros(lo.size + 1, dtype=np.int64)
    np.cumsum(glen, out=grp_rptr[1:])
    entry = np.repeat(rptr[rep] - grp_rptr[:-1], glen) + np.arange(int(grp_rptr[-1]))
    return grp_ptr, lo, hi, grp_rptr, rres[entry].copy(), perm


def _madd_call(instance: Instance, rank, sebf: bool, backfill: str | None, tol_rel: float,
               chunks: PieceChunks, window: int, fc: np.ndarray, online=None,
               max_events: int | None = None):
    """One call of :func:`._madd_kernel.madd_simulate` on ``instance`` (the allocation over
    port pairs on a big switch, over paths on resources); ``fc`` (F, NaN) receives the flow
    completion times.  Returns the kernel's ``cc, fc, events, calls``, followed with
    ``online = (T, delta)`` (varys-online's clock, :func:`run_madd_kernel`) by its logs."""
    from ..simulate import COMPLETION_RTOL, SimulationError

    general = not instance.is_big_switch
    if general:
        # the same event loop with the allocation over paths (_madd_kernel, general resources)
        groups = _path_groups(instance)
        src, dstu = _flow_paths(instance)
        m_in, none = 0, np.zeros(0, dtype=np.int64)
        buckets, nb, stride = (none, none, none, none), 1, 1
    else:
        groups = _pair_groups(instance)
        src = np.ascontiguousarray(instance.flow_src, dtype=np.int64)
        dstu = np.ascontiguousarray(instance.flow_egress_port, dtype=np.int64)
        m_in = instance.num_ingress
        buckets, nb, stride = _k.pair_buckets(groups[3], groups[4], m_in, instance.num_ports)
    cap = instance.capacity.astype(float)
    K, F = instance.num_coflows, instance.num_flows
    out = _k.madd_simulate(
        _k.ORDER_SEBF if sebf else _k.ORDER_STATIC, np.asarray(rank, dtype=np.int64),
        BACKFILL_RULES[backfill], instance.release.astype(float),
        np.ascontiguousarray(instance.flow_ptr, dtype=np.int64), src, dstu,
        read_only(instance.flow_size, float), cap, tol_rel * cap, COMPLETION_RTOL,
        *groups, 50 * (F + K) + 1000 if max_events is None else int(max_events),
        0.0 if sebf else SNAP_RTOL, *chunks.args(), general, m_in, buckets, nb, stride,
        int(window), fc,
        _k.madd_simulate_scratch(F, groups[1].shape[0],
                                 groups[4].shape[0] if general else 2 * groups[1].shape[0],
                                 not general),
        *((0.0, 0.0) if online is None else map(float, online)))
    if out[2] < 0:  # pragma: no cover - the first coflow of the order always gets capacity
        raise SimulationError(f"MADD kernel stalled after {-out[2]} events")
    return out if online is not None else out[:4]


def run_madd_kernel(instance: Instance, rank, *, sebf: bool, backfill: str | None,
                    tol_rel: float = 1e-12, meta: dict | None = None, online=None,
                    max_events: int | None = None, log: dict | None = None) -> Schedule:
    """Run iterative MADD + backfilling in the compiled event loop.

    Parameters
    ----------
    instance : Instance
    rank : ndarray of int, shape (K,)
        Priority rank of every coflow (0 = highest).  With ``sebf=True`` it only breaks ties.
    sebf : bool
        Re-rank the active coflows at every event by their remaining Gamma (Varys' SEBF).
    backfill : {"varys", "coflowsim", None}
    tol_rel : float
    meta : dict, optional
        Stored in the schedule's ``meta`` (with ``events`` and ``policy_calls``).
    online : (T, delta), optional
        ``varys-online``'s T- and delta-intervals (``delta > 0``; with ``sebf``, on a big
        switch, backfilling ``"varys"`` or none: :func:`coflowopt.policies.online_varys.
        varys_online`); ``log`` (a dict) then receives ``T_starts`` and ``delta_intervals``.
    max_events : int, optional
        The event budget (default ``50 (F + K) + 1000``).

    Returns
    -------
    Schedule

    See Also
    --------
    run_madd_windows : the same schedule handed over window by window, never held.
    """
    # the compiled loop's entries check what MaddPolicy's constructor checks (the compiled
    # paths of madd / varys / varys-online / varys-deadline build no policy)
    tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)
    # small chunks: the write buffers live next to the whole schedule at the end of the run,
    # and 2**18 pieces (8 MB) per spill cost nothing at ~1e4 pieces per event
    chunks = PieceChunks(buffer=1 << 18)
    out = _madd_call(instance, rank, sebf, backfill, tol_rel, chunks, 0,
                     np.full(instance.num_flows, np.nan), online, max_events)
    events, calls = out[2], out[3]
    if online is not None and log is not None:
        starts, ends, sptr, scof = out[4:]
        log["T_starts"] = starts.tolist()
        log["delta_intervals"] = [[float(ends[2 * i]), float(ends[2 * i + 1]),
                                   scof[sptr[i]:sptr[i + 1]].tolist()]
                                  for i in range(sptr.size - 1)]
    out_f, out_s, out_e, out_v = chunks_to_arrays(chunks)
    return settle_sizes(instance, Schedule(
        out_f, out_s, out_e, out_v,
        meta={**(meta or {}), "events": int(events), "policy_calls": int(calls)}), copy=False)


#: Default pieces per window of :func:`run_madd_windows`: an eighth of the flow-level kernels'
#: (:data:`coflowopt.policies.flow_level.WINDOW_PIECES`), because beside MADD's event loop
#: (about 200 MB of per-flow and per-group arrays on the Facebook trace) a window of 2**20
#: pieces, its copy and the verifier's temporaries took the whole SEBF + MADD process to
#: 0.55 GB, 2**18 to 0.49-0.50 GB and 2**17 (71 windows on that trace) to 0.47 GB, at no
#: measurable cost in time.
WINDOW_PIECES = 1 << 17


def run_madd_windows(instance: Instance, rank, on_window, *, sebf: bool,
                     backfill: str | None, tol_rel: float = 1e-12, meta: dict | None = None,
                     window: int = WINDOW_PIECES, online=None,
                     max_events: int | None = None) -> dict:
    """:func:`run_madd_kernel` without holding the schedule: the kernel hands over consecutive
    time windows of it (its sink mode), each settled and passed to ``on_window``.

    Why: SEBF + MADD on the Facebook trace is 9.9e6 pieces (3.6e7 with ``coflowsim``
    backfilling), 0.3-1.2 GB held; a run that only needs the verdict and the numbers
    (``run_schedule(..., keep_schedule=False)``, the CLI without ``--out``) needs one window.

    *Settling.*  :func:`run_madd_kernel` ends with :func:`~coflowopt.simulate.settle_sizes`,
    which needs all of a flow's pieces.  Here a flow that finishes in a window and has no piece
    in an earlier one gets exactly that rule, on the same sum (its pieces are the held run's,
    in the same order, so the same bits).  A flow with pieces in earlier windows cannot be
    rescaled any more: if it is off its size by more than :data:`~coflowopt.simulate.
    SETTLE_RTOL` it is counted in ``unsettled`` and left as it is (its relative error is a
    rounding, ~1e-12; the verifier judges it with its tolerances, and the caller reruns the
    held form when the verdict is a rejection, :func:`coflowopt.api.run_schedule`).

    Parameters
    ----------
    instance : Instance
    rank : ndarray of int, shape (K,)
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order: ``schedule`` holds
        the pieces in ``[start, end]`` (a piece open at a window boundary is cut there, with
        the same rate on both sides).  The schedule is the callee's to keep.
    sebf, backfill, tol_rel, meta, online, max_events
        As for :func:`run_madd_kernel` (``meta`` goes to every window's schedule; the logs of
        ``online`` are not kept).
    window : int
        Pieces per window (at least; a window ends at the first event after ``window``).

    Returns
    -------
    dict
        ``events``, ``policy_calls``, ``pieces`` (cut pieces included), ``windows``,
        ``callback_s`` (time in ``on_window``), ``settled`` (flows rescaled), ``unsettled``
        (flows that needed it but had pieces in an earlier window), ``coflow_completion`` (the
        kernel's own, unverified).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 2)]),
    ...                               Coflow("B", [(0, 1, 1)])])
    >>> v = WindowedVerifier(inst)
    >>> st = run_madd_windows(inst, np.arange(2), lambda s, a, b: v.add(a, b, s), sebf=False,
    ...                       backfill="varys", window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"] > 1
    ([2.0, 3.0], True)
    """
    from ..simulate import WindowSettler
    from ._pieces import WindowSink

    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)
    F = instance.num_flows
    fc = np.full(F, np.nan)
    # between two window checks an event closes at most two pieces per flow, a cut one more
    chunks = PieceChunks(buffer=window + 3 * F + 16)
    settle = WindowSettler(instance, fc)
    sink = WindowSink(instance, on_window, meta or {}, prepare=settle)
    cc, _, events, calls = sink.run(
        lambda: _madd_call(instance, rank, sebf, backfill, tol_rel, chunks, window, fc,
                           online, max_events)[:4],
        "run_madd_windows")
    return {"events": int(events), "policy_calls": int(calls), "pieces": chunks.total,
            "windows": sink.windows, "callback_s": sink.callback_s, "settled": settle.settled,
            "unsettled": settle.unsettled, "coflow_completion": cc}


def held_as_window(instance: Instance, on_window, schedule: Schedule) -> dict:
    """Hand a held ``schedule`` to ``on_window`` as one window (from the earliest release to
    its last piece's end), for a windowed form whose fast path does not apply; returns the
    statistics of :func:`run_madd_windows` that apply (no settling: the schedule is whole).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    >>> s = Schedule(np.array([0]), np.array([0.0]), np.array([2.0]), np.array([1.0]))
    >>> got = []
    >>> held_as_window(inst, lambda s, a, b: got.append((a, b)), s)["windows"], got
    (1, [(0.0, 2.0)])
    """
    import time

    start = float(np.min(instance.release)) if instance.num_coflows else 0.0
    end = max(start, float(np.max(schedule.end))) if schedule.num_pieces else start
    t0 = time.perf_counter()
    on_window(schedule, start, end)
    return {"events": int(schedule.meta.get("events", 0)),
            "policy_calls": int(schedule.meta.get("policy_calls", 0)),
            "pieces": int(schedule.num_pieces), "windows": 1,
            "callback_s": time.perf_counter() - t0}


def _run_python(instance: Instance, policy: MaddPolicy, meta: dict) -> Schedule:
    res = simulate(instance, policy)
    s = res.schedule
    return Schedule(s.flow, s.start, s.end, s.rate,
                    meta={**meta, "events": res.events, "policy_calls": res.policy_calls})


ENGINES = ("auto", "kernel", "python")


def check_engine(engine: str) -> str:
    """``auto`` -> ``kernel``; anything but the :data:`ENGINES` raises."""
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}, got {engine!r}")
    return "kernel" if engine == "auto" else engine


@register("rates", "madd", summary="Varys' iterative MADD: in order, each coflow's flows get "
          "remaining/Gamma with Gamma on the residual capacity (Eq. 4.1), then backfilling; "
          "recomputed at coflow releases and completions",
          reference="Chowdhury dissertation (2015) Eq. (4.1), Pseudocode 1; Varys (SIGCOMM "
          "2014); sincronia-coflow/simulator offlinesim/scheduler.cpp assign_MADD_rates_to_flows",
          guarantee="a single coflow alone finishes in exactly rho (its Gamma on the empty "
          "fabric)",
          tags=("preemptive", "release_dates", "heterogeneous_capacities"))
def madd(instance: Instance, order, *, backfill="varys", engine: str = "auto",
         tol_rel: float = 1e-12) -> Schedule:
    """Iterative MADD with backfilling for a given coflow order (Varys Pseudocode 1).

    Parameters
    ----------
    instance : Instance
    order : array_like of int
        Coflow indices, highest priority first.
    backfill : {"varys", "coflowsim", None, True, False}, default "varys"
        Work-conservation rule (module docstring); ``True`` means ``"varys"``, ``False`` or
        ``None`` no backfilling.
    engine : {"auto", "kernel", "python"}
        ``kernel``: the compiled event loop (:func:`run_madd_kernel`); ``python``:
        :class:`MaddPolicy` in the generic simulator (the reference; same schedule).  ``auto``
        uses the kernel.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        Float pieces; ``meta`` records the algorithm, order, backfill rule, events and policy
        calls.

    Raises
    ------
    InvalidParameterError
        If ``order`` is not a permutation of the coflows, or ``backfill`` or ``engine`` is
        unknown.

    Examples
    --------
    The 3x2 shuffle of the dissertation's Fig. 3.2 finishes at its Gamma = 4:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("S", [(0, 0, 1), (0, 1, 1), (1, 0, 1),
    ...                                            (1, 1, 1), (2, 0, 2), (2, 1, 2)])])
    >>> verify_schedule(inst, madd(inst, [0])).coflow_completion.tolist()
    [4.0]

    Notes
    -----
    *Guarantee.*  A coflow alone (or the first coflow of the order while it is alone in the
    fabric) finishes at exactly its ``rho = max_p d^p / c_p``: every flow runs at
    ``d_ij / rho``, which fits every port.  No approximation ratio holds for the weighted
    completion time in general.

    *Assumptions.*  Fluid, preemptive rates; any capacities; releases are honoured (a coflow
    joins the allocation at its release).  On resources (a topology) ``rho`` and Gamma are
    taken over the resources of the coflow's paths (module docstring).

    *Running time.*  O((#releases + #coflow completions) x flows of the active coflows), plus
    a weighted progressive filling per backfilled coflow over its pair groups with leftover at
    both ports; the event loop and the allocation are compiled (:mod:`._madd_kernel`).  The
    schedule has one piece per (event, flow with a changed positive rate).  On the Facebook
    trace in SEBF order: 1,051 events and 1.3e7 pieces with the ``varys`` rule; the
    ``coflowsim`` rule shares leftovers among all flows of skipped coflows and gives 3.6e7
    pieces (1.7e8, about 17 GB, with every release at 0).  On resources every step costs the
    path length instead of 2: the trace on a k=16 fat-tree (6,144 links, paths of up to 6)
    takes about 4 s in SEBF order (9.8e6 pieces), against about 1.5 s on the big switch.
    :func:`madd_windows` hands the same schedule over in time windows instead of holding it
    (``run_schedule(..., keep_schedule=False)``, the CLI without ``--out``): the whole
    ``coflowopt schedule FB --order sebf --rates madd`` process then peaks under 0.5 GB.

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Eq. (4.1), Sec. 4.5.3, Sec. 5.5.3,
    Pseudocode 1; Sincronia simulator ``offlinesim/scheduler.cpp``
    (``assign_MADD_rates_to_flows``).
    """
    order, rank, rule, engine, meta = _madd_args(instance, order, backfill, engine)
    if engine == "python":
        return _run_python(instance, MaddPolicy(order, backfill=rule, tol_rel=tol_rel), meta)
    return run_madd_kernel(instance, rank, sebf=False, backfill=rule, tol_rel=tol_rel,
                           meta=meta)


def _madd_args(instance: Instance, order, backfill, engine: str):
    """:func:`madd`'s checked arguments: ``order, rank, rule, engine, meta``."""
    order = validate_order(instance, order)
    rule = backfill_rule(backfill)
    engine = check_engine(engine)
    meta = {"algorithm": "madd", "order": order.tolist(), "backfill": rule, "engine": engine}
    rank = np.empty(instance.num_coflows, dtype=np.int64)
    rank[order] = np.arange(instance.num_coflows)
    return order, rank, rule, engine, meta


def _refuse_python(engine: str) -> None:
    """The windowed forms run the kernel: the Python engine holds its schedule."""
    if engine == "python":
        raise InvalidParameterError("engine='python' holds its schedule: the windowed form "
                                    "runs the kernel (engine 'auto' or 'kernel')")


def madd_windows(instance: Instance, order, on_window, *, backfill="varys",
                 engine: str = "auto", tol_rel: float = 1e-12,
                 window: int = WINDOW_PIECES) -> dict:
    """:func:`madd` handed over window by window (:func:`run_madd_windows`), never held.

    Parameters
    ----------
    instance, order, backfill, tol_rel
        As for :func:`madd` (the same checks).
    on_window : callable
        ``on_window(schedule, start, end)``, see :func:`run_madd_windows`.
    engine : {"auto", "kernel"}
        The windows come from the compiled event loop; ``"python"`` is refused (the Python
        engine holds its schedule: call :func:`madd`).
    window : int
        Pieces per window (at least).

    Returns
    -------
    dict
        The statistics of :func:`run_madd_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    >>> ends = []
    >>> st = madd_windows(inst, [0, 1], lambda s, a, b: ends.append(b), window=1)
    >>> ends, st["pieces"]
    ([1.0, 3.0], 2)
    """
    order, rank, rule, engine, meta = _madd_args(instance, order, backfill, engine)
    _refuse_python(engine)
    return run_madd_windows(instance, rank, on_window, sebf=False, backfill=rule,
                            tol_rel=tol_rel, meta=meta, window=window)
