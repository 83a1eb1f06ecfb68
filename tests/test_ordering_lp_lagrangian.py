"""The ordering LP's Lagrangian dual over its ports (issue 17, ``method="lagrangian"``).

Every split of the weights over the ports gives Smith's rule on each port, and Smith's nested
cuts with the split's multipliers are a dual solution of the ordering LP: certified, at least
the BSSI, port and isolated bounds (the ascent starts from the best of their splits), at most
the LP optimum (weak duality).  The per-port cuts are :class:`NestedCuts` with offsets; their
rows must be the rows of the same cuts written out.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from coflowopt import Coflow, Instance
from coflowopt.bounds import bssi_dual, isolated_bound, ordering_lp_bound, port_bound
from coflowopt.bounds import lp_bounds
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formulations.certificates import (LPCertificate, _exact_bound, check_certificate,
                                                 rebuild_lp)
from coflowopt.formulations.linear_program import RangeRows
from coflowopt.formulations.ordering_lp import (NestedCuts, bssi_cuts, build_ordering_lp,
                                                lagrangian_dual, port_loads, solve_ordering_lp)
from coflowopt.orderings.bssi import bssi_trace
from coflowopt.testing import digest_ts4, instances, topology_instances

#: Relative slack of float multipliers after the certificate's repair (it scales rows down by
#: at most a few ulps: 0.9999999999999988 at 50,000 coflows).
REL = 1e-12


def _ge(a, b):
    return Fraction(a) >= Fraction(b) * (1 - Fraction(REL)) - Fraction(1, 10 ** 12)


def _start(inst):
    try:
        return bssi_cuts(bssi_trace(inst, record_weights=False))
    except Exception:          # BSSI not defined on these resources: the uniform start
        return None


def test_one_port_is_smith():
    """One port: the LP optimum is Smith's value, 1 + (1 + 2) = 4, and the start (BSSI on one
    port is Smith) already attains it."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    ld = lagrangian_dual(inst, start=_start(inst), iterations=1)
    assert ld.value == 4.0 and ld.history == [4.0]
    res = ordering_lp_bound(inst, method="lagrangian")
    assert res.kind == "lower_bound" and float(res.value) == pytest.approx(4.0, rel=1e-15)
    assert res.status == "iteration_limit" and res.extra["converged"] is False


def test_ts4_reaches_the_lp_optimum():
    """Sincronia's 3-coflow example (digest_ts4): the LP optimum 32 (hand-checked in
    test_bounds), BSSI's dual 269/9 = 29.9: the ascent closes the gap."""
    inst = digest_ts4()
    assert bssi_dual(inst).value == Fraction(269, 9)
    res = ordering_lp_bound(inst, method="lagrangian")
    assert res.certificate_status == "certified" and res.extra["dual_from"] == "lagrangian"
    assert float(res.value) == pytest.approx(32.0, rel=1e-12)
    assert res.status != "optimal"          # never labelled the LP optimum


@settings(max_examples=25, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=6, releases=True, heterogeneous=True))
def test_between_the_combinatorial_bounds_and_the_lp(inst):
    """bssi-dual, port, isolated <= Lagrangian <= the LP optimum (cutting planes to
    convergence: its claimed objective is the optimum up to the solver's tolerance)."""
    res = ordering_lp_bound(inst, method="lagrangian", lagrangian_iterations=60)
    assert res.kind == "lower_bound" and res.certificate_status == "certified"
    for other in (bssi_dual(inst), port_bound(inst), isolated_bound(inst)):
        assert _ge(res.value, other.value), other.algorithm
    lp = solve_ordering_lp(inst)
    assert lp.converged
    assert float(res.value) <= lp.objective * (1 + 1e-6) + 1e-9


@settings(max_examples=25, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=7, releases=True, heterogeneous=True))
def test_offset_cuts_are_the_explicit_rows(inst):
    """The per-port nested cuts (offsets into one concatenated order) build the same rows and
    the same exact LB(y) as the cuts written out as sets."""
    ld = lagrangian_dual(inst, start=_start(inst), iterations=20)
    nested = LPCertificate("ordering-lp", {}, ld.row_duals, rows=ld.cuts)
    explicit = LPCertificate("ordering-lp", {}, ld.row_duals, rows=ld.cuts.explicit())
    a, b = rebuild_lp(inst, nested), rebuild_lp(inst, explicit)
    if len(ld.cuts):
        assert isinstance(a.A, RangeRows)
    A, B = a.A.tocsr() if isinstance(a.A, RangeRows) else a.A, b.A
    assert A.indptr.tolist() == B.indptr.tolist() and A.indices.tolist() == B.indices.tolist()
    assert A.data.tobytes() == B.data.tobytes()
    assert list(a.exact["row_lo"]) == list(b.exact["row_lo"])
    y = np.asarray(ld.row_duals, float)
    assert _exact_bound(a, y)[0] == _exact_bound(b, y)[0]
    assert check_certificate(inst, nested).ok


@settings(max_examples=15, deadline=None)
@given(inst=topology_instances(max_coflows=5, releases=True))
def test_on_topologies(inst):
    """On resources (BSSI where defined, else the uniform start): certified and at least the
    port and isolated bounds."""
    res = ordering_lp_bound(inst, method="lagrangian", lagrangian_iterations=40)
    assert res.kind == "lower_bound"
    for other in (port_bound(inst), isolated_bound(inst)):
        assert _ge(res.value, other.value), other.algorithm


def test_tampered_offset_is_rejected():
    inst = digest_ts4()
    ld = lagrangian_dual(inst, start=_start(inst), iterations=5)
    cuts = ld.cuts
    # past the end of the order (a cut reaching into the next segment is just another set:
    # every set gives a valid inequality)
    bad = NestedCuts(cuts.port, cuts.theta, cuts.length + cuts.order.size, cuts.order,
                     cuts.offset)
    with pytest.raises(InvalidParameterError):
        build_ordering_lp(inst, bad)
    with pytest.raises(InvalidParameterError):
        build_ordering_lp(inst, NestedCuts(cuts.port, cuts.theta, cuts.length, cuts.order,
                                           cuts.offset[:-1]))
    # a segment that names a coflow twice
    twice = NestedCuts([0], [0.0], [2], [1, 1], [0])
    with pytest.raises(InvalidParameterError):
        build_ordering_lp(inst, twice)


def test_auto_switches_on_the_coflow_count(monkeypatch):
    inst = digest_ts4()
    small = ordering_lp_bound(inst)
    assert small.extra["method"] == "cutting-planes" and small.status == "optimal"
    monkeypatch.setattr(lp_bounds, "AUTO_LAGRANGIAN_COFLOWS", 3)
    big = ordering_lp_bound(inst)
    assert big.extra["method"] == "lagrangian" and big.status == "iteration_limit"
    with pytest.raises(InvalidParameterError):
        ordering_lp_bound(inst, method="simplex")
    with pytest.raises(InvalidParameterError):
        solve_ordering_lp(inst, method="lagrangian", export="x.lp")


def test_time_limit_status():
    """A deadline already past: the start is still evaluated, the status says time_limit."""
    inst = digest_ts4()
    res = ordering_lp_bound(inst, method="lagrangian", time_limit=1e-9)
    assert res.kind == "lower_bound" and res.status == "time_limit"
    assert _ge(res.value, bssi_dual(inst).value)
