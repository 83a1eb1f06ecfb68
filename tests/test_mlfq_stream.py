"""``mlfq`` and ``baraat`` handed over window by window (``mlfq_windows`` / ``baraat_windows``,
the compiled loop's sink mode; ``run_schedule(..., keep_schedule=False)`` and the CLI without
``--out``): the windows, glued at their cuts, are the held schedule piece for piece (settled
rates included, except the flows counted ``unsettled``), and the verifier gives both the same
verdict, completion times and value, to the last bit.

Windows of one to a few pieces make every event a window boundary, so that most pieces are
cut.  The long-horizon instances (tiny flows released over 3000 time units) are the ones
where settling is needed; seed 7 at one piece per window leaves a flow unsettled."""

import numpy as np
import pytest

from coflowopt import Instance
from coflowopt.api import POLICY_WINDOWS, run_schedule
from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import uniform_random
from coflowopt.policies import mlfq as M
from coflowopt.policies import _mlfq_kernel as MK
from coflowopt.schedule import Schedule
from coflowopt.simulate import settle_sizes
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import verify_schedule
from tests.test_madd_stream import (assert_same_report, glued, held_pieces, long_horizon,
                                    streamed)

KINDS = {"mlfq": (M.mlfq, M.mlfq_windows, {"thresholds": [2.0, 8.0]}),
         "mlfq-default": (M.mlfq, M.mlfq_windows, {}),
         "baraat": (M.baraat, M.baraat_windows, {}),
         "baraat-threshold": (M.baraat, M.baraat_windows, {"heavy_threshold": 3.0})}


def instances():
    rng = np.random.default_rng(23)
    out = [random_instance(rng, max_ports=4, max_coflows=10, max_flows=4, releases=True,
                           weights=True, heterogeneous=True) for _ in range(6)]
    out.append(uniform_random(num_ports=6, num_coflows=25, size=(1, 30), releases=(0, 20),
                              seed=5))
    # seed 7: a flow to settle with pieces in several windows at one piece per window
    out += [long_horizon(0, 12, 1e-4, 1.0, 4, 6), long_horizon(7, 12, 1e-4, 1.0, 4, 6)]
    bs = random_instance(np.random.default_rng(9), max_ports=8, max_coflows=10, max_flows=5,
                         releases=True, weights=True)
    out.append(on_topology(bs, fat_tree(4), seed=1))   # over resources
    return out


INSTANCES = instances()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_windows_glue_into_the_held_schedule(kind):
    held_func, windows, params = KINDS[kind]
    totals = {"settled": 0, "unsettled": 0, "cut": 0}
    assert not INSTANCES[-1].is_big_switch
    for inst in INSTANCES:
        held = held_func(inst, **params)
        want = verify_schedule(inst, held)
        assert want.ok
        hf, hs, he, hv = held_pieces(held)
        for window in (1, 3, 10**6):
            stats, rep, parts = streamed(
                inst, lambda cb, w: windows(inst, cb, window=w, **params), window)
            assert_same_report(rep, want)
            assert rep.weighted_completion_time == want.weighted_completion_time
            assert stats["events"] == held.meta["events"]
            assert stats["class_changes"] == held.meta["class_changes"]
            n = sum(p.num_pieces for p in parts)
            assert stats["pieces"] == n and stats["windows"] == len(parts)
            if window == 10**6:
                assert len(parts) == 1 and n == held.num_pieces
            else:
                totals["cut"] += n - held.num_pieces
            for k in ("settled", "unsettled"):
                totals[k] += stats[k]
            f, s, e, v = glued(parts)
            np.testing.assert_array_equal(f, hf)
            np.testing.assert_array_equal(s, hs)
            np.testing.assert_array_equal(e, he)
            # the rates are the held ones to the bit but for the flows left unsettled, which
            # the held run rescaled (by size / sent, off 1 by more than SETTLE_RTOL)
            differ = np.unique(f[v != hv])
            assert differ.size == stats["unsettled"]
            np.testing.assert_allclose(v, hv, rtol=1e-9, atol=0)
    # window boundaries split pieces, and both settling cases occur
    assert totals["cut"] > 0 and totals["settled"] > 0 and totals["unsettled"] > 0



PARAMS = [("mlfq", {}), ("mlfq", {"thresholds": [2.0, 8.0]}), ("baraat", {}),
          ("baraat", {"heavy_threshold": 3.0}),
          # where the compiled loop does not apply: the held schedule as one window
          ("mlfq", {"within": "fair", "thresholds": [2.0, 8.0]}),
          ("mlfq", {"aging": 5.0, "thresholds": [2.0, 8.0]}), ("baraat", {"within": "fifo"})]


@pytest.mark.parametrize("policy,params", PARAMS)
def test_run_schedule_streamed_gives_the_held_result(policy, params):
    assert policy in POLICY_WINDOWS
    for inst in INSTANCES[:3] + INSTANCES[-3:]:
        held = run_schedule(inst, policy=policy, policy_params=params)
        res = run_schedule(inst, policy=policy, policy_params=params, keep_schedule=False)
        assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
        assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
        assert_same_report(res.report, held.report)


def test_held_schedule_as_one_window_where_the_loop_does_not_apply():
    inst = INSTANCES[-1]
    got = []
    st = M.mlfq_windows(inst, lambda s, a, b: got.append(s), within="fair", window=1)
    held = M.mlfq(inst, within="fair")
    assert st["windows"] == 1 and got[0].num_pieces == held.num_pieces == st["pieces"]
    np.testing.assert_array_equal(got[0].rate, held.rate)


@pytest.mark.parametrize("windows", [M.mlfq_windows, M.baraat_windows])
def test_window_must_be_positive(windows):
    with pytest.raises(InvalidParameterError, match="window must be a positive number"):
        windows(INSTANCES[0], lambda s, a, b: None, window=0)


def test_held_sums_are_those_of_settle_sizes():
    """The kernel's per-flow sums (``_held_sum``, by slices of ``SETTLE_SLICE`` pieces) are
    ``settle_sizes``' to the bit: one flow of ``SETTLE_SLICE + 5`` pieces whose plain
    running sum differs from the sliced one, and a size off by 1e-9 so that it is settled;
    the settled rates are ``rate x size / sent`` with the sliced sum, not the running one."""
    n = MK.SETTLE_SLICE + 5
    rng = np.random.default_rng(1)
    start = np.cumsum(rng.uniform(0.5, 1.5, n))
    end = start + rng.uniform(0.1, 0.4, n)
    rate = rng.uniform(0.5, 2.0, n)
    amount = rate * (end - start)
    hblk, hpart, htot = np.full(1, -1), np.zeros(1), np.zeros(1)
    for i in range(n):
        MK._held_sum(0, amount[i], i, hblk, hpart, htot)
    sliced = htot[0] + hpart[0]
    running = 0.0
    for a in amount:
        running += a
    assert sliced != running          # the test can tell the two apart
    size = sliced * (1 + 1e-9)
    inst = Instance.from_arrays(
        ingress_capacity=np.full(1, 10.0), egress_capacity=np.full(1, 10.0),
        coflow_ids=["c"], flow_coflow=np.zeros(1, dtype=np.int64),
        flow_src=np.zeros(1, dtype=np.int64), flow_dst=np.zeros(1, dtype=np.int64),
        flow_size=np.array([size]), release=np.zeros(1))
    got = settle_sizes(inst, Schedule(np.zeros(n, dtype=np.int64), start, end, rate))
    np.testing.assert_array_equal(got.rate, rate * (size / sliced))


@pytest.mark.parametrize("policy", ["mlfq", "baraat"])
def test_streamed_to_an_npz_file(tmp_path, policy):
    """What the CLI does with ``--out FILE.npz``: the windows are written as they come; the
    file holds the cut pieces and verifies to the held value."""
    from coflowopt.formats.schedule_io import read_schedule_npz
    inst = INSTANCES[6]
    held = run_schedule(inst, policy=policy)
    res = run_schedule(inst, policy=policy, keep_schedule=False,
                       stream_to=str(tmp_path / "s.npz"))
    assert res.value == held.value and res.extra["streamed"]["file"].endswith("s.npz")
    sched = read_schedule_npz(tmp_path / "s.npz", inst)
    assert sched.num_pieces == res.extra["streamed"]["pieces"]
    assert verify_schedule(inst, sched).weighted_completion_time == held.value
