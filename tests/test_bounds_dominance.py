"""Property tests: every bound is below verified schedules, and the dominance relations of
proofs/bound_dominance.md hold (with the incomparable pairs shown by examples)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from coflowopt import Coflow, Instance
from coflowopt.api import run_schedule
from coflowopt.bounds import (bssi_dual, interval_lp_bound, isolated_bound, lp_ov_bound,
                              ordering_lp_bound, port_bound, time_indexed_lp_bound)
from coflowopt.testing import digest_ts4, instances

SLACK = 1e-6     # certified LP figures sit slightly below the float optimum (IPM duals)


def _le(a, b):
    return float(a) <= float(b) * (1 + SLACK) + SLACK


def _bounds(inst, slot=None):
    return {"isolated": isolated_bound(inst), "port": port_bound(inst),
            "bssi-dual": bssi_dual(inst), "ordering-lp": ordering_lp_bound(inst),
            "ordering-lp-norel": ordering_lp_bound(inst, release_cuts=False),
            "time-indexed-lp": time_indexed_lp_bound(inst, slot=slot),
            "interval-lp": interval_lp_bound(inst), "lp-ov": lp_ov_bound(inst)}


def _verified_costs(inst):
    out = {}
    for order in ("fifo", "bssi", "sebf", "ordering-lp", "lp-ov"):
        r = run_schedule(inst, order, "greedy")
        assert r.kind == "feasible", r.message
        out[order + "+greedy"] = float(r.value)
    r = run_schedule(inst, policy="qsz")
    assert r.kind == "feasible", r.message
    out["qsz"] = float(r.value)
    return out


@settings(max_examples=30, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=5, releases=True, heterogeneous=True))
def test_bounds_below_verified_schedules_and_dominance(inst):
    b = _bounds(inst)
    for name, res in b.items():
        assert res.kind == "lower_bound" and res.certificate_status == "certified", name
    costs = _verified_costs(inst)
    best = min(costs.values())
    for name, res in b.items():
        assert _le(res.value, best), (name, float(res.value), costs)
    v = {k: r.value for k, r in b.items()}
    # proved (proofs/bound_dominance.md)
    assert _le(v["isolated"], v["port"])
    assert _le(v["port"], v["ordering-lp-norel"])
    assert _le(v["bssi-dual"], v["ordering-lp-norel"])
    assert _le(v["ordering-lp-norel"], v["ordering-lp"])
    assert _le(v["ordering-lp-norel"], v["lp-ov"])
    for name in ("time-indexed-lp", "interval-lp", "lp-ov", "ordering-lp"):
        assert _le(v["isolated"], v[name]), name
    # time-indexed LP with slot delta: >= ordering LP (no release rows) - delta/2 sum w
    delta = b["time-indexed-lp"].params["slot"]
    assert _le(v["ordering-lp-norel"],
               float(v["time-indexed-lp"]) + delta / 2 * float(np.sum(inst.weight)))


@settings(max_examples=15, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=4, releases=False, heterogeneous=False))
def test_weighted_cct_bounds_below_verified_schedules(inst):
    costs = []
    for order in ("fifo", "bssi"):
        r = run_schedule(inst, order, "greedy", objective="weighted_cct")
        costs.append(float(r.value))
    for f in (isolated_bound, port_bound, bssi_dual, ordering_lp_bound, interval_lp_bound):
        assert _le(f(inst, objective="weighted_cct").value, min(costs))


def test_incomparable_pairs():
    """Pairs for which no dominance holds, with the instance that shows it."""
    ts4 = digest_ts4()
    assert port_bound(ts4).value > bssi_dual(ts4).value            # 32 > 269/9
    fig1 = Instance.from_coflows(
        [Coflow("C1", [(i, i, 1.0) for i in range(4)] + [(i, (i + 1) % 4, 1.0)
                                                         for i in range(4)])] +
        [Coflow(f"C{i + 2}", [(i, i, 2.01)]) for i in range(4)])
    assert bssi_dual(fig1).value > port_bound(fig1).value          # 12.05 > 12.04
    # BSSI's dual can be below the isolated bound (zero releases, unit capacities)
    ex = Instance.from_coflows([Coflow("A", [(1, 1, 1.0), (0, 1, 4.0)], weight=2.0),
                                Coflow("B", [(1, 0, 5.0), (0, 0, 1.0)], weight=4.0)])
    assert bssi_dual(ex).value == Fraction(154, 5) < isolated_bound(ex).value == 34
    # time-indexed LP above the ordering LP on T-S4, below it with a coarse slot
    assert float(time_indexed_lp_bound(ts4, slot=0.25).value) > \
        float(ordering_lp_bound(ts4).value)
    assert float(time_indexed_lp_bound(ts4, slot=4.0).value) < \
        float(ordering_lp_bound(ts4).value)
    # LP-OV above the ordering LP without releases, below it with its release rows
    from coflowopt.generators import uniform_random
    a = uniform_random(3, 5, seed=0)
    assert float(lp_ov_bound(a).value) > float(ordering_lp_bound(a).value) * (1 + 1e-6)
    b = uniform_random(3, 5, seed=1, releases=(0, 5))
    assert float(ordering_lp_bound(b).value) > float(lp_ov_bound(b).value) * (1 + 1e-6)
