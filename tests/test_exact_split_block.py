"""The split node LP of the branch and bound (proofs/bnb-split-block.md, Lemma Z).

* on random nodes of small weighted, released, fractional instances, the split bound (the
  search's own ``split_bound``: float constants, certified LP bound) is at most the least LP
  value over every event sequence of the node's region that the dominance rule allows (brute
  force: every order of ``U`` ending in a coflow no pair puts first, with the unplaced
  releases interleaved) and at most the least bound of the node's children (the charged
  bound of each child, exact DPB), and strictly above the node's own charged bound on some;
* the search with it proves the brute-force optimum exactly, the same exact optimum as
  without it, and closes nodes with it;
* the exact proof refuses a split closure whose constants exceed the exact ones;
* a certificate file of a search that closed nodes with it is confirmed by
  tools/check_certificate.py (the file expands those nodes into children whose bounds the
  checker rebuilds), and rejected once one of those children is dropped.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact import branch_and_bound as bb
from coflowopt.exact.branch_and_bound import DP_LOWERED_MAX, _Search
from coflowopt.exact.order_lp import (build_event_lp, events_from_completions,
                                      new_event_lp_solver, solve_event_lp)
from coflowopt.exact.subset_bounds import ExactSubsetBounds
from coflowopt.generators import uniform_random
from coflowopt.rates.greedy import greedy
from coflowopt.verify import verify_schedule
from test_exact_block_charge import _prefixes
from test_exact_inherited_lp import INSTANCES as _BASE_INSTANCES

# the inherited-LP test's instances, the 8x8 one with two release groups (Lemma Z's condition
# needs two coflows of the latest unplaced group), and capacities 1-3
INSTANCES = dict(_BASE_INSTANCES)
INSTANCES["8x8 weights and releases"] = lambda s: uniform_random(
    8, 8, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5), releases=(0, 2), seed=s)
INSTANCES["capacities"] = lambda s: uniform_random(
    3, 7, flows_per_coflow=(1, 3), size=(1, 5), weights=(1, 3), releases=(0, 2),
    capacities=(1, 3), seed=s)


def _search(inst) -> _Search:
    s = _Search(inst, time_limit=60.0, rtol=0.0, atol=0.0, node_lp=True, dominance="subset",
                max_nodes=None, local_search=False, table_kernel=True, block_charge=True,
                dp_chains=True, lowered_max=DP_LOWERED_MAX, split_max=16)
    s.deadline = math.inf
    return s


def _check_nodes(name, seed):
    """(nodes checked, nodes where the split bound is strictly above the node's bound)."""
    inst = INSTANCES[name](seed)
    S = _search(inst)
    pd = S.pd
    members = S.members.tolist()
    pos = {k: i for i, k in enumerate(members)}
    esb = ExactSubsetBounds(inst, S.members)
    rng = np.random.default_rng(seed)
    hm = new_event_lp_solver()
    checked = strict = 0
    for _ in range(80):
        if checked >= 4:
            break
        sched = greedy(inst, rng.permutation(inst.num_coflows).astype(np.int64))
        codes = events_from_completions(pd, verify_schedule(inst, sched).coflow_completion)
        # a node with 3 or 4 unplaced coflows (the brute force: at most 4! orders)
        u = int(rng.integers(3, 5))
        done = [n for n, c in enumerate(codes) if c >= 0]
        cut = done[u - 1] + 1
        head, suffix = codes[:cut], tuple(codes[cut:])
        rho = sum(1 for c in head if c < 0)
        U = [c for c in head if c >= 0 and c in pos]
        mask = sum(1 << pos[k] for k in U)
        got = S.split_bound(mask, rho, suffix)
        if got is None or not math.isfinite(got[0]):
            continue
        b = Fraction(got[1])
        assert Fraction(got[0]) <= b
        # the region, as the search covers it: the last of U is a coflow no pair puts first
        region = min(
            (sol.value for sol in (solve_event_lp(build_event_lp(pd, pre + suffix), model=hm)
                                   for pre in _prefixes(pd, U, rho)
                                   if not mask & S.succ[pos[[c for c in pre if c >= 0][-1]]])
             if sol.status == "optimal"), default=math.inf)
        tol = Fraction(1, 10 ** 9) * (1 + abs(b))
        assert b <= Fraction(region) + tol if math.isfinite(region) else True, \
            (name, seed, suffix, rho, U)
        # at most each child's charged bound (exact DPB and M)
        W = min(Fraction(float(inst.weight[k])) for k in U)
        for k in U:
            if mask & S.succ[pos[k]]:
                continue
            V = [c for c in U if c != k]
            vm = mask & ~(1 << pos[k])
            Mv = max([esb.mlb(vm)] + [esb.e[pos[c]] for c in V])
            wv = min(Fraction(float(inst.weight[c])) for c in V)
            L = float(Mv)
            if Fraction(L) > Mv:
                L = math.nextafter(L, -math.inf)
            child = solve_event_lp(build_event_lp(pd, (k,) + suffix, num_prefix_releases=rho,
                                                  block=V, reduced=True,
                                                  block_charge=(float(wv), L)), model=hm)
            if child.status != "optimal":
                continue
            cb = esb.dpb(vm) - wv * Mv + child.bound_exact
            assert b <= cb + tol + wv * (Mv - Fraction(L)), (name, seed, suffix, rho, U, k)
        assert W > 0
        charge = S.block_charge(mask, rho)
        node = solve_event_lp(build_event_lp(pd, suffix, num_prefix_releases=rho, block=U,
                                             reduced=True, block_charge=charge), model=hm)
        if node.status == "optimal":
            nb = esb.dpb(mask) + node.bound_exact - (0 if charge is None else
                                                     Fraction(charge[0]) * Fraction(charge[1]))
            strict += b > nb + tol
        checked += 1
    return checked, strict


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_split_bound_at_most_region_optimum_and_children(name, seed):
    checked, _ = _check_nodes(name, seed)
    assert checked > 0


def test_split_bound_strictly_above_node_bound_somewhere():
    assert sum(_check_nodes(name, s)[1] for name in sorted(INSTANCES) for s in (3, 4)) > 0


def test_search_with_split_proves_brute_force():
    """On weighted, released, fractional and capacitated instances the search with the split
    LP proves the brute-force optimum exactly, the same exact rational as without it, with
    split LPs solved (closures: test_split_closes_nodes_on_4x4)."""
    lps = 0
    # 6 coflows (720 orders for the brute force)
    small = {
        "8x8 weights and releases": lambda s: uniform_random(
            8, 6, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5), releases=(0, 2),
            seed=s),
        "4x4 integral": lambda s: uniform_random(4, 6, flows_per_coflow=(1, 4), size=(1, 10),
                                                 seed=s),
        "fractional sizes": lambda s: uniform_random(3, 6, flows_per_coflow=(1, 4),
                                                     size=(1, 10), integer_sizes=False,
                                                     weights=(1, 3), releases=(0, 3), seed=s),
        "capacities": lambda s: uniform_random(3, 6, flows_per_coflow=(1, 3), size=(1, 5),
                                               weights=(1, 3), releases=(0, 2),
                                               capacities=(1, 3), seed=s),
    }
    for name, seed in [("fractional sizes", 5), ("capacities", 6),
                       ("8x8 weights and releases", 7), ("4x4 integral", 8),
                       ("capacities", 9), ("fractional sizes", 10)]:
        inst = small[name](seed)
        ref = enumerate_orders(inst)
        new = bnb(inst, time_limit=120, seed_bounds=False, split_max=16, dive_period=0)
        old = bnb(inst, time_limit=120, seed_bounds=False, dive_period=0)
        assert ref.kind == new.kind == old.kind == "optimal"
        assert new.value == old.value == ref.value                  # exact rationals
        assert new.certificate_status == "proved exactly", new.certificate["exact"]
        assert verify_schedule(inst, new.schedule, mode="exact").ok
        lps += new.extra["search"]["split_lps"]
    assert lps > 0


def test_split_closes_nodes_on_4x4(monkeypatch):
    # tried at every node its LP leaves open (not only near the incumbent)
    monkeypatch.setattr(bb, "SPLIT_FIRST", 10 ** 9)
    inst = uniform_random(4, 14, flows_per_coflow=(1, 4), size=(1, 10), seed=0)
    # without SUB (since SUB_MAX = 14 it closes this 14-coflow root before any split) and the
    # LNS: the mechanism under test alone
    new = bnb(inst, time_limit=120, split_max=16, sub_max=0, lns=False)
    old = bnb(inst, time_limit=120)
    assert new.kind == old.kind == "optimal" and new.value == old.value
    assert new.certificate_status == "proved exactly"
    assert new.extra["search"]["split_closed"] > 0


def test_exact_proof_refuses_raised_constants():
    """A split closure is re-proved exactly at its own value, and not once one of its z
    constants is raised above ``DPB(U - k) - W M(U - k) + (w_k - W) max(MLB(U), e_k)``
    (the exact proof recomputes every constant in rational arithmetic)."""
    inst = uniform_random(4, 14, flows_per_coflow=(1, 4), size=(1, 10), seed=0)
    S = _search(inst)
    members = S.members.tolist()
    full = (1 << S.n) - 1
    tried = 0
    for i in range(S.n):
        U = full & ~(1 << i)
        if S.succ[i] & U:
            continue
        got = S.split_bound(U, 0, (members[i],))
        if got is None or got[1] is None:
            continue
        b, b_ex, y, slp = got
        prov = ("split", U, slp, (members[i],), b_ex, y)
        S.tight = [(0.0, prov)]
        ok = S.exact_proof(b_ex, 16)
        assert ok["proved"], ok
        bad = replace(slp, cost=[c + 1.0 for c in slp.cost])
        S.tight = [(0.0, ("split", U, bad) + prov[3:])]
        ko = S.exact_proof(b_ex, 16)
        assert not ko["proved"], ko
        tried += 1
        if tried == 3:
            break
    assert tried


def test_split_certificate_checked_and_dropped_child_rejected(tmp_path, monkeypatch):
    from tests.test_optimum_certificates import certified, check
    monkeypatch.setattr(bb, "SPLIT_FIRST", 10 ** 9)
    inst = uniform_random(4, 12, flows_per_coflow=(1, 4), size=(1, 10), seed=0)
    res, cert, path = certified(inst, tmp_path, split_max=16)
    assert res.extra["search"]["split_closed"] > 0
    out = check(path, cert)
    assert out.returncode == 0, out.stdout + out.stderr
    nodes = cert["proof"]["nodes"]
    for i in (0, len(nodes) // 2, len(nodes) - 1):
        bad = copy.deepcopy(cert)
        del bad["proof"]["nodes"][i]
        p = check(path, bad)
        assert p.returncode == 1 and "not covered" in p.stdout, p.stdout + p.stderr
