"""Fair sharing over time: HUG, DRF, PS-P and per-flow max-min as rate policies of the fluid
simulator, with completion times and slowdowns.

At every coflow arrival and completion (``reschedule_on = {"release", "coflow_completion"}``,
as HUG recomputes "upon coflow arrival or departure", Sec. 7.7.2) the policy

1. computes the correlation vectors of the active coflows from their **remaining** bytes with
   MADD (Sec. 7.6.1: ``d_k^p = (L_k^p / C_p) / max_q (L_k^q / C_q)``, ``L`` the bytes left),
2. computes the link allocation ``c_k^p`` of the method (:func:`~.allocations.allocate`),
3. turns it into flow rates, *MADD-style within the coflow*: a flow ``f`` of coflow ``k`` from
   port ``i`` to port ``j`` with ``rem_f`` bytes left gets

       r_f = min( c_k^i C_i rem_f / L_k^i ,  c_k^j C_j rem_f / L_k^j ),

   i.e. on each of its two ports the coflow's share is split in proportion to bytes left, and the
   flow takes the smaller of its two portions (a rate must fit on both ports).  On an instance
   over resources (a topology) the same rule runs over every resource of the flow's path:
   ``r_f = min_{p on the path of f} c_k^p C_p rem_f / L_k^p``, with ``L_k^p`` the coflow's bytes
   left through resource ``p``; the correlation vectors and the allocations of step 2 are per
   resource (HUG is defined per link, Sec. 7.3.1, so nothing else changes).

Properties of the conversion (checked by the tests):

* **feasible**: on port (resource) ``p`` coflow ``k``'s flows sum to at most ``c_k^p C_p``
  (each takes at most ``c_k^p C_p rem_f / L_k^p`` there, and ``L_k^p`` is the sum of their
  ``rem_f``), so a feasible link allocation (``sum_k c_k^p <= 1``) gives feasible rates;
* **exact for the guarantees**: with ``c_k = P d_k`` (DRF) both terms equal
  ``P rem_f / Gamma_k`` -- MADD at progress ``P`` -- so every flow of the coflow finishes at
  ``Gamma_k / P`` and the coflow's remaining isolated time ``Gamma_k`` shrinks at rate ``P``;
* **never below the progress**: ``c_k^p >= P_k d_k^p`` on every port gives
  ``r_f >= P_k rem_f / Gamma_k``, so the coflow completes within ``Gamma_k / P_k`` if nothing
  changes.  For DRF and HUG ``P_k >= P* >= 1/n`` with ``n`` active unweighted coflows (every
  ``d_k^p <= 1``), hence with all releases at 0 every coflow's slowdown is at most ``K``.
* extra (Stage 2) bandwidth on one port is used only where the flow's other port has extra too
  (on resources: every other resource of its path); the rest idles: the link-level model of
  Ch. 7 treats links independently, the big switch (and a path) does not.

The three properties hold over resources with the same proofs (MADD's ``Gamma_k`` and the
progress are taken over the resources of the coflow's paths; ``d_k^p <= 1`` still gives
``P* >= 1/n``).

``per-flow`` is computed on the flows directly (progressive filling over the ports, or over the
resources of the flows' paths with :func:`coflowopt.policies.flow_level.max_min_rates`) and
recomputed at every flow completion as well (per-flow fairness reacts to flows, not coflows).

The slowdown of coflow ``k`` is ``(C_k - r_k) / rho_k`` with ``rho_k`` its isolated minimum CCT
(Sec. 7.7.4: "CCT due to a scheme normalized by the minimum CCT if it were running alone"),
computed by :func:`coflowopt.slowdown.coflow_slowdown`, shared with seed 002's normalised FCT.

References
----------
Chowdhury's dissertation, Sec. 7.6.1 (MADD correlation vectors, local enforcement), 7.7.2
(dynamic recomputation at arrivals and departures), 7.7.4 (slowdown, Table 7.3).
"""

from __future__ import annotations

import contextlib
import math
import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register
from ..schedule import Schedule
from ..rates._jit import read_only
from ..simulate import WINDOW_PIECES, SimState, SimulationResult, simulate
from ..slowdown import coflow_slowdown
from ..verify import VerificationReport, verify_schedule
from .allocations import allocate
from .correlation import CorrelationVectors, _loads
from ._pairs_kernel import pair_rates
from .drf import FLOAT_RTOL, flow_max_min
from .._index_ranges import concat_ranges

__all__ = ["FairnessPolicy", "FairnessRun", "simulate_fairness", "link_allocation_rates",
           "POLICY_METHODS", "hug_policy", "hug_cooperative_policy", "drf_policy", "ps_p_policy",
           "per_flow_policy", "fairness_windows"]

#: Methods available as time policies.
POLICY_METHODS = ("hug", "hug-cooperative", "drf", "ps-p", "per-flow")


def link_allocation_rates(instance: Instance, coflows: np.ndarray, flows: np.ndarray,
                          remaining: np.ndarray, allocation: np.ndarray,
                          loads: np.ndarray) -> np.ndarray:
    """Flow rates realising a link allocation MADD-style within each coflow (module docstring).

    Parameters
    ----------
    instance : Instance
    coflows : ndarray (K',)
        The coflows that ``allocation`` and ``loads`` rows describe.
    flows : ndarray (F',)
        Unfinished flows of those coflows.
    remaining : ndarray (F,)
        Bytes left of every flow.
    allocation : ndarray (K', P)
        ``c_k^p``: fraction of port ``p`` given to coflow ``k``.
    loads : ndarray (K', P)
        Bytes left of each coflow on each port.

    Returns
    -------
    ndarray (F',)
        ``r_f = min_{p in {i, j}} c_k^p C_p rem_f / L_k^p`` (``p`` over the resources of the
        flow's path on a topology).
    """
    pos = np.full(instance.num_coflows, -1, dtype=np.int64)
    pos[coflows] = np.arange(coflows.size)
    row = pos[instance.flow_coflow[flows]]
    if np.any(row < 0):
        raise InvalidParameterError("flows must belong to the given coflows")
    cap = instance.capacity
    rem = remaining[flows]
    out = np.full(flows.size, np.inf)
    if instance.is_big_switch:
        for port in (instance.flow_src[flows], instance.flow_egress_port[flows]):
            share = allocation[row, port] * cap[port]
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(loads[row, port] > 0, share * rem / loads[row, port], 0.0)
            out = np.minimum(out, r)
    else:
        # one term per (flow, resource of its path), the smallest one per flow
        ptr = instance.flow_resource_ptr
        length = ptr[flows + 1] - ptr[flows]
        x = np.repeat(np.arange(flows.size), length)
        port = instance.flow_resource[concat_ranges(ptr[flows], length)]
        rx = row[x]
        share = allocation[rx, port] * cap[port]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(loads[rx, port] > 0, share * rem[x] / loads[rx, port], 0.0)
        np.minimum.at(out, x, r)
    return np.where(np.isfinite(out) & (out > 0), out, 0.0)


#: Methods whose allocation :class:`_CoflowPairs` computes on the (coflow, resource) pairs.
_PAIR_METHODS = ("ps-p", "hug-cooperative")


class _CoflowPairs:
    """PS-P and cooperative HUG (float, elastic) on the (coflow, resource) pairs with bytes
    left, instead of dense ``K x L`` arrays: the operations of :func:`~.allocations.allocate`
    and :func:`link_allocation_rates` in the same order, so the same bits.

    A coflow's pairs are the distinct resources its flows cross, numbered coflow by coflow
    (resources ascending within a coflow), so the pairs of the active coflows, gathered in
    coflow order, are the nonzero entries of the dense arrays in row order.  Why the same
    bits: every dense column sum (``sum(axis=0)`` of a C-ordered array adds row after row)
    and the per-port ``bincount`` of bytes left add the same nonzero terms in the same order
    as the per-pair ``bincount`` here, and the zeros the dense form adds leave a sum
    unchanged; maxima and minima do not depend on the order.  ``tests/test_fairness_simulation``
    holds the schedules equal bit for bit (``pairs=False`` is the dense reference).

    Per call the work is ``O(active pairs + active flows' path entries + resources)``; the
    dense form was ``O(active coflows x resources)``, 50,000 x 300 at the start of the
    50,000-coflow benchmark.
    """

    def __init__(self, instance: Instance):
        F = instance.num_flows
        R = instance.num_ports
        if instance.is_big_switch:
            # the entries in the dense `_loads` order: every flow's ingress, then its egress
            self.entry_flow = np.concatenate([np.arange(F), np.arange(F)])
            entry_res = np.concatenate([instance.flow_src, instance.flow_egress_port])
        else:
            self.entry_flow = np.repeat(np.arange(F), instance.path_length)
            entry_res = instance.flow_resource
        key = instance.flow_coflow[self.entry_flow].astype(np.int64) * R + entry_res
        keys, self.entry_pair = np.unique(key, return_inverse=True)
        self.entry_pair = self.entry_pair.astype(np.int64).ravel()
        self.pair_coflow = keys // R
        self.pair_res = keys % R
        self.pair_ptr = np.searchsorted(self.pair_coflow, np.arange(instance.num_coflows + 1))
        self.local = np.zeros(keys.size, dtype=np.int64)   # scratch: pair -> position
        self.big = instance.is_big_switch
        self.num_flows = F
        self.num_res = R
        self.flow_resource_ptr = None if self.big else instance.flow_resource_ptr
        self.cap = instance.capacity
        self.weight = instance.weight
        self.kernel_args = None

    def rates(self, act: np.ndarray, flows: np.ndarray, remaining: np.ndarray, method: str,
              weighted: bool):
        """``(rates of flows, P*, isolation guarantee)`` by the compiled twin
        (:func:`._pairs_kernel.pair_rates`) of :meth:`rates_numpy`: the same bits."""
        if self.kernel_args is None:
            F = self.num_flows
            if self.big:
                entry_ptr = 2 * np.arange(F + 1, dtype=np.int64)
                entry_pair = np.stack([self.entry_pair[:F], self.entry_pair[F:]], axis=1).ravel()
            else:
                entry_ptr, entry_pair = self.flow_resource_ptr, self.entry_pair
            # contiguous int64 read-only views, whichever branch made them (the instance's own
            # arrays are frozen): one signature for numba, which compiled the kernel twice, for a
            # big switch and for paths
            self.kernel_args = (read_only(self.pair_ptr, "int64"),
                                read_only(self.pair_res, "int64"), read_only(entry_ptr, "int64"),
                                read_only(entry_pair, "int64"), np.array(self.cap, dtype=float),
                                np.array(self.weight, dtype=float))
        pair_ptr, pair_res, entry_ptr, entry_pair, cap, weight = self.kernel_args
        w = weight[act]
        out = np.empty(flows.size)
        pstar, guarantee = pair_rates(
            np.ascontiguousarray(act, dtype=np.int64), np.ascontiguousarray(flows, dtype=np.int64),
            remaining, pair_ptr, pair_res, entry_ptr, entry_pair, cap, weight,
            bool(weighted and np.any(w > 0)), method == "hug-cooperative", FLOAT_RTOL,
            self.local, out)
        if pstar == -1.0:
            return self.rates_numpy(act, flows, remaining, method, weighted)
        if np.isnan(pstar):
            raise InvalidParameterError("every link sum is 0 (all weights 0?): P* is undefined")
        return out, np.float64(pstar), float(guarantee)

    def rates_numpy(self, act: np.ndarray, flows: np.ndarray, remaining: np.ndarray,
                    method: str, weighted: bool):
        """``(rates of flows, P*, isolation guarantee)`` as the dense path computes them (the
        reference of the compiled :meth:`rates`)."""
        R = self.num_res
        start = self.pair_ptr[act]
        count = self.pair_ptr[act + 1] - start
        apairs = concat_ranges(start, count)
        n = apairs.size
        krow = np.repeat(np.arange(act.size), count)
        self.local[apairs] = np.arange(n)
        if self.big:
            entries = np.concatenate([flows, flows + self.num_flows])
        else:
            ptr = self.flow_resource_ptr
            entries = concat_ranges(ptr[flows], ptr[flows + 1] - ptr[flows])
        epos = self.local[self.entry_pair[entries]]
        loads = np.bincount(epos, weights=remaining[self.entry_flow[entries]], minlength=n)
        res = self.pair_res[apairs]
        norm = loads / self.cap[res]
        top = np.maximum.reduceat(norm, np.cumsum(count) - count)
        d = norm / top[krow]
        eligible = d > 0
        on_link = np.bincount(res[eligible], minlength=R)
        w = self.weight[act].astype(float)
        scaled = d * w[krow] if weighted and bool(np.any(w > 0)) else d
        link_sum = np.bincount(res, weights=scaled, minlength=R)
        if method == "ps-p":
            # allocations._per_link_share (float, elastic); P* is only reported
            pstar = 1 / link_sum.max()
            alloc = np.where(eligible, (1.0 / np.maximum(on_link, 1))[res], 0.0)
        else:
            # hug-cooperative: Stage 1 (hug.guaranteed_allocation), then the spare divided
            # equally among the eligible coflows of a link (allocations._divide_spare, float)
            top_sum = link_sum.max()
            if not top_sum > 0:
                raise InvalidParameterError("every link sum is 0 (all weights 0?): P* is "
                                            "undefined")
            pstar = 1 / top_sum
            guaranteed = pstar * scaled
            spare = 1 - np.bincount(res, weights=guaranteed, minlength=R)
            links = (spare > FLOAT_RTOL) & (on_link > 0)
            share = spare / np.maximum(on_link, 1)
            alloc = np.where(eligible & links[res], guaranteed + share[res], guaranteed)
        # allocations.progress over the eligible pairs (the trace's isolation guarantee)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(eligible, alloc / np.where(eligible, d, 1.0), np.inf)
        guarantee = float(ratio.min()) if n else math.inf
        # link_allocation_rates: min over the flow's resources of c_k^p C_p rem_f / L_k^p
        share_e = alloc[epos] * self.cap[res[epos]]
        load_e = loads[epos]
        rem_e = remaining[self.entry_flow[entries]]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(load_e > 0, share_e * rem_e / load_e, 0.0)
        if self.big:
            m = flows.size
            out = np.minimum(np.minimum(np.full(m, np.inf), r[:m]), r[m:])
        else:
            out = np.full(flows.size, np.inf)
            np.minimum.at(out, np.repeat(np.arange(flows.size), self.flow_resource_ptr[flows + 1]
                                         - self.flow_resource_ptr[flows]), r)
        return np.where(np.isfinite(out) & (out > 0), out, 0.0), pstar, guarantee


def _piece_sink(instance: Instance, fc: np.ndarray, size: int, on_window, meta: dict):
    """A compiled event loop's piece buffers (flow, start, end, rate; ``size`` pieces) and, in
    sink mode, its :class:`~coflowopt.rates._pieces.WindowSink` settled by a
    :class:`~coflowopt.simulate.WindowSettler` on the loop's flow completions ``fc``:
    ``(buffers, sink or None, settler or None)``.

    When ``on_window`` borrows (keeps nothing of a window: the streamed verifier) the settler
    rescales the buffers themselves, which the loops only write and refill from 0 after each
    window, and the window is handed on without the sink's four copies (1.2e9 pieces, 39 GB
    copied, for ``hug-cooperative`` at 50,000 coflows); the same operations on the same
    values, so the same pieces.  Where a second core is idle (:data:`OVERLAP`) the sink is then
    a :class:`_WindowThread`: each window is settled and handed on on a second thread while the
    loop (which releases the interpreter's lock) computes the next one."""
    from ..simulate import WindowSettler
    if on_window is not None and getattr(on_window, "borrows", False) and _overlap():
        sink = _WindowThread(instance, fc, size, on_window, meta)
        return sink.buf, sink, sink.settler
    buf = _buffers(size)
    if on_window is None:
        return buf, None, None
    from ..rates._pieces import WindowSink
    settler = WindowSettler(instance, fc)
    if not getattr(on_window, "borrows", False):
        return buf, WindowSink(instance, on_window, meta, prepare=settler), settler
    return buf, WindowSink(instance, _settled(settler, on_window), meta), settler


def _buffers(size: int) -> tuple:
    return (np.zeros(size, dtype=np.int64), np.zeros(size), np.zeros(size), np.zeros(size))


def _settled(settler, on_window):
    """``on_window`` (which borrows) handed each window after ``settler`` rescaled it in
    place."""
    def settled(schedule, start, end):
        settler(schedule.flow, schedule.start, schedule.end, schedule.rate)
        on_window(schedule, start, end)

    settled.borrows = True
    return settled


#: Whether a borrowing window callback runs on a second thread (:class:`_WindowThread`): None
#: (default) where, when the loop starts, the process may use two cores or more and the load
#: average says one is idle (:func:`coflowopt.verify._second_core_idle`, the verifier's own
#: test); False never; True always (tests).  Why not always: on a busy host the second thread
#: gains no wall time (the scheduler gives the process's session its share whatever its number
#: of threads: Linux's autogroups) and each hand-over waits for a core: ``hug-cooperative`` at
#: 50,000 coflows, whole processes alternating, at load 7-10 81-92 s CPU and 189-226 s wall on
#: one thread against 84-91 s and 193-217 s on two; at load 3-6 78-86 s and 91-125 s against
#: 85-93 s and 151-188 s; with one other busy process (a core mostly free) 81-96 s wall on one
#: thread, 66-84 s on two (``experiments/results/hug_50k_overlap.md``).
OVERLAP: bool | None = None


def _overlap() -> bool:
    if OVERLAP is not None:
        return bool(OVERLAP)
    from ..verify import _second_core_idle
    return _second_core_idle()


class _WindowThread:
    """The sink of a compiled event loop whose window callback borrows, run on a second
    thread: window ``n`` is settled (:class:`~coflowopt.simulate.WindowSettler`) and handed to
    the callback there while the loop computes window ``n + 1`` into a second set of buffers.

    Why: ``hug-cooperative`` at 50,000 coflows spends ~50 s in its loop and ~12 s settling and
    verifying its 3,937 windows one after the other (``experiments/results/hug_50k_fused.md``);
    the loops (:func:`._pairs_kernel.hug_run`, :func:`._pairs_kernel.psp_run`) release the
    interpreter's lock, so on two cores the windows are checked while the loop runs.

    The same windows in the same order with the same pieces: the callback is called once per
    window, in order, one call at a time (one worker thread); a window's pieces are the loop's
    buffers of that window (two sets, alternating: the loop writes set ``n mod 2`` only after
    the window that used it last has been handed on) or fresh arrays; and the settler reads the
    flow completion times as they were when the loop stopped at the window's end (a copy taken
    then), not as the loop, already further, has them.  Handing over window ``n`` waits for
    window ``n - 1``, so at most one window is in flight while the loop runs.  An exception of
    the callback is raised at the next hand-over (or at :meth:`finish`) and no later window is
    handed to it.

    ``callback_s`` is the loop's thread's time in the sink (taking the copy, waiting for the
    worker), so that the caller's ``elapsed - callback_s`` is the loop's own time;
    ``thread_s`` the worker's time in the settler and the callback."""

    def __init__(self, instance: Instance, fc: np.ndarray, size: int, on_window, meta: dict):
        from concurrent.futures import ThreadPoolExecutor
        from ..rates._pieces import WindowSink
        from ..simulate import WindowSettler
        self.fc = fc
        self.bufs = (_buffers(size), _buffers(size))
        self.buf = self.bufs[0]
        self.snaps = (np.empty(fc.shape[0]), np.empty(fc.shape[0]))
        self.seen_fc = np.full(fc.shape[0], np.nan)    # the settler's view of fc
        self.settler = WindowSettler(instance, self.seen_fc)
        self.sink = WindowSink(instance, _settled(self.settler, on_window), meta)
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="coflowopt-windows")
        self.pending = None
        self.failed = False
        self.handed = 0
        self.callback_s = 0.0

    @property
    def windows(self) -> int:
        return self.sink.windows

    @property
    def thread_s(self) -> float:
        return self.sink.callback_s

    def __call__(self, f, s, e, v, end) -> None:
        """Hand on a window of fresh arrays (the loop keeps writing the same buffers)."""
        self._submit((f, s, e, v), end)

    def drain(self, m: int, end: float) -> tuple:
        """Hand on the first ``m`` pieces of the current buffers; returns the buffers the loop
        writes next."""
        self._submit(tuple(b[:m] for b in self.buf), end)
        self.buf = self.bufs[1] if self.buf is self.bufs[0] else self.bufs[0]
        return self.buf

    def _submit(self, pieces: tuple, end: float) -> None:
        t0 = _time.perf_counter()
        snap = self.snaps[self.handed % 2]     # the window before the last used it: done
        np.copyto(snap, self.fc)
        nxt = self.pool.submit(self._window, pieces, snap, float(end))
        self.handed += 1
        try:
            self._wait()
        finally:
            self.pending = nxt
            self.callback_s += _time.perf_counter() - t0

    def _window(self, pieces: tuple, snap: np.ndarray, end: float) -> None:
        if self.failed:
            return
        try:
            np.copyto(self.seen_fc, snap)
            self.sink(*pieces, end)
        except BaseException:
            self.failed = True
            raise

    def _wait(self) -> None:
        got, self.pending = self.pending, None
        if got is not None:
            got.result()

    def finish(self) -> None:
        """Wait for the last window (raising the callback's exception, if any) and stop the
        worker."""
        t0 = _time.perf_counter()
        try:
            self._wait()
        finally:
            self.close()
            self.callback_s += _time.perf_counter() - t0

    def close(self) -> None:
        """Stop the worker (after the window in flight, whose outcome is dropped; no window
        after it is handed on)."""
        self.failed = True
        self.pending = None
        self.pool.shutdown(wait=True)


def _drain(buf: tuple, m: int, sink, held: list, t: float) -> tuple:
    """Hand a compiled loop's first ``m`` buffered pieces to its sink (the window ending at
    ``t``) or copy them into ``held``: ``(pieces handed on, the buffers to write next)``."""
    if not m:
        return 0, buf
    if isinstance(sink, _WindowThread):
        return m, sink.drain(m, t)
    if sink is not None:
        sink(*(b[:m] for b in buf), t)
        return m, buf
    held.append(tuple(b[:m].copy() for b in buf))
    return 0, buf


@contextlib.contextmanager
def _handing_on(sink):
    """A compiled loop's run with its sink: at the end, the windows a :class:`_WindowThread`
    still has in flight waited for (their callback's exception raised), and its worker stopped
    however the loop ends."""
    if not isinstance(sink, _WindowThread):
        yield
        return
    try:
        yield
        sink.finish()
    finally:
        sink.close()


def _loop_result(instance: Instance, meta: dict, held: list, sink, settler, pieces: int,
                 cc: np.ndarray, fc: np.ndarray, events: int, calls: int, seconds: float,
                 work: dict) -> SimulationResult:
    """The :class:`SimulationResult` of a compiled event loop: in sink mode its statistics,
    else the held pieces (``held``, the buffers' contents in order) settled."""
    from ..simulate import settle_sizes
    if sink is not None:
        if isinstance(sink, _WindowThread):
            work = {**work, "window_thread_s": sink.thread_s}
        return SimulationResult(None, cc, fc, events, calls, seconds,
                                {"pieces": pieces, "windows": sink.windows,
                                 "callback_s": sink.callback_s, "settled": settler.settled,
                                 "unsettled": settler.unsettled, **work})
    sched = settle_sizes(instance, Schedule(*(np.concatenate(c) for c in zip(*held)),
                                            meta=meta), copy=False)
    return SimulationResult(sched, cc, fc, events, calls, seconds, work)


def psp_incremental(instance: Instance, *, on_window=None, window: int = WINDOW_PIECES,
                    meta: dict | None = None) -> SimulationResult:
    """PS-P over time, event by event, recomputing only the coflows whose rates can change.

    The schedule of :func:`simulate` with ``FairnessPolicy("ps-p")`` in exact arithmetic
    (``proofs/psp_incremental.md``): at a release or coflow completion PS-P's share
    ``1 / n_p`` changes only on the resources whose count ``n_p`` of coflows with bytes left
    changed since the last event, and a coflow none of whose resources changed keeps every
    flow's rate unless it is *non-uniform* (a pair holding two unfinished flows that pair
    does not both limit), so only the coflows on changed resources and the non-uniform ones
    are recomputed (:func:`._pairs_kernel.psp_run`).  Per event the work is
    ``O(pairs on the changed resources + flows of non-uniform coflows + log F per rate
    change)``, not ``O(active flows)`` (plus one ``O(F)`` pass per window in sink mode, to
    cut the pieces still open).  In floating point the rates are not the reference's
    bits (they are computed as ``(C_p / n_p) rem_f / L_k^p`` with ``rem_f / L_k^p`` kept from
    the coflow's last recomputation, and bytes left are not re-rated at every event); the
    tests hold the two to a relative ``1e-9`` on every completion time
    (``tests/test_fairness_simulation.py``).

    Parameters
    ----------
    instance : Instance
    on_window : callable, optional
        Sink mode, as :func:`coflowopt.simulate.simulate`'s: ``on_window(schedule, start,
        end)`` for every window of at least ``window`` pieces, the pieces still open cut at
        its end, settled by :class:`~coflowopt.simulate.WindowSettler`.
    window : int
    meta : dict, optional
        The schedule's meta.

    Returns
    -------
    SimulationResult
        ``policy_calls`` counts the events (the allocation is brought up to date at each).
    """
    from ._pairs_kernel import psp_run
    from ..simulate import COMPLETION_RTOL, SimulationError
    t_start = _time.perf_counter()
    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    K, F = instance.num_coflows, instance.num_flows
    meta = dict(meta or {"algorithm": "ps-p", "policy": "fairness:ps-p"})
    if F == 0 or K == 0:
        if on_window is not None:
            return SimulationResult(None, np.zeros(K), np.zeros(F), 0, 0,
                                    _time.perf_counter() - t_start,
                                    {"pieces": 0, "windows": 0, "callback_s": 0.0, "settled": 0,
                                     "unsettled": 0})
        return SimulationResult(Schedule.empty(), np.zeros(K), np.zeros(F), 0, 0,
                                _time.perf_counter() - t_start)
    cp = _CoflowPairs(instance)
    # int32 for the per-entry and per-flow indices (the Facebook trace's 706,397 flows), the
    # instance's own (read-only) arrays where the kernel only reads them: the same types on a
    # big switch and on paths, so one numba signature
    i32 = lambda a: np.array(a, dtype=np.int32)  # noqa: E731
    i64 = lambda a: np.array(a, dtype=np.int64)  # noqa: E731
    if cp.big:
        entry_ptr = 2 * np.arange(F + 1, dtype=np.int64)
        entry_pair = i32(np.stack([cp.entry_pair[:F], cp.entry_pair[F:]], axis=1).ravel())
    else:
        entry_ptr = i64(cp.flow_resource_ptr)
        entry_pair = i32(cp.entry_pair)
    NP, R = cp.pair_res.size, cp.num_res
    pair_ptr, pair_res, pair_coflow = i64(cp.pair_ptr), i64(cp.pair_res), i64(cp.pair_coflow)
    cap = np.array(cp.cap, dtype=float)
    del cp
    entry_flow = np.repeat(np.arange(F, dtype=np.int32), np.diff(entry_ptr))
    pent = np.argsort(entry_pair, kind="stable").astype(np.int32)
    pent_ptr = np.searchsorted(entry_pair[pent], np.arange(NP + 1)).astype(np.int64)
    rpair = np.argsort(pair_res, kind="stable").astype(np.int64)
    rpair_ptr = np.searchsorted(pair_res[rpair], np.arange(R + 1)).astype(np.int64)
    rel_order = np.argsort(instance.release, kind="stable").astype(np.int64)
    rel_times = np.ascontiguousarray(instance.release[rel_order], dtype=float)
    geometry = (pair_ptr, pair_res, pair_coflow, entry_ptr, entry_pair, entry_flow, pent_ptr,
                pent, rpair_ptr, rpair, instance.flow_ptr, instance.flow_coflow,
                instance.flow_size, cap, rel_order, rel_times)
    st = np.zeros(9, dtype=np.int64)
    rate = np.zeros(F)
    pstart = np.zeros(F)
    done = np.zeros(F, dtype=bool)
    fc = np.full(F, np.nan)
    cstate = np.zeros(K, dtype=np.int8)
    cc = np.full(K, np.nan)
    largest = int(np.diff(instance.flow_ptr).max())
    state = (st, np.zeros(F), np.zeros(F), rate, pstart, done, fc, np.zeros(entry_pair.size),
             np.zeros(NP, dtype=np.int64), np.zeros(R, dtype=np.int64), cstate,
             np.zeros(K, dtype=np.int64), cc, np.zeros(K, dtype=bool),
             np.zeros(K, dtype=np.int64),
             # flow heap, positions, keys; coflow heap, positions, keys
             np.zeros(F, dtype=np.int32), np.full(F, -1, dtype=np.int32), np.zeros(F),
             np.zeros(K, dtype=np.int64), np.full(K, -1, dtype=np.int64), np.zeros(K),
             # non-uniform list, to-do list, changed resources, scratch
             np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64),
             np.zeros(R, dtype=np.int64), np.zeros(R, dtype=bool),
             np.zeros(NP), np.zeros(largest), np.zeros(F, dtype=np.int32))
    buf, sink, settler = _piece_sink(instance, fc, window + F, on_window, meta)
    held: list[tuple] = []
    pieces = 0
    flow_coflow = instance.flow_coflow
    t, resume = float(rel_times[0]), False
    with _handing_on(sink):
        while True:
            t, status = psp_run(t, resume, *geometry, *state, *buf, window, COMPLETION_RTOL)
            resume = True
            if status < 0:
                stuck = np.flatnonzero(cstate == 1)
                raise SimulationError(f"ps-p: no future event at time {t} while {stuck.size} "
                                      "released coflows are unfinished")
            m = int(st[4])
            if sink is not None and status == 1:
                # cut the pieces still open at t (the same rate on both sides), as simulate does
                open_ = np.flatnonzero((rate > 0) & ~done & (pstart < t)
                                       & (cstate[flow_coflow] == 1))
                parts = [b[:m] for b in buf]
                f, s, e, v = (np.concatenate([parts[0], open_]),
                              np.concatenate([parts[1], pstart[open_]]),
                              np.concatenate([parts[2], np.full(open_.size, t)]),
                              np.concatenate([parts[3], rate[open_]]))
                pstart[open_] = t
                pieces += f.size
                sink(f, s, e, v, t)
            else:
                n, buf = _drain(buf, m, sink, held, t)
                pieces += n
            st[4] = 0
            if status == 0:
                break
    events = int(st[6]) - 1        # the last event only closes the last flows
    seconds = _time.perf_counter() - t_start
    # coflows recomputed over all events, and how many of those were non-uniform
    work = {"recomputed": int(st[7]), "nonuniform": int(st[8])}
    return _loop_result(instance, meta, held, sink, settler, pieces, cc, fc, events, events,
                        seconds, work)


def hug_run_loop(instance: Instance, *, weighted: bool = False, on_window=None,
                 window: int = WINDOW_PIECES, meta: dict | None = None
                 ) -> SimulationResult | None:
    """Cooperative HUG over time in one compiled loop (:func:`._pairs_kernel.hug_run`): the
    schedule of :func:`simulate` with ``FairnessPolicy("hug-cooperative")``, the same pieces
    bit for bit and in the same order (so the same windows in sink mode), without the generic
    loop's per-event numpy and Python; the allocation is ``pair_rates``' operations on scratch
    indexed by pair, fused with the clock, the rate changes and the next event into three
    passes over the active flows per event.  Why: at 50,000 coflows the policy changes
    essentially every active flow's rate at every event (1.2e9 pieces), so every pass over the
    active flows costs ~1e9 visits (``experiments/results/psp_50k_profile.md``,
    ``experiments/results/hug_50k_fused.md``).

    An instance's coflows have flows and its flows positive sizes, so every active coflow has
    bytes left and the allocation never meets the case ``pair_rates`` hands to the numpy form
    (the kernel would stop with an error, never silently).  Returns None for an instance
    without coflows (the caller runs the generic simulator).  Parameters and result as
    :func:`psp_incremental`.
    """
    from ._pairs_kernel import hug_run
    from ..simulate import COMPLETION_RTOL, SimulationError
    t_start = _time.perf_counter()
    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    K, F = instance.num_coflows, instance.num_flows
    ptr = instance.flow_ptr
    if F == 0 or K == 0:
        return None
    policy = FairnessPolicy("hug-cooperative", weighted=weighted)
    meta = dict(meta or _meta("hug-cooperative", policy, weighted))
    cp = _CoflowPairs(instance)
    NP, R = cp.pair_res.size, cp.num_res
    if cp.big:
        entry_ptr = 2 * np.arange(F + 1, dtype=np.int64)
        entry_pair = np.stack([cp.entry_pair[:F], cp.entry_pair[F:]], axis=1).ravel()
    else:
        entry_ptr, entry_pair = cp.flow_resource_ptr, cp.entry_pair
    # contiguous int64 read-only views on both branches: one numba signature
    geometry = (read_only(cp.pair_ptr, "int64"), read_only(cp.pair_res, "int64"),
                read_only(entry_ptr, "int64"), read_only(entry_pair, "int64"),
                read_only(ptr, "int64"), read_only(instance.flow_coflow, "int64"),
                read_only(instance.flow_size, "float64"), np.array(cp.cap, dtype=float),
                np.array(cp.weight, dtype=float), bool(weighted))
    rel_order = np.argsort(instance.release, kind="stable").astype(np.int64)
    rel_times = np.ascontiguousarray(instance.release[rel_order], dtype=float)
    st = np.zeros(9, dtype=np.int64)
    rem = np.array(instance.flow_size, dtype=float)
    done = np.zeros(F, dtype=bool)
    finished = np.zeros(K, dtype=bool)
    cc = np.full(K, np.nan)
    fc = np.full(F, np.nan)
    pstart = np.full(F, np.nan)
    state = (st, np.zeros(3), rem, done, np.zeros(K, dtype=bool), finished,
             np.diff(ptr).astype(np.int64), cc, fc, pstart,
             np.zeros(F),                   # each flow's rate (0: none)
             np.zeros(K, dtype=np.int64),   # the active coflows
             # the allocation's scratch: per pair (loads, d, alloc), per resource
             np.zeros(NP), np.zeros(NP), np.zeros(NP), np.zeros(R, dtype=np.int64),
             np.zeros(R), np.zeros(R), np.zeros(R), np.zeros(R, dtype=bool))
    del cp
    # a window, then at most three pieces per flow in one event (rate change, cut, end)
    buf, sink, settler = _piece_sink(instance, fc, window + 3 * F, on_window, meta)
    held: list[tuple] = []
    pieces = 0
    t, resume = float(rel_times[0]), False
    max_events = 50 * (F + K) + 1000
    with _handing_on(sink):
        while True:
            t, status = hug_run(t, resume, *geometry, rel_order, rel_times, *state, *buf,
                                window, sink is not None, max_events, FLOAT_RTOL,
                                COMPLETION_RTOL)
            resume = True
            if status < 0:
                stuck = np.flatnonzero(~finished & (rel_times[0] <= t))[:3].tolist()
                why = {-1: "no future event", -2: f"more than {max_events} events",
                       -3: "an allocation the compiled loop does not handle",
                       -4: "an event without a policy call"}[status]
                raise SimulationError(f"hug-cooperative: {why} at time {t} (unfinished "
                                      f"coflows include {stuck})")
            n, buf = _drain(buf, int(st[4]), sink, held, t)
            pieces += n
            st[4] = 0
            if status == 0:
                break
    seconds = _time.perf_counter() - t_start
    events, calls = int(st[5]), int(st[6])
    return _loop_result(instance, meta, held, sink, settler, pieces, cc, fc, events, calls,
                        seconds, {})


class FairnessPolicy:
    """A :class:`~coflowopt.simulate.RatePolicy` recomputing a fair allocation at coflow events.

    Parameters
    ----------
    method : str
        One of :data:`POLICY_METHODS`.
    weighted : bool
        Use the instance's weights (``w_k d_k``).  When every active coflow has weight 0 the
        policy falls back to equal weights so that the simulation always progresses.
    at_flow_completions : bool, optional
        Also recompute when a flow completes (default: only for ``per-flow``).
    pairs : bool, optional
        Compute the allocation on the (coflow, resource) pairs with bytes left (default for
        ``ps-p`` and ``hug-cooperative``, the only methods it supports); ``False`` builds the
        dense ``K x L`` vectors and calls :func:`~.allocations.allocate`, the reference the
        tests hold the pairs to (the same schedule, bit for bit).
    """

    def __init__(self, method: str = "hug", *, weighted: bool = False,
                 at_flow_completions: bool | None = None, pairs: bool | None = None):
        if method not in POLICY_METHODS:
            raise InvalidParameterError(f"method must be one of {', '.join(POLICY_METHODS)}, got "
                                        f"{method!r}")
        self.method = method
        self.weighted = bool(weighted)
        if at_flow_completions is None:
            at_flow_completions = method == "per-flow"
        ev = {"release", "coflow_completion"}
        if at_flow_completions:
            ev.add("flow_completion")
        self.reschedule_on = frozenset(ev)
        self.name = f"fairness:{method}" + ("(weighted)" if weighted else "")
        self.trace: list[dict] = []
        if pairs is None:
            pairs = method in _PAIR_METHODS
        if pairs and method not in _PAIR_METHODS:
            raise InvalidParameterError(f"pairs=True is available for "
                                        f"{', '.join(_PAIR_METHODS)}, not {method!r}")
        self.pairs = bool(pairs)

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        self.trace = []
        self._coflow_pairs = _CoflowPairs(instance) if self.pairs else None

    def allocate(self, state: SimState):
        inst = self.inst
        act = state.active_coflows
        flows = state.active_flows
        if act.size == 0 or flows.size == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        if self.method == "per-flow":
            if inst.is_big_switch:
                rates = flow_max_min(inst.flow_src[flows], inst.flow_egress_port[flows],
                                     inst.capacity.astype(float))
            else:
                # the progressive filling over paths of the `fair` policy (one implementation)
                from ..policies.flow_level import max_min_rates
                rates = max_min_rates(inst, flows)
            self.trace.append({"time": state.time, "active": act.size})
            return flows, rates
        if self._coflow_pairs is not None:
            rates, pstar, guarantee = self._coflow_pairs.rates(
                act, flows, state.remaining, self.method, self.weighted)
            self.trace.append({"time": state.time, "active": act.size, "pstar": pstar,
                               "isolation_guarantee": guarantee})
            return flows, rates
        loads = _loads(inst, act, state.remaining)
        norm = loads / inst.capacity[None, :]
        d = norm / norm.max(axis=1)[:, None]
        w = inst.weight[act].astype(float)
        weighted = self.weighted and bool(np.any(w > 0))
        big = inst.is_big_switch
        cv = CorrelationVectors(d=d, ids=tuple(inst.coflow_ids[k] for k in act), weight=w,
                                weighted=weighted, num_ingress=inst.num_ingress if big else None,
                                capacity=inst.capacity,
                                link_ids=None if big else tuple(inst.resource_names))
        res = allocate(cv, self.method)
        self.trace.append({"time": state.time, "active": act.size,
                           "pstar": res.optimal_isolation_guarantee,
                           "isolation_guarantee": float(res.isolation_guarantee)})
        rates = link_allocation_rates(inst, act, flows, state.remaining, res.allocation, loads)
        return flows, rates

    def next_timer(self, state: SimState) -> float:  # pragma: no cover - no timers
        return math.inf


@dataclass
class FairnessRun:
    """A simulated fair-sharing schedule with its verdict, completion times and slowdowns.

    Attributes
    ----------
    method : str
    schedule : Schedule
    report : VerificationReport
        The independent verifier's verdict (``report.ok``).
    completion : ndarray (K,)
        ``C_k`` recomputed by the verifier.
    cct : ndarray (K,)
        ``C_k - r_k``.
    slowdown : ndarray (K,)
        ``cct / rho_k`` (>= 1).
    policy_calls : int
    trace : list of dict
        Per recomputation: time, number of active coflows, P* and the isolation guarantee.
    """

    method: str
    schedule: Schedule
    report: VerificationReport
    completion: np.ndarray
    cct: np.ndarray
    slowdown: np.ndarray
    policy_calls: int
    trace: list = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Average / max CCT and slowdown (the statistics of Table 7.3)."""
        return {"method": self.method, "verified": bool(self.report.ok),
                "average_cct": float(np.mean(self.cct)), "max_cct": float(np.max(self.cct)),
                "average_slowdown": float(np.mean(self.slowdown)),
                "max_slowdown": float(np.max(self.slowdown)),
                "min_slowdown": float(np.min(self.slowdown)),
                "policy_calls": self.policy_calls}


def simulate_fairness(instance: Instance, method: str = "hug", *, weighted: bool = False,
                      at_flow_completions: bool | None = None) -> FairnessRun:
    """Simulate a fair-sharing policy and verify the schedule.

    Parameters
    ----------
    instance : Instance
    method : str
        One of :data:`POLICY_METHODS`.
    weighted : bool
    at_flow_completions : bool, optional
        See :class:`FairnessPolicy`.

    Returns
    -------
    FairnessRun

    Examples
    --------
    Two identical coflows on one port pair share it (P* = 1/2) and finish together:

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 1.0)])])
    >>> run = simulate_fairness(inst, "hug")
    >>> run.report.ok, run.completion.tolist(), run.slowdown.tolist()
    (True, [2.0, 2.0], [2.0, 2.0])
    """
    policy, sim, sched = _run(instance, method, weighted, at_flow_completions)
    rep = verify_schedule(instance, sched)
    comp = np.asarray(rep.coflow_completion, dtype=float)
    cct = comp - instance.release
    return FairnessRun(method=method, schedule=sched, report=rep, completion=comp, cct=cct,
                       slowdown=coflow_slowdown(instance, comp), policy_calls=sim.policy_calls,
                       trace=policy.trace)


def _run(instance: Instance, method: str, weighted: bool, at_flow_completions: bool | None):
    policy = FairnessPolicy(method, weighted=weighted, at_flow_completions=at_flow_completions)
    sim = simulate(instance, policy)
    sched = Schedule(sim.schedule.flow, sim.schedule.start, sim.schedule.end, sim.schedule.rate,
                     meta=_meta(method, policy, weighted))
    return policy, sim, sched


def _meta(method: str, policy: FairnessPolicy, weighted: bool) -> dict:
    return {"algorithm": method, "policy": policy.name, "weighted": weighted,
            "rates": "MADD-style within each coflow" if method != "per-flow"
            else "per-flow max-min"}


def fairness_windows(instance: Instance, on_window, *, method: str, weighted: bool = False,
                     window: int = WINDOW_PIECES, incremental: bool = True) -> dict:
    """The policy ``method`` (``hug``, ``hug-cooperative``, ``drf``, ``ps-p``) handed over
    window by window (:func:`coflowopt.simulate.simulate` in sink mode), never held.

    Why: these policies rescale every flow of every active coflow at each coflow event, so on
    the Facebook trace they close 6.5e7 (``hug-cooperative``) to about 1e8 pieces, 2-3 GB
    held and 5-8 GB at the peak of the held run (``experiments/results/bench_scale_fb.md``).
    The windows glue into the held schedule: the same pieces (cut at window boundaries, the
    same rate on both sides) with the same rates, but for the flows :class:`~coflowopt.
    simulate.WindowSettler` leaves unsettled (``tests/test_fairness_stream.py``).

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order.  One with the
        attribute ``borrows = True`` (it keeps nothing of a window) may be called on a second
        thread, still in order and one call at a time (``ps-p`` and ``hug-cooperative`` where
        a second core is idle: :class:`_WindowThread`).
    method : str
        One of :data:`POLICY_METHODS` but ``per-flow`` (whose windowed form is
        :func:`coflowopt.policies.flow_level.maxmin_windows`).
    weighted : bool
    window : int
        Pieces per window (at least).
    incremental : bool, default True
        ``ps-p``: run :func:`psp_incremental` (the same schedule in exact arithmetic,
        recomputing only the coflows whose rates can change); ``hug-cooperative``: run
        :func:`hug_run_loop` (the generic simulator's steps in one compiled loop, the same
        pieces bit for bit); False runs the generic simulator with :class:`FairnessPolicy`,
        whose rates are the reference's bits.

    Returns
    -------
    dict
        ``events``, ``policy_calls``, ``coflow_completion`` (the simulator's, unverified) and
        the sink's ``pieces``, ``windows``, ``callback_s``, ``settled``, ``unsettled``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 1, 2.0)])])
    >>> v = WindowedVerifier(inst)
    >>> st = fairness_windows(inst, lambda s, a, b: v.add(a, b, s), method="hug", window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"]
    ([2.0, 3.0], 2)
    """
    if method == "per-flow":
        raise InvalidParameterError("per-flow's windowed form is flow_level.maxmin_windows")
    policy = FairnessPolicy(method, weighted=weighted)
    sim = None
    if method == "ps-p" and incremental:
        sim = psp_incremental(instance, on_window=on_window, window=window,
                              meta=_meta(method, policy, weighted))
    elif method == "hug-cooperative" and incremental:
        sim = hug_run_loop(instance, weighted=weighted, on_window=on_window, window=window,
                           meta=_meta(method, policy, weighted))
    if sim is None:
        sim = simulate(instance, policy, on_window=on_window, window=window,
                       meta=_meta(method, policy, weighted))
    return {"events": sim.events, "policy_calls": sim.policy_calls, **sim.stats,
            "coflow_completion": sim.coflow_completion}


def _schedule(instance: Instance, method: str, weighted: bool) -> Schedule:
    if method == "ps-p":
        policy = FairnessPolicy(method)
        return psp_incremental(instance, meta=_meta(method, policy, False)).schedule
    if method == "hug-cooperative":
        sim = hug_run_loop(instance, weighted=weighted,
                           meta=_meta(method, FairnessPolicy(method, weighted=weighted), weighted))
        if sim is not None:
            return sim.schedule
    return _run(instance, method, weighted, None)[2]


def _policy(name: str, method: str, *, summary: str, reference: str, tags: tuple,
            guarantee: str | None = None, doc: str = ""):
    """Register ``method`` as the policy ``name`` (weighted when it is tagged ``weights``)."""
    if "weights" in tags:
        def policy(instance: Instance, *, weighted: bool = False) -> Schedule:
            return _schedule(instance, method, weighted)
    else:
        def policy(instance: Instance) -> Schedule:
            return _schedule(instance, method, False)
    policy.__name__ = policy.__qualname__ = method.replace("-", "_") + "_policy"
    params = ("\n    Parameters\n    ----------\n    instance : Instance\n"
              "    weighted : bool, default False\n"
              "        Use the coflows' weights (shares ``w_k d_k``); when every active coflow "
              "has weight 0\n        the policy falls back to equal weights.\n"
              if "weights" in tags else "")
    policy.__doc__ = (f"{summary[0].upper()}{summary[1:]}.\n\n"
                      "    See :mod:`coflowopt.fairness.simulation` for how the link allocation "
                      "becomes flow rates.\n" + params + doc)
    return register("policy", name, summary=summary, reference=reference, guarantee=guarantee,
                    tags=tags)(policy)


_REF = ("Chowdhury's dissertation Ch. 7 (Algorithm 6, Eq. 7.2, Sec. 7.6.1, 7.7.4); rates "
        "MADD-style within each coflow (coflowopt.fairness.simulation)")
_TAGS = ("release_dates", "online", "preemptive", "heterogeneous_capacities", "weights",
         "starvation_free")
#: P*(t) >= 1/n for n active unweighted coflows (every d_k^p <= 1), and the rates never fall below
#: MADD at the coflow's progress (module docstring)
_GUARANTEE = ("every active coflow's remaining isolated time shrinks at rate >= P*(t) >= "
              "1/(active coflows); with zero releases every slowdown <= K (unweighted)")

hug_policy = _policy(
    "hug", "hug", summary="HUG (non-cooperative): DRF guarantees P* d_k on remaining MADD "
    "vectors + capped max-min spare, recomputed at coflow arrivals/completions",
    reference=_REF, guarantee=_GUARANTEE, tags=_TAGS, doc="""
    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 1, 1.0)])])
    >>> verify_schedule(inst, hug_policy(inst)).coflow_completion.tolist()
    [2.0, 2.0]
    """)
hug_cooperative_policy = _policy(
    "hug-cooperative", "hug-cooperative", summary="HUG (cooperative): DRF guarantees + uncapped "
    "max-min spare (work-conserving at link level), recomputed at coflow events",
    reference=_REF, guarantee=_GUARANTEE, tags=_TAGS)
drf_policy = _policy(
    "drf", "drf", summary="DRF (HUG Stage 1 only): every active coflow runs MADD at progress P* "
    "on its remaining bytes, recomputed at coflow arrivals/completions (not work-conserving)",
    reference=_REF, guarantee=_GUARANTEE, tags=_TAGS)
ps_p_policy = _policy(
    "ps-p", "ps-p", summary="PS-P: every port split equally among the coflows using it, rates "
    "MADD-style within each coflow, recomputed at coflow events",
    reference="FairCloud (Popa et al., SIGCOMM 2012) as described in Chowdhury's dissertation "
    "Sec. 7.4.1 and App. D.2.1",
    tags=("release_dates", "online", "preemptive", "heterogeneous_capacities",
          "starvation_free"))


@register("policy", "per-flow-maxmin", summary="per-flow max-min fairness (progressive filling "
          "over flows), recomputed at arrivals and flow completions: the `fair` policy's "
          "allocation and kernel, under the name of the fairness comparisons",
          reference="Jaffe's max-min fairness; Chowdhury's dissertation Sec. 7.1, 7.7 (per-flow "
          "fairness baseline)",
          tags=("release_dates", "online", "preemptive", "heterogeneous_capacities",
                "work_conserving", "flow_level", "starvation_free", "non_clairvoyant"))
def per_flow_policy(instance: Instance) -> Schedule:
    """Per-flow max-min fairness over the ports (over the resources of the flows' paths on a
    topology), recomputed at every flow arrival and completion.

    One implementation: this is :func:`coflowopt.policies.flow_level.fair` (its numba kernel,
    and its windowed form when the command line does not keep the schedule).  The event-by-event
    simulation of the fairness framework (:func:`simulate_fairness` with ``"per-flow"``, which
    records the allocation trace) computes the same schedule independently; the tests compare
    the two (``tests/test_fairness_simulation.py``).
    """
    from ..policies.flow_level import fair
    return fair(instance)
