"""The compiled exact bound (``formulations/_certificate_kernel.py``) against the integer path:
the same ``LB(y)``, the same reduced-cost signs, the same verdicts, on the branch and bound's
node LPs and on LPs built to defeat float arithmetic."""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from coflowopt.formulations import certificates as C
from coflowopt.formulations.linear_program import LinearProgram
from coflowopt.generators import uniform_random
from coflowopt.rates._jit import HAVE_NUMBA, load_kernels

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="the compiled path needs numba")


@pytest.fixture(scope="module", autouse=True)
def _kernels():
    load_kernels()


def _same(lp, y):
    """Both paths on ``y``: equal (value, signs, reason); False when the compiled one declined."""
    a = C._exact_bound_integers(lp, y)
    b = C._exact_bound_compiled(lp, y)
    if b is None:
        return False
    assert a[0] == b[0] and a[2] == b[2]
    assert np.array_equal(np.asarray(a[1], dtype=np.int64), np.asarray(b[1], dtype=np.int64))
    return True


@pytest.fixture(scope="module")
def node_lps():
    """(LP, HiGHS row duals) of node LPs of two small searches (4x4 and 8x8 with releases)."""
    from coflowopt.exact import bnb
    ol = sys.modules["coflowopt.exact.order_lp"]
    got = []
    orig = ol.certify_lp

    def spy(lp, y, **kw):
        if not kw and len(got) < 60:
            got.append((lp, np.asarray(y, dtype=float).copy()))
        return orig(lp, y, **kw)

    ol.certify_lp = spy
    try:
        bnb(uniform_random(4, 9, flows_per_coflow=(1, 4), size=(1, 10), seed=1),
            time_limit=30)
        bnb(uniform_random(8, 7, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                           releases=(0, 5), seed=2), time_limit=30)
    finally:
        ol.certify_lp = orig
    assert len(got) >= 20
    return got


def test_node_lps_same_bound_and_signs(node_lps):
    rng = np.random.default_rng(0)
    compared = 0
    for lp, y in node_lps:
        for yy in (y, y * (1 + 1e-9 * rng.standard_normal(y.size)),
                   np.where(rng.random(y.size) < 0.5, y, 0.0), y * 3.0 ** -40,
                   rng.standard_normal(y.size)):
            compared += _same(lp, np.asarray(yy, dtype=float))
    assert compared == 5 * len(node_lps)


def test_node_lps_same_certificate_after_repair(node_lps, monkeypatch):
    rng = np.random.default_rng(1)
    # noise of both signs: multipliers of the wrong sign on one-sided rows get clipped (the
    # columns of an event LP are all bounded, so nothing is scaled)
    cases = [(lp, y + 1e-3 * rng.standard_normal(y.size)) for lp, y in node_lps]
    new = [C.certify_lp(lp, y) for lp, y in cases]
    monkeypatch.setattr(C, "_exact_bound_compiled", lambda lp, y: None)
    old = [C.certify_lp(lp, y) for lp, y in cases]
    assert any(o.repaired for o in old)
    for a, b in zip(old, new):
        assert (a.status, a.value, a.repaired, a.reason) == (b.status, b.value, b.repaired,
                                                              b.reason)
        assert np.array_equal(a.multipliers, b.multipliers)


def test_solve_event_lp_takes_the_compiled_path(monkeypatch):
    from coflowopt.exact.order_lp import solve_event_lp
    ol = sys.modules["coflowopt.exact.order_lp"]
    event_lp = next(e for e in _event_lps() if e.lp.num_rows > 0)
    before = solve_event_lp(event_lp)

    def refuse(*a, **k):
        raise AssertionError("the integer path ran")

    monkeypatch.setattr(C, "_exact_bound_integers", refuse)
    after = solve_event_lp(event_lp)
    assert after.bound_exact is not None and after.bound_exact == before.bound_exact
    assert ol.certify_lp is C.certify_lp


def _event_lps():
    from coflowopt.exact.order_lp import build_event_lp, pair_data
    inst = uniform_random(4, 5, flows_per_coflow=(1, 4), size=(1, 10), seed=3)
    pd = pair_data(inst)
    return [build_event_lp(pd, tuple(range(5))), build_event_lp(pd, (4, 2, 0, 1, 3))]


def _column(values, c, lo=0.0, hi=np.inf):
    """One column ``x`` with cost ``c``, rows ``x >= 1`` with multipliers ``values``."""
    m = len(values)
    return LinearProgram("col", c=np.array([c]), A=sp.csr_matrix(np.ones((m, 1))),
                         row_lo=np.ones(m), row_hi=np.ones(m),
                         col_lo=np.array([lo]), col_hi=np.array([hi]))


def test_cancellation_that_floats_miss():
    # d = 0 - (1 + 2^-60 - 1) = -2^-60 exactly; summed in floats it is 0
    y = np.array([1.0, 2.0 ** -60, -1.0])
    assert 0.0 - (y[0] + y[1] + y[2]) == 0.0
    lp = _column(y, 0.0, hi=1.0)
    value, d_sign, _ = C._exact_bound_compiled(lp, y)
    assert d_sign.tolist() == [-1]
    # rows: 1 + 2^-60 - 1; column: d * u = -2^-60
    assert value == Fraction(1, 2 ** 60) - Fraction(1, 2 ** 60) == 0
    assert _same(lp, y)
    # the same column unbounded above: the negative reduced cost is caught
    lp = _column(y, 0.0)
    out = C._exact_bound_compiled(lp, y)
    assert out[0] is None and out[1].tolist() == [-1] and "column" in out[2]
    assert _same(lp, y)
    # products that need more than 53 bits: 0.1 * 3 is not the float 0.3
    lp = LinearProgram("p", c=np.array([0.3]), A=sp.csr_matrix(np.array([[3.0]])),
                       row_lo=np.array([0.0]), row_hi=np.array([np.inf]),
                       col_lo=np.array([0.0]), col_hi=np.array([2.0]))
    y = np.array([0.1])
    exact_d = Fraction(0.3) - 3 * Fraction(0.1)
    value, d_sign, _ = C._exact_bound_compiled(lp, y)
    assert exact_d != 0 and d_sign.tolist() == [1 if exact_d > 0 else -1]
    assert value == (exact_d * 2 if exact_d < 0 else 0)
    assert _same(lp, y)


def test_out_of_range_declines_and_the_integer_path_answers():
    lp = _column([1e-300], 0.0, hi=1.0)
    y = np.array([1e-300])
    assert C._exact_bound_compiled(lp, y) is None
    chk = C.certify_lp(lp, y)
    assert chk.ok and chk.value == 0                 # 1e-300 * 1 - 1e-300 * 1
    assert C.certify_lp(lp, np.array([1e-300]), repair=False).ok
    big = _column([2.0 ** 950], 2.0 ** 950)
    assert C._exact_bound_compiled(big, np.array([2.0 ** 950])) is None
    assert C.certify_lp(big, np.array([2.0 ** 950])).value == 2 ** 950


def test_range_rows_and_exact_data_take_the_integer_path():
    rhs = np.empty(1, dtype=object)
    rhs[:] = [1 + Fraction(1, 2 ** 60)]
    lp = LinearProgram("tight", c=np.zeros(1), A=sp.csr_matrix(np.array([[1.0]])),
                       row_lo=np.array([-np.inf]), row_hi=np.array([1.0]),
                       col_lo=np.zeros(1), col_hi=np.array([np.inf]), exact={"row_hi": rhs})
    assert C._exact_bound_compiled(lp, np.array([-1.0])) is None
    assert C.certify_lp(lp, [-1.0]).value == -(1 + Fraction(1, 2 ** 60))


def test_wrong_certificates_are_rejected(node_lps):
    """A multiplier of the wrong sign, duals that prove less than claimed: rejected in strict
    mode by the compiled path, and the value it certifies is the Fraction path's, not more
    (a reduced cost of the wrong sign on an unbounded column: test_cancellation_...)."""
    lp, y = node_lps[3]
    chk = C.certify_lp(lp, y)
    assert chk.ok
    # claimed above what the dual proves
    bad = C.certify_lp(lp, chk.multipliers, repair=False, claimed=float(chk.value) + 1.0)
    assert bad.status == "rejected"
    # a multiplier of the wrong sign on a one-sided row
    one_sided = np.flatnonzero(~np.isfinite(lp.row_hi) & np.isfinite(lp.row_lo))
    assert one_sided.size
    y2 = np.asarray(chk.multipliers, dtype=float).copy()
    y2[one_sided[0]] = -1.0
    assert C.certify_lp(lp, y2, repair=False).status == "rejected"
    # every multiplier doubled: still a bound (every column of an event LP is bounded), the
    # Fraction path's value, and it proves less than the optimum's dual does
    y3 = np.asarray(chk.multipliers, dtype=float) * 2.0
    out = C._exact_bound_compiled(lp, y3)
    y3s = np.empty(lp.num_rows, dtype=object)
    y3s[:] = [Fraction(v) for v in y3.tolist()]
    assert out is not None and out[0] == C._exact_bound_fractions(lp, y3s)[0] < chk.value
    assert C.certify_lp(lp, y3, repair=False, claimed=float(chk.value)).status == "rejected"
    # the Fraction path agrees on the certified value
    ys = np.empty(lp.num_rows, dtype=object)
    ys[:] = [Fraction(v) for v in np.asarray(chk.multipliers, dtype=float).tolist()]
    assert C._exact_bound_fractions(lp, ys)[0] == chk.value
