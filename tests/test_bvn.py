"""Birkhoff--von Neumann decomposition and schedules.

``test_decomposition_properties_exact`` and ``test_single_coflow_takes_exactly_rho`` are the
numerical checks cited by ``proofs/bvn-single-coflow.md``.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.rates.bvn import (bvn, bvn_decomposition, bvn_group_schedule,
                                 check_decomposition, max_permutations)
from coflowopt.verify import verify_schedule
from test_madd import fig_b2, random_instances


@st.composite
def matrices(draw, max_dim=6, values=st.integers(0, 9)):
    m_in, m_out = draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    return [[draw(values) for _ in range(m_out)] for _ in range(m_in)]


fractions = st.fractions(min_value=0, max_value=5, max_denominator=12)


@given(st.one_of(matrices(), matrices(values=fractions)))
def test_decomposition_properties_exact(D):
    dec = bvn_decomposition(D)
    assert dec.exact
    n = max(len(D), len(D[0]))
    rho = max([sum(r, Fraction(0)) for r in D] + [sum(c, Fraction(0)) for c in zip(*D)])
    assert dec.rho == rho
    chk = check_decomposition(D, dec)
    assert chk["ok"], chk["failures"]
    assert len(dec) <= max_permutations(n) == max(1, n * n - 2 * n + 2)
    assert sum(dec.theta, Fraction(0)) == rho
    assert all(isinstance(t, Fraction) and t > 0 for t in dec.theta)


@given(matrices(values=st.floats(0, 10, allow_nan=False, allow_infinity=False)))
@example(D=[[3.0, 7.00000000001, 1e-11]])  # a dropped tiny entry broke Hall (CI, 2026-11-23)
def test_decomposition_float_mode(D):
    dec = bvn_decomposition(np.asarray(D, dtype=float))
    assert not dec.exact
    chk = check_decomposition(np.asarray(D, dtype=float), dec)
    assert chk["ok"], chk["failures"]


def test_worked_decomposition():
    D = [[2, 0], [1, 1]]
    dec = bvn_decomposition(D)
    assert dec.rho == 3
    assert dec.padded.tolist() == [[2, 1], [1, 2]]
    assert sorted(zip(dec.theta, (tuple(p) for p in dec.perms))) == [(1, (1, 0)), (2, (0, 1))]


def test_zero_matrix_and_bad_input():
    dec = bvn_decomposition([[0, 0]])
    assert len(dec) == 0 and dec.rho == 0
    with pytest.raises(InvalidParameterError, match=">= 0"):
        bvn_decomposition([[1, -1]])
    with pytest.raises(InvalidParameterError, match="2-d"):
        bvn_decomposition([1, 2])
    with pytest.raises(InvalidParameterError, match="number"):
        bvn_decomposition([["a"]])


def test_check_decomposition_catches_errors():
    D = [[1, 1], [1, 1]]
    dec = bvn_decomposition(D)
    dec.theta[0] = dec.theta[0] + 1
    chk = check_decomposition(D, dec)
    assert not chk["ok"] and any("sum of theta" in f for f in chk["failures"])


# ------------------------------------------------------------------------------ schedules
@st.composite
def single_coflows(draw):
    m_in, m_out = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    flows = [(draw(st.integers(0, m_in - 1)), draw(st.integers(0, m_out - 1)),
              draw(st.integers(1, 9))) for _ in range(draw(st.integers(1, 10)))]
    cap = draw(st.sampled_from([1, 2]))
    return Instance.from_coflows([Coflow("X", flows)], num_ingress=m_in, num_egress=m_out,
                                 ingress_capacity=[cap] * m_in, egress_capacity=[cap] * m_out)


@given(single_coflows())
def test_single_coflow_takes_exactly_rho(inst):
    # the claim of proofs/bvn-single-coflow.md, checked by the exact verifier
    rep = verify_schedule(inst, bvn(inst, [0]), mode="exact")
    assert rep.ok, rep.summary()
    assert rep.coflow_completion[0] == Fraction(float(inst.rho[0]))


@given(random_instances(heterogeneous=False))
def test_one_after_another_is_exact(case):
    inst, order = case
    s = bvn(inst, order)
    rep = verify_schedule(inst, s, mode="exact" if s.exact else "float")
    assert rep.ok, rep.summary()
    # C_k = max(r_k, C_prev) + rho_k exactly (float mode: to rounding)
    prev = 0
    for k in order:
        expect = max(Fraction(float(inst.release[k])), prev) + Fraction(float(inst.rho[k]))
        got = rep.coflow_completion[k]
        if s.exact:
            assert got == expect
        else:
            assert float(got) == pytest.approx(float(expect), rel=1e-9)
        prev = expect


@given(random_instances(heterogeneous=False))
def test_backfilling_never_delays_a_coflow(case):
    inst, order = case
    plain = verify_schedule(inst, bvn(inst, order))
    filled = verify_schedule(inst, bvn(inst, order, backfill=True))
    assert plain.ok and filled.ok, filled.summary()
    assert np.all(filled.coflow_completion.astype(float)
                  <= plain.coflow_completion.astype(float) * (1 + 1e-9) + 1e-12)


def test_fig_b2_with_and_without_backfill():
    inst = fig_b2()
    assert verify_schedule(inst, bvn(inst, [0, 1]), mode="exact").coflow_completion.tolist() \
        == [2, 4]
    assert verify_schedule(inst, bvn(inst, [0, 1], backfill=True),
                           mode="exact").coflow_completion.tolist() == [2, 2]


def test_a_few_flows_on_a_large_fabric_use_their_own_ports_only():
    # Fig. B.2 on a 150 x 150 fabric: the decomposition runs over the ports the coflow uses
    # (1 x 2 for C1, padded to 2 x 2), so the answer, and the idle egress each of C1's two
    # terms leaves for backfilling, are those of the 2 x 2 fabric; every piece at full rate
    inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
                                  Coflow("C2", [(1, 0, 1), (1, 1, 1)])],
                                 num_ingress=150, num_egress=150)
    plain = bvn(inst, [0, 1])
    assert verify_schedule(inst, plain, mode="exact").coflow_completion.tolist() == [2, 4]
    filled = bvn(inst, [0, 1], backfill=True)
    assert verify_schedule(inst, filled, mode="exact").coflow_completion.tolist() == [2, 2]
    assert set(plain.rate.tolist()) == {1} and plain.num_pieces == 4


def test_group_schedule_takes_the_aggregate_rho():
    # two coflows grouped: the aggregated matrix [[1, 1], [1, 1]] has rho 2 (each alone has
    # rho 2 too): the group ends at 2; a third coflow in a second group starts at 2
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1)]),
                                  Coflow("B", [(1, 0, 1), (1, 1, 1)]),
                                  Coflow("C", [(0, 0, 3)], release=1)])
    s = bvn_group_schedule(inst, [[0, 1], [2]])
    rep = verify_schedule(inst, s, mode="exact")
    assert rep.ok
    assert rep.coflow_completion.tolist() == [2, 2, 5]
    assert s.meta["groups"] == [[0, 1], [2]]


def test_group_schedule_checks_groups_and_capacities():
    inst = fig_b2()
    with pytest.raises(InvalidParameterError, match="empty"):
        bvn_group_schedule(inst, [[0], []])
    with pytest.raises(InvalidParameterError, match="repeats"):
        bvn_group_schedule(inst, [[0], [0]])
    with pytest.raises(InvalidParameterError, match="not in"):
        bvn_group_schedule(inst, [[5]])
    het = Instance.from_coflows([Coflow("A", [(0, 0, 1)])], ingress_capacity=[2.0],
                                egress_capacity=[1.0])
    with pytest.raises(NotSupportedError, match="same capacity"):
        bvn(het, [0])
    with pytest.raises(NotSupportedError, match="same capacity"):
        bvn_group_schedule(het, [[0]], heterogeneous="refuse")
    with pytest.raises(InvalidParameterError, match="heterogeneous"):
        bvn_group_schedule(het, [[0]], heterogeneous="ignore")


@given(random_instances())
def test_group_schedule_fluid_fallback_with_unequal_capacities(case):
    # unequal capacities: each group at constant rates remaining / L, ending at start + L with
    # L = max_p load_p / c_p -- the same group end as BvN gives with equal capacities
    inst, order = case
    groups = [order[:1], order[1:]] if len(order) > 1 else [order]
    s = bvn_group_schedule(inst, groups, exact=True)
    rep = verify_schedule(inst, s, mode="exact")
    assert rep.ok, rep.summary()
    t = Fraction(0)
    cap = [Fraction(float(c)) for c in inst.capacity]
    for g in groups:
        start = max([t] + [Fraction(float(inst.release[k])) for k in g])
        load = [Fraction(0)] * inst.num_ports
        for k in g:
            for f in range(inst.flow_ptr[k], inst.flow_ptr[k + 1]):
                load[inst.flow_src[f]] += Fraction(float(inst.flow_size[f]))
                load[inst.num_ingress + inst.flow_dst[f]] += Fraction(float(inst.flow_size[f]))
        t = start + max(x / c for x, c in zip(load, cap))
        # the group ends at t; with BvN (equal capacities) a coflow off the bottleneck may end
        # earlier, with the fluid fallback every coflow ends at t
        assert max(rep.coflow_completion[k] for k in g) == t
        if not inst.uniform_capacity:
            assert all(rep.coflow_completion[k] == t for k in g)


def test_float_sizes_give_a_float_schedule():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.3), (0, 1, 0.7), (1, 1, 0.2)])])
    s = bvn(inst, [0])
    assert not s.exact
    rep = verify_schedule(inst, s)
    assert rep.ok and rep.coflow_completion[0] == pytest.approx(1.0, rel=1e-12)


def test_a_term_shorter_than_one_ulp_of_its_start_gives_no_piece():
    """qsz on the FB trace (bvn engine) was rejected: a decomposition term of ~1e-12 at
    t = 131334.376 made a piece whose end rounded to its start.  In float such a term sends
    nothing (the flow keeps the data for a later term or settle_sizes); exact mode is as
    before."""
    from coflowopt.rates.bvn import _Builder
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4.0)])])
    t = 131334.376
    b = _Builder(inst, exact=False)
    assert b.send(0, t, 1e-12) == 0.0 and b.pieces == [] and b.rem[0] == 4.0
    assert b.send(0, t, 1.0) == 1.0 and b.pieces == [(0, t, t + 1.0, 1.0)]
    e = _Builder(inst, exact=True)
    assert e.send(0, Fraction(t), Fraction(1, 10 ** 12)) == Fraction(1, 10 ** 12)
    assert len(e.pieces) == 1

