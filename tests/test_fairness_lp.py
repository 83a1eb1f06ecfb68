"""P* in closed form (Eq. 7.2) equals the optimum of the max-min LP (formulations/hug-maxmin-lp.md,
proofs/hug-pstar-optimal.md): link-level LP on vectors, flow-level LP on big-switch instances,
HiGHS and (when installed) cvxpy."""

from fractions import Fraction as F

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.fairness import (as_correlation_vectors, correlation_vectors, max_min_lp,
                                max_min_lp_cvxpy, optimal_isolation_guarantee, progress)


def random_instance(rng, weights: bool = False) -> Instance:
    m_in, m_out = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    K = int(rng.integers(1, 7))
    cofs = []
    for k in range(K):
        n = int(rng.integers(1, 6))
        flows = [(int(rng.integers(0, m_in)), int(rng.integers(0, m_out)),
                  float(rng.integers(1, 20)) / 4) for _ in range(n)]
        cofs.append(Coflow(f"c{k}", flows, weight=float(rng.integers(1, 4)) if weights else 1.0))
    return Instance.from_coflows(cofs, num_ingress=m_in, num_egress=m_out,
                                 ingress_capacity=rng.choice([0.5, 1.0, 2.0, 3.0], m_in),
                                 egress_capacity=rng.choice([0.5, 1.0, 2.0, 3.0], m_out))


def test_closed_form_equals_lp_on_a_thousand_random_instances():
    rng = np.random.default_rng(20240601)
    for trial in range(1000):
        inst = random_instance(rng, weights=trial % 3 == 0)
        weighted = trial % 3 == 0
        cv = correlation_vectors(inst, weighted=weighted)
        pstar = optimal_isolation_guarantee(cv)
        exact = optimal_isolation_guarantee(correlation_vectors(inst, weighted=weighted,
                                                                exact=True))
        assert abs(pstar - float(exact)) <= 1e-12 * float(exact)
        link = max_min_lp(cv)
        assert link.status == "Optimal"
        assert abs(link.value - pstar) <= 1e-7 * max(1, pstar), (trial, link.value, pstar)
        if trial % 4 == 0:
            # the flow-level LP: what flow rates on the big switch can achieve
            flow = max_min_lp(inst, weighted=weighted)
            assert abs(flow.value - pstar) <= 1e-7 * max(1, pstar), (trial, flow.value, pstar)


def test_lp_allocation_achieves_its_value():
    d = [[0.5, 1.0], [1.0, 1 / 6], [1.0, 0.0]]
    res = max_min_lp(d)
    assert abs(res.value - 0.4) < 1e-9
    assert np.all(res.allocation.sum(axis=0) <= 1 + 1e-9)
    cv = as_correlation_vectors(d)
    assert np.all(progress(res.allocation, cv.d) >= res.value - 1e-9)


def test_flow_lp_rates_are_feasible():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (1, 0, 3), (1, 1, 3)]),
                                  Coflow("B", [(0, 1, 6), (1, 2, 1)])],
                                 num_ingress=3, num_egress=3)
    res = max_min_lp(inst)
    assert abs(res.value - 2 / 3) < 1e-9
    r = res.allocation
    load = np.bincount(np.concatenate([inst.flow_src, inst.flow_egress_port]),
                       weights=np.concatenate([r, r]), minlength=inst.num_ports)
    assert np.all(load <= inst.capacity + 1e-9)


def test_weighted_lp():
    cv = as_correlation_vectors([[F(1, 2), 1], [1, F(1, 6)]], weights=[2, 1])
    assert abs(max_min_lp(cv).value - 6 / 13) < 1e-9


def test_link_lp_rejects_flow_level_for_vectors():
    from coflowopt.exceptions import InvalidParameterError
    with pytest.raises(InvalidParameterError, match="needs an Instance"):
        max_min_lp([[1, 1]], level="flow")


def test_cvxpy_cross_check():
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    for _ in range(40):
        inst = random_instance(rng)
        pstar = optimal_isolation_guarantee(correlation_vectors(inst))
        val = max_min_lp_cvxpy(inst)
        assert abs(val - pstar) <= 1e-6 * max(1, pstar)
