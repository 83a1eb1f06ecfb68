"""HUG, DRF, PS-P and per-flow fairness against every number printed in Chowdhury's dissertation
(Ch. 7, App. D), in exact arithmetic.

Provenance of each number is given next to it: [TEXT] printed in the dissertation (section),
[DERIV] derived from printed quantities (arithmetic in the comment).  Reference digest:
shared/reference/seed-003-dissertation.md, Sec. 3 E11-E18 and Sec. 7 (errata).
"""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.fairness import (METHODS, allocate, as_correlation_vectors, correlation_vectors,
                                drf_with_spare, flow_max_min, guaranteed_allocation, link_sums,
                                multi_round_drf, optimal_isolation_guarantee, progress,
                                system_bottlenecks, water_fill)

# the running example: two independent unit links (Fig. 7.1)
D_A = [F(1, 2), 1]
D_B = [1, F(1, 6)]
TOY = [D_A, D_B]
# App. D.2: a third coflow with no endpoint on link 2
D_C = [1, 0]
TOY3 = [D_A, D_B, D_C]


def s(row):
    """Exact values as strings, for readable assertions."""
    return [str(x) for x in row]


# ------------------------------------------------------------------ the two-link example (E11)
def test_pstar_and_guarantees_of_the_two_link_example():
    cv = as_correlation_vectors(TOY)
    assert cv.exact
    # [DERIV] link sums 1/2 + 1 = 3/2 and 1 + 1/6 = 7/6 (Sec. 7.1, Fig. 7.1c)
    assert s(link_sums(cv)) == ["3/2", "7/6"]
    # [TEXT] P_A = P_B = 2/3, "50% higher than" per-link max-min's 1/2 (Sec. 7.1)
    assert optimal_isolation_guarantee(cv) == F(2, 3)
    # [TEXT Sec. 7.4.4] a_A = <1/3, 2/3>, a_B = <2/3, 1/9>
    a = guaranteed_allocation(cv)
    assert s(a[0]) == ["1/3", "2/3"] and s(a[1]) == ["2/3", "1/9"]
    # [TEXT E15 / proof of Thm D.3.3] "In Fig. 7.4 the system bottleneck is b = 1" (link 1)
    assert system_bottlenecks(cv).tolist() == [0]


def test_drf_leaves_two_ninths_of_link_two_unused():
    r = allocate(TOY, "drf")
    assert r.isolation_guarantee == F(2, 3)
    assert s(r.progress) == ["2/3", "2/3"]
    # [TEXT Sec. 7.4.4] "2/9th of link-2 remain unused"
    assert s(r.link_load) == ["1", "7/9"]
    assert 1 - r.link_load[1] == F(2, 9)
    assert r.utilisation == F(16, 9)  # [DERIV] 1 + 7/9
    assert not r.work_conserving


@pytest.mark.parametrize("method", ["per-flow", "ps-p"])
def test_per_link_max_min_and_ps_p_give_one_half(method):
    # [TEXT Sec. 7.1, Fig. 7.1b] per-link max-min: <1/2, 1/2> on both links, P_A = P_B = 1/2;
    # [TEXT Sec. 7.4.1, Fig. 7.3] PS-P: a_A = a_B = c_A = c_B = <1/2, 1/2>, isolation 1/2
    r = allocate(TOY, method)
    assert s(r.allocation[0]) == ["1/2", "1/2"] and s(r.allocation[1]) == ["1/2", "1/2"]
    assert s(r.progress) == ["1/2", "1/2"]
    assert r.isolation_guarantee == F(1, 2)
    assert r.utilisation == 2 and r.utilisation_fraction == 1  # full utilisation


def test_hug_final_allocation_of_the_two_coflows():
    # [TEXT Sec. 7.5.2, Fig. 7.7] cap 2/3: C_A is at its bound on link 2, C_B grows on link 2;
    # [DERIV] C_B: min(2/3, 1/9 + 2/9) = 1/3 -> c_A = <1/3, 2/3>, c_B = <2/3, 1/3>
    r = allocate(TOY, "hug")
    assert s(r.guaranteed[0]) == ["1/3", "2/3"] and s(r.guaranteed[1]) == ["2/3", "1/9"]
    assert s(r.consumption[0]) == ["1/3", "2/3"]
    assert s(r.consumption[1]) == ["2/3", "1/3"]
    assert s(r.progress) == ["2/3", "2/3"]
    assert s(r.link_load) == ["1", "1"]  # both links full
    assert r.isolation_guarantee == r.optimal_isolation_guarantee == F(2, 3)


def test_cooperative_hug_is_work_conserving_with_the_optimal_guarantee():
    r = allocate(TOY, "hug-cooperative")
    assert r.isolation_guarantee == F(2, 3)
    assert s(r.link_load) == ["1", "1"]
    assert r.work_conserving


# ------------------------------------------------------------------ the 3x3 fabric (E12)
def fig72_instance():
    # sizes chosen so that the MADD vectors are those printed for Fig. 7.2:
    # A: in0 3 (1/2), in1 6 (1), out0 6 (1), out1 3 (1/2); B: in0 6, in1 1, out1 6, out2 1
    return Instance.from_coflows([Coflow("A", [(0, 0, 3), (1, 0, 3), (1, 1, 3)]),
                                  Coflow("B", [(0, 1, 6), (1, 2, 1)])],
                                 num_ingress=3, num_egress=3)


def test_fig72_fabric_vectors_pstar_and_ps_p():
    cv = correlation_vectors(fig72_instance(), exact=True)
    # [TEXT Sec. 7.3.1] d_A = <1/2, 1, 0, 1, 1/2, 0>, d_B = <1, 1/6, 0, 0, 1, 1/6>
    assert s(cv.d[0]) == ["1/2", "1", "0", "1", "1/2", "0"]
    assert s(cv.d[1]) == ["1", "1/6", "0", "0", "1", "1/6"]
    # [TEXT Sec. 7.3.1] sum of uplink demands equals sum of downlink demands, per coflow
    for row in cv.d:
        assert sum(row[:3]) == sum(row[3:])
    # [DERIV] link sums L1 3/2, L2 7/6, L3 0, L4 1, L5 3/2, L6 1/6 -> P* = 2/3
    assert s(link_sums(cv)) == ["3/2", "7/6", "0", "1", "3/2", "1/6"]
    assert optimal_isolation_guarantee(cv) == F(2, 3)
    a = guaranteed_allocation(cv)
    assert s(a[0]) == ["1/3", "2/3", "0", "2/3", "1/3", "0"]
    assert s(a[1]) == ["2/3", "1/9", "0", "0", "2/3", "1/9"]
    # [TEXT Sec. 7.3.2] PS-P progress in Fig. 7.3: P_A = P_B = 1/2
    assert s(allocate(cv, "ps-p").progress) == ["1/2", "1/2"]
    assert cv.links == ["in0", "in1", "in2", "out0", "out1", "out2"]


def test_per_flow_on_the_fabric_uses_flows():
    # per-flow max-min on the flows of Fig. 7.2's instance: in1 carries 3 flows (1/3 each), then
    # the two flows through in0 get 1/2 each; A's progress 2/3 (out1: (1/3)/(1/2)), B's 1/2
    r = allocate(fig72_instance(), "per-flow", exact=True)
    assert s(r.flow_rates) == ["1/2", "1/3", "1/3", "1/2", "1/3"]
    assert s(r.progress) == ["2/3", "1/2"]
    assert r.params["level"] == "flows"


# ------------------------------------------------------------------ adding C_C (E13, App. D.2)
def test_three_coflows_pstar_and_drf():
    r = allocate(TOY3, "drf")
    # [TEXT App. D.2] P_k = 2/5 for all; link 1 completely used; 7/15 of link 2 used
    assert r.optimal_isolation_guarantee == F(2, 5)
    assert s(r.progress) == ["2/5", "2/5", "2/5"]
    assert s(r.link_load) == ["1", "7/15"]
    # [DERIV] a_A = <1/5, 2/5>, a_B = <2/5, 1/15>, a_C = <2/5, 0>
    assert [s(x) for x in r.allocation] == [["1/5", "2/5"], ["2/5", "1/15"], ["2/5", "0"]]
    # [TEXT] "the remaining 8/15th bandwidth of link-2"
    assert 1 - r.link_load[1] == F(8, 15)


def test_hug_raises_link_two_to_four_fifths():
    # [TEXT App. D.2, Fig. D.1b] not more than 4/5 of link 2 without sacrificing the optimal
    # isolation guarantee; [DERIV] cap 2/5: A stays at 2/5, B grows 1/15 -> 2/5, C has no
    # endpoint on link 2
    r = allocate(TOY3, "hug")
    assert [s(x) for x in r.allocation] == [["1/5", "2/5"], ["2/5", "2/5"], ["2/5", "0"]]
    assert r.link_load[1] == F(4, 5)
    assert r.isolation_guarantee == F(2, 5)
    # any allocation with c_k^i <= P* on link 2 is bounded by 2/5 + 2/5 (C cannot use link 2)
    assert r.link_load[1] == 2 * r.optimal_isolation_guarantee


def test_demand_agnostic_split_gives_one_third():
    # [TEXT App. D.2.1, Fig. D.2a] P_A = 1/2, P_B = P_C = 1/3, isolation guarantee 1/3 < 2/5;
    # [DERIV] link 1 split 1/3 each, link 2 1/2-1/2 between A and B
    r = allocate(TOY3, "ps-p")
    assert [s(x) for x in r.allocation] == [["1/3", "1/2"], ["1/3", "1/2"], ["1/3", "0"]]
    assert s(r.progress) == ["1/2", "1/3", "1/3"]
    assert r.isolation_guarantee == F(1, 3)


def test_lemma_d21_equal_sharing_with_inelastic_demands_is_not_work_conserving():
    # [TEXT Lemma D.2.1] only 11/12 of link 1 and 5/9 of link 2 are consumed; [DERIV] A consumes
    # 1/2 <1/2, 1> = <1/4, 1/2>, B 1/3 <1, 1/6> = <1/3, 1/18>, C <1/3, 0>
    r = allocate(TOY3, "ps-p", elastic=False)
    assert [s(x) for x in r.consumption] == [["1/4", "1/2"], ["1/3", "1/18"], ["1/3", "0"]]
    assert s(r.link_load) == ["11/12", "5/9"]


def test_lemma_d23_least_demand_can_waste_the_spare():
    # [TEXT Lemma D.2.3] giving the spare to the least demand (C_C, demand 0 on link 2) adds no
    # utilisation at all
    drf = allocate(TOY3, "drf")
    r = drf_with_spare(TOY3, "least-demand-any")
    assert r.allocation[2, 1] == F(8, 15)            # C gets link 2's spare ...
    assert r.utilisation == drf.utilisation           # ... and cannot use it
    assert s(r.progress) == ["2/5", "2/5", "2/5"]


def test_lemma_d24_least_demand_is_manipulable_and_its_erratum():
    # [TEXT Lemma D.2.4] C_A reports <1, 1/10>; the spare of link 2 goes to the least demand (A).
    # The dissertation prints a_B = <1/3, 1/15> and a'_A = <1/3, 14/15>.  ERRATUM: with P* = 1/3
    # (link sums 3 and 1/10 + 1/6 = 4/15), a_B = (1/3)(1, 1/6) = <1/3, 1/18>, not 1/15, and the
    # spare then lifts A to 1/30 + 41/45 = 17/18 of link 2, not 14/15.  A's true progress is 2/3
    # either way (limited by link 1: (1/3) / (1/2)), as printed; P_B = P_C = 1/3 as printed.
    truthful = drf_with_spare(TOY3, "least-demand")
    assert truthful.progress[0] == F(2, 5)
    r = drf_with_spare(TOY3, "least-demand", reported=[[1, F(1, 10)], D_B, D_C])
    assert r.optimal_isolation_guarantee == F(1, 3)
    assert [s(x) for x in r.guaranteed] == [["1/3", "1/30"], ["1/3", "1/18"], ["1/3", "0"]]
    assert r.guaranteed[1, 1] != F(1, 15)             # the printed value is an erratum
    assert r.allocation[0, 1] == F(17, 18)            # printed 14/15 (erratum)
    assert s(r.progress) == ["2/3", "1/3", "1/3"]     # [TEXT] P'_A = 2/3, P_B = P_C = 1/3


def test_lemma_d26_highest_demand_is_manipulable():
    # [TEXT Lemma D.2.6, Fig. D.2b] C_A reports <1, 1>: P_B = P_C = 1/3; [DERIV] P* = 1/3,
    # a_A = <1/3, 1/3>, link-2 spare 11/18 to A -> 17/18, A's true progress 2/3 > 2/5
    r = drf_with_spare(TOY3, "highest-demand", reported=[[1, 1], D_B, D_C])
    assert r.optimal_isolation_guarantee == F(1, 3)
    assert r.allocation[0, 1] == F(17, 18)
    assert s(r.progress) == ["2/3", "1/3", "1/3"]


def test_lemma_d28_equal_division_raises_a_to_two_thirds():
    # [TEXT Lemma D.2.8, Fig. D.2c] dividing the 8/15 equally raises C_A's share to 2/3
    r = drf_with_spare(TOY3, "equal")
    assert r.allocation[0, 1] == F(2, 3)
    assert r.allocation[1, 1] == F(1, 3)              # [DERIV] 1/15 + 4/15
    assert r.link_load[1] == 1


def test_lemma_d29_proportional_division():
    # [DERIV Lemma D.2.9] the 8/15 spare in proportion to the demands 1 and 1/6 on link 2:
    # A + 8/15 * 6/7 = 2/5 + 16/35 = 6/7, B + 8/15 * 1/7 = 1/15 + 8/105 = 1/7
    r = drf_with_spare(TOY3, "proportional")
    assert s(r.allocation[:, 1]) == ["6/7", "1/7", "0"]


# ------------------------------------------------------------------ Lemma D.3.6 (E16)
@pytest.mark.parametrize("K", [2, 5, 10, 100, 1000])
@pytest.mark.parametrize("N", [1, 3])
def test_drf_family_utilisation_tends_to_zero_while_hug_reaches_one(K, N):
    # [TEXT Lemma D.3.6] K links, N coflows, demand 1 on link 1 and eps elsewhere: DRF gives
    # 1/N on link 1 and eps/N elsewhere, utilisation (1 + (K-1) eps) / K -> 0; HUG: 1/N on
    # every link, 100%
    eps = F(1, 1000)
    vec = [[1] + [eps] * (K - 1) for _ in range(N)]
    drf = allocate(vec, "drf")
    assert drf.optimal_isolation_guarantee == F(1, N)
    assert drf.utilisation_fraction == (1 + (K - 1) * eps) / K
    hug = allocate(vec, "hug")
    assert hug.utilisation_fraction == 1
    assert all(x == F(1, N) for x in hug.allocation.ravel())
    assert hug.isolation_guarantee == F(1, N)
    assert allocate(vec, "hug-cooperative").utilisation_fraction == 1


def test_drf_family_utilisation_decreases_with_k():
    eps = F(1, 100)
    util = [allocate([[1] + [eps] * (K - 1)] * 2, "drf").utilisation_fraction
            for K in (2, 4, 8, 16, 32, 64)]
    assert all(b < a for a, b in zip(util, util[1:]))
    assert util[-1] < F(1, 32)


# ------------------------------------------------------------------ E17, E18
def test_min_cut_proportionality():
    # [TEXT Sec. 7.5.3, Fig. 7.9] all-to-all C_X and N-to-1 C_Y: P_X = P_Y = 1/2 and C_X gets P
    # times more total bandwidth; total bandwidth = rate sent through the uplinks
    P = 5
    X = Coflow("X", [(i, j, 1) for i in range(P) for j in range(P)])
    Y = Coflow("Y", [(i, 0, 1) for i in range(P)])
    inst = Instance.from_coflows([X, Y], num_ingress=P, num_egress=P)
    r = allocate(inst, "hug", exact=True)
    assert r.optimal_isolation_guarantee == F(1, 2)
    assert s(r.progress) == ["1/2", "1/2"]
    sent_x, sent_y = r.guaranteed[0, :P].sum(), r.guaranteed[1, :P].sum()
    assert sent_x == P * sent_y


@pytest.mark.parametrize("n", [1, 2, 5, 20, 100])
def test_host_level_isolation_against_per_flow(n):
    # [TEXT Sec. 7.7.2, Fig. 7.10] A1 -> A2 and B1 -> n destinations from the same machine: HUG
    # keeps 1/2 each; [DERIV] per-flow fairness gives A 1/(n+1) of the shared uplink
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
                                  Coflow("B", [(0, j, 1) for j in range(1, n + 1)])])
    hug = allocate(inst, "hug", exact=True)
    assert hug.optimal_isolation_guarantee == F(1, 2)
    assert hug.allocation[0, 0] == F(1, 2)
    pf = allocate(inst, "per-flow", exact=True)
    assert pf.allocation[0, 0] == F(1, n + 1)
    assert pf.progress[0] == F(1, n + 1)


def test_network_level_shares_split_among_active_coflows():
    # [TEXT Sec. 7.7.2] every coflow demands the whole capacity at each machine, so the cluster is
    # divided equally among active coflows: [DERIV] P* = 1/2 with two, 1/3 with three
    M = 8
    A = Coflow("A", [(i, (i + M // 2) % M, 1) for i in range(M)])
    C = Coflow("C", [(j, (j + M // 4) % M, 1) for j in range(M)])
    B = Coflow("B", [(i, j, 1) for i in range(M) for j in range(M)])
    two = Instance.from_coflows([A, B], num_ingress=M, num_egress=M)
    three = Instance.from_coflows([A, B, C], num_ingress=M, num_egress=M)
    assert optimal_isolation_guarantee(correlation_vectors(two, exact=True)) == F(1, 2)
    assert optimal_isolation_guarantee(correlation_vectors(three, exact=True)) == F(1, 3)


# ------------------------------------------------------------------ weights, bounded demands
def test_weighted_vectors_scale_the_guarantee():
    # Sec. 7.6.3: use w_k d_k; [DERIV] weights (2, 1): link sums 2*1/2 + 1 = 2 and 2 + 1/6 =
    # 13/6 -> P* = 6/13, progress P_k = P* w_k
    cv = as_correlation_vectors(TOY, weights=[2, 1])
    assert cv.weighted
    assert optimal_isolation_guarantee(cv) == F(6, 13)
    r = allocate(cv, "drf")
    assert s(r.progress) == ["12/13", "6/13"]
    assert allocate(cv, "hug").progress.tolist() == r.progress.tolist()
    # weights of an instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], weight=3), Coflow("B", [(0, 0, 1)])])
    assert s(allocate(inst, "drf", weighted=True, exact=True).progress) == ["3/4", "1/4"]


def test_bounded_demands_single_link_is_max_min_with_demands():
    # Sec. 7.6.3: "similar to max-min fairness in a single link when one flow has a smaller
    # demand than its 1/n-th share"
    cv = as_correlation_vectors([[F(1, 10)], [F(1, 2)], [F(4, 5)]], bounded=True)
    with pytest.raises(NotSupportedError):
        optimal_isolation_guarantee(cv)
    r = multi_round_drf(cv)
    assert s(r.allocation[:, 0]) == ["1/10", "9/20", "9/20"]
    assert [r.rounds[0]["why"][0], r.rounds[1]["why"][1]] == ["demand", "link"]
    hug = allocate(cv, "hug")
    assert s(hug.allocation[:, 0]) == ["1/10", "9/20", "9/20"]
    assert s(allocate(cv, "ps-p").allocation[:, 0]) == ["1/10", "9/20", "9/20"]


def test_bounded_demands_multi_round_beats_the_one_round_closed_form():
    # A and B share link 1; C alone on link 2 with a bounded demand.  One round (Eq. 7.2) would
    # give everyone 1/2; multi-round DRF gives C its whole demand 3/4 on link 2.
    cv = as_correlation_vectors([[1, 0], [1, 0], [0, F(3, 4)]], bounded=True)
    r = multi_round_drf(cv)
    assert s(r.share) == ["1/2", "1/2", "3/4"]
    assert len(r.rounds) == 2
    # with demands large enough on the common bottleneck it is the closed form
    big = as_correlation_vectors([[F(1, 2), 1], [1, F(1, 6)]])
    assert s(multi_round_drf(big).share) == ["2/3", "2/3"]


def test_hug_stage2_respects_bounded_demands():
    cv = as_correlation_vectors([[F(1, 2), F(1, 4)], [F(1, 2), F(1, 2)]], bounded=True)
    r = allocate(cv, "hug-cooperative")
    assert all(r.consumption[k, i] <= cv.demand[k, i] for k in range(2) for i in range(2))
    r.check()


# ------------------------------------------------------------------ building blocks and errors
def test_correlation_vectors_normalise_by_capacity():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4), (1, 0, 2)])],
                                 ingress_capacity=[2.0, 1.0], egress_capacity=[4.0])
    cv = correlation_vectors(inst, exact=True)
    # loads/capacity: in0 4/2 = 2, in1 2/1 = 2, out0 6/4 = 3/2 -> divided by the max 2
    assert s(cv.d[0]) == ["1", "1", "3/4"]
    fl = correlation_vectors(inst)
    assert fl.d[0].tolist() == [1.0, 1.0, 0.75]
    rem = correlation_vectors(inst, exact=True, remaining=np.array([4.0, 0.0]))
    assert s(rem.d[0]) == ["1", "0", "1/2"]


def test_errors_name_the_parameter():
    with pytest.raises(InvalidParameterError, match=r"vectors\[1\] is all zero"):
        as_correlation_vectors([[1, 0], [0, 0]])
    with pytest.raises(InvalidParameterError, match=r"vectors\[0\]\[1\]"):
        as_correlation_vectors([[1, -1]])
    with pytest.raises(InvalidParameterError, match="weights must have 2"):
        as_correlation_vectors(TOY, weights=[1])
    with pytest.raises(InvalidParameterError, match="method must be one of"):
        allocate(TOY, "wfq")
    with pytest.raises(InvalidParameterError, match="spare policy"):
        drf_with_spare(TOY, "random")
    with pytest.raises(InvalidParameterError, match="reported vectors have shape"):
        allocate(TOY, "hug", reported=[[1, 1, 1], [1, 1, 1]])
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)])])
    with pytest.raises(InvalidParameterError, match="nothing left"):
        correlation_vectors(inst, remaining=np.zeros(1))


def test_water_fill_and_flow_max_min():
    h = np.array([F(1, 10), F(1), F(1)], dtype=object)
    assert s(water_fill(h, F(1, 2))) == ["1/10", "1/5", "1/5"]
    assert s(water_fill(h, F(5))) == ["1/10", "1", "1"]          # headroom-limited
    assert s(water_fill(None, F(1), count=4)) == ["1/4"] * 4
    cap = np.array([F(1)] * 4, dtype=object)
    rates = flow_max_min(np.array([0, 0, 1]), np.array([2, 3, 2]), cap)
    assert s(rates) == ["1/2", "1/2", "1/2"]


def test_progress_skips_links_without_demand():
    d = np.array([[F(1), F(0)]], dtype=object)
    a = np.array([[F(1, 3), F(0)]], dtype=object)
    assert progress(a, d).tolist() == [F(1, 3)]
    assert progress(a.astype(float), d.astype(float)).tolist() == [1 / 3]


def test_float_and_exact_agree_and_to_dict():
    for m in METHODS:
        ex = allocate(TOY3, m)
        fl = allocate([[float(x) for x in r] for r in TOY3], m)
        assert np.allclose(fl.allocation, ex.allocation.astype(float))
        assert abs(float(ex.isolation_guarantee) - fl.isolation_guarantee) < 1e-12
    d = allocate(TOY, "hug").to_dict()
    assert d["isolation_guarantee"] == "2/3" and d["coflows"][1]["allocation"] == {
        "L1": "2/3", "L2": "1/3"}


# ------------------------------------------------------------------ properties
def _vectors(draw_rows):
    return [[F(n, 6) for n in row] for row in draw_rows]


rows_st = st.lists(st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(any),
                   min_size=1, max_size=5)


@given(rows_st, st.lists(st.integers(0, 3), min_size=5, max_size=5))
def test_hug_never_exceeds_capacity_nor_gives_less_than_pstar(rows, weights):
    weights = weights[:len(rows)]
    if not any(weights):
        weights[0] = 1
    for w in (None, weights):
        cv = as_correlation_vectors(_vectors(rows), weights=w)
        pstar = optimal_isolation_guarantee(cv)
        assert pstar <= 1 or cv.weighted
        for method in ("hug", "hug-cooperative", "drf"):
            r = allocate(cv, method)
            r.check()                                              # exact: no link above 1
            assert all(x <= 1 for x in r.link_load)
            want = cv.weight * pstar if cv.weighted else np.array([pstar] * len(rows))
            assert all(p >= q for p, q in zip(r.progress, want))   # never below P* (w_k P*)
            if method == "hug":
                # the Stage-2 cap: nobody above max_j a_k^j on any link, so progress is P* w_k
                assert all(p == q for p, q in zip(r.progress, want))
                caps = r.guaranteed.max(axis=1)
                assert all(r.allocation[k, i] <= caps[k] for k in range(len(rows))
                           for i in range(3))
        coop = allocate(cv, "hug-cooperative")
        used = [i for i in range(3) if any(cv.d[k, i] > 0 for k in range(len(rows)))]
        assert all(coop.link_load[i] == 1 for i in used)          # work-conserving
        for method in ("ps-p", "per-flow"):
            allocate(cv, method).check()


def test_more_aggregate_bandwidth_is_not_always_better():
    # [TEXT Sec. 7.1] for C_A, <50, 100> Mbps beats <90, 90> and <25, 200>; [DERIV] progress in
    # Mbps min(x1 / (1/2), x2 / 1) = 100, 90, 50
    d = np.array([D_A], dtype=object)
    got = [progress(np.array([x], dtype=object), d)[0]
           for x in ([50, 100], [90, 90], [25, 200])]
    assert got == [100, 90, 50]


def test_lemma_d22_ps_p_holdouts():
    # [TEXT Lemma D.2.2] PS-P with inelastic demands: if C_B gives up its spare link-2 share, C_A
    # reaches P_A = 2/3 and link 1 saturates (B, C stay at 1/3); if C_A gives up its spare link-1
    # share, B and C reach 3/8 and link 1 saturates (A stays at 1/2)
    cv = as_correlation_vectors(TOY3)
    base = allocate(cv, "ps-p", elastic=False)
    spare_b_link2 = base.allocation[1, 1] - base.consumption[1, 1]      # 1/2 - 1/18 = 4/9
    spare_a_link1 = base.allocation[0, 0] - base.consumption[0, 0]      # 1/3 - 1/4 = 1/12
    assert (spare_b_link2, spare_a_link1) == (F(4, 9), F(1, 12))
    b_gives = base.allocation.copy()
    b_gives[0, 1] += spare_b_link2
    b_gives[1, 1] -= spare_b_link2
    p = progress(b_gives, cv.d)
    assert s(p) == ["2/3", "1/3", "1/3"]
    assert sum(p[k] * cv.d[k, 0] for k in range(3)) == 1                # link 1 saturated
    a_gives = base.allocation.copy()
    a_gives[0, 0] -= spare_a_link1
    a_gives[1, 0] += spare_a_link1 / 2
    a_gives[2, 0] += spare_a_link1 / 2
    p = progress(a_gives, cv.d)
    assert s(p) == ["1/2", "3/8", "3/8"]
    assert sum(p[k] * cv.d[k, 0] for k in range(3)) == 1
