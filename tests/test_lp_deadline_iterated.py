"""lp-deadline-iterated (issue 13): LP-B replayed to tau-point deadlines, blocks, iterated
rounding, Konig.  The lemmas of ``proofs/lp-deadline-iterated.md`` on every piece, the rounding
on random fractional assignments, the digest's section 8.3 instances."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.lp_deadline_iterated import (block_starts, iterated_pieces, iterated_rounding,
                                            lp_deadline_iterated, phi)
from coflowopt.registry import get_algorithm
from coflowopt.slotted import verify_slotted
from coflowopt.slotted_greedy import first_slots
from coflowopt.testing import (check_lp_rounding_guarantee, instances, integral_optimum,
                               integral_version, random_topology_instance)
from coflowopt.verify import verify_schedule

pytest.importorskip("highspy")

RTOL = 1e-9


def check_pieces(inst, P, eps=0.25, L0=4, opt=None):
    R = len({int(a) for a in first_slots(inst).tolist() if a > 0})
    rho = 1 + eps + 3 / L0
    for b, sched, ph, st_, cost in zip(P.ends.tolist(), P.schedules, P.phis, P.stats,
                                       P.costs):
        rep = verify_slotted(inst, sched)
        assert rep.ok, rep.summary()
        fl = verify_schedule(inst, sched.to_schedule(exact=True), mode="exact")
        assert fl.ok and fl.weighted_completion_time == rep.weighted_completion_time == cost
        assert all(c <= p for c, p in zip(rep.coflow_completion, ph.tolist()))   # Lemma 3
        assert st_["max_excess"] <= 3                                           # Lemma 2
        from coflowopt.lp_deadline import tau_deadlines
        D = tau_deadlines(P.X, b)
        for k, d in enumerate(D.tolist()):
            N = int(np.ceil(d / b - 1e-12))
            assert ph[k] == phi(N, P.starts)
            assert ph[k] < rho * N + L0 + 2 + 3 * R                             # Lemma 4
    best = P.costs[P.best]
    assert best == min(P.costs) and best <= P.expectation <= P.guarantee
    assert float(P.guarantee) <= P.factor * float(P.lp_value) * (1 + RTOL)
    if opt is not None:
        assert float(P.lp_value) <= float(opt) * (1 + RTOL) and opt <= best


def test_blocks_and_phi_by_hand():
    assert block_starts(20, 0.5, 4).tolist() == [0, 4, 8, 12, 18, 27]
    assert block_starts(10, 0.0, 3, cuts=[4, 4, 30]).tolist() == [0, 3, 4, 6, 9, 12]
    starts = np.array([0, 4, 8, 12])
    assert [phi(n, starts) for n in (1, 4, 5, 9)] == [4 + 3, 4 + 3, 8 + 6, 12 + 9]


@pytest.mark.parametrize("D", [2, 3])
def test_single_coflow_and_known_answers(D):
    """Digest 8.3 #1 (one K_{D,D}: OPT = D) and #5 (the deadline-load example, OPT 23): every
    piece within its lemmas, above OPT."""
    kdd = Instance.from_coflows([Coflow("K", [(i, j, 1) for i in range(D)
                                              for j in range(D)])])
    P = iterated_pieces(kdd)
    check_pieces(kdd, P, opt=D)
    dl = Instance.from_coflows([Coflow("J1", [(0, 0, 1), (0, 1, 1)], weight=1),
                                Coflow("J2", [(1, 0, 1)], weight=10),
                                Coflow("J3", [(2, 1, 1)], weight=10)])
    check_pieces(dl, iterated_pieces(dl), opt=23)
    check_lp_rounding_guarantee("lp-deadline-iterated", dl, optimum=23)


def test_release_gadget_and_capacities():
    """Digest 8.3 #6 with ports of capacity 2."""
    inst = Instance.from_coflows([Coflow("H1", [(0, 0, 4), (1, 1, 4)]),
                                  Coflow("H2", [(0, 1, 3), (1, 0, 3)]),
                                  Coflow("L", [(0, 0, 1)], release=3, weight=5)],
                                 ingress_capacity=[2.0, 1.0], egress_capacity=[1.0, 2.0])
    opt = integral_optimum(inst)
    for eps, L0 in ((0.25, 4), (0.0, 1), (1.0, 2)):
        check_pieces(inst, iterated_pieces(inst, epsilon_blocks=eps, min_block=L0), eps, L0,
                     opt)


def test_rounding_invariants():
    """Random fractional assignments with whole row sums: the rounding keeps the sums and
    every (port, block) load within c_q l_i + 3."""
    rng = np.random.default_rng(0)
    for _ in range(25):
        m_in = int(rng.integers(2, 5))
        G, B = int(rng.integers(5, 30)), int(rng.integers(2, 6))
        src, dst = rng.integers(0, m_in, G), m_in + rng.integers(0, m_in, G)
        d = rng.integers(1, 6, G)
        z = rng.dirichlet(np.ones(B), G) * d[:, None]
        cap = rng.integers(1, 3, 2 * m_in)
        load = np.zeros((2 * m_in, B))
        for g in range(G):
            load[src[g]] += z[g]
            load[dst[g]] += z[g]
        lengths = np.max(np.ceil(load / cap[:, None] - 1e-9), axis=0).astype(np.int64)
        ports = [np.array([src[g], dst[g]]) for g in range(G)]
        m, stats = iterated_rounding(z, d, None, ports, cap, lengths,
                                     objective=rng.normal(size=z.shape))
        assert np.array_equal(m.sum(axis=1), d) and np.all(m >= 0)
        assert np.all(m[z <= 1e-12] == 0)
        final = np.zeros((2 * m_in, B), dtype=np.int64)
        for g in range(G):
            final[src[g]] += m[g]
            final[dst[g]] += m[g]
        assert np.all(final <= cap[:, None] * lengths[None, :] + 3)
        assert stats["max_excess"] == max(0, int(np.max(final - cap[:, None] * lengths[None, :])))


def test_modes_and_refusals():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(0, 1, 1)], weight=3),
                                  Coflow("C", [(1, 0, 3)], weight=2)])
    P = iterated_pieces(inst)
    for i, b in enumerate(P.ends.tolist()):
        s = lp_deadline_iterated(inst, tau=b)
        assert verify_slotted(inst, s).weighted_completion_time == P.costs[i]
        assert s.meta["tau"] == b and s.meta["mode"] == "tau"
    s1, s2 = lp_deadline_iterated(inst, seed=4), lp_deadline_iterated(inst, seed=4)
    assert s1.same_as(s2) and s1.meta["seed"] == 4
    assert lp_deadline_iterated(inst).meta["mode"] == "best piece"
    # min_block = 10^30 overflowed int64 in block_starts (an internal error: the parameter fuzz)
    for bad in ({"lp": "a"}, {"tau": 0.0}, {"tau": 0.5, "seed": 1}, {"min_block": 0},
                {"epsilon_blocks": 2.0}, {"min_block": 10**30}):
        with pytest.raises(InvalidParameterError):
            lp_deadline_iterated(inst, **bad)
    topo = integral_version(random_topology_instance(np.random.default_rng(0),
                                                     topology="fat-tree-k4"))
    with pytest.raises(NotSupportedError, match="big switch"):
        lp_deadline_iterated(topo)
    alg = get_algorithm("slotted", "lp-deadline-iterated")
    assert {"reconstruction", "big_switch_only", "randomized"} <= set(alg.tags)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=instances(max_ports=3, max_coflows=4, max_flows=3, releases=True,
                      integer_sizes=True), caps=st.booleans())
def test_property_lemmas(inst, caps):
    if caps:
        rng = np.random.default_rng(inst.num_flows)
        inst = inst.replace(ingress_capacity=rng.integers(1, 4, inst.num_ingress).astype(float),
                            egress_capacity=rng.integers(1, 4, inst.num_egress).astype(float))
    opt = integral_optimum(inst, time_limit=10.0)
    check_pieces(inst, iterated_pieces(inst), opt=opt)


def test_fractional_vertex_drops_rows_within_plus_three():
    """A 4-cycle of unit groups (ingress 0, 1; egress 2, 3), each half in two of three blocks
    of one slot: the assignment LP's vertex under this objective is fractional, the rounding
    drops rows (the branch of Lemma 2) and ends one unit above a block's capacity (<= 3)."""
    src, dst = [0, 1, 1, 0], [2, 2, 3, 3]
    z = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=float) / 2
    obj = np.array([[-1.742, 1.091, 0.395], [-0.496, -0.73, 0.17], [-0.563, 0.595, -0.256],
                    [0.387, -2.794, -0.753]])
    m, stats = iterated_rounding(z, np.ones(4, dtype=np.int64), None,
                                 [np.array([s, d]) for s, d in zip(src, dst)],
                                 np.ones(4, dtype=np.int64), np.ones(3, dtype=np.int64),
                                 objective=obj)
    assert stats["dropped"] > 0 and stats["iterations"] == 2
    assert m.sum(axis=1).tolist() == [1, 1, 1, 1] and np.all(m[z == 0] == 0)
    assert 1 <= stats["max_excess"] <= 3
