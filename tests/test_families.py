"""The published bad families reproduce their published behaviour (coflowopt.adversarial.families).

Each test names the claim it checks; proofs/README.md indexes them.  Every schedule goes
through the verifier inside the family checkers (exact mode where the numbers are rational).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from coflowopt.adversarial import families as fam
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.library import load_instance
from coflowopt.verify import verify_schedule


# ---------------------------------------------------------------------------- Fig. 4
def test_fig4_sebf_matches_closed_form_and_bnb_small():
    r = fam.check_sincronia_fig4(4, 2)          # t + N = 6: bnb proves the optimum
    assert r["opt_bnb"] == r["opt"] == 15
    assert r["values"]["sebf+greedy"] == 19
    assert r["lb"] <= r["opt"]


def test_fig4_ratio_grows_without_bound():
    """t = N^2 > N^(1+eps): SEBF / OPT increases with N (closed-form OPT, verified SEBF)."""
    ratios = [fam.check_sincronia_fig4(N * N, N, exact_opt=False)["ratios"]["sebf+greedy"]
              for N in (2, 3, 4, 6)]
    assert all(b > a for a, b in zip(ratios, ratios[1:]))
    # the closed form: ratio -> infinity (about 2N/5 for t = N^2)
    cf = [fam.fig4_closed_forms(N * N, N) for N in (10, 100, 1000)]
    assert [c["sebf"] / c["opt"] for c in cf] == sorted(c["sebf"] / c["opt"] for c in cf)
    assert cf[-1]["sebf"] / cf[-1]["opt"] > 300


def test_fig4_madd_and_bssi_are_checked_too():
    r = fam.check_sincronia_fig4(9, 3, exact_opt=False)
    assert set(r["values"]) >= {"sebf+greedy", "bssi+greedy"}
    # BSSI is a 4-approximation: bounded on the family
    assert r["ratios"]["bssi+greedy"] <= 4


# ---------------------------------------------------------------------------- Theorem 2
@pytest.mark.parametrize("n", [1, 3, 4, 5, 6, 7, 8, 9, 10])
def test_idempotent_latin_square(n):
    L = fam.idempotent_latin_square(n)
    assert all(sorted(row) == list(range(n)) for row in L.tolist())
    assert all(sorted(col) == list(range(n)) for col in L.T.tolist())
    assert np.array_equal(np.diag(L), np.arange(n))


def test_no_idempotent_latin_square_of_order_2():
    with pytest.raises(NotSupportedError):
        fam.idempotent_latin_square(2)


@pytest.mark.parametrize("tau", [3, 4, 5, 6, 8, 11])
def test_theorem2_printed_costs(tau):
    r = fam.check_theorem2(tau)
    assert r["good"] == (1 + tau) ** 2 and r["poor"] == tau + 2 * tau ** 2
    assert r["good_prefix_maximal"] and r["poor_prefix_maximal"]
    assert r["ratio"] > 2 - Fraction(3, tau)


def test_theorem2_ratio_tends_to_two():
    r = fam.check_theorem2(30)
    assert 2 - Fraction(3, 30) < r["ratio"] < 2


def test_theorem2_tau_below_3_is_refused():
    with pytest.raises(InvalidParameterError):
        fam.theorem2_instance(2)


def test_theorem2_greedy_is_one_of_the_two_and_opt_is_below():
    r = fam.check_theorem2(4, exact_opt=True)
    assert r["greedy"] in (r["good"], r["poor"])
    assert r["opt"] <= r["good"]


def test_prefix_maximal_rejects_an_idle_schedule():
    inst = fam.theorem2_instance(3)
    good = fam.theorem2_schedules(3)["good"]
    # shift everything by one time unit: ports idle at the start
    from coflowopt.schedule import Schedule
    late = Schedule.from_pieces(good.flow, good.start + 1, good.end + 1, good.rate)
    assert verify_schedule(inst, late).ok
    assert not fam.prefix_maximal(inst, late, [0, 1])


# ---------------------------------------------------------------------------- Claim 1
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_claim1_every_nonpreemptive_wc_schedule_is_bad(n):
    r = fam.check_claim1(n)
    assert r["opt_bnb"] == r["opt"]
    assert r["np_costs"] == [r["np"]]


def test_claim1_ratio_unbounded():
    ratios = [fam.claim1_closed_forms(n)["np"] / fam.claim1_closed_forms(n)["opt"]
              for n in (2, 4, 8, 16, 64)]
    assert ratios == sorted(ratios) and ratios[-1] > 40


def test_nonpreemptive_enumeration_counts_orders():
    # three unit coflows on one port pair, all at 0: 3! non-preemptive WC schedules
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow(str(k), [(0, 0, 1)]) for k in range(3)])
    scheds = fam.nonpreemptive_work_conserving_schedules(inst)
    assert len(scheds) == 6
    assert {float(verify_schedule(inst, s).weighted_completion_time) for s in scheds} == {6.0}


# ---------------------------------------------------------------------------- permutations
def test_permutation_family_n2_is_fig_b2():
    a, b = fam.permutation_family(2), load_instance("papers/dissertation-figB.2")
    for attr in ("flow_src", "flow_dst", "flow_size", "flow_ptr"):
        assert np.array_equal(getattr(a, attr), getattr(b, attr))
    r = fam.check_permutation(2)
    assert r["average_cct_permutation"] == Fraction(5, 2) and r["average_cct_opt"] == 2


@pytest.mark.parametrize("n", [3, 4])
def test_permutation_gap_grows(n):
    r = fam.check_permutation(n)
    assert r["opt_bnb"] == n * n
    assert r["ratio"] == Fraction(3 * n - 1, 2 * n)


# ---------------------------------------------------------------------------- open shop
def test_open_shop_gap_small():
    r = fam.check_open_shop_gap(4, 2)
    assert r["opt_bnb"] == 7 and r["lp"] == 6
    assert abs(r["bounds"]["ordering-lp"]["value"] - 6) < 1e-6
    for b, v in r["bounds"].items():
        assert v["gap"] >= 1 - 1e-9, b


def test_open_shop_gap_closed_form_tends_to_two():
    g = [fam.open_shop_closed_forms(n, k) for n, k in ((100, 10), (10000, 100))]
    ratios = [float(c["opt"] / c["lp"]) for c in g]
    assert 1.7 < ratios[0] < ratios[1] < 2 and ratios[1] > 1.95


# ---------------------------------------------------------------------------- DRF
@pytest.mark.parametrize("K", [2, 16, 1024])
def test_drf_utilisation_formula(K):
    r = fam.check_drf(K, N=3, eps=Fraction(1, 100))
    assert r["drf"] == (1 + (K - 1) * Fraction(1, 100)) / K and r["hug"] == 1


def test_table_quick_runs():
    rows = fam.table_rows(quick=True)
    assert {r["family"] for r in rows} >= {"Sincronia Fig. 4", "Theorem 2 (reconstruction)",
                                            "Claim 1 (our construction)",
                                            "permutation schedules", "open-shop LP gap",
                                            "DRF utilisation"}
    # every row names its ratio's base and how its values are known; ratios grow with the
    # parameter inside each unbounded family
    for r in rows:
        assert r["base"] and r["value_kind"] and r["limit"] and isinstance(r["ratio"], float)
    for family in ("Sincronia Fig. 4", "Theorem 2 (reconstruction)",
                   "Claim 1 (our construction)", "permutation schedules"):
        ratios = [r["ratio"] for r in rows if r["family"] == family]
        assert ratios == sorted(ratios) and ratios[0] < ratios[-1], family
    md = fam.format_markdown(rows).splitlines()
    assert md[0].startswith("| family |") and len(md) == len(rows) + 2
    assert fam.format_table(rows).count("\n") == len(rows)
