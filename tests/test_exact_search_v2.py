"""The stronger branch and bound (issue 15, item 3) against the first one and brute force.

* the subset dominance rule (proofs/completion-order-dominance.md): its pairs on a hand
  example; the optimum with it equals the optimum without dominance and brute force over all
  event sequences, on instances built to have many dominated pairs;
* the new search's optimum equals the first search's (``experiments/bench_exact.OLD_SEARCH``),
  and ``bound <= OPT <= every verified schedule``;
* the DP tables of the compiled kernel are bit-identical to the numpy build;
* a certificate written with the subset rule is confirmed by ``tools/check_certificate.py``,
  and the same certificate claiming only the identical-coflow rule is rejected;
* stopped by its limit, the anytime search reports ``feasible`` with a bound at least the
  certified seed bound and at most the verified incumbent (never ``optimal``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.certificate_files import optimum_certificate
from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact.branch_and_bound import _Search, dominance_pairs
from coflowopt.exact.subset_bounds import SubsetBounds
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.orderings.basic import fifo
from coflowopt.rates.greedy import greedy
from coflowopt.registry import get_algorithm
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "tools" / "check_certificate.py"
#: the first search's switches (experiments/bench_exact.py OLD_SEARCH, repeated: the tests do
#: not import experiments/)
OLD = {"dp_table_max": 22, "dp_kernel": False, "seed_after": False,
       "dominance": True, "block_charge": False, "dive_period": 0, "tie_digits": 0}
REL = 1e-9


def crowded(K: int, seed: int) -> Instance:
    """Few ports, pairs, sizes and weights, two release dates: many dominated pairs."""
    return uniform_random(2, K, flows_per_coflow=(1, 2), size=(1, 3), weights=(1, 2),
                          releases=(0, 1), seed=seed)


def test_dominance_pairs_hand_example():
    # coflow 0: 2 units on (0, 0); coflow 1: 3 on (0, 0) and 1 on (1, 1); coflow 2: 1 on (1, 1)
    F = Fraction
    d = {0: {(0, 0): F(2)}, 1: {(0, 0): F(3), (1, 1): F(1)}, 2: {(1, 1): F(1)}}
    rel = {k: F(0) for k in d}
    w = {k: F(1) for k in d}
    assert dominance_pairs([0, 1, 2], rel, w, d) == [(0, 1), (2, 1)]
    # a heavier b: a no longer dominates it; a later release: neither
    assert dominance_pairs([0, 1, 2], rel, {0: F(1), 1: F(2), 2: F(1)}, d) == []
    assert dominance_pairs([0, 1, 2], {0: F(0), 1: F(1), 2: F(1)}, w, d) == [(2, 1)]
    # identical coflows: only the (-w, index) order, in both rules
    e = {0: {(0, 0): F(1)}, 1: {(0, 0): F(1)}}
    assert dominance_pairs([0, 1], {0: F(0), 1: F(0)}, {0: F(1), 1: F(1)}, e) == [(0, 1)]
    assert dominance_pairs([0, 1], {0: F(0), 1: F(0)}, {0: F(1), 1: F(3)}, e,
                           "identical") == [(1, 0)]
    # the search reads the same pairs off an instance (a big switch's path is its port pair)
    inst = Instance.from_coflows([Coflow("a", [(0, 0, 2)]),
                                  Coflow("b", [(0, 0, 3), (1, 1, 1)]),
                                  Coflow("c", [(1, 1, 1)]), Coflow("d", [(1, 0, 5)])])
    s = _Search(inst, time_limit=10, rtol=REL, atol=0, node_lp=True, dominance="subset",
                max_nodes=None, local_search=False)
    assert s.succ == [0b0010, 0, 0b0010, 0]


@settings(max_examples=20, deadline=None)
@given(K=st.integers(3, 5), seed=st.integers(0, 2 ** 31))
def test_subset_dominance_keeps_the_optimum(K, seed):
    inst = crowded(K, seed)
    new = bnb(inst, time_limit=60, seed_bounds=False)
    none = bnb(inst, time_limit=60, dominance=False, seed_bounds=False)
    ref = enumerate_orders(inst)
    assert new.kind == none.kind == "optimal"
    assert new.value == none.value          # both exact rationals (exact verifier)
    assert float(new.value) == pytest.approx(float(ref.value), rel=1e-8)


@settings(max_examples=15, deadline=None)
@given(m=st.sampled_from([2, 3, 4]), K=st.integers(2, 7), seed=st.integers(0, 2 ** 31),
       rel=st.booleans())
def test_new_search_equals_old_and_sits_between_bound_and_schedules(m, K, seed, rel):
    inst = uniform_random(m, K, flows_per_coflow=(1, 3), size=(1, 6), weights=(1, 4),
                          releases=(0, 4) if rel else None, seed=seed)
    new = bnb(inst, time_limit=60)
    old = bnb(inst, time_limit=60, **OLD)
    assert new.kind == old.kind == "optimal"
    assert float(new.value) == pytest.approx(float(old.value), rel=REL)
    rep = verify_schedule(inst, new.schedule, mode="exact")
    assert rep.ok and rep.weighted_completion_time == new.value
    assert float(new.bound) <= float(new.value)
    rng = np.random.default_rng(seed)
    for order in [fifo(inst)] + [rng.permutation(K) for _ in range(3)]:
        r = verify_schedule(inst, greedy(inst, np.asarray(order)))
        assert r.ok
        assert float(new.value) <= float(r.weighted_completion_time) * (1 + REL)


@pytest.mark.parametrize("m,K,kw", [(4, 12, {}),
                                    (8, 10, {"flows_per_coflow": (1, 8), "weights": (1, 5),
                                             "releases": (0, 5)})])
def test_kernel_tables_equal_numpy_tables(m, K, kw):
    inst = uniform_random(m, K, seed=5, **kw)
    a = SubsetBounds(inst, np.arange(K), kernel=False)
    b = SubsetBounds(inst, np.arange(K), kernel=True)
    assert np.array_equal(a._mlb, b._mlb) and np.array_equal(a._dpb, b._dpb)


def _check(inst_path: Path, cert: dict) -> subprocess.CompletedProcess:
    cpath = inst_path.with_suffix(".cert.json")
    cpath.write_text(json.dumps(cert))
    return subprocess.run([sys.executable, str(CHECKER), str(inst_path), str(cpath)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def subset_certificate(tmp_path_factory):
    inst = uniform_random(4, 8, seed=3)      # 2 dominated pairs; the rule removes 6 children
    # a generous limit: the proof is all that matters here (the machine may be busy)
    res = bnb(inst, time_limit=600, certificate_nodes=True, seed_bounds=False)
    assert res.kind == "optimal" and res.certificate_status == "proved exactly", res.message
    assert res.extra["search"]["dominated"] > 0
    cert = optimum_certificate(inst, res)
    path = tmp_path_factory.mktemp("cert") / "inst.json"
    write_instance_json(inst, path)
    return res, cert, path


def test_subset_certificate_round_trip(subset_certificate):
    res, cert, path = subset_certificate
    assert cert["proof"]["dominance"] == "subset"
    out = _check(path, cert)
    assert out.returncode == 0 and out.stdout.startswith("CONFIRMED"), out.stdout + out.stderr
    assert str(res.value) in out.stdout


def test_subset_rule_needed_by_its_certificate(subset_certificate):
    _, cert, path = subset_certificate
    for weaker in (True, False):
        bad = json.loads(json.dumps(cert))
        bad["proof"]["dominance"] = weaker
        out = _check(path, bad)
        assert out.returncode == 1 and "not covered" in out.stdout, out.stdout
    bad = json.loads(json.dumps(cert))
    bad["proof"]["dominance"] = "superset"
    assert _check(path, bad).returncode == 2


def test_anytime_bound_on_a_limit():
    inst = uniform_random(4, 30, seed=0)
    res = bnb(inst, time_limit=6)
    assert res.kind == "feasible" and res.status == "time_limit"
    seed = res.extra["search"]["seed_bound"]
    assert seed["when"] == "after" and seed["value"] is not None
    assert float(res.bound) >= seed["value"]
    # the cheap bounds ran before the search, the LP bounds after it
    ran = [r["algorithm"] for r in seed["runs"]]
    assert ran[:4] == ["isolated", "port", "bssi-dual", "ordering-lp"] and "lp-ov" in ran[4:]
    # never below what the bounds certify on their own (computed here independently)
    for name in ("bssi-dual", "ordering-lp"):
        assert float(res.bound) >= float(get_algorithm("bound", name)(inst).value)
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok and float(res.bound) <= float(rep.weighted_completion_time)
