"""Exact certificate checking: arithmetic, repair, strict rejection of tampered duals."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from coflowopt import Coflow, Instance
from coflowopt.formulations.certificates import (LPCertificate, _Dyadic, _exact_bound,
                                                 _exact_bound_fractions, certify_lp,
                                                 check_certificate, exact_dot, rebuild_lp)
from coflowopt.formulations.linear_program import LinearProgram, exact_group_sums
from coflowopt.formulations.ordering_lp import (OrderingCuts, bssi_cuts, build_ordering_lp,
                                                solve_ordering_lp)
from coflowopt.orderings.bssi import bssi_trace
from coflowopt.testing import digest_ts4


def test_dyadic_round_trip():
    v = np.array([0.1, -3.0, 0.0, 1e-300, 2.5e10, 24.0])
    d = _Dyadic.from_floats(v)
    assert [d.fraction(i) for i in range(v.size)] == [Fraction(x) for x in v]
    e = _Dyadic.from_exact([Fraction(3, 8), 5, Fraction(-1, 1024)])
    assert [e.fraction(i) for i in range(3)] == [Fraction(3, 8), 5, Fraction(-1, 1024)]
    with pytest.raises(ValueError):
        _Dyadic.from_exact([Fraction(1, 3)])


def test_exact_dot_and_group_sums():
    assert exact_dot([0.1, 0.2, 0.3], [3.0, 1.0, 1e-20]) == \
        3 * Fraction(0.1) + Fraction(0.2) + Fraction(0.3) * Fraction(1e-20)
    s, ex = exact_group_sums(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 1]), 2)
    assert ex is None and s.tolist() == [3.0, 4.0]
    s, ex = exact_group_sums(np.array([0.1, 0.2, 0.7]), np.array([0, 0, 1]), 2)
    assert ex[0] == Fraction(0.1) + Fraction(0.2) and s[0] == float(ex[0])


def _toy():
    # min x + y  s.t.  x + 2y >= 2,  x - y <= 1,  0 <= x,  0 <= y <= 5
    return LinearProgram("toy", c=np.array([1.0, 1.0]),
                         A=sp.csr_matrix(np.array([[1.0, 2.0], [1.0, -1.0]])),
                         row_lo=np.array([2.0, -np.inf]), row_hi=np.array([np.inf, 1.0]),
                         col_lo=np.zeros(2), col_hi=np.array([np.inf, 5.0]))


def test_certify_toy_lp():
    lp = _toy()
    assert certify_lp(lp, [0.5, 0.0]).value == 1            # the optimum
    assert certify_lp(lp, [0.25, 0.0]).value == Fraction(1, 2)   # any dual gives a bound
    # wrong sign on the <= row: clipped in repair mode, rejected in strict mode
    assert certify_lp(lp, [0.5, 0.3]).value <= 1
    assert certify_lp(lp, [0.5, 0.3], repair=False).status == "rejected"
    # reduced cost of x negative (x unbounded above): scaled back
    chk = certify_lp(lp, [1.5, 0.0])
    assert chk.ok and chk.repaired and chk.value <= 1
    assert certify_lp(lp, [1.5, 0.0], repair=False).status == "rejected"
    # a claim above what the dual proves is rejected
    assert certify_lp(lp, [0.5, 0.0], repair=False, claimed=1.5).status == "rejected"
    assert certify_lp(lp, [0.5, 0.0], repair=False, claimed=1.0).status == "certified"


def test_exact_side_that_rounds_to_its_float_is_still_used_exactly():
    # x <= U with U = 1 + 2^-60 exactly (a product of two doubles needs up to 106 bits); the
    # builders store float_down(U) = 1.0, which float(U) also rounds to.  The bound must use U:
    # with the float it would certify -1 > -U, a bound of a tighter LP than the true one
    U = 1 + Fraction(1, 2 ** 60)
    rhs = np.empty(1, dtype=object)
    rhs[:] = [U]
    lp = LinearProgram("tight", c=np.zeros(1), A=sp.csr_matrix(np.array([[1.0]])),
                       row_lo=np.array([-np.inf]), row_hi=np.array([1.0]),
                       col_lo=np.zeros(1), col_hi=np.array([np.inf]), exact={"row_hi": rhs})
    assert float(U) == 1.0
    assert certify_lp(lp, [-1.0]).value == -U
    assert _exact_bound_fractions(lp, np.asarray([Fraction(-1)], dtype=object))[0] == -U


def test_fast_path_equals_fraction_path():
    rng = np.random.default_rng(3)
    for _ in range(20):
        m, n = 6, 5
        A = sp.random(m, n, density=0.5, random_state=rng, format="csr")
        A.data = np.round(A.data * 10, 3)
        lp = LinearProgram("r", c=rng.uniform(0, 3, n), A=A,
                           row_lo=np.where(rng.random(m) < 0.7, rng.uniform(-1, 1, m), -np.inf),
                           row_hi=np.where(rng.random(m) < 0.5, rng.uniform(1, 3, m), np.inf),
                           col_lo=np.zeros(n), col_hi=rng.uniform(1, 4, n))
        y = rng.normal(size=m)
        y[(y > 0) & ~np.isfinite(lp.row_lo)] = 0
        y[(y < 0) & ~np.isfinite(lp.row_hi)] = 0
        fast, _, _ = _exact_bound(lp, y)
        slow, _ = _exact_bound_fractions(lp, np.asarray([Fraction(v) for v in y], dtype=object))
        assert fast == slow


def _ts4_cert():
    inst = digest_ts4()
    pd = bssi_cuts(bssi_trace(inst, exact=True))
    cert = LPCertificate("ordering-lp", {}, pd.row_duals(inst.capacity), rows=pd.cuts,
                         claimed_value=float(Fraction(269, 9)))
    return inst, pd, cert


def test_bssi_certificate_checks_exactly():
    inst, _, cert = _ts4_cert()
    chk = check_certificate(inst, cert, repair=False)
    assert chk.ok and chk.value == Fraction(269, 9) and not chk.repaired


def test_tampered_dual_is_rejected():
    inst, pd, cert = _ts4_cert()
    y = np.array(cert.row_duals, dtype=object)
    y[0] = y[0] * 2                        # inflate one multiplier
    bad = LPCertificate("ordering-lp", {}, y, rows=pd.cuts, claimed_value=cert.claimed_value)
    assert check_certificate(inst, bad, repair=False).status == "rejected"
    # repair gives a valid (smaller or equal) figure, never the tampered claim
    chk = check_certificate(inst, bad)
    assert chk.ok and chk.value <= Fraction(33)
    # a tampered cut (a coflow dropped from the I1 set {A, B, C}) changes the right-hand
    # side: the claim fails
    sets = pd.cuts.sets()
    big = int(np.argmax([len(x) for x in sets]))
    sets[big] = sets[big][:-1]
    cuts = OrderingCuts.from_lists(pd.cuts.port, pd.cuts.theta, sets)
    tampered = LPCertificate("ordering-lp", {}, cert.row_duals, rows=cuts,
                             claimed_value=cert.claimed_value)
    assert check_certificate(inst, tampered, repair=False).status == "rejected"
    # an inflated claim is rejected
    inflated = LPCertificate("ordering-lp", {}, cert.row_duals, rows=pd.cuts,
                             claimed_value=30.0)
    assert check_certificate(inst, inflated, repair=False).status == "rejected"


def test_invalid_cut_threshold_is_refused():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=1.0),
                                  Coflow("B", [(0, 0, 1)], release=0.0)])
    # theta must not exceed the smallest release of its set
    cuts = OrderingCuts.from_lists([0], [1.0], [[0, 1]])
    with pytest.raises(ValueError):
        build_ordering_lp(inst, cuts)


def test_restricted_dual_is_valid_for_the_full_lp():
    """The final restricted LP of the cutting planes has a subset of the rows of the full LP;
    its certified bound is at most the full LP's optimum (explicit Pyomo model)."""
    pytest.importorskip("pyomo")
    from coflowopt.formulations import pyomo_models as pm
    from coflowopt.generators import uniform_random
    for seed in range(3):
        inst = uniform_random(3, 5, seed=seed, releases=(0, 4) if seed else None)
        sol = solve_ordering_lp(inst)
        lp = rebuild_lp(inst, sol.certificate)
        assert lp.num_rows == len(sol.cuts)
        chk = check_certificate(inst, sol.certificate)
        status, full = pm.solve_model(pm.ordering_lp_model(inst))
        assert status == "optimal"
        assert float(chk.value) <= full + 1e-9
        assert float(chk.value) == pytest.approx(full, rel=1e-7)
