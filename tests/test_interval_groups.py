"""interval-groups (issue 13): geometric groups of LP mean completion times, one block per group
in the integral model.  Hand-checked examples, the digest's section 8.3 instances, and
hypothesis properties for every lemma of ``proofs/interval-groups.md``: the load bound per
group, the block length, ``C_k <= s Lambda beta a / (a - 1)``, every piece ``<= Lambda a^2 /
(a - 1) LP``, ``best <= E <= Lambda a / ln a LP``, ``LP <= OPT <= ALG``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.interval_groups import (group_indices, interval_group_pieces,
                                       interval_groups, offset_breakpoints)
from coflowopt.registry import get_algorithm
from coflowopt.slotted import integral_capacities
from coflowopt.slotted_greedy import first_slots
from coflowopt.testing import (check_lp_rounding_guarantee, instances, integral_optimum,
                               random_topology_instance, integral_version)
from test_theory_frontier_lps import checked_schedule

pytest.importorskip("highspy")

RTOL = 1e-9


checked = checked_schedule      # both verifiers, the same value


def check_lemmas(inst, P, opt=None):
    """Every lemma of proofs/interval-groups.md on every piece of ``P``."""
    size, cap = integral_capacities(inst)
    first = first_slots(inst)
    lam, a = P.block_factor, P.ratio
    lp = float(P.lp_value)
    cbar = [float(c) for c in P.cbar]
    loads = np.zeros((inst.num_coflows, inst.num_resources), dtype=np.int64)
    ptr, res = inst.flow_resource_ptr, inst.flow_resource
    for f in range(inst.num_flows):
        loads[inst.flow_coflow[f], res[ptr[f]:ptr[f + 1]]] += size[f]
    assert min(cbar) >= 1
    for k in range(inst.num_coflows):          # a_k + 1 <= e_k <= Cbar_k
        assert first[k] + 1 <= cbar[k] * (1 + RTOL)
    for g, cost in zip(P.groupings, P.costs):
        sched, blocks = P.schedules[g]
        rep = checked(inst, sched)
        assert rep.weighted_completion_time == cost
        for blk in blocks:
            members = [k for k in range(inst.num_coflows) if g[k] == blk["group"]]
            beta = max(cbar[k] for k in members)          # <= beta_l
            # Lemma 1 for S = {Cbar <= max Cbar of the group} (a subset of {Cbar <= beta_l})
            S = [k for k in range(inst.num_coflows) if cbar[k] <= beta]
            D = loads[S].sum(axis=0)
            assert np.all(D <= cap * (2 * beta - 1) * (1 + 1e-7) + 1e-9), (D, cap, beta)
            assert blk["length"] >= blk["need"]
            if inst.is_big_switch:
                assert blk["length"] == blk["need"]        # Konig: the fewest slots
            assert blk["start"] >= max(first[k] for k in members)
        ends = {b["group"]: b["start"] + b["length"] for b in blocks}
        for k in range(inst.num_coflows):
            C = float(rep.coflow_completion[k])
            assert C <= ends[g[k]]
            beta_l = a ** g[k] * a ** _offset_of(P, g)
            assert C <= lam * beta_l * a / (a - 1) * (1 + 1e-9), (k, C, beta_l)
            assert C < lam * a * a / (a - 1) * cbar[k] * (1 + 1e-9)
        assert float(cost) <= P.piece_factor * lp * (1 + RTOL)
    best = float(P.costs[P.best])
    assert best == min(float(c) for c in P.costs)
    assert best <= P.expectation * (1 + RTOL)
    assert P.expectation <= P.factor * lp * (1 + RTOL)
    assert abs(sum(P.lengths) - 1) < 1e-12
    if opt is not None:
        assert float(P.bound.value) <= opt * (1 + RTOL)
        assert lp <= opt * (1 + RTOL) and opt <= best


def _offset_of(P, g):
    i = P.groupings.index(g)
    return float(P.starts[i] + P.lengths[i] / 2)


def midpoint_expectation(inst, P, n=2000):
    """The expectation over a uniform offset by a midpoint rule on n offsets, each run."""
    cost_of = dict(zip(P.groupings, P.costs))
    tot = 0.0
    for i in range(n):
        u = (i + 0.5) / n
        g = tuple(group_indices(P.cbar, P.ratio, u).tolist())
        tot += float(cost_of[g])
    return tot / n


# ------------------------------------------------------------------ hand-checked and 8.3
def test_grid_helpers():
    assert group_indices([1, 2, 3, 4, 5], 2.0, 0.0).tolist() == [0, 1, 2, 2, 3]
    assert group_indices([1, 2, 3], 2.0, 0.5).tolist() == [0, 1, 2]   # 2^0.5, 2^1.5, 2^2.5
    assert offset_breakpoints([1, 2, 4], 2.0).tolist() == [0.0]
    assert np.allclose(offset_breakpoints([3, 5], 2.0), [0.0, math.log2(5) - 2,
                                                          math.log2(3) - 1])


@pytest.mark.parametrize("D", [2, 3, 4])
def test_single_coflow_is_optimal(D):
    """Digest 8.3 #1: one coflow K_{D,D}: LP-A = D (cut-off), one group, one Konig block of
    exactly D slots: ALG = OPT = D on every piece."""
    inst = Instance.from_coflows([Coflow("K", [(i, j, 1) for i in range(D)
                                               for j in range(D)])])
    P = interval_group_pieces(inst)
    assert P.cbar == [D] and set(P.costs) == {D}
    assert checked(inst, interval_groups(inst)).weighted_completion_time == D
    check_lemmas(inst, P, D)          # OPT = Delta = D (Konig), the digest's known answer


def test_single_coflow_with_release_and_capacity():
    """One coflow released at 2.5 (first slot 3) on ports of capacity 2: OPT = 3 + ceil(5 /
    2) = 6 (Konig with 2 copies per port)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (0, 1, 2), (1, 0, 2)],
                                         release=2.5)],
                                 ingress_capacity=[2.0, 2.0], egress_capacity=[2.0, 2.0])
    s = interval_groups(inst)
    assert checked(inst, s).weighted_completion_time == 6 == integral_optimum(inst)


def test_single_machine_smith():
    """Digest 8.3 #2: unit jobs on one pair: the groups follow LP-A = Smith's rule; ALG within
    its per-piece factor of LP, above OPT."""
    w = [3.0, 1.0, 2.0, 5.0]
    inst = Instance.from_coflows([Coflow(f"J{j}", [(0, 0, 1)], weight=w[j]) for j in range(4)])
    opt = integral_optimum(inst)
    assert opt == 5 * 1 + 3 * 2 + 2 * 3 + 1 * 4
    P = interval_group_pieces(inst)
    check_lemmas(inst, P, float(opt))
    check_lp_rounding_guarantee("interval-groups", inst, optimum=opt)


def test_concurrent_open_shop():
    """Digest 8.3 #3: private port pairs per machine; OPT by permutations."""
    from test_guarantee_checks import open_shop
    inst, best = open_shop()
    assert integral_optimum(inst) == best
    check_lemmas(inst, interval_group_pieces(inst), best)
    for ratio in (2.0, math.e, 3.0):
        check_lemmas(inst, interval_group_pieces(inst, ratio=ratio), best)


def test_deadline_load_example_and_release_gadget():
    """Digest 8.3 #5 (LP-B above LP-A) and #6 (a late light coflow among heavy ones)."""
    dl = Instance.from_coflows([Coflow("J1", [(0, 0, 1), (0, 1, 1)], weight=1),
                                Coflow("J2", [(1, 0, 1)], weight=10),
                                Coflow("J3", [(2, 1, 1)], weight=10)])
    for lp in ("a", "b"):
        check_lemmas(dl, interval_group_pieces(dl, lp=lp), 23)
    rg = Instance.from_coflows([Coflow("H1", [(0, 0, 4), (1, 1, 4)]),
                                Coflow("H2", [(0, 1, 3), (1, 0, 3)]),
                                Coflow("L", [(0, 0, 1)], release=3, weight=5)])
    opt = integral_optimum(rg)
    P = interval_group_pieces(rg)
    check_lemmas(rg, P, float(opt))
    s = interval_groups(rg)
    assert checked(rg, s).weighted_completion_time == P.costs[P.best]


def test_modes_offset_seed_and_refusals():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(0, 1, 1)], weight=3),
                                  Coflow("C", [(1, 0, 3)], weight=2),
                                  Coflow("D", [(1, 1, 2), (0, 0, 1)])])
    P = interval_group_pieces(inst)
    for i, (a, n) in enumerate(zip(P.starts, P.lengths)):
        s = interval_groups(inst, offset=float(a + n / 2))
        assert checked(inst, s).weighted_completion_time == P.costs[i]
        assert s.meta["mode"] == "offset"
    s1, s2 = interval_groups(inst, seed=7), interval_groups(inst, seed=7)
    assert s1.same_as(s2) and s1.meta["seed"] == 7 and 0 <= s1.meta["offset"] < 1
    best = interval_groups(inst)
    assert best.meta["mode"] == "best piece"
    assert checked(inst, best).weighted_completion_time == min(P.costs)
    assert abs(midpoint_expectation(inst, P) - P.expectation) <= 0.01 * P.expectation
    for bad in ({"ratio": 1.0}, {"ratio": 3.5}, {"offset": 1.0}, {"offset": 0.2, "seed": 1},
                {"lp": "c"}):
        with pytest.raises(InvalidParameterError):
            interval_groups(inst, **bad)


def test_registered():
    alg = get_algorithm("slotted", "interval-groups")
    assert {"reconstruction", "integral_model", "randomized"} <= set(alg.tags)
    assert "8" in alg.guarantee and "proofs/interval-groups.md" in alg.reference


# ------------------------------------------------------------------ properties
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=instances(max_ports=3, max_coflows=5, max_flows=3, releases=True,
                      integer_sizes=True),
       caps=st.booleans(), lp=st.sampled_from(["a", "b"]),
       ratio=st.sampled_from([2.0, math.e]))
def test_property_big_switch_chain(inst, caps, lp, ratio):
    if caps:
        rng = np.random.default_rng(inst.num_flows)
        inst = inst.replace(ingress_capacity=rng.integers(1, 4, inst.num_ingress).astype(float),
                            egress_capacity=rng.integers(1, 4, inst.num_egress).astype(float))
    P = interval_group_pieces(inst, lp=lp, ratio=ratio)
    assert P.block_factor == 2
    opt = integral_optimum(inst, time_limit=10.0) if inst.num_coflows <= 4 else None
    check_lemmas(inst, P, None if opt is None else float(opt))
    assert abs(midpoint_expectation(inst, P) - P.expectation) <= 0.01 * P.expectation


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 16),
       topology=st.sampled_from(["leaf-spine-2x2-os2", "fat-tree-k4"]))
def test_property_on_topologies(seed, topology):
    inst = integral_version(random_topology_instance(np.random.default_rng(seed),
                                                     topology=topology, max_coflows=4,
                                                     releases=True))
    P = interval_group_pieces(inst)
    assert P.block_factor == 2 * int(np.max(np.diff(inst.flow_resource_ptr)))
    check_lemmas(inst, P)
