"""Compiled slot loop of the integral model's greedy maximal matching (:mod:`.slotted_greedy`).

Why a kernel: the greedy is sequential inside a slot (every flow's share depends on what the
flows before it took) and runs once per slot, and an instance with sizes of a few hundred units
has thousands of slots; a Python loop over flows per slot costs about a second on a 20-coflow
8x8 instance, the kernel a few milliseconds.

Everything is int64: sizes and capacities are whole units, so the arithmetic is exact.
"""

from __future__ import annotations

import numpy as np

from .rates._jit import njit  # lazy numba, compile announced (see _jit)
from .rates._sorted import keep_positive

#: priority modes of :func:`slotted_greedy_runs`
MODE_STATIC, MODE_SRJF_FLOW, MODE_SRJF_COFLOW, MODE_MMF = 0, 1, 2, 3


@njit(cache=True)
def _grow(a, n):
    out = np.empty(max(2 * a.shape[0], n), dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def slotted_greedy_runs(size, cap, path_ptr, path_res, first_slot, coflow_of, rank, mode):
    """Slot by slot, a greedy maximal allocation of whole units in priority order.

    Parameters
    ----------
    size : int64 (F,)
        Whole units of every flow (> 0).
    cap : int64 (R,)
        Whole units every resource carries per slot.
    path_ptr, path_res : int64
        CSR paths (the flow's resources).
    first_slot : int64 (F,)
        First slot the flow may use (``ceil(release / slot)``).
    coflow_of : int64 (F,)
    rank : int64 (F,)
        Static priority, a permutation of ``0..F-1`` (smaller first): the priority itself in
        ``MODE_STATIC``, the tie-break in the other modes.
    mode : int
        ``MODE_STATIC`` (strict priority by ``rank``), ``MODE_SRJF_FLOW`` (fewest remaining
        units of the flow first), ``MODE_SRJF_COFLOW`` (fewest remaining units of the coflow
        first), ``MODE_MMF`` (the flow whose head unit has waited longest first, one unit per
        flow per round, rounds until nothing more fits: integral progressive filling).

    Returns
    -------
    run_t, run_len, run_flow, run_units : int64 (n,)
        Flow ``run_flow[i]`` sends ``run_units[i]`` units in every slot of
        ``run_t[i] .. run_t[i] + run_len[i] - 1``.
    n : int

    Notes
    -----
    A slot's allocation is repeated for ``m`` slots at once in ``MODE_STATIC`` when nothing
    can change it: no release before ``t + m`` and every flow served keeps at least its share
    for ``m`` slots (the same flows see the same residual capacities in the same order).
    """
    F = size.shape[0]
    R = cap.shape[0]
    rem = size.copy()
    C = 0
    for f in range(F):
        if coflow_of[f] + 1 > C:
            C = coflow_of[f] + 1
    crem = np.zeros(C, dtype=np.int64)
    for f in range(F):
        crem[coflow_of[f]] += size[f]
    since = first_slot.copy()
    # flows by (first slot, rank): the release order
    by_rank = np.argsort(rank)
    rel_order = by_rank[np.argsort(first_slot[by_rank], kind="mergesort")]
    resid = cap.copy()
    active = np.empty(F, dtype=np.int64)
    n_act = 0
    nxt = 0
    finished = 0
    alloc_f = np.empty(F, dtype=np.int64)
    alloc_a = np.zeros(F, dtype=np.int64)
    got = np.zeros(F, dtype=np.int64)
    cap_runs = 4 * F + 16
    run_t = np.empty(cap_runs, dtype=np.int64)
    run_len = np.empty(cap_runs, dtype=np.int64)
    run_flow = np.empty(cap_runs, dtype=np.int64)
    run_units = np.empty(cap_runs, dtype=np.int64)
    n = 0
    t = 0
    big = np.iinfo(np.int64).max
    while finished < F:
        if n_act == 0 and first_slot[rel_order[nxt]] > t:
            t = first_slot[rel_order[nxt]]
        added = False
        while nxt < F and first_slot[rel_order[nxt]] <= t:
            active[n_act] = rel_order[nxt]
            n_act += 1
            nxt += 1
            added = True
        if added:  # keep the active flows in rank order
            o = np.argsort(rank[active[:n_act]])
            active[:n_act] = active[:n_act][o]
        # this slot's priority order
        if mode == 0:
            seq = active[:n_act]
        else:
            key = np.empty(n_act, dtype=np.int64)
            for i in range(n_act):
                f = active[i]
                if mode == 1:
                    key[i] = rem[f]
                elif mode == 2:
                    key[i] = crem[coflow_of[f]]
                else:
                    key[i] = since[f]
            seq = active[:n_act][np.argsort(key, kind="mergesort")]  # stable: rank breaks ties
        # the greedy (MMF: one unit per flow per round, rounds until a round sends nothing)
        n_alloc = 0
        while True:
            sent = False
            for i in range(n_act):
                f = seq[i]
                a = rem[f] - got[f]
                if mode == 3 and a > 1:
                    a = 1
                for e in range(path_ptr[f], path_ptr[f + 1]):
                    r = path_res[e]
                    if resid[r] < a:
                        a = resid[r]
                if a > 0:
                    if got[f] == 0:
                        alloc_f[n_alloc] = f
                        n_alloc += 1
                    got[f] += a
                    for e in range(path_ptr[f], path_ptr[f + 1]):
                        resid[path_res[e]] -= a
                    sent = True
            if mode != 3 or not sent:
                break
        # how many slots this allocation lasts unchanged
        m = 1
        if mode == 0 and n_alloc > 0:
            m = big
            for i in range(n_alloc):
                f = alloc_f[i]
                q = rem[f] // got[f]
                if q < m:
                    m = q
            if nxt < F and first_slot[rel_order[nxt]] - t < m:
                m = first_slot[rel_order[nxt]] - t
            if m < 1:
                m = 1
        if n + n_alloc > run_t.shape[0]:
            run_t = _grow(run_t, n + n_alloc)
            run_len = _grow(run_len, n + n_alloc)
            run_flow = _grow(run_flow, n + n_alloc)
            run_units = _grow(run_units, n + n_alloc)
        for i in range(n_alloc):
            f = alloc_f[i]
            a = got[f]
            run_t[n] = t
            run_len[n] = m
            run_flow[n] = f
            run_units[n] = a
            n += 1
            rem[f] -= m * a
            crem[coflow_of[f]] -= m * a
            since[f] = t + m
            got[f] = 0
            for e in range(path_ptr[f], path_ptr[f + 1]):
                r = path_res[e]
                resid[r] = cap[r]
            if rem[f] == 0:
                finished += 1
        n_act = keep_positive(active, n_act, rem)  # drop the finished flows (order kept)
        t += m
    return run_t[:n], run_len[:n], run_flow[:n], run_units[:n], n


@njit(cache=True)
def carry_units(arr_t, arr_f, arr_u, cap, path_ptr, path_res, rank):
    """Units that become available over time, sent slot by slot as soon as capacity allows.

    Unit batches ``(arr_t[i], arr_f[i], arr_u[i])`` (sorted by ``arr_t``) join flow
    ``arr_f[i]``'s backlog at slot ``arr_t[i]``.  In every slot the flows with a backlog, in
    ``rank`` order (smaller first), each send as many of their units as their path still has
    room for; what does not fit waits for the next slot.

    Returns
    -------
    out_t, out_f, out_u : int64 (n,)
        Flow ``out_f[i]`` sends ``out_u[i]`` units in slot ``out_t[i]``.
    """
    N = arr_t.shape[0]
    F = rank.shape[0]
    backlog = np.zeros(F, dtype=np.int64)
    resid = cap.copy()
    active = np.empty(F, dtype=np.int64)
    n_act = 0
    total = 0
    for i in range(N):
        total += arr_u[i]
    cap_out = 2 * N + 16
    out_t = np.empty(cap_out, dtype=np.int64)
    out_f = np.empty(cap_out, dtype=np.int64)
    out_u = np.empty(cap_out, dtype=np.int64)
    n = 0
    i = 0
    sent = 0
    t = arr_t[0] if N > 0 else 0
    while sent < total:
        if n_act == 0 and arr_t[i] > t:
            t = arr_t[i]
        added = False
        while i < N and arr_t[i] <= t:
            f = arr_f[i]
            if backlog[f] == 0:
                active[n_act] = f
                n_act += 1
                added = True
            backlog[f] += arr_u[i]
            i += 1
        if added:
            o = np.argsort(rank[active[:n_act]])
            active[:n_act] = active[:n_act][o]
        for j in range(n_act):
            f = active[j]
            a = backlog[f]
            for e in range(path_ptr[f], path_ptr[f + 1]):
                r = path_res[e]
                if resid[r] < a:
                    a = resid[r]
            if a > 0:
                for e in range(path_ptr[f], path_ptr[f + 1]):
                    resid[path_res[e]] -= a
                if n == out_t.shape[0]:
                    out_t = _grow(out_t, n + 1)
                    out_f = _grow(out_f, n + 1)
                    out_u = _grow(out_u, n + 1)
                out_t[n] = t
                out_f[n] = f
                out_u[n] = a
                n += 1
                backlog[f] -= a
                sent += a
        for j in range(n_act):  # reset the capacities the slot used
            f = active[j]
            for e in range(path_ptr[f], path_ptr[f + 1]):
                r = path_res[e]
                resid[r] = cap[r]
        n_act = keep_positive(active, n_act, backlog)
        t += 1
    return out_t[:n], out_f[:n], out_u[:n]
