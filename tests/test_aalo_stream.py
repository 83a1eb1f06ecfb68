"""Aalo's D-CLAS handed over window by window (``aalo_windows``: the sink mode of the compiled
loop ``dclas_simulate``; ``run_schedule(..., keep_schedule=False)`` and the CLI without
``--out``) against the held schedule of :func:`aalo`: the windows, glued at their cuts, are the
held pieces (settled rates included, but for flows counted ``unsettled``), and the verifier
gives both the same verdict, completion times and value, to the last bit.

Windows of one to a few pieces make nearly every event a window boundary, so that most pieces
are cut; the settling instances (tiny flows released over a long horizon, from
``test_madd_stream``) make float event times miss flows' sizes, so that settling happens."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.api import POLICY_WINDOWS, run_schedule
from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import uniform_random
from coflowopt.policies.aalo import aalo, aalo_windows
from coflowopt.testing import big_switch_as_paths, random_instance
from coflowopt.verify import verify_schedule
from test_madd_stream import (assert_same_report, glued, held_pieces, settling_instances,
                              small_instances, streamed, unsettled_in)


def glues_into_held(inst, held, windows, window):
    """Stream ``windows(inst, on_window, window=window)`` and hold the result to the held
    schedule ``held``: the same verdict and numbers, the same pieces once glued (rates but for
    unsettled flows); returns the stream's statistics and the number of cut pieces."""
    want = verify_schedule(inst, held)
    assert want.ok, want.summary()
    stats, rep, parts = streamed(inst, lambda cb, w: windows(inst, cb, window=w), window)
    assert_same_report(rep, want)
    raw = sum(p.num_pieces for p in parts)
    assert raw == stats["pieces"]
    f, s, e, v = glued(parts)
    hf, hs, he, hv = held_pieces(held)
    np.testing.assert_array_equal(f, hf)
    np.testing.assert_array_equal(s, hs)
    np.testing.assert_array_equal(e, he)
    # the rates differ only for flows left unsettled, which the held run settled (size / sent,
    # a relative change far below 1e-9)
    assert np.unique(f[v != hv]).size <= stats["unsettled"]
    assert stats["unsettled"] == unsettled_in(inst, parts)
    np.testing.assert_allclose(v, hv, rtol=1e-9, atol=0)
    if window > held.num_pieces:
        assert stats["windows"] == 1
    return stats, raw - f.size


def _glues_into_held(inst, window, **params):
    held = aalo(inst, **params)
    assert held.meta["engine"] == "kernel"
    return glues_into_held(inst, held, functools.partial(aalo_windows, **params), window)


def test_windows_glue_into_the_held_schedule():
    totals = {"settled": 0, "unsettled": 0, "cut": 0, "windows": 0}
    for inst in small_instances():
        for params in ({}, {"first_threshold": 0.5, "num_queues": 3}):
            for window in (1, 3, 10**6):
                stats, cut = _glues_into_held(inst, window, **params)
                if window == 10**6:
                    assert cut == 0
                totals["cut"] += cut
                totals["windows"] += stats["windows"]
                for k in ("settled", "unsettled"):
                    totals[k] += stats[k]
    # window boundaries split pieces, and the settling instances exercise both cases
    assert totals["cut"] > 0 and totals["windows"] > 3 * len(small_instances())
    assert totals["settled"] > 0 and totals["unsettled"] > 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), th=st.sampled_from([0.5, 2.0, 10.0]),
       sharing=st.sampled_from(["weighted", "strict"]), window=st.sampled_from([1, 2, 7]))
def test_windowed_is_held_on_random_instances(seed, th, sharing, window):
    """Releases, weights, unequal capacities, coflows of up to 20 flows, demotions."""
    inst = random_instance(np.random.default_rng(seed), max_ports=5, max_coflows=10,
                           max_flows=20, releases=True, weights=True,
                           heterogeneous=bool(seed % 2))
    _glues_into_held(inst, window, first_threshold=th, sharing=sharing, num_queues=4)


def test_a_boundary_splits_pieces_of_a_larger_run():
    """Hundreds of coflows over three queues: a window boundary cuts pieces that run across
    it (the same rate on both sides), in a run with many windows and demotions."""
    inst = uniform_random(num_ports=6, num_coflows=120, flows_per_coflow=(1, 12),
                          size=(1.0, 9.0), integer_sizes=False, weights=(0.5, 3.0),
                          releases=(0.0, 80.0), capacities=(0.5, 2.0), seed=31)
    stats, cut = _glues_into_held(inst, 50, first_threshold=20.0, multiplier=4.0,
                                  num_queues=3)
    assert stats["windows"] > 10 and cut > 10


def streamed_run_is_held(policy, instances):
    """``run_schedule(..., keep_schedule=False)`` of ``policy`` (a windowed form) gives the held
    run's kind, value, parameters and report on every instance."""
    assert policy in POLICY_WINDOWS
    for inst in instances:
        held = run_schedule(inst, policy=policy)
        res = run_schedule(inst, policy=policy, keep_schedule=False)
        assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
        assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
        assert_same_report(res.report, held.report)


def test_run_schedule_streamed_gives_the_held_result():
    streamed_run_is_held("aalo", small_instances()[:4] + settling_instances())


def test_where_the_compiled_loop_does_not_apply():
    """Other flow-completion modes and instances over resources hand over the held schedule
    as one window; the Python engine and a window of 0 pieces are refused."""
    inst = uniform_random(num_ports=4, num_coflows=12, releases=(0, 10), seed=2)
    for params, target in (({"on_flow_completion": "backfill"}, inst),
                           ({}, big_switch_as_paths(inst))):
        held = aalo(target, **params)
        assert held.meta["engine"] == "python"
        stats, rep, parts = streamed(
            target, lambda cb, w: aalo_windows(target, cb, window=w, **params), 1)
        assert stats["windows"] == 1 and parts[0].num_pieces == held.num_pieces
        assert_same_report(rep, verify_schedule(target, held))
    with pytest.raises(InvalidParameterError, match="engine='python'"):
        aalo_windows(inst, lambda s, a, b: None, engine="python")
    with pytest.raises(InvalidParameterError, match="window"):
        aalo_windows(inst, lambda s, a, b: None, window=0)
    res = run_schedule(inst, policy="aalo", policy_params={"engine": "python"},
                       keep_schedule=False)
    assert res.schedule is not None and "streamed" not in res.extra


@pytest.mark.parametrize("alias,name", [("dclas", "aalo"), ("dlas", "decentralized-las")])
def test_an_alias_runs_windowed_like_its_name(alias, name):
    """``--policy dclas`` (an alias) takes the windowed path of ``aalo``: it held the whole
    schedule before (``has_windows`` looked the raw name up)."""
    inst = small_instances()[0]
    res = run_schedule(inst, policy=alias, keep_schedule=False)
    ref = run_schedule(inst, policy=name, keep_schedule=False)
    assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
    assert (res.kind, res.value) == (ref.kind, ref.value)
