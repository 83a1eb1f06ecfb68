"""``creek`` handed over window by window (``creek_windows``: the compiled event loop's sink
mode, the generic simulator's for ``within="fifo"`` and aging; ``run_schedule(...,
keep_schedule=False)`` and the CLI without ``--out``) against the held schedule of
:func:`creek`: the windows, glued at their cuts, are the held pieces (rates
included, but for flows counted ``unsettled``), and the verifier gives both the same verdict,
completion times and value, to the last bit.  Also the two changes of issue 17 to the policy
itself: the attained service kept per unit is the bincount over every flow to the bit, and a
rate max-min leaves as it was (up to the policy's zero) keeps its piece."""

from __future__ import annotations

import numpy as np
import pytest

from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import creek as creek_instance, uniform_random
from coflowopt.policies import mlfq as M
from coflowopt.policies.mlfq import creek, creek_windows
from coflowopt.simulate import simulate
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import verify_schedule
from test_aalo_stream import streamed_run_is_held
from test_dlas_stream import glue_sweep
from test_madd_stream import settling_instances, small_instances

PARAMS = ({}, {"thresholds": [0.5, 2.0]}, {"thresholds": [1.0], "within": "fifo"},
          {"thresholds": [1.0, 3.0], "aging": 5.0},
          {"thresholds": [1.0, 3.0], "subcoflow_estimate": False})


def instances():
    bs = random_instance(np.random.default_rng(9), max_ports=8, max_coflows=10, max_flows=5,
                         releases=True, weights=True)
    return small_instances() + [on_topology(bs, fat_tree(4), seed=1),
                                creek_instance(num_coflows=6, fat_tree_k=4, releases=(0, 2),
                                               seed=7)]


def test_windows_glue_into_the_held_schedule():
    glue_sweep(creek, creek_windows, instances(), PARAMS)


def test_run_schedule_streamed_gives_the_held_result():
    streamed_run_is_held("creek", small_instances()[:3] + settling_instances())


def test_a_window_of_no_pieces_is_refused():
    with pytest.raises(InvalidParameterError, match="window"):
        creek_windows(small_instances()[0], lambda s, a, b: None, window=0)


# ----------------------------------------------- the attained service kept per unit (issue 17)
def _checked(cls):
    """``cls`` whose every ``_raw`` is held to the bincounts over every flow and every
    sub-coflow that it replaced (the code before issue 17), to the bit."""
    class Checked(cls):
        calls = 0

        def _raw(self, state):
            raw, att = super()._raw(state)
            want = np.bincount(self._unit, weights=state.sent, minlength=self._U)
            assert np.array_equal(att, want)
            if isinstance(self, M.CreekPolicy) and self.subcoflow_estimate:
                K, S = self._U, self._sub_size.size
                done = np.bincount(self._sid, weights=state.flow_done,
                                   minlength=S) == self._sub_size
                if done.any():
                    sub_bytes = np.bincount(self._sid, weights=state.sent, minlength=S)
                    d = np.bincount(self._sub_coflow[done], minlength=K).astype(float)
                    b = np.bincount(self._sub_coflow[done], weights=sub_bytes[done],
                                    minlength=K)
                    want = np.maximum(want, np.where(d > 0, self._nsub * b / np.maximum(d, 1.0),
                                                     0.0))
            assert np.array_equal(raw, want)
            Checked.calls += 1
            return raw, att
    return Checked


@pytest.mark.parametrize("cls, kwargs", [
    (M.CreekPolicy, {"thresholds": [1.0, 4.0]}),
    (M.CreekPolicy, {"thresholds": [1.0, 4.0], "aging": 3.0}),
    (M.CreekPolicy, {"thresholds": [1.0, 4.0], "subcoflow_estimate": False}),
    (M.DecentralizedLasPolicy, {"thresholds": [1.0, 4.0]}),
    (M.MlfqPolicy, {"thresholds": [1.0, 4.0], "within": "fair"})])
def test_attained_service_is_the_bincount_over_every_flow(cls, kwargs):
    rng = np.random.default_rng(4)
    insts = [random_instance(rng, max_ports=4, max_coflows=10, max_flows=5, releases=True)
             for _ in range(3)]
    insts += [uniform_random(num_ports=8, num_coflows=40, size=(1, 30), releases=(0, 20),
                             seed=3),
              creek_instance(num_coflows=8, fat_tree_k=4, releases=(0, 2), seed=7)]
    checked = _checked(cls)
    for inst in insts:
        assert verify_schedule(inst, simulate(inst, checked(**kwargs)).schedule).ok
    assert checked.calls > 100


# ------------------------------------------------ a rate left as it was keeps its piece (17)
def _noise_boundaries(inst, s):
    """Piece boundaries of ``s`` where a flow's rate changes by at most the policy's zero
    (``tol_rel = 1e-12`` times the smallest capacity on its path)."""
    tol = 1e-12 * np.minimum.reduceat(inst.capacity[inst.flow_resource],
                                      inst.flow_resource_ptr[:-1])
    o = np.lexsort((s.start, s.flow))
    f, st, en, r = s.flow[o], s.start[o], s.end[o], s.rate[o]
    same = (f[1:] == f[:-1]) & (en[:-1] == st[1:])
    return int((same & (np.abs(r[1:] - r[:-1]) <= tol[f[1:]])).sum())


@pytest.mark.parametrize("policy, cls", [(creek, M.CreekPolicy),
                                         (M.decentralized_las, M.DecentralizedLasPolicy)],
                         ids=["creek", "decentralized-las"])
@pytest.mark.parametrize("inst", [
    uniform_random(num_ports=8, num_coflows=60, size=(1, 30), releases=(0, 20), seed=3),
    creek_instance(num_coflows=12, fat_tree_k=4, releases=(0, 2), seed=7),
    uniform_random(num_ports=30, num_coflows=400, seed=0)],
    ids=["uniform-60", "creek-fat-tree", "uniform-400-at-0"])
def test_a_rate_left_as_it_was_keeps_its_piece(inst, policy, cls, monkeypatch):
    """``hold_rates`` (``creek``, ``decentralized-las``): the progressive filling's rounding
    closes no piece, and the schedule is the same up to rounding."""
    held = policy(inst)
    monkeypatch.setattr(cls, "hold_rates", False)
    fresh = policy(inst)
    # the instance has rates the progressive filling recomputes a few ulps off ...
    assert _noise_boundaries(inst, fresh) > 100
    # ... which no longer close a piece, and the schedule is the same up to rounding
    assert _noise_boundaries(inst, held) == 0
    assert held.num_pieces < fresh.num_pieces
    a, b = verify_schedule(inst, held), verify_schedule(inst, fresh)
    assert a.ok and b.ok
    np.testing.assert_allclose(a.coflow_completion, b.coflow_completion, rtol=1e-12, atol=0)
    assert held.meta["events"] == fresh.meta["events"]
    assert held.meta["final_level"] == fresh.meta["final_level"]
