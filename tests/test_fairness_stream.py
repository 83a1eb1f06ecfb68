"""The windowed form of the fairness policies (HUG, cooperative HUG, DRF, PS-P): the generic
simulator in sink mode (``simulate(..., on_window=...)``, ``fairness_windows``) against the held
schedule of the same policy."""

from __future__ import annotations

import numpy as np
import pytest

from coflowopt.api import run_schedule
from coflowopt.fairness.simulation import FairnessPolicy, _schedule, fairness_windows
from coflowopt.simulate import simulate
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import verify_schedule
from test_madd_stream import (assert_glues_into, assert_same_report, glued, held_pieces,
                              long_horizon, settling_instances, small_instances, streamed)

METHODS = ("hug", "hug-cooperative", "drf", "ps-p")


def cases():
    # seed 257 of these: a flow of cooperative HUG that needs settling with pieces in several
    # windows (left unsettled) at one piece per window (found by a search of 2,400 instances)
    for inst in small_instances() + [long_horizon(257, 20, 1e-5, 1.0, 2, 3)]:
        for method in METHODS:
            for weighted in ((False, True) if method != "ps-p" else (False,)):
                yield inst, method, weighted


def test_windows_glue_into_the_held_schedule():
    """Every window's pieces lie in it, the windowed verdict is the held one, and the windows
    glued (pieces cut at a boundary joined) are the held pieces: the same flows, starts, ends,
    and rates but for the flows the sink counts as unsettled (held settled them)."""
    totals = {"settled": 0, "unsettled": 0, "cut": 0}
    for inst, method, weighted in cases():
        held = _schedule(inst, method, weighted)
        want = verify_schedule(inst, held)
        assert want.ok
        for window in (1, 3, 10**6):
            stats, rep, parts = streamed(
                inst, lambda cb, w: fairness_windows(inst, cb, method=method, weighted=weighted,
                                                     window=w), window)
            assert_same_report(rep, want)
            assert stats["windows"] == len(parts)
            assert stats["pieces"] == sum(p.num_pieces for p in parts)
            if window == 10**6:
                assert stats["windows"] == 1 and stats["pieces"] == held.num_pieces
            totals["cut"] += stats["pieces"] - assert_glues_into(inst, parts, stats, held)
            for k in ("settled", "unsettled"):
                totals[k] += stats[k]
    # window boundaries split pieces, and the sink met both of its cases
    assert totals["cut"] > 0 and totals["settled"] > 0 and totals["unsettled"] > 0


@pytest.mark.parametrize("method", METHODS)
def test_run_schedule_streamed_gives_the_held_result(method):
    for inst in small_instances()[:4] + settling_instances():
        held = run_schedule(inst, policy=method)
        res = run_schedule(inst, policy=method, keep_schedule=False)
        assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
        assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
        assert_same_report(res.report, held.report)


def test_streamed_on_a_fat_tree_gives_the_held_result():
    rng = np.random.default_rng(9)
    bs = random_instance(rng, max_ports=8, max_coflows=10, max_flows=5, releases=True,
                         weights=True)
    inst = on_topology(bs, fat_tree(4), seed=1)
    assert not inst.is_big_switch
    for method in METHODS:
        held = _schedule(inst, method, False)
        stats, rep, parts = streamed(
            inst, lambda cb, w: fairness_windows(inst, cb, method=method, window=w), 2)
        assert stats["windows"] > 1
        assert_same_report(rep, verify_schedule(inst, held))
        f, s, e, v = glued(parts)
        np.testing.assert_array_equal(e, held_pieces(held)[2])


def test_bad_window_and_method():
    inst = small_instances()[0]
    with pytest.raises(ValueError, match="window"):
        simulate(inst, FairnessPolicy("drf"), on_window=lambda s, a, b: None, window=0)
    with pytest.raises(ValueError, match="maxmin_windows"):
        fairness_windows(inst, lambda s, a, b: None, method="per-flow")


def test_a_borrowing_window_gets_the_loops_own_buffers():
    """A window callback that borrows (keeps nothing: the streamed verifier) is handed the
    compiled loop's buffers, settled in place, instead of four copies per window (39 GB of
    copies for hug-cooperative at 50,000 coflows); one that does not borrow gets copies.  The
    windows' contents are the held schedule's either way (the test above).  (``ps-p``'s loop
    hands over fresh arrays, its pieces joined with the cut ones, which are no longer copied
    again either.)"""
    from coflowopt.generators import uniform_random
    inst = uniform_random(6, 40, seed=1, releases=(0, 8))
    for borrows in (True, False):
        seen = []

        def cb(s, a, b):
            seen.append(s.rate)
        cb.borrows = borrows
        fairness_windows(inst, cb, method="hug-cooperative", window=5)
        assert len(seen) > 2
        shared = [np.shares_memory(seen[0], r) for r in seen[1:]]
        assert all(shared) if borrows else not any(shared)
