"""Compiled per-event allocation for iterative MADD with backfilling (Varys Pseudocode 1).

Why a kernel: iterative MADD is sequential over coflows (each coflow's Gamma is computed on the
capacity its predecessors left), and backfilling is sequential over ports and coflows, so numpy
cannot vectorise an event.  :func:`madd_simulate` is the whole event loop (the Python engine's
:class:`~coflowopt.rates.madd.MaddPolicy` calls :func:`_madd_allocate_indexed` once per event
instead, keeping the same state across calls).

Cost of an event on a big switch: a few nanoseconds per active coflow that MADD finds blocked
(a witness port, :func:`_iterative_madd`), the flows of the coflows it serves, the groups with
leftover at both ports for backfilling (:func:`_backfill_candidates`), and for Varys' SEBF the
coflows whose remaining demand changed, each moved to its new place in an order kept with holes
(section "gapped order"; on resources and with coflowsim's backfilling they are merged back into
the kept order, :func:`_sebf_update`); not every active flow, which made 50,000 coflows
released together quadratic (FIFO + MADD and the Varys policy ran past ten minutes).  With a
static order and more coflows than port pairs :func:`madd_simulate` keeps the active coflows
in lists sorted by rank (section "ordered lists") instead of an order it walks at every event,
so that an event costs the coflows it reads and the heads of the open port pairs, not every
active coflow.  The schedules are bit-identical to the full scans.

Every function takes plain arrays; the caller (:class:`coflowopt.rates.madd.MaddPolicy`) owns
the scratch buffers so that nothing of size F is allocated per event.

Backfilling modes (``mode``): 0 none, 1 ``varys``, 2 ``coflowsim``.

Instances on resources (flows over paths, CSR ``flow_resource_ptr``/``flow_resource``) use the
functions with the suffix ``_paths`` (end of the module): the same operations in the same order
with "the flow's two ports" read as "every resource of its path".  :func:`madd_simulate` picks
them with its ``general`` flag; the big-switch functions are the original ones, unchanged.
"""

from __future__ import annotations

import numpy as np

from ._fill_kernel import fill_scratch, take_at, take_filled, weighted_fill
from ._jit import njit
from ._pieces import close_pieces as _close
from ._greedy_kernel import _plist_index
from ._pieces import cut_window, put, spill
from ._sorted import insert_at, remove_at

BACKFILL_NONE = 0
BACKFILL_VARYS = 1
BACKFILL_COFLOWSIM = 2


def madd_scratch(num_flows: int, num_ports: int, num_groups: int):
    """The scratch arrays of :func:`_madd_allocate_indexed`, in its argument order:
    ``buf_f, buf_p, ibuf_p, buf_g, ibuf_g, fbuf, ibuf, done, adj, counter``.

    At least two rows each: an array of one row is C- as well as F-contiguous, numba types it
    as C, and the kernel was compiled a second time for an instance of one flow or one group
    (7-10 s; seen in the test suite's compile log, 2026-11-28)."""
    num_flows, num_ports, num_groups = max(2, num_flows), max(2, num_ports), max(2, num_groups)
    return ((np.zeros((num_flows, 2), order="F"), np.zeros((num_ports, 1), order="F"),
             np.zeros((num_ports, 2), dtype=np.int64, order="F"),
             np.zeros((num_groups, 2), order="F"),
             np.zeros((num_groups, 3), dtype=np.int64, order="F"))
            + fill_scratch(num_ports, num_groups))


def madd_simulate_scratch(num_flows: int, num_groups: int, adj_size: int, big_switch: bool):
    """The scratch of :func:`madd_simulate` that an event touches only as far as it goes
    (``zs``): ``buf_f`` (F, 2), ``buf_g`` (G, 2), ``ibuf_g`` (G, 3), ``done`` (G),
    ``adj`` (``adj_size``), ``out_fl``, ``out_rt``, ``cur`` (F) and, on a big switch,
    ``cand_q``, ``cand_g`` (G).

    Why numpy's zeros and not the kernel's own: numpy takes zeroed memory from ``calloc``, whose
    pages are not resident until written, where a kernel's ``np.zeros`` writes every page.  The
    candidates, the flows with a rate and the running flows fill a prefix of these arrays, so
    on the Facebook trace (706,397 flows, as many groups) 85 MB of them shrank to what the
    largest events reach (issue 17, ``experiments/results/madd_varys_memory_profile.md``).
    Same values (zeros), same layouts (Fortran for the two-column buffers; at least two rows,
    see :func:`madd_scratch`), so the same bits.
    """
    F, G = max(2, num_flows), max(2, num_groups)
    cand = G if big_switch else 0
    return (np.zeros((F, 2), order="F"), np.zeros((G, 2), order="F"),
            np.zeros((G, 3), dtype=np.int64, order="F"), np.zeros(G, dtype=np.int64),
            np.zeros(max(2, adj_size), dtype=np.int64), np.zeros(F, dtype=np.int64),
            np.zeros(F), np.zeros(F, dtype=np.int64), np.zeros(cand, dtype=np.int64),
            np.zeros(cand, dtype=np.int64))


@njit(cache=True, borrowed=True)
def _coflow_loads(k, flow_ptr, src, dstu, rem, load, touched):
    """Add coflow ``k``'s remaining demand per port to ``load`` (all zero on entry); list the
    ports it touches in ``touched``; return their number.  The caller zeroes them again."""
    nt = 0
    for f in range(flow_ptr[k], flow_ptr[k + 1]):
        x = rem[f]
        if x <= 0.0:
            continue
        i = src[f]
        j = dstu[f]
        if load[i] == 0.0:
            touched[nt] = i
            nt += 1
        load[i] += x
        if load[j] == 0.0:
            touched[nt] = j
            nt += 1
        load[j] += x
    return nt


@njit(cache=True, borrowed=True)
def _position(k, ckey, rank, okey, order, n):
    """Position of coflow ``k`` (key ``ckey[k]``, tie ``rank[k]``) in an ``order`` of ``n``
    coflows sorted by (``okey``, rank), the keys parallel to the order: a binary search,
    so that no per-event array of every active coflow's position is needed."""
    x = ckey[k]
    r = rank[k]
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if okey[mid] < x or (okey[mid] == x and rank[order[mid]] < r):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _iterative_madd(order, tau, flow_ptr, src, dstu, rem, res, tol, rate, load, touched,
                    gamma_out, wit, owit, got, cmask, fullm):
    """Allocate MADD rates coflow by coflow on the residual capacity ``res`` (updated in place).

    ``gamma_out[q]`` receives the duration used for the ``q``-th coflow of ``order``: its
    Gamma on the residual (Eq. 4.1), ``tau[q]`` when that is finite (deadline mode), or ``inf``
    when a port it needs has no residual capacity (it then gets no rate here).  ``got``
    receives the positions ``q`` of the coflows given rates, in order; their number is
    returned.

    ``wit[k]`` (``-1``: none) is a *witness* port of coflow ``k``: one that carries a flow of
    ``k`` with data left.  When the witness has no residual capacity the coflow is blocked and
    is skipped without reading its flows.  Why: every coflow MADD serves saturates its
    bottleneck port, so after a few hundred coflows nearly every port is full and the tens of
    thousands of coflows behind them are blocked at every event; reading their flows made an
    event cost all active flows (a 50,000-coflow instance: quadratic, over ten minutes).  A
    blocked coflow's witness is the first full port found; it stays valid across events until
    a flow of ``k`` through it finishes (the caller then resets it to ``-1``).  The skip
    changes no arithmetic: a skipped coflow is blocked by the same test.

    ``owit[q]`` is ``wit[order[q]]``, kept by position (the caller keeps it with the order):
    the test then reads the positions in order and never touches a skipped coflow's own
    entries, which at 50,000 coflows (about 1e9 tests) cost more than the rest of an event.
    (Visiting only the coflows whose witness is on a port not yet full, gathered from
    per-port lists and placed by binary search, was tried: at 10,000 coflows twice as slow,
    most gathered coflows being skipped by the time their position came.)

    ``tau`` empty: every duration is NaN (Gamma on the residual); ``gamma_out`` empty: the
    durations are not recorded.  :func:`madd_simulate` passes both empty unless coflowsim's
    backfilling reads ``gamma_out``: the skip test then reads ``owit`` alone, not ``tau`` nor
    a write per skipped coflow (about 1e9 of each at 50,000 coflows under Varys).

    ``cmask`` (K x (W + 1) words, or no rows): each coflow's ports that carry a flow with data
    left, as bits, in words ``0..W-1``; word ``W`` nonzero: the row is stale (a flow of the
    coflow finished since it was written; the caller, :func:`madd_simulate`, only marks it).
    ``fullm`` (W words, scratch): the ports without residual capacity, kept here as they
    fill.  With it, a coflow whose witness is not full is tested for being blocked on its row
    (one cache line) instead of by reading its flows and summing its loads (most of such
    reads found the coflow blocked at another port: 672 of 849 per allocation under Varys at
    50,000 coflows, bench_scale_profiles.md); it is the same test (a port of a flow with data
    left is full), so the same coflows are served with the same arithmetic.  Its witness
    becomes the lowest full port of the row.  A stale row is not read: the coflow is read as
    without masks and its row rewritten from the ports its loads touched (rewriting it at
    every finished flow cost a pass over the coflow's flows per flow, quadratic in the
    Facebook trace's coflows of thousands of flows).
    """
    dur = tau.shape[0] > 0
    rec = gamma_out.shape[0] > 0
    msk = cmask.shape[0] > 0
    W = fullm.shape[0]
    one = np.uint64(1)
    if msk:
        for x in range(W):
            fullm[x] = 0
        for p in range(res.shape[0]):
            if res[p] <= tol[p]:
                fullm[p >> 6] |= one << np.uint64(p & 63)
    ngot = 0
    for q in range(order.shape[0]):
        w = owit[q]
        if w >= 0 and res[w] <= tol[w] and not (dur and np.isfinite(tau[q])):
            if rec:
                gamma_out[q] = np.inf
            continue
        k = order[q]
        if k < 0:
            continue   # a hole of the gapped order (madd_simulate, section "gapped order")
        if msk and cmask[k, W] == 0 and not (dur and np.isfinite(tau[q])):
            b = _mask_first(cmask, k, fullm)
            if b >= 0:
                wit[k] = b
                owit[q] = b
                if rec:
                    gamma_out[q] = np.inf
                continue
        nt = _coflow_loads(k, flow_ptr, src, dstu, rem, load, touched)
        if msk and cmask[k, W] != 0:
            for x in range(W + 1):
                cmask[k, x] = 0
            for t in range(nt):
                p = touched[t]
                cmask[k, p >> 6] |= one << np.uint64(p & 63)
        gamma = 0.0
        blocked = False
        for t in range(nt):
            p = touched[t]
            if res[p] <= tol[p]:
                if not blocked:
                    wit[k] = p
                    owit[q] = p
                blocked = True
            else:
                g = load[p] / res[p]
                if g > gamma:
                    gamma = g
        for t in range(nt):
            load[touched[t]] = 0.0
        if dur and np.isfinite(tau[q]):
            gamma = tau[q]
        elif blocked:
            if rec:
                gamma_out[q] = np.inf
            continue
        if rec:
            gamma_out[q] = gamma
        if nt == 0 or gamma <= 0.0:
            continue
        got[ngot] = q
        ngot += 1
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0:
                # mathematically rem / Gamma <= res at both ports (load / Gamma <= res);
                # take_at only absorbs the rounding of the running subtraction
                rate[f] += take_at(res, src[f], dstu[f], rem[f] / gamma)
        if msk:
            for t in range(nt):
                p = touched[t]
                if res[p] <= tol[p]:
                    fullm[p >> 6] |= one << np.uint64(p & 63)
    return ngot


@njit(cache=True, borrowed=True)
def _mask_first(cmask, k, fullm):
    """The lowest port in both coflow ``k``'s mask row and ``fullm``, or -1."""
    for x in range(fullm.shape[0]):
        m = cmask[k, x] & fullm[x]
        if m != 0:
            b = x * 64
            one = np.uint64(1)
            while (m & one) == 0:
                m >>= one
                b += 1
            return b
    return -1


@njit(cache=True, borrowed=True)
def _mask_rows(flow_ptr, src, dstu, rem, cmask):
    """Every coflow's row of ``cmask`` (:func:`_iterative_madd`): the ports of its flows with
    data left; none stale."""
    one = np.uint64(1)
    for k in range(cmask.shape[0]):
        for x in range(cmask.shape[1]):
            cmask[k, x] = 0
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0:
                i = src[f]
                j = dstu[f]
                cmask[k, i >> 6] |= one << np.uint64(i & 63)
                cmask[k, j >> 6] |= one << np.uint64(j & 63)


@njit(cache=True)
def _backfill_varys(order, grp_ptr, grp_lo, grp_hi, grp_src, grp_dst, gflows, rem, res, tol,
                    rate, g_w, g_lam, g_id, g_p1, g_p2, fbuf, ibuf, done, adj, counter,
                    cand_q, cand_g, ncand, got, ngot, ogr):
    """Pseudocode 1 line 16, coflow by coflow in ``order``: the leftover capacity goes to the
    coflow's flows in proportion to their remaining sizes (their MADD ratios) as far as both
    the ingress and the egress leftovers allow (weighted progressive filling: a pair group stops
    growing when one of its two ports is full).  A group is the coflow's flows of one
    (ingress, egress) pair, weighted by their total remaining size.

    ``ncand >= 0``: only the candidate groups ``cand_g[:ncand]`` (sorted by the position
    ``cand_q`` of their coflow in ``order``, then by index) are looked at: the groups with
    leftover at both ports when backfilling starts (:func:`_backfill_candidates`).  Leftover
    only shrinks during the pass, so every other group would be skipped by the same test, and
    the candidates are visited in the same order: the same bits.  ``ncand < 0``: every group
    of every coflow, their ranges read from ``ogr`` (``grp_ptr[order[q]]``,
    ``grp_ptr[order[q] + 1]`` by position) unless it is empty: by position, the pass reads
    them in order (through ``grp_ptr`` one coflow at a time, about 40 % of the pass's cache
    misses at 50,000 coflows).  The positions of backfilled coflows are appended to ``got``;
    returns the new count.  (One loop, no call per coflow: a call passing this many arrays costs
    about a microsecond of reference counting, more than most coflows' work.)"""
    use_cand = ncand >= 0
    nq = order.shape[0]
    qq = 0
    u = 0
    while True:
        if use_cand:
            if u >= ncand:
                break
            q = cand_q[u]
            a0 = u
            while u < ncand and cand_q[u] == q:
                u += 1
            a1 = u
        else:
            if qq >= nq:
                break
            q = qq
            qq += 1
            if ogr.shape[0] > 0:
                a0 = ogr[q, 0]
                a1 = ogr[q, 1]
            else:
                a0 = grp_ptr[order[q]]
                a1 = grp_ptr[order[q] + 1]
        ng = 0
        x = a0
        while x < a1:
            g = cand_g[x] if use_cand else x
            x += 1
            i = grp_src[g]
            if res[i] <= tol[i]:
                # a coflow's groups come sorted by ingress port: the rest of this port's
                # run fails the same test (res does not change before the filling below)
                while x < a1 and grp_src[cand_g[x] if use_cand else x] == i:
                    x += 1
                continue
            j = grp_dst[g]
            if res[j] <= tol[j]:
                continue
            ng = _add_group(g, i, j, ng, grp_lo, grp_hi, gflows, rem, g_id, g_w, g_p1, g_p2)
        if ng > 0 and _fill_groups(ng, g_id, g_w, g_p1, g_p2, g_lam, res, fbuf, ibuf, done,
                                   adj, counter, grp_lo, grp_hi, gflows, rem, rate):
            got[ngot] = q
            ngot += 1
    return ngot


@njit(cache=True, borrowed=True)
def _add_group(g, i, j, ng, grp_lo, grp_hi, gflows, rem, g_id, g_w, g_p1, g_p2):
    """List group ``g`` (ports ``i``, ``j``) as the ``ng``-th of a coflow's backfilling,
    weighted by its flows' remaining sizes, unless they sum to 0; returns the new count."""
    w = 0.0
    for c in range(grp_lo[g], grp_hi[g]):
        w += rem[gflows[c]]
    if w <= 0.0:
        return ng
    g_id[ng] = g
    g_w[ng] = w
    g_p1[ng] = i
    g_p2[ng] = j
    return ng + 1


@njit(cache=True, borrowed=True)
def _fill_groups(ng, g_id, g_w, g_p1, g_p2, g_lam, res, fbuf, ibuf, done, adj, counter,
                 grp_lo, grp_hi, gflows, rem, rate):
    """Backfill one coflow's ``ng`` groups (``g_id``, weights ``g_w``, ports ``g_p1``,
    ``g_p2``) on the leftover ``res``: the weighted filling, its amounts taken from ``res``,
    each group's amount added to its flows' ``rate`` in proportion to their remaining sizes.
    Returns whether any group got something."""
    weighted_fill(ng, g_w, g_p1, g_p2, res, g_lam, fbuf, ibuf, done, adj, counter)
    take_filled(ng, g_w, g_p1, g_p2, g_lam, res)   # g_lam now holds each group's amount
    any_ = False
    for t in range(ng):
        a = g_lam[t]
        if a <= 0.0:
            continue
        any_ = True
        g = g_id[t]
        for c in range(grp_lo[g], grp_hi[g]):
            f = gflows[c]
            if rem[f] > 0.0:
                rate[f] += a * (rem[f] / g_w[t])
    return any_


def pair_buckets(grp_src, grp_dst, m_in: int, num_ports: int):
    """The groups by (ingress, egress block) bucket for :func:`_backfill_candidates`:
    ``(bk_ptr, bk_end, bk_g, bfree)`` and ``nb``, ``stride``.  Bucket ``i * nb + (j - m_in)
    // stride`` holds the groups of ingress ``i`` and egress ``j`` in index order
    (``bk_g[bk_ptr[b]:bk_end[b]]``; ``bk_end`` shrinks as the kernel drops the groups of
    completed coflows); ``stride`` is 1 (one bucket per port pair) unless the pairs
    outnumber the groups many times; ``bfree`` is scratch (one entry per egress block)."""
    G = grp_src.shape[0]
    m_out = max(1, num_ports - m_in)
    stride = max(1, -(-(m_in * m_out) // (4 * G + 4096)))
    nb = -(-m_out // stride)
    bucket = grp_src * nb + (grp_dst - m_in) // stride
    bk_g = np.argsort(bucket, kind="stable").astype(np.int64)
    bk_ptr = np.zeros(m_in * nb + 1, dtype=np.int64)
    np.cumsum(np.bincount(bucket, minlength=m_in * nb), out=bk_ptr[1:])
    return (bk_ptr, bk_ptr[1:].copy(), bk_g, np.zeros(nb, dtype=np.int64)), nb, stride


@njit(cache=True)
def _backfill_candidates(res, tol, m_in, bk, nb, stride, grp_coflow, grp_dst, active_groups,
                         order, posq, unfinished, cand_q, cand_g, posq_kept, bk_k):
    """The groups of the coflows in the order with leftover at both ports, sorted by
    (position of the coflow in the order, group): found through the buckets ``bk`` of
    :func:`pair_buckets` whose ingress port and some egress port have leftover, when reading
    and sorting them costs less than the ``active_groups`` of a full pass.  Returns their number, or
    ``-1`` when the full pass is cheaper.

    ``posq`` (K) receives each coflow's position in ``order`` once the candidates are chosen
    (a pass over the order, which a full pass does without); an entry left from an earlier
    order is recognised by ``order[posq[k]] != k``, so nobody clears it.  ``posq_kept``: the
    caller keeps ``posq`` up to date itself (the gapped order's ``cpos``), no pass.  With
    ``unfinished`` not empty, the groups of completed coflows (``unfinished[k] == 0``) are
    dropped from the buckets as they are met, so that the buckets hold (nearly) only live
    groups.  Why buckets
    by port pair instead of the groups of every ingress port with leftover (the earlier
    lists, which kept every group of the instance): fewer groups read per event.  The
    candidates themselves are many (thousands per event at 25,000 coflows: every group of an
    active coflow at a pair with leftover at both ports), and sorting and serving them is
    the larger part of an event (``experiments/results/bench_scale_profiles.md``).

    ``bk_k`` (empty, or parallel to ``bk_g`` and compacted with it): each entry's coflow, so
    that the scan reads it in order instead of ``grp_coflow[g]`` at random.  With
    ``posq_kept`` a coflow with a position is in the order (the caller clears the position
    of every coflow that leaves it), so neither ``order[q]`` nor ``unfinished[k]`` is read
    for it; with one egress port per bucket (``stride`` 1) every group of a listed bucket
    has leftover at its egress port, so ``grp_dst`` is not read either (three random reads
    per candidate at 50,000 coflows, bench_scale_profiles.md)."""
    bk_ptr, bk_end, bk_g, bfree = bk[0], bk[1], bk[2], bk[3]
    P = res.shape[0]
    nf = 0     # the egress blocks with leftover, listed in bfree
    last = -1
    for j in range(m_in, P):
        if res[j] > tol[j] and (j - m_in) // stride != last:
            last = (j - m_in) // stride
            bfree[nf] = last
            nf += 1
    work = 0
    for i in range(m_in):
        if res[i] > tol[i]:
            work += nf
            for v in range(nf):
                work += bk_end[i * nb + bfree[v]] - bk_ptr[i * nb + bfree[v]]
    # the candidates found are sorted (c log c, c <= work) where the full pass reads the
    # groups already in order: comparing the reads alone chose the buckets on the FB trace with
    # every release at 0 (hundreds of thousands of candidates per event), which made SEBF+MADD
    # there take 34 s of CPU instead of 1.9 s
    if work * (1.0 + np.log2(work + 1.0)) >= active_groups:
        return -1
    # the positions, written only when the candidates are used (an O(order) pass; a full
    # pass needs none)
    if not posq_kept:
        for q in range(order.shape[0]):
            posq[order[q]] = q
    c = 0
    nq = order.shape[0]
    drop = unfinished.shape[0] > 0
    byk = bk_k.shape[0] > 0
    for i in range(m_in):
        if res[i] <= tol[i]:
            continue
        for v in range(nf):
            x = i * nb + bfree[v]
            w = bk_ptr[x]
            for e in range(bk_ptr[x], bk_end[x]):
                g = bk_g[e]
                k = bk_k[e] if byk else grp_coflow[g]
                q = posq[k]
                if posq_kept and q >= 0:
                    pass   # in the order, so not completed
                elif drop and unfinished[k] == 0:
                    continue   # completed: dropped for good
                if drop:
                    bk_g[w] = g
                    if byk:
                        bk_k[w] = k
                    w += 1
                if stride > 1:
                    j = grp_dst[g]
                    if res[j] <= tol[j]:
                        continue
                if q >= 0 and q < nq and (posq_kept or order[q] == k):
                    cand_q[c] = q
                    cand_g[c] = g
                    c += 1
            if drop:
                bk_end[x] = w
    if c > 1:
        # the keys (position, group) sorted in place and decoded: no permutation to gather
        G = grp_dst.shape[0]
        key = cand_q[:c] * G + cand_g[:c]
        key.sort()
        for u in range(c):
            q = key[u] // G
            cand_q[u] = q
            cand_g[u] = key[u] - q * G
    return c


@njit(cache=True)
def _backfill_coflowsim(order, gamma, flow_ptr, src, dstu, rem, res, tol, rate, n_at, share):
    """Sincronia ``assign_MADD_rates_to_flows`` work conservation: (1) every flow of a skipped
    coflow (Gamma = inf) whose two ports have leftover gets ``min(res_i / n_i, res_j / n_j)``
    with ``n`` the number of such flows at the port, computed before any is subtracted; (2) a
    greedy pass over every coflow in order, flows in listed order, adds
    ``min(res_i, res_j)``."""
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0 and res[src[f]] > tol[src[f]] and res[dstu[f]] > tol[dstu[f]]:
                n_at[src[f]] += 1
                n_at[dstu[f]] += 1
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            i = src[f]
            j = dstu[f]
            if rem[f] > 0.0 and res[i] > tol[i] and res[j] > tol[j]:
                a = res[i] / n_at[i]
                b = res[j] / n_at[j]
                share[f] = a if a < b else b
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            x = share[f]
            if x > 0.0:
                share[f] = 0.0
                if x <= min(tol[src[f]], tol[dstu[f]]):
                    continue
                rate[f] += x
                res[src[f]] -= x
                res[dstu[f]] -= x
            n_at[src[f]] = 0
            n_at[dstu[f]] = 0
    for p in range(res.shape[0]):
        if res[p] < 0.0:
            res[p] = 0.0
    for q in range(order.shape[0]):
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] <= 0.0:
                continue
            i = src[f]
            j = dstu[f]
            a = res[i] if res[i] < res[j] else res[j]
            if a > min(tol[i], tol[j]):
                rate[f] += take_at(res, i, j, a)


@njit(cache=True)
def _madd_allocate_indexed(order, tau, mode, flow_ptr, src, dstu, rem, cap, tol,
                           grp_ptr, grp_lo, grp_hi, grp_src, grp_dst, gflows, buf_f, buf_p,
                           ibuf_p, buf_g, ibuf_g, fbuf, ibuf, done, adj, counter, out_flows,
                           out_rates, gamma_out, res, wit, owit, got, posq, unfinished, m_in, bk,
                           nb, stride, grp_coflow, active_groups, cand_q, cand_g, ogr,
                           posq_kept, cmask, fullm, bk_k):
    """One allocation: iterative MADD over ``order`` then backfilling ``mode``, with the state
    kept across events (by :func:`madd_simulate`, and by the Python engine's ``MaddPolicy``): the
    witnesses ``wit`` of :func:`_iterative_madd` (``owit``: the same by position in
    ``order``), and (when ``bk[0]`` is not empty) the groups by port-pair bucket for
    :func:`_backfill_candidates` (``posq``: scratch of size K; ``unfinished``: empty, or each
    coflow's unfinished flows; ``active_groups``: the groups of the coflows in ``order``).
    ``ogr``: empty, or each position's group range (:func:`_backfill_varys`); ``posq_kept``:
    ``posq`` is each coflow's position, kept by the caller (:func:`_backfill_candidates`).
    ``order`` may hold holes (``-1``, witness ``-1``, empty group range: madd_simulate's
    gapped order), skipped by every pass; not with coflowsim's backfilling.  ``tau`` and
    ``gamma_out`` may be empty (:func:`_iterative_madd`; not with coflowsim's backfilling,
    which reads ``gamma_out``).  ``got`` is scratch of size ``2 len(order) + 1``.

    Writes the flows with a positive rate (grouped by coflow in ``order``, ascending inside a
    coflow) to ``out_flows``/``out_rates`` and returns their number; ``res`` ends as the
    leftover capacity of every port.  Scratch (see :func:`madd_scratch`) must be zero on entry
    where it accumulates (rates, loads, per-port counters) and is left so.

    Only the coflows that were given rates are read for the output (``got``), so an event
    costs the coflows MADD serves and the candidate groups, not every active flow.  With
    coflowsim's backfilling (which gives rates to any flow) every coflow is read.
    """
    rate = buf_f[:, 0]
    share = buf_f[:, 1]
    load = buf_p[:, 0]
    n_at = ibuf_p[:, 0]
    touched = ibuf_p[:, 1]
    for p in range(cap.shape[0]):
        res[p] = cap[p]
    ngot = _iterative_madd(order, tau, flow_ptr, src, dstu, rem, res, tol, rate, load, touched,
                           gamma_out, wit, owit, got, cmask, fullm)
    if mode == BACKFILL_VARYS:
        ncand = -1
        if bk[0].shape[0] > 0:
            ncand = _backfill_candidates(res, tol, m_in, bk, nb, stride, grp_coflow, grp_dst,
                                         active_groups, order, posq, unfinished, cand_q,
                                         cand_g, posq_kept, bk_k)
        ngot = _backfill_varys(order, grp_ptr, grp_lo, grp_hi, grp_src, grp_dst, gflows, rem,
                               res, tol, rate, buf_g[:, 0], buf_g[:, 1], ibuf_g[:, 0],
                               ibuf_g[:, 1], ibuf_g[:, 2], fbuf, ibuf, done, adj, counter,
                               cand_q, cand_g, ncand, got, ngot, ogr)
    elif mode == BACKFILL_COFLOWSIM:
        _backfill_coflowsim(order, gamma_out, flow_ptr, src, dstu, rem, res, tol, rate, n_at,
                            share)
        ngot = -1
    # the flows with a rate, coflows in order, flows ascending: read only the coflows in
    # ``got`` (every coflow after coflowsim's backfilling)
    if ngot < 0:
        ngot = order.shape[0]
        for q in range(ngot):
            got[q] = q
    elif ngot > 1:
        got[:ngot] = np.sort(got[:ngot])
    return _rates_out(got, ngot, order, flow_ptr, rate, out_flows, out_rates)


@njit(cache=True, borrowed=True)
def _rates_out(got, ngot, coflow, flow_ptr, rate, out_flows, out_rates):
    """Write the flows with a rate of the coflows ``coflow[got[u]]`` (``got[:ngot]``
    ascending, a repeat skipped), flows ascending, to ``out_flows``/``out_rates`` and reset
    their ``rate`` to 0; returns their number."""
    n = 0
    last = -1
    for u in range(ngot):
        q = got[u]
        if q == last:
            continue
        last = q
        k = coflow[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rate[f] > 0.0:
                out_flows[n] = f
                out_rates[n] = rate[f]
                n += 1
                rate[f] = 0.0
    return n


@njit(cache=True)
def remaining_gamma(order, flow_ptr, src, dstu, rem, cap, load, touched, out):
    """Gamma of each coflow of ``order`` on its remaining demand with Rem(.) = ``cap``
    (Eq. 4.1 in an otherwise empty fabric): the SEBF key."""
    for q in range(order.shape[0]):
        k = order[q]
        nt = _coflow_loads(k, flow_ptr, src, dstu, rem, load, touched)
        g = 0.0
        for t in range(nt):
            p = touched[t]
            v = load[p] / cap[p] if cap[p] > 0.0 else np.inf
            if v > g:
                g = v
            load[p] = 0.0
        out[q] = g


@njit(cache=True)
def _grow(out_f, out_s, out_e, out_v, n_out, need):
    """Double the piece buffers until ``need`` more pieces fit (used by other event loops;
    :func:`madd_simulate` writes to chunk lists instead, see :mod:`._pieces`)."""
    size = out_f.shape[0]
    while n_out + need > size:
        size *= 2
    if size == out_f.shape[0]:
        return out_f, out_s, out_e, out_v
    nf = np.zeros(size, dtype=np.int64)
    ns = np.zeros(size)
    ne = np.zeros(size)
    nv = np.zeros(size)
    nf[:n_out] = out_f[:n_out]
    ns[:n_out] = out_s[:n_out]
    ne[:n_out] = out_e[:n_out]
    nv[:n_out] = out_v[:n_out]
    return nf, ns, ne, nv


@njit(cache=True)
def _sebf_update(sorder, sk, sw, sgr, ns, torder, tk, tw, tgr, drop, gone, ngone, skey, dirty,
                 isact, dlist, nd, rank, wit, grp_ptr, flow_ptr, src, dstu, rem, cap, load,
                 touched, key, general, keyed):
    """Bring SEBF's order up to date: ``sorder[:ns]`` holds the active coflows sorted by
    (remaining Gamma, rank) as of the last call, ``sk``/``sw``/``sgr`` their keys, witnesses
    and group ranges (``grp_ptr[k]``, ``grp_ptr[k + 1]``; parallel arrays, so that the passes
    over the order read memory in order; a coflow merged in takes its ``wit``; ranks are
    read through ``rank`` on key ties only); ``dlist[:nd]`` lists the coflows
    flagged ``dirty`` since (arrived, or a flow ran, so their remaining demand changed).  The
    others keep their key bit for bit (it is a function of their remaining sizes alone), so
    the order is the kept ones (completed coflows dropped) merged with the dirty ones sorted
    anew: the same order as sorting every active coflow by (key, rank), without reading every
    active flow at every event.  The new order goes to ``torder``/``tk``/``tw``/``tgr`` (the
    caller swaps the two sets) in one pass.  The coflows that leave the order (the dirty ones
    and ``gone[:ngone]``, completed since the last call) are found by binary search
    (:func:`_position`) and marked by position in ``drop`` (all False on entry and on exit),
    so that the pass reads memory in order: testing every position's coflow for ``dirty`` or
    not ``isact`` (two random reads per active coflow per event), and compacting in place
    before merging from the back, made this 12.9 s of Varys' 66 s at 50,000 coflows.
    Returns the new ``ns`` and ``nd`` (0).

    ``keyed`` false (a static order): every key is 0, so the order is by rank alone and only
    arrivals are flagged; the same merge keeps it without an insertion per released coflow."""
    # the positions that leave, found under the keys they were placed with
    for u in range(nd + ngone):
        k = dlist[u] if u < nd else gone[u - nd]
        q = _position(k, skey, rank, sk, sorder, ns)
        if q < ns and sorder[q] == k:
            drop[q] = True
    nn = 0
    for u in range(nd):
        k = dlist[u]
        if isact[k]:
            dlist[nn] = k
            nn += 1
        else:
            dirty[k] = False   # completed: dropped all the same
    d = dlist[:nn].copy()
    d = d[np.argsort(rank[d], kind="mergesort")]
    if not keyed:
        key[:nn] = 0.0
    elif general:
        remaining_gamma_paths(d, flow_ptr, src, dstu, rem, cap, load, touched, key)
    else:
        remaining_gamma(d, flow_ptr, src, dstu, rem, cap, load, touched, key)
    for u in range(nn):
        skey[d[u]] = key[u]
    d = d[np.argsort(key[:nn], kind="mergesort")]
    # merge: kept ones of sorder[:ns] (not dropped), new ones d, by (key, rank)
    i = 0
    j = 0
    w = 0
    while True:
        while i < ns and drop[i]:
            drop[i] = False
            i += 1
        if j < nn:
            b = d[j]
            kb = skey[b]
            kept = i < ns and (sk[i] < kb or (sk[i] == kb and rank[sorder[i]] < rank[b]))
        elif i < ns:
            kept = True
        else:
            break
        if kept:
            torder[w] = sorder[i]
            tk[w] = sk[i]
            tw[w] = sw[i]
            tgr[w, 0] = sgr[i, 0]
            tgr[w, 1] = sgr[i, 1]
            i += 1
        else:
            torder[w] = b
            tk[w] = kb
            tw[w] = wit[b]
            tgr[w, 0] = grp_ptr[b]
            tgr[w, 1] = grp_ptr[b + 1]
            j += 1
        w += 1
    for u in range(nn):
        dirty[dlist[u]] = False
    return w, 0


# ================================================================== gapped order (Varys' SEBF)
# Why: under SEBF every coflow that ran gets a new key at the next allocation (~240 of ~23,400
# active per allocation at 50,000 coflows released together), and _sebf_update rewrote the
# whole order to merge them back in (~14 ns per active coflow per allocation, a quarter of the
# kernel: experiments/results/bench_scale_profiles.md).  Here the order lives in a *gapped*
# array (a library sort): slots ``[0, hi)`` of ``sorder`` hold the active coflows by (key,
# rank) with holes between them (``sorder`` -1, witness -1, empty group range), so that a
# re-keyed coflow leaves its slot (a hole) and is put at its new place by a binary search and
# a shift up to the nearest hole; the passes of an allocation read the slots in order and skip
# the holes (:func:`_iterative_madd`, :func:`_backfill_varys`), and each coflow's slot is kept
# (``cpos``) so that backfilling's candidates need no pass to find positions.  A hole keeps
# the key and rank of the coflow that left it, so that the keys of all slots stay sorted
# (non-strictly) and the binary search reads no other array.  The order of the coflows is the
# one the merge made (sorted by (key, rank), all distinct by rank), so the allocations are the
# same bits.  When holes run short near a place (a shift longer than GAP_SHIFT) or the slots
# outnumber twice the coflows, the order is re-spread (one hole after every two coflows); a
# batch of re-keyed coflows larger than a 1/GAP_BULK of the order (the first allocation, a
# burst of releases) is merged in with the order in one pass instead.

GAP_SHIFT = 64
GAP_BULK = 16


@njit(cache=True, borrowed=True)
def _gap_move(sorder, sk, sr, sw, sgr, cpos, a, b):
    """Copy slot ``a`` to slot ``b`` (``cpos`` follows a coflow)."""
    k = sorder[a]
    sorder[b] = k
    sk[b] = sk[a]
    sr[b] = sr[a]
    sw[b] = sw[a]
    sgr[b, 0] = sgr[a, 0]
    sgr[b, 1] = sgr[a, 1]
    if k >= 0:
        cpos[k] = b


@njit(cache=True, borrowed=True)
def _gap_hole(sorder, sw, sgr, s):
    """Make slot ``s`` a hole (its key and rank stay, for the binary search)."""
    sorder[s] = -1
    sw[s] = -1
    sgr[s, 0] = 0
    sgr[s, 1] = 0


@njit(cache=True, borrowed=True)
def _gap_compact(sorder, sk, sr, sw, sgr, cpos, hi):
    """Move the coflows of slots ``[0, hi)`` to the front, in order; returns their number."""
    n = 0
    for q in range(hi):
        if sorder[q] >= 0:
            if n != q:
                _gap_move(sorder, sk, sr, sw, sgr, cpos, q, n)
            n += 1
    return n


@njit(cache=True, borrowed=True)
def _gap_spread(sorder, sk, sr, sw, sgr, cpos, hi):
    """Compact the coflows of slots ``[0, hi)`` and spread them again with one hole after
    every two; returns the new ``hi``."""
    n = _gap_compact(sorder, sk, sr, sw, sgr, cpos, hi)
    return _gap_spread_front(sorder, sk, sr, sw, sgr, cpos, n)


@njit(cache=True, borrowed=True)
def _gap_spread_front(sorder, sk, sr, sw, sgr, cpos, n):
    """Spread the ``n`` coflows of slots ``[0, n)`` (no holes) to slots ``i + i // 2``, from
    the back (a slot is written after its coflow has moved on); returns the new ``hi``."""
    for i in range(n - 1, -1, -1):
        t = i + i // 2
        if t != i:
            _gap_move(sorder, sk, sr, sw, sgr, cpos, i, t)
        else:
            cpos[sorder[t]] = t
        if i % 2 == 1 and i < n - 1:
            _gap_hole(sorder, sw, sgr, t + 1)
            sk[t + 1] = sk[t]
            sr[t + 1] = sr[t]
    return (n - 1) + (n - 1) // 2 + 1 if n > 0 else 0


@njit(cache=True, borrowed=True)
def _gap_insert(k, x, r, sorder, sk, sr, sw, sgr, cpos, hi, wit, grp_ptr):
    """Put coflow ``k`` (key ``x``, rank ``r``) at its place in slots ``[0, hi)``: a hole
    next to the place, or a shift of the slots up to the nearest hole within ``GAP_SHIFT``.
    Returns the new ``hi``, or -1 when no hole is that near (the caller re-spreads)."""
    S = sorder.shape[0]
    lo = 0
    h2 = hi
    while lo < h2:
        mid = (lo + h2) >> 1
        if sk[mid] < x or (sk[mid] == x and sr[mid] < r):
            lo = mid + 1
        else:
            h2 = mid
    p = lo        # the first slot whose (key, rank) is not below (x, r)
    s = -1
    if p > 0 and sorder[p - 1] < 0:
        s = p - 1
    elif p < hi and sorder[p] < 0:
        s = p
    elif p == hi and hi < S:
        s = hi
        hi += 1
    else:
        for dist in range(1, GAP_SHIFT + 1):
            h = p - 1 - dist
            if h >= 0 and sorder[h] < 0:
                for q in range(h, p - 1):
                    _gap_move(sorder, sk, sr, sw, sgr, cpos, q + 1, q)
                s = p - 1
                break
            h = p + dist
            if h < S and (h == hi or (h < hi and sorder[h] < 0)):
                for q in range(h, p, -1):
                    _gap_move(sorder, sk, sr, sw, sgr, cpos, q - 1, q)
                if h == hi:
                    hi += 1
                s = p
                break
            if h > hi and p - 1 - dist < 0:
                break
        if s < 0:
            return -1
    sorder[s] = k
    sk[s] = x
    sr[s] = r
    sw[s] = wit[k]
    sgr[s, 0] = grp_ptr[k]
    sgr[s, 1] = grp_ptr[k + 1]
    cpos[k] = s
    return hi


@njit(cache=True)
def _gap_update(sorder, sk, sr, sw, sgr, cpos, hi, nlive, gone, ngone, skey, dirty, isact,
                dlist, nd, rank, wit, grp_ptr, flow_ptr, src, dstu, rem, cap, load, touched,
                key):
    """Bring the gapped SEBF order (section above) up to date: the coflows that completed
    (``gone[:ngone]``) and those flagged ``dirty`` (``dlist[:nd]``: arrived, or a flow ran)
    leave their slots; the dirty ones still active get their new key (remaining Gamma, as
    :func:`_sebf_update`) and are put at their place.  Returns the new ``hi`` and the number
    of coflows in the order."""
    for u in range(nd + ngone):
        k = dlist[u] if u < nd else gone[u - nd]
        s = cpos[k]
        if s >= 0:
            _gap_hole(sorder, sw, sgr, s)
            cpos[k] = -1
            nlive -= 1
    while hi > 0 and sorder[hi - 1] < 0:
        hi -= 1
    nn = 0
    for u in range(nd):
        k = dlist[u]
        dirty[k] = False
        if isact[k]:
            dlist[nn] = k
            nn += 1
    d = dlist[:nn].copy()
    d = d[np.argsort(rank[d], kind="mergesort")]
    remaining_gamma(d, flow_ptr, src, dstu, rem, cap, load, touched, key)
    for u in range(nn):
        skey[d[u]] = key[u]
    if nn * GAP_BULK > nlive:
        # many at once: merge them in from the back, one pass, then spread
        d = d[np.argsort(key[:nn], kind="mergesort")]
        i = _gap_compact(sorder, sk, sr, sw, sgr, cpos, hi) - 1
        j = nn - 1
        w = i + nn
        while j >= 0:
            b = d[j]
            kb = skey[b]
            if i >= 0 and (sk[i] > kb or (sk[i] == kb and sr[i] > rank[b])):
                _gap_move(sorder, sk, sr, sw, sgr, cpos, i, w)
                i -= 1
            else:
                sorder[w] = b
                sk[w] = kb
                sr[w] = rank[b]
                sw[w] = wit[b]
                sgr[w, 0] = grp_ptr[b]
                sgr[w, 1] = grp_ptr[b + 1]
                j -= 1
            w -= 1
        nlive += nn
        return _gap_spread_front(sorder, sk, sr, sw, sgr, cpos, nlive), nlive
    if hi > 2 * (nlive + nn) + 64:
        hi = _gap_spread(sorder, sk, sr, sw, sgr, cpos, hi)
    for u in range(nn):
        k = d[u]
        h = _gap_insert(k, key[u], rank[k], sorder, sk, sr, sw, sgr, cpos, hi, wit, grp_ptr)
        if h < 0:
            hi = _gap_spread(sorder, sk, sr, sw, sgr, cpos, hi)
            h = _gap_insert(k, key[u], rank[k], sorder, sk, sr, sw, sgr, cpos, hi, wit,
                            grp_ptr)
        hi = h
        nlive += 1
    return hi, nlive


@njit(cache=True, borrowed=True)
def window_sums(flow, amount, sent, seen, here):
    """Add each piece's ``amount`` to ``sent`` of its flow, in the pieces' order, and list in
    ``here`` (first appearance order) the flows not yet marked in ``seen``, marking them;
    return their number.  The caller reads ``sent[here]`` and then clears ``sent`` and ``seen``
    at ``here`` again, so that a window costs its pieces, not every flow of the instance.

    The sums are those of ``np.bincount(flow, weights=amount)`` bit for bit (both add in the
    pieces' order); :func:`coflowopt.rates.madd.run_madd_windows` settles its windows with
    them (two bincounts and a ``flatnonzero`` over all flows per window were a tenth of the
    whole SEBF + MADD process on the Facebook trace).

    Examples
    --------
    >>> sent, seen, here = np.zeros(4), np.zeros(4, dtype=bool), np.zeros(4, dtype=np.int64)
    >>> n = window_sums(np.array([3, 1, 3]), np.array([1.0, 2.0, 0.5]), sent, seen, here)
    >>> here[:n].tolist(), sent.tolist()
    ([3, 1], [0.0, 2.0, 0.0, 1.5])
    """
    nh = 0
    for i in range(flow.shape[0]):
        f = flow[i]
        if not seen[f]:
            seen[f] = True
            here[nh] = f
            nh += 1
        sent[f] += amount[i]
    return nh


# ================================================================== ordered lists (big switch)
# What lets madd_simulate's event cost the coflows it serves instead of every active coflow,
# for a static order (issue 17: SEBF + MADD was still superlinear at 50,000 coflows released
# together: every allocation re-merged the order, wrote each coflow's position,
# witness-tested every active coflow and gathered every candidate group of backfilling, about
# 1.1e9 order positions in 47,663 allocations).  The active coflows are kept in lists sorted
# by rank, so that the order is never materialised:
#
# * one list of ranks per witness port (:func:`_iterative_madd`'s ``wit``) and one (index
#   ``P``) for the coflows without a witness.  The allocation merges them in rank order through
#   a heap, and a port's list is left as soon as its head finds the port full: every later
#   coflow of that list is blocked there (the residual only shrinks during the pass), which is
#   the very test the full scan made one coflow at a time;
# * one list per (ingress, egress) pair of the groups of the active coflows, as keys
#   ``rank * G + group``.  Backfilling visits the heads of the pairs with leftover at both
#   ports in key order and moves on in a pair only while both its ports have leftover (the
#   candidates' test), so a pair costs one look once it closes, not one per group behind it.
#
# The coflows are read, filled and written out in the same order with the same arithmetic as
# by :func:`_madd_allocate_indexed`: the same bits (SHA-256 of the pieces compared).


@njit(cache=True)
def _wl_insert(wl, wn, p, r):
    """Insert rank ``r`` into witness list ``p`` at its place (the list grows by doubling)."""
    a = wl[p]
    n = wn[p]
    if n == a.shape[0]:
        b = np.zeros(2 * n, dtype=np.int64)
        b[:n] = a
        wl[p] = b
        a = b
    insert_at(a, _plist_index(a, 0, n, r), n, r)
    wn[p] = n + 1


@njit(cache=True)
def _wl_remove(wl, wn, p, r):
    """Remove rank ``r`` from witness list ``p``."""
    a = wl[p]
    n = wn[p]
    remove_at(a, _plist_index(a, 0, n, r), n)
    wn[p] = n - 1


@njit(cache=True, borrowed=True)
def _pairs_insert(k, r, grp_ptr, gpair, pl, pptr, plen):
    """Insert coflow ``k``'s groups (rank ``r``) into their pairs' lists of keys ``rank * G +
    group`` (capacity: every group of the instance at the pair, ``pptr``)."""
    G = gpair.shape[0]
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        x = gpair[g]
        lo = pptr[x]
        n = plen[x]
        v = r * G + g
        insert_at(pl, _plist_index(pl, lo, n, v), lo + n, v)
        plen[x] = n + 1


@njit(cache=True, borrowed=True)
def _pairs_remove(k, r, grp_ptr, gpair, pl, pptr, plen):
    """Remove coflow ``k``'s groups (rank ``r``) from their pairs' lists."""
    G = gpair.shape[0]
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        x = gpair[g]
        lo = pptr[x]
        n = plen[x]
        remove_at(pl, _plist_index(pl, lo, n, r * G + g), lo + n)
        plen[x] = n - 1


@njit(cache=True, borrowed=True)
def _heap_down(h, n, u):
    """Sift entry ``u`` of the min-heap ``h[:n]`` down."""
    v = h[u]
    while True:
        c = 2 * u + 1
        if c >= n:
            break
        if c + 1 < n and h[c + 1] < h[c]:
            c += 1
        if h[c] >= v:
            break
        h[u] = h[c]
        u = c
    h[u] = v


@njit(cache=True, borrowed=True)
def _heap_push(h, n, v):
    """Add ``v`` to the min-heap ``h[:n]``; returns ``n + 1``."""
    u = n
    while u > 0:
        par = (u - 1) >> 1
        if h[par] <= v:
            break
        h[u] = h[par]
        u = par
    h[u] = v
    return n + 1


@njit(cache=True)
def _lists_update(dlist, nd, dirty, isact, rank, byrank, where, wl, wn, pend, npend, pairs,
                  grp_ptr, gpair, pl, pptr, plen):
    """Bring the lists up to date before an allocation: the coflows arrived since
    (``dlist[:nd]``) go into their pairs' lists and, having no witness, are pending; the list
    of coflows without a witness drops those that left it (``where[k] != -1``) and merges in
    the pending ones (``where[k] == -3``: arrived, or their witness reset by a finished flow).
    ``where[k]``: the witness list holding coflow ``k`` (``>= 0``), ``-1`` the no-witness
    list, ``-3`` pending, ``-2`` none (not arrived, or completed).  Returns the number of
    pending coflows left (0)."""
    P = wn.shape[0] - 1
    for u in range(nd):
        k = dlist[u]
        dirty[k] = False
        if not isact[k]:
            continue
        if pairs:
            _pairs_insert(k, rank[k], grp_ptr, gpair, pl, pptr, plen)
        where[k] = -3
        pend[npend] = k
        npend += 1
    a = wl[P]
    m = 0
    for u in range(wn[P]):
        r = a[u]
        if where[byrank[r]] == -1:
            a[m] = r
            m += 1
    nq = 0
    for u in range(npend):
        k = pend[u]
        if where[k] == -3 and isact[k]:
            where[k] = -1
            pend[nq] = rank[k]
            nq += 1
    if nq > 0:
        q = np.sort(pend[:nq])
        if m + nq > a.shape[0]:
            b = np.zeros(max(2 * a.shape[0], m + nq), dtype=np.int64)
            b[:m] = a[:m]
            wl[P] = b
            a = b
        i = m - 1
        j = nq - 1
        w = m + nq - 1
        while j >= 0:
            if i >= 0 and a[i] > q[j]:
                a[w] = a[i]
                i -= 1
            else:
                a[w] = q[j]
                j -= 1
            w -= 1
    wn[P] = m + nq
    return 0


@njit(cache=True)
def _madd_lists(wl, wn, wc, rank, byrank, wit, where, flow_ptr, src, dstu, rem, res, tol, rate,
                load, touched, heap, fillr, got, chg_k, chg_from):
    """:func:`_iterative_madd` over the active coflows in rank order, visiting only those it
    would read: the witness lists merged through a heap of ``rank * (P + 1) + list``, a port's
    list left when its head is blocked there.  Writes the ranks of the served coflows to
    ``got`` in order and returns their number; the witnesses found are moved between the
    lists after the pass (the no-witness list, read whole, is compacted as it is read).

    A coflow found blocked first gets as witness, among its full ports, the one that filled
    at the smallest rank in this pass (``fillr``): ports fill in much the same order at every
    event, so it is the likeliest to be full before the coflow's turn at the next one (with
    the first full port found, as :func:`_iterative_madd` takes, 50,000 random coflows made
    22.8 M reads of which 12.5 M blocked; with this choice 19.1 M and 8.8 M).  Which full port
    is the witness changes no arithmetic, only whether a blocked coflow is read.  The blocked
    test reads the coflow's ports before its loads (a blocked coflow's loads are not needed)."""
    P = wn.shape[0] - 1
    S = P + 1
    big = np.int64(1) << 62
    for q in range(P):
        fillr[q] = -1 if res[q] <= tol[q] else big
    nh = 0
    for p in range(S):
        if wn[p] > 0:
            heap[nh] = wl[p][0] * S + p
            wc[p] = 0
            nh += 1
    for u in range(nh // 2 - 1, -1, -1):
        _heap_down(heap, nh, u)
    ngot = 0
    nchg = 0
    wp = 0
    lm1 = wl[P]
    while nh > 0:
        p = heap[0] % S
        if p < P and res[p] <= tol[p]:
            # the rest of the list is blocked at p too
            nh -= 1
            heap[0] = heap[nh]
            _heap_down(heap, nh, 0)
            continue
        r = heap[0] // S
        k = byrank[r]
        best = -1
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0:
                q = src[f]
                if res[q] <= tol[q] and (best < 0 or fillr[q] < fillr[best]):
                    best = q
                q = dstu[f]
                if res[q] <= tol[q] and (best < 0 or fillr[q] < fillr[best]):
                    best = q
        if best >= 0:
            wit[k] = best
            chg_k[nchg] = k
            chg_from[nchg] = p
            nchg += 1
        else:
            nt = _coflow_loads(k, flow_ptr, src, dstu, rem, load, touched)
            gamma = 0.0
            for t in range(nt):
                q = touched[t]
                g = load[q] / res[q]
                if g > gamma:
                    gamma = g
            for t in range(nt):
                load[touched[t]] = 0.0
            if nt > 0 and gamma > 0.0:
                got[ngot] = r
                ngot += 1
                for f in range(flow_ptr[k], flow_ptr[k + 1]):
                    if rem[f] > 0.0:
                        rate[f] += take_at(res, src[f], dstu[f], rem[f] / gamma)
                for t in range(nt):
                    q = touched[t]
                    if res[q] <= tol[q] and fillr[q] == big:
                        fillr[q] = r
        c = wc[p] + 1
        if p == P:
            if best < 0:
                lm1[wp] = r
                wp += 1
            a = lm1
        else:
            a = wl[p]
        if c < wn[p]:
            wc[p] = c
            heap[0] = a[c] * S + p
        else:
            nh -= 1
            heap[0] = heap[nh]
        _heap_down(heap, nh, 0)
    wn[P] = wp
    for u in range(nchg):
        k = chg_k[u]
        if chg_from[u] < P:
            _wl_remove(wl, wn, chg_from[u], rank[k])
        _wl_insert(wl, wn, wit[k], rank[k])
        where[k] = wit[k]
    return ngot


@njit(cache=True)
def _backfill_lists(m_in, res, tol, byrank, pl, pptr, plen, pcur, gpair, heads, heap, grp_lo,
                    grp_hi, grp_src, grp_dst, gflows, rem, rate, g_w, g_lam, g_id, g_p1, g_p2,
                    fbuf, ibuf, done, adj, counter, popx, got, ngot):
    """:func:`_backfill_varys` over the candidate groups in order, without gathering them:
    the heads (keys ``rank * G + group``) of the pairs with leftover at both ports, sorted,
    merged with a heap of the pairs moved on; a pair is left once a port of it is full.  A
    coflow's groups come off together, in group order, before its filling, as the candidates
    did.  Appends the ranks of the backfilled coflows to ``got`` (in order, after MADD's);
    returns the new count."""
    P = res.shape[0]
    m_out = P - m_in
    G = gpair.shape[0]
    nhd = 0
    for i in range(m_in):
        if res[i] <= tol[i]:
            continue
        for j in range(m_in, P):
            if res[j] <= tol[j]:
                continue
            x = i * m_out + (j - m_in)
            if plen[x] > 0:
                heads[nhd] = pl[pptr[x]]
                pcur[x] = 0
                nhd += 1
    heads[:nhd].sort()
    u = 0
    nh = 0
    while u < nhd or nh > 0:
        if nh == 0 or (u < nhd and heads[u] < heap[0]):
            r = heads[u] // G
        else:
            r = heap[0] // G
        ng = 0
        npop = 0
        while True:
            if nh > 0 and (u >= nhd or heap[0] < heads[u]):
                v = heap[0]
                if v // G != r:
                    break
                nh -= 1
                heap[0] = heap[nh]
                _heap_down(heap, nh, 0)
            elif u < nhd and heads[u] // G == r:
                v = heads[u]
                u += 1
            else:
                break
            g = v - r * G
            i = grp_src[g]
            j = grp_dst[g]
            if res[i] <= tol[i] or res[j] <= tol[j]:
                continue   # the pair is closed for the rest of the pass
            popx[npop] = gpair[g]
            npop += 1
            ng = _add_group(g, i, j, ng, grp_lo, grp_hi, gflows, rem, g_id, g_w, g_p1, g_p2)
        if ng > 0 and _fill_groups(ng, g_id, g_w, g_p1, g_p2, g_lam, res, fbuf, ibuf, done,
                                   adj, counter, grp_lo, grp_hi, gflows, rem, rate):
            got[ngot] = r
            ngot += 1
        for t in range(npop):
            x = popx[t]
            c = pcur[x] + 1
            if c < plen[x]:
                pcur[x] = c
                nh = _heap_push(heap, nh, pl[pptr[x] + c])
    return ngot


@njit(cache=True)
def _lists_allocate(mode, m_in, wl, wn, wc, rank, byrank, wit, where, flow_ptr, src, dstu, rem,
                    cap, tol, res, rate, load, touched, pl, pptr, plen, pcur, gpair, heads,
                    heap, fillr, grp_lo, grp_hi, grp_src, grp_dst, gflows, buf_g, ibuf_g, fbuf,
                    ibuf, done, adj, counter, popx, got, chg_k, chg_from, out_flows,
                    out_rates):
    """One allocation of :func:`_madd_allocate_indexed` (backfilling ``mode`` none or
    ``varys``, a static order) on the kept lists: the flows with a rate, coflows in order,
    flows ascending, in ``out_flows``/``out_rates``; returns their number."""
    for p in range(cap.shape[0]):
        res[p] = cap[p]
    ngot = _madd_lists(wl, wn, wc, rank, byrank, wit, where, flow_ptr, src, dstu, rem, res, tol,
                       rate, load, touched, heap, fillr, got, chg_k, chg_from)
    if mode == BACKFILL_VARYS:
        ngot = _backfill_lists(m_in, res, tol, byrank, pl, pptr, plen, pcur, gpair, heads,
                               heap, grp_lo, grp_hi, grp_src, grp_dst, gflows, rem, rate,
                               buf_g[:, 0], buf_g[:, 1], ibuf_g[:, 0], ibuf_g[:, 1],
                               ibuf_g[:, 2], fbuf, ibuf, done, adj, counter, popx, got, ngot)
    # MADD's ranks and backfilling's, each ascending: the coflows in order, once each
    if ngot > 1:
        got[:ngot].sort()
    return _rates_out(got, ngot, byrank, flow_ptr, rate, out_flows, out_rates)


ORDER_STATIC = 0
ORDER_SEBF = 1


# ================================================================== online Varys' clock
# varys-online (:mod:`coflowopt.policies.online_varys`) in :func:`madd_simulate`: T-intervals of
# Varys, delta-intervals for the starved union ``C*``.  The Python engine
# (``VarysOnlinePolicy`` in the generic simulator) is the reference; the kernel takes the
# same decisions on the same numbers: the attained service of a coflow is summed as numpy's
# ``add.reduceat`` sums it (the first flow, plus numpy's pairwise sum of the others), the
# union's Gamma as ``resource_loads``' bincounts sum it, so the starved sets and the rates are
# the same bits.


@njit(cache=True)
def _pairwise_sent(size, rem, lo, n):
    """``sum(size[lo:lo+n] - rem[lo:lo+n])`` in numpy's pairwise order (``pairwise_sum`` of
    numpy's float add reduction: sequential below 8 terms, 8 accumulators up to 128, halves
    cut at multiples of 8 above)."""
    if n < 8:
        r = 0.0
        for i in range(lo, lo + n):
            r += size[i] - rem[i]
        return r
    if n <= 128:
        r0 = size[lo] - rem[lo]
        r1 = size[lo + 1] - rem[lo + 1]
        r2 = size[lo + 2] - rem[lo + 2]
        r3 = size[lo + 3] - rem[lo + 3]
        r4 = size[lo + 4] - rem[lo + 4]
        r5 = size[lo + 5] - rem[lo + 5]
        r6 = size[lo + 6] - rem[lo + 6]
        r7 = size[lo + 7] - rem[lo + 7]
        i = 8
        while i < n - (n % 8):
            b = lo + i
            r0 += size[b] - rem[b]
            r1 += size[b + 1] - rem[b + 1]
            r2 += size[b + 2] - rem[b + 2]
            r3 += size[b + 3] - rem[b + 3]
            r4 += size[b + 4] - rem[b + 4]
            r5 += size[b + 5] - rem[b + 5]
            r6 += size[b + 6] - rem[b + 6]
            r7 += size[b + 7] - rem[b + 7]
            i += 8
        r = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            r += size[lo + i] - rem[lo + i]
            i += 1
        return r
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sent(size, rem, lo, n2) + _pairwise_sent(size, rem, lo + n2, n - n2)


@njit(cache=True, borrowed=True)
def _attained(k, flow_ptr, size, rem):
    """Data coflow ``k`` has sent, as ``np.add.reduceat(size - rem, flow_ptr[:-1])[k]``."""
    lo = flow_ptr[k]
    n = flow_ptr[k + 1] - lo
    a = size[lo] - rem[lo]
    if n > 1:
        a += _pairwise_sent(size, rem, lo + 1, n - 1)
    return a


@njit(cache=True)
def _log_grow(a, n, more):
    """``a`` with room for ``more`` entries from ``n`` (doubled until they fit)."""
    size = a.shape[0]
    while n + more > size:
        size = 2 * size + 8
    if size == a.shape[0]:
        return a
    b = np.zeros(size, dtype=a.dtype)
    b[:n] = a[:n]
    return b


@njit(cache=True)
def _online_T_start(t, online_T, t_starts, nts, snap, flow_ptr, size, rem):
    """A T-interval starts at ``t`` (``VarysOnlinePolicy._start_T``): logged, and every
    coflow's attained service kept in ``snap``; returns the log, its length and the end."""
    t_starts = _log_grow(t_starts, nts, 1)
    t_starts[nts] = t
    F = size.shape[0]
    for k in range(snap.shape[0]):
        if flow_ptr[k + 1] > flow_ptr[k]:
            snap[k] = _attained(k, flow_ptr, size, rem)
        elif flow_ptr[k] < F:   # reduceat's value for an empty segment
            snap[k] = size[flow_ptr[k]] - rem[flow_ptr[k]]
    return t_starts, nts + 1, t + online_T


@njit(cache=True)
def madd_simulate(order_mode, rank, mode, release, flow_ptr, src, dstu, size, cap, tol,
                  completion_rtol, grp_ptr, grp_lo, grp_hi, grp_src, grp_dst, gflows,
                  max_events, snap_rtol, lf, ls, le, lv, cf, cs, ce, cv, state, general,
                  m_in, bk, nb, stride, window, fc, zs, online_T, online_delta):
    """The whole MADD (``order_mode`` 0: static ``rank``) or Varys (1: SEBF on the remaining
    demand, ties by ``rank``) simulation, reallocating only at coflow releases and
    completions.

    ``online_delta > 0`` (Varys' SEBF on a big switch without coflowsim's backfilling, the
    gapped order; held or in sink mode, whose cuts change no rate) runs ``varys-online``
    instead: T-intervals of length
    ``online_T`` and delta-intervals of length ``online_delta`` with exactly the rules of
    :class:`coflowopt.policies.online_varys.VarysOnlinePolicy` (section "online Varys'
    clock"); the extra results are the T-interval starts, the delta-intervals' (start, end)
    pairs and their starved sets (CSR: pointers, coflows), empty otherwise.

    Same event semantics as :func:`coflowopt.simulate.simulate` with
    ``reschedule_on={"release", "coflow_completion"}``: rates stay constant between coflow
    events; a flow finishes on its own (its piece ends at its finish time); when no coflow can
    complete under the current rates and no release is pending, step to the next flow
    completion and reallocate.

    A piece ends only when its flow's rate changes or the flow finishes.  A recomputed rate
    within ``snap_rtol`` (relative) of the flow's current rate is the same rate: MADD gives a
    flow ``rem / Gamma`` (Varys Pseudocode 1), which stays the same between events when the
    coflow keeps its bottleneck but is recomputed from a different ``rem`` and ``Gamma``, so
    without the snap about 3.1e6 of the 1.3e7 pieces on the Facebook trace were rounding
    artefacts (consecutive pieces of one flow whose rates differ in the last bits).

    The pieces ``(flow, start, end, rate)`` go to the chunk lists ``lf, ls, le, lv`` through
    the write buffers ``cf, cs, ce, cv`` (:class:`coflowopt.rates._pieces.PieceChunks`;
    ``state[0]`` receives their number).  Returns coflow and flow completion times, the
    number of events and of allocations (negative events: stalled).

    ``general`` selects the allocation over paths (:func:`madd_allocate_paths`,
    :func:`remaining_gamma_paths`): ``src``/``dstu`` are then the flows' path CSR
    (``flow_resource_ptr``, ``flow_resource``) and ``grp_src``/``grp_dst`` the groups' path CSR.
    The event loop is the same; with ``general`` false every call is the big-switch one.
    ``bk``, ``nb``, ``stride`` are the groups by port-pair bucket of :func:`pair_buckets`
    (``m_in`` ingress ports; empty ``bk[0]`` on resources).

    ``window`` 0 keeps every piece in the chunk lists.  ``window > 0`` is the *sink mode* of
    :func:`coflowopt.policies._flow_kernel.maxmin_simulate` (for schedules not to be held):
    once the write buffer holds ``window`` pieces after the allocation of an event at time
    ``t``, every open piece is closed at ``t`` and reopened there with the same rate (the
    rates as functions of time are unchanged, and so is the simulation) and the buffer goes
    to :data:`coflowopt.rates._pieces.SINK` with ``window_end = t``; the last window at the
    end.  Every piece handed over then lies in ``[previous window_end, t]``.  The buffers must
    hold ``window + 3 F`` pieces (between two checks an event closes at most two pieces per
    flow, at its allocation and when the flow finishes, and a cut one more), so they never
    spill.  ``fc`` (F, NaN on entry) receives the flow completion times as they happen, so
    that the sink can tell which flows finished in a window.  ``zs`` is the scratch of
    :func:`madd_simulate_scratch` (zeros, allocated by the caller).

    The active coflows are kept sorted in ``sorder`` for both orders (static: by rank, the
    released coflows merged in at the next allocation instead of inserted one by one, and
    completed ones dropped there instead of by a scan per completion; SEBF: by key, the
    coflows that ran merged back in, or on a big switch without coflowsim's backfilling
    moved to their place in the gapped order, section "gapped order", slots ``[0, hi)``),
    with their witnesses (``owit``, for
    :func:`_iterative_madd`) and group ranges (``sgr``, for :func:`_backfill_varys`) by
    position.  With a static order, backfilling none or ``varys`` and more
    coflows than port pairs, the ordered lists replace ``sorder`` (section "ordered lists":
    :func:`_lists_update`, :func:`_lists_allocate`), with the same bits.
    """
    K = release.shape[0]
    F = size.shape[0]
    P = cap.shape[0]
    G = grp_lo.shape[0]
    rem = size.copy()
    rate = np.zeros(F)
    newrate = np.zeros(F)
    pstart = np.zeros(F)
    fin = np.zeros(F)
    coflow_of = np.zeros(F, dtype=np.int64)
    for k in range(K):
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            coflow_of[f] = k
    unfinished = np.zeros(K, dtype=np.int64)
    for k in range(K):
        unfinished[k] = flow_ptr[k + 1] - flow_ptr[k]
    cc = np.full(K, np.nan)
    cmax = np.zeros(K)
    served = np.zeros(K, dtype=np.int64)
    last = np.zeros(K)

    buf_p = np.asfortranarray(np.zeros((P, 1)))
    ibuf_p = np.asfortranarray(np.zeros((P, 2), dtype=np.int64))
    fbuf = np.asfortranarray(np.zeros((P, 2)))
    ibuf = np.asfortranarray(np.zeros((P, 6), dtype=np.int64))
    counter = np.zeros(1, dtype=np.int64)
    gamma = np.zeros(K)
    res = np.zeros(P)
    key = np.zeros(K)
    load = np.zeros(P)
    touched = np.zeros(P, dtype=np.int64)

    # the scratch that an event uses only as far as it goes (zeros from the caller's numpy,
    # whose pages are not resident until written: madd_simulate_scratch)
    buf_f, buf_g, ibuf_g, done, adj, out_fl, out_rt, cur, cand_q, cand_g = zs
    ncur = 0
    nact = 0

    # big switch: what keeps an event from costing every active flow (_iterative_madd's
    # witnesses and their lists, _backfill_candidates' buckets, _madd_allocate_indexed's
    # output); the lists are off for coflowsim's backfilling, which reads every coflow
    wit = np.full(K, -1, dtype=np.int64)
    # each coflow's ports with data left, as bits (_iterative_madd's blocked test)
    cmask = np.zeros((0 if general else K, (P + 63) // 64 + 1), dtype=np.uint64)
    fullm = np.zeros((P + 63) // 64, dtype=np.uint64)
    _mask_rows(flow_ptr, src, dstu, size, cmask)
    got = np.zeros(2 * K + 1, dtype=np.int64)
    owit = np.full(2 * K + 8, -1, dtype=np.int64)   # wit by position in sorder
    posq = np.full(K, -1, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    grp_coflow = none
    bk_k = none
    active_groups = 0
    if not general:
        grp_coflow = np.zeros(G, dtype=np.int64)
        for k in range(K):
            for g in range(grp_ptr[k], grp_ptr[k + 1]):
                grp_coflow[g] = k
        if bk[2].shape[0] > 0:
            bk_k = grp_coflow[bk[2]]   # the buckets' coflows (_backfill_candidates)
    # the active coflows sorted by (remaining Gamma, rank) for SEBF, by (0, rank) for a static
    # order, kept between events; only the coflows whose flows ran (SEBF) or that arrived
    # since get a new key and are merged back in.  SEBF on a big switch without coflowsim's
    # backfilling: the gapped order (section "gapped order"; ``sr`` its ranks by slot,
    # ``cpos`` each coflow's slot), not rewritten at every allocation
    gapped = not general and order_mode == ORDER_SEBF and mode != BACKFILL_COFLOWSIM
    S = 2 * K + 8 if gapped else K
    sorder = np.zeros(S, dtype=np.int64)
    sk = np.zeros(S)
    sr = np.zeros(S if gapped else 0, dtype=np.int64)
    cpos = np.full(K if gapped else 0, -1, dtype=np.int64)
    hi = 0
    sgr = np.zeros((S, 2), dtype=np.int64)   # group ranges by position (_backfill_varys)
    # the next order is merged into these (_sebf_update), then the two sets swap
    torder = np.zeros(K, dtype=np.int64)
    tk = np.zeros(K)
    tw = np.full(K, -1, dtype=np.int64)
    tgr = np.zeros((K, 2), dtype=np.int64)
    drop = np.zeros(K, dtype=np.bool_)        # _sebf_update's marks by position
    gone = np.zeros(K, dtype=np.int64)         # coflows completed since the last allocation
    ngone = 0
    ns = 0
    no_tau = np.full(K, np.nan)
    skey = np.zeros(K)
    dirty = np.zeros(K, dtype=np.bool_)
    isact = np.zeros(K, dtype=np.bool_)
    dlist = np.zeros(K, dtype=np.int64)
    nd = 0

    # the ordered lists (section above): big switch, a static order, backfilling none or
    # varys, more coflows than port pairs and keys in int64; else the passes over the order
    # below.  Why the coflows against the pairs: backfilling on the lists costs the open pairs'
    # heads at every event, the passes the active coflows (and their groups): on the Facebook
    # trace (526 coflows of up to thousands of groups, 22,500 pairs) the lists made SEBF + MADD
    # 4.5 -> 8.7 s of CPU in-process (15,800 heads per event), at 10,000 random coflows they
    # tie, from 25,000 they pay (experiments/results/bench_scale_profiles.md)
    m_out = P - m_in
    use_lists = (not general and order_mode == ORDER_STATIC and mode != BACKFILL_COFLOWSIM
                 and K > m_in * m_out and K * (max(G, P) + 1) < 2 ** 62)
    pairs = use_lists and mode == BACKFILL_VARYS
    wl = [np.zeros(4, dtype=np.int64) for _ in range(P + 1 if use_lists else 0)]
    wn = np.zeros(P + 1, dtype=np.int64)
    wc = np.zeros(P + 1, dtype=np.int64)
    where = np.full(K, -2, dtype=np.int64)
    byrank = np.zeros(K if use_lists else 0, dtype=np.int64)
    if use_lists:
        byrank[rank] = np.arange(K)
    pend = np.zeros(K if use_lists else 0, dtype=np.int64)
    npend = 0
    npairs = m_in * m_out if pairs else 0
    gpair = np.zeros(G if pairs else 0, dtype=np.int64)
    pptr = np.zeros(npairs + 1, dtype=np.int64)
    plen = np.zeros(npairs, dtype=np.int64)
    pcur = np.zeros(npairs, dtype=np.int64)
    if pairs:
        for g in range(G):
            gpair[g] = grp_src[g] * m_out + (grp_dst[g] - m_in)
            pptr[gpair[g] + 1] += 1
        for x in range(npairs):
            pptr[x + 1] += pptr[x]
    pl = np.zeros(G if pairs else 0, dtype=np.int64)
    heads = np.zeros(npairs, dtype=np.int64)
    heap = np.zeros(max(P + 1, npairs) if use_lists else 0, dtype=np.int64)
    fillr = np.zeros(P if use_lists else 0, dtype=np.int64)
    popx = np.zeros(G if pairs else 0, dtype=np.int64)
    chg_k = np.zeros(K if use_lists else 0, dtype=np.int64)
    chg_from = np.zeros(K if use_lists else 0, dtype=np.int64)

    # varys-online's clock (section "online Varys' clock"): phase 0 a T-interval, 1 a
    # delta-interval serving the starved union C* (its coflows alive: dord[:m]); the timer is
    # the end of the current interval (none before the first allocation)
    online = online_delta > 0.0
    KO = K if online else 0
    phase = 0
    phase_end = np.inf
    first_call = online
    snap = np.zeros(KO)
    starved = np.zeros(KO, dtype=np.int64)
    nst = 0
    dord = np.zeros(KO, dtype=np.int64)
    dtau = np.zeros(KO)
    dowit = np.zeros(KO, dtype=np.int64)
    dposq = np.full(KO, -1, dtype=np.int64)
    no_ranges = np.zeros((0, 2), dtype=np.int64)
    t_starts = np.zeros(8)
    nts = 0
    d_ends = np.zeros(8)     # (start, end) of every delta-interval
    nds = 0
    s_ptr = np.zeros(8, dtype=np.int64)   # their starved sets (CSR)
    s_cof = np.zeros(8, dtype=np.int64)
    new_release = False      # the simulator's "release" event at t
    new_flow_end = False     # its "flow_completion": a flow finished in the step to t
    how = 0                  # online: 0 Varys' allocation, 1 C*'s, 2 the rates kept

    rel_order = np.argsort(release, kind="mergesort")
    rel_ptr = 0

    nc = 0          # position in the write buffers
    npieces = 0

    t = release[rel_order[0]]
    events = 0
    calls = 0
    n_done = 0
    realloc = True
    while True:
        # releases at t (merged into the order at the next allocation)
        while rel_ptr < K and release[rel_order[rel_ptr]] <= t:
            k = rel_order[rel_ptr]
            rel_ptr += 1
            new_release = True
            nact += 1
            active_groups += grp_ptr[k + 1] - grp_ptr[k]
            isact[k] = True
            if not dirty[k]:
                dirty[k] = True
                dlist[nd] = k
                nd += 1
            realloc = True
        if n_done == K:
            break
        events += 1
        if events > max_events:
            _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
            state[0] = npieces
            return (cc, fc, -events, calls, t_starts[:nts], d_ends[:2 * nds], s_ptr[:nds + 1],
                    s_cof[:s_ptr[nds]])

        how = 0
        mz = 0
        if realloc and online:
            # VarysOnlinePolicy._advance_clock, and which allocation follows
            if first_call:
                first_call = False
                t_starts, nts, phase_end = _online_T_start(t, online_T, t_starts, nts, snap,
                                                           flow_ptr, size, rem)
            elif phase == 1:
                for i in range(nst):
                    if unfinished[starved[i]] > 0:
                        dord[mz] = starved[i]
                        mz += 1
                if t >= phase_end or mz == 0:   # over, or nothing left to serve
                    d_ends[2 * nds - 1] = t
                    phase = 0
                    t_starts, nts, phase_end = _online_T_start(t, online_T, t_starts, nts,
                                                               snap, flow_ptr, size, rem)
                else:
                    how = 1
            elif t >= phase_end:
                # starved: active, released before the boundary, no growth of the attained
                # service during the T-interval
                nst = 0
                for k in range(K):
                    if isact[k] and release[k] < t and \
                            _attained(k, flow_ptr, size, rem) <= snap[k]:
                        starved[nst] = k
                        nst += 1
                if nst == 0:
                    t_starts, nts, phase_end = _online_T_start(t, online_T, t_starts, nts,
                                                               snap, flow_ptr, size, rem)
                    if not new_release and not new_flow_end:
                        how = 2   # a timer alone: the rates are kept
                else:
                    phase = 1
                    phase_end = t + online_delta
                    d_ends = _log_grow(d_ends, 2 * nds, 2)
                    d_ends[2 * nds] = t
                    d_ends[2 * nds + 1] = phase_end
                    s_ptr = _log_grow(s_ptr, nds + 1, 1)
                    s_cof = _log_grow(s_cof, s_ptr[nds], nst)
                    for i in range(nst):
                        s_cof[s_ptr[nds] + i] = starved[i]
                        dord[i] = starved[i]
                    s_ptr[nds + 1] = s_ptr[nds] + nst
                    nds += 1
                    mz = nst
                    how = 1
            new_release = False
            new_flow_end = False
        if how == 2:
            calls += 1
            realloc = False

        if realloc:
            calls += 1
            if how == 1:
                # C* is one coflow: its union's Gamma on the full capacities (durations():
                # resource_loads' bincounts, flows in order), every coflow of it given that
                # duration; backfilling to its flows only
                load_u = buf_p[:, 0]
                for q in range(mz):
                    k = dord[q]
                    for f in range(flow_ptr[k], flow_ptr[k + 1]):
                        load_u[src[f]] += rem[f]
                        load_u[dstu[f]] += rem[f]
                g_u = -np.inf
                for p in range(P):
                    v = load_u[p] / cap[p]
                    load_u[p] = 0.0
                    if v > g_u:
                        g_u = v
                agd = 0
                for q in range(mz):
                    k = dord[q]
                    dtau[q] = g_u
                    dowit[q] = wit[k]
                    agd += grp_ptr[k + 1] - grp_ptr[k]
                n = _madd_allocate_indexed(
                    dord[:mz], dtau[:mz], mode, flow_ptr, src, dstu, rem, cap, tol, grp_ptr,
                    grp_lo, grp_hi, grp_src, grp_dst, gflows, buf_f, buf_p, ibuf_p, buf_g,
                    ibuf_g, fbuf, ibuf, done, adj, counter, out_fl, out_rt, gamma[:0], res, wit,
                    dowit[:mz], got, dposq, none, m_in, bk, nb, stride, grp_coflow, agd, cand_q,
                    cand_g, no_ranges, False, cmask, fullm, bk_k)
                for q in range(mz):   # the gapped order's witnesses by slot follow wit
                    k = dord[q]
                    if cpos[k] >= 0:
                        owit[cpos[k]] = wit[k]
            elif use_lists:
                npend = _lists_update(dlist, nd, dirty, isact, rank, byrank, where, wl, wn,
                                      pend, npend, pairs, grp_ptr, gpair, pl, pptr, plen)
                nd = 0
                n = _lists_allocate(mode, m_in, wl, wn, wc, rank, byrank, wit, where, flow_ptr,
                                    src, dstu, rem, cap, tol, res, buf_f[:, 0], buf_p[:, 0],
                                    ibuf_p[:, 1], pl, pptr, plen, pcur, gpair, heads, heap,
                                    fillr, grp_lo, grp_hi, grp_src, grp_dst, gflows, buf_g,
                                    ibuf_g, fbuf, ibuf, done, adj, counter, popx, got, chg_k,
                                    chg_from, out_fl, out_rt)
            elif gapped:
                hi, ns = _gap_update(sorder, sk, sr, owit, sgr, cpos, hi, ns, gone, ngone, skey,
                                     dirty, isact, dlist, nd, rank, wit, grp_ptr, flow_ptr, src,
                                     dstu, rem, cap, load, touched, key)
                nd = 0
                ngone = 0
                n = _madd_allocate_indexed(
                    sorder[:hi], no_tau[:0], mode, flow_ptr, src, dstu, rem, cap, tol, grp_ptr,
                    grp_lo, grp_hi, grp_src, grp_dst, gflows, buf_f, buf_p, ibuf_p, buf_g,
                    ibuf_g, fbuf, ibuf, done, adj, counter, out_fl, out_rt, gamma[:0], res, wit,
                    owit[:hi], got, cpos, unfinished, m_in, bk, nb, stride, grp_coflow,
                    active_groups, cand_q, cand_g, sgr[:hi], True, cmask, fullm, bk_k)
            else:
                # SEBF: smallest remaining Gamma first, ties by the static rank
                ns, nd = _sebf_update(sorder, sk, owit, sgr, ns, torder, tk, tw, tgr, drop,
                                      gone, ngone, skey, dirty, isact, dlist, nd, rank, wit,
                                      grp_ptr, flow_ptr, src, dstu, rem, cap, load, touched, key,
                                      general, order_mode == ORDER_SEBF)
                ngone = 0
                sorder, torder = torder, sorder
                sk, tk = tk, sk
                owit, tw = tw, owit
                sgr, tgr = tgr, sgr
                order = sorder[:ns]
                tau = no_tau[:ns]
                # the durations are all NaN here and read back only by coflowsim's backfilling
                # (_iterative_madd: empty arrays skip them)
                tau0 = no_tau[:0]
                gam = gamma if mode == BACKFILL_COFLOWSIM else gamma[:0]
                if general:
                    n = madd_allocate_paths(order, tau, mode, flow_ptr, src, dstu, rem, cap,
                                            tol, grp_ptr, grp_lo, grp_hi, grp_src, grp_dst,
                                            gflows, buf_f, buf_p, ibuf_p, buf_g, ibuf_g, fbuf,
                                            ibuf, done, adj, counter, out_fl, out_rt, gamma,
                                            res)
                else:
                    n = _madd_allocate_indexed(
                        order, tau0, mode, flow_ptr, src, dstu, rem, cap, tol, grp_ptr, grp_lo,
                        grp_hi, grp_src, grp_dst, gflows, buf_f, buf_p, ibuf_p, buf_g, ibuf_g,
                        fbuf, ibuf, done, adj, counter, out_fl, out_rt, gam, res, wit, owit,
                        got, posq, unfinished, m_in, bk, nb, stride, grp_coflow, active_groups,
                        cand_q, cand_g, sgr, False, cmask, fullm, bk_k)
            for u in range(n):
                f = out_fl[u]
                r = out_rt[u]
                # the same rate up to rounding keeps the flow's piece open (docstring)
                if rate[f] > 0.0 and abs(r - rate[f]) <= snap_rtol * rate[f]:
                    r = rate[f]
                newrate[f] = r
            # a piece ends when its flow's rate changes
            for u in range(ncur):
                f = cur[u]
                if newrate[f] != rate[f]:
                    if nc == cf.shape[0]:
                        spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                        nc = 0
                    nc = put(cf, cs, ce, cv, nc, f, pstart[f], t, rate[f])
                    npieces += 1
                    rate[f] = 0.0
            for u in range(n):
                f = out_fl[u]
                if rate[f] != newrate[f]:
                    pstart[f] = t
                    rate[f] = newrate[f]
                newrate[f] = 0.0
                cur[u] = f
            ncur = n
            realloc = False

        # sink mode: cut a window at t once the buffer is full enough (docstring)
        if window > 0 and nc >= window:
            npieces += cut_window(cur, ncur, pstart, rate, t, cf, cs, ce, cv, nc)
            nc = 0

        # next event: a release, or a coflow whose every unfinished flow runs completes
        t_rel = release[rel_order[rel_ptr]] if rel_ptr < K else np.inf
        t_flow = np.inf
        for u in range(ncur):
            f = cur[u]
            fin[f] = t + rem[f] / rate[f]
            if fin[f] < t_flow:
                t_flow = fin[f]
            k = coflow_of[f]
            if served[k] == 0:
                last[k] = fin[f]
            elif fin[f] > last[k]:
                last[k] = fin[f]
            served[k] += 1
        # only a coflow with a running flow can complete (min over them: order-free)
        t_cof = np.inf
        for u in range(ncur):
            k = coflow_of[cur[u]]
            if served[k] == unfinished[k] and served[k] > 0 and last[k] < t_cof:
                t_cof = last[k]
        for u in range(ncur):
            served[coflow_of[cur[u]]] = 0
        t_next = t_cof if t_cof < t_rel else t_rel
        if phase_end < t_next:
            t_next = phase_end   # online: the end of the current interval
        if not np.isfinite(t_next):
            if np.isfinite(t_flow):
                t_next = t_flow
                realloc = True  # no coflow can complete: ask again at the flow completion
            else:
                _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
                state[0] = npieces
                return (cc, fc, -events, calls, t_starts[:nts], d_ends[:2 * nds],
                        s_ptr[:nds + 1], s_cof[:s_ptr[nds]])

        # advance every running flow to t_next
        m = 0
        for u in range(ncur):
            f = cur[u]
            k = coflow_of[f]
            if order_mode == ORDER_SEBF and not dirty[k]:
                # its remaining demand changes: a new SEBF key at the next allocation
                dirty[k] = True
                dlist[nd] = k
                nd += 1
            end = fin[f] if fin[f] < t_next else t_next
            rem[f] -= rate[f] * (end - t)
            if fin[f] <= t_next or rem[f] <= completion_rtol * size[f]:
                e = fin[f] if fin[f] <= t_next else t_next
                if nc == cf.shape[0]:
                    spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                    nc = 0
                nc = put(cf, cs, ce, cv, nc, f, pstart[f], e, rate[f])
                npieces += 1
                rem[f] = 0.0
                rate[f] = 0.0
                fc[f] = e
                new_flow_end = True
                if not general:
                    cmask[k, cmask.shape[1] - 1] = 1   # stale (_iterative_madd rewrites it)
                if not general and (wit[k] == src[f] or wit[k] == dstu[f]):
                    # the witness may no longer carry a flow of k
                    wit[k] = -1
                    if gapped:
                        if cpos[k] >= 0:
                            owit[cpos[k]] = -1
                    elif not use_lists:
                        owit[_position(k, skey, rank, sk, sorder, ns)] = -1
                    elif where[k] >= 0:
                        _wl_remove(wl, wn, where[k], rank[k])
                        where[k] = -3
                        pend[npend] = k
                        npend += 1
                if e > cmax[k]:
                    cmax[k] = e
                unfinished[k] -= 1
                if unfinished[k] == 0:
                    cc[k] = cmax[k]
                    n_done += 1
                    realloc = True
                    active_groups -= grp_ptr[k + 1] - grp_ptr[k]
                    isact[k] = False   # dropped from the order at the next allocation
                    nact -= 1
                    if not use_lists:
                        gone[ngone] = k
                        ngone += 1
                    if use_lists:
                        if where[k] >= 0:
                            _wl_remove(wl, wn, where[k], rank[k])
                        if pairs and where[k] != -2:
                            _pairs_remove(k, rank[k], grp_ptr, gpair, pl, pptr, plen)
                        where[k] = -2
            else:
                cur[m] = f
                m += 1
        ncur = m
        if t_next == phase_end:
            realloc = True   # online: an interval ends
        t = t_next
    _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    return (cc, fc, events, calls, t_starts[:nts], d_ends[:2 * nds], s_ptr[:nds + 1],
            s_cof[:s_ptr[nds]])



# ================================================================== general resources
# The same allocation on an instance whose flows run over paths of shared resources
# (``Instance.flow_resource_ptr`` / ``flow_resource``, CSR).  Each function below is the
# big-switch function of the same name without ``_paths``, with "the flow's two ports
# (ingress ``src[f]``, egress ``dstu[f]``)" replaced by "every resource on the flow's path"
# and the operations kept in the same order (a flow's resources in path order), so that a
# big switch written as paths [ingress, m_in + egress] gives the same bits (tested).  Gamma is
# Eq. (4.1) with the maximum taken over resources: ``max_p load_k(p) / Rem(p)``; a flow at
# ``rem / Gamma`` then fits every resource of its path because the coflow's load on each of
# them is at most ``Gamma * Rem(p)``.  The big-switch functions are kept untouched (their
# loops over two ports are what the Facebook-trace benchmarks time).


def madd_scratch_paths(num_flows: int, num_resources: int, num_groups: int,
                       group_path_entries: int):
    """The scratch arrays of :func:`madd_allocate_paths`, in its argument order:
    ``buf_f, buf_p, ibuf_p, buf_g, ibuf_g, fbuf, ibuf, done, adj, counter`` (``adj`` holds one
    entry per (group, resource) incidence; at least two rows each, as in :func:`madd_scratch`)."""
    num_flows, num_resources = max(2, num_flows), max(2, num_resources)
    num_groups = max(2, num_groups)
    fbuf, ibuf, done, _, counter = fill_scratch(num_resources, num_groups)
    return ((np.zeros((num_flows, 2), order="F"), np.zeros((num_resources, 1), order="F"),
             np.zeros((num_resources, 2), dtype=np.int64, order="F"),
             np.zeros((num_groups, 2), order="F"),
             np.zeros((num_groups, 3), dtype=np.int64, order="F"),
             fbuf, ibuf, done, np.zeros(max(2, group_path_entries), dtype=np.int64), counter))


@njit(cache=True, borrowed=True)
def _coflow_loads_paths(k, flow_ptr, rptr, rres, rem, load, touched):
    """:func:`_coflow_loads` over paths: coflow ``k``'s remaining demand per resource."""
    nt = 0
    for f in range(flow_ptr[k], flow_ptr[k + 1]):
        x = rem[f]
        if x <= 0.0:
            continue
        for e in range(rptr[f], rptr[f + 1]):
            p = rres[e]
            if load[p] == 0.0:
                touched[nt] = p
                nt += 1
            load[p] += x
    return nt


@njit(cache=True, borrowed=True)
def take_path(res, rptr, rres, f, a):
    """:func:`coflowopt.rates._fill_kernel.take_at` over the path ``f`` of the CSR
    ``rptr``/``rres``: take up to ``a`` from every resource on it (clamped to what all of them
    have); return what was taken."""
    for e in range(rptr[f], rptr[f + 1]):
        if a > res[rres[e]]:
            a = res[rres[e]]
    if a <= 0.0:
        return 0.0
    for e in range(rptr[f], rptr[f + 1]):
        p = rres[e]
        res[p] -= a
        if res[p] < 0.0:
            res[p] = 0.0
    return a


@njit(cache=True, borrowed=True)
def _path_blocked(res, tol, rptr, rres, f):
    """True when some resource on path ``f`` has no residual (at most its tolerance)."""
    for e in range(rptr[f], rptr[f + 1]):
        p = rres[e]
        if res[p] <= tol[p]:
            return True
    return False


@njit(cache=True, borrowed=True)
def _path_min_tol(tol, rptr, rres, f):
    m = np.inf
    for e in range(rptr[f], rptr[f + 1]):
        if tol[rres[e]] < m:
            m = tol[rres[e]]
    return m


@njit(cache=True)
def _iterative_madd_paths(order, tau, flow_ptr, rptr, rres, rem, res, tol, rate, load,
                          touched, gamma_out):
    """:func:`_iterative_madd` over paths: Gamma = max over the resources the coflow uses of
    its remaining load there over the residual capacity (``inf`` when one has none)."""
    for q in range(order.shape[0]):
        k = order[q]
        nt = _coflow_loads_paths(k, flow_ptr, rptr, rres, rem, load, touched)
        gamma = 0.0
        blocked = False
        for t in range(nt):
            p = touched[t]
            if res[p] <= tol[p]:
                blocked = True
            else:
                g = load[p] / res[p]
                if g > gamma:
                    gamma = g
        for t in range(nt):
            load[touched[t]] = 0.0
        if np.isfinite(tau[q]):
            gamma = tau[q]
        elif blocked:
            gamma_out[q] = np.inf
            continue
        gamma_out[q] = gamma
        if nt == 0 or gamma <= 0.0:
            continue
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0:
                # rem / Gamma fits every resource of the path (load / Gamma <= res there);
                # take_path only absorbs the rounding of the running subtraction
                rate[f] += take_path(res, rptr, rres, f, rem[f] / gamma)


@njit(cache=True)
def weighted_fill_paths(n, w, item, rptr, rres, cap, lam_out, fbuf, ibuf, done, adj, counter):
    """:func:`coflowopt.rates._fill_kernel.weighted_fill` for items on paths: item ``t`` uses
    the resources of path ``item[t]`` of the CSR ``rptr``/``rres`` (distinct).  Same rounds
    (the resource that fills first at the common level freezes its items), same order of
    operations; ``adj`` needs one entry per (item, resource) incidence."""
    wsum = fbuf[:, 0]
    frozen = fbuf[:, 1]
    touched = ibuf[:, 0]
    deg = ibuf[:, 1]
    bstart = ibuf[:, 2]
    cursor = ibuf[:, 3]
    stamp = ibuf[:, 5]
    counter[0] += 1
    mark = counter[0]
    nt = 0
    for t in range(n):
        done[t] = 0
        lam_out[t] = 0.0
        for e in range(rptr[item[t]], rptr[item[t] + 1]):
            p = rres[e]
            if stamp[p] != mark:
                stamp[p] = mark
                touched[nt] = p
                nt += 1
                deg[p] = 0
                wsum[p] = 0.0
                frozen[p] = 0.0
            deg[p] += 1
            wsum[p] += w[t]
    pos = 0
    for u in range(nt):
        p = touched[u]
        bstart[p] = pos
        cursor[p] = pos
        pos += deg[p]
    for t in range(n):
        for e in range(rptr[item[t]], rptr[item[t] + 1]):
            p = rres[e]
            adj[cursor[p]] = t
            cursor[p] += 1
    live = nt
    while live > 0:
        best = -1
        lam = np.inf
        u = 0
        while u < live:
            p = touched[u]
            if deg[p] == 0:
                live -= 1
                touched[u] = touched[live]
                touched[live] = p
                continue
            x = (cap[p] - frozen[p]) / wsum[p]
            if x < lam:
                lam = x
                best = u
            u += 1
        if best < 0:
            break
        p = touched[best]
        if lam < 0.0:
            lam = 0.0
        for c in range(bstart[p], cursor[p]):
            t = adj[c]
            if done[t] != 0:
                continue
            done[t] = 1
            lam_out[t] = lam
            a = w[t] * lam
            for e in range(rptr[item[t]], rptr[item[t] + 1]):
                q = rres[e]
                wsum[q] -= w[t]
                frozen[q] += a
                deg[q] -= 1
        wsum[p] = 0.0
        deg[p] = 0


@njit(cache=True)
def _backfill_varys_paths(order, grp_ptr, grp_lo, grp_hi, grp_rptr, grp_rres, gflows, rem,
                          res, tol, rate, g_w, g_lam, g_id, fbuf, ibuf, done, adj, counter):
    """:func:`_backfill_varys` over paths: a group is the coflow's flows with one path, and
    the weighted progressive filling runs over every resource of the groups' paths."""
    for q in range(order.shape[0]):
        k = order[q]
        ng = 0
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            if _path_blocked(res, tol, grp_rptr, grp_rres, g):
                continue
            w = 0.0
            for c in range(grp_lo[g], grp_hi[g]):
                w += rem[gflows[c]]
            if w <= 0.0:
                continue
            g_id[ng] = g
            g_w[ng] = w
            ng += 1
        if ng == 0:
            continue
        weighted_fill_paths(ng, g_w, g_id, grp_rptr, grp_rres, res, g_lam, fbuf, ibuf, done,
                            adj, counter)
        for t in range(ng):   # the levels become amounts taken from res (take_filled)
            g_lam[t] = take_path(res, grp_rptr, grp_rres, g_id[t], g_w[t] * g_lam[t])
        for t in range(ng):
            a = g_lam[t]
            if a <= 0.0:
                continue
            g = g_id[t]
            for c in range(grp_lo[g], grp_hi[g]):
                f = gflows[c]
                if rem[f] > 0.0:
                    rate[f] += a * (rem[f] / g_w[t])


@njit(cache=True)
def _backfill_coflowsim_paths(order, gamma, flow_ptr, rptr, rres, rem, res, tol, rate, n_at,
                              share):
    """:func:`_backfill_coflowsim` over paths: (1) every flow of a skipped coflow whose
    resources all have leftover gets ``min_p res_p / n_p`` (``n_p`` such flows through p,
    counted before any is subtracted); (2) the greedy pass adds ``min_p res_p`` over the
    flow's path."""
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0 and not _path_blocked(res, tol, rptr, rres, f):
                for e in range(rptr[f], rptr[f + 1]):
                    n_at[rres[e]] += 1
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] > 0.0 and not _path_blocked(res, tol, rptr, rres, f):
                a = np.inf
                for e in range(rptr[f], rptr[f + 1]):
                    p = rres[e]
                    b = res[p] / n_at[p]
                    if b < a:
                        a = b
                share[f] = a
    for q in range(order.shape[0]):
        if np.isfinite(gamma[q]):
            continue
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            x = share[f]
            if x > 0.0:
                share[f] = 0.0
                if x <= _path_min_tol(tol, rptr, rres, f):
                    continue
                rate[f] += x
                for e in range(rptr[f], rptr[f + 1]):
                    res[rres[e]] -= x
            for e in range(rptr[f], rptr[f + 1]):
                n_at[rres[e]] = 0
    for p in range(res.shape[0]):
        if res[p] < 0.0:
            res[p] = 0.0
    for q in range(order.shape[0]):
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rem[f] <= 0.0:
                continue
            a = np.inf
            for e in range(rptr[f], rptr[f + 1]):
                if res[rres[e]] < a:
                    a = res[rres[e]]
            if a > _path_min_tol(tol, rptr, rres, f):
                rate[f] += take_path(res, rptr, rres, f, a)


@njit(cache=True)
def madd_allocate_paths(order, tau, mode, flow_ptr, rptr, rres, rem, cap, tol,
                        grp_ptr, grp_lo, grp_hi, grp_rptr, grp_rres, gflows, buf_f, buf_p,
                        ibuf_p, buf_g, ibuf_g, fbuf, ibuf, done, adj, counter, out_flows,
                        out_rates, gamma_out, res):
    """:func:`_madd_allocate_indexed` over paths, without kept state (scratch from
    :func:`madd_scratch_paths`)."""
    rate = buf_f[:, 0]
    share = buf_f[:, 1]
    load = buf_p[:, 0]
    n_at = ibuf_p[:, 0]
    touched = ibuf_p[:, 1]
    for p in range(cap.shape[0]):
        res[p] = cap[p]
    _iterative_madd_paths(order, tau, flow_ptr, rptr, rres, rem, res, tol, rate, load, touched,
                          gamma_out)
    if mode == BACKFILL_VARYS:
        _backfill_varys_paths(order, grp_ptr, grp_lo, grp_hi, grp_rptr, grp_rres, gflows, rem,
                              res, tol, rate, buf_g[:, 0], buf_g[:, 1], ibuf_g[:, 0], fbuf,
                              ibuf, done, adj, counter)
    elif mode == BACKFILL_COFLOWSIM:
        _backfill_coflowsim_paths(order, gamma_out, flow_ptr, rptr, rres, rem, res, tol, rate,
                                  n_at, share)
    n = 0
    for q in range(order.shape[0]):
        k = order[q]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            if rate[f] > 0.0:
                out_flows[n] = f
                out_rates[n] = rate[f]
                n += 1
                rate[f] = 0.0
    return n


@njit(cache=True)
def remaining_gamma_paths(order, flow_ptr, rptr, rres, rem, cap, load, touched, out):
    """:func:`remaining_gamma` over paths: each coflow's Gamma on its remaining demand with
    Rem(.) = ``cap`` (the SEBF key)."""
    for q in range(order.shape[0]):
        k = order[q]
        nt = _coflow_loads_paths(k, flow_ptr, rptr, rres, rem, load, touched)
        g = 0.0
        for t in range(nt):
            p = touched[t]
            v = load[p] / cap[p] if cap[p] > 0.0 else np.inf
            if v > g:
                g = v
            load[p] = 0.0
        out[q] = g
