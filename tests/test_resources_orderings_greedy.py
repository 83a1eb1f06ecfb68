"""Greedy rates, BSSI, the SEBF/SCF/NCF/TCF heuristics, Mastrolilli's primal-dual, best-order and
the combinatorial bounds (isolated, per-resource Smith, BSSI dual) on instances over resources.

Hand-checked examples on a three-link star, the compiled greedy over paths against the
plain-Python reference, a big switch written as paths giving the big switch's bits, and the
guarantee for paths of ``L`` resources (``proofs/resource-model-guarantees.md``): with zero
releases every flow of the k-th coflow under greedy finishes by the sum over its path of the
ordered loads of the first k coflows, so BSSI + greedy is within ``2 L`` of the BSSI dual bound
and of the optimum."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import generators
from coflowopt.bounds.bssi_dual import bssi_dual
from coflowopt.bounds.simple import isolated_bound, port_bound
from coflowopt.exceptions import NotSupportedError
from coflowopt.orderings.bssi import bssi, processing_times
from coflowopt.orderings.heuristics import ncf, scf, sebf, tcf
from coflowopt.orderings.open_shop import mastrolilli
from coflowopt.orderings.search import best_order_search
from coflowopt.rates.greedy import distinct_paths, greedy
from coflowopt.registry import get_algorithm
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

from test_madd import random_instances
from test_resources_madd_varys import as_paths, pieces, star

FEW = settings(max_examples=15, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TOPOLOGIES = {
    "fat_tree4": lambda: fat_tree(4),
    "leaf_spine_os2": lambda: leaf_spine(2, 2, 4, oversubscription=2),
    "leaf_spine_os4": lambda: leaf_spine(2, 2, 4, oversubscription=4),
}


def topo_instance(seed: int, topo: str, K: int = 6, *, releases: bool = False,
                  weights: bool = False):
    """A random host-to-host instance (16 ports) placed at random on a topology, ECMP."""
    base = generators.GENERATORS["uniform_random"](
        num_ports=8, num_coflows=K, seed=seed, releases=(0, 4) if releases else None,
        weights=(1, 5) if weights else None)
    return on_topology(base, TOPOLOGIES[topo](), routing="ecmp", seed=seed,
                       placement="random", placement_seed=seed)


def ok(inst, s, exact=False):
    rep = verify_schedule(inst, s).raise_if_invalid()
    if exact:
        verify_schedule(inst, s, mode="exact").raise_if_invalid()
    return rep


# ------------------------------------------------------------------------- hand-checked
def test_greedy_on_the_star_by_hand():
    # C0: a->b (2) on links [a-s, s-b]; C1: a->c (1) on [a-s, s-c].  Both need a-s (cap 1).
    inst = star([([("ab", 2)], 0, None), ([("ac", 1)], 0, None)])
    # C0 first: a->b takes a-s at rate 1 (s-b has 2) until 2, then a->c runs 2..3
    rep = ok(inst, greedy(inst, [0, 1]), exact=True)
    assert rep.coflow_completion.tolist() == [2.0, 3.0]
    # C1 first: a->c at rate 1 until 1, then a->b 1..3
    rep = ok(inst, greedy(inst, [1, 0]), exact=True)
    assert rep.coflow_completion.tolist() == [3.0, 1.0]


def test_greedy_takes_the_smallest_residual_on_the_path_by_hand():
    # C0: c->b (3) on [s-c (1), s-b (2)] gets 1; C1: a->b (4) on [a-s (1), s-b (2)] gets the
    # residual min(1, 2 - 1) = 1 at once (the shared s-b has room for both)
    inst = star([([("cb", 3)], 0, None), ([("ab", 4)], 0, None)])
    s = greedy(inst, [0, 1])
    rep = ok(inst, s, exact=True)
    assert rep.coflow_completion.tolist() == [3.0, 4.0]
    assert sorted(s.rate.tolist()) == [1.0, 1.0]


def test_distinct_paths_groups_flows_by_resource_sequence():
    inst = star([([("ab", 1), ("ab", 2), ("cb", 1)], 0, None), ([("ac", 1), ("ab", 1)], 0, None)])
    path_of_flow, ptr, res = distinct_paths(inst)
    assert path_of_flow.tolist() == [0, 0, 1, 2, 0]      # numbered as they first appear
    assert ptr.tolist() == [0, 2, 4, 6]
    assert res.tolist() == [0, 1, 2, 1, 0, 2]
    # along another order; flows left out get -1
    path_of_flow, ptr, res = distinct_paths(inst, [3, 2, 0])
    assert path_of_flow.tolist() == [2, -1, 1, 0, -1]
    assert res.tolist() == [0, 2, 2, 1, 0, 1]


def test_distinct_paths_agrees_with_sorting_on_a_fat_tree():
    # the hash table groups exactly as np.unique over the rows of the padded path matrix
    from coflowopt.topology import fat_tree, on_topology
    from coflowopt.generators import uniform_random
    inst = on_topology(uniform_random(num_ports=16, num_coflows=60, seed=3), fat_tree(4),
                       routing="ecmp", seed=1)
    path_of_flow, ptr, res = distinct_paths(inst)
    rows = [tuple(inst.flow_resource[inst.flow_resource_ptr[f]:inst.flow_resource_ptr[f + 1]])
            for f in range(inst.num_flows)]
    assert [tuple(res[ptr[e]:ptr[e + 1]]) for e in path_of_flow] == rows
    assert len(set(rows)) == ptr.size - 1 == len(set(path_of_flow.tolist()))


def test_sebf_on_resources_by_hand():
    # rho over resources: C0 a->b 4: max(4/1, 4/2) = 4; C1 c->b 3 + a->b 1:
    # a-s 1, s-b 4/2 = 2, s-c 3 -> 3; C2 a->c 2: 2.  SEBF: C2, C1, C0
    inst = star([([("ab", 4)], 0, None), ([("cb", 3), ("ab", 1)], 0, None),
                 ([("ac", 2)], 0, None)])
    assert inst.rho.tolist() == [4.0, 3.0, 2.0]
    assert sebf(inst).tolist() == [2, 1, 0]
    with pytest.raises(NotSupportedError, match="coflowsim"):
        sebf(inst, gamma="coflowsim")
    assert tcf(inst).tolist() == [2, 0, 1]             # totals 4, 4, 2: ties in order
    assert scf(inst).tolist() == [2, 1, 0]             # largest flows 4, 3, 2
    assert ncf(inst).tolist() == [0, 2, 1]


def test_bssi_on_resources_by_hand():
    # Processing times (time units) per resource a-s, s-b, s-c:
    #   C0 a->b 2: 2, 1, 0;  C1 a->c 2: 2, 0, 2;  C2 c->b 1: 0, .5, 1
    # Loads 4, 1.5, 3: bottleneck a-s; w/p: C0 1/2, C1 1/2 -> tie; "first" takes C0 last,
    # "paper" the largest processing time then the largest index: C1 last.
    inst = star([([("ab", 2)], 0, None), ([("ac", 2)], 0, None), ([("cb", 1)], 0, None)])
    p = processing_times(inst).toarray()
    assert p.tolist() == [[2, 1, 0], [2, 0, 2], [0, 0.5, 1]]
    assert bssi(inst, tie_break="first").tolist()[-1] == 0
    assert bssi(inst).tolist()[-1] == 1
    assert bssi(inst, exact=True).tolist() == bssi(inst).tolist()


# ------------------------------------------------------------------------- greedy engines
@FEW
@given(seed=st.integers(0, 10_000), topo=st.sampled_from(sorted(TOPOLOGIES)),
       releases=st.booleans())
def test_greedy_kernel_equals_python_reference_on_topologies(seed, topo, releases):
    inst = topo_instance(seed, topo, releases=releases)
    order = np.random.default_rng(seed).permutation(inst.num_coflows)
    a = greedy(inst, order, engine="kernel")
    b = greedy(inst, order, engine="python")
    ra, rb = ok(inst, a), ok(inst, b)
    assert a.meta["engine"] == "kernel"
    np.testing.assert_allclose(ra.coflow_completion, rb.coflow_completion, rtol=1e-9)


@FEW
@given(case=random_instances())
def test_greedy_big_switch_as_paths_same_bits(case):
    inst, order = case
    assert pieces(greedy(inst, order)) == pieces(greedy(as_paths(inst), order))


@pytest.mark.parametrize("seed,K,ports", [(9, 14, 8), (5, 200, 32), (8, 200, 32), (3, 60, 16)])
def test_greedy_kernel_equals_reference_on_a_half_capacity_core(seed, K, ports):
    """Core links of capacity 0.5 (k=8 fat-tree, 2:1) put heads of rate 0.5 and 1 on one host
    link, where a walk whose change at a resource is negative skips to the resource's next
    positive head, and two departures at that resource, processed after the walk, bring the
    change from -0.5 through 0 to +0.5.  A draft of the skip restarted the walk only when the
    change crossed from below 0, not from exactly 0: these four instances then ended 2.0, 20.5,
    14.0 and 0 time units away from the reference on some coflow (the first three were wrong)."""
    base = generators.GENERATORS["uniform_random"](num_ports=ports, num_coflows=K, seed=seed)
    inst = on_topology(base, fat_tree(8, core_oversubscription=2), routing="ecmp", seed=seed,
                       placement="random", placement_seed=seed)
    order = np.random.default_rng(seed).permutation(inst.num_coflows)
    a = ok(inst, greedy(inst, order, engine="kernel"))
    b = ok(inst, greedy(inst, order, engine="python"))
    np.testing.assert_allclose(a.coflow_completion, b.coflow_completion, rtol=1e-12)


def test_greedy_kernel_positive_head_lists_outgrow_their_room():
    """A resource's positive-head list starts with room for ``_POS0`` (4) entries and moves to
    twice its room when it fills.  Ingress 0 of capacity 9.5 feeds up to 13 egress ports of
    capacities 1 and 0.6 (9.8 in all), so it binds with lists of more than 8 entries there and
    fractional allocations; coflows released while others run and finishing at staggered times
    empty and refill the list.  The kernel gives the reference's completions and a schedule
    that verifies, and the schedule really runs more than 8 flows through ingress 0 at once.
    (A move that lost the list's entries was caught here only once ingress 0 binds.)"""
    from coflowopt import Coflow, Instance
    from coflowopt.rates._greedy_kernel import _POS0

    rng = np.random.default_rng(4)
    coflows = [Coflow(f"C{k}", [(0, int(j), float(rng.integers(1, 6))) for j in
                                rng.permutation(13)[:rng.integers(6, 14)]],
                      release=float(k // 3)) for k in range(9)]
    coflows.append(Coflow("D", [(1, j, 2.0) for j in range(13)]))
    egress = np.where(np.arange(13) % 3 == 0, 1.0, 0.6)
    inst = Instance.from_coflows(coflows, ingress_capacity=[9.5, 1.0],
                                 egress_capacity=egress)
    order = np.random.default_rng(1).permutation(inst.num_coflows)
    a = greedy(inst, order, engine="kernel")
    ra = ok(inst, a)
    rb = ok(inst, greedy(inst, order, engine="python"))
    np.testing.assert_allclose(ra.coflow_completion, rb.coflow_completion, rtol=1e-12)
    # the most flows of ingress 0 running at one instant (pieces' starts are the instants)
    ing0 = inst.flow_src[a.flow] == 0
    busy = [int(np.sum(ing0 & (a.start <= t) & (a.end > t) & (a.rate > 0)))
            for t in np.unique(a.start[ing0])]
    assert max(busy) > 2 * _POS0


def test_greedy_exact_verification_on_a_topology():
    inst = topo_instance(3, "fat_tree4", K=5)
    ok(inst, greedy(inst, bssi(inst)), exact=True)


# ------------------------------------------------------------------------- orderings
@pytest.mark.parametrize("seed", range(6))
def test_orderings_on_topologies_equal_their_definition(seed):
    inst = topo_instance(seed, "leaf_spine_os2", K=8, weights=True)
    bs_order = lambda key: np.argsort(key, kind="stable").tolist()
    assert sebf(inst).tolist() == bs_order(inst.rho)
    assert scf(inst).tolist() == bs_order(inst.length)
    assert tcf(inst).tolist() == bs_order(inst.total_size)
    assert ncf(inst).tolist() == bs_order(inst.width)
    # the paths do not enter SCF/TCF/NCF: the same order as on the big switch it came from
    # (rho does: it reads the topology's bottleneck)
    assert mastrolilli(inst).tolist() == bssi(inst, tie_break="first", release="ignore").tolist()


@FEW
@given(case=random_instances())
def test_bssi_big_switch_as_paths_same_order(case):
    # "paper" ties: the entry resources (first hops) of a big switch written as paths are its
    # ingress ports, so Table 2's rule picks the same bottleneck
    inst, _ = case
    for tie_break in ("first", "paper"):
        for release in ("algorithm3", "ignore"):
            assert bssi(inst, tie_break=tie_break, release=release).tolist() == \
                bssi(as_paths(inst), tie_break=tie_break, release=release).tolist()


def test_best_order_on_a_topology_is_the_best_verified_order():
    import itertools
    inst = topo_instance(5, "fat_tree4", K=4, releases=True)
    res = best_order_search(inst)
    vals = [float(ok(inst, greedy(inst, list(p))).weighted_completion_time)
            for p in itertools.permutations(range(4))]
    assert res.objective == min(vals)
    assert get_algorithm("ordering", "best-order")(inst).tolist() == res.order.tolist()
    with pytest.raises(NotSupportedError, match="big switch"):
        best_order_search(inst, rates="bvn")


# ------------------------------------------------------------------------- the guarantee
def ordered_loads(inst, order):
    """``prefix[k, r]``: processing time at resource ``r`` of the coflows up to and including
    position ``k`` of ``order``, exact Fractions (then floats)."""
    p = processing_times(inst, exact=True)
    K, R = inst.num_coflows, inst.num_resources
    pos = np.empty(K, dtype=np.int64)
    pos[np.asarray(order)] = np.arange(K)
    rows = [[Fraction(0)] * R for _ in range(K)]
    for (k, r), v in p.items():
        rows[pos[k]][r] += v
    for k in range(1, K):
        rows[k] = [a + b for a, b in zip(rows[k - 1], rows[k])]
    return rows, pos


@pytest.mark.parametrize("topo", sorted(TOPOLOGIES))
@pytest.mark.parametrize("seed", range(4))
def test_bssi_greedy_within_2L_of_the_dual_and_the_optimum(topo, seed):
    inst = topo_instance(seed, topo, K=5, weights=True)
    order = bssi(inst)
    rep = ok(inst, greedy(inst, order))
    prefix, pos = ordered_loads(inst, order)
    ptr, res = inst.flow_resource_ptr, inst.flow_resource
    L = inst.max_path_length
    # the per-flow lemma: C_f <= sum over the path of the ordered loads up to f's coflow
    for f in range(inst.num_flows):
        k = int(inst.flow_coflow[f])
        bound = sum(prefix[pos[k]][r] for r in res[ptr[f]:ptr[f + 1]].tolist())
        assert rep.flow_completion[f] <= float(bound) * (1 + 1e-9) + 1e-12
    dual = bssi_dual(inst)
    assert dual.kind == "lower_bound"
    alg = float(rep.weighted_completion_time)
    assert alg <= 2 * L * float(dual.value) * (1 + 1e-9)
    opt = get_algorithm("exact", "bnb")(inst)
    assert opt.kind == "optimal"
    assert float(dual.value) <= float(opt.value) * (1 + 1e-9) <= alg * (1 + 1e-9)
    assert alg <= 2 * L * float(opt.value) * (1 + 1e-9)


@FEW
@given(seed=st.integers(0, 10_000), topo=st.sampled_from(sorted(TOPOLOGIES)),
       releases=st.booleans())
def test_combinatorial_bounds_below_every_verified_schedule(seed, topo, releases):
    inst = topo_instance(seed, topo, K=6, releases=releases, weights=True)
    bounds = [isolated_bound(inst), port_bound(inst), bssi_dual(inst)]
    assert all(b.kind == "lower_bound" for b in bounds)
    assert float(bounds[0].value) <= float(bounds[1].value) * (1 + 1e-12)
    for name in ("bssi", "sebf", "scf", "ncf", "tcf", "fifo"):
        s = greedy(inst, get_algorithm("ordering", name)(inst))
        v = float(ok(inst, s).weighted_completion_time)
        assert max(float(b.value) for b in bounds) <= v * (1 + 1e-9)


def test_port_bound_is_the_best_resource_and_names_it():
    inst = topo_instance(2, "leaf_spine_os4", K=6)
    res = port_bound(inst)
    assert res.kind == "lower_bound"
    per = res.extra["per_port"]
    assert len(per) == inst.num_resources
    q = res.extra["port_index"]
    assert float(res.value) == max(per) == per[q]
    assert res.extra["port"] == f"resource {inst.resource_names[q]}"
    # each resource's own figure is certified too, and none exceeds the best
    for r in (0, 7, inst.num_resources - 1):
        one = port_bound(inst, port=r)
        assert one.kind == "lower_bound" and float(one.value) <= float(res.value)


@pytest.mark.parametrize("n", [1, 64, 65, 4097, 300_000, 5_000_000])
def test_greedy_kernel_bit_tree_against_a_plain_array(n):
    """The 64-ary bit tree of the paths kernel (insert, remove, first set bit >= i) against a
    boolean array, across its level boundaries."""
    from coflowopt.rates._greedy_kernel import _bits_next, _bits_set, bitset_levels
    rng = np.random.default_rng(n)
    off = bitset_levels(n)
    bits = np.zeros(off[-1], dtype=np.uint64)
    ref = np.zeros(n, dtype=bool)
    for _ in range(2000):
        i, v = int(rng.integers(n)), int(rng.integers(2))
        _bits_set(bits, off, i, v)
        ref[i] = bool(v)
        q = int(rng.integers(n + 1))
        nz = np.flatnonzero(ref[q:])
        assert _bits_next(bits, off, q) == (q + int(nz[0]) if nz.size else -1)
