"""The charged block of the branch and bound's node LP (proofs/bnb-block-charge.md).

* on random nodes of small weighted, released instances, the charged bound
  ``DPB(U) - w_min M(U) + LP_charged`` (exact DPB and M, the LP's certified bound) is at most
  the least LP value over every event sequence of the node's region (brute force: every order
  of ``U`` with the unplaced releases interleaved; Theorem 1 makes that the region's optimum)
  and at least the uncharged bound ``DPB(U) + LP``, strictly on some nodes;
* the default search (charged, with dives and the queue's ties) and ``block_charge=False,
  dive_period=0, tie_digits=0`` prove the same exact optimum, and the charged search solves
  charged node LPs (brute force against the default search:
  tests/test_exact_properties.py::test_bnb_equals_brute_force);
* certificates with ``lp-charged`` nodes are confirmed and tampered ones rejected
  (tests/test_optimum_certificates.py, the ``lp_case`` fixture); a node that claims the
  charge while the latest unplaced release has no coflow before it is rejected (below);
* the exact proof holds the charged LP's block floor at the exact ``M(U)`` (a fractional
  ``M(U)``, deflated in the float LP, no longer leaves the proof "within rtol").
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from coflowopt.exact import bnb
from coflowopt.exact.order_lp import (build_event_lp, events_from_completions,
                                      new_event_lp_solver, pair_data, solve_event_lp)
from coflowopt.exact.subset_bounds import ExactSubsetBounds
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.rates.greedy import greedy
from coflowopt.verify import verify_schedule
from test_exact_inherited_lp import INSTANCES
from test_resources_lp_bounds import _checker



def _prefixes(pd, U, rho):
    """Every order of the completions of ``U`` with release groups ``0..rho-1`` interleaved
    (in time order, each before the completions of its coflows)."""
    cg = pd.coflow_group
    n = len(U) + rho
    for perm in itertools.permutations(U):
        for slots in itertools.combinations(range(n), rho):
            seq, it, g = [], iter(perm), 0
            for i in range(n):
                if i in slots:
                    seq.append(-(g + 1))
                    g += 1
                else:
                    seq.append(next(it))
            seen, ok = set(), True
            for c in seq:
                if c < 0:
                    seen.add(-c - 1)
                elif cg[c] >= 0 and cg[c] not in seen:
                    ok = False
                    break
            if ok:
                yield tuple(seq)


def _check_nodes(name, seed):
    """Checks the bounds on random nodes; returns (nodes checked, nodes where the charged
    bound is strictly above the uncharged one)."""
    inst = INSTANCES[name](seed)
    pd = pair_data(inst)
    members = [int(k) for k in np.flatnonzero(inst.weight > 0)]
    esb = ExactSubsetBounds(inst, np.asarray(members))
    pos = {k: i for i, k in enumerate(members)}
    e = esb.e
    w = {k: Fraction(float(inst.weight[k])) for k in members}
    rng = np.random.default_rng(seed)
    hm = new_event_lp_solver()
    checked = strict = 0
    for _ in range(40):
        if checked >= 6:
            break
        # the event sequence of a feasible schedule (greedy rates, a random order): the
        # node's region is not empty
        sched = greedy(inst, rng.permutation(inst.num_coflows).astype(np.int64))
        codes = events_from_completions(pd, verify_schedule(inst, sched).coflow_completion)
        cut = int(rng.integers(2, min(len(codes), 8) + 1))
        head, suffix = codes[:cut], tuple(codes[cut:])
        rho = sum(1 for c in head if c < 0)
        U = [c for c in head if c >= 0 and c in pos]
        if not U or (rho > 0 and not any(pd.coflow_group[k] == rho - 1 for k in U)):
            continue            # the charge is not allowed at this node
        if len(U) > 4:
            continue            # the brute force below: at most 4! orders
        mask = sum(1 << pos[k] for k in U)
        M = max([esb.mlb(mask)] + [e[pos[k]] for k in U])
        w_min = min(w[k] for k in U)
        plain = solve_event_lp(build_event_lp(pd, suffix, num_prefix_releases=rho, block=U,
                                              reduced=True), model=hm)
        if plain.status == "infeasible":
            continue
        L = float(M)
        if Fraction(L) > M:     # the LP's earliest block time: a float at most M
            L = math.nextafter(L, -math.inf)
        charged = solve_event_lp(build_event_lp(pd, suffix, num_prefix_releases=rho, block=U,
                                                reduced=True, block_charge=(float(w_min), L)),
                                 model=hm)
        assert plain.status == charged.status == "optimal"
        lo_plain = esb.dpb(mask) + plain.bound_exact
        lo_charged = esb.dpb(mask) - w_min * M + charged.bound_exact
        region = min(
            (sol.value for sol in (solve_event_lp(build_event_lp(pd, pre + suffix), model=hm)
                                   for pre in _prefixes(pd, U, rho))
             if sol.status == "optimal"), default=None)
        assert region is not None
        tol = Fraction(1, 10 ** 9) * (1 + abs(lo_charged))
        assert lo_charged <= Fraction(region) + tol, (name, seed, suffix, rho, U)
        assert lo_charged >= lo_plain - tol, (name, seed, suffix, rho, U)
        checked += 1
        strict += lo_charged > lo_plain + tol
    return checked, strict


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_charged_bound_between_uncharged_and_region_optimum(name, seed):
    checked, _ = _check_nodes(name, seed)
    assert checked > 0


def test_charged_bound_strictly_stronger_somewhere():
    assert sum(_check_nodes(name, s)[1] for name in sorted(INSTANCES) for s in (3, 4)) > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_charge_keeps_the_optimum(seed):
    """The default search (charged block, dives, ties of the queue's key to 10 digits) and the
    search without the three prove the same exact optimum."""
    inst = uniform_random(8, 10, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=seed)
    new = bnb(inst, time_limit=120, seed_bounds=False)
    plain = bnb(inst, time_limit=120, seed_bounds=False, block_charge=False, dive_period=0,
                tie_digits=0)
    assert new.kind == plain.kind == "optimal"
    assert new.certificate_status == plain.certificate_status == "proved exactly"
    assert new.value == plain.value                   # exact rationals
    assert new.extra["search"]["lp_charged"] > 0 and plain.extra["search"]["lp_charged"] == 0


def test_checker_refuses_charge_when_the_latest_release_is_placed(tmp_path):
    """A node whose suffix holds every coflow of the latest release but not the release
    itself: the LP puts that release before the block, which may then come after the last
    completion of ``U``; ``lp-charged`` is rejected there."""
    chk = _checker()
    inst = uniform_random(4, 5, seed=1, releases=(0, 5))
    path = tmp_path / "i.json"
    write_instance_json(inst, path)
    cinst = chk.Instance(json.loads(path.read_text()))
    search = chk.EventSearch(cinst, {"dominance": False, "nodes": []})
    G = search.G
    assert G >= 1
    late = [k for k in range(cinst.K) if search.group[k] == G - 1]
    suffix = tuple(late)            # the coflows of release G-1 complete last
    with pytest.raises(chk.Rejected, match="lp-charged"):
        search.bound(suffix, {"type": "lp-charged", "duals": {}}, "node")


# A hypothesis-style sweep's find (uniform_random, 3 ports, 6 coflows, seed 1958): one closure
# is a charged node LP whose M(U) = 1/2 is fractional, so the float LP holds t_B >= L with L
# deflated 2e-12 below 1/2; the exact proof used to re-solve that LP as it stood (the exact
# vertex of HiGHS's basis was then infeasible, the duals proved 263/4 - 4e-15) and reported
# "proved within rtol".  With t_B >= M(U) held exactly the closure reaches 263/4.
SWEEP_FIND = dict(flows_per_coflow=(1, 3), size=(1, 5), weights=(1, 3), releases=(0, 2),
                  capacities=(1, 3))


@pytest.mark.parametrize("seed", [1958])
def test_exact_proof_holds_the_charge_floor_exactly(seed):
    """The optimum of the sweep's find is proved exactly and equals brute force over every
    event sequence (each solved exactly by its LP)."""
    from coflowopt.exact import enumerate_orders

    inst = uniform_random(3, 6, seed=seed, **SWEEP_FIND)
    res = bnb(inst, time_limit=60)
    ref = enumerate_orders(inst)
    assert ref.kind == "optimal" and ref.value == Fraction(263, 4)
    assert res.kind == "optimal" and res.value == ref.value
    assert res.extra["search"]["lp_charged"] > 0
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
