"""The deadline objective (Varys (B.5)): worked examples and a brute-force cross-check.

The brute force is independent of the MIP's fixed-interval formulation: a set ``S`` meets its
deadlines iff some event sequence of ``S`` (completion order and release interleaving) has a
feasible completion-order LP with ``t_{n(k)} <= d_k`` (proofs/completion-order-lp-exact.md,
Theorem 1: schedules and event-LP solutions correspond).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exact import deadline_mip
from coflowopt.results import OBJECTIVE_SENSE, Result
from coflowopt.exact.order_lp import build_event_lp, pair_data
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.formulations.highs import HighsModel
from coflowopt.formulations.linear_program import LinearProgram
from coflowopt.library import load_instance
from coflowopt.testing import random_instance
from coflowopt.verify import verify_schedule


def _meets_all(inst: Instance, S: list[int]) -> bool:
    """Brute force: can every coflow of S meet its deadline (others ignored: they can wait)?"""
    if not S:
        return True
    sub = inst.select_coflows(S)
    pd = pair_data(sub)
    G = pd.num_groups
    items = list(range(sub.num_coflows)) + [-(g + 1) for g in range(G)]
    for seq in itertools.permutations(items):
        rel = [c for c in seq if c < 0]
        if rel != sorted(rel, reverse=True):        # releases in time order
            continue
        pos = {c: i for i, c in enumerate(seq)}
        if any(pd.coflow_group[k] >= 0 and pos[-(pd.coflow_group[k] + 1)] > pos[k]
               for k in range(sub.num_coflows)):
            continue
        ev = build_event_lp(pd, seq)
        lp = ev.lp
        hi = lp.col_hi.copy()
        for k in range(sub.num_coflows):
            hi[ev.done_ev[k]] = min(hi[ev.done_ev[k]], sub.deadline[k])
        if np.any(hi < lp.col_lo):
            continue
        capped = LinearProgram("capped", c=lp.c, A=lp.A, row_lo=lp.row_lo, row_hi=lp.row_hi,
                               col_lo=lp.col_lo, col_hi=hi)
        if HighsModel(capped).run().status == "optimal":
            return True
    return False


def _brute_best(inst: Instance, weight: np.ndarray) -> float:
    D = np.flatnonzero(~np.isnan(inst.deadline)).tolist()
    best = 0.0
    for r in range(len(D) + 1):
        for S in itertools.combinations(D, r):
            v = float(sum(weight[k] for k in S))
            if v > best and _meets_all(inst, list(S)):
                best = v
    return best


def test_e2_only_one_app_meets_deadline_1():
    inst = Instance.from_coflows([Coflow("app1", [(0, 0, 1)] * 3, deadline=1.0),
                                  Coflow("app2", [(0, 0, 1)], deadline=1.0)])
    res = deadline_mip(inst)
    assert isinstance(res, Result) and OBJECTIVE_SENSE[res.objective] == "max"
    assert res.kind == "optimal" and res.value == 1 and res.bound == 1
    assert res.report.deadline_met.tolist() == [False, True]
    assert res.objective == "deadlines_met"


def test_e5_common_deadline_2_admits_only_c2():
    inst = load_instance("papers/dissertation-fig5.1")
    inst = inst.replace(deadline=np.array([2.0, 2.0]))
    res = deadline_mip(inst)
    assert res.kind == "optimal" and res.value == 1
    assert [inst.coflow_ids[k] for k in res.extra["admitted"]] == ["C2"]
    assert verify_schedule(inst, res.schedule, mode="exact").ok


def test_weight_objective_prefers_the_heavy_coflow():
    inst = Instance.from_coflows([Coflow("light", [(0, 0, 1)], deadline=1.0, weight=1.0),
                                  Coflow("heavy", [(0, 0, 1)], deadline=1.0, weight=5.0)])
    res = deadline_mip(inst, objective="weight")
    assert res.kind == "optimal" and res.value == 5.0
    assert res.objective == "weighted_deadlines_met"
    assert res.report.deadline_met.tolist() == [False, True]


def test_no_deadlines_and_bad_parameters():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)])])
    with pytest.raises(NotSupportedError, match="no deadlines"):
        deadline_mip(inst)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], deadline=0.5),
                                  Coflow("B", [(0, 0, 1)])])
    res = deadline_mip(inst)        # A cannot make it; B has no deadline
    assert res.kind == "optimal" and res.value == 0 and res.bound == 0
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    with pytest.raises(InvalidParameterError):
        deadline_mip(inst, objective="lateness")


def _with_random_deadlines(inst: Instance, rng) -> Instance:
    slack = rng.uniform(0.9, 3.0, inst.num_coflows)
    dl = inst.release + inst.rho * slack
    drop = rng.random(inst.num_coflows) < 0.2                # some without a deadline,
    drop[0] = False                                           # but never all of them
    dl[drop] = np.nan
    return inst.replace(deadline=dl)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 31), objective=st.sampled_from(["count", "weight"]))
def test_deadline_mip_equals_brute_force(seed, objective):
    rng = np.random.default_rng(seed)
    inst = random_instance(rng, max_ports=3, max_coflows=4, max_flows=2,
                           releases=bool(rng.random() < 0.5), weights=True,
                           heterogeneous=bool(rng.random() < 0.5))
    inst = _with_random_deadlines(inst, rng)
    res = deadline_mip(inst, objective=objective)
    w = np.ones(inst.num_coflows) if objective == "count" else inst.weight
    ref = _brute_best(inst, w)
    assert res.kind == "optimal", res.message
    assert float(res.value) == pytest.approx(ref, rel=1e-9, abs=1e-9)
    rep = verify_schedule(inst, res.schedule, mode=res.report.mode)
    assert rep.ok
    met = np.asarray(rep.deadline_met, dtype=bool)
    assert float(np.sum(w[met])) == pytest.approx(float(res.value), rel=1e-9)
