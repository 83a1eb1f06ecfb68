"""Exact optima of the hand-checked worked examples, the exact solvers' API, results and CLI.

Each optimum below is also proved by hand in the source cited (seeds-000-002.md Sec. 1.3,
seed-003-dissertation.md Sec. 3, anchors-algorithms.md Sec. 2.1); the solver must reproduce it
*exactly* (rational arithmetic) with a closed proof.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from coflowopt import Coflow, Instance, Schedule
from coflowopt.exact import bnb, enumerate_orders, order_lp
from coflowopt.exact.order_lp import (build_event_lp, events_from_completions,
                                      exact_schedule_from_amounts, pair_data, solve_event_lp)
from coflowopt.exact.subset_bounds import ExactSubsetBounds, SubsetBounds
from coflowopt.exceptions import InvalidParameterError
from coflowopt.library import load_instance, load_schedule
from coflowopt.rates.greedy import greedy
from coflowopt.registry import get_algorithm
from coflowopt.testing import digest_ts3, digest_ts4, sincronia_fig1
from coflowopt.verify import verify_schedule


def _exact_optimum(inst, **kw):
    res = bnb(inst, time_limit=60, **kw)
    assert res.kind == "optimal" and res.status == "optimal", res.message
    assert res.certificate_status == "proved exactly", res.certificate
    assert res.gap == 0 and res.bound == res.value
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok and rep.weighted_completion_time == res.value
    return res


# ---------------------------------------------------------------------------- worked examples
def test_ts3_optimum_is_10():
    res = _exact_optimum(digest_ts3())
    assert res.value == 10
    assert [str(c) for c in res.report.coflow_completion] == ["1", "3", "6"]


def test_ts4_optimum_is_33_by_the_last_coflow_argument():
    res = _exact_optimum(digest_ts4())
    assert res.value == 33
    # the digest's proof ("the last coflow at I1 ends at >= 16") is the DP bound at the root
    assert SubsetBounds(digest_ts4(), [0, 1, 2]).dpb(0b111) == 33
    assert res.extra["search"]["root_bound"] == pytest.approx(33, rel=1e-11)
    assert [str(c) for c in res.report.coflow_completion] == ["6", "16", "11"]


def test_figB2_optimum_4_needs_a_non_permutation_schedule():
    inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
                                  Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    res = _exact_optimum(inst)
    assert res.value == 4
    assert [str(c) for c in res.report.coflow_completion] == ["2", "2"]
    # both coflows use egress 0 during the same time: the schedule interleaves them
    sched = res.schedule
    on_e0 = {int(inst.flow_coflow[f]): (s, e) for f, s, e in
             zip(sched.flow.tolist(), sched.start.tolist(), sched.end.tolist())
             if inst.flow_dst[f] == 0}
    (s1, e1), (s2, e2) = on_e0[0], on_e0[1]
    assert max(s1, s2) < min(e1, e2)
    # a permutation schedule (C1 entirely before C2 at every port, or the reverse) has one
    # coflow at 2 and the other at 3 at best (E9): 5 > 4
    perm = Schedule.from_pieces([0, 1, 2, 3], [0, 1, 1, 2], [1, 2, 2, 3], [1, 1, 1, 1])
    assert verify_schedule(inst, perm, mode="exact").weighted_completion_time == 5
    # the library copy gives the same optimum
    lib = load_instance("papers/dissertation-figB.2")
    assert bnb(lib, time_limit=30).value == 4


def test_fig51_optimum_sum_of_cct_6():
    inst = load_instance("papers/dissertation-fig5.1")
    res = _exact_optimum(inst)
    assert res.value == 6
    assert [str(c) for c in res.report.coflow_completion] == ["4", "2"]   # C2 first


def test_sincronia_fig1_eps001_optimum_1205():
    # exactly: sizes scaled by 100 so that 2.01 is an integer; OPT = 12.05 * 100
    res = _exact_optimum(sincronia_fig1(Fraction(1, 100)))
    assert res.value == 1205
    # the library instance (floats 2.01): 12.05 up to the float representation of 2.01
    lib = _exact_optimum(load_instance("papers/sincronia-fig1-eps0.01"))
    assert float(lib.value) == pytest.approx(12.05, abs=1e-12)
    assert sorted(float(c) for c in lib.report.coflow_completion) == pytest.approx(
        [2.01] * 4 + [4.01], abs=1e-12)


def test_sincronia_fig1_eps0_optimum_12():
    assert _exact_optimum(load_instance("papers/sincronia-fig1")).value == 12


def test_figB1_printed_optimum_is_refuted():
    """E8: the printed "optimal" schedule (average CCT 1.5, makespan 2.5) is feasible but not
    optimal: the exact optimum is sum of CCT 7/2, average 7/6."""
    inst = load_instance("papers/dissertation-figB.1")
    res = _exact_optimum(inst)
    assert res.value == Fraction(9, 2)                     # sum of completion times
    assert res.report.weighted_cct == Fraction(7, 2)       # sum of CCTs (C3 released at 1)
    assert res.report.average_cct == pytest.approx(7 / 6)
    printed = verify_schedule(inst, load_schedule("papers/dissertation-figB.1",
                                                  "printed-optimal"), mode="exact")
    assert printed.ok and printed.average_cct == pytest.approx(1.5)
    assert printed.weighted_completion_time > res.value


def test_figB1_every_consistent_placement_has_optimum_7_over_6():
    """Every placement of Fig. B.1's flows on a 2x2 fabric for which per-flow max-min fairness
    gives the printed work-conserving numbers (average CCT 5/3, makespan 2) has exact optimum
    average CCT 7/6; none has 1.5."""
    fair = get_algorithm("policy", "per-flow-maxmin")
    pairs = [(i, j) for i in range(2) for j in range(2)]
    optima = set()
    consistent = 0
    for a, b, c, d in itertools.product(pairs, repeat=4):
        inst = Instance.from_coflows([Coflow("C1", [(a[0], a[1], 1.0)]),
                                      Coflow("C2", [(b[0], b[1], 1.0), (c[0], c[1], 1.0)]),
                                      Coflow("C3", [(d[0], d[1], 0.5)], release=1.0)],
                                     num_ingress=2, num_egress=2)
        rep = verify_schedule(inst, fair(inst), mode="exact")
        if rep.weighted_cct != Fraction(5) or rep.makespan != 2:
            continue
        consistent += 1
        optima.add(_exact_optimum(inst).report.weighted_cct)
    assert consistent == 24
    assert optima == {Fraction(7, 2)}


# ---------------------------------------------------------------------------- search results
def test_time_or_node_limit_never_says_optimal():
    inst = digest_ts4()
    for kw in ({"max_nodes": 0}, {"time_limit": 1e-6}):
        res = bnb(inst, **kw)
        assert res.kind == "feasible" and res.status in ("node_limit", "time_limit")
        assert res.certificate_status == "open"
        assert res.bound is not None and float(res.bound) <= float(res.value)
        assert verify_schedule(inst, res.schedule, mode="exact").ok


def test_zero_weights():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], weight=0.0),
                                  Coflow("B", [(0, 0, 1)], weight=0.0)])
    res = bnb(inst, time_limit=10)
    assert res.kind == "optimal" and res.value == 0
    # a zero-weight coflow sharing a port with a weighted one goes last
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 2)], weight=0.0),
                                   Coflow("B", [(0, 0, 1)], weight=2.0)])
    res2 = _exact_optimum(inst2)
    assert res2.value == 2


def test_identical_coflows_dominance_keeps_the_optimum():
    inst = Instance.from_coflows([Coflow(str(k), [(0, 0, 1), (1, 1, 2)], weight=w)
                                  for k, w in enumerate([1.0, 3.0, 2.0, 3.0])])
    a = bnb(inst, time_limit=30)
    b = bnb(inst, time_limit=30, dominance=False)
    assert a.value == b.value == enumerate_orders(inst).value
    # the precedence: weight 3 (index 1), weight 3 (index 3), weight 2, weight 1
    from coflowopt.exact.branch_and_bound import _Search
    s = _Search(inst, time_limit=10, rtol=1e-9, atol=1e-12, node_lp=True, dominance=True,
                max_nodes=None, local_search=False)
    assert s.succ == [0, 0b1101, 0b0001, 0b0101]


def test_result_fields_and_registry():
    res = get_algorithm("exact", "bnb")(digest_ts3())
    d = res.to_dict()
    assert d["kind"] == "optimal" and d["value_exact"] == "10"
    assert d["verification"]["mode"] == "exact"
    assert res.solver["name"] == "highs"
    for k in ("total", "search", "heuristics", "verify"):
        assert k in res.timings
    for name in ("bnb", "enumerate-orders", "slotted-mip", "deadline-mip"):
        assert get_algorithm("exact", name).kind == "exact"


def test_bad_parameters():
    with pytest.raises(InvalidParameterError):
        bnb(digest_ts3(), time_limit=-1)   # 0 is allowed: stop at the first check
    with pytest.raises(InvalidParameterError):
        bnb(digest_ts3(), verify_mode="approximate")
    with pytest.raises(InvalidParameterError):
        enumerate_orders(Instance.from_coflows([Coflow(str(k), [(0, 0, 1)])
                                                for k in range(9)]))


# ---------------------------------------------------------------------------- the order LP
def test_order_lp_for_a_given_order():
    inst = digest_ts4()
    res = order_lp(inst, [0, 2, 1])
    assert res.kind == "feasible" and res.value == 33
    assert res.extra["order_lp_bound"] <= 33
    worse = order_lp(inst, [0, 1, 2])   # SEBF's order: the LP improves greedy's 37 to 37
    assert worse.value == 37


def test_order_lp_events_with_releases_and_errors():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]),
                                  Coflow("B", [(0, 0, 1)], release=1.0)])
    # B released at 1 completes first: A is preempted
    res = order_lp(inst, [("release", 1.0), ("complete", 1), ("complete", 0)])
    assert [str(c) for c in res.report.coflow_completion] == ["3", "2"]
    # a bare order gets its best interleaving
    assert order_lp(inst, [0, 1]).value == 2 + 3
    with pytest.raises(InvalidParameterError):
        order_lp(inst, [("complete", 1), ("release", 1.0), ("complete", 0)])
    with pytest.raises(InvalidParameterError):
        order_lp(inst, [("release", 2.0), ("complete", 1), ("complete", 0)])
    with pytest.raises(InvalidParameterError):
        order_lp(inst, [0])
    # an infeasible sequence: A cannot finish by time 1, before B's release
    bad = order_lp(Instance.from_coflows([Coflow("A", [(0, 0, 2)]),
                                          Coflow("B", [(0, 0, 1)], release=1.0)]),
                   [("complete", 0), ("release", 1.0), ("complete", 1)])
    assert bad.kind is None and bad.status == "infeasible"
    assert "proven" in bad.message


def test_event_lp_rebuild_is_exactly_feasible_for_random_sequences():
    rng = np.random.default_rng(5)
    from coflowopt.testing import random_instance
    for _ in range(20):
        inst = random_instance(rng, max_coflows=5, releases=True, weights=True,
                               heterogeneous=True)
        pd = pair_data(inst)
        order = rng.permutation(inst.num_coflows)
        rep = verify_schedule(inst, greedy(inst, order))
        codes = events_from_completions(pd, rep.coflow_completion)
        sol = solve_event_lp(build_event_lp(pd, codes))
        assert sol.status == "optimal"
        assert sol.bound <= sol.value + 1e-9 * abs(sol.value)
        sched = exact_schedule_from_amounts(pd, sol.lp, sol.amounts)
        ex = verify_schedule(inst, sched, mode="exact")
        assert ex.ok
        # the LP of greedy's own event sequence is at least as good as greedy
        assert float(ex.weighted_completion_time) <= rep.weighted_completion_time * (1 + 1e-9)
        # the rebuilt schedule is no worse than the LP (a coflow may even finish before its
        # event time, when the LP's event time is slack)
        assert float(ex.weighted_completion_time) <= sol.value * (1 + 1e-9)


def test_makespan_bound_ignores_releases_of_other_coflows():
    # regression: a late release must not raise the bound of a set released earlier
    inst = Instance.from_coflows([Coflow("early", [(0, 0, 1.0)]),
                                  Coflow("late", [(1, 1, 1.0)], release=10.0)])
    sb, esb = SubsetBounds(inst, [0, 1]), ExactSubsetBounds(inst, [0, 1])
    assert sb.mlb(0b01) == esb.mlb(0b01) == 1
    assert sb.mlb(0b10) == esb.mlb(0b10) == 11
    assert sb.dpb(0b11) == esb.dpb(0b11) == 12
    assert bnb(inst, time_limit=10).value == 12


def test_exact_and_float_subset_bounds_agree():
    from coflowopt.testing import random_instance
    rng = np.random.default_rng(11)
    for it in range(20):
        inst = random_instance(rng, max_coflows=6, releases=True, weights=True,
                               heterogeneous=True)
        if it % 2:   # releases long compared with the sizes
            inst = inst.with_releases(inst.release * 10)
        K = inst.num_coflows
        sb, esb = SubsetBounds(inst, range(K)), ExactSubsetBounds(inst, range(K))
        for mask in range(1, 1 << K):
            assert sb.dpb(mask) == pytest.approx(float(esb.dpb(mask)), rel=1e-12)
            assert sb.mlb(mask) == pytest.approx(float(esb.mlb(mask)), rel=1e-12)


# ---------------------------------------------------------------------------- CLI
def test_cli_exact(tmp_path, capsys):
    from coflowopt.cli import main
    from coflowopt.formats import read_schedule
    from coflowopt.library import library_dir
    path = str(library_dir() / "papers" / "sincronia-t-s4.json")
    out = tmp_path / "opt.schedule.json"
    assert main(["exact", path, "--json", "--out", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "optimal" and d["value"] == 33 and d["value_exact"] == "33"
    assert d["certificate_status"] == "proved exactly" and d["gap"] == 0
    assert d["certificate"]["search"]["nodes_expanded"] >= 0
    inst = load_instance("papers/sincronia-t-s4")
    assert verify_schedule(inst, read_schedule(str(out), inst), mode="exact").ok
    assert main(["exact", path]) == 0
    text = capsys.readouterr().out
    assert "optimal" in text and "bound" in text and "nodes" in text
    assert main(["exact", path, "--method", "slotted-mip", "-p", "delta=0.5", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "feasible" and d["status"] == "slotted_optimal"
    assert main(["exact", path, "-p", "nonsense=1"]) == 2


@pytest.mark.parametrize("method,params", [
    ("bnb", dict(max_nodes=-1)), ("bnb", dict(heuristic_budget=-1.0)),
    ("bnb", dict(seed_budget=float("nan"))), ("bnb", dict(exact_proof_max_set=-1)),
    ("bnb", dict(dive_period=-1)), ("bnb", dict(tie_digits=-1)), ("bnb", dict(sub_max=-1)),
    ("enumerate-orders", dict(rtol=-1.0)), ("enumerate-orders", dict(max_coflows=0))])
def test_exact_parameters_out_of_range_are_refused(method, params):
    """Values the methods ran with before (exit 0): dive_period=-1 dived at every node,
    tie_digits=-1 rounded the queue's keys to tens, a negative budget or max_nodes was a
    setting nobody means, enumerate-orders' rtol=-1 never declared the optimum
    (fuzz_edges_2026-11-30 'params'): each is refused, naming it."""
    from coflowopt.registry import get_algorithm
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 1, 1.0)])])
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        get_algorithm("exact", method).func(inst, **params)
