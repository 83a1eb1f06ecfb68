"""Nested cuts (issue 17): the sets of a primal-dual run stored as prefixes of one order.

The LP rows of :class:`NestedCuts` are :class:`RangeRows` (slices of one entry list); the
certificate check must give the identical Fraction as the same cuts written out as explicit
sets (:class:`OrderingCuts`, CSR rows), reject a tampered nested cut, and the range helpers must
agree with the expanded matrix.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.exceptions import InvalidParameterError
from coflowopt.formulations.certificates import (LPCertificate, _exact_bound,
                                                 _exact_bound_fractions, check_certificate,
                                                 rebuild_lp)
from coflowopt.formulations.linear_program import RangeRows, covering_sums, range_min
from coflowopt.formulations.ordering_lp import (NestedCuts, OrderingCuts, bssi_cuts,
                                                port_loads, smith_cuts)
from coflowopt.orderings.bssi import bssi_trace
from coflowopt.testing import digest_ts4, instances, topology_instances


def _certs(inst, pd):
    y = pd.row_duals(inst.capacity)
    nested = LPCertificate("ordering-lp", {}, y, rows=pd.cuts)
    explicit = LPCertificate("ordering-lp", {}, y, rows=pd.cuts.explicit())
    return nested, explicit


def _same_lp(a, b):
    """The nested LP expanded is the explicit LP: same coefficients in the same order, same
    exact right-hand sides."""
    A, B = a.A.tocsr(), b.A
    assert isinstance(a.A, RangeRows)
    assert A.indptr.tolist() == B.indptr.tolist()
    assert A.indices.tolist() == B.indices.tolist()
    assert A.data.tobytes() == B.data.tobytes()
    assert list(a.exact["row_lo"]) == list(b.exact["row_lo"])
    assert a.row_lo.tobytes() == b.row_lo.tobytes()


@settings(max_examples=40, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=7, releases=True, heterogeneous=True),
       exact=st.booleans())
def test_nested_bssi_cuts_certify_the_same_fraction_as_explicit_sets(inst, exact):
    pd = bssi_cuts(bssi_trace(inst, exact=exact, record_weights=False))
    assert isinstance(pd.cuts, NestedCuts)
    nested, explicit = _certs(inst, pd)
    _same_lp(rebuild_lp(inst, nested), rebuild_lp(inst, explicit))
    a, b = check_certificate(inst, nested), check_certificate(inst, explicit)
    assert a.ok and b.ok
    if exact:
        # exact multipliers: no repair, the same exact LB(y)
        assert a.value == b.value and not a.repaired
    else:
        # float multipliers: the exact check of the unrepaired dual is the same Fraction on
        # both layouts (the repair forms its float sums differently: both certified)
        lpn, lpe = rebuild_lp(inst, nested), rebuild_lp(inst, explicit)
        va, sa, _ = _exact_bound(lpn, np.asarray(nested.row_duals, float))
        vb, sb, _ = _exact_bound(lpe, np.asarray(explicit.row_duals, float))
        assert va == vb and sa.tolist() == sb.tolist()
        if not a.repaired and not b.repaired:
            assert a.value == b.value


@settings(max_examples=20, deadline=None)
@given(inst=topology_instances(max_coflows=5, releases=True))
def test_nested_cuts_on_topologies(inst):
    pd = bssi_cuts(bssi_trace(inst, exact=True, record_weights=False))
    nested, explicit = _certs(inst, pd)
    _same_lp(rebuild_lp(inst, nested), rebuild_lp(inst, explicit))
    a = check_certificate(inst, nested, repair=False)
    assert a.ok and a.value == check_certificate(inst, explicit, repair=False).value


@settings(max_examples=25, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=6, heterogeneous=True), seed=st.integers(0, 99))
def test_smith_nested_cuts_and_any_multipliers(inst, seed):
    """Smith's cuts are nested too; for arbitrary multipliers (negative ones included) the
    exact LB(y) and its reduced-cost signs agree on both layouts, in both exact paths."""
    q = int(np.argmax(np.diff(port_loads(inst).indptr)))      # the port with most coflows
    pd = smith_cuts(inst, q, exact=True)
    nested, explicit = _certs(inst, pd)
    lpn, lpe = rebuild_lp(inst, nested), rebuild_lp(inst, explicit)
    _same_lp(lpn, lpe)
    y = np.random.default_rng(seed).normal(size=lpn.num_rows)
    assert _exact_bound(lpn, y)[0] == _exact_bound(lpe, y)[0]
    yf = np.asarray([Fraction(v) for v in y], dtype=object)
    assert _exact_bound_fractions(lpn, yf)[0] == _exact_bound_fractions(lpe, yf)[0]


def test_ts4_nested_value_and_tampering():
    """T-S4 (seeds digest): 269/9 from the nested BSSI cuts; a raised multiplier, a shortened
    nested set and an order naming a coflow twice are all refused."""
    inst = digest_ts4()
    pd = bssi_cuts(bssi_trace(inst, exact=True))
    cert = LPCertificate("ordering-lp", {}, pd.row_duals(inst.capacity), rows=pd.cuts,
                         claimed_value=float(Fraction(269, 9)))
    chk = check_certificate(inst, cert, repair=False)
    assert chk.ok and chk.value == Fraction(269, 9)
    for i in range(len(pd.cuts)):
        y = np.array(cert.row_duals, dtype=object)
        y[i] = y[i] * Fraction(11, 10)                 # raise one multiplier by 10 %
        bad = LPCertificate("ordering-lp", {}, y, rows=pd.cuts,
                            claimed_value=cert.claimed_value)
        assert check_certificate(inst, bad, repair=False).status == "rejected"
        # repaired, it proves no more than the honest dual
        rep = check_certificate(inst, bad)
        assert rep.ok and rep.value <= Fraction(269, 9)
    # a shortened set (the longest cut loses its last coflow) changes the right-hand side
    length = pd.cuts.length.copy()
    length[int(np.argmax(length))] -= 1
    short = NestedCuts(pd.cuts.port, pd.cuts.theta, length, pd.cuts.order)
    tampered = LPCertificate("ordering-lp", {}, cert.row_duals, rows=short,
                             claimed_value=cert.claimed_value)
    assert check_certificate(inst, tampered, repair=False).status == "rejected"
    twice = NestedCuts(pd.cuts.port, pd.cuts.theta, pd.cuts.length,
                       np.r_[pd.cuts.order[:-1], pd.cuts.order[0]])
    with pytest.raises(InvalidParameterError):
        rebuild_lp(inst, LPCertificate("ordering-lp", {}, cert.row_duals, rows=twice))


def test_nested_threshold_is_checked_against_the_prefix():
    """A threshold above the smallest release of the prefix is refused, as for explicit
    sets; at that release it is accepted."""
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=2.0),
                                  Coflow("B", [(0, 0, 1)], release=1.0)])
    from coflowopt.formulations.ordering_lp import build_ordering_lp
    ok = NestedCuts([0, 0], [2.0, 1.0], [1, 2], [0, 1])
    lp = build_ordering_lp(inst, ok)
    # theta d(S) + (sum d^2 + d(S)^2) / 2: 2 + 1 and 1 * 2 + (2 + 4) / 2
    assert list(lp.exact["row_lo"]) == [3, 5]
    with pytest.raises(InvalidParameterError):
        build_ordering_lp(inst, NestedCuts([0], [1.5], [2], [0, 1]))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_range_helpers_agree_with_the_expanded_matrix(data):
    E = data.draw(st.integers(0, 12))
    m = data.draw(st.integers(0, 8))
    n = 4
    bounds = [sorted(data.draw(st.lists(st.integers(0, E), min_size=2, max_size=2)))
              for _ in range(m)]
    start = [b[0] for b in bounds]
    stop = [b[1] for b in bounds]
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    cols = rng.integers(0, n, E)
    vals = rng.integers(1, 9, E).astype(float)
    A = RangeRows(start, stop, cols, vals, shape=(m, n))
    dense = np.zeros((m, n))
    for i in range(m):
        for e in range(start[i], stop[i]):
            dense[i, cols[e]] += vals[e]
    assert np.array_equal(A.tocsr().toarray(), dense)
    y = np.empty(m, dtype=object)
    y[:] = [int(v) for v in rng.integers(-5, 6, m)]
    cov = covering_sums(A, y)
    aty = [0] * n
    for e in range(E):
        aty[cols[e]] += int(vals[e]) * cov[e]
    assert aty == (dense.T @ np.asarray(y, dtype=float)).astype(int).tolist()
    v = rng.random(E)
    got = range_min(A, v, 7.0)
    want = [v[a:b].min() if b > a else 7.0 for a, b in zip(start, stop)]
    assert got.tolist() == want


def test_certificate_file_refuses_too_many_listed_coflows(monkeypatch):
    """The file lists every nested set: above MAX_SET_ENTRIES the writer refuses (exit 2 on
    the command line) instead of writing a file quadratic in the coflow count."""
    from coflowopt import certificate_files
    from coflowopt.bounds.bssi_dual import bssi_dual
    inst = digest_ts4()
    res = bssi_dual(inst)
    doc = certificate_files.lower_bound_certificate(inst, res)
    listed = sum(len(c["set"]) for c in doc["proof"]["cuts"])
    monkeypatch.setattr(certificate_files, "MAX_SET_ENTRIES", listed - 1)
    with pytest.raises(InvalidParameterError, match="file limit"):
        certificate_files.lower_bound_certificate(inst, res)


def test_explicit_cuts_keep_their_csr_rows():
    cuts = OrderingCuts.from_lists([0, 0], [0.0, 0.0], [[0], [0, 1, 2]])
    lp = rebuild_lp(digest_ts4(), LPCertificate("ordering-lp", {}, np.zeros(2), rows=cuts))
    # T-S4: A, B and C all load ingress 0
    assert not isinstance(lp.A, RangeRows) and lp.A.nnz == 4
