"""Compiled event loop for the greedy order-preserving rate allocation (Sincronia Algorithm 2).

Why a kernel: greedy reallocates at every flow completion, and the Facebook trace has 706,397
flows.  Sincronia's C++ simulator rescans every flow at every event (quadratic, 2583 s on this
machine); a numpy rescan per event is still O(F) per event.  This kernel makes an event cost
O(port degree x length of the cascade it triggers):

* **Pair heads.**  Flows with the same (ingress, egress) pair are served in priority order: the
  greedy gives the highest-priority released flow of a pair ``min(residual_in, residual_out)``,
  which saturates one of the two ports, so every later flow of that pair gets 0.  Only the *head*
  of each pair matters.
* **Incremental greedy.**  The greedy allocation over heads in priority order changes after an
  event only at heads whose ports' residual capacity (at that head's position) changed.  We
  re-evaluate, in priority order, only heads on *dirty* ports: ports touched by a completion, a
  release, or by a head whose allocation changed.  This reproduces the from-scratch greedy
  exactly (up to the tolerance ``tol`` on equal allocations); the test-suite checks it against the
  pure-Python reference policy.

Times and rates are float64.  With uniform capacities every allocation is 0 or the capacity, so
the arithmetic is exact for integral sizes.
"""

from __future__ import annotations

import heapq

import numpy as np

from ._jit import njit  # lazy numba, compile announced (see _jit)
from ._sorted import insert_at, remove_at


@njit(cache=True)
def _plist_index(plist_rank, start, length, r):
    """Index (absolute) of the first entry with rank >= r in a sorted port list."""
    lo = start
    hi = start + length
    while lo < hi:
        mid = (lo + hi) // 2
        if plist_rank[mid] < r:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _plist_insert(plist_rank, plist_pair, port_ptr, plen, p, r, e):
    start = port_ptr[p]
    i = _plist_index(plist_rank, start, plen[p], r)
    end = start + plen[p]
    insert_at(plist_rank, i, end, r)
    insert_at(plist_pair, i, end, e)
    plen[p] += 1


@njit(cache=True)
def _plist_remove(plist_rank, plist_pair, port_ptr, plen, p, r):
    start = port_ptr[p]
    i = _plist_index(plist_rank, start, plen[p], r)
    end = start + plen[p]
    remove_at(plist_rank, i, end)
    remove_at(plist_pair, i, end)
    plen[p] -= 1


@njit(cache=True)
def _prefix_used(pos_rank, pos_pair, port_ptr, poslen, alloc, p, r):
    """Capacity used at port p by heads ranked before r.

    Only heads with a positive allocation contribute, and a port has few of them (one, with
    uniform capacities), so we sum over the port's short list of positive heads.
    """
    s = 0.0
    start = port_ptr[p]
    for q in range(start, start + poslen[p]):
        if pos_rank[q] < r:
            s += alloc[pos_pair[q]]
    return s


@njit(cache=True)
def _pos_add(pos_rank, pos_pair, port_ptr, poslen, p, r, e):
    q = port_ptr[p] + poslen[p]
    pos_rank[q] = r
    pos_pair[q] = e
    poslen[p] += 1


@njit(cache=True)
def _pos_remove(pos_rank, pos_pair, port_ptr, poslen, p, e):
    start = port_ptr[p]
    last = start + poslen[p] - 1
    for q in range(start, last + 1):
        if pos_pair[q] == e:
            pos_rank[q] = pos_rank[last]
            pos_pair[q] = pos_pair[last]
            poslen[p] -= 1
            return


# ---- the event loop over paths, for both models.  A "pair" is a distinct path (the CSR
# ``pair_rptr`` / ``pair_rres``; on a big switch the path [i, m_in + j] of an (ingress, egress)
# pair): greedy gives a path's first released unfinished flow the smallest residual over its
# resources, which saturates one of them, so the path's later flows get nothing and only each
# path's *head* matters.  Until 2026-11-26 the big switch had its own kernel with sorted head
# lists per port (the lists above, still used by the online Sincronia policy); this one gives
# the same bits (tests/test_resources_orderings_greedy.py) without paying a port's list length
# at every insert and removal.


#: de Bruijn table: the index of the lowest set bit of a 64-bit word (no ctz in numba)
_DB_MUL = np.uint64(0x03F79D71B4CB0A89)
_DB_TABLE = np.zeros(64, dtype=np.int64)
for _k in range(64):
    _DB_TABLE[((1 << _k) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _k
del _k
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def bitset_levels(n):
    """Word offsets of a 64-ary bit tree over ``n`` bits: level 0 holds the bits, level
    ``l + 1`` one bit per non-zero word of level ``l``, up to a level of at most 64 words (4
    levels up to 2^30 bits)."""
    off = np.zeros(8, dtype=np.int64)
    words = max(1, (n + 63) // 64)
    k = 0
    while True:
        off[k + 1] = off[k] + words
        k += 1
        if words <= 64:
            break
        words = (words + 63) // 64
    return off[:k + 1].copy()


@njit(cache=True)
def _ctz(m):
    return _DB_TABLE[((m & (~m + _ONE)) * _DB_MUL) >> np.uint64(58)]


@njit(cache=True)
def _bits_set(bits, off, i, v):
    """Set bit ``i`` of the bit tree to ``v`` (0 or 1), keeping the summary levels in step."""
    nlev = off.shape[0] - 1
    j = i
    for lev in range(nlev):
        w = off[lev] + (j >> 6)
        bit = _ONE << np.uint64(j & 63)
        old = bits[w]
        if v:
            bits[w] = old | bit
            if old != 0:                       # the word was already non-zero above
                return
        else:
            bits[w] = old & ~bit
            if bits[w] != 0 or old == 0:       # still non-zero (or nothing changed)
                return
        j >>= 6


@njit(cache=True)
def _bits_next(bits, off, i):
    """The first set bit ``>= i``, or -1: a few word reads in a compact array (the levels of
    3.3 million slots take 420 kB), instead of a 22-level walk through a 64 MB count tree."""
    nlev = off.shape[0] - 1
    j = i
    lev = 0
    while lev < nlev:
        nwords = off[lev + 1] - off[lev]
        w = j >> 6
        if w >= nwords:
            return -1
        m = bits[off[lev] + w] & (_ALL << np.uint64(j & 63))
        if m != 0:
            b = w * 64 + _ctz(m)
            while lev > 0:                     # down to level 0, lowest set bit each time
                lev -= 1
                b = b * 64 + _ctz(bits[off[lev] + b])
            return b
        if lev == nlev - 1:                    # top level: scan its (at most 64) words
            for w2 in range(w + 1, nwords):
                m = bits[off[lev] + w2]
                if m != 0:
                    b = w2 * 64 + _ctz(m)
                    while lev > 0:
                        lev -= 1
                        b = b * 64 + _ctz(bits[off[lev] + b])
                    return b
            return -1
        j = w + 1
        lev += 1
    return -1


@njit(cache=True)
def _next_head(bits, off, slot_rank, slot_pair, res_end, s, p):
    """The next present head at resource ``p`` from slot ``s`` on: (rank, pair), or (-1, -1)."""
    q = _bits_next(bits, off, s)
    if q < 0 or q >= res_end[p]:
        return np.int64(-1), np.int64(-1)
    return slot_rank[q], slot_pair[q]


@njit(cache=True)
def _set_alloc_paths(alloc, e, r, new, pair_rptr, pair_rres, pos_rank, pos_pair, port_ptr,
                     poslen):
    """``alloc[e] = new`` for head ``r``, keeping the lists of positive heads of every resource
    of path ``e`` in step."""
    old = alloc[e]
    if old > 0.0 and new == 0.0:
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            _pos_remove(pos_rank, pos_pair, port_ptr, poslen, pair_rres[z], e)
    elif old == 0.0 and new > 0.0:
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            _pos_add(pos_rank, pos_pair, port_ptr, poslen, pair_rres[z], r, e)
    alloc[e] = new


@njit(cache=True)
def greedy_simulate_paths(rank_size, rank_release, rank_coflow, n_coflows, cap, pair_of_rank,
                          pair_rptr, pair_rres, pair_ptr, pair_ranks, port_ptr, rank_off,
                          rank_slot, slot_rank, slot_pair, res_end, tol, completion_rtol):
    """Run the greedy order-preserving allocation to completion, over paths: pair ``e`` uses
    the resources ``pair_rres[pair_rptr[e]:pair_rptr[e + 1]]``; ``port_ptr`` indexes one list
    of positive heads per resource (length: the number of paths through it).

    All per-flow inputs are in priority order (``rank`` = position in the order).  Returns
    pieces in rank space ``(rank, start, end, rate)``, coflow completion times and the number
    of events.

    Why slots instead of sorted head lists per resource: ECMP gives almost
    every flow its own path (525,874 paths for the 706,397 flows of the Facebook trace on a
    k=16 fat-tree, up to 4,104 through one core link), and inserting or removing a head in a
    sorted list costs its length.  Here every (flow, resource of its path) has a fixed *slot*:
    the flows crossing resource ``p`` own the slots ``res_end[p - 1]..res_end[p] - 1`` in
    priority order (``slot_rank``, ``slot_pair``), the slot of the ``i``-th resource of rank
    ``r``'s path is ``rank_slot[rank_off[r] + i]``, and a 64-ary bit tree over all slots
    marks the current heads: insert, remove and "next head after rank r at p" read a few
    words of a compact array.  The
    heads visited, and the order they are visited in, are those of the sorted lists.

    Why blocked heads leave the other resources' walks: when a resource frees capacity, the
    scan walks its heads in priority order until one takes it, and on a fat-tree almost every
    head of a core link waits at its own host link, so the walk visits thousands of heads that
    get 0 (13 million evaluations for the first 50 coflows of the trace).  A head evaluated
    to 0 with a resource ``q`` of its path already full at its rank (residual <= 0) is
    *blocked by q*: its slots at the other resources leave the bit tree (it stays at
    ``q``).  That is exact: its residual at ``q`` can only grow through a change at ``q`` at an
    earlier rank, which makes ``q`` dirty, and ``q``'s own walk then reaches it in priority
    order unless the freed capacity is taken before it (then its residual is unchanged, up to
    ``tol``).  Each evaluation of the head sets its block anew."""
    F = rank_size.shape[0]
    P = cap.shape[0]
    E = pair_rptr.shape[0] - 1

    rem = rank_size.copy()
    last_t = np.zeros(F)
    rate = np.zeros(F)
    pstart = np.zeros(F)
    version = np.zeros(F, dtype=np.int64)
    finished = np.zeros(F, dtype=np.bool_)

    pair_first = np.zeros(E, dtype=np.int64)
    for e in range(E):
        pair_first[e] = pair_ptr[e]
    pair_head = -np.ones(E, dtype=np.int64)
    alloc = np.zeros(E)

    deg_total = port_ptr[P]
    n_slots = slot_rank.shape[0]
    boff = bitset_levels(n_slots)
    tree = np.zeros(boff[-1], dtype=np.uint64)
    blocked_by = -np.ones(E, dtype=np.int64)     # the resource a zero head waits at, or -1
    pos_rank = np.zeros(deg_total, dtype=np.int64)
    pos_pair = np.zeros(deg_total, dtype=np.int64)
    poslen = np.zeros(P, dtype=np.int64)

    coflow_left = np.zeros(n_coflows, dtype=np.int64)
    for r in range(F):
        coflow_left[rank_coflow[r]] += 1
    cct = np.full(n_coflows, np.nan)
    n_done = 0

    rel_order = np.argsort(rank_release, kind="mergesort")  # ties keep priority order
    rel_ptr = 0

    cap_out = max(16, 2 * F)
    out_r = np.zeros(cap_out, dtype=np.int64)
    out_s = np.zeros(cap_out)
    out_e = np.zeros(cap_out)
    out_v = np.zeros(cap_out)
    n_out = 0

    dirty = np.zeros(P, dtype=np.bool_)
    used_new = np.zeros(P)
    extra = np.zeros(P)
    eval_stamp = -np.ones(E, dtype=np.int64)
    changed_stamp = -np.ones(E, dtype=np.int64)
    removed_alloc = np.zeros(F)

    fin_heap = [(0.0, np.int64(0), np.int64(0))]
    fin_heap.pop()

    t = rank_release[rel_order[0]]
    events = 0
    scan_id = 0
    while True:
        events += 1
        scan_id += 1
        scan_heap = [(np.int64(0), np.int64(0), np.int64(0))]
        scan_heap.pop()

        # 1. completions at t (and flows within tolerance of finishing at t)
        while len(fin_heap) > 0:
            ft, r, v = fin_heap[0]
            if v != version[r] or finished[r]:
                heapq.heappop(fin_heap)
                continue
            rem_now = rem[r] - rate[r] * (t - last_t[r])
            if ft <= t or rem_now <= completion_rtol * rank_size[r]:
                heapq.heappop(fin_heap)
                if n_out == out_r.shape[0]:
                    out_r = np.concatenate((out_r, np.zeros(n_out, dtype=np.int64)))
                    out_s = np.concatenate((out_s, np.zeros(n_out)))
                    out_e = np.concatenate((out_e, np.zeros(n_out)))
                    out_v = np.concatenate((out_v, np.zeros(n_out)))
                out_r[n_out] = r
                out_s[n_out] = pstart[r]
                out_e[n_out] = t
                out_v[n_out] = rate[r]
                n_out += 1
                finished[r] = True
                rem[r] = 0.0
                k = rank_coflow[r]
                coflow_left[k] -= 1
                if coflow_left[k] == 0:
                    cct[k] = t
                    n_done += 1
                e = pair_of_rank[r]
                a = alloc[e]
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    _bits_set(tree, boff, rank_slot[rank_off[r] + z - pair_rptr[e]], 0)
                blocked_by[e] = -1
                removed_alloc[r] = a
                if a > 0.0:
                    heapq.heappush(scan_heap, (r, np.int64(0), e))
                _set_alloc_paths(alloc, e, r, 0.0, pair_rptr, pair_rres, pos_rank, pos_pair,
                                 port_ptr, poslen)
                rate[r] = 0.0
                version[r] += 1
                while pair_first[e] < pair_ptr[e + 1] and finished[pair_ranks[pair_first[e]]]:
                    pair_first[e] += 1
                nh = -1
                q = pair_first[e]
                while q < pair_ptr[e + 1]:
                    rr = pair_ranks[q]
                    if (not finished[rr]) and rank_release[rr] <= t:
                        nh = rr
                        break
                    q += 1
                pair_head[e] = nh
                if nh >= 0:
                    for z in range(pair_rptr[e], pair_rptr[e + 1]):
                        _bits_set(tree, boff, rank_slot[rank_off[nh] + z - pair_rptr[e]], 1)
                    heapq.heappush(scan_heap, (nh, np.int64(1), e))
            else:
                break

        # 2. releases at t
        while rel_ptr < F and rank_release[rel_order[rel_ptr]] <= t:
            r = rel_order[rel_ptr]
            rel_ptr += 1
            e = pair_of_rank[r]
            h = pair_head[e]
            if h == -1 or r < h:
                if h != -1:
                    a = alloc[e]
                    if rate[h] > 0.0:
                        rem[h] -= rate[h] * (t - last_t[h])
                        last_t[h] = t
                        if n_out == out_r.shape[0]:
                            out_r = np.concatenate((out_r, np.zeros(n_out, dtype=np.int64)))
                            out_s = np.concatenate((out_s, np.zeros(n_out)))
                            out_e = np.concatenate((out_e, np.zeros(n_out)))
                            out_v = np.concatenate((out_v, np.zeros(n_out)))
                        out_r[n_out] = h
                        out_s[n_out] = pstart[h]
                        out_e[n_out] = t
                        out_v[n_out] = rate[h]
                        n_out += 1
                    rate[h] = 0.0
                    version[h] += 1
                    for z in range(pair_rptr[e], pair_rptr[e + 1]):
                        _bits_set(tree, boff, rank_slot[rank_off[h] + z - pair_rptr[e]], 0)
                    blocked_by[e] = -1
                    removed_alloc[h] = a
                    if a > 0.0:
                        heapq.heappush(scan_heap, (h, np.int64(0), e))
                    _set_alloc_paths(alloc, e, h, 0.0, pair_rptr, pair_rres, pos_rank,
                                     pos_pair, port_ptr, poslen)
                pair_head[e] = r
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    _bits_set(tree, boff, rank_slot[rank_off[r] + z - pair_rptr[e]], 1)
                heapq.heappush(scan_heap, (r, np.int64(1), e))

        # 3. incremental greedy over heads at dirty resources, in priority order
        touched_list = [np.int64(0)]
        touched_list.pop()
        changed_list = [np.int64(0)]
        changed_list.pop()
        while len(scan_heap) > 0:
            r, kind, e = heapq.heappop(scan_heap)
            if kind == 0:
                a = removed_alloc[r]
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    p = pair_rres[z]
                    if not dirty[p]:
                        dirty[p] = True
                        extra[p] = 0.0
                        touched_list.append(p)
                        used_new[p] = _prefix_used(pos_rank, pos_pair, port_ptr, poslen,
                                                   alloc, p, r)
                        nr, ne = _next_head(tree, boff, slot_rank, slot_pair, res_end,
                                            rank_slot[rank_off[r] + z - pair_rptr[e]], p)
                        if nr >= 0:
                            heapq.heappush(scan_heap, (nr, np.int64(2), ne))
                    extra[p] += a
                continue
            if pair_head[e] != r or eval_stamp[e] == scan_id:
                continue
            eval_stamp[e] = scan_id
            new = np.inf
            tij = np.inf
            full = -1
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                p = pair_rres[z]
                if dirty[p]:
                    rp = cap[p] - used_new[p]
                else:
                    rp = cap[p] - _prefix_used(pos_rank, pos_pair, port_ptr, poslen, alloc, p,
                                               r)
                if rp < new:
                    new = rp
                if rp <= 0.0 and full < 0:
                    full = p
                if tol[p] < tij:
                    tij = tol[p]
            # negligible relative to the smallest capacity on the path (tol is per resource)
            if new <= tij:
                new = 0.0
            old = alloc[e]
            if abs(new - old) <= tij:
                new = old
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                p = pair_rres[z]
                if dirty[p]:
                    used_new[p] += new
                    extra[p] += old - new
                    if abs(extra[p]) <= tol[p]:
                        dirty[p] = False
                    else:
                        nr, ne = _next_head(tree, boff, slot_rank, slot_pair, res_end,
                                            rank_slot[rank_off[r] + z - pair_rptr[e]] + 1, p)
                        if nr >= 0:
                            heapq.heappush(scan_heap, (nr, np.int64(2), ne))
                elif new != old:
                    dirty[p] = True
                    extra[p] = old - new
                    touched_list.append(p)
                    used_new[p] = _prefix_used(pos_rank, pos_pair, port_ptr, poslen,
                                               alloc, p, r) + new
                    nr, ne = _next_head(tree, boff, slot_rank, slot_pair, res_end,
                                        rank_slot[rank_off[r] + z - pair_rptr[e]] + 1, p)
                    if nr >= 0:
                        heapq.heappush(scan_heap, (nr, np.int64(2), ne))
            # the head's block after this evaluation: ``full`` if it stays at 0 with a full
            # resource, else none; only the slots whose flag differs are touched (a head
            # re-evaluated at the same blocker costs nothing)
            b = blocked_by[e]
            nb = full if (new == 0.0 and old == 0.0) else -1
            if nb != b:
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    p = pair_rres[z]
                    was = b < 0 or p == b
                    now = nb < 0 or p == nb
                    if was != now:
                        _bits_set(tree, boff, rank_slot[rank_off[r] + z - pair_rptr[e]],
                                 1 if now else 0)
                blocked_by[e] = nb
            if new != old:
                _set_alloc_paths(alloc, e, r, new, pair_rptr, pair_rres, pos_rank, pos_pair,
                                 port_ptr, poslen)
                if changed_stamp[e] != scan_id:
                    changed_stamp[e] = scan_id
                    changed_list.append(e)
        for p in touched_list:
            dirty[p] = False
            used_new[p] = 0.0
            extra[p] = 0.0

        # 4. apply the rate changes
        for e in changed_list:
            r = pair_head[e]
            if r < 0:
                continue
            a = alloc[e]
            old = rate[r]
            if a == old:
                continue
            if old > 0.0:
                rem[r] -= old * (t - last_t[r])
                if n_out == out_r.shape[0]:
                    out_r = np.concatenate((out_r, np.zeros(n_out, dtype=np.int64)))
                    out_s = np.concatenate((out_s, np.zeros(n_out)))
                    out_e = np.concatenate((out_e, np.zeros(n_out)))
                    out_v = np.concatenate((out_v, np.zeros(n_out)))
                out_r[n_out] = r
                out_s[n_out] = pstart[r]
                out_e[n_out] = t
                out_v[n_out] = old
                n_out += 1
            last_t[r] = t
            rate[r] = a
            version[r] += 1
            if a > 0.0:
                pstart[r] = t
                heapq.heappush(fin_heap, (t + rem[r] / a, r, version[r]))

        if n_done == n_coflows:
            break
        # 5. next event
        while len(fin_heap) > 0:
            ft, r, v = fin_heap[0]
            if v != version[r] or finished[r]:
                heapq.heappop(fin_heap)
            else:
                break
        t_fin = fin_heap[0][0] if len(fin_heap) > 0 else np.inf
        t_rel = rank_release[rel_order[rel_ptr]] if rel_ptr < F else np.inf
        t_next = t_fin if t_fin < t_rel else t_rel
        if not np.isfinite(t_next):
            return out_r[:n_out], out_s[:n_out], out_e[:n_out], out_v[:n_out], cct, -events
        t = t_next

    return out_r[:n_out], out_s[:n_out], out_e[:n_out], out_v[:n_out], cct, events
