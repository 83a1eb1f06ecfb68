"""The incumbent's large-neighbourhood search of the branch and bound (``bnb(lns=True)``).

* ``window_node`` is the search tree's node whose suffix is the sequence's tail after its
  first ``w`` completions (and None for a sequence the search never places);
* a window as large as the instance searches the whole tree from a poor incumbent and finds
  the brute-force optimum (every event sequence's LP), and leaves the search's proof records
  untouched (it yields an incumbent, never a bound);
* ``bnb`` with and without it proves the same exact optimum as brute force.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact import branch_and_bound as B
from coflowopt.exact.order_lp import events_from_completions
from test_exact_inherited_lp import INSTANCES


def _search(inst) -> B._Search:
    return B._Search(inst, time_limit=120, rtol=B.DEFAULT_RTOL, atol=0.0, node_lp=True,
                     dominance="subset", max_nodes=None, local_search=True, table_max=22,
                     table_kernel=True, block_charge=True, dive_period=0, tie_digits=10,
                     dp_chains=True)


def _poor_incumbent(s: B._Search) -> None:
    """The incumbent: the LP of the sequence that completes the coflows in decreasing order
    of their total data, each at its release plus that order's prefix load (a poor order)."""
    inst = s.inst
    order = np.argsort(-inst.rho, kind="stable")
    C = np.empty(inst.num_coflows)
    t = 0.0
    for k in order:
        t = max(t, float(inst.release[k])) + float(inst.rho[k]) + 1.0
        C[k] = t
    codes = events_from_completions(s.pd, C)
    s.offer(codes, s.solve(codes), "test")
    assert math.isfinite(s.inc.value)


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_window_finds_the_brute_force_optimum(name, seed):
    inst = INSTANCES[name](seed).select_coflows(list(range(6)))
    brute = enumerate_orders(inst, max_coflows=6)
    assert brute.kind == "optimal"
    s = _search(inst)
    _poor_incumbent(s)
    start = s.inc.value
    improved = s.lns_window(s.n, time.perf_counter() + 120, max_nodes=None)
    opt = float(brute.value)
    assert s.inc.value == pytest.approx(opt, rel=1e-9, abs=1e-9)
    assert improved == (start > s.inc.value)
    assert s.inc.source == f"LNS (window {s.n})" or not improved
    # the incumbent's sequence re-solved gives its value
    assert s.solve(s.inc.codes).value == pytest.approx(s.inc.value, rel=1e-12)
    # nothing of the proof: no closed region, no tight record, no node of the main search
    assert s.closed_min == math.inf and s.tight == [] and s.heap is None
    assert s.stats.nodes_expanded == 0 and s.stats.nodes_pruned == 0
    assert s.stats.lns_windows == 1 and s.stats.lns_nodes > 0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("w", [0, 2, 4, 7])
def test_window_node_is_the_tail_of_the_sequence(seed, w):
    inst = INSTANCES["8x8 weights and releases"](seed)
    s = _search(inst)
    rng = np.random.default_rng(seed)
    C = inst.release + rng.uniform(0.1, 10.0, inst.num_coflows)
    codes = events_from_completions(s.pd, C)
    U, rho, suffix, chain = s.window_node(codes, w)
    members = s.members.tolist()
    placed = {c for c in suffix if c >= 0}
    assert tuple(codes[len(codes) - len(suffix):]) == suffix
    assert bin(U).count("1") == min(w, s.n)
    assert {members[i] for i in range(s.n) if U >> i & 1} == set(members) - placed
    assert rho == s.pd.num_groups - sum(1 for c in suffix if c < 0)
    # the chain of the suffix: its completions' steps from the root, as the search adds them
    U2, want = (1 << s.n) - 1, 0.0
    for c in reversed(suffix):
        if c >= 0:
            want += float(inst.weight[c]) * max(s.sb.mlb(U2), float(s.e[c]))
            U2 ^= 1 << members.index(c)
    assert chain == want
    # the head the window frees holds its first w completions and the releases among them
    head = codes[:len(codes) - len(suffix)]
    assert sum(1 for c in head if c >= 0) == min(w, s.n)


def test_window_node_refuses_a_sequence_the_search_never_places():
    inst = INSTANCES["8x8 weights and releases"](0)
    s = _search(inst)
    codes = list(events_from_completions(s.pd, inst.release + 1.0))
    # a coflow of the latest release group moved in front of its release
    g = s.pd.num_groups
    k = next(c for c in codes if c >= 0 and s.pd.coflow_group[c] == g - 1)
    codes.remove(k)
    codes.insert(codes.index(-g), k)
    assert s.window_node(codes, 0) is None


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1])
def test_bnb_with_and_without_lns_prove_the_brute_force_optimum(name, seed, monkeypatch):
    inst = INSTANCES[name](seed).select_coflows(list(range(6)))
    brute = enumerate_orders(inst, max_coflows=6)
    # windows below the instance's 6 coflows (LNS_WINDOWS starts at 6: none would run)
    monkeypatch.setattr(B, "LNS_WINDOWS", (2, 3, 5))
    values = []
    for lns in (True, False):
        res = bnb(inst, time_limit=120, lns=lns, seed_bounds=False)
        assert res.kind == "optimal" and res.certificate_status == "proved exactly"
        assert res.bound == res.value
        values.append(res.value)
        if lns:
            assert res.extra["search"]["lns_windows"] >= 1
    assert values[0] == values[1]
    assert float(values[0]) == pytest.approx(float(brute.value), rel=1e-9)
