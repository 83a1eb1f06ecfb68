"""The DP tables over the chain-prefix sets of the dominance chains (proofs/bnb-dpb-chains.md).

* :func:`dominance_chains` partitions the members into chains of the precedence;
* on every chain-prefix set the chain tables hold the all-subset tables' ``MLB`` and ``DPB``
  (the lemma: ``DPB``'s minimum is attained with each chain's last member last), on random
  big-switch instances with weights and releases and on routed topology instances; on other
  sets ``dpb`` is a lower bound of the all-subset value;
* chains that break the lemma's conditions are refused;
* the search with the chain tables proves the same exact optimum as with the all-subset tables
  and as brute force over every event sequence, on instances with many dominated pairs, and
  its tables are smaller.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact.branch_and_bound import _Search
from coflowopt.exact.subset_bounds import SubsetBounds, dominance_chains
from coflowopt.generators import uniform_random
from coflowopt.rates._jit import HAVE_NUMBA
from tests.test_exact_search_v2 import crowded   # many dominated pairs

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="the chain tables need the kernel")

REL = 1e-9


def search_succ(inst, dominance="subset"):
    s = _Search(inst, time_limit=10, rtol=REL, atol=0, node_lp=True, dominance=dominance,
                max_nodes=None, local_search=False, table_max=0)
    return s.members, s.succ


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), density=st.floats(0.0, 0.6), seed=st.integers(0, 2 ** 31))
def test_dominance_chains_partition_into_chains(n, density, seed):
    rng = np.random.default_rng(seed)
    rank = rng.permutation(n)              # a random strict order: i before j if rank is less
    succ = [0] * n
    for i in range(n):
        for j in range(n):
            if rank[i] < rank[j] and rng.random() < density:
                succ[i] |= 1 << j
    closure = list(succ)
    for _ in range(n):
        closure = [c | sum((closure[j] for j in range(n) if c >> j & 1), 0) | c
                   for c in closure]
    chains = dominance_chains(succ)
    assert sorted(i for c in chains for i in c) == list(range(n))
    for c in chains:
        for a, b in zip(c, c[1:]):
            assert closure[a] >> b & 1          # a completes before b
    assert [len(c) for c in chains] == sorted((len(c) for c in chains), reverse=True)


def test_dominance_chains_refuses_a_cycle():
    with pytest.raises(ValueError, match="cycle"):
        dominance_chains([0b10, 0b01])


def _tables_agree(inst, dominance="subset") -> int:
    members, succ = search_succ(inst, dominance)
    chains = dominance_chains(succ)
    plain = SubsetBounds(inst, members, max_table=30)
    ch = SubsetBounds(inst, members, max_table=30, chains=chains)
    if ch.chains is None:
        return 0
    assert ch.num_states < 1 << members.size
    seen = 0
    for mask in range(1 << members.size):
        idx, sub = ch._index(mask)
        a = plain.dpb(mask)
        if sub == mask:
            seen += 1
            assert ch.dpb(mask) == pytest.approx(a, rel=1e-12, abs=1e-12)
            assert ch.mlb(mask) == pytest.approx(plain.mlb(mask), rel=1e-12, abs=1e-12)
        else:
            # the largest chain-prefix subset's DPB: a lower bound of the set's
            assert ch.dpb(mask) <= a * (1 + 1e-12)
            assert ch.mlb(mask) == pytest.approx(plain.mlb(mask), rel=1e-12, abs=1e-12)
    assert seen == ch.num_states
    order = ch.dp_order()
    assert sorted(order) == sorted(members.tolist())
    return seen


def test_chain_tables_equal_subset_tables_on_chain_prefix_sets():
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        K = int(rng.integers(5, 13))
        inst = uniform_random(int(rng.choice([2, 3, 4])), K, flows_per_coflow=(1, 3),
                              size=(1, 4), weights=(1, 3) if seed % 2 else None,
                              releases=(0, 2) if seed % 3 == 0 else None, seed=seed)
        checked += _tables_agree(inst)
    for seed in range(10):
        checked += _tables_agree(crowded(12, seed), dominance="identical")
        checked += _tables_agree(crowded(12, seed))
    assert checked > 10_000


def test_chain_tables_on_a_topology():
    from tests.test_resources_exact import topology_instance
    n = 0
    for seed in range(30):
        inst = topology_instance(seed, "leaf-spine-2x2-os2", 10, max_flows=1)
        n += _tables_agree(inst)
    assert n > 0, "no dominated pairs drawn"


def test_chains_breaking_the_lemma_are_refused():
    # coflow 0 has more data than coflow 1: it cannot come first in a chain
    inst = uniform_random(2, 2, flows_per_coflow=(1, 1), size=(1, 1), seed=0)
    loads = inst.port_loads
    big = int(np.argmax(loads.sum(axis=1)))
    small = 1 - big
    if np.array_equal(loads[0], loads[1]):
        pytest.skip("equal coflows drawn")
    with pytest.raises(ValueError, match="chain"):
        SubsetBounds(inst, [0, 1], chains=[[big, small]])
    with pytest.raises(ValueError, match="partition"):
        SubsetBounds(inst, [0, 1], chains=[[0]])


@settings(max_examples=15, deadline=None)
@given(K=st.integers(3, 6), seed=st.integers(0, 2 ** 31))
def test_search_with_chain_tables_equals_subset_tables_and_brute_force(K, seed):
    inst = crowded(K, seed)
    new = bnb(inst, time_limit=120, seed_bounds=False)
    plain = bnb(inst, time_limit=120, seed_bounds=False, dp_chains=False)
    assert new.kind == plain.kind == "optimal"
    assert new.certificate_status == plain.certificate_status == "proved exactly"
    assert new.value == plain.value                  # exact rationals
    ref = enumerate_orders(inst)
    assert float(new.value) == pytest.approx(float(ref.value), rel=1e-8)
    assert new.extra["search"]["table_sets"] <= plain.extra["search"]["table_sets"]


def test_search_uses_fewer_sets_on_a_crowded_instance():
    inst = crowded(14, 3)
    members, succ = search_succ(inst)
    res = bnb(inst, time_limit=120, seed_bounds=False)
    assert res.kind == "optimal"
    sets = res.extra["search"]["table_sets"]
    assert 0 < sets < 1 << members.size
    assert float(res.value) == pytest.approx(
        float(bnb(inst, time_limit=120, seed_bounds=False, dp_chains=False).value), rel=REL)
