"""Compiled passes of the float verifier (:mod:`coflowopt.verify`): one pass over the pieces in
their given order; the rate changes grouped by time (:func:`bucket_by_hash`, which hashes the
distinct times and places the changes by counting, or :func:`bucket_by_order`, from sorted
starts and ends: the same result); one sweep over them for the capacity check; all of these in
one call for a big-switch batch in runs of equal times (:func:`runs_pass`, which sweeps the
runs themselves); and the split of a held schedule into time windows (:func:`sorted_at`,
:func:`window_pieces`, :func:`window_batch`).

Shares no code with the schedulers (only the lazy ``njit`` of :mod:`coflowopt.rates._jit`, a
decorator).  The verifier runs :func:`malformed_count`, :func:`flow_pass`,
:func:`bucket_by_order` and :func:`capacity_sweep` as plain Python (``kernel.py_func``) for
small schedules, so that checking a few pieces never loads numba.

The capacity sweep sums the rates through each resource with a compensated running sum
(Knuth's TwoSum, *The Art of Computer Programming* vol. 2, 3rd ed., Sec. 4.2.2, Theorem B; the
"Sum2" scheme of Ogita, Rump and Oishi, *Accurate sum and dot product*, SIAM J. Sci. Comput. 26
(2005)) and bounds the error of every running sum it judges; the bound and its proof are in
``proofs/float-verifier-soundness.md`` (section "The capacity sweep").
"""

from __future__ import annotations

import math

import numpy as np

from .rates import _greedy_kernel as _gk  # its ``prefetch`` (llvm.prefetch once numba loads)
from .rates._jit import njit, on_load

#: unit roundoff of float64
_U = 2.0 ** -53


#: Flags of :func:`flow_pass`.
NOT_CHAINED, NEGATIVE_RATE, BEFORE_RELEASE = 1, 2, 4


@njit(cache=True)
def malformed_count(fl, st, en, rt, F, lo, hi):
    """How many pieces break rule 1: a flow index outside ``0..F-1``, a non-finite number,
    ``start >= end``, or (a window ``[lo, hi]``) a piece outside the window."""
    bad = 0
    for i in range(fl.shape[0]):
        s = st[i]
        e = en[i]
        if not (0 <= fl[i] < F and np.isfinite(s) and np.isfinite(e) and np.isfinite(rt[i])
                and s < e and s >= lo and e <= hi):
            bad += 1
    return bad


@njit(cache=True)
def flow_pass(fl, st, en, rt, release, last_end, sent, sent_count, fc):
    """One pass over well-formed pieces in their given order.

    Adds ``rate x (end - start)`` of every piece with a non-negative rate to ``sent`` (one
    sequential sum per flow, continuing the sums of earlier batches) and counts its terms in
    ``sent_count``; raises ``fc[f]`` to the end of every positive-rate piece; keeps in
    ``last_end[f]`` the latest end of the flow's pieces seen so far.

    Returns flags: :data:`NEGATIVE_RATE` if a rate is negative; :data:`BEFORE_RELEASE` if a
    positive rate starts before ``release[f]``; :data:`NOT_CHAINED` unless every piece starts
    at or after the latest end of the earlier pieces of its flow (in the given order, this
    batch and the earlier ones), which proves that no two pieces of a flow overlap.
    ``NOT_CHAINED`` means only that this test cannot tell (pieces out of time order, or an
    overlap): the caller then runs the sorting check, which names the overlaps.
    """
    flags = 0
    for i in range(fl.shape[0]):
        f = fl[i]
        s = st[i]
        e = en[i]
        r = rt[i]
        if s < last_end[f]:
            flags |= NOT_CHAINED
        if e > last_end[f]:
            last_end[f] = e
        if r >= 0.0:
            sent[f] += r * (e - s)
            sent_count[f] += 1
            if r > 0.0:
                if e > fc[f]:
                    fc[f] = e
                if s < release[f]:
                    flags |= BEFORE_RELEASE
        else:
            flags |= NEGATIVE_RATE
    return flags


@njit(cache=True)
def _grow(buf, k):
    """``buf`` with room for row ``k`` (doubling)."""
    if k < buf.shape[0]:
        return buf
    out = np.empty((2 * buf.shape[0], buf.shape[1]), dtype=buf.dtype)
    out[:buf.shape[0]] = buf
    return out


#: Multipliers of the time hash (odd and below 2**31, so that a 32-bit number times one stays
#: below 2**63: no overflow in int64, compiled or plain Python).
_HASH_M1, _HASH_M2 = 1540483477, 2041146883


@njit(cache=True)
def _windows_of(s, e, cuts):
    """First and last window of a piece ``[s, e)`` among the windows ``[cuts[w], cuts[w + 1]]``
    (``numpy.searchsorted`` on the cuts, clipped to ``0 .. W - 1``)."""
    W = cuts.shape[0] - 1
    first = min(max(np.searchsorted(cuts, s, side="right") - 1, 0), W - 1)
    last = min(max(np.searchsorted(cuts, e, side="left") - 1, first), W - 1)
    return first, last


@njit(cache=True)
def window_pieces(st, en, cuts, counts, out):
    """The well-formed pieces (finite, ``start < end``) of every window of
    :func:`coflowopt.verify.verify_in_windows`: a piece lies in window ``w`` iff it starts
    before ``cuts[w + 1]`` and ends after ``cuts[w]`` (the first and last windows are open
    outward).  A stable counting sort of the (window, piece) pairs, in two calls:

    * ``out`` empty: adds to ``counts[w]`` the number of pieces in window ``w``;
    * ``out`` of length ``counts.sum()``: fills it with the pieces of window 0 in piece
      order, then those of window 1, and so on.

    Returns the number of pieces that are not well-formed.
    """
    fill = out.shape[0] > 0
    cur = np.zeros(counts.shape[0], dtype=np.int64)   # next place of each window's pieces
    if fill:
        for w in range(1, counts.shape[0]):
            cur[w] = cur[w - 1] + counts[w - 1]
    bad = 0
    s0 = np.nan
    e0 = np.nan
    a = 0
    b = 0
    for i in range(st.shape[0]):
        s = st[i]
        e = en[i]
        if not (np.isfinite(s) and np.isfinite(e) and s < e):
            bad += 1
            continue
        if s != s0 or e != e0:      # runs of equal times: one search per run
            a, b = _windows_of(s, e, cuts)
            s0 = s
            e0 = e
        for w in range(a, b + 1):
            if fill:
                out[cur[w]] = i
                cur[w] += 1
            else:
                counts[w] += 1
    return bad


@njit(cache=True)
def sorted_at(x, ks):
    """``np.sort(x, kind="stable")[ks]`` for finite contiguous ``x`` and increasing ``ks``,
    without sorting the elements: ``x``'s runs of equal values (of equal bits: ``-0.0`` and
    ``0.0`` apart) are sorted by value, stably (:func:`_run_order`), and their lengths summed,
    which is the stable sort of ``x`` run by run.  (The cuts of
    :func:`coflowopt.verify.verify_in_windows`: the 3.4e7 starts of SEBF + MADD with
    coflowsim's backfilling come in 2.0e5 runs.)"""
    n = x.shape[0]
    xb = x.view(np.int64)   # runs of equal bits: of equal values, -0.0 and 0.0 apart
    nr = 1 if n > 0 else 0
    for i in range(1, n):
        nr += xb[i] != xb[i - 1]
    val = np.empty(nr)
    beg = np.empty(nr + 1, dtype=np.int64)
    k = -1
    for i in range(n):
        if i == 0 or xb[i] != xb[i - 1]:
            k += 1
            beg[k] = i
            val[k] = x[i]
    beg[nr] = n
    out = np.empty(ks.shape[0])
    j = 0
    pos = 0
    for k in _run_order(val):
        pos += beg[k + 1] - beg[k]
        while j < ks.shape[0] and ks[j] < pos:
            out[j] = val[k]
            j += 1
    return out


@njit(cache=True)
def window_batch(fl, st, en, rt, sel, a, b, of, os_, oe, or_):
    """The pieces ``sel`` of a window ``[a, b]`` of :func:`coflowopt.verify.verify_in_windows`
    (well formed: finite, ``start < end``), cut to it: ``of[j], os_[j], oe[j], or_[j]`` are
    ``fl[i], max(st[i], a), min(en[i], b), rt[i]`` for ``i = sel[j]`` (``b = inf``: the last
    window, open to the right)."""
    for j in range(sel.shape[0]):
        i = sel[j]
        of[j] = fl[i]
        s = st[i]
        os_[j] = s if s >= a else a
        e = en[i]
        oe[j] = e if e <= b else b
        or_[j] = rt[i]


@njit(cache=True)
def _time_slot(key, logsize):
    """Home slot of the time whose bits are ``key`` in a table of ``2 ** logsize`` slots (the
    low half multiplied, folded into the high half, multiplied again; top bits)."""
    a = ((key & 0xFFFFFFFF) * _HASH_M1) & 0xFFFFFFFF
    b = ((key >> 32) & 0xFFFFFFFF) ^ a
    return ((b * _HASH_M2) & 0xFFFFFFFF) >> (32 - logsize)


@njit(cache=True)
def bucket_by_hash(st, en, sbits, ebits, rt, fl, x, f):
    """The rate changes of the pieces grouped by time, without sorting the pieces: the distinct
    start and end times are found by hashing, only they are sorted, and the changes are placed
    by counting (a stable counting sort).

    Parameters
    ----------
    st, en, rt, fl : ndarray
        Start, end, rate (``>= 0``) and flow of well-formed pieces, in their given order.
    sbits, ebits : ndarray of int64
        The bits of ``st`` and ``en`` (``st.view(np.int64)``): the hash keys.
    x : ndarray of float, length ``2 n``
        Filled with the changes: ``+rate`` at a start, ``-rate`` at an end.
    f : ndarray of int, length ``2 n``
        Filled with the flow of each change.

    Returns
    -------
    times : ndarray of float
        The distinct times at which some positive rate changes, increasing.
    ptr : ndarray of int64
        The changes at ``times[k]`` are ``x[ptr[k]:ptr[k + 1]]``: first the starts, in the
        pieces' given order, then the ends, in the same order.

    Notes
    -----
    The order of the changes is exactly that of the stable sorts of :func:`bucket_by_order`
    (the tests check that the two agree), so the loads the sweep computes, roundings included,
    do not depend on which of the two grouped the changes.  Pieces with rate 0 change nothing
    and are left out.  ``-0.0`` and ``0.0`` are one time (they compare equal).  The table is
    open addressing with linear probing, at most half full, each slot holding a time's bits
    and its number side by side (one cache line per probe); consecutive pieces often share a
    time, so the last time seen on each side is remembered: the table is probed once per run
    of equal times, which is what makes this fast where the runs are long (the caller decides,
    :func:`coflowopt.verify._changes`).
    """
    n = st.shape[0]
    logsize = 10
    size = 1 << logsize
    table = np.full((size, 2), -1, dtype=np.int64)   # (bits, number); number -1: empty
    vals = np.empty(size // 2)
    cnt = np.zeros((size // 2, 2), dtype=np.int64)   # starts, ends per distinct time
    nd = 0
    last_key = np.zeros(2, dtype=np.int64)
    last_id = np.full(2, -1, dtype=np.int64)
    # 1. the distinct times, and how many starts and ends each has
    for i in range(n):
        if rt[i] == 0.0:
            continue
        for side in range(2):
            t = st[i] if side == 0 else en[i]
            key = 0 if t == 0.0 else (sbits[i] if side == 0 else ebits[i])
            if key == last_key[side] and last_id[side] >= 0:
                cnt[last_id[side], side] += 1
                continue
            h = _time_slot(key, logsize)
            while table[h, 1] >= 0 and table[h, 0] != key:
                h = (h + 1) & (size - 1)
            d = table[h, 1]
            if d < 0:
                d = nd
                nd += 1
                table[h, 0] = key
                table[h, 1] = d
                vals[d] = t
                if 2 * nd >= size:            # keep the table at most half full: double it
                    logsize += 1
                    size *= 2
                    grown = np.full((size, 2), -1, dtype=np.int64)
                    for s in range(size // 2):
                        if table[s, 1] >= 0:
                            g = _time_slot(table[s, 0], logsize)
                            while grown[g, 1] >= 0:
                                g = (g + 1) & (size - 1)
                            grown[g, 0] = table[s, 0]
                            grown[g, 1] = table[s, 1]
                    table = grown
                    nvals = np.empty(size // 2)
                    nvals[:nd] = vals[:nd]
                    vals = nvals
                    ncnt = np.zeros((size // 2, 2), dtype=np.int64)
                    ncnt[:nd] = cnt[:nd]
                    cnt = ncnt
            cnt[d, side] += 1
            last_key[side] = key
            last_id[side] = d
    # 2. the distinct times in order; where each one's starts and ends go
    order = np.argsort(vals[:nd])
    times = vals[:nd][order]
    ptr = np.empty(nd + 1, dtype=np.int64)
    cur = np.empty((nd, 2), dtype=np.int64)  # next free place of a distinct time's starts/ends
    pos = 0
    for k in range(nd):
        d = order[k]
        ptr[k] = pos
        cur[d, 0] = pos
        cur[d, 1] = pos + cnt[d, 0]
        pos += cnt[d, 0] + cnt[d, 1]
    ptr[nd] = pos
    # 3. every change to its place, in the pieces' order
    last_id[:] = -1
    for i in range(n):
        r = rt[i]
        if r == 0.0:
            continue
        for side in range(2):
            t = st[i] if side == 0 else en[i]
            key = 0 if t == 0.0 else (sbits[i] if side == 0 else ebits[i])
            if key == last_key[side] and last_id[side] >= 0:
                d = last_id[side]
            else:
                h = _time_slot(key, logsize)
                while table[h, 0] != key or table[h, 1] < 0:
                    h = (h + 1) & (size - 1)
                d = table[h, 1]
                last_key[side] = key
                last_id[side] = d
            p = cur[d, side]
            cur[d, side] = p + 1
            x[p] = r if side == 0 else -r
            f[p] = fl[i]
    return times, ptr


@njit(cache=True)
def bucket_by_order(st, en, rt, fl, os_, oe, x, f):
    """:func:`bucket_by_hash` from the stable sorts of the starts and of the ends: the same
    ``times``, ``ptr``, ``x`` and ``f``, for any number of distinct times.

    ``os_`` and ``oe`` are ``np.argsort(st, kind="stable")`` and the same of ``en``, or empty
    where that array is already sorted (the identity order).
    """
    n = st.shape[0]
    times = np.empty(64)
    ptr = np.empty(65, dtype=np.int64)
    nd = 0
    pos = 0
    i = 0
    j = 0
    while i < n or j < n:
        t = np.inf
        if i < n:
            t = st[i if os_.shape[0] == 0 else os_[i]]
        if j < n:
            e = en[j if oe.shape[0] == 0 else oe[j]]
            if e < t:
                t = e
        begin = pos
        while i < n:
            p = i if os_.shape[0] == 0 else os_[i]
            if st[p] != t:
                break
            i += 1
            if rt[p] != 0.0:
                x[pos] = rt[p]
                f[pos] = fl[p]
                pos += 1
        while j < n:
            p = j if oe.shape[0] == 0 else oe[j]
            if en[p] != t:
                break
            j += 1
            if rt[p] != 0.0:
                x[pos] = -rt[p]
                f[pos] = fl[p]
                pos += 1
        if pos > begin:
            if nd == times.shape[0]:
                nt = np.empty(2 * nd)
                nt[:nd] = times
                times = nt
                np_ = np.empty(2 * nd + 1, dtype=np.int64)
                np_[:nd + 1] = ptr[:nd + 1]
                ptr = np_
            times[nd] = t
            ptr[nd] = begin
            nd += 1
    ptr[nd] = pos
    return times[:nd].copy(), ptr[:nd + 1].copy()


@njit(cache=True)
def capacity_sweep(times, ptr, x, fx, path_ptr, path_res, pairs, cap, limit):
    """The loads of every resource between its rate changes, judged against ``limit`` (in units
    of the resource's capacity) with a proven bound on the rounding of the sums.

    Parameters
    ----------
    times, ptr, x, fx : ndarray
        The rate changes grouped by time (:func:`bucket_by_hash` or :func:`bucket_by_order`):
        at ``times[k]`` the changes ``x[ptr[k]:ptr[k + 1]]`` (``+rate`` at a start, ``-rate``
        at an end) of the flows ``fx[ptr[k]:ptr[k + 1]]``.
    path_ptr, path_res : ndarray of int64
        The resources of flow ``f`` are ``path_res[path_ptr[f]:path_ptr[f + 1]]``.
    pairs : bool
        Every path is two resources, ``path_ptr[f] = 2 f`` (a big switch): the sweep then
        reads them without ``path_ptr`` (and without a loop whose length varies).
    cap : ndarray of float
        Capacities.
    limit : float
        ``1 + capacity_rtol``.

    Returns
    -------
    (res, t0, t1, load, upper) for every interval ``[t0, t1)`` of a resource ``res`` whose load
    (computed sum ``load`` in data per time, proven upper bound ``upper`` in units of the
    capacity) may exceed ``limit``; arrays of int64 and float.

    Notes
    -----
    All changes at one instant are applied before the loads they touch are judged (a piece
    ending where another starts is not a momentary double load).  Per resource, the changes
    ``p_1, p_2, ...`` (``+rate`` at a start, ``-rate`` at an end, exact floats) are summed by
    TwoSum: ``pi_j = fl(pi_{j-1} + p_j)`` and ``q_j = pi_{j-1} + p_j - pi_j`` exactly, the
    ``q_j`` summed plainly into ``sigma``; the load judged after the m-th change is
    ``L = fl(pi_m + sigma_m)``, and ``|L - exact| <= u |L| + gamma_{m-1} u sum_{j<=m} |pi_j|``
    (proof in ``proofs/float-verifier-soundness.md``).  The last interval of a resource, after
    its last change, has exact load 0 and is not judged.  The changes come grouped by time so
    that the sweep reads memory in order.

    Most loads are far enough within the limit to be accepted without the three divisions of
    the bound: with ``z = (m - 1) u <= 2^-13`` the computed bound is at most
    ``1.0102 u |L| + 1.0105 z u A``, so ``E = L + 8 u |L| + 8 z u A`` (computed, its own
    rounding within the margin) is at least the computed ``L + bound``, the computed
    ``upper`` is at most ``E / c (1 + 8u)``, and ``E <= c limit (1 - 2^-40)`` (computed)
    implies ``upper <= limit``.  Only the loads that fail this test are judged by the formula
    above, so every judgement, and every reported value, is the formula's.  (Capacities below
    ``2^-900`` skip the test, so that no term of ``E`` can underflow against them.)
    """
    hi, lo, absum, cnt, touched, stack, is_open, o_t, o_load, o_up, fbuf, ibuf, thr = \
        _sweep_state_any(cap, limit)
    nout = 0

    def change(r, v, ntouch):
        """Add ``v`` to the running sum of resource ``r``; note it as touched at this instant."""
        a = hi[r]
        s = a + v                       # TwoSum (Knuth): s + q = a + v exactly
        bb = s - a
        q = (a - (s - bb)) + (v - bb)
        hi[r] = s
        lo[r] += q
        absum[r] += abs(s)
        cnt[r] += 1
        if not touched[r]:
            touched[r] = True
            stack[ntouch] = r
            ntouch += 1
        return ntouch

    for g in range(times.shape[0]):
        t = times[g]
        ntouch = 0
        if pairs:   # every path two resources (a big switch): no lookup of the path's length
            for c in range(ptr[g], ptr[g + 1]):
                f = fx[c]
                ntouch = change(path_res[2 * f], x[c], ntouch)
                ntouch = change(path_res[2 * f + 1], x[c], ntouch)
        else:
            for c in range(ptr[g], ptr[g + 1]):
                f = fx[c]
                for k in range(path_ptr[f], path_ptr[f + 1]):
                    ntouch = change(path_res[k], x[c], ntouch)
        fbuf, ibuf, nout = _judge_any(t, stack, ntouch, touched, hi, lo, absum, cnt, thr, cap,
                                      limit, is_open, o_t, o_load, o_up, fbuf, ibuf, nout)
    return (ibuf[:nout, 0].copy(), fbuf[:nout, 0].copy(), fbuf[:nout, 1].copy(),
            fbuf[:nout, 2].copy(), fbuf[:nout, 3].copy())


@njit(cache=True)
def _sweep_state(cap, limit):
    """The capacity sweep's per-resource state, all zero: running sums ``hi`` and ``lo``
    (TwoSum), ``absum`` (the float sum of ``|pi_j|``, the bound's A), ``cnt`` (changes so
    far), the instant's ``touched`` marks and ``stack``, the open overload (``is_open``,
    ``o_t``, ``o_load``, ``o_up``), the output buffers ``fbuf`` (t0, t1, load, upper) and
    ``ibuf`` (resource), and ``thr``, below which a load is within the limit without the
    bound's divisions (:func:`capacity_sweep`, Notes)."""
    R = cap.shape[0]
    thr = np.empty(R)
    for r in range(R):
        thr[r] = cap[r] * limit * (1.0 - 2.0 ** -40) if cap[r] >= 2.0 ** -900 else -np.inf
    return (np.zeros(R), np.zeros(R), np.zeros(R), np.zeros(R, dtype=np.int64),
            np.zeros(R, dtype=np.bool_), np.empty(R, dtype=np.int64),
            np.zeros(R, dtype=np.bool_), np.zeros(R), np.zeros(R), np.zeros(R),
            np.empty((64, 4)), np.empty((64, 1), dtype=np.int64), thr)


@njit(cache=True)
def _judge(t, stack, ntouch, touched, hi, lo, absum, cnt, thr, cap, limit, is_open, o_t, o_load,
           o_up, fbuf, ibuf, nout):
    """Judge the loads of the resources ``stack[:ntouch]`` after all the changes of the instant
    ``t`` (:func:`capacity_sweep`, Notes): an open overload interval of such a resource ends
    at ``t`` (a row of ``ibuf`` / ``fbuf``: resource; start, end, load, upper); a load whose
    proven upper bound exceeds ``limit`` opens one.  Returns ``(fbuf, ibuf, nout)``."""
    for k in range(ntouch):
        r = stack[k]
        touched[r] = False
        if is_open[r]:
            fbuf = _grow_any(fbuf, nout)
            ibuf = _grow_any(ibuf, nout)
            ibuf[nout, 0] = r
            fbuf[nout, 0] = o_t[r]
            fbuf[nout, 1] = t
            fbuf[nout, 2] = o_load[r]
            fbuf[nout, 3] = o_up[r]
            nout += 1
            is_open[r] = False
        load = hi[r] + lo[r]
        m1 = float(cnt[r] - 1)
        if m1 < 2.0 ** 40 and load + 8.0 * _U * abs(load) + 8.0 * _U * (_U * (m1 * absum[r])) \
                <= thr[r]:
            continue                     # within the limit (Notes): nothing to record
        gm = m1 * _U / (1.0 - m1 * _U)   # gamma_{m-1}
        # A <= absum / (1 - gamma_{m-1}) (a float sum of m non-negative terms); 1%
        # inflation covers the rounding of this bound's own few operations
        bound = 1.01 * (_U * abs(load) + gm * _U * absum[r] / (1.0 - gm))
        upper = (load + bound) / cap[r] * (1.0 + 4.0 * _U)
        if upper > limit:
            is_open[r] = True
            o_t[r] = t
            o_load[r] = load
            o_up[r] = upper
    return fbuf, ibuf, nout


#: The sweep's state, judgement and buffer growth as :func:`capacity_sweep` and :func:`_judge`
#: call them: their plain-Python bodies until numba loads (that kernel's plain-Python form,
#: for small schedules, must not call a kernel, which would load numba), the kernels after
#: (:func:`_bind_any`).
_sweep_state_any, _judge_any, _grow_any = _sweep_state.py_func, _judge.py_func, _grow.py_func


def _bind_any() -> None:
    """At the kernels' load: the kernels call the kernels themselves (the lazy stand-ins here,
    which the load then replaces by the compiled dispatchers)."""
    global _sweep_state_any, _judge_any, _grow_any
    _sweep_state_any, _judge_any, _grow_any = _sweep_state, _judge, _grow


on_load(_bind_any)


#: Columns of the verifier's per-flow rows (``coflowopt.verify._FloatSums.rows``, 8 wide:
#: float64, and the int64 view ``irows`` for the last two): the latest end of its pieces, the
#: data sent, the latest positive-rate end, the release; the number of terms of the sent sum;
#: on a big switch the flow's two resources in one word (:func:`pack_pair`), read by
#: :func:`runs_flows_screen` with the rest of the row.  (They are also an array of their own,
#: ``_FloatSums.res``, which the screen and the sweep read on one thread while
#: :func:`runs_flows` writes the rows on another: no line shared between two cores.)
LAST_END, SENT, FC, RELEASE, COUNT, PAIR = 0, 1, 2, 3, 4, 5


#: How many pieces ahead :func:`runs_judge` prefetches a flow's resources (and
#: :func:`screen_add` above :data:`SCREEN_PREFETCH_FLOWS` flows).
PREFETCH_AHEAD = 16

#: How many pieces ahead :func:`runs_flows` prefetches a flow's row.  8, 16 and 32 did alike
#: on 50,000 coflows' windows in isolation; in a whole run the rows come from memory (the
#: simulation evicts them between windows), and 16 pieces (~45 ns) is less than a memory
#: access: per-flow fairness's windows of the Facebook trace with the caches emptied before
#: each call, 3.09-3.19 ns a piece at 16, 2.82-2.95 at 32, 2.71-2.79 at 64, 2.63-2.76 at 96
#: (in-process, thread CPU, load 4.4, 2026-11-29); in whole runs the calling thread's share
#: (the flow pass and a tenth of the screen) 3.51 -> 3.16 ns a piece.
ROWS_PREFETCH_AHEAD = 64

#: :func:`runs_pass` declined the batch (a piece breaks rule 1 or has a negative rate, or the
#: runs of equal times are too short): the caller checks it the general way.
DECLINED = -1


@njit(cache=True)
def _run_order(val):
    """The runs in the order the sweep takes them: by their time, runs of one time in the
    given order (a stable sort; the identity, unsorted, where the runs come in order)."""
    for k in range(1, val.shape[0]):
        if val[k] < val[k - 1]:
            return np.argsort(val, kind="mergesort")
    return np.arange(val.shape[0])


@njit(cache=True, borrowed=True)
def _put(r, h, l, a, m, hi, lo, absum, cnt):
    """Write back the running sums of resource ``r`` held in registers by :func:`runs_pass`
    (``r < 0``: none held)."""
    if r >= 0:
        hi[r] = h
        lo[r] = l
        absum[r] = a
        cnt[r] = m


@njit(cache=True, borrowed=True)
def _hold(r, held, h, l, a, m, hi, lo, absum, cnt, touched, stack, ntouch):
    """The running sums of resource ``r`` in registers (:func:`runs_pass`): those given if ``r``
    is the resource ``held``, else ``r``'s (the held one's written back), ``r`` noted as
    touched at this instant.  Returns ``(h, l, a, m, ntouch)``."""
    if r == held:
        return h, l, a, m, ntouch
    _put(held, h, l, a, m, hi, lo, absum, cnt)
    if not touched[r]:
        touched[r] = True
        stack[ntouch] = r
        ntouch += 1
    return hi[r], lo[r], absum[r], cnt[r], ntouch


@njit(cache=True, borrowed=True)
def _two_sum(h, l, a, m, v):
    """``v`` added to a running sum held as ``(h, l, a, m)``: TwoSum, as
    :func:`capacity_sweep`'s ``change()`` (the same operations in the same order)."""
    s = h + v
    bb = s - h
    return s, l + ((h - (s - bb)) + (v - bb)), a + abs(s), m + 1


@njit(cache=True, borrowed=True)
def _next_instant(sval, sord, js, evl, eord, je):
    """The time of the next run of starts (``sval[sord[js]]``, ``js < len(sval)``) or of ends
    (``evl[eord[je]]``), whichever is earlier: the next instant of a walk over the sorted
    runs (:func:`runs_judge`)."""
    t = np.inf
    if js < sval.shape[0]:
        t = sval[sord[js]]
    if je < evl.shape[0] and evl[eord[je]] < t:
        t = evl[eord[je]]
    return t


@njit(cache=True, borrowed=True)
def _malformed_or_negative(f, s, e, r, F, lo_t, hi_t):
    """1 if the piece ``(f, s, e, r)`` breaks rule 1 (:func:`malformed_count`, in a window
    ``[lo_t, hi_t]``) or has a negative rate, else 0; without a branch (``abs(x) < inf``: x
    finite), so that a loop over pieces becomes vector code."""
    ok = ((f >= 0) & (f < F) & (abs(s) < np.inf) & (abs(e) < np.inf) & (abs(r) < np.inf)
          & (s < e) & (s >= lo_t) & (e <= hi_t) & (r >= 0.0))
    return 0 if ok else 1


@njit(cache=True)
def runs_pass(fl, st, en, rt, F, lo_t, hi_t, rows, irows, res, cap, limit, pr, max_runs):
    """:func:`flow_pass`, the grouping of the rate changes and :func:`capacity_sweep` (pairs
    form: every path an ingress and an egress resource, row ``f`` of ``res``) in one call, for
    a batch of pieces that come in runs of equal starts and runs of equal ends, which is how
    schedulers write them (the event-driven kernels' windows: ends non-decreasing, starts in
    runs of ~40-100 pieces; SEBF + MADD with coflowsim's backfilling: 3.4e7 pieces in 2.0e5
    runs of starts and 2.5e5 runs of ends, in no order): :func:`runs_check`, then the flow
    pass (:func:`runs_flows`) and the capacity check (the exact screen, :func:`screen_add` and
    :func:`screen_loads`, and where it proves nothing the sweep, :func:`runs_prep` and
    :func:`runs_judge`), which read the batch and write disjoint memory (the flows' rows; the
    screen's and the sweep's own state and ``pr``), so that :func:`coflowopt.verify._runs_pass`
    may run those two at once on two threads, with the same results.  On one thread the flow
    pass and the screen are one pass over the pieces (:func:`runs_flows_screen`).

    A run is a maximal range of consecutive pieces with one start (or one end): the changes
    of :func:`bucket_by_hash` at an instant ``t`` are the starts there in the pieces' order,
    then the ends there in the pieces' order, that is, the pieces of the runs of starts with
    time ``t`` in the runs' order, then those of the runs of ends with time ``t``.  So
    :func:`runs_flows` does :func:`flow_pass`'s work on every piece in the given order, and
    the sweep records the runs (first piece, time), gathers each piece's two
    resources, sorts the runs of each side by time, stably (nothing to sort where they come in
    order, as the ends of the event-driven kernels' windows), and walks the two sorted lists
    of runs together: at each instant it applies the starts of its runs (pieces of rate 0
    skipped), then the ends of its runs, then judges the resources touched (:func:`_judge`).
    These are the changes of :func:`bucket_by_hash` / :func:`bucket_by_order` in their order,
    so every running sum, bound, judgement and recorded overload is :func:`capacity_sweep`'s,
    and the rows' sums, counts and ends and the flags are :func:`flow_pass`'s.  No change is
    copied (the grouping writes 12 bytes for each of 2 n changes, at ~2 x 10^5 places at once
    on the backfilling schedule); a run of changes on the same ingress and egress (a pair's
    flows, written together) keeps the two running sums in registers instead of a store and
    a reload per change: the same float operations in the same order.

    Parameters
    ----------
    fl, st, en, rt : ndarray
        Flow, start, end, rate of the batch.
    F : int
        Number of flows.
    lo_t, hi_t : float
        The window (``-inf``, ``inf`` for a whole schedule): rule 1 as :func:`malformed_count`.
    rows, irows : ndarray
        The per-flow rows (float64 and their int64 view; columns :data:`LAST_END` ...
        :data:`COUNT`): :func:`flow_pass`'s ``release``, ``last_end``, ``sent``,
        ``sent_count`` and ``fc`` (the last four updated in place); and :data:`PAIR`, row
        ``f`` of ``res`` packed (:func:`pack_pair`), not written.
    res : ndarray of int32, shape (F, 2)
        Each flow's ingress and egress resource (:func:`capacity_sweep`'s ``path_res`` with
        ``pairs=True``), an array of its own (no line of it is one the flow pass writes).
    cap, limit
        As :func:`capacity_sweep`.
    pr : ndarray of int32, shape (>= n, 2)
        Scratch for each piece's two resources, kept by the caller from batch to batch (fresh
        pages for every window were system time).
    max_runs : int
        Decline a batch with more runs than this, starts and ends together (short runs: the
        general path's sorting of the pieces is then cheaper than reading them in the runs'
        order).

    Returns
    -------
    (flags, res, t0, t1, load, upper)
        ``flags`` as :func:`flow_pass`, and :func:`capacity_sweep`'s overloads; or
        ``flags = DECLINED`` (and nothing updated) when some piece breaks rule 1 or has a
        negative rate, or the runs are more than ``max_runs``: the general path then checks
        the batch.
    """
    nrs, nre = runs_check(fl, st, en, rt, F, lo_t, hi_t, max_runs)
    empty = np.zeros(0)
    if nrs < 0:
        return (DECLINED, np.zeros(0, dtype=np.int64), empty, empty, empty, empty)
    sc, thr, exact = screen_units(cap, limit)
    if exact:
        grid = screen_grid(pr, cap.shape[0])
        flags, G, vals = runs_flows_screen(fl, st, en, rt, rows, irows, res, sc, grid,
                                           nrs + nre)
        if G >= 0 and screen_loads(grid, vals, grid, vals[:0], thr):
            return flags, np.zeros(0, dtype=np.int64), empty, empty, empty, empty
    else:
        flags = runs_flows(fl, st, en, rt, rows, irows)
    sbeg, sval, sord, ebeg, evl, eord = runs_prep(st, en, nrs, nre)
    ores, ot0, ot1, oload, oup = runs_judge(fl, rt, res, sbeg, sval, sord, ebeg, evl, eord,
                                            cap, limit, pr)
    return flags, ores, ot0, ot1, oload, oup


@njit(cache=True, nogil=True)
def runs_check(fl, st, en, rt, F, lo_t, hi_t, max_runs):
    """:func:`runs_pass`'s first pass, read only: ``(nrs, nre)``, the numbers of runs of equal
    starts and of equal ends, or ``(-1, -1)`` when some piece breaks rule 1 (in the window
    ``[lo_t, hi_t]``) or has a negative rate, or the runs are more than ``max_runs``.

    One loop without a branch per piece (``abs(x) < inf``: x finite; each run edge compared
    with the piece before), which the compiler turns into vector code; the batch is judged
    after it.  (Judged 2048 pieces at a time, with an exit after each block and the piece
    before read through ``i > 0``, the same loop took 3.9 ns a piece on per-flow fairness's
    windows of the Facebook trace, against 1.0 ns now: in-process, 2026-11-29,
    ``experiments/results/bench_verify.md``.)"""
    n = fl.shape[0]
    nrs = 1 if n > 0 else 0
    nre = nrs
    bad = 0
    if n > 0:
        bad = _malformed_or_negative(fl[0], st[0], en[0], rt[0], F, lo_t, hi_t)
    for i in range(1, n):
        bad += _malformed_or_negative(fl[i], st[i], en[i], rt[i], F, lo_t, hi_t)
        nrs += st[i] != st[i - 1]
        nre += en[i] != en[i - 1]
    if bad or nrs + nre > max_runs:
        return -1, -1
    return nrs, nre


@njit(cache=True, nogil=True)
def runs_flows(fl, st, en, rt, rows, irows):
    """:func:`flow_pass`'s work on the rows (:func:`runs_pass`) in the given order, for a batch
    that :func:`runs_check` accepted (well formed, rates ``>= 0``).  Returns the flags.

    The flows' rows are read at random (a window's ~1.1 M pieces are ~10^5 flows in no
    order): the row of the piece :data:`ROWS_PREFETCH_AHEAD` places on is asked for now, so that
    its line is in L1 when its turn comes (without it the loads were half of the one call's
    time at 50,000 coflows: 22-32 -> 8-12 ns a piece, bench_scale_profiles.md 2026-11-28
    12:45; as the greedy kernel's, the plain-Python body runs only while numba is not
    loaded)."""
    return _flows_from(fl, st, en, rt, rows, irows, 0, 0)


@njit(cache=True, nogil=True)
def _flows_from(fl, st, en, rt, rows, irows, i0, flags):
    """:func:`runs_flows` on the pieces from ``i0`` on, ``flags`` those of the pieces before
    (indexed from 0 in arrays of their own, as :func:`_screen_pass`)."""
    fl = fl[i0:]
    st = st[i0:]
    en = en[i0:]
    rt = rt[i0:]
    n = fl.shape[0]
    flat = rows.reshape(rows.shape[0] * rows.shape[1])
    width = rows.shape[1]
    for i in range(min(ROWS_PREFETCH_AHEAD, n)):
        _gk.prefetch(flat, fl[i] * width)
    for i in range(n):
        if i + ROWS_PREFETCH_AHEAD < n:
            _gk.prefetch(flat, fl[i + ROWS_PREFETCH_AHEAD] * width)
        flags = _flow_piece(rows, irows, fl[i], st[i], en[i], rt[i], flags)
    return flags


@njit(cache=True, borrowed=True)
def _flow_piece(rows, irows, f, s, e, r, flags):
    """:func:`flow_pass`'s work on the row of flow ``f`` for one piece ``[s, e)`` at rate
    ``r >= 0``: its end, sum, count and completion; ``flags`` with the piece's added."""
    if s < rows[f, LAST_END]:
        flags |= NOT_CHAINED
    if e > rows[f, LAST_END]:
        rows[f, LAST_END] = e
    rows[f, SENT] += r * (e - s)
    irows[f, COUNT] += 1
    if r > 0.0:
        if e > rows[f, FC]:
            rows[f, FC] = e
        if s < rows[f, RELEASE]:
            flags |= BEFORE_RELEASE
    return flags


def pack_pair(res):
    """Each flow's two resources (rows of ``res``, int32 ``(F, 2)``) as one int64, the ingress
    in the low 32 bits: the rows' :data:`PAIR` column."""
    return res[:, 0].astype(np.int64) | (res[:, 1].astype(np.int64) << 32)


@njit(cache=True, nogil=True)
def runs_flows_screen(fl, st, en, rt, rows, irows, res, sc, grid, most):
    """:func:`runs_flows` and :func:`screen_add` (all the pieces, into ``grid``) in one pass,
    for :func:`runs_pass` on one thread: ``(flags, G, vals)``, the flags of the one and the
    rows and times of the other (``G = -1``: no grid, and the flow pass done all the same).
    The same operations in the same order as the two passes, so the same rows, flags and
    grid; each piece's two resources are read from its row's :data:`PAIR` column (``res``
    packed), the line the flow pass has just brought in, instead of from ``res``.  Per-flow
    fairness's windows of the Facebook trace (8 windows, caches emptied before each call,
    thread CPU, load 7.6, 2026-11-29, ``experiments/results/verify_fair_2026-11-29.md``): the
    two passes 6.26 ns a piece, this one 4.68; fused but reading ``res``, ~0.4 less than
    apart; the passes split into parts of 16 K - 256 K pieces, each part's passes run while it
    is in the L3 cache: slower (6.63 whole, 6.79-7.27 in parts: the passes wait on computation
    and on the rows, not on streaming the pieces)."""
    G, vals, flags, done = _screen_pass(fl, st, en, rt, res, sc, 0, fl.shape[0], grid, most,
                                        rows, irows)
    if done < fl.shape[0]:
        flags = _flows_from(fl, st, en, rt, rows, irows, done, flags)
    return flags, G, vals


@njit(cache=True, nogil=True)
def runs_prep(st, en, nrs, nre):
    """The runs of equal starts and of equal ends of a batch with ``nrs`` and ``nre`` of them
    (:func:`runs_check`), in the given order: ``(sbeg, sval, sord, ebeg, evl, eord)``, each
    run's first piece (one more entry: ``n``) and time, and the runs in the order the sweep
    takes them (:func:`_run_order`)."""
    n = st.shape[0]
    sbeg = np.empty(nrs + 1, dtype=np.int64)
    sval = np.empty(nrs)
    ebeg = np.empty(nre + 1, dtype=np.int64)
    evl = np.empty(nre)
    ks = -1
    ke = -1
    prev_s = np.nan
    prev_e = np.nan
    for i in range(n):
        s = st[i]
        e = en[i]
        if s != prev_s:
            ks += 1
            sbeg[ks] = i
            sval[ks] = s
            prev_s = s
        if e != prev_e:
            ke += 1
            ebeg[ke] = i
            evl[ke] = e
            prev_e = e
    sbeg[nrs] = n
    ebeg[nre] = n
    return sbeg, sval, _run_order(sval), ebeg, evl, _run_order(evl)


@njit(cache=True, nogil=True)
def runs_judge(fl, rt, res, sbeg, sval, sord, ebeg, evl, eord, cap, limit, pr):
    """:func:`runs_pass`'s sweep, for the runs of :func:`runs_prep`: every piece's two
    resources gathered into ``pr`` (row ``fl[i]`` of ``res``, asked for
    :data:`PREFETCH_AHEAD` pieces ahead: the sweep then reads them run by run, not by flow),
    then the instants swept: at each, the starts of its runs, then the ends of its runs (the
    changes of :func:`bucket_by_hash` in their order), then the judgement (:func:`_judge`).
    Returns :func:`capacity_sweep`'s ``(res, t0, t1, load, upper)``."""
    n = fl.shape[0]
    nrs = sval.shape[0]
    nre = evl.shape[0]
    flat = res.reshape(res.shape[0] * 2)
    for i in range(min(PREFETCH_AHEAD, n)):
        _gk.prefetch(flat, fl[i] * 2)
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            _gk.prefetch(flat, fl[i + PREFETCH_AHEAD] * 2)
        f = fl[i]
        pr[i, 0] = res[f, 0]
        pr[i, 1] = res[f, 1]
    # the sweep over the instants
    hi, lo, absum, cnt, touched, stack, is_open, o_t, o_load, o_up, fbuf, ibuf, thr = \
        _sweep_state(cap, limit)
    nout = 0
    js = 0
    je = 0
    while js < nrs or je < nre:
        t = _next_instant(sval, sord, js, evl, eord, je)
        ntouch = 0
        # the two resources of the current run of changes, kept in registers (an ingress and
        # an egress: never the same resource)
        ra = -1
        rb = -1
        ha = la = aa = 0.0
        hb = lb = ab = 0.0
        na = nb = 0
        side = 0
        while True:
            # the next run at t: the starts' runs there, then the ends'
            if side == 0:
                if js < nrs and sval[sord[js]] == t:
                    k = sord[js]
                    js += 1
                    b0 = sbeg[k]
                    b1 = sbeg[k + 1]
                    sign = 1.0
                else:
                    side = 1
                    continue
            elif je < nre and evl[eord[je]] == t:
                k = eord[je]
                je += 1
                b0 = ebeg[k]
                b1 = ebeg[k + 1]
                sign = -1.0
            else:
                break
            for i in range(b0, b1):
                v = rt[i]
                if v == 0.0:
                    continue
                v = sign * v                # +rate at a start, -rate at an end (exact)
                a = pr[i, 0]
                b = pr[i, 1]
                ha, la, aa, na, ntouch = _hold(a, ra, ha, la, aa, na, hi, lo, absum, cnt,
                                               touched, stack, ntouch)
                hb, lb, ab, nb, ntouch = _hold(b, rb, hb, lb, ab, nb, hi, lo, absum, cnt,
                                               touched, stack, ntouch)
                ra = a
                rb = b
                ha, la, aa, na = _two_sum(ha, la, aa, na, v)
                hb, lb, ab, nb = _two_sum(hb, lb, ab, nb, v)
        _put(ra, ha, la, aa, na, hi, lo, absum, cnt)
        _put(rb, hb, lb, ab, nb, hi, lo, absum, cnt)
        fbuf, ibuf, nout = _judge(t, stack, ntouch, touched, hi, lo, absum, cnt, thr, cap,
                                  limit, is_open, o_t, o_load, o_up, fbuf, ibuf, nout)
    return (ibuf[:nout, 0].copy(), fbuf[:nout, 0].copy(), fbuf[:nout, 1].copy(),
            fbuf[:nout, 2].copy(), fbuf[:nout, 3].copy())



#: :func:`exact_screen`'s grid: each resource's capacity is at least ``2^(SCREEN_BITS - 1)``
#: and below ``2^SCREEN_BITS`` units of its grid (``proofs/float-verifier-soundness.md``, "The
#: exact screen", needs ``SCREEN_BITS <= 50``).
SCREEN_BITS = 50

#: :func:`screen_add` asks for each piece's flow's resources ahead (as :func:`runs_flows`
#: does) only above this many flows: below, ``res`` (8 bytes a flow) is in the caches and the
#: prefetch costs more than it saves (per-flow fairness's windows of the Facebook trace, 7e5
#: flows: 3.9 -> 3.5 ns a piece without it, in-process, 2026-11-29).
SCREEN_PREFETCH_FLOWS = 1 << 21


@njit(cache=True, nogil=True)
def exact_screen(fl, st, en, rt, res, cap, limit, pr, most):
    """Whether every load of a big-switch batch is within ``limit`` times its resource's
    capacity, proven on exact sums (``proofs/float-verifier-soundness.md``, "The exact
    screen"): True proves that no load exceeds it and that :func:`runs_pass`'s sweep would
    record no overload; False proves nothing (the sweep then judges the batch).

    Each rate ``v`` on resource ``r`` is rounded up to a whole number of units ``q_r = 2^(e_r
    - SCREEN_BITS)`` (``cap_r`` in ``[2^(e_r - 1), 2^e_r)``): ``Q = ceil(v / q_r)``, an exact
    product by a power of two >= 1 and an exact ``ceil`` (clamped at 2^62)
    (:func:`screen_units`).  Each distinct time of the batch gets a row of a grid of floats
    (``G x R``, found by hashing the times as they come, :func:`screen_add`); a piece adds its
    ``Q`` to the cell (row of its start, r) and takes it off the cell (row of its end, r), for
    both its resources, in the given order; the rows' running sums in the order of their times
    are the loads (in units) of the intervals between instants, each compared with
    ``floor(cap_r limit (1 - 2^-40) / q_r)`` (:func:`screen_loads`).  While those loads are
    within the threshold (< 2^51) every value is an integer below 2^53, so every sum is exact
    whatever the order and grouping (a batch may be added in parts, into grids summed after;
    consecutive pieces on the same cells are summed first); the first load beyond it is found
    however the sums round (the proof).  The grid is ``pr``'s memory (the sweep's scratch,
    which the sweep fills only if this answers False): False where the batch has more distinct
    times than ``pr`` has rows over ``R`` (``G R > len(pr)``) or than ``most`` (a bound on
    them: the runs of starts and of ends), and where a capacity is outside
    ``[2^-900, 2^SCREEN_BITS)`` or a threshold is ``2^(SCREEN_BITS + 1)`` units or more
    (``limit`` above 2 at least): no exact grid."""
    sc, thr, ok = screen_units(cap, limit)
    if not ok:
        return False
    grid = screen_grid(pr, cap.shape[0])
    G, vals = screen_add(fl, st, en, rt, res, sc, 0, fl.shape[0], grid, most)
    if G < 0:
        return False
    return screen_loads(grid, vals, grid, vals[:0], thr)


@njit(cache=True, nogil=True)
def screen_units(cap, limit):
    """:func:`exact_screen`'s units: ``(sc, thr, ok)``, each resource's units per unit of data
    (``1 / q_r``) and threshold in units; ``ok`` False where there is no exact grid (a capacity
    outside ``[2^-900, 2^SCREEN_BITS)``, a threshold of ``2^(SCREEN_BITS + 1)`` units or
    more)."""
    R = cap.shape[0]
    sc = np.empty(R)
    thr = np.empty(R)
    for r in range(R):
        c = cap[r]
        if not (c >= 2.0 ** -900 and c < 2.0 ** SCREEN_BITS):
            return sc, thr, False
        sc[r] = math.ldexp(1.0, SCREEN_BITS - math.frexp(c)[1])   # 1 / q_r, >= 1
        thr[r] = math.floor(c * limit * (1.0 - 2.0 ** -40) * sc[r])
        if not thr[r] < 2.0 ** (SCREEN_BITS + 1):
            return sc, thr, False
    return sc, thr, True


@njit(cache=True, nogil=True)
def screen_grid(buf, R):
    """The largest ``rows x R`` grid of floats in the memory of ``buf`` (C-contiguous, 8 bytes
    a row), not zeroed (:func:`screen_add` zeroes a row when it first uses it)."""
    rows = buf.size * buf.itemsize // 8 // R
    return buf.reshape(buf.size).view(np.float64)[:rows * R].reshape((rows, R))


@njit(cache=True)
def _screen_row(t, bits, table, logsize, vals, G, grid):
    """The row of time ``t`` (its bits ``bits``) in :func:`screen_add`'s table (open
    addressing, linear probing, kept at most half full): ``(row, G)``, a new row (zeroed,
    ``G + 1`` rows then) for a time not seen, ``-1`` when all ``len(vals)`` rows are taken
    (the table has more than twice as many slots).  ``-0.0`` and ``0.0`` are one time (they
    compare equal: one key)."""
    key = 0 if t == 0.0 else bits
    size = table.shape[0]
    h = _time_slot(key, logsize)
    while table[h, 1] >= 0 and table[h, 0] != key:
        h = (h + 1) & (size - 1)
    d = table[h, 1]
    if d >= 0:
        return d, G
    if G >= vals.shape[0]:
        return -1, G
    table[h, 0] = key
    table[h, 1] = G
    vals[G] = t
    for r in range(grid.shape[1]):
        grid[G, r] = 0.0
    return G, G + 1


@njit(cache=True, nogil=True)
def screen_add(fl, st, en, rt, res, sc, lo, hi, grid, most):
    """:func:`exact_screen`'s pass over the pieces ``lo .. hi - 1``: each piece's units added
    to ``grid`` in the row of its start and taken off in the row of its end, for both its
    resources.  Returns ``(G, vals)``: the rows used and their times (each distinct time of
    the part once, in the order first seen), or ``G = -1`` (the caller then sweeps without a
    screen) when the part has more distinct times than ``grid`` has rows or than ``most`` (a
    bound on them, the batch's runs of starts and of ends, which sizes the hash table), when a
    sixteenth of the way it looks set to have more than ``grid`` has rows (16 times its times
    so far, where ``most`` does not already say they fit: an estimate that only saves time),
    or when it has ``2^47`` pieces or more.

    The rows are found by hashing each time when it differs from the previous piece's (once a
    run of equal times; the table is not grown in the loop: an array reassigned there made the
    loop 7x slower), and on each side (ingress, egress) the units of consecutive pieces with
    one start, one end and the same resource are summed in registers and added to its two
    cells once (integers: exact in any grouping, the proof).  Each side on its own: per-flow
    fairness's windows of the Facebook trace change (start, end, ingress, egress) at 20 % of
    the pieces but the ingress at 14 % and the egress at 6 %, so half the cell additions of
    grouping by both resources, with no more unforeseen branches (3.71-3.81 -> 3.27-3.41 ns a
    piece, in-process, caches emptied before each call, load 7, 2026-11-29)."""
    G, vals, _, _ = _screen_pass(fl, st, en, rt, res, sc, lo, hi, grid, most, None, None)
    return G, vals


@njit(cache=True, nogil=True)
def _screen_pass(fl, st, en, rt, res, sc, lo, hi, grid, most, rows, irows):
    """:func:`screen_add`'s pass, and with ``rows`` (not None; ``lo = 0``) :func:`runs_flows`'s
    work on each piece first, its resources read from its row (:func:`runs_flows_screen`).
    Returns ``(G, vals, flags, done)``: :func:`screen_add`'s result, the flow pass's flags and
    the pieces before the first it has not taken (``hi`` unless the screen gave up; with
    ``rows`` None, the flags 0 and ``done`` meaningless)."""
    nrows = min(grid.shape[0], most)
    logsize = 4
    while (1 << logsize) < 2 * nrows + 2:
        logsize += 1
    table = np.full((1 << logsize, 2), -1, dtype=np.int64)   # (bits, row); row -1: empty
    vals = np.empty(nrows)
    G = 0
    flags = 0
    if lo >= hi:
        return G, vals[:0], flags, lo
    if hi - lo >= 1 << 47:      # the proof's bound on the terms of a cell needs n < 2^48
        return -1, vals[:0], flags, lo
    # the part as arrays of its own, indexed from 0: a loop from 0 proves every index
    # non-negative, so no access pays numba's fix-up of negative indices (a loop from ``lo``
    # did: per-flow fairness's windows of the Facebook trace, the flow pass and the screen in
    # one pass, 6.2 -> 5.5 ns a piece, in-process, thread CPU, load 8, 2026-11-29)
    n = hi - lo
    fl = fl[lo:hi]
    st = st[lo:hi]
    en = en[lo:hi]
    rt = rt[lo:hi]
    sbits = st.view(np.int64)
    ebits = en.view(np.int64)
    big = 2.0 ** 62
    one = True                  # one scale for every resource: one product a piece
    for r in range(sc.shape[0]):
        one &= sc[r] == sc[0]
    sc0 = sc[0]
    pair = res.reshape(res.shape[0] * 2).view(np.int64)    # a flow's two resources: one line
    pf = res.shape[0] > SCREEN_PREFETCH_FLOWS
    if rows is not None:        # the flow pass's rows, asked for ahead (runs_flows)
        pf = False
        flat = rows.reshape(rows.shape[0] * rows.shape[1])
        width = rows.shape[1]
        for i in range(min(ROWS_PREFETCH_AHEAD, n)):
            _gk.prefetch(flat, fl[i] * width)
    if pf:
        for i in range(min(PREFETCH_AHEAD, n)):
            _gk.prefetch(pair, fl[i])
    probe = n // 16 if n >= 1 << 16 else n
    prev_s = np.nan
    prev_e = np.nan
    gs = 0
    ge = 0
    ca = -1                     # the resource of each side whose units are in registers
    cb = -1
    ua = 0.0
    ub = 0.0
    for i in range(n):
        if i == probe and most > grid.shape[0] and 16 * G > grid.shape[0]:
            return -1, vals[:0], flags, lo + i
        if pf and i + PREFETCH_AHEAD < n:
            _gk.prefetch(pair, fl[i + PREFETCH_AHEAD])
        s = st[i]
        e = en[i]
        f = fl[i]
        v = rt[i]
        if rows is None:
            a = res[f, 0]
            b = res[f, 1]
        else:
            if i + ROWS_PREFETCH_AHEAD < n:
                _gk.prefetch(flat, fl[i + ROWS_PREFETCH_AHEAD] * width)
            flags = _flow_piece(rows, irows, f, s, e, v, flags)
            w = irows[f, PAIR]
            a = w & 0xFFFFFFFF
            b = w >> 32
        if s != prev_s or e != prev_e:
            if ca >= 0:
                grid[gs, ca] += ua
                grid[ge, ca] -= ua
                grid[gs, cb] += ub
                grid[ge, cb] -= ub
            ua = 0.0
            ub = 0.0
            ca = a
            cb = b
            if s != prev_s:
                gs, G = _screen_row(s, sbits[i], table, logsize, vals, G, grid)
                if gs < 0:
                    return -1, vals[:0], flags, lo + i + 1
                prev_s = s
            if e != prev_e:
                ge, G = _screen_row(e, ebits[i], table, logsize, vals, G, grid)
                if ge < 0:
                    return -1, vals[:0], flags, lo + i + 1
                prev_e = e
        if a != ca:
            grid[gs, ca] += ua
            grid[ge, ca] -= ua
            ua = 0.0
            ca = a
        if b != cb:
            grid[gs, cb] += ub
            grid[ge, cb] -= ub
            ub = 0.0
            cb = b
        if one:
            q = np.ceil(min(v * sc0, big))
            ua += q
            ub += q
        else:
            ua += np.ceil(min(v * sc[a], big))
            ub += np.ceil(min(v * sc[b], big))
    if ca >= 0:
        grid[gs, ca] += ua
        grid[ge, ca] -= ua
        grid[gs, cb] += ub
        grid[ge, cb] -= ub
    return G, vals[:G], flags, hi


@njit(cache=True, nogil=True)
def screen_loads(grid, vals, grid2, vals2, thr):
    """The loads instant by instant: the rows of ``grid`` (times ``vals``) and of ``grid2``
    (times ``vals2``: a batch added in two parts; none if empty), a time's row of each summed
    into its cell, the cells summed in the order of their times; whether every one is at most
    ``thr``."""
    R = thr.shape[0]
    cur = np.zeros(R)
    bad = False
    oa = np.argsort(vals)
    ob = np.argsort(vals2)
    ga = vals.shape[0]
    gb = vals2.shape[0]
    ja = 0
    jb = 0
    while ja < ga or jb < gb:
        if jb >= gb or (ja < ga and vals[oa[ja]] < vals2[ob[jb]]):
            g = oa[ja]
            ja += 1
            for r in range(R):
                cur[r] += grid[g, r]
                bad |= cur[r] > thr[r]
        elif ja >= ga or vals2[ob[jb]] < vals[oa[ja]]:
            g = ob[jb]
            jb += 1
            for r in range(R):
                cur[r] += grid2[g, r]
                bad |= cur[r] > thr[r]
        else:
            g = oa[ja]
            h = ob[jb]
            ja += 1
            jb += 1
            for r in range(R):
                cur[r] += grid[g, r] + grid2[h, r]
                bad |= cur[r] > thr[r]
    return not bad
