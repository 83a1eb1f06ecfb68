"""The branch and bound's node LPs built and warm-started faster, the same LPs and the same
search (experiments/results/bench_exact_node_cost_2026-11-30.md):

* ``build_event_lp`` builds its CSR matrix directly (``order_lp._csr``), memoises the merged
  block pairs by block (``PairData.merge_cache``), selects every resource of a path at once
  when all paths have one length (``PairData.path_len``) and sums the folded loads in floats
  when no such sum can be rounded (``PairData.sums_exact``): each LP is the one the general
  code builds, array for array, on big-switch and topology instances, integral and
  fractional sizes;
* ``EventLPSolution.warm`` keeps HiGHS's copy of the basis and makes its status lists on
  first use: the statuses are the ones read at once, after other solves on the model too;
* a whole search with the fast paths expands the same nodes, solves the same LPs and proves
  the same optimum as with the general code.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from coflowopt.exact import bnb
from coflowopt.exact.order_lp import (build_event_lp, new_event_lp_solver, pair_data,
                                      solve_event_lp)
from coflowopt.generators import uniform_random
from coflowopt.verify import verify_schedule

from test_event_lp_reduced import INSTANCES, random_node

# the module (coflowopt.exact.order_lp the name is the package's function order_lp)
OL = sys.modules["coflowopt.exact.order_lp"]


def _general(monkeypatch):
    """Switch every fast path of build_event_lp off (the code before them)."""
    monkeypatch.setattr(OL, "_csr", lambda v, r, c, shape: sp.csr_matrix((v, (r, c)),
                                                                           shape=shape))
    monkeypatch.setattr(OL, "_merged_block_pairs", OL._merge_block_pairs)
    monkeypatch.setattr(OL.PairData, "path_len", property(lambda self: 0))
    monkeypatch.setattr(OL.PairData, "sums_exact", property(lambda self: False))


def _same_lp(a, b):
    A, B = a.lp.A, b.lp.A
    assert A.shape == B.shape
    for f in ("data", "indices", "indptr"):
        x, y = getattr(A, f), getattr(B, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    for f in ("c", "row_lo", "row_hi", "col_lo", "col_hi"):
        assert np.array_equal(getattr(a.lp, f), getattr(b.lp, f)), f
    for f in ("col_key", "row_key", "x_pair", "x_interval"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.lp.exact.keys() == b.lp.exact.keys()
    for k in a.lp.exact:
        assert list(a.lp.exact[k]) == list(b.lp.exact[k]), k


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_node_lps_are_the_general_codes_lps(name, monkeypatch):
    inst = INSTANCES[name]()
    rng = np.random.default_rng(4)
    nodes = [random_node(pair_data(inst), rng) for _ in range(25)]
    pd_fast = pair_data(inst)
    fast = [build_event_lp(pd_fast, s, num_prefix_releases=r, block=b, reduced=red)
            for s, r, b in nodes for red in (False, True)]
    # twice: the second time the merged pairs come from the memo
    again = [build_event_lp(pd_fast, s, num_prefix_releases=r, block=b, reduced=True)
             for s, r, b in nodes]
    with monkeypatch.context() as m:
        _general(m)
        pd = pair_data(inst)
        slow = [build_event_lp(pd, s, num_prefix_releases=r, block=b, reduced=red)
                for s, r, b in nodes for red in (False, True)]
    for a, b in zip(fast, slow):
        _same_lp(a, b)
    for a, b in zip(again, slow[1::2]):
        _same_lp(a, b)
    assert 0 < len(pd_fast.merge_cache) <= len({tuple(sorted(b)) for _, _, b in nodes})


def test_csr_is_scipys_and_sums_repeats():
    rng = np.random.default_rng(0)
    r, c = rng.integers(0, 30, 200), rng.integers(0, 40, 200)
    key = np.unique(r * 40 + c)
    r1, c1 = key // 40, key % 40
    p = rng.permutation(key.size)
    for rows, cols in ((r1[p], c1[p]), (r, c)):     # no repeats; repeats (scipy sums them)
        v = rng.normal(size=rows.size)
        A, B = OL._csr(v, rows, cols, (30, 40)), sp.csr_matrix((v, (rows, cols)),
                                                               shape=(30, 40))
        for f in ("data", "indices", "indptr"):
            assert getattr(A, f).dtype == getattr(B, f).dtype
            assert np.array_equal(getattr(A, f), getattr(B, f))
        assert A.has_canonical_format


def test_merge_memo_is_read_only_and_bounded(monkeypatch):
    inst = INSTANCES["8x8 weights and releases"]()
    pd = pair_data(inst)
    monkeypatch.setattr(OL, "MERGE_CACHE_BLOCKS", 2)
    for blk in ([0, 1], [0, 1], [2, 3], [4, 5]):
        # every release first, then the block, then the other coflows
        build_event_lp(pd, [k for k in range(inst.num_coflows) if k not in blk], block=blk,
                       num_prefix_releases=pd.num_groups, reduced=True)
        assert len(pd.merge_cache) <= 2
    for got in pd.merge_cache.values():
        for a in got:
            if isinstance(a, np.ndarray):
                assert not a.flags.writeable


@pytest.mark.parametrize("name", ["4x4 integral", "fat-tree k=4"])
def test_warm_basis_is_the_basis_read_at_once(name):
    inst = INSTANCES[name]()
    pd = pair_data(inst)
    rng = np.random.default_rng(2)
    h = new_event_lp_solver()
    seen = 0
    for _ in range(20):
        s, r, b = random_node(pd, rng)
        sol = solve_event_lp(build_event_lp(pd, s, num_prefix_releases=r, block=b,
                                            reduced=True), model=h)
        if sol.status != "optimal":
            continue
        warm = sol.warm(h)
        now = h.basis()
        # another LP on the model: the warm start keeps the first one's basis
        s2, r2, b2 = random_node(pd, rng)
        solve_event_lp(build_event_lp(pd, s2, num_prefix_releases=r2, block=b2), model=h)
        assert warm[2].statuses() == now
        seen += 1
    assert seen >= 5


@pytest.mark.parametrize("K,seed", [(10, 0), (12, 3)])
def test_search_is_the_general_codes_search(K, seed, monkeypatch):
    inst = uniform_random(4, K, flows_per_coflow=(1, 4), size=(1, 10), seed=seed)
    kw = dict(time_limit=120, seed_bounds=False, lns=False)
    fast = bnb(inst, **kw)
    with monkeypatch.context() as m:
        _general(m)
        slow = bnb(inst, **kw)
    for res in (fast, slow):
        assert res.kind == "optimal" and verify_schedule(inst, res.schedule, mode="exact").ok
    assert fast.value == slow.value and fast.bound == slow.bound
    assert fast.certificate_status == slow.certificate_status == "proved exactly"
    a, b = fast.extra["search"], slow.extra["search"]
    for k in ("nodes_expanded", "nodes_created", "lps_solved", "root_bound", "sub_closed",
              "split_closed", "lp_inherited"):
        assert a.get(k) == b.get(k), k
