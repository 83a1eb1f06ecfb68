"""The gapped SEBF order of the MADD kernel (``_madd_kernel``, section "gapped order"): after
any sequence of re-keyings, completions and arrivals its coflows are those active, sorted by
(remaining Gamma, rank), each at the slot ``cpos`` says, with every slot's key in order."""

import numpy as np
import pytest

from coflowopt.rates import _madd_kernel as k


class Gapped:
    """K one-flow coflows on one port pair of capacity 1 (remaining Gamma = remaining size)."""

    def __init__(self, K, seed):
        self.K = K
        self.rng = np.random.default_rng(seed)
        S = 2 * K + 8
        self.sorder = np.zeros(S, dtype=np.int64)
        self.sk = np.zeros(S)
        self.sr = np.zeros(S, dtype=np.int64)
        self.sw = np.full(S, -1, dtype=np.int64)
        self.sgr = np.zeros((S, 2), dtype=np.int64)
        self.cpos = np.full(K, -1, dtype=np.int64)
        self.hi = 0
        self.n = 0
        self.rank = self.rng.permutation(K).astype(np.int64)
        self.flow_ptr = np.arange(K + 1, dtype=np.int64)
        self.grp_ptr = np.arange(K + 1, dtype=np.int64)
        self.src = np.zeros(K, dtype=np.int64)
        self.dstu = np.ones(K, dtype=np.int64)
        self.rem = np.zeros(K)
        self.cap = np.ones(2)
        self.wit = np.full(K, -1, dtype=np.int64)
        self.skey = np.zeros(K)
        self.dirty = np.zeros(K, dtype=np.bool_)
        self.isact = np.zeros(K, dtype=np.bool_)

    def update(self, dirty, gone):
        d = np.asarray(dirty, dtype=np.int64)
        g = np.asarray(gone, dtype=np.int64)
        self.dirty[d] = True
        dl = np.zeros(self.K, dtype=np.int64)
        dl[:d.size] = d
        go = np.zeros(self.K, dtype=np.int64)
        go[:g.size] = g
        self.hi, self.n = k._gap_update(
            self.sorder, self.sk, self.sr, self.sw, self.sgr, self.cpos, self.hi, self.n, go,
            g.size, self.skey, self.dirty, self.isact, dl, d.size, self.rank, self.wit,
            self.grp_ptr, self.flow_ptr, self.src, self.dstu, self.rem, self.cap, np.zeros(2),
            np.zeros(2, dtype=np.int64), np.zeros(self.K))

    def check(self):
        act = np.flatnonzero(self.isact)
        want = act[np.lexsort((self.rank[act], self.rem[act]))]
        slots = self.sorder[:self.hi]
        live = slots >= 0
        assert slots[live].tolist() == want.tolist()
        assert self.n == act.size
        assert (self.cpos[want] == np.flatnonzero(live)).all()
        assert (self.sk[:self.hi][live] == self.rem[want]).all()
        assert (self.sr[:self.hi][live] == self.rank[want]).all()
        # every slot's (key, rank), holes included, in order: what the binary search reads
        key = np.stack([self.sk[:self.hi], self.sr[:self.hi]], axis=1)
        assert all(tuple(a) <= tuple(b) for a, b in zip(key[:-1], key[1:]))
        assert (self.sw[:self.hi][~live] == -1).all()
        assert (self.sgr[:self.hi][~live] == 0).all()
        assert (self.sgr[:self.hi][live, 0] == self.grp_ptr[want]).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gapped_order_after_rekeyings_completions_and_arrivals(seed):
    K = 3000
    g = Gapped(K, seed)
    rng = g.rng
    pending = list(rng.permutation(K))
    # a first batch (merged in at once), then rounds like Varys' events: a few re-keyed
    # coflows (their keys only shrink, often onto one value: ties broken by rank, and many
    # of them put at one place, so that holes run out there), completions, arrivals
    first = [pending.pop() for _ in range(K // 2)]
    g.rem[first] = rng.integers(1, 50, len(first)).astype(float)
    g.isact[first] = True
    g.update(first, [])
    g.check()
    for r in range(300):
        act = np.flatnonzero(g.isact)
        dirty = list(rng.choice(act, size=min(act.size, int(rng.integers(1, 120))),
                                replace=False))
        gone = []
        for c in dirty:
            u = rng.random()
            if u < 0.15:
                g.isact[c] = False   # completed
                gone.append(c)
            elif u < 0.6:
                g.rem[c] = float(rng.integers(1, 4))   # crowd the front
            else:
                g.rem[c] = max(1.0, g.rem[c] - float(rng.integers(0, 3)))
        if pending and rng.random() < 0.3:
            new = [pending.pop() for _ in range(min(len(pending), int(rng.integers(1, 400))))]
            g.rem[new] = rng.integers(1, 60, len(new)).astype(float)
            g.isact[new] = True
            dirty += new
        g.update(dirty, gone)
        g.check()


def test_gapped_insert_shifts_to_the_nearest_hole_or_gives_up():
    K = 400
    g = Gapped(K, 5)
    # slots [0, 300) full, keys 0..299, one hole d slots after the place (101)
    for d, expect in ((10, True), (k.GAP_SHIFT, True), (k.GAP_SHIFT + 1, False)):
        n = 300
        g.sorder[:n] = np.arange(n)
        g.sk[:n] = np.arange(n, dtype=float)
        g.sr[:n] = np.arange(n)
        g.cpos[:] = -1
        g.cpos[:n] = np.arange(n)
        h = 101 + d
        g.sorder[h] = -1
        g.cpos[h] = -1
        # coflow 399 (rank 0) with key 100.5 goes between slots 100 and 101
        g.rank[399] = 0
        hi = k._gap_insert(399, 100.5, 0, g.sorder, g.sk, g.sr, g.sw, g.sgr, g.cpos, n,
                           g.wit, g.grp_ptr)
        if not expect:
            assert hi == -1
            continue
        assert hi == n
        assert g.cpos[399] == 101
        assert g.sorder[101] == 399
        assert g.sorder[102:h + 1].tolist() == list(range(101, h))
        assert all(g.cpos[c] == c + 1 for c in range(101, h))
        assert (np.diff(g.sk[:n]) >= 0).all()
