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

import numpy as np

from ._jit import njit, on_load  # lazy numba, compile announced (see _jit)
from ._pieces import put, spill
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


#: de Bruijn table: the index of the lowest set bit of a 64-bit word, for the plain-Python
#: stand-in of :func:`_trailing_zeros` (compiled, the hardware instruction does it)
_DB_MUL = np.uint64(0x03F79D71B4CB0A89)
_DB_TABLE = np.zeros(64, dtype=np.int64)
for _k in range(64):
    _DB_TABLE[((1 << _k) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _k
del _k
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_LOW32 = np.int64(0xFFFFFFFF)

#: the fields of a pair's record in :func:`greedy_simulate_paths` (``_W`` int64 words, one
#: cache line): current head (rank or -1), the scan that last evaluated it, the resource it
#: is blocked at (or -1), its path entries ``_Z0:_Z1``, its allocation (float64 bits), a
#: hint (``_TIGHT``: for a positive head a resource where its allocation was the residual,
#: for a head at 0 the resource it was blocked at before its current block; checked before
#: use), and the allocation of the head that left at this event (float64 bits)
_HEAD, _STAMP, _BLOCK, _Z0, _Z1, _ALLOC, _TIGHT, _GONE = range(8)
#: the fields of a resource's record in :func:`greedy_simulate_paths` (``_RW`` words, one
#: cache line): capacity, tolerance, the capacity used by the heads scanned so far in this
#: scan and the change not yet absorbed (float64 bits; while the resource is dirty), whether
#: it is dirty, its number of positive heads, and where its positive-head list and its slots
#: start and end
_RCAP, _RTOL, _RUSED, _REXTRA, _RDIRTY, _RLEN, _RPTR, _REND = range(8)
_RW = 8
#: the fields of a rank's record in :func:`greedy_simulate_paths` (``_KW`` words, one cache
#: line): remaining size, rate, time of the last update, start of the running piece, size and
#: release (float64 bits), the flow and its coflow (``flow | coflow << 32``), and the rank's
#: first slot entry with the finished flag (``rank_off << 1 | finished``); flows and coflows
#: are numbered below 2^32 (arrays of that length do not fit in memory)
_KREM, _KRATE, _KLAST, _KPST, _KSIZE, _KREL, _KFC, _KOFF = range(8)
_KW = 8
#: the room of a resource's positive-head list in the compact region where it starts
_POS0 = 4
_W = 8


def prefetch(a, i):
    """Ask the CPU to bring ``a[i]`` into the cache (no effect on any value).  A no-op in
    plain Python; the ``llvm.prefetch`` intrinsic once numba loads (:func:`_bind_prefetch`)."""


def _bind_prefetch() -> None:
    global prefetch
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def _prefetch(typingctx, a, i):
        def codegen(context, builder, signature, args):
            aty, ity = signature.args
            ary = context.make_array(aty)(context, builder, args[0])
            idx = context.cast(builder, args[1], ity, types.intp)
            # no bounds check and no wrap-around: a prefetch of any address is harmless
            ptr = cgutils.get_item_pointer(context, builder, aty, ary, [idx], wraparound=False)
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                "llvm.prefetch.p0i8")
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, L1
            return context.get_dummy_value()
        return types.void(a, i), codegen

    prefetch = _prefetch


on_load(_bind_prefetch)


def _trailing_zeros(m):
    """The index of the lowest set bit of the non-zero 64-bit word ``m``: a de Bruijn
    multiplication in plain Python; numba's ``cttz`` intrinsic once numba loads
    (:func:`_bind_trailing_zeros`)."""
    return _DB_TABLE[((m & (~m + _ONE)) * _DB_MUL) >> np.uint64(58)]


def _bind_trailing_zeros() -> None:
    # why the instruction: the de Bruijn form costs a multiply and a dependent table load per
    # bit-tree level, and the walks of greedy_simulate_paths read 86 million levels on the
    # Facebook trace on a k=16 fat-tree
    global _trailing_zeros
    from numba.cpython.unsafe.numbers import trailing_zeros
    _trailing_zeros = trailing_zeros


on_load(_bind_trailing_zeros)


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
    return np.int64(_trailing_zeros(m))


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
def group_paths(rptr, rres, flows):
    """Number the distinct paths of ``flows`` in their order of first appearance.

    Flow ``f`` runs over ``rres[rptr[f]:rptr[f + 1]]``.  Returns ``(path_of_flow, first)``:
    ``path_of_flow[f]`` is the number of ``f``'s path (for the flows in ``flows``; others are
    -1), and ``first[i]`` the first flow (in ``flows``' order) on path ``i``.

    Why a hash table: the lexicographic sort it replaces (``np.lexsort`` over packed keys of
    the padded path matrix) took 0.4 s for the 706,397 flows of the Facebook trace on a k=16
    fat-tree; one pass with open addressing (each probe compares the resource sequences, so
    a hash collision costs a probe, never a wrong group) takes a few tens of milliseconds.

    Examples
    --------
    >>> import numpy as np
    >>> rptr, rres = np.array([0, 2, 4, 6]), np.array([0, 2, 1, 2, 0, 2])
    >>> pof, first = group_paths(rptr, rres, np.array([1, 0, 2]))
    >>> pof.tolist(), first.tolist()
    ([1, 0, 1], [1, 0])
    """
    F = rptr.shape[0] - 1
    n = flows.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    path_of_flow = np.full(F, -1, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    npaths = 0
    for i in range(n):
        f = flows[i]
        a = rptr[f]
        b = rptr[f + 1]
        h = np.uint64(b - a)
        for z in range(a, b):                   # a multiplicative mix of the sequence
            h = (h ^ np.uint64(rres[z])) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
        s = np.int64(h & np.uint64(mask))
        while True:
            q = table[s]
            if q < 0:
                table[s] = npaths
                first[npaths] = f
                path_of_flow[f] = npaths
                npaths += 1
                break
            g = first[q]
            same = rptr[g + 1] - rptr[g] == b - a
            if same:
                for z in range(b - a):
                    if rres[rptr[g] + z] != rres[a + z]:
                        same = False
                        break
            if same:
                path_of_flow[f] = q
                break
            s = (s + 1) & mask
    return path_of_flow, first[:npaths].copy()


@njit(cache=True)
def greedy_slots(pair_of_rank, pair_rptr, pair_rres, n_res):
    """The fixed slots of :func:`greedy_simulate_paths`, by counting (no sort).

    Returns ``(pair_ptr, pair_ranks, rank_off, rank_slot, slot_pair, res_end)``: the ranks of
    pair ``e`` in priority order are ``pair_ranks[pair_ptr[e]:pair_ptr[e + 1]]``; the ``i``-th
    resource of rank ``r``'s path is held at slot ``rank_slot[rank_off[r] + i]``; the slots of
    resource ``p`` are ``res_end[p - 1]..res_end[p] - 1``, in priority order, and
    ``slot_pair`` names each slot's pair.

    Why counting: the ranks are visited in increasing order, so handing each resource its next
    free slot gives the order of ``np.lexsort((rank, resource))`` over the (rank, resource)
    entries (a path that crosses a resource twice takes its slots there in path order, as the
    stable sort did); the sort of 10.4 million entries (the 5.2-million-flow Custom-4000
    instance) took 2-3 s and four temporary arrays of that length.

    Examples
    --------
    >>> import numpy as np
    >>> por = np.array([1, 0, 1])                      # ranks 0..2 on paths 1, 0, 1
    >>> rptr, rres = np.array([0, 2, 4]), np.array([0, 2, 1, 2])
    >>> pp, pr, off, slot, spair, end = greedy_slots(por, rptr, rres, 3)
    >>> pr.tolist(), end.tolist(), slot.tolist(), spair.tolist()
    ([1, 0, 2], [1, 3, 6], [1, 3, 0, 4, 2, 5], [0, 1, 1, 1, 0, 1])
    """
    F = pair_of_rank.shape[0]
    E = pair_rptr.shape[0] - 1
    pair_ptr = np.zeros(E + 1, dtype=np.int64)
    rank_off = np.zeros(F + 1, dtype=np.int64)
    res_count = np.zeros(n_res, dtype=np.int64)
    for r in range(F):
        e = pair_of_rank[r]
        pair_ptr[e + 1] += 1
        rank_off[r + 1] = rank_off[r] + pair_rptr[e + 1] - pair_rptr[e]
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            res_count[pair_rres[z]] += 1
    for e in range(E):
        pair_ptr[e + 1] += pair_ptr[e]
    pair_ranks = np.empty(F, dtype=np.int64)
    nxt = pair_ptr[:-1].copy()
    for r in range(F):
        e = pair_of_rank[r]
        pair_ranks[nxt[e]] = r
        nxt[e] += 1
    res_end = np.cumsum(res_count)
    free = res_end - res_count
    n = rank_off[F]
    rank_slot = np.empty(n, dtype=np.int64)
    slot_pair = np.empty(n, dtype=np.int64)
    for r in range(F):
        e = pair_of_rank[r]
        base = rank_off[r] - pair_rptr[e]
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            p = pair_rres[z]
            s = free[p]
            free[p] = s + 1
            rank_slot[base + z] = s
            slot_pair[s] = e
    return pair_ptr, pair_ranks, rank_off, rank_slot, slot_pair, res_end


@njit(cache=True)
def greedy_simulate_paths(rank_size, rank_release, rank_coflow, rank_flow, n_coflows, cap,
                          pair_of_rank, pair_rptr, pair_rres, pair_ptr, pair_ranks, port_ptr,
                          rank_off, rank_slot, slot_pair, res_end, tol, completion_rtol,
                          lf, ls, le, lv, cf, cs, ce, cv, state):
    """Run the greedy order-preserving allocation to completion, over paths: pair ``e`` uses
    the resources ``pair_rres[pair_rptr[e]:pair_rptr[e + 1]]``; ``port_ptr`` indexes one list
    of positive heads per resource (length: the number of paths through it).

    All per-flow inputs are in priority order (``rank`` = position in the order); rank ``r``
    is flow ``rank_flow[r]``.  The pieces ``(flow, start, end, rate)`` go to the chunk lists
    ``lf, ls, le, lv`` through the write buffers ``cf, cs, ce, cv``
    (:class:`coflowopt.rates._pieces.PieceChunks`; ``state[0]`` receives their number).
    Returns the coflow completion times and the number of events (negative if it stalled).

    Why slots instead of sorted head lists per resource: ECMP gives almost
    every flow its own path (525,874 paths for the 706,397 flows of the Facebook trace on a
    k=16 fat-tree, up to 4,104 through one core link), and inserting or removing a head in a
    sorted list costs its length.  Here every (flow, resource of its path) has a fixed *slot*
    (:func:`greedy_slots`): the flows crossing resource ``p`` own the slots
    ``res_end[p - 1]..res_end[p] - 1`` in priority order, the slot of the ``i``-th resource of
    rank ``r``'s path is ``rank_slot[rank_off[r] + i]``, and a 64-ary bit tree over all slots
    marks the current heads: insert, remove and "next head after rank r at p" read a few
    words of a compact array.  The heads visited, and the order they are visited in, are
    those of the sorted lists.

    Why the head's slots beside the path (``zr``): an evaluation walks on from its head's
    slots and may move them in or out of the tree; the slots of every pair's current head are
    kept in an array of one entry per (pair, resource) (22,500 x 2 on a 150-port big switch),
    interleaved with the path's resources, so that an evaluation (49 million of them on the
    5.2-million-flow Custom-4000 instance before 2026-11-27) does not read two entries of the
    10.4-million-entry ``rank_slot`` at random.

    Why records, ``sinfo`` and prefetches: the time is cache misses.  A walk step read the
    slot's pair and then that pair's head, and the evaluation then read the pair's path:
    three dependent misses, 28% of the ``perf`` samples on the trace on a k=16 fat-tree.
    Now a pair's scalars share one cache line (``rec``, fields ``_HEAD`` .. ``_GONE``), a
    slot holds its rank and (pair, start of the pair's path) in one 16-byte entry
    (``sinfo``; the rank is the head's, since only current heads' slots are in the tree),
    and a walk that finds a head prefetches its record and path, which the scan heap pops
    a little later.  A resource's scalars (capacity, tolerance, dirty flag and sums, the
    place and length of its positive-head list, its last slot) share one cache line too
    (``rsc``, fields ``_RCAP`` .. ``_REND``): an evaluation reads them at every resource of
    its path, and from eight arrays that was eight lines (2026-11-27: 0.94-0.95x the
    kernel's CPU in two of three paired sittings, the same pieces).  The positive-head
    lists hold each head's rank, allocation and pair together (``pos3``), so that
    :func:`prefix_used` reads one array and an allocation change one line per resource.
    Each list starts with room for ``_POS0`` entries in a compact region (590 kB for the
    6,144 links of a k=16 fat-tree) and moves to twice its room when it fills: a region of
    each resource's degree put the lists' first entries 70 MB apart, and
    :func:`prefix_used` at a clean resource was a cache miss (the line profile on that
    instance: 10% of the samples on its loop, 7% on the allocation changes' searches;
    2026-11-28, kernel alone, seven paired rounds at load ~3: 0.79-0.97x, median
    0.91x, the same pieces).

    Why most evaluations stop early (2026-11-27): on that instance 8.8 of the 14.8 million
    evaluations are of a zero head whose blocker freed while another resource of its path is
    still full, and (with the core oversubscribed 4:1) 26 million re-evaluate a positive
    head to the same rate, because a host link's spare capacity keeps its walk going over
    every head through it.  A zero head is decided by the first full resource on its path:
    it stays at 0 and that resource is its block, as the full evaluation finds, so the
    residuals after it are not computed; and its walk goes on only at the resources where it
    was in the tree (its blocker; all of them if it had none), because at any other dirty
    resource the walk's pending entry already names the next head there.  A positive head
    keeps its allocation ``a`` when no dirty resource's residual fell below ``a`` and some
    resource that is not dirty still has residual ``a`` (up to ``tol``; ``_TIGHT`` remembers
    one): the residuals at the other clean resources are what they were when ``a`` was
    computed (a change would have made them dirty and walked to the head), so they are not
    recomputed.  Both shortcuts give what the full evaluation gives (the same pieces, bit
    for bit, on the FB trace on a k=16 fat-tree at 1:1 and 4:1, with and without releases,
    and on a leaf-spine), up to ``tol`` where residuals drift by less than ``tol``.

    Why blocked heads leave the other resources' walks: when a resource frees capacity, the
    scan walks its heads in priority order until one takes it, and on a fat-tree almost every
    head of a core link waits at its own host link, so the walk visits thousands of heads that
    get 0 (13 million evaluations for the first 50 coflows of the trace).  A head evaluated
    to 0 with a resource ``q`` of its path already full at its rank (residual <= 0) is
    *blocked by q*: its slots at the other resources leave the bit tree (it stays at
    ``q``).  That is exact: its residual at ``q`` can only grow through a change at ``q`` at an
    earlier rank, which makes ``q`` dirty, and ``q``'s own walk then reaches it in priority
    order unless the freed capacity is taken before it (then its residual is unchanged, up to
    ``tol``).  Each evaluation of the head sets its block anew.

    Why a walk skips zero heads while its change is negative: a resource whose change so
    far is negative (capacity taken at earlier ranks, ``_REXTRA < 0``) lowers the residual
    of every later head there, so a head at 0 stays at 0 and keeps its block; only a
    positive head can change, and :func:`next_walk` goes to the next of those (from the
    resource's short positive-head list) instead of the next head in the tree.  The walk
    becomes ordinary again where the change turns positive: at an evaluation of a positive
    head (its update walks on from its own slot), or at a departure processed later in the
    same scan, which then restarts the walk from the departed head's slot when the change
    goes from at most ``tol`` to above it.  (A draft restarted it only from below 0, and
    two departures of 0.5 after a head took 0.5 went -0.5, 0, +0.5 without a restart:
    ``test_greedy_kernel_equals_reference_on_a_half_capacity_core``.)  On the Facebook trace
    on a k=16 fat-tree the tree searches fell from 39.9 to 23.3 million.

    Why a zero head first looks where it was blocked before: 8.5 million evaluations move a
    waiting head's block between its two host links (one frees, the other is full again),
    and the full evaluation computes the residual at every resource of the path up to the
    first full one.  A zero head keeps the resource it was blocked at before its current
    block in ``_TIGHT`` (for a positive head that field names a tight resource; both are
    hints, checked before use); when its block's walk reaches it and that resource is full
    at its rank, the head stays at 0 blocked there (any full resource is a valid block, by
    the argument above), and only its two slots and the walk at the old block are touched:
    3.75 million of the 8.5 million moves on that instance.

    Why the next head is looked up ahead: a walk step reads the slot's entry in ``sinfo``
    (16 bytes per slot, 66 MB on that instance), a cache miss that was 17% of the kernel's
    samples.  :func:`next_head` finds the head after the one it returns at once and
    prefetches its entry, so the line is on its way while the head it returned is
    evaluated; the walk's next call (from the returned head's slot + 1, within the same
    scan) takes the stored answer (``nx_*``).  It is exact: within a scan the tree changes
    only at the slots of the head being evaluated, and heads are evaluated in rank order,
    so the tree after a returned head's slot at its resource is the same when the walk
    gets there.

    A departure fetches, the same way, the slot of the next head after it at each resource
    of its path, where the walks it starts begin (about half the walk steps that find a
    head, 5.6 of 11.3 million, are first steps the look-ahead cannot serve).

    These five (2026-11-27, kernel alone on the trace on the k=16 fat-tree, all copies
    alternating in one process, load 1-3.8): 0.88x the kernel's CPU with the first two,
    0.83x with the look-ahead, 0.77x with the merged lists, then 0.94x that with the
    departures' prefetch; the same pieces, bit for bit,
    there and on the trace on the 4:1 fat-tree, on a 10x4 leaf-spine at 2:1 and 4:1 (with
    releases), and on the big switch with and without releases.

    Why the helpers are closures: a call of a compiled function with array arguments costs an
    atomic reference-count increment and decrement per array (numba's ``NRT_incref`` /
    ``NRT_decref``), and with the bit tree, the positive-head lists, the scan heap and the
    fin heap (numba's ``heapq`` over a list of tuples) passed to helpers at every
    evaluation, those atomics took 30% of the samples (``perf``, 800-coflow FB-UP
    instance).  numba inlines a closure into its caller and the arrays it reads stay the
    caller's, so the helpers below take only scalars.  The scan heap is a binary heap over
    two arrays (key ``rank * 4 + kind``; the pair travels with it), the fin heap an indexed
    heap of the running heads by pair (a flow's entry is replaced when its rate changes,
    where the list heap kept stale entries).  Both pop in the order of the tuple heaps they
    replace: the scan heap's pair is a function of its rank, and a pair has one running
    head.  The fin heap moves the entries it passes into a hole and writes the moved entry
    once (it swapped at every level).

    Why a record per rank and the fetches at the start of an event (2026-11-29): a rank's
    remaining size, rate, last update, piece start, size, release, flow, coflow, first slot
    entry and finished flag were ten arrays, so a departure read eight lines for the rank
    that left and, for the pair's next rank, pair list -> finished / release / first slot ->
    slots: dependent misses, one departure after another (the line profile on the Facebook
    trace, BSSI, releases at 0, big switch: 30% of the kernel's samples on the departures and
    the new heads' slots; 706,397 departures in 161,834 events).  Now they share one cache
    line (``rk``, fields ``_KREM`` .. ``_KOFF``), and each event first finds the fin heap's
    entries due at ``t`` (the top of the heap) and fetches, for all of them at once, the
    departing ranks' records, the pairs' next ranks, their records and their first slots;
    step 4 fetches the records of the ranks whose rate changes before it updates them.  On
    that trace the kernel alone took 0.75-0.85x the CPU (same pieces, SHA-256); with the
    trace's releases (602,696 events, 1.2 departures each) about 1.05-1.1x, the records'
    45 MB of fresh pages against 23 MB for the arrays
    (``experiments/results/greedy_fb_2026-11-30.md``)."""
    F = rank_size.shape[0]
    P = cap.shape[0]
    E = pair_rptr.shape[0] - 1

    # one record (cache line) per resource, fields _RCAP .. _REND (above)
    rsc = np.zeros(_RW * P, dtype=np.int64)
    rscf = rsc.view(np.float64)
    for p in range(P):
        rscf[p * _RW + _RCAP] = cap[p]
        rscf[p * _RW + _RTOL] = tol[p]
        rsc[p * _RW + _REND] = res_end[p]
    # one record (cache line) per rank, fields _KREM .. _KOFF (above)
    rk = np.empty(_KW * F, dtype=np.int64)
    rkf = rk.view(np.float64)
    for r in range(F):
        rkf[r * _KW + _KREM] = rank_size[r]
        rkf[r * _KW + _KRATE] = 0.0
        rkf[r * _KW + _KLAST] = 0.0
        rkf[r * _KW + _KPST] = 0.0
        rkf[r * _KW + _KSIZE] = rank_size[r]
        rkf[r * _KW + _KREL] = rank_release[r]
        rk[r * _KW + _KFC] = rank_flow[r] | (rank_coflow[r] << 32)
        rk[r * _KW + _KOFF] = rank_off[r] << 1

    pair_first = pair_ptr[:E].copy()
    # one cache line per pair (fields _HEAD .. _GONE, above); _GONE is the allocation a
    # pair's head had when it left at this event (at most one per pair and event: the head
    # that replaces it has 0 until the scan)
    rec = np.zeros(_W * E, dtype=np.int64)
    recf = rec.view(np.float64)
    for e in range(E):
        rec[e * _W + _HEAD] = -1
        rec[e * _W + _STAMP] = -1
        rec[e * _W + _BLOCK] = -1
        rec[e * _W + _Z0] = pair_rptr[e]
        rec[e * _W + _Z1] = pair_rptr[e + 1]
        rec[e * _W + _TIGHT] = -1
    # (resource, current head's slot) per path entry; int32 (slots < 2^31, as sinfo assumes):
    # an evaluation reads its pair's entries, and half the bytes are half the cache lines
    zr = np.zeros(2 * pair_rptr[E], dtype=np.int32)
    for z in range(pair_rptr[E]):
        zr[2 * z] = pair_rres[z]

    deg_total = port_ptr[P]
    n_slots = slot_pair.shape[0]
    boff = bitset_levels(n_slots)
    nlev = boff.shape[0] - 1
    tree = np.zeros(boff[-1], dtype=np.uint64)
    # per slot: its pair and the start of that pair's path entries (pair | z0 << 32; pairs
    # < 2^32 and path entries < 2^31, far beyond any memory), and its rank: a walk finds the
    # rank of the head it reaches in one read, and fetches the pair's record and path ahead
    # of the evaluation
    sinfo = np.empty(2 * n_slots, dtype=np.int64)
    for q in range(n_slots):
        e = slot_pair[q]
        sinfo[2 * q] = e | (pair_rptr[e] << 32)
    for r in range(F):
        for i in range(rank_off[r], rank_off[r + 1]):
            sinfo[2 * rank_slot[i] + 1] = r
    # (rank, allocation as float bits, pair) of each resource's positive heads: one array,
    # so that a list's entries share cache lines (a separate pair array was a second line per
    # resource at every allocation change)
    # Each list starts in a compact region of at most _POS0 entries per resource (a few
    # hundred kB: resident in the cache, where one region of its degree per resource spread
    # the lists' first entries over 70 MB on the Facebook trace on a k=16 fat-tree, a cache
    # miss at every prefix sum) and moves to twice its room, never more than the resource's
    # degree, further on in the same array when it fills (rare: with unit capacities and
    # integral sizes every allocation is 0 or 1, one positive head per resource)
    pos_room = np.empty(P, dtype=np.int64)
    top = 0
    for p in range(P):
        pos_room[p] = min(_POS0, port_ptr[p + 1] - port_ptr[p])
        rsc[p * _RW + _RPTR] = top
        top += pos_room[p]
    pos_top = np.full(1, top, dtype=np.int64)
    # the regions a list moves to total at most twice its degree (room doubles up to it);
    # empty, not zeros: an entry is read only after it is written, and the pages of rooms
    # never used are never touched (zeros wrote all 140 MB on the trace on a k=16 fat-tree)
    pos3 = np.empty(3 * (top + 2 * deg_total), dtype=np.int64)
    pos3f = pos3.view(np.float64)

    # scan heap: keys rank * 4 + kind (0 departed head, 1 new head, 2 walked-to head)
    sh_key = np.empty(2 * E + 2 * pair_rptr[E] + 16, dtype=np.int64)
    sh_pair = np.empty(sh_key.shape[0], dtype=np.int64)
    # fin heap: the running heads by (finish time, rank), indexed by pair
    fh_t = np.empty(E)
    fh_r = np.empty(E, dtype=np.int64)
    fh_pair = np.empty(E, dtype=np.int64)
    fh_at = -np.ones(E, dtype=np.int64)          # a pair's place in the fin heap, or -1

    # the next head after the last one a walk found at each resource, looked up at once so
    # that its slot's line is on its way when the walk gets there: valid within a scan (the
    # tree beyond a found head at its resource changes only at evaluations of later ranks)
    nx_scan = -np.ones(P, dtype=np.int64)
    nx_from = np.zeros(P, dtype=np.int64)
    nx_q = np.zeros(P, dtype=np.int64)

    def bits_set(i, v):
        """Set bit ``i`` of the bit tree to ``v``, keeping the summary levels in step."""
        j = i
        for lev in range(nlev):
            w = boff[lev] + (j >> 6)
            bit = _ONE << np.uint64(j & 63)
            old = tree[w]
            if v:
                tree[w] = old | bit
                if old != 0:
                    return
            else:
                tree[w] = old & ~bit
                if tree[w] != 0 or old == 0:
                    return
            j >>= 6

    def find_slot(s, end):
        """The first set bit of the tree in ``[s, end)``, or -1: :func:`_bits_next` written
        out (its tests cover both), except that the search stops as soon as it is past
        ``end``, a resource's last slot: 22.7 of the 39.9 million searches on the Facebook
        trace on a k=16 fat-tree found no head at their resource, and went on to the next
        set bit of any resource and down the levels to it."""
        if s >= end:
            return np.int64(-1)
        j = s
        lev = 0
        q = -1
        while lev < nlev:
            nwords = boff[lev + 1] - boff[lev]
            w = j >> 6
            if w >= nwords:
                break
            m = tree[boff[lev] + w] & (_ALL << np.uint64(j & 63))
            if m != 0:
                q = w * 64 + _ctz(m)
                break
            if lev == nlev - 1:
                for w2 in range(w + 1, nwords):
                    if (w2 << (6 * (lev + 1))) >= end:
                        break
                    m = tree[boff[lev] + w2]
                    if m != 0:
                        q = w2 * 64 + _ctz(m)
                        break
                break
            j = w + 1
            lev += 1
            # bit j of level lev stands for the slots from j * 64^lev on
            if (j << (6 * lev)) >= end:
                return np.int64(-1)
        if q < 0 or (q << (6 * lev)) >= end:
            return np.int64(-1)
        while lev > 0:
            lev -= 1
            q = q * 64 + _ctz(tree[boff[lev] + q])
        if q >= end:
            return np.int64(-1)
        return q

    def next_head(s, p, sid):
        """The first head at resource ``p`` from slot ``s`` on: (rank, pair), or (-1, -1).
        The head after it is looked up at once and its slot's line prefetched, for the walk's
        next step (``nx_*``; ``sid`` is the scan)."""
        end = rsc[p * _RW + _REND]
        if nx_scan[p] == sid and nx_from[p] == s:
            q = nx_q[p]
        else:
            q = find_slot(s, end)
        if q < 0:
            return np.int64(-1), np.int64(-1)
        w = sinfo[2 * q]
        e2 = w & _LOW32
        prefetch(rec, e2 * _W)
        prefetch(zr, 2 * (w >> 32))
        q2 = find_slot(q + 1, end)
        nx_scan[p] = sid
        nx_from[p] = q + 1
        nx_q[p] = q2
        if q2 >= 0:
            prefetch(sinfo, 2 * q2)
        return sinfo[2 * q + 1], e2

    def next_walk(s, p, r, sid):
        """The next head that a walk at dirty resource ``p`` must visit after rank ``r``
        (slot ``s`` on): while the change at ``p`` is negative (capacity taken at earlier
        ranks), only a positive head at ``p`` can change, so the next one of those."""
        if rscf[p * _RW + _REXTRA] < 0.0:
            best = np.int64(-1)
            be = np.int64(-1)
            st = rsc[p * _RW + _RPTR]
            for q in range(st, st + rsc[p * _RW + _RLEN]):
                rr = pos3[3 * q]
                if rr > r and (best < 0 or rr < best):
                    best = rr
                    be = pos3[3 * q + 2]
            if best >= 0:
                prefetch(rec, be * _W)
            return best, be
        return next_head(s, p, sid)

    def prefix_used(p, r):
        """Capacity used at ``p`` by heads ranked before ``r`` (a port's few positive heads)."""
        acc = 0.0
        st = rsc[p * _RW + _RPTR]
        for q in range(st, st + rsc[p * _RW + _RLEN]):
            if pos3[3 * q] < r:
                acc += pos3f[3 * q + 1]
        return acc

    def set_alloc(e, r, new):
        """Allocation ``new`` for pair ``e``'s head ``r``, keeping the positive-head lists
        (rank, allocation) in step."""
        old = recf[e * _W + _ALLOC]
        if old > 0.0 and new == 0.0:
            for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                p = zr[2 * z]
                st = rsc[p * _RW + _RPTR]
                last = st + rsc[p * _RW + _RLEN] - 1
                for q in range(st, last + 1):
                    if pos3[3 * q + 2] == e:
                        pos3[3 * q] = pos3[3 * last]
                        pos3[3 * q + 1] = pos3[3 * last + 1]
                        pos3[3 * q + 2] = pos3[3 * last + 2]
                        rsc[p * _RW + _RLEN] -= 1
                        break
        elif old == 0.0 and new > 0.0:
            for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                p = zr[2 * z]
                n = rsc[p * _RW + _RLEN]
                if n == pos_room[p]:     # full (so n < the degree): move to twice the room
                    st = rsc[p * _RW + _RPTR]
                    nst = pos_top[0]
                    for i in range(3 * n):
                        pos3[3 * nst + i] = pos3[3 * st + i]
                    pos_room[p] = min(2 * n, port_ptr[p + 1] - port_ptr[p])
                    pos_top[0] = nst + pos_room[p]
                    rsc[p * _RW + _RPTR] = nst
                q = rsc[p * _RW + _RPTR] + n
                pos3[3 * q] = r
                pos3f[3 * q + 1] = new
                pos3[3 * q + 2] = e
                rsc[p * _RW + _RLEN] += 1
        elif old > 0.0 and new > 0.0:
            for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                p = zr[2 * z]
                st = rsc[p * _RW + _RPTR]
                for q in range(st, st + rsc[p * _RW + _RLEN]):
                    if pos3[3 * q + 2] == e:
                        pos3f[3 * q + 1] = new
                        break
        recf[e * _W + _ALLOC] = new

    def install_head(e, h):
        """Rank ``h`` becomes the head of pair ``e``: its slots enter the tree."""
        base = (rk[h * _KW + _KOFF] >> 1) - rec[e * _W + _Z0]
        for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
            zr[2 * z + 1] = rank_slot[base + z]
            bits_set(zr[2 * z + 1], 1)

    def remove_head(e):
        """The head of pair ``e`` leaves the tree (at every resource, blocked or not)."""
        for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
            bits_set(zr[2 * z + 1], 0)

    def sh_push(n, key, e):
        pos = n
        while pos > 0:
            up = (pos - 1) >> 1
            if key < sh_key[up]:
                sh_key[pos] = sh_key[up]
                sh_pair[pos] = sh_pair[up]
                pos = up
            else:
                break
        sh_key[pos] = key
        sh_pair[pos] = e
        return n + 1

    def sh_pop(n):
        """Move the smallest entry of ``sh_key[:n]`` to index ``n - 1``; returns n - 1."""
        n -= 1
        top_k = sh_key[0]
        top_e = sh_pair[0]
        k = sh_key[n]
        e = sh_pair[n]
        pos = 0
        while True:
            c = 2 * pos + 1
            if c >= n:
                break
            if c + 1 < n and sh_key[c + 1] < sh_key[c]:
                c += 1
            if sh_key[c] < k:
                sh_key[pos] = sh_key[c]
                sh_pair[pos] = sh_pair[c]
                pos = c
            else:
                break
        sh_key[pos] = k
        sh_pair[pos] = e
        sh_key[n] = top_k
        sh_pair[n] = top_e
        return n

    def walk_on(nsh, p, s, r, sid):
        """After the head at slot ``s`` (rank ``r``) of dirty resource ``p``: if the change at
        ``p`` is absorbed (up to ``tol``), ``p`` is clean again; else its walk goes on to the
        next head it must visit.  Returns the scan heap's new size."""
        if abs(rscf[p * _RW + _REXTRA]) <= rscf[p * _RW + _RTOL]:
            rsc[p * _RW + _RDIRTY] = 0
            return nsh
        nr, ne = next_walk(s + 1, p, r, sid)
        if nr >= 0:
            nsh = sh_push(nsh, nr * 4 + 2, ne)
        return nsh

    # an indexed heap like policies/_flow_kernel.py's ``_hp_*``, ordered by (time, rank) as
    # the tuple heap it replaces was
    def fh_less(a, b):
        return fh_t[a] < fh_t[b] or (fh_t[a] == fh_t[b] and fh_r[a] < fh_r[b])

    def fh_move(a, b):
        """Entry ``b`` moves to index ``a`` (the hole)."""
        fh_t[a] = fh_t[b]
        fh_r[a] = fh_r[b]
        fh_pair[a] = fh_pair[b]
        fh_at[fh_pair[a]] = a

    def fh_place(i, n):
        """Restore the heap order around index ``i`` of ``fh[:n]`` (up, else down), moving
        the entries it passes into the hole and writing the entry once where it stops (the
        keys (time, rank) are distinct, so the pops are the same in any valid heap)."""
        t0 = fh_t[i]
        r0 = fh_r[i]
        e0 = fh_pair[i]
        i0 = i
        while i > 0:
            up = (i - 1) >> 1
            if t0 < fh_t[up] or (t0 == fh_t[up] and r0 < fh_r[up]):
                fh_move(i, up)
                i = up
            else:
                break
        if i == i0:
            while True:
                c = 2 * i + 1
                if c >= n:
                    break
                if c + 1 < n and fh_less(c + 1, c):
                    c += 1
                if fh_t[c] < t0 or (fh_t[c] == t0 and fh_r[c] < r0):
                    fh_move(i, c)
                    i = c
                else:
                    break
        fh_t[i] = t0
        fh_r[i] = r0
        fh_pair[i] = e0
        fh_at[e0] = i

    def fh_remove(e, n):
        """Drop pair ``e``'s entry from ``fh[:n]`` if it has one; returns the new size."""
        i = fh_at[e]
        if i < 0:
            return n
        fh_at[e] = -1
        n -= 1
        if i < n:
            fh_t[i], fh_r[i], fh_pair[i] = fh_t[n], fh_r[n], fh_pair[n]
            fh_at[fh_pair[i]] = i
            fh_place(i, n)
        return n

    def fh_set(e, ft, r, n):
        """Pair ``e``'s head ``r`` finishes at ``ft``; returns the new size."""
        i = fh_at[e]
        if i < 0:
            i = n
            n += 1
        fh_t[i] = ft
        fh_r[i] = r
        fh_pair[i] = e
        fh_at[e] = i
        fh_place(i, n)
        return n

    coflow_left = np.zeros(n_coflows, dtype=np.int64)
    for r in range(F):
        coflow_left[rank_coflow[r]] += 1
    cct = np.full(n_coflows, np.nan)
    n_done = 0

    rel_order = np.argsort(rank_release, kind="mergesort")  # ties keep priority order
    rel_ptr = 0

    nc = 0
    npieces = 0

    # an evaluation's prefix sums at the clean resources of its path, kept for the update
    # that follows it (which needed them again: 15 of the 77 million prefix sums on the
    # Facebook trace on a k=16 fat-tree)
    lmax = 0
    for e in range(E):
        lmax = max(lmax, pair_rptr[e + 1] - pair_rptr[e])
    pu = np.zeros(lmax)
    # the resources dirtied in this scan, each once: a resource whose walk ended (its change
    # absorbed) can be dirtied again later in the same scan, and until 2026-11-27 it was
    # listed again, which overran this array (398 entries for 380 resources on the FB trace
    # on a 10x4 leaf-spine at 2:1: glibc aborted on the corrupted heap)
    touched = np.empty(P, dtype=np.int64)
    touch_stamp = -np.ones(P, dtype=np.int64)
    changed = np.empty(E, dtype=np.int64)
    # the fin heap's entries due at t (the top of the heap down to the first later entry)
    due = np.empty(E, dtype=np.int64)
    nfh = 0

    t = rank_release[rel_order[0]]
    events = 0
    scan_id = 0
    while True:
        events += 1
        scan_id += 1
        nsh = 0

        # 0. fetch the lines the completions at t read: each departing rank's record, then
        # its pair's next rank (by position) and that rank's record, then its first slot
        # entry, for all of them at once (the chain pair -> next rank -> record -> slots was
        # dependent cache misses, one departure after another)
        nd = 0
        if nfh > 0 and fh_t[0] <= t:
            due[0] = 0
            nd = 1
            i = 0
            while i < nd:
                c = 2 * due[i] + 1
                if c < nfh and fh_t[c] <= t:
                    due[nd] = c
                    nd += 1
                if c + 1 < nfh and fh_t[c + 1] <= t:
                    due[nd] = c + 1
                    nd += 1
                i += 1
            for i in range(nd):
                e = fh_pair[due[i]]
                prefetch(rk, fh_r[due[i]] * _KW)
                q = pair_first[e] + 1
                due[i] = q if q < pair_ptr[e + 1] else -1
                if q < pair_ptr[e + 1]:
                    prefetch(pair_ranks, q)
            for i in range(nd):
                if due[i] >= 0:
                    due[i] = pair_ranks[due[i]]
                    prefetch(rk, due[i] * _KW)
            for i in range(nd):
                if due[i] >= 0:
                    prefetch(rank_slot, rk[due[i] * _KW + _KOFF] >> 1)

        # 1. completions at t (and flows within tolerance of finishing at t)
        while nfh > 0:
            r = fh_r[0]
            kr = r * _KW
            rem_now = rkf[kr + _KREM] - rkf[kr + _KRATE] * (t - rkf[kr + _KLAST])
            if not (fh_t[0] <= t or rem_now <= completion_rtol * rkf[kr + _KSIZE]):
                break
            e = fh_pair[0]
            nfh = fh_remove(e, nfh)
            if nc == cf.shape[0]:
                spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                nc = 0
            nc = put(cf, cs, ce, cv, nc, rk[kr + _KFC] & _LOW32, rkf[kr + _KPST], t,
                     rkf[kr + _KRATE])
            npieces += 1
            rk[kr + _KOFF] |= 1
            rkf[kr + _KREM] = 0.0
            k = rk[kr + _KFC] >> 32
            coflow_left[k] -= 1
            if coflow_left[k] == 0:
                cct[k] = t
                n_done += 1
            a = recf[e * _W + _ALLOC]
            remove_head(e)
            rec[e * _W + _BLOCK] = -1
            if a > 0.0:
                recf[e * _W + _GONE] = a
                nsh = sh_push(nsh, r * 4 + 0, e)
                # the walks this departure starts begin at the next head after it at each
                # resource of its path: fetch their slots' lines now, for the scan
                for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                    q2 = find_slot(zr[2 * z + 1], rsc[zr[2 * z] * _RW + _REND])
                    if q2 >= 0:
                        prefetch(sinfo, 2 * q2)
            set_alloc(e, r, 0.0)
            rkf[kr + _KRATE] = 0.0
            nh = -1
            # most paths carry one flow (525,874 paths for 706,397 flows on the k=16
            # fat-tree): then there is no next head, found from one line of pair_ptr
            if pair_ptr[e + 1] - pair_ptr[e] > 1:
                while (pair_first[e] < pair_ptr[e + 1]
                       and rk[pair_ranks[pair_first[e]] * _KW + _KOFF] & 1):
                    pair_first[e] += 1
                q = pair_first[e]
                while q < pair_ptr[e + 1]:
                    rr = pair_ranks[q]
                    if (not rk[rr * _KW + _KOFF] & 1) and rkf[rr * _KW + _KREL] <= t:
                        nh = rr
                        break
                    q += 1
            rec[e * _W + _HEAD] = nh
            if nh >= 0:
                install_head(e, nh)
                nsh = sh_push(nsh, nh * 4 + 1, e)

        # 2. releases at t
        while rel_ptr < F and rank_release[rel_order[rel_ptr]] <= t:
            r = rel_order[rel_ptr]
            rel_ptr += 1
            e = pair_of_rank[r]
            h = rec[e * _W + _HEAD]
            if h == -1 or r < h:
                if h != -1:
                    a = recf[e * _W + _ALLOC]
                    kh = h * _KW
                    if rkf[kh + _KRATE] > 0.0:
                        rkf[kh + _KREM] -= rkf[kh + _KRATE] * (t - rkf[kh + _KLAST])
                        rkf[kh + _KLAST] = t
                        if nc == cf.shape[0]:
                            spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                            nc = 0
                        nc = put(cf, cs, ce, cv, nc, rk[kh + _KFC] & _LOW32, rkf[kh + _KPST],
                                 t, rkf[kh + _KRATE])
                        npieces += 1
                    rkf[kh + _KRATE] = 0.0
                    nfh = fh_remove(e, nfh)
                    remove_head(e)
                    rec[e * _W + _BLOCK] = -1
                    if a > 0.0:
                        recf[e * _W + _GONE] = a
                        nsh = sh_push(nsh, h * 4 + 0, e)
                    set_alloc(e, h, 0.0)
                rec[e * _W + _HEAD] = r
                install_head(e, r)
                nsh = sh_push(nsh, r * 4 + 1, e)

        # 3. incremental greedy over heads at dirty resources, in priority order
        ntouched = 0
        nchanged = 0
        while nsh > 0:
            nsh = sh_pop(nsh)
            r = sh_key[nsh] >> 2
            kind = sh_key[nsh] & 3
            e = sh_pair[nsh]
            if kind == 0:
                a = recf[e * _W + _GONE]
                base = (rk[r * _KW + _KOFF] >> 1) - rec[e * _W + _Z0]   # the departed head's slots
                for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                    p = zr[2 * z]
                    if not rsc[p * _RW + _RDIRTY]:
                        rsc[p * _RW + _RDIRTY] = 1
                        rscf[p * _RW + _REXTRA] = 0.0
                        if touch_stamp[p] != scan_id:
                            touch_stamp[p] = scan_id
                            touched[ntouched] = p
                            ntouched += 1
                        rscf[p * _RW + _RUSED] = prefix_used(p, r)
                        nr, ne = next_head(rank_slot[base + z], p, scan_id)
                        if nr >= 0:
                            nsh = sh_push(nsh, nr * 4 + 2, ne)
                        rscf[p * _RW + _REXTRA] += a
                    else:
                        x = rscf[p * _RW + _REXTRA]
                        rscf[p * _RW + _REXTRA] = x + a
                        if x <= rscf[p * _RW + _RTOL] < x + a:
                            nr, ne = next_head(rank_slot[base + z], p, scan_id)
                            if nr >= 0:
                                nsh = sh_push(nsh, nr * 4 + 2, ne)
                continue
            if rec[e * _W + _HEAD] != r or rec[e * _W + _STAMP] == scan_id:
                continue
            rec[e * _W + _STAMP] = scan_id
            old = recf[e * _W + _ALLOC]
            if old == 0.0:
                # a zero head blocked at b whose walk at b reached it: first try the resource
                # it was blocked at before b (_TIGHT; the docstring says why), full again in
                # the ping-pong between a flow's two host links; if it is, the head stays at 0
                # blocked there, and the rest of its path is not read
                b = rec[e * _W + _BLOCK]
                c = rec[e * _W + _TIGHT]
                if b >= 0 and c >= 0 and c != b:
                    if rsc[c * _RW + _RDIRTY]:
                        rp = rscf[c * _RW + _RCAP] - rscf[c * _RW + _RUSED]
                    else:
                        rp = rscf[c * _RW + _RCAP] - prefix_used(c, r)
                    if rp <= 0.0:
                        for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                            p = zr[2 * z]
                            if p == b:
                                if rsc[p * _RW + _RDIRTY]:
                                    nsh = walk_on(nsh, p, zr[2 * z + 1], r, scan_id)
                                bits_set(zr[2 * z + 1], 0)
                            elif p == c:
                                bits_set(zr[2 * z + 1], 1)
                        rec[e * _W + _BLOCK] = c
                        rec[e * _W + _TIGHT] = b
                        continue
            if old > 0.0:
                # a positive head that keeps its allocation (the docstring says why this is
                # the full evaluation's answer): d, the smallest residual at a dirty resource
                d = np.inf
                tij = np.inf
                for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                    p = zr[2 * z]
                    if rscf[p * _RW + _RTOL] < tij:
                        tij = rscf[p * _RW + _RTOL]
                    if rsc[p * _RW + _RDIRTY]:
                        rp = rscf[p * _RW + _RCAP] - rscf[p * _RW + _RUSED]
                        if rp < d:
                            d = rp
                if d > old - tij and old > 2.0 * tij:
                    # a resource that is not dirty and still tight for this head: the
                    # remembered one first, else the first such on the path
                    tb = rec[e * _W + _TIGHT]
                    found = False
                    if tb >= 0 and not rsc[tb * _RW + _RDIRTY]:
                        rp = rscf[tb * _RW + _RCAP] - prefix_used(tb, r)
                        found = abs(rp - old) <= tij
                    if not found:
                        for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                            p = zr[2 * z]
                            if p != tb and not rsc[p * _RW + _RDIRTY]:
                                rp = rscf[p * _RW + _RCAP] - prefix_used(p, r)
                                if abs(rp - old) <= tij:
                                    found = True
                                    rec[e * _W + _TIGHT] = p
                                    break
                    if found:
                        if rp < d:
                            d = rp
                        if abs(d - old) <= tij:
                            for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                                p = zr[2 * z]
                                if rsc[p * _RW + _RDIRTY]:
                                    rscf[p * _RW + _RUSED] += old
                                    nsh = walk_on(nsh, p, zr[2 * z + 1], r, scan_id)
                            continue
            new = np.inf
            tij = np.inf
            full = -1
            arg = -1
            z0 = rec[e * _W + _Z0]
            for z in range(z0, rec[e * _W + _Z1]):
                p = zr[2 * z]
                if rsc[p * _RW + _RDIRTY]:
                    rp = rscf[p * _RW + _RCAP] - rscf[p * _RW + _RUSED]
                else:
                    pu[z - z0] = prefix_used(p, r)
                    rp = rscf[p * _RW + _RCAP] - pu[z - z0]
                if rp < new:
                    new = rp
                    arg = p
                if rp <= 0.0 and full < 0:
                    full = p
                    if old == 0.0:       # stays at 0, blocked at p: the rest is not needed
                        break
                if rscf[p * _RW + _RTOL] < tij:
                    tij = rscf[p * _RW + _RTOL]
            if old == 0.0 and full >= 0:
                # the walks go on where this head was in the tree; its block moves to ``full``
                b = rec[e * _W + _BLOCK]
                for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                    p = zr[2 * z]
                    if rsc[p * _RW + _RDIRTY]:
                        if abs(rscf[p * _RW + _REXTRA]) <= rscf[p * _RW + _RTOL]:
                            rsc[p * _RW + _RDIRTY] = 0
                        elif b < 0 or p == b:
                            nr, ne = next_walk(zr[2 * z + 1] + 1, p, r, scan_id)
                            if nr >= 0:
                                nsh = sh_push(nsh, nr * 4 + 2, ne)
                if full != b:
                    for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                        p = zr[2 * z]
                        was = b < 0 or p == b
                        now = p == full
                        if was != now:
                            bits_set(zr[2 * z + 1], 1 if now else 0)
                    if b >= 0:
                        rec[e * _W + _TIGHT] = b
                    rec[e * _W + _BLOCK] = full
                continue
            # negligible relative to the smallest capacity on the path (tol is per resource)
            if new <= tij:
                new = 0.0
            if abs(new - old) <= tij:
                new = old
            rec[e * _W + _TIGHT] = arg
            for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                p = zr[2 * z]
                if rsc[p * _RW + _RDIRTY]:
                    rscf[p * _RW + _RUSED] += new
                    rscf[p * _RW + _REXTRA] += old - new
                    nsh = walk_on(nsh, p, zr[2 * z + 1], r, scan_id)
                elif new != old:
                    rsc[p * _RW + _RDIRTY] = 1
                    rscf[p * _RW + _REXTRA] = old - new
                    if touch_stamp[p] != scan_id:
                        touch_stamp[p] = scan_id
                        touched[ntouched] = p
                        ntouched += 1
                    rscf[p * _RW + _RUSED] = pu[z - z0] + new     # p was clean in the loop above
                    nr, ne = next_walk(zr[2 * z + 1] + 1, p, r, scan_id)
                    if nr >= 0:
                        nsh = sh_push(nsh, nr * 4 + 2, ne)
            # the head's block after this evaluation: ``full`` if it gets 0 with a full
            # resource, else none; only the slots whose flag differs are touched (a head
            # re-evaluated at the same blocker costs nothing).  A head that loses its rate
            # here (old > 0) is blocked at once too: until 2026-11-27 it stayed in every
            # walk until one evaluated it to 0 again (10.04 million evaluations on the
            # 800-coflow FB-UP instance then, 9.11 million now; same pieces, bit for bit)
            b = rec[e * _W + _BLOCK]
            nb = full if new == 0.0 else -1
            if nb != b:
                for z in range(rec[e * _W + _Z0], rec[e * _W + _Z1]):
                    p = zr[2 * z]
                    was = b < 0 or p == b
                    now = nb < 0 or p == nb
                    if was != now:
                        bits_set(zr[2 * z + 1], 1 if now else 0)
                rec[e * _W + _BLOCK] = nb
            if new != old:
                set_alloc(e, r, new)
                changed[nchanged] = e        # once per scan: a pair is evaluated once (_STAMP)
                nchanged += 1
        for i in range(ntouched):
            p = touched[i]
            rsc[p * _RW + _RDIRTY] = 0
            rscf[p * _RW + _RUSED] = 0.0
            rscf[p * _RW + _REXTRA] = 0.0

        # 4. apply the rate changes (their ranks' records fetched first, all at once)
        for i in range(nchanged):
            r = rec[changed[i] * _W + _HEAD]
            if r >= 0:
                prefetch(rk, r * _KW)
        for i in range(nchanged):
            e = changed[i]
            r = rec[e * _W + _HEAD]
            if r < 0:
                continue
            a = recf[e * _W + _ALLOC]
            kr = r * _KW
            old = rkf[kr + _KRATE]
            if a == old:
                continue
            if old > 0.0:
                rkf[kr + _KREM] -= old * (t - rkf[kr + _KLAST])
                if nc == cf.shape[0]:
                    spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                    nc = 0
                nc = put(cf, cs, ce, cv, nc, rk[kr + _KFC] & _LOW32, rkf[kr + _KPST], t, old)
                npieces += 1
            rkf[kr + _KLAST] = t
            rkf[kr + _KRATE] = a
            if a > 0.0:
                rkf[kr + _KPST] = t
                nfh = fh_set(e, t + rkf[kr + _KREM] / a, r, nfh)
            else:
                nfh = fh_remove(e, nfh)

        if n_done == n_coflows:
            break
        # 5. next event
        t_fin = fh_t[0] if nfh > 0 else np.inf
        t_rel = rank_release[rel_order[rel_ptr]] if rel_ptr < F else np.inf
        t_next = t_fin if t_fin < t_rel else t_rel
        if not np.isfinite(t_next):
            spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
            state[0] = npieces
            return cct, -events
        t = t_next

    spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
    state[0] = npieces
    return cct, events
