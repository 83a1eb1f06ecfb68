"""The heuristic orderings (SCF, NCF, TCF, SEBF), random and best-order: orders on small
examples, the coflowsim variants, the registry entries and parameter validation."""

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.orderings import (best_order, best_order_search, bssi, fifo, ncf, random_order,
                                 scf, sebf, tcf, validate_order)
from coflowopt.orderings.heuristics import coflowsim_alpha
from coflowopt.rates import greedy
from coflowopt.registry import algorithms, get_algorithm
from coflowopt.testing import digest_ts3, digest_ts4 as ts4, random_instance
from coflowopt.verify import verify_schedule


def mixed():
    #   coflow  flows (i, j, size)                  length width endpoints total  rho
    #   W       3 flows of 1 from ingress 0 -> 3 egresses   1     3      1      3    3
    #   L       (0,0,4)                                      4     1      1      4    4
    #   T       (1,1,2),(2,2,2)                              2     2      2      4    2
    #   S       (2,0,1.5)                                    1.5   1      1    1.5  1.5
    return Instance.from_coflows([
        Coflow("W", [(0, 0, 1), (0, 1, 1), (0, 2, 1)]),
        Coflow("L", [(0, 0, 4)]),
        Coflow("T", [(1, 1, 2), (2, 2, 2)]),
        Coflow("S", [(2, 0, 1.5)]),
    ])


def names(inst, order):
    return [inst.coflow_ids[k] for k in order]


def test_heuristic_orders_on_a_small_example():
    inst = mixed()
    assert names(inst, scf(inst)) == ["W", "S", "T", "L"]
    assert names(inst, ncf(inst)) == ["L", "S", "T", "W"]           # flows: 3, 1, 2, 1
    assert names(inst, ncf(inst, width="endpoints")) == ["W", "L", "S", "T"]  # 1, 1, 2, 1
    assert names(inst, tcf(inst)) == ["S", "W", "L", "T"]           # 3, 4, 4, 1.5: L before T
    assert names(inst, sebf(inst)) == ["S", "T", "W", "L"]


def test_ts4_sebf_and_tcf_lose_to_bssi():
    # seeds digest T-S4: SEBF = TCF = A, B, C with sum 37; BSSI A, C, B with 33
    inst = ts4()
    for order in (sebf(inst), tcf(inst)):
        assert order.tolist() == [0, 1, 2]
        rep = verify_schedule(inst, greedy(inst, order)).raise_if_invalid()
        assert rep.coflow_completion.tolist() == [6, 15, 16]
        assert rep.weighted_completion_time == 37
    assert bssi(inst).tolist() == [0, 2, 1]


def test_ties_keep_instance_order():
    inst = Instance.from_coflows([Coflow(c, [(0, 0, 2)]) for c in "ABCD"])
    for f in (scf, ncf, tcf, sebf, fifo):
        assert f(inst).tolist() == [0, 1, 2, 3]


def test_sebf_coflowsim_alpha():
    # even split and unit capacities: coflowsim's alpha is the maximum port load = rho
    even = Instance.from_coflows(
        [Coflow(c, [(i, j, s) for i in range(2) for j in range(3)]) for c, s in (("A", 2.0),
                                                                               ("B", 1.5))])
    assert coflowsim_alpha(even).tolist() == even.rho.tolist() == [6.0, 4.5]
    # unequal senders: coflowsim charges each sender total / #senders, not its own load
    uneq = Instance.from_coflows([Coflow("A", [(0, 0, 4), (1, 1, 1)]),     # rho 4, alpha 4
                                  Coflow("B", [(0, 0, 3), (1, 0, 0.5)])])  # rho 3.5, alpha 3.5
    assert coflowsim_alpha(uneq).tolist() == [4.0, 3.5]
    skew = Instance.from_coflows([Coflow("A", [(0, 0, 4), (1, 1, 1)]),     # rho 4, alpha 4
                                  Coflow("B", [(0, 0, 3.9), (1, 1, 3.9)]),  # rho 3.9, alpha 3.9
                                  Coflow("C", [(0, 0, 5), (1, 1, 0.1), (1, 0, 0.1)])])
    # C: rho = max(5, 0.2, 5.1, 0.1) = 5.1; alpha = max(5.2 / 2, 5.1) = 5.1
    assert sebf(skew, gamma="coflowsim").tolist() == sebf(skew).tolist() == [1, 0, 2]
    # heterogeneous capacities: rho is in time, alpha in data, so the orders differ
    het = Instance.from_coflows([Coflow("A", [(0, 0, 3)]), Coflow("B", [(1, 1, 2)])],
                                ingress_capacity=[4.0, 1.0], egress_capacity=[4.0, 1.0])
    assert sebf(het).tolist() == [0, 1]                # rho: 0.75 < 2
    assert sebf(het, gamma="coflowsim").tolist() == [1, 0]   # alpha: 3 > 2


def test_random_is_seeded():
    inst = Instance.from_coflows([Coflow(str(k), [(0, 0, 1)]) for k in range(8)])
    a, b = random_order(inst, seed=7), random_order(inst, seed=7)
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == list(range(8))
    assert any(random_order(inst, seed=s).tolist() != a.tolist() for s in range(5))


def test_best_order():
    inst = digest_ts3()
    res = best_order_search(inst)
    assert res.order.tolist() == [0, 1, 2] and res.objective == 10      # T-S3: ABC
    assert res.evaluated == 6 and res.rejected == 0 and res.ties == 1
    assert best_order(inst).tolist() == [0, 1, 2]
    # every order is at least as bad
    for order in ([0, 2, 1], [1, 0, 2], [2, 1, 0]):
        rep = verify_schedule(inst, greedy(inst, order))
        assert rep.weighted_completion_time >= res.objective
    cct = best_order_search(inst.with_releases([0, 1, 0]), objective="weighted_cct")
    assert cct.objective_name == "weighted_cct"


def test_best_order_refuses_large_instances():
    inst = Instance.from_coflows([Coflow(str(k), [(0, 0, 1)]) for k in range(10)])
    with pytest.raises(NotSupportedError, match="K! orders"):
        best_order(inst)
    with pytest.raises(NotSupportedError, match="3"):
        best_order(inst.select_coflows(range(4)), max_coflows=3)


def test_registered_orderings_return_permutations():
    inst = random_instance(np.random.default_rng(5), max_coflows=5, releases=True,
                           weights=True)
    got = {a.name for a in algorithms("ordering")}
    assert {"bssi", "mastrolilli", "scf", "ncf", "tcf", "sebf", "random", "best-order"} <= got
    for alg in algorithms("ordering"):
        order = alg.func(inst)
        assert order.dtype == np.int64
        validate_order(inst, order)
    assert "exponential" in get_algorithm("ordering", "best-order").tags
    assert "randomized" in get_algorithm("ordering", "random").tags
    assert get_algorithm("ordering", "sincronia").name == "bssi"


@pytest.mark.parametrize("call,match", [
    (lambda i: ncf(i, width="senders"), "width"),
    (lambda i: sebf(i, gamma="dynamic"), "gamma"),
    (lambda i: random_order(i, seed=-1), "seed"),
    (lambda i: random_order(i, seed=1.5), "seed"),
    (lambda i: best_order(i, rates="nope"), "unknown rates"),
    (lambda i: best_order(i, objective="makespan"), "objective"),
    (lambda i: best_order(i, max_coflows=10), "max_coflows"),
])
def test_bad_parameters(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call(ts4())
