"""The local search over orders (``local-search``) and the certified gap (``coflowopt.gap``):
the open-shop cost by hand, the move evaluation against brute force, the guarantee chain
(cost never rises; greedy within twice the cost), and the gap's bound <= OPT <= schedule."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.exact.branch_and_bound import bnb
from coflowopt.exceptions import InvalidParameterError
from coflowopt.gap import certified_gap
from coflowopt.orderings import bssi
from coflowopt.orderings.local_search import improve_order, local_search, open_shop_cost
from coflowopt.rates import greedy
from coflowopt.testing import digest_ts4, random_instance
from coflowopt.verify import verify_schedule


def test_open_shop_cost_by_hand():
    # T-S4: A = {in0 2, in1 4, out0 6}, B = {in0 9, out0 9}, C = {in0 5, in1 6, out1 11}
    inst = digest_ts4()
    assert open_shop_cost(inst, [0, 2, 1]) == 6 + 11 + 16
    assert open_shop_cost(inst, [1, 2, 0]) == 9 + 14 + 16
    assert open_shop_cost(inst, [0, 1, 2]) == 6 + 15 + 16


def test_releases_enter_through_r_plus_rho():
    inst = digest_ts4().replace(release=np.array([0.0, 20.0, 0.0]))
    # B's prefix maximum 16 is below r + rho = 29
    assert open_shop_cost(inst, [0, 2, 1]) == 6 + 11 + 29


def _best_by_brute_force(inst, order):
    """The best single insertion move from ``order`` by recomputing every neighbour."""
    K = len(order)
    best = open_shop_cost(inst, order)
    for i, j in itertools.product(range(K), range(K)):
        o = list(order)
        c = o.pop(i)
        o.insert(j, c)
        best = min(best, open_shop_cost(inst, o))
    return best


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), releases=st.booleans(), hetero=st.booleans())
def test_local_optimum_has_no_improving_insertion(seed, releases, hetero):
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=6,
                           releases=releases, weights=True, heterogeneous=hetero)
    start = np.random.default_rng(seed + 1).permutation(inst.num_coflows)
    order, rec = improve_order(inst, start)
    assert sorted(order.tolist()) == list(range(inst.num_coflows))
    assert rec["cost"] == pytest.approx(open_shop_cost(inst, order), rel=1e-12)
    assert rec["cost"] <= rec["start_cost"] * (1 + 1e-12)
    if rec["stopped"] == "local_optimum":
        # the vectorised move evaluation finds every improving insertion brute force finds
        assert _best_by_brute_force(inst, order) >= rec["cost"] * (1 - 1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_greedy_within_twice_the_cost_and_bssi_chain(seed):
    """Zero releases: greedy gives C_k <= 2 max_q prefix load (Sincronia Lemma 3's argument),
    and the search from BSSI keeps OS <= OS(BSSI); with OPT from the branch and bound,
    greedy on the searched order <= 4 OPT."""
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=5,
                           weights=True, heterogeneous=True)
    order = local_search(inst)
    cost = open_shop_cost(inst, order)
    assert cost <= open_shop_cost(inst, bssi(inst)) * (1 + 1e-12)
    rep = verify_schedule(inst, greedy(inst, order)).raise_if_invalid()
    assert float(rep.weighted_completion_time) <= 2 * cost * (1 + 1e-9)
    opt = bnb(inst, time_limit=60)
    assert opt.kind == "optimal"
    # OS(BSSI) <= 2 OPT (Mastrolilli et al.), so greedy <= 2 OS <= 4 OPT
    assert float(rep.weighted_completion_time) <= 4 * float(opt.value) * (1 + 1e-9)


def test_parameters_are_checked():
    from coflowopt.exceptions import InvalidParameterError
    inst = digest_ts4()
    with pytest.raises(InvalidParameterError):
        improve_order(inst, [0, 1, 2], max_passes=-1)
    with pytest.raises(InvalidParameterError):
        local_search(inst, start="local-search")
    with pytest.raises(InvalidParameterError):
        local_search(inst, start=[0, 1, 2], start_params={"tie_break": "first"})
    with pytest.raises(InvalidParameterError):
        local_search(inst, start=[0, 1, 1])


def test_max_passes_zero_returns_the_start():
    inst = digest_ts4()
    order, rec = improve_order(inst, [1, 2, 0], max_passes=0)
    assert order.tolist() == [1, 2, 0] and rec["stopped"] == "max_passes"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), releases=st.booleans())
def test_gap_brackets_the_optimum(seed, releases):
    """bound <= OPT <= best verified schedule, and gap = their ratio."""
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=5,
                           releases=releases, weights=True)
    rep = certified_gap(inst, time_limit=60)
    opt = bnb(inst, time_limit=60)
    assert opt.kind == "optimal"
    lb, ub, v = rep.best_bound["value"], rep.best_schedule["value"], float(opt.value)
    assert lb <= v * (1 + 1e-9) and v <= ub * (1 + 1e-9)
    assert rep.gap == pytest.approx(ub / lb, rel=1e-12)
    assert rep.best_schedule["kind"] == "feasible" and rep.best_bound["kind"] == "lower_bound"
    # the schedule reported is the one the order gives: re-verify it independently
    again = verify_schedule(inst, greedy(inst, rep.best_order)).raise_if_invalid()
    assert float(again.weighted_completion_time) == pytest.approx(ub, rel=1e-12)


def test_gap_time_budget_skips_and_says_so():
    inst = digest_ts4()
    rep = certified_gap(inst, time_limit=0.0)
    assert rep.best_schedule is not None          # the first schedule always runs
    assert all(b["status"] in ("not_started", "time_limit", "optimal") for b in rep.bounds)


def test_gap_records_where_each_bound_spent_its_time():
    rep = certified_gap(digest_ts4(), time_limit=60)
    rec = {b["method"]: b for b in rep.bounds}
    br = rec["lp-ov-branch"]
    assert {"root", "search", "certify"} <= set(br["timings"])
    assert br["nodes"] >= 2 and br["leaves"] >= 2
    assert "timings" in rec["ordering-lp"] and "nodes" not in rec["ordering-lp"]
    # lp-ov-branch is given the first verified schedule's value over the target gap as its
    # cutoff (BSSI's schedule is verified before the bounds run)
    from coflowopt.gap import GAP_TARGET
    first = rep.schedules[0]
    assert first["kind"] == "feasible"
    assert br["cutoff"] == pytest.approx(first["value"] / GAP_TARGET, rel=1e-15)
    assert br["children_capped"] >= 0 and br["capped_resolved"] >= 0
    assert "cutoff" not in rec["ordering-lp"]


# ------------------------------------------------------------------ iterated local search
def _stuck_instance():
    """Seven coflows on 3 x 3 ports where the insertion descent from the identity order stops
    at open-shop cost 311 and the optimum over all 5,040 orders is 308 (found by a search over
    random instances, checked here by brute force)."""
    from coflowopt import Coflow, Instance
    spec = [([(1, 1, 3), (0, 0, 1), (0, 0, 7)], 2), ([(1, 1, 8), (2, 1, 5), (1, 2, 3)], 3),
            ([(0, 1, 7), (1, 0, 7), (2, 2, 2)], 1), ([(0, 1, 1), (0, 1, 4), (1, 0, 1)], 1),
            ([(2, 1, 6)], 1), ([(2, 1, 4), (2, 2, 8)], 2),
            ([(2, 1, 7), (2, 2, 4), (2, 0, 5)], 3)]
    return Instance.from_coflows([Coflow(f"c{k}", fl, weight=w)
                                  for k, (fl, w) in enumerate(spec)])


def test_kicks_leave_an_insertion_local_optimum_for_the_optimum():
    import itertools

    from coflowopt.orderings.local_search import iterated_local_search
    inst = _stuck_instance()
    opt = min(open_shop_cost(inst, p) for p in itertools.permutations(range(7)))
    assert opt == 308.0
    o, rec = improve_order(inst, list(range(7)))
    assert rec["cost"] == 311.0 and rec["stopped"] == "local_optimum"
    o2, rec2 = iterated_local_search(inst, list(range(7)), iterations=30, seed=0)
    assert rec2["descent_cost"] == 311.0 and rec2["cost"] == 308.0
    assert open_shop_cost(inst, o2) == 308.0 and sorted(o2.tolist()) == list(range(7))
    assert rec2["iterations"] == 30 and rec2["improvements"] >= 1
    assert rec2["stopped"] == "iterations"
    # the registered ordering with kicks gives the same order
    assert local_search(inst, start=list(range(7)), kicks=30).tolist() == o2.tolist()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), kicks=st.integers(0, 8))
def test_kicks_never_worsen_the_descent_and_repeat_for_a_seed(seed, kicks):
    from coflowopt.orderings.local_search import iterated_local_search
    inst = random_instance(np.random.default_rng(seed), max_ports=4, max_coflows=9,
                           weights=True, releases=seed % 2 == 1)
    start = np.random.default_rng(seed).permutation(inst.num_coflows)
    _, plain = improve_order(inst, start)
    o, rec = iterated_local_search(inst, start, iterations=kicks, seed=seed)
    assert rec["descent_cost"] == plain["cost"]
    assert rec["cost"] <= rec["descent_cost"] and rec["cost"] == open_shop_cost(inst, o)
    assert sorted(o.tolist()) == list(range(inst.num_coflows))
    again, rec_again = iterated_local_search(inst, start, iterations=kicks, seed=seed)
    assert again.tolist() == o.tolist() and rec_again["cost"] == rec["cost"]
    if kicks == 0:
        assert o.tolist() == improve_order(inst, start)[0].tolist()


@pytest.mark.parametrize("kw", [{"iterations": -1}, {"iterations": 1.5}, {"seed": True},
                                {"kick_moves": 0}, {"reach": 0}, {"max_passes": -2},
                                {"time_limit": -1.0}])
def test_iterated_local_search_rejects_bad_parameters(kw):
    from coflowopt.orderings.local_search import iterated_local_search
    with pytest.raises(InvalidParameterError):
        iterated_local_search(_stuck_instance(), list(range(7)), **kw)


def test_gap_kicks_schedule_one_more_verified_candidate_or_none():
    """``kick_time``: kicks from the best verified order; their order is scheduled and
    verified only when it lowers the open-shop cost; 0 runs none; the gap stays bound <= best
    verified schedule."""
    inst = _stuck_instance()
    # the descent from the identity is stuck at 311; start there so that kicks have work
    no = certified_gap(inst, time_limit=30, bounds=("bssi-dual",), starts=("fifo",),
                       max_schedules=1, kick_time=0)
    assert not any(r["algorithm"].startswith("kicks(") for r in no.schedules)
    yes = certified_gap(inst, time_limit=30, bounds=("bssi-dual",), starts=("fifo",),
                        max_schedules=1, kick_time=5)
    kicked = [r for r in yes.schedules if r["algorithm"].startswith("kicks(")]
    first = yes.schedules[0]
    assert first["open_shop_cost"] == 311.0 and len(kicked) == 1
    assert kicked[0]["kind"] == "feasible" and kicked[0]["open_shop_cost"] == 308.0
    for rep in (no, yes):
        assert all(r["kind"] == "feasible" for r in rep.schedules)
        assert rep.best_bound["value"] <= rep.best_schedule["value"] + 1e-9
    assert yes.best_schedule["value"] <= no.best_schedule["value"]
    with pytest.raises(InvalidParameterError):
        certified_gap(inst, time_limit=5, kick_time=-1.0)
