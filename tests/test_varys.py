"""Offline Varys (SEBF re-evaluated at coflow events + iterative MADD + backfilling)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.policies import VarysPolicy, remaining_gamma, varys
from coflowopt.rates import madd
from coflowopt.simulate import simulate
from test_flow_level import library_or
from test_madd import BACKFILLS, fig_b2, random_instances, verified


def fig_5_3():
    # dissertation Fig. 5.3 (E6, egress contention only; one ingress per flow)
    return Instance.from_coflows([Coflow("C1", [(0, 0, 2), (1, 0, 2)]),
                                  Coflow("C2", [(2, 0, 3), (3, 1, 1), (4, 2, 1)])])


def sincronia_fig1(eps=0.01):
    c1 = [(i, i, 1) for i in range(4)] + [(i, (i + 1) % 4, 1) for i in range(4)]
    c1 = [c1[k // 2 + 4 * (k % 2)] for k in range(8)]   # the library's flow order
    return Instance.from_coflows([Coflow("C1", c1)] +
                                 [Coflow(f"C{i + 2}", [(i, i, 2 + eps)]) for i in range(4)])


@pytest.mark.parametrize("backfill", BACKFILLS)
def test_fig_b2_sebf_iterative_madd_gives_2_2(backfill):
    # SEBF ties (both Gamma 2) and picks C1; iterative MADD gives C1 half of every port and
    # C2 the other half: (2, 2), the optimum (permutation schedules give (2, 3))
    inst = library_or("papers/dissertation-figB.2", fig_b2)
    rep = verified(inst, varys(inst, backfill=backfill), exact=True)
    assert rep.coflow_completion.tolist() == [2.0, 2.0]


def test_fig_5_3_sebf_schedules_the_bigger_coflow_first():
    # C2 is bigger in length, width and size but has the smaller Gamma (3 < 4): average CCT
    # 5 instead of 5.5
    inst = library_or("papers/dissertation-fig5.3", fig_5_3)
    rep = verified(inst, varys(inst), exact=True)
    assert rep.coflow_completion.tolist() == [7.0, 3.0]
    assert rep.average_cct == 5.0
    assert verified(inst, madd(inst, [0, 1])).average_cct == 5.5


def test_sincronia_fig1_varys_schedules_c1_first():
    # Sincronia's Fig. 1 with eps = 0.01: SEBF puts C1 (Gamma 2) before the singles (2.01);
    # MADD runs C1 at 1/2 per flow on every port: C1 = 2, the others 4.01 (average CCT 3.608,
    # against 2.41 for the optimum: the singles first)
    inst = library_or("papers/sincronia-fig1-eps0.01", sincronia_fig1)
    rep = verified(inst, varys(inst))
    np.testing.assert_allclose(rep.coflow_completion, [2, 4.01, 4.01, 4.01, 4.01], rtol=1e-12)


def test_sebf_is_reevaluated_on_remaining_demand():
    # A (4 units) runs alone from 0; B (3 units, same ports) arrives at 2, when A has 2 left:
    # Varys keeps A first (remaining Gamma 2 < 3); a static SEBF order on the initial Gamma
    # (B first) preempts A
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]), Coflow("B", [(0, 0, 3)], release=2)])
    assert verified(inst, varys(inst), exact=True).coflow_completion.tolist() == [4.0, 7.0]
    static = np.argsort(inst.rho, kind="stable")
    assert verified(inst, madd(inst, static), exact=True).coflow_completion.tolist() == \
        [7.0, 5.0]


@given(random_instances(), st.sampled_from(BACKFILLS))
def test_kernel_equals_policy_in_the_generic_simulator(case, backfill):
    inst, order = case
    a = varys(inst, backfill=backfill, tie_order=order, engine="kernel")
    b = varys(inst, backfill=backfill, tie_order=order, engine="python")
    ra, rb = verified(inst, a), verified(inst, b)
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)
    assert a.meta["policy_calls"] == b.meta["policy_calls"]


@given(random_instances())
def test_without_releases_varys_equals_madd_in_sebf_order_until_the_first_event(case):
    # at time 0 Varys ranks by Gamma = rho (ties by instance order): its first allocation is
    # MADD's with the static rho order, so the first coflow to finish finishes at the same time
    inst, _ = case
    inst = inst.with_releases(0.0)
    static = np.argsort(inst.rho, kind="stable")
    cv = verified(inst, varys(inst)).coflow_completion
    cm = verified(inst, madd(inst, static)).coflow_completion
    assert cv.min() == pytest.approx(cm.min(), rel=1e-9)


def test_remaining_gamma():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 1)]), Coflow("B", [(1, 1, 4)])],
                                 egress_capacity=[1.0, 2.0])
    np.testing.assert_allclose(remaining_gamma(inst, inst.flow_size, [0, 1]), [3.0, 4.0])
    np.testing.assert_allclose(remaining_gamma(inst, [1.0, 0.0, 4.0], [0, 1]), [1.0, 4.0])
    with pytest.raises(InvalidParameterError, match="capacity"):
        remaining_gamma(inst, inst.flow_size, [0], capacity=[1.0])


def test_policy_can_be_subclassed():
    # an extension point in use: largest remaining Gamma first (the anti-SEBF order)
    class LargestFirst(VarysPolicy):
        name = "anti-sebf"

        def sebf_key(self, state, coflows):
            return -super().sebf_key(state, coflows)

    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 3)])])
    res = simulate(inst, LargestFirst())
    rep = verified(inst, res.schedule, exact=True)
    assert rep.coflow_completion.tolist() == [4.0, 3.0]
    assert verified(inst, varys(inst), exact=True).coflow_completion.tolist() == [1.0, 4.0]


def test_durations_hook_sets_madd_duration():
    # deadline-style durations: serve A over 4 time units instead of its Gamma 1
    class Slow(VarysPolicy):
        def durations(self, state, order):
            return np.where(order == 0, 4.0 - state.time, np.nan)

    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)])])
    res = simulate(inst, Slow(backfill=None))
    assert verified(inst, res.schedule, exact=True).coflow_completion.tolist() == [4.0]


def test_bad_parameters_are_named():
    inst = fig_b2()
    with pytest.raises(InvalidParameterError, match="backfill"):
        varys(inst, backfill="all")
    with pytest.raises(InvalidParameterError, match="engine"):
        varys(inst, engine="gpu")
    with pytest.raises(InvalidParameterError, match="order"):
        varys(inst, tie_order=[0])


@pytest.mark.slow
@pytest.mark.parametrize("zero_release", [False, True])
def test_fb_trace_varys_verifies(fb_trace_path, zero_release):
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path)
    if zero_release:
        inst = inst.with_releases(0.0)
    s = varys(inst)
    rep = verified(inst, s)
    assert s.meta["policy_calls"] <= 2 * inst.num_coflows + 1
    assert rep.ok
