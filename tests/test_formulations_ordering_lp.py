"""The ordering LP: separation oracle (exact, against brute force), cutting planes, BSSI and
Smith duals, time limits."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.formulations.certificates import LPCertificate, check_certificate
from coflowopt.formulations.ordering_lp import (bssi_cuts, isolation_lower_bounds,
                                                most_violated, port_loads, smith_cuts,
                                                solve_ordering_lp)
from coflowopt.orderings.bssi import bssi_trace
from coflowopt.testing import digest_ts3, digest_ts4, instances


def _violation(S, p, C, theta=0.0):
    ps = [p[k] for k in S]
    return theta * sum(ps) + 0.5 * (sum(x * x for x in ps) + sum(ps) ** 2) - \
        sum(p[k] * C[k] for k in S)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 10 ** 6))
def test_oracle_finds_a_most_violated_set(n, seed):
    """For one port: the oracle's set attains the brute-force maximum of the violation (when it
    is positive); proof in formulations/ordering_lp.md."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n).astype(float)
    inst = Instance.from_coflows([Coflow(f"c{k}", [(0, 0, float(sizes[k]))]) for k in range(n)])
    C = rng.integers(1, 30, n).astype(float)
    loads = port_loads(inst)
    p = {int(k): float(v) for k, v in zip(loads.coflow[:n], loads.ptime[:n])}
    best = max(_violation(S, p, C) for r in range(1, n + 1)
               for S in itertools.combinations(range(n), r))
    cuts, rel = most_violated(loads, np.zeros(n), C, tol=0.0)
    found = [c for c, q in zip(cuts.sets(), cuts.port.tolist()) if q == 0]
    if best > 1e-12:
        assert len(found) == 1
        assert _violation(found[0].tolist(), p, C) == pytest.approx(best, abs=1e-9)
    else:
        assert not found


def test_sorting_by_ratio_is_not_exact():
    """Sorting by C_k / p_k (instead of C_k) misses the violated set {1, 2} here."""
    p = {0: 8.0, 1: 2.0, 2: 8.0}
    C = np.array([19.0, 9.0, 8.0])
    by_ratio = np.argsort(C / np.array([8.0, 2.0, 8.0]))
    assert max(_violation(by_ratio[:i].tolist(), p, C) for i in range(1, 4)) <= 0
    assert _violation([1, 2], p, C) == 2.0
    inst = Instance.from_coflows([Coflow(f"c{k}", [(0, 0, p[k])]) for k in range(3)])
    cuts, _ = most_violated(port_loads(inst), np.zeros(3), C, tol=0.0)
    assert sorted(cuts.sets()[0].tolist()) == [1, 2]


def test_release_threshold_oracle_against_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = 5
        sizes = rng.integers(1, 6, n).astype(float)
        rel = rng.integers(0, 4, n).astype(float)
        inst = Instance.from_coflows([Coflow(f"c{k}", [(0, 0, float(sizes[k]))],
                                             release=float(rel[k])) for k in range(n)])
        C = rng.uniform(1, 20, n)
        loads = port_loads(inst)
        p = {int(k): float(v) for k, v in zip(loads.coflow[:n], loads.ptime[:n])}
        best = max(_violation(S, p, C, min(rel[list(S)])) for r in range(1, n + 1)
                   for S in itertools.combinations(range(n), r))
        cuts, _ = most_violated(loads, rel, C, tol=0.0, release_cuts=True)
        got = max((_violation(s.tolist(), p, C, th) for s, th, q in
                   zip(cuts.sets(), cuts.theta.tolist(), cuts.port.tolist()) if q == 0),
                  default=0.0)
        assert got == pytest.approx(max(best, 0.0), abs=1e-9)


def test_isolation_bounds_exact():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.1), (0, 1, 0.2)], release=0.5)],
                                 ingress_capacity=[3.0], egress_capacity=[1.0, 1.0])
    fl, ex = isolation_lower_bounds(inst)
    # rho = max((0.1 + 0.2) / 3, 0.1 / 1, 0.2 / 1) = 0.2, exactly
    assert ex[0] == Fraction(0.5) + Fraction(0.2)
    assert fl[0] <= ex[0]


def test_bssi_cuts_reproduce_the_published_duals():
    inst = digest_ts4()
    pd = bssi_cuts(bssi_trace(inst, exact=True))
    assert sorted(pd.beta.tolist()) == sorted([Fraction(1, 9), Fraction(4, 99), Fraction(7, 54)])
    chk = check_certificate(inst, LPCertificate("ordering-lp", {}, pd.row_duals(inst.capacity),
                                                rows=pd.cuts), repair=False)
    assert chk.value == Fraction(269, 9)


def test_smith_duals_equal_smith_values():
    inst = digest_ts4()
    expect = {0: 25, 1: 23, 2: 32, 3: 26}          # I1, I2, E1, E2 (computed by hand)
    for q, v in expect.items():
        pd = smith_cuts(inst, q)
        chk = check_certificate(inst, LPCertificate("ordering-lp", {},
                                                    pd.row_duals(inst.capacity), rows=pd.cuts),
                                repair=False)
        assert chk.value == v


def test_cutting_planes_worked_examples():
    s3 = solve_ordering_lp(digest_ts3())
    assert s3.converged and s3.objective == pytest.approx(10.0)
    s4 = solve_ordering_lp(digest_ts4())
    assert s4.converged and s4.objective == pytest.approx(32.0)
    assert float(check_certificate(digest_ts4(), s4.certificate).value) == pytest.approx(32.0)


@settings(max_examples=25, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=6, releases=True, heterogeneous=True))
def test_cutting_planes_match_the_explicit_lp(inst):
    pytest.importorskip("pyomo")
    from coflowopt.formulations import pyomo_models as pm
    sol = solve_ordering_lp(inst)
    assert sol.converged
    status, full = pm.solve_model(pm.ordering_lp_model(inst))
    assert status == "optimal"
    assert sol.objective == pytest.approx(full, rel=1e-6, abs=1e-9)
    chk = check_certificate(inst, sol.certificate)
    assert chk.ok and float(chk.value) <= full * (1 + 1e-9) + 1e-9


def test_time_limit_gives_a_status_not_a_crash():
    from coflowopt.generators import uniform_random
    inst = uniform_random(6, 30, seed=1)
    sol = solve_ordering_lp(inst, time_limit=0.0, initial="full")
    assert sol.status == "time_limit" and sol.certificate is None
    sol = solve_ordering_lp(inst, time_limit=0.0)   # BSSI's dual is the answer
    assert sol.status == "time_limit" and sol.C is None and sol.certificate.source == "bssi"
    chk = check_certificate(inst, sol.certificate)
    assert chk.ok and float(chk.value) >= sol.objective * (1 - 1e-9)
    sol = solve_ordering_lp(inst, max_rounds=1)
    assert not sol.converged and sol.status == "iteration_limit"
    chk = check_certificate(inst, sol.certificate)     # the restricted LP is still a bound
    assert chk.ok and float(chk.value) <= sol.objective * (1 + 1e-9)


@pytest.mark.parametrize("limit", [-1, -1e-9, float("nan"), "10"])
def test_a_bad_time_limit_is_refused_before_solving(limit):
    """A negative limit used to run to the first check and end in "ordering LP not solved"
    (exit 4 from ``schedule --order ordering-lp --order-param time_limit=-1``)."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.formulations.ordering_lp import solve_ordering_lp
    from coflowopt.generators import uniform_random
    with pytest.raises(InvalidParameterError, match="time_limit must be a number of seconds"):
        solve_ordering_lp(uniform_random(3, 4, seed=0), time_limit=limit)
