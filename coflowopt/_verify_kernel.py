"""Compiled passes of the float verifier (:mod:`coflowopt.verify`): one pass over the pieces in
their given order, and one sweep over their start and end times for the capacity check.

Shares no code with the schedulers (only the lazy ``njit`` of :mod:`coflowopt.rates._jit`, a
decorator).  Every function here is also plain Python (``kernel.py_func``): the verifier runs
that for small schedules so that checking a few pieces never loads numba.

The capacity sweep sums the rates through each resource with a compensated running sum
(Knuth's TwoSum, *The Art of Computer Programming* vol. 2, 3rd ed., Sec. 4.2.2, Theorem B; the
"Sum2" scheme of Ogita, Rump and Oishi, *Accurate sum and dot product*, SIAM J. Sci. Comput. 26
(2005)) and bounds the error of every running sum it judges; the bound and its proof are in
``proofs/float-verifier-soundness.md`` (section "The capacity sweep").
"""

from __future__ import annotations

import numpy as np

from .rates._jit import njit

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


@njit(cache=True)
def capacity_sweep(st, rs, fs, en, re, fe, path_ptr, path_res, cap, limit):
    """The loads of every resource between its rate changes, judged against ``limit`` (in units
    of the resource's capacity) with a proven bound on the rounding of the sums.

    Parameters
    ----------
    st, rs, fs : ndarray
        Start, rate and flow of the well-formed pieces with non-negative rates, in order of
        start time.
    en, re, fe : ndarray
        End, rate and flow of the same pieces in order of end time.
    path_ptr, path_res : ndarray of int64
        The resources of flow ``f`` are ``path_res[path_ptr[f]:path_ptr[f + 1]]``.
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
    its last change, has exact load 0 and is not judged.  The pieces come sorted (two
    sequential streams) so that the sweep reads memory in order.
    """
    n = st.shape[0]
    R = cap.shape[0]
    hi = np.zeros(R)
    lo = np.zeros(R)
    absum = np.zeros(R)          # float sum of |pi_j|: the bound's A
    cnt = np.zeros(R, dtype=np.int64)
    touched = np.zeros(R, dtype=np.bool_)
    stack = np.empty(R, dtype=np.int64)
    is_open = np.zeros(R, dtype=np.bool_)
    o_t = np.zeros(R)
    o_load = np.zeros(R)
    o_up = np.zeros(R)
    fbuf = np.empty((64, 4))     # t0, t1, load, upper
    ibuf = np.empty((64, 1), dtype=np.int64)
    nout = 0
    i = 0
    j = 0
    while i < n or j < n:
        t = np.inf
        if i < n:
            t = st[i]
        if j < n and en[j] < t:
            t = en[j]
        ntouch = 0
        for side in range(2):
            while True:
                if side == 0:
                    if i >= n or st[i] != t:
                        break
                    x = rs[i]
                    f = fs[i]
                    i += 1
                else:
                    if j >= n or en[j] != t:
                        break
                    x = -re[j]
                    f = fe[j]
                    j += 1
                if x == 0.0:
                    continue
                for k in range(path_ptr[f], path_ptr[f + 1]):
                    r = path_res[k]
                    a = hi[r]
                    s = a + x                       # TwoSum (Knuth): s + q = a + x exactly
                    bb = s - a
                    q = (a - (s - bb)) + (x - bb)
                    hi[r] = s
                    lo[r] += q
                    absum[r] += abs(s)
                    cnt[r] += 1
                    if not touched[r]:
                        touched[r] = True
                        stack[ntouch] = r
                        ntouch += 1
        for k in range(ntouch):
            r = stack[k]
            touched[r] = False
            if is_open[r]:
                fbuf = _grow(fbuf, nout)
                ibuf = _grow(ibuf, nout)
                ibuf[nout, 0] = r
                fbuf[nout, 0] = o_t[r]
                fbuf[nout, 1] = t
                fbuf[nout, 2] = o_load[r]
                fbuf[nout, 3] = o_up[r]
                nout += 1
                is_open[r] = False
            load = hi[r] + lo[r]
            m1 = float(cnt[r] - 1)
            g = m1 * _U / (1.0 - m1 * _U)   # gamma_{m-1}
            # A <= absum / (1 - gamma_{m-1}) (a float sum of m non-negative terms); 1%
            # inflation covers the rounding of this bound's own few operations
            bound = 1.01 * (_U * abs(load) + g * _U * absum[r] / (1.0 - g))
            upper = (load + bound) / cap[r] * (1.0 + 4.0 * _U)
            if upper > limit:
                is_open[r] = True
                o_t[r] = t
                o_load[r] = load
                o_up[r] = upper
    return (ibuf[:nout, 0].copy(), fbuf[:nout, 0].copy(), fbuf[:nout, 1].copy(),
            fbuf[:nout, 2].copy(), fbuf[:nout, 3].copy())
