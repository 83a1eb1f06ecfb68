"""Faster node LPs of the branch and bound (coflowopt.exact.order_lp), each against the plain
event LP it replaces:

* ``build_event_lp(reduced=True)`` (the block's pairs merged by release group and path, pairs
  with a single interval folded into constant loads) has the same optimum and the same
  certified bound as the full LP, on random nodes of big-switch instances (integral and
  fractional sizes, weights, releases, capacities) and of topology instances; it refuses to
  become a schedule;
* a warm start from the parent node's basis (``EventLPSolution.warm``, ``warm_basis``) gives
  the same optimum in fewer simplex iterations;
* ``snapped_dual_bound`` proves the exact optimum of an integral LP (hand-checked on T-S4),
  and the branch and bound's exact proof no longer solves node LPs in rational arithmetic.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np
import pytest

from coflowopt.exact import bnb
from coflowopt.exact import exact_lp as exact_lp_module
from coflowopt.exact.order_lp import (build_event_lp, events_from_completions,
                                      exact_schedule_from_amounts, new_event_lp_solver,
                                      pair_data, snapped_dual_bound, solve_event_lp)
from coflowopt.generators import uniform_random
from coflowopt.testing import big_switch_as_paths, digest_ts4, random_topology_instance


def random_node(pd, rng):
    """A node of the backward search: the last events of a valid event sequence (the suffix),
    the coflows completing before them (the block) and the releases before them (prefix)."""
    inst = pd.instance
    C = inst.release + rng.uniform(0.1, 10.0, inst.num_coflows)
    codes = events_from_completions(pd, C)
    cut = int(rng.integers(1, len(codes) + 1))
    head, suffix = codes[:cut], codes[cut:]
    return suffix, sum(1 for c in head if c < 0), [c for c in head if c >= 0]


INSTANCES = {
    "4x4 integral": lambda: uniform_random(4, 12, flows_per_coflow=(1, 4), size=(1, 10),
                                           seed=3),
    "8x8 weights and releases": lambda: uniform_random(8, 10, flows_per_coflow=(1, 8),
                                                       size=(1, 10), weights=(1, 5),
                                                       releases=(0, 5), seed=1),
    "fractional sizes": lambda: uniform_random(3, 8, flows_per_coflow=(1, 4), size=(1, 10),
                                               integer_sizes=False, releases=(0, 3), seed=5),
    "T-S4 as paths": lambda: big_switch_as_paths(digest_ts4()),
    "fat-tree k=4": lambda: random_topology_instance(np.random.default_rng(7),
                                                     topology="fat-tree-k4", max_coflows=5,
                                                     releases=True, weights=True),
    "leaf-spine": lambda: random_topology_instance(np.random.default_rng(11),
                                                   topology="leaf-spine-2x2-os2",
                                                   max_coflows=5, releases=True),
}


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_reduced_node_lp_has_the_same_optimum(name):
    inst = INSTANCES[name]()
    pd = pair_data(inst)
    rng = np.random.default_rng(0)
    h1, h2 = new_event_lp_solver(), new_event_lp_solver()
    smaller = solved = 0
    for _ in range(25):
        suffix, rho, block = random_node(pd, rng)
        full = build_event_lp(pd, suffix, num_prefix_releases=rho, block=block)
        red = build_event_lp(pd, suffix, num_prefix_releases=rho, block=block, reduced=True)
        assert red.lp.num_cols <= full.lp.num_cols and red.lp.num_rows <= full.lp.num_rows
        smaller += red.lp.num_cols < full.lp.num_cols
        a, b = solve_event_lp(full, model=h1), solve_event_lp(red, model=h2)
        # a random sequence may complete a coflow before a later release it cannot wait for
        assert a.status == b.status
        if a.status == "infeasible":
            assert a.infeasible_proven and b.infeasible_proven
            continue
        assert a.status == "optimal"
        solved += 1
        assert b.value == pytest.approx(a.value, rel=1e-9, abs=1e-9)
        # both certified in exact arithmetic, each within float rounding of the optimum
        assert float(b.bound_exact) == pytest.approx(float(a.bound_exact), rel=1e-9,
                                                     abs=1e-9)
    assert smaller > 0 and solved >= 10   # the reduction does remove columns


def test_reduced_lp_merges_and_folds_by_hand():
    # T-S4: A = {(0,0): 2, (1,0): 4}, B = {(0,0): 9}, C = {(0,1): 5, (1,1): 6}.  Node: block
    # {A, B}, suffix (C,).  A's and B's pairs on path (0,0) merge into one of size 11, and all
    # block pairs use the one interval [0, t_block]: folded, so the only columns left are the
    # 2 event times and C's 2 pairs x 2 intervals (the full LP has 3 more).  By hand: the
    # block needs egress 0 for 2 + 4 + 9 = 15, so t_block >= 15; ingress 0 carries
    # 2 + 9 + 5 = 16 in all, so t_C >= 16, and 16 is reached (C sends 4 of its (0,1) flow in
    # ingress 0's spare time before 15): the LP value w_C t_C = 16.
    inst = digest_ts4()
    pd = pair_data(inst)
    full = build_event_lp(pd, (2,), block=[0, 1])
    red = build_event_lp(pd, (2,), block=[0, 1], reduced=True)
    assert full.lp.num_cols == 2 + 3 + 2 * 2
    assert red.lp.num_cols == 2 + 2 * 2
    assert red.lp.num_rows < full.lp.num_rows
    for lp in (full, red):
        sol = solve_event_lp(lp)
        assert sol.status == "optimal" and sol.bound_exact == Fraction(16)
    with pytest.raises(ValueError, match="reduced"):
        exact_schedule_from_amounts(pd, red, solve_event_lp(red).amounts)


@pytest.mark.parametrize("name", ["4x4 integral", "8x8 weights and releases", "fat-tree k=4"])
def test_warm_start_from_the_parent_node(name):
    inst = INSTANCES[name]()
    pd = pair_data(inst)
    rng = np.random.default_rng(1)
    h = new_event_lp_solver()
    cold_iters = warm_iters = pairs = 0
    for _ in range(30):
        suffix, rho, block = random_node(pd, rng)
        if len(block) < 2:
            continue
        parent = build_event_lp(pd, suffix, num_prefix_releases=rho, block=block,
                                reduced=True)
        psol = solve_event_lp(parent, model=h)
        if psol.status != "optimal":  # an infeasible random sequence
            continue
        warm = psol.warm(h)           # read right after the parent's solve
        assert warm is not None
        k = block[-1]                 # the child: k completes last among the block
        child = build_event_lp(pd, (k,) + tuple(suffix), num_prefix_releases=rho,
                               block=block[:-1], reduced=True)
        cold = solve_event_lp(child, model=h)
        hot = solve_event_lp(child, model=h, warm_start=warm)
        assert hot.status == cold.status == "optimal"
        pairs += 1
        assert hot.value == pytest.approx(cold.value, rel=1e-9, abs=1e-9)
        assert float(hot.bound_exact) == pytest.approx(float(cold.bound_exact), rel=1e-9,
                                                       abs=1e-9)
        cold_iters += cold.solution.iterations["simplex"]
        warm_iters += hot.solution.iterations["simplex"]
    assert pairs >= 5 and 0 < warm_iters < cold_iters


def test_snapped_duals_prove_the_exact_optimum():
    # T-S4 (seeds-000-002.md: OPT = 33 with A, C, B).  In the order A, C, B: A alone on
    # ingress 0/1 and egress 0 completes at 6; C then needs ingress 1 for 4 + 6 = 10 and
    # ingress 0 for 2 + 5 = 7, so completes at 11 at best if A's flows go first... the LP
    # finds 6 + 11 + 16 = 33; in the order A, B, C it is 6 + 11 + 20 = 37.  Both are integers:
    # the snapped duals prove them exactly, as the exact LP solve does
    inst = digest_ts4()
    pd = pair_data(inst)
    for order, value in (((0, 2, 1), 33), ((0, 1, 2), 37)):
        sol = solve_event_lp(build_event_lp(pd, order))
        assert sol.status == "optimal" and sol.value == pytest.approx(value)
        assert snapped_dual_bound(sol) == Fraction(value)
        ex = exact_lp_module.exact_lp_solution(sol.lp.lp)
        assert ex is not None and sol.lp.value_in_instance_units(ex.value) == Fraction(value)


def test_exact_proof_needs_no_rational_node_lp(monkeypatch):
    calls = []
    real = exact_lp_module.exact_lp_solution

    def counting(lp, **kw):
        calls.append(sys._getframe(1).f_code.co_name)     # who asked
        return real(lp, **kw)

    monkeypatch.setattr(exact_lp_module, "exact_lp_solution", counting)
    inst = uniform_random(8, 10, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=1)
    # the node LPs' proof: without the sub-instance bound, which closes this root by a search
    # of its own (and the LNS)
    res = bnb(inst, time_limit=60, sub_max=0, lns=False)
    assert res.kind == "optimal" and res.certificate_status == "proved exactly"
    assert res.extra["search"]["nodes_expanded"] > 0
    # only the incumbent's exact vertex (the verified schedule), no closure of the proof
    assert calls == ["verified_schedule"]


def test_dp_tables_above_22_coflows_only_when_memory_allows(monkeypatch):
    import coflowopt.exact.branch_and_bound as bb
    inst = uniform_random(4, 23, flows_per_coflow=(1, 2), size=(1, 5), seed=0)
    kw = dict(time_limit=100.0, rtol=1e-9, atol=0.0, node_lp=True, dominance="subset",
              max_nodes=None, local_search=False, table_max=26, table_kernel=True)
    # 2^23 subsets x 24 bytes = 192 MiB: refused with 300 MiB available, built with plenty
    monkeypatch.setattr(bb, "_available_memory", lambda: 300 * 2 ** 20)
    assert not bb._Search(inst, **kw).sb.tabulated
    monkeypatch.setattr(bb, "_available_memory", lambda: 64 * 2 ** 30)
    assert bb._Search(inst, **kw).sb.tabulated
