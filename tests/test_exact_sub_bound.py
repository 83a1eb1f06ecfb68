"""The node bound from the optimum of the unplaced coflows alone (proofs/bnb-sub-bound.md).

* every ``SUB(U) + LP_0`` the search computes (sub-instance searches complete or stopped by a
  node limit of 2) is at most the least LP value over every event sequence of the node's
  region (brute force: every order of ``U`` with the unplaced releases interleaved; Theorem 1
  makes that the region's optimum), and every memoised ``SUB(U)`` at most the brute-force
  optimum of ``U``'s coflows alone;
* the search with it proves the brute-force optimum exactly, and the same exact optimum as
  without it, closing nodes with it on the 8x8 family.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact import branch_and_bound as B
from coflowopt.exact.order_lp import (build_event_lp, new_event_lp_solver, pair_data,
                                      solve_event_lp)
from coflowopt.generators import uniform_random
from test_exact_block_charge import _prefixes
from test_exact_inherited_lp import INSTANCES


def _search(inst, ub=None, sub_nodes=None, monkeypatch=None):
    """A default search with SUB at every open node of at most 5 unplaced coflows; returns it and
    the ``(U mask, rho, suffix, bound, SUB(U))`` of every SUB bound it computed."""
    seen = []
    orig = B._Search.sub_closure

    def spy(self, U, rho, suffix, block, sol, charge, warm, bound, prov):
        b, p = orig(self, U, rho, suffix, block, sol, charge, warm, bound, prov)
        if p[0] == "sub":
            seen.append((U, rho, suffix, b, p[4]))
        return b, p

    monkeypatch.setattr(B._Search, "sub_closure", spy)
    # every open node of at most 5 unplaced coflows gets its SUB bound, however far its need
    monkeypatch.setattr(B, "SUB_REACH", 1e9)
    if sub_nodes is not None:
        monkeypatch.setattr(B, "SUB_NODES", sub_nodes)
    s = B._Search(inst, time_limit=120, rtol=B.DEFAULT_RTOL, atol=0.0, node_lp=True,
                  dominance="subset", max_nodes=None, local_search=True, table_max=22,
                  table_kernel=True, block_charge=True, dive_period=0, tie_digits=10,
                  dp_chains=True, sub_max=5)
    s.heuristics(5.0)
    if ub is not None:
        # a threshold above the optimum: more nodes stay open and get a SUB bound
        s.inc.value = ub
    s.run()
    return s, seen


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("sub_nodes", [2, None])
def test_sub_bound_below_region_optimum(name, seed, sub_nodes, monkeypatch):
    inst = INSTANCES[name](seed)
    # the optimum by the search without SUB (itself checked against brute force,
    # tests/test_exact_properties.py)
    opt = bnb(inst, time_limit=300, seed_bounds=False, sub_max=0)
    assert opt.kind == "optimal"
    # the threshold 5 % above the optimum: the search opens every node whose bound is below
    # it (the root's DPB may be the optimum itself), and the brute force below measures
    # their regions
    s, seen = _search(inst, ub=float(opt.value) * 1.05, sub_nodes=sub_nodes,
                      monkeypatch=monkeypatch)
    pd = pair_data(inst)
    members = s.members.tolist()
    hm = new_event_lp_solver()
    checked = 0
    for U, rho, suffix, bound, sub in seen:
        block = [members[i] for i in range(s.n) if U >> i & 1]
        if len(block) > 4 or checked >= 12:
            continue                    # at most 4! orders below, 12 nodes
        region = min((sol.value for sol in
                      (solve_event_lp(build_event_lp(pd, pre + suffix), model=hm)
                       for pre in _prefixes(pd, block, rho)) if sol.status == "optimal"),
                     default=None)
        assert region is not None
        assert Fraction(bound) <= Fraction(region) * (1 + Fraction(1, 10 ** 9)), \
            (name, seed, suffix, block)
        checked += 1
    for U, (sub, *_) in list(s.sub_memo.items())[:8]:
        block = [members[i] for i in range(s.n) if U >> i & 1]
        if len(block) > 5:
            continue
        alone = enumerate_orders(inst.select_coflows(block), max_coflows=5, time_limit=600)
        assert alone.kind == "optimal"
        assert Fraction(sub) <= alone.value * (1 + Fraction(1, 10 ** 9)), (name, seed, block)
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_with_sub_bound_proves_brute_force_optimum(seed):
    inst = uniform_random(8, 5, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=seed)
    brute = enumerate_orders(inst)
    res = bnb(inst, time_limit=120, seed_bounds=False, sub_max=5)
    assert brute.kind == res.kind == "optimal"
    assert res.certificate_status == "proved exactly"
    assert float(res.value) == pytest.approx(float(brute.value), rel=1e-8)


@pytest.mark.parametrize("seed", [0, 1])
def test_sub_bound_keeps_the_optimum_and_closes_nodes(seed):
    inst = uniform_random(8, 12, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=seed)
    # the defaults (since 2026-11-29): SUB_MAX and the LNS
    new = bnb(inst, time_limit=300, seed_bounds=False)
    plain = bnb(inst, time_limit=300, seed_bounds=False, sub_max=0)
    assert new.kind == plain.kind == "optimal"
    assert new.certificate_status == plain.certificate_status == "proved exactly"
    assert new.value == plain.value
    assert plain.extra["search"]["sub_searches"] == 0
    assert new.extra["search"]["sub_closed"] > 0
    assert new.extra["search"]["lns_windows"] >= 1


def _sub_search_of_all(seed, need_of):
    """The sub-search of ``SUB(U)`` for ``U`` all of a small 8x8 instance's coflows, its target
    ``need_of(OPT, DPB(U))``; asserts that its exact proof confirms ``SUB(U)`` (its float
    bound, at most the brute-force optimum) and refuses ``OPT(U) + 1``; returns it."""
    inst = uniform_random(8, 6, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=seed)
    opt = enumerate_orders(inst).value
    s = B._Search(inst, time_limit=120, rtol=B.DEFAULT_RTOL, atol=0.0, node_lp=True,
                  dominance="subset", max_nodes=None, local_search=False, table_max=22,
                  table_kernel=True, block_charge=True, dive_period=0, tie_digits=10,
                  dp_chains=True, sub_max=6)
    full = (1 << s.n) - 1
    lb = s.sub_bound(full, need_of(float(opt), s.sb.dpb(full)))
    sub = s.sub_memo[full][3]
    assert sub is not None
    assert Fraction(lb) <= opt
    assert sub.exact_proof(Fraction(lb), 16)["proved"]
    assert not sub.exact_proof(opt + 1, 16)["proved"]
    return sub


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sub_search_records_every_closure_for_its_exact_proof(seed, monkeypatch):
    # a complete sub-search whose target sits just above DPB(U): its closures lie above the
    # target, where a search records only those within 1e-6 of its incumbent; its exact proof
    # is asked for SUB(U) itself, so it keeps them all (before: no closure recorded below
    # OPT(U) + 1, so it "proved" OPT(U) + 1)
    monkeypatch.setattr(B, "SUB_REACH", 1e9)
    sub = _sub_search_of_all(seed, lambda opt, dpb: dpb + 0.01)
    assert sub.complete and sub.tight


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_stopped_sub_search_is_reproved_with_its_open_nodes(seed, monkeypatch):
    # a sub-search stopped by its node limit: its exact proof re-proves its open nodes as well
    # as its closures (with its closures alone, none below the target here, it would "prove"
    # anything; before, the stopped search was not kept)
    monkeypatch.setattr(B, "SUB_NODES", 2)
    monkeypatch.setattr(B, "SUB_REACH", 1e9)
    sub = _sub_search_of_all(seed, lambda opt, dpb: opt * 1.5)
    assert not sub.complete and sub.open_at_stop
    assert sub.heap is None                    # the queue itself is not kept


def test_sub_closure_of_a_stopped_sub_search_proved_exactly(monkeypatch):
    # 8x8, 12 coflows, seed 2: SUB closures from sub-searches stopped at 3 nodes are tight at
    # the optimum; the exact proof re-proves those searches' open nodes and closures (before,
    # only complete ones: "proved within rtol")
    monkeypatch.setattr(B, "SUB_NODES", 3)
    monkeypatch.setattr(B, "SUB_REACH", 1e9)
    inst = uniform_random(8, 12, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=2)
    new = bnb(inst, time_limit=300, seed_bounds=False, sub_max=B.SUB_MAX)
    plain = bnb(inst, time_limit=300, seed_bounds=False, sub_max=0)
    assert new.kind == plain.kind == "optimal"
    assert new.extra["search"]["sub_closed"] > 0
    assert new.value == plain.value
    assert new.certificate_status == plain.certificate_status == "proved exactly"


@pytest.mark.parametrize("seed", [1, 4])
def test_charged_sub_closure_of_a_large_set_proved_exactly(seed, monkeypatch):
    """A SUB closure of a charged node LP is re-proved in rationals whatever the set's size:
    its check ``L <= M(U)`` needs only ``MLB(U)`` exactly (port loads, not the 2^|U| DP that
    ``exact_proof_max_set`` limits).  On these instances the root (all 6 coflows) is closed by
    ``SUB`` and, with ``exact_proof_max_set=2``, that closure stayed "within rtol" (the check
    refused sets above max_set; the CI failure of the defaults change 3fb759d).  With ``L``
    raised above ``M(U)`` the check must still refuse it."""
    from coflowopt.verify import verify_schedule
    inst = uniform_random(3, 6, seed=seed, weights=(1, 3), releases=(0, 2))
    ref = enumerate_orders(inst)
    res = bnb(inst, time_limit=60, exact_proof_max_set=2, seed_bounds=False,
              sub_max=B.SUB_MAX, lns=True)
    assert res.kind == "optimal" and res.value == ref.value
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    assert res.extra["search"]["sub_closed"] > 0
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    # the same closures with their block time L above the exact M(U): not proved
    orig = B._Search.sub_closure
    raised = []

    def raise_l(self, *args):
        b, prov = orig(self, *args)
        if prov[0] == "sub" and prov[5] is not None:
            raised.append(prov[1])
            prov = prov[:5] + (prov[5] * 2 + 1,) + prov[6:]
        return b, prov

    monkeypatch.setattr(B._Search, "sub_closure", raise_l)
    res = bnb(inst, time_limit=60, exact_proof_max_set=2, seed_bounds=False,
              sub_max=B.SUB_MAX, lns=True)
    assert raised and res.value == ref.value
    assert res.certificate_status == "proved within rtol", res.certificate["exact"]
