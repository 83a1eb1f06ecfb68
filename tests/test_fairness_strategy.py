"""Misreports: the payoff matrix of Fig. 7.5 under naive work conservation, and HUG's
strategy-proofness (Thm D.3.3), in exact arithmetic."""

from fractions import Fraction as F

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from coflowopt.fairness import (allocate, as_correlation_vectors, best_misreport, lie_grid,
                                misreport, payoff_matrix)
from coflowopt.fairness.strategy import outcome

TOY = [[F(1, 2), 1], [1, F(1, 6)]]
LIES = {0: [1, 1], 1: [1, 1]}


def s(row):
    return [str(x) for x in row]


def test_payoff_matrix_under_naive_work_conservation():
    # [TEXT Sec. 7.4.3, Fig. 7.5] (C_A, C_B) progress: truthful (2/3, 2/3); A lies <1,1>
    # (11/12, 1/2); B lies <1,1> (1/2, 3/4); both lie (1/2, 1/2): a prisoner's dilemma
    m = payoff_matrix(TOY, LIES, "naive-wc")
    assert s(m.progress(False, False)) == ["2/3", "2/3"]
    assert s(m.progress(True, False)) == ["11/12", "1/2"]
    assert s(m.progress(False, True)) == ["1/2", "3/4"]
    assert s(m.progress(True, True)) == ["1/2", "1/2"]
    # [TEXT] A lies: a_A = <1/2, 1/2>, a_B = <1/2, 1/12>, WC raises a_A to <1/2, 11/12>
    a_lies = m.cells[(True, False)]
    assert s(a_lies.guaranteed[0]) == ["1/2", "1/2"] and s(a_lies.guaranteed[1]) == ["1/2", "1/12"]
    assert s(a_lies.allocation[0]) == ["1/2", "11/12"]
    # [TEXT] B lies: a_A = <1/4, 1/2>, a_B = <1/2, 1/2>, WC raises a_B to <3/4, 1/2>
    b_lies = m.cells[(False, True)]
    assert s(b_lies.guaranteed[0]) == ["1/4", "1/2"] and s(b_lies.guaranteed[1]) == ["1/2", "1/2"]
    assert s(b_lies.allocation[1]) == ["3/4", "1/2"]
    text = m.table()
    assert "(11/12, 1/2)" in text and "(1/2, 3/4)" in text


def test_payoff_matrix_with_inelastic_demands_lowers_utilisation():
    # [TEXT Sec. 7.4.4, Fig. 7.6] A lies: allocation <1/2, 11/12>, consumes <11/24, 11/12>;
    # B lies: <3/4, 1/2>, consumes <3/4, 1/8>; both lie: c_A = <1/4, 1/2>, c_B = <1/2, 1/12>
    m = payoff_matrix(TOY, LIES, "naive-wc", elastic=False)
    assert s(m.cells[(True, False)].consumption[0]) == ["11/24", "11/12"]
    assert s(m.cells[(False, True)].consumption[1]) == ["3/4", "1/8"]
    both = m.cells[(True, True)]
    assert s(both.consumption[0]) == ["1/4", "1/2"] and s(both.consumption[1]) == ["1/2", "1/12"]
    # [DERIV] utilisation: truthful 16/9, only A lies 47/24 (up), only B lies 13/8 (down),
    # both lie 4/3 (down: "work conservation decreases network utilization")
    assert m.utilisation(False, False) == F(16, 9)
    assert m.utilisation(True, False) == F(47, 24)
    assert m.utilisation(False, True) == F(13, 8)
    assert m.utilisation(True, True) == F(4, 3)
    assert s(m.progress(True, False)) == ["11/12", "1/2"]   # progress as in the elastic case


def test_hug_removes_the_incentive_to_lie():
    # [TEXT Sec. 7.5.2] HUG restricts the liar to 2/3 at most; [DERIV] lying <1,1> under HUG
    # gives (1/2, 1/2): truth is a dominant strategy
    m = payoff_matrix(TOY, LIES, "hug")
    assert s(m.progress(False, False)) == ["2/3", "2/3"]
    for lying in [(True, False), (False, True), (True, True)]:
        p = m.progress(*lying)
        for k, lies in enumerate(lying):
            if lies:
                assert p[k] <= F(2, 3) and p[k] < F(2, 3)
    # exhaustive search over every report on a 1/12 grid: nobody beats 2/3 under HUG, while
    # naive work conservation pays 11/12 (A) and 3/4 (B)
    grid = lie_grid(2, 12)
    for k in (0, 1):
        honest, best, _ = best_misreport(TOY, k, grid, "hug")
        assert honest == F(2, 3) and best <= F(2, 3)
    assert best_misreport(TOY, 0, grid, "naive-wc")[1] == F(11, 12)
    assert best_misreport(TOY, 1, grid, "naive-wc")[1] == F(3, 4)


def test_theorem_d33_illustrations():
    # [TEXT proof of Thm D.3.3] C_A reports d'_1A = 1/4: link-1 allocation drops to 1/5 and
    # P'_A = 2/5; reports d'_1A = 1: link-1 allocation 1/2, P_A = P_B = 1/2, Stage 2 caps link 2
    # at 1/2, P'_A = 1/2
    true = as_correlation_vectors(TOY)
    low = outcome(true, misreport(true, 0, [F(1, 4), 1]), "hug")
    assert low.allocation[0, 0] == F(1, 5) and low.progress[0] == F(2, 5)
    high = outcome(true, misreport(true, 0, [1, 1]), "hug")
    assert high.allocation[0, 0] == F(1, 2) and high.allocation[0, 1] == F(1, 2)
    assert s(high.progress) == ["1/2", "1/2"]


def test_lemma_d31_a_tiny_lie_pays_when_spare_is_unrestricted():
    # [TEXT Lemma D.3.1] C_A reports <1/2 + eps, 1>: a'_A = <(1/2+eps)/(3/2+eps), 1/(3/2+eps)>
    # and with spare delta on link 2, P'_A = min((1+2eps)/(3/2+eps), 1/(3/2+eps) + delta) > 2/3
    true = as_correlation_vectors(TOY)
    for eps in (F(1, 10), F(1, 100), F(1, 10 ** 6)):
        r = outcome(true, misreport(true, 0, [F(1, 2) + eps, 1]), "naive-wc")
        assert s(r.guaranteed[0]) == s([(F(1, 2) + eps) / (F(3, 2) + eps), 1 / (F(3, 2) + eps)])
        delta = r.allocation[0, 1] - r.guaranteed[0, 1]
        assert r.progress[0] == min((1 + 2 * eps) / (F(3, 2) + eps), 1 / (F(3, 2) + eps) + delta)
        assert r.progress[0] > F(2, 3)
        # under HUG the same lie does not pay
        assert outcome(true, misreport(true, 0, [F(1, 2) + eps, 1]), "hug").progress[0] < F(2, 3)


def test_spare_division_policies_of_appendix_d2_are_manipulable():
    toy3 = TOY + [[1, 0]]
    grid = lie_grid(2, 10)
    for policy in ("least-demand", "highest-demand", "equal", "proportional"):
        honest, best, lie = best_misreport(toy3, 0, grid, f"drf+{policy}")
        assert honest == F(2, 5), policy
        assert best > honest, (policy, best, lie)          # Lemmas D.2.4, D.2.6, D.2.8, D.2.9
    honest, best, _ = best_misreport(toy3, 0, grid, "hug")
    assert best <= honest == F(2, 5)


rows_st = st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any),
                   min_size=2, max_size=4)


@given(rows_st, st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any),
       st.sampled_from(["hug", "drf"]), st.booleans())
def test_hug_is_strategyproof_on_random_inputs(rows, lie, method, elastic):
    # Thm D.3.3: under HUG (and DRF) no report raises the liar's true progress
    true = as_correlation_vectors([[F(v, 4) for v in r] for r in rows])
    honest = allocate(true, method, elastic=elastic).progress[0]
    r = outcome(true, misreport(true, 0, [F(v, 4) for v in lie]), method, elastic=elastic)
    assert r.progress[0] <= honest
    r.check()


def test_payoff_to_dict():
    d = payoff_matrix(TOY, LIES, "naive-wc").to_dict()
    assert d["liars"] == ["A", "B"]
    cell = [c for c in d["cells"] if c["lying"] == ["A"]][0]
    assert cell["progress"] == ["11/12", 0.5]
    assert np.isclose(float(F(cell["progress"][0])), 11 / 12)


def test_cooperative_hug_is_not_strategyproof():
    # Sec. 7.5.3: without the Stage-2 cap (cooperative settings, where strategy-proofness is not
    # required) a lie pays.  [DERIV] A reports <2/3, 1>: P* = 3/5, a_A = <2/5, 3/5>,
    # a_B = <3/5, 1/10>; link 2's spare 3/10 split equally -> A 3/4, true progress
    # min((2/5)/(1/2), 3/4) = 3/4 > 2/3 (Lemma D.3.1: spare above the bottleneck share)
    true = as_correlation_vectors(TOY)
    r = outcome(true, misreport(true, 0, [F(2, 3), 1]), "hug-cooperative")
    assert s(r.allocation[0]) == ["2/5", "3/4"]
    assert r.progress[0] == F(3, 4)
