"""Lower bounds for every subset of coflows: the makespan bound and the "last coflow" DP bound.

For a set ``S`` of coflows,

* the **makespan bound** ``MLB(S) = max_p max_a ( a + sum_{k in S, r_k >= a} d_k^p / c_p )``
  (``a`` ranging over release times, ``p`` over resources, ``d_k^p`` the data of ``k`` whose
  path uses ``p``) is a lower bound on the time at which the last coflow of ``S`` completes, in
  any schedule: the coflows of ``S`` released at or after ``a`` send all their data through
  ``p`` after ``a`` (on a big switch the resources are the ports);
* the **DP bound** ``DPB(S) = min_{k in S} [ w_k max(MLB(S), r_k + rho_k) + DPB(S \\ {k}) ]``,
  ``DPB({}) = 0``, is a lower bound on ``sum_{k in S} w_k C_k`` in any schedule of any instance
  that contains ``S``: whichever coflow ``k`` of ``S`` completes last has
  ``C_k >= MLB(S)`` and ``C_k >= r_k + rho_k``, and the others complete in some schedule of
  ``S \\ {k}`` (proofs/completion-order-lp-exact.md, Lemma 6).

**Chains.**  With ``chains`` (lists of members, each in an order in which its members may be
taken to complete: same release, port loads and weights ordered, as the branch and bound's
dominance pairs give them), the tables hold only the *chain-prefix* sets, those that contain
with each chain member all the earlier members of its chain: ``prod (len + 1)`` sets instead of
``2^n`` (4x4, 26 coflows: 12-28 million instead of 67 million).  On those sets the minimum
over each chain's last member only is ``DPB`` itself (proofs/bnb-dpb-chains.md), and the
branch and bound's unordered sets are all such sets.

``DPB`` is at least the isolated bound ``sum_k w_k (r_k + rho_k)`` and at least every
single-resource Smith bound (the same lemma), and it is the bound of the branch and bound's
unordered coflows.  Tables over all ``2^K`` subsets are built for ``K <= max_table``
(:data:`MAX_TABLE_COFLOWS`, 22, by default): by the compiled kernel of :mod:`._subset_kernel`
(24 bytes per subset, 24 coflows in 1-2.5 s, 26 in about 5 s; ``kernel=True``, the default) or with numpy
(22 coflows in about 3-5 s and 300 MB); above that, :meth:`SubsetBounds.dpb` is one level of the
same recursion over the single-port Smith bound with releases ignored (much weaker, computed per
call and memoised).

References
----------
W. E. Smith, "Various optimizers for single-stage production", Naval Res. Logist. Q. 3 (1956)
(the single-port bound); the argument "the last job finishes no earlier than the total load" is
the backward dynamic programme of E. L. Lawler, "On scheduling problems with deferral costs",
Management Sci. 11 (1964), used here as a relaxation; seeds-000-002.md, Sec. 1.3, T-S4 (the
proof that 33 is optimal is this bound).
"""

from __future__ import annotations

import functools

import numpy as np

from ..instance import Instance

__all__ = ["SubsetBounds", "MAX_TABLE_COFLOWS", "dominance_chains", "lowered_chains",
           "float_tables_exact"]

#: Largest number of (positive-weight) coflows for which all-subset tables are built
#: (2^20 subsets: about 50 MB of float64 tables at most).
MAX_TABLE_COFLOWS = 22

#: Relative allowance for the rounding of the float sums behind MLB and DPB (each is a sum of at
#: most a few hundred non-negative terms, relative error below 1e-13); :meth:`SubsetBounds.dpb`
#: and :meth:`SubsetBounds.mlb` values are deflated by it where they serve as proven bounds.
ROUNDING_RTOL = 1e-12


class SubsetBounds:
    """``MLB`` and ``DPB`` over the subsets of a list of coflows (bitmask ``1 << i`` = the
    ``i``-th coflow of ``members``).

    Parameters
    ----------
    instance : Instance
    members : sequence of int
        The coflows indexed by the masks (typically those with positive weight).
    max_table : int, optional
        Build the all-subset tables for at most this many members (default
        :data:`MAX_TABLE_COFLOWS`; the tables take ``24 * 2^n`` bytes with the kernel).
    kernel : bool
        Build the tables with the compiled kernel (bit-identical to the numpy build, about ten
        times faster and without its temporaries) when numba is installed.
    chains : list of list of int, optional
        Disjoint chains of member positions (each from its first to its last completion; see
        :func:`dominance_chains`): tabulate only the chain-prefix sets (module docstring),
        ``prod (len + 1) <= 2^max_table`` of them; needs the kernel.  ``mlb`` / ``dpb`` of a set
        that is not a chain-prefix set are computed (``mlb``) or bounded by its largest
        chain-prefix subset (``dpb``, a smaller set: a lower bound).

    Examples
    --------
    >>> from coflowopt.testing import digest_ts4
    >>> sb = SubsetBounds(digest_ts4(), [0, 1, 2])
    >>> float(sb.mlb(0b111)), float(sb.dpb(0b111))   # T-S4: OPT = 33
    (16.0, 33.0)
    """

    def __init__(self, instance: Instance, members, *, max_table: int | None = None,
                 kernel: bool = True, chains=None, lowered_max: int = 0):
        self.instance = instance
        self.members = np.asarray(members, dtype=np.int64)
        n = self.members.size
        self.n = n
        self.chains = None
        # lowered tables (lowered_chains, proofs/bnb-dpb-lowered.md): the chains merged into
        # fewer, longer ones over lowered data; ``_merged[j]``: chain j was merged (its data
        # lowered, its members counted rather than taken as a prefix)
        self.lowered = False
        self._merged: list[bool] = []
        inst = instance
        idx = self.members
        self.w = inst.weight[idx].astype(float)
        self.e = (inst.release[idx] + inst.rho[idx]).astype(float)
        self.r = inst.release[idx].astype(float)
        loads = inst.port_loads[idx] / inst.capacity[None, :]   # (n, P) time units
        self.loads = loads
        self.thresholds = np.unique(self.r) if n else np.zeros(0)
        cap = MAX_TABLE_COFLOWS if max_table is None else max_table
        from ..rates._jit import HAVE_NUMBA
        if chains is not None and n > CHAIN_TABLE_MAX_COFLOWS:
            # the kernel indexes a set's members by byte; such a search does not close anyway
            # (300 coflows in one chain of identical ones were an internal error)
            chains = None
        if chains is not None:
            self._set_chains(chains)
        if self.chains is not None and kernel and HAVE_NUMBA and n > 0 and \
                any(len(c) > 1 for c in self.chains):
            self.tabulated = self.num_states <= 1 << cap
            if self.tabulated:
                self._build_chain_tables()
            elif lowered_max > 0:
                self._build_lowered_tables(chains, lowered_max)
            else:
                self.chains = None
        elif chains is not None and kernel and HAVE_NUMBA and n > cap and lowered_max > 0:
            # no dominance chain of two: the lowered tables merge the singletons
            self._build_lowered_tables(chains, lowered_max)
        else:
            self.chains = None
            self.tabulated = n <= cap
            if self.tabulated:
                if kernel and HAVE_NUMBA and n > 0:
                    self._build_tables_kernel()
                else:
                    self._build_tables()
        self._memo: dict[int, float] = {}
        self._memo_mlb: dict[int, float] = {}

    def _set_chains(self, chains) -> None:
        """Check the chains (a partition of the members whose consecutive members have one
        release, ordered port loads and weights, proofs/bnb-dpb-chains.md) and set the mixed
        radix of the chain-prefix sets."""
        chains = [[int(i) for i in c] for c in chains]
        flat = [i for c in chains for i in c]
        if sorted(flat) != list(range(self.n)):
            raise ValueError("chains must partition the members")
        tol = 1e-9
        for c in chains:
            for a, b in zip(c, c[1:]):
                if not (self.r[a] == self.r[b] and self.w[a] >= self.w[b] and
                        np.all(self.loads[a] <= self.loads[b] * (1 + tol) + tol)):
                    raise ValueError(f"members {a} and {b} do not form a chain (same release, "
                                     "port loads and weights ordered)")
        for k in range(self.n):
            if self.e[k] > (self.r[k] + self.loads[k].max(initial=0.0)) * (1 + tol) + tol:
                raise ValueError("chains need r + rho = r + the largest port load")
        self._set_radix(chains)

    def _set_radix(self, chains) -> None:
        """The chains and the mixed radix of their chain-prefix sets: strides, and per chain
        the masks of its first ``c`` members, ``c = 0..len``."""
        self.chains = chains
        self._index_memo: dict[int, tuple[int, int]] = {}
        self._chain = np.asarray([i for c in chains for i in c], dtype=np.int64)
        self._ptr = np.cumsum([0] + [len(c) for c in chains]).astype(np.int64)
        self._stride = []
        self._prefix = []
        M = 1
        for c in chains:
            self._stride.append(M)
            M *= len(c) + 1
            pre = [0]
            for i in c:
                pre.append(pre[-1] | 1 << i)
            self._prefix.append(pre)
        self.num_states = M

    def _build_chain_tables(self) -> None:
        from ._subset_kernel import chain_tables
        M = self.num_states
        self._mlb, self._dpb = np.empty(M), np.empty(M)
        chain_tables(*self._kernel_data(), self._chain, self._ptr, self._mlb, self._dpb,
                     np.empty(M))

    def _build_lowered_tables(self, chains, max_states: int) -> None:
        """Tables of ``DPB`` of a *lowered* instance over the chain-prefix sets of merged
        chains (:func:`lowered_chains`), at most ``max_states`` sets: ``dpb(U)`` is then a
        lower bound on ``DPB(U)`` (proofs/bnb-dpb-lowered.md), ``mlb`` is computed from the
        instance's loads (never the lowered table's)."""
        from ._subset_kernel import chain_tables
        plan = lowered_chains(chains, self.loads, self.w, self.r, max_states)
        if plan is None:
            self.chains, self.tabulated = None, False
            return
        ch, merged, loads, w = plan
        self._merged, self.lowered = merged, True
        self._set_radix(ch)
        M = self.num_states
        # the lowered data: loads and weights at most the instance's, releases equal,
        # e the least of r + rho and r + the largest lowered load
        e = np.minimum(self.e, self.r + loads.max(axis=1, initial=0.0))
        for c in (c for c, m in zip(ch, merged) if m):
            # ordered along a merged chain, as its loads (a no-op where e = r + rho exactly)
            for a, b in zip(c[-2::-1], c[:0:-1]):
                e[a] = min(e[a], e[b])
        self._tw, self._te = w, e
        self._mlb, self._dpb = np.empty(M), np.empty(M)
        chain_tables(*(np.ascontiguousarray(x, dtype=np.float64)
                       for x in (loads, self.r, self.thresholds, w, e)),
                     self._chain, self._ptr, self._mlb, self._dpb, np.empty(M))
        self.tabulated = True

    def _kernel_data(self) -> tuple[np.ndarray, ...]:
        """``loads, r, thresholds, w, e`` as the kernels take them (contiguous float64)."""
        return tuple(np.ascontiguousarray(x, dtype=np.float64)
                     for x in (self.loads, self.r, self.thresholds, self.w, self.e))

    def _index(self, mask: int) -> tuple[int, int]:
        """``(index, mask')``: the table index of the largest chain-prefix subset ``mask'``
        of ``mask`` (``mask`` itself when it is one; plain tables: the mask)."""
        if self.chains is None:
            return mask, mask
        hit = self._index_memo.get(mask)
        if hit is not None:
            return hit
        idx, sub = 0, 0
        for j, (pre, stride) in enumerate(zip(self._prefix, self._stride)):
            if self.lowered and self._merged[j]:
                # a merged chain: its members in mask, counted (the first c of the chain
                # have lowered data at most theirs, proofs/bnb-dpb-lowered.md)
                x = mask & pre[-1]
                idx += bin(x).count("1") * stride
                sub |= x
                continue
            c = 0
            while c + 1 < len(pre) and mask & pre[c + 1] == pre[c + 1]:
                c += 1
            idx += c * stride
            sub |= pre[c]
        if len(self._index_memo) < 1_000_000:
            self._index_memo[mask] = (idx, sub)
        return idx, sub

    def _build_tables_kernel(self) -> None:
        from ._subset_kernel import subset_tables
        M = 1 << self.n
        self._mlb, self._dpb = np.empty(M), np.empty(M)
        subset_tables(*self._kernel_data(), self._mlb, self._dpb, np.empty(M))

    def _build_tables(self) -> None:
        n = self.n
        M = 1 << n
        masks = np.arange(M, dtype=np.int64)
        mlb = np.zeros(M)
        P = self.loads.shape[1]
        since = [int(np.sum((self.r >= a) * (1 << np.arange(n)))) for a in self.thresholds]
        for p in range(P):
            col = self.loads[:, p]
            if not np.any(col > 0):
                continue
            L = np.zeros(M)
            for i in range(n):
                L[1 << i: 2 << i] = L[: 1 << i] + col[i]
            for a, s in zip(self.thresholds, since):
                sub = masks & s
                # only sets with a coflow released at or after a: an empty selection bounds
                # nothing (a + 0 would claim every set runs until the release time a)
                np.maximum(mlb, np.where(sub != 0, a + L[sub], 0.0), out=mlb)
        self._mlb = mlb
        pc = np.zeros(M, dtype=np.int64)
        for i in range(n):
            pc[1 << i: 2 << i] = pc[: 1 << i] + 1
        order = np.argsort(pc, kind="stable")
        bounds = np.searchsorted(pc[order], np.arange(n + 2))
        dpb = np.zeros(M)
        bits = (1 << np.arange(n)).astype(np.int64)
        for c in range(1, n + 1):
            ms = order[bounds[c]:bounds[c + 1]]
            best = np.full(ms.size, np.inf)
            m_mlb = mlb[ms]
            for i in range(n):
                has = (ms & bits[i]) != 0
                if not np.any(has):
                    continue
                sub = ms[has]
                cand = self.w[i] * np.maximum(m_mlb[has], self.e[i]) + dpb[sub ^ bits[i]]
                best[has] = np.minimum(best[has], cand)
            dpb[ms] = best
        self._dpb = dpb

    # ------------------------------------------------------------------ queries
    def mlb(self, mask: int) -> float:
        """Makespan lower bound of the subset ``mask``."""
        if self.tabulated and not self.lowered:
            idx, sub = self._index(mask)
            if sub == mask:
                return float(self._mlb[idx])
        if self.lowered:
            v = self._memo_mlb.get(mask)
            if v is not None:
                return v
        sel = self._sel(mask)
        if not np.any(sel):
            return 0.0
        best = 0.0
        for a in self.thresholds:
            s = sel & (self.r >= a)
            if np.any(s):
                best = max(best, float(a + self.loads[s].sum(axis=0).max()))
        if self.lowered and len(self._memo_mlb) < 1_000_000:
            self._memo_mlb[mask] = best
        return best

    def dpb(self, mask: int) -> float:
        """Lower bound on ``sum_{k in mask} w_k C_k`` (the DP bound, or the Smith fallback)."""
        if self.tabulated:
            # a set that is not a chain-prefix set: its largest chain-prefix subset's DPB
            # (a subset's DPB bounds the set's cost from below)
            return float(self._dpb[self._index(mask)[0]])
        v = self._memo.get(mask)
        if v is None:
            m = self.mlb(mask)
            v = min((self.w[i] * max(m, self.e[i]) + self._smith(mask ^ (1 << i))
                     for i in range(self.n) if mask >> i & 1), default=0.0)
            v = max(v, self._smith(mask))
            if len(self._memo) < 1_000_000:
                self._memo[mask] = v
        return v

    def _sel(self, mask: int) -> np.ndarray:
        return np.asarray([(mask >> i) & 1 for i in range(self.n)], dtype=bool)

    def _smith(self, mask: int) -> float:
        """max over ports of: Smith's rule on the port for its coflows, ``w_k (r_k + rho_k)``
        for the others (releases ignored on the port: a relaxation)."""
        sel = self._sel(mask)
        if not np.any(sel):
            return 0.0
        iso = self.w[sel] * self.e[sel]
        best = float(iso.sum())
        for p in range(self.loads.shape[1]):
            q = self.loads[sel, p]
            on = q > 0
            if not np.any(on):
                continue
            w, qq = self.w[sel][on], q[on]
            o = np.argsort(-w / qq, kind="stable")
            C = np.cumsum(qq[o])
            val = float(np.sum(w[o] * C) + iso[~on].sum())
            best = max(best, val)
        return best

    def dp_order(self, mask: int | None = None) -> list[int] | None:
        """The completion order (instance indices, first to last) of the members in ``mask``
        (default: all) read off the DP's argmins: a good incumbent order.  ``None`` when the
        tables are not built."""
        if not self.tabulated:
            return None
        if mask is None:
            mask = (1 << self.n) - 1
        rev = []
        if self.chains is not None:
            idx, sub = self._index(mask)
            # the last member of each chain's prefix; the rest of mask (not in a chain-prefix
            # set) goes first, in member order
            rest = [int(self.members[i]) for i in range(self.n)
                    if mask >> i & 1 and not sub >> i & 1]
            # per chain, the members of sub in chain order (a prefix of the chain, or on a
            # merged chain of lowered tables the members counted)
            held = [[i for i in ch if sub >> i & 1] for ch in self.chains]
            tw, te = (self._tw, self._te) if self.lowered else (self.w, self.e)
            c = [0] * len(self.chains)
            x = idx
            for j in range(len(self.chains) - 1, -1, -1):
                c[j], x = divmod(x, self._stride[j])
            while idx:
                best, arg = np.inf, -1
                for j, ch in enumerate(self.chains):
                    if c[j]:
                        i = ch[c[j] - 1]
                        v = tw[i] * max(self._mlb[idx], te[i]) + \
                            self._dpb[idx - self._stride[j]]
                        if v < best:
                            best, arg = v, j
                rev.append(held[arg][c[arg] - 1])
                c[arg] -= 1
                idx -= self._stride[arg]
            return rest + [int(self.members[i]) for i in reversed(rev)]
        while mask:
            best, arg = np.inf, -1
            for i in range(self.n):
                if mask >> i & 1:
                    v = self.w[i] * max(self._mlb[mask], self.e[i]) + self._dpb[mask ^ (1 << i)]
                    if v < best:
                        best, arg = v, i
            rev.append(arg)
            mask ^= 1 << arg
        return [int(self.members[i]) for i in reversed(rev)]


def dominance_chains(succ) -> list[list[int]]:
    """A partition of the members into chains of a precedence: ``succ[i]`` is the bitmask of
    the members that complete after member ``i`` (a strict partial order, e.g. the branch and
    bound's dominance pairs); each chain lists members from first to last completion, every
    one before the next.  Longest chains first (greedy), so that ``prod (len + 1)``, the
    number of chain-prefix sets, is small; members in no pair are chains of one.

    Examples
    --------
    >>> dominance_chains([0b110, 0b100, 0, 0])   # 0 before 1 before 2; 3 alone
    [[0, 1, 2], [3]]
    """
    n = len(succ)
    up = [int(x) for x in succ]
    # members in no pair are chains of one whatever the rest does; leaving them out of the
    # cubic loops below keeps a large instance with few pairs cheap (3,000 coflows without
    # a pair took minutes, before bnb's time limit could apply)
    has_pred = 0
    for v in up:
        has_pred |= v
    alone = [i for i in range(n) if not up[i] and not has_pred >> i & 1]
    changed = True
    while changed:                       # transitive closure
        changed = False
        for i in range(n):
            if not up[i]:
                continue
            v = up[i]
            x = up[i]
            while x:
                j = (x & -x).bit_length() - 1
                x &= x - 1
                v |= up[j]
            if v != up[i]:
                up[i], changed = v, True
    if any(up[i] >> i & 1 for i in range(n)):
        raise ValueError("the precedence has a cycle")
    rem = (1 << n) - 1
    for i in alone:
        rem &= ~(1 << i)
    chains = []
    while rem:
        # the longest chain starting at each remaining member, members with fewer remaining
        # successors first (a successor has fewer successors than its predecessor)
        order = sorted((i for i in range(n) if rem >> i & 1),
                       key=lambda i: (bin(up[i] & rem).count("1"), i))
        best: dict[int, int] = {}
        nxt: dict[int, int | None] = {}
        for i in order:
            b, arg = 1, None
            x = up[i] & rem
            while x:                     # the remaining successors, lowest index first
                j = (x & -x).bit_length() - 1
                x &= x - 1
                if best[j] + 1 > b:
                    b, arg = best[j] + 1, j
            best[i], nxt[i] = b, arg
        i: int | None = max(order, key=lambda k: (best[k], -k))
        c = []
        while i is not None:
            c.append(i)
            i = nxt[i]
        chains.append(c)
        for i in c:
            rem &= ~(1 << i)
    # longest first, and the chains of one last in index order, as the loop picks them (the
    # loop's own chains of one, members whose partners went to longer chains, come last)
    k = next((i for i, c in enumerate(chains) if len(c) == 1), len(chains))
    return chains[:k] + [[i] for i in sorted([c[0] for c in chains[k:]] + alone)]


def _lowered(chain: list[int], loads: np.ndarray, w: np.ndarray):
    """A merged chain's order and lowered data: its members by total load (ties: as given),
    each member's loads the componentwise minimum of its own and the next member's lowered
    loads (so they are ordered along the chain and at most the member's own), every weight
    the chain's least; and the loss ``sum_k w'_k (sum_p d_kp - d'_kp) + (w_k - w'_k)
    sum_p d_kp`` the merge's greedy weighs."""
    ch = sorted(chain, key=lambda i: float(loads[i].sum()))
    L = loads[ch].copy()
    for j in range(len(ch) - 2, -1, -1):
        np.minimum(L[j], L[j + 1], out=L[j])
    wm = float(w[ch].min())
    tot = loads[ch].sum(axis=1)
    loss = float(wm * (tot - L.sum(axis=1)).sum() + ((w[ch] - wm) * tot).sum())
    return ch, L, wm, loss


#: Most coflows the chain tables (exact or lowered) are built for (``chain_tables``' limit).
CHAIN_TABLE_MAX_COFLOWS = 255
#: Most chains :func:`lowered_chains` merges (the 4x4 family's 40-coflow target has at most
#: 40; the greedy is cubic in the chains).
LOWERED_MAX_CHAINS = 128


def lowered_chains(chains, loads, w, r, max_states: int):
    """Merge chains until their chain-prefix sets number at most ``max_states``
    (proofs/bnb-dpb-lowered.md): greedily the two chains of one release whose merge loses
    least (:func:`_lowered`'s loss) per factor of sets saved, ``(a + 1)(b + 1) / (a + b + 1)``.

    Returns ``(chains, merged, loads', w')``: the chains (merged ones in their new order),
    whether each was merged, and the lowered loads and weights (the instance's on chains not
    merged); None when chains of distinct releases alone exceed ``max_states``, or when there
    are more than :data:`LOWERED_MAX_CHAINS` chains (the greedy scores every pair and rescores
    after each merge, cubic in the chains: minutes at 3,000, before bnb's time limit could
    apply; a search over that many coflows does not close with or without the tables).

    Examples
    --------
    >>> import numpy as np
    >>> loads = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 0.5]])
    >>> ch, merged, L, w = lowered_chains([[0], [1], [2]], loads, np.ones(3), np.zeros(3), 6)
    >>> ch, merged
    ([[0], [1, 2]], [False, True])
    >>> L.tolist()          # coflow 1 lowered to (2, 0.5): at most coflow 2's loads
    [[1.0, 2.0], [2.0, 0.5], [3.0, 0.5]]
    """
    import math
    if len(chains) > LOWERED_MAX_CHAINS:
        return None
    cur = [(list(c), False, 0.0) for c in chains]
    states = math.prod(len(c) + 1 for c, _, _ in cur)
    score: dict[tuple[int, int], tuple[float, list, float]] = {}
    ids = list(range(len(cur)))
    pool = dict(zip(ids, cur))
    nxt = len(cur)

    def pair(a: int, b: int):
        A, _, la = pool[a]
        B, _, lb = pool[b]
        if r[A[0]] != r[B[0]]:
            return None
        ch, _, _, loss = _lowered(A + B, loads, w)
        gain = math.log((len(A) + 1) * (len(B) + 1) / (len(A) + len(B) + 1))
        return ((loss - la - lb) / gain, ch, loss)

    for a in pool:
        for b in pool:
            if a < b:
                v = pair(a, b)
                if v is not None:
                    score[a, b] = v
    while states > max_states:
        if not score:
            return None
        (a, b), (_, ch, loss) = min(score.items(), key=lambda kv: (kv[1][0], kv[0]))
        la, lb = len(pool[a][0]), len(pool[b][0])
        states = states // ((la + 1) * (lb + 1)) * (la + lb + 1)
        del pool[a], pool[b]
        score = {k: v for k, v in score.items() if a not in k and b not in k}
        pool[nxt] = (ch, True, loss)
        for c in pool:
            if c != nxt:
                v = pair(c, nxt)
                if v is not None:
                    score[c, nxt] = v
        nxt += 1
    L, wl = np.array(loads, dtype=float), np.array(w, dtype=float)
    out, merged = [], []
    for c, m, _ in pool.values():
        if m:
            ch, Lc, wm, _ = _lowered(c, loads, w)
            L[ch], wl[ch] = Lc, wm
            c = ch
        out.append(c)
        merged.append(m)
    return out, merged, L, wl


def float_tables_exact(instance: Instance, members) -> bool:
    """Whether :class:`SubsetBounds`' float tables of ``MLB`` and ``DPB`` (all-subset, chain,
    lowered; and ``mlb`` of any set) are exactly the values of the same recursions in rational
    arithmetic.  Not the Smith fallback of an untabulated set: it orders by a float quotient,
    which may invert two nearly equal ratios (the caller checks ``tabulated``).

    True when the members' flow sizes, weights and releases are integers and every capacity is
    a power of two ``2^j``, and ``B 2^J < 2^53``, with ``J = max(0, max j)`` and ``B = (sum w)
    (max r + (sum of the sizes) / min c)``.  Then every quantity the tables compute (a load
    over a capacity, a sum of them plus a release, ``r + rho``, ``w max(MLB, e)``, a sum of such
    terms, a minimum or maximum of them; the lowered data are minima of these) is an integer
    multiple of ``2^-J`` of magnitude at most ``B``: exactly a double, so each IEEE operation on
    them (``+``, ``*``, ``max``, ``min``, and ``/ 2^j``) returns the exact result
    (proofs/bnb-exact-seed-bound.md, "DP tables in floats").
    """
    from fractions import Fraction
    idx = np.asarray(members, dtype=np.int64)
    if idx.size == 0:
        return True
    size = instance.flow_size[np.isin(instance.flow_coflow, idx)]
    w, r = instance.weight[idx], instance.release[idx]
    cap = np.asarray(instance.capacity, dtype=float)
    for x in (size, w, r, cap):
        if not np.all(np.isfinite(x)):
            return False
    for x in (size, w, r):
        if not np.all(x == np.floor(x)) or np.any(np.abs(x) >= 2.0 ** 53):
            return False
    mant, ex = np.frexp(cap)
    if cap.size == 0 or not np.all(mant == 0.5):
        return False
    j = (ex - 1).astype(np.int64)           # cap = 2^j
    J = max(0, int(j.max()))
    total = sum(int(v) for v in size.tolist())
    B = sum(int(v) for v in w.tolist()) * (int(r.max()) + Fraction(total) /
                                           Fraction(2) ** int(j.min()))
    return B * 2 ** J < 2 ** 53


class ExactSubsetBounds:
    """``MLB`` and ``DPB`` in exact rational arithmetic (memoised), for the exact proof of the
    branch and bound's closing bounds on small sets.

    Same masks and members as :class:`SubsetBounds`; the data are the instance's floats read
    exactly (port loads as exact sums of flow sizes).  Every time (release, load / capacity) is
    scaled by the common denominator of all of them and every weight by the common denominator
    of the weights, so the DP runs on Python integers; :meth:`mlb` and :meth:`dpb` return
    Fractions.  ``DPB`` of a set of ``m`` coflows costs ``O(2^m m)`` integer operations.

    Examples
    --------
    >>> from coflowopt.testing import digest_ts4
    >>> ExactSubsetBounds(digest_ts4(), [0, 1, 2]).dpb(0b111)
    Fraction(33, 1)
    """

    def __init__(self, instance: Instance, members):
        from fractions import Fraction
        from math import lcm

        self.members = [int(k) for k in members]
        n = len(self.members)
        self.n = n
        cap = [Fraction(float(c)) for c in instance.capacity]
        P = len(cap)
        loads = [[Fraction(0)] * P for _ in range(n)]
        pos = {k: i for i, k in enumerate(self.members)}
        # a flow loads every resource of its path (ingress, then m_in + egress on a big switch)
        rptr, res = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
        for f in range(instance.num_flows):
            i = pos.get(int(instance.flow_coflow[f]))
            if i is None:
                continue
            s = Fraction(float(instance.flow_size[f]))
            for q in res[rptr[f]:rptr[f + 1]]:
                loads[i][q] += s
        times = [[ld / c for ld, c in zip(row, cap)] for row in loads]
        r = [Fraction(float(instance.release[k])) for k in self.members]
        w = [Fraction(float(instance.weight[k])) for k in self.members]
        self.t_scale = lcm(1, *(x.denominator for row in times for x in row),
                           *(x.denominator for x in r))
        self.w_scale = lcm(1, *(x.denominator for x in w))
        ts, ws = self.t_scale, self.w_scale
        self._ld = [[int(x * ts) for x in row] for row in times]       # exact integers
        self._r = [int(x * ts) for x in r]
        self._w = [int(x * ws) for x in w]
        self._e = [ri + max(row, default=0) for ri, row in zip(self._r, self._ld)]
        self._thr = sorted(set(self._r))
        self._since = [sum(1 << i for i in range(n) if self._r[i] >= a) for a in self._thr]
        self._P = P
        self._loads: dict[int, list[int]] = {0: [0] * (P * len(self._thr))}
        # memoised per instance (the object lives for one exact proof)
        self._mlb_int = functools.lru_cache(maxsize=None)(self._mlb_uncached)
        self._dpb_int = functools.lru_cache(maxsize=None)(self._dpb_uncached)

    @property
    def e(self):
        """``r_k + rho_k`` per member, exact."""
        from fractions import Fraction
        return [Fraction(v, self.t_scale) for v in self._e]

    def _load_vec(self, mask: int) -> list[int]:
        """Loads per (threshold, port) of the coflows of ``mask`` released at or after it."""
        v = self._loads.get(mask)
        if v is None:
            low = (mask & -mask).bit_length() - 1
            base = self._load_vec(mask & (mask - 1))
            v = list(base)
            P = self._P
            ld, rl = self._ld[low], self._r[low]
            for t, a in enumerate(self._thr):
                if rl >= a:
                    off = t * P
                    for p in range(P):
                        if ld[p]:
                            v[off + p] += ld[p]
            if len(self._loads) < 4_000_000:
                self._loads[mask] = v
        return v

    def _mlb_uncached(self, mask: int) -> int:
        vec = self._load_vec(mask)
        P = self._P
        v = 0
        for t, (a, s) in enumerate(zip(self._thr, self._since)):
            if mask & s:
                v = max(v, a + max(vec[t * P:(t + 1) * P]))
        return v

    def _dpb_uncached(self, mask: int) -> int:
        if mask == 0:
            return 0
        m = self._mlb_int(mask)
        return min(self._w[i] * max(m, self._e[i]) + self._dpb_int(mask ^ (1 << i))
                   for i in range(self.n) if mask >> i & 1)

    def mlb(self, mask: int):
        from fractions import Fraction
        return Fraction(self._mlb_int(mask), self.t_scale)

    def dpb(self, mask: int):
        from fractions import Fraction
        return Fraction(self._dpb_int(mask), self.t_scale * self.w_scale)
