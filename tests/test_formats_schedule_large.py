"""Large schedule files: the streaming JSON writer and reader (coflowopt.formats.schedule_io)
on schedules far beyond what a whole-document json round trip can hold."""

from __future__ import annotations

import numpy as np
import pytest

from coflowopt import Instance, Schedule
from coflowopt.formats import read_instance, read_schedule, write_schedule
from coflowopt.formats.schedule_io import _SCANNER_MIN_BYTES
from coflowopt.verify import verify_schedule


def synthetic(pieces: int, flows: int = 20_000, seed: int = 7) -> tuple[Instance, Schedule]:
    """Pieces one after another (or after a gap) per flow, flows starting anywhere in
    [0, 10**6): about 2 segments per piece; rates from a small set (with non-dyadic values),
    so that pieces of equal rates touch."""
    rng = np.random.default_rng(seed)
    coflows = flows // 20
    inst = Instance.from_arrays(ingress_capacity=np.ones(50), egress_capacity=np.ones(50),
                                coflow_ids=[str(k) for k in range(coflows)],
                                flow_coflow=np.repeat(np.arange(coflows), 20),
                                flow_src=rng.integers(0, 50, flows),
                                flow_dst=rng.integers(0, 50, flows), flow_size=np.ones(flows))
    flow = np.sort(rng.integers(0, flows, pieces))
    # dyadic lengths and gaps: every sum below is exact, so pieces of a flow touch exactly
    length = rng.choice([0.5, 1.0, 0.25, 2.25, 1 / 1024], pieces) * rng.integers(1, 50, pieces)
    gap = np.where(rng.random(pieces) < 0.3, rng.integers(1, 80, pieces) / 8, 0.0)
    step = gap + length
    end = np.cumsum(step)
    first = np.r_[True, flow[1:] != flow[:-1]]
    before = np.maximum.accumulate(np.where(first, end - step, 0))  # the flow's first start
    start = end - step - before + gap + rng.integers(0, 1_000_000, flows)[flow]
    stop = start + length
    rate = rng.choice([1.0, 0.5, 2.0, 1 / 7, 3e-9], pieces)
    return inst, Schedule(flow, start, stop, rate)


def test_large_round_trip(tmp_path):
    """200,000 pieces: written in chunks, read back by the compiled scanner as the same
    (merged) pieces."""
    inst, s = synthetic(200_000)
    p = tmp_path / "big.json"
    write_schedule(s, inst, p)
    assert p.stat().st_size >= _SCANNER_MIN_BYTES  # the scanner's path
    back = read_schedule(p, inst)
    want = s.merged()
    assert back.num_pieces == want.num_pieces
    got = back.merged()
    for n in ("flow", "start", "end", "rate"):
        assert np.array_equal(getattr(got, n), getattr(want, n)), n
    a, b = verify_schedule(inst, s), verify_schedule(inst, back)
    assert a.weighted_completion_time == b.weighted_completion_time
    assert [v.kind for v in a.violations] == [v.kind for v in b.violations]


@pytest.mark.slow
@pytest.mark.shared
def test_fb_greedy_json_round_trip(tmp_path, fb_trace_path):
    """The Facebook trace's greedy schedule (1.8M pieces, 56M rate entries, ~1 GB of JSON)
    goes through JSON and back with the same verified objective."""
    from coflowopt.orderings import fifo
    from coflowopt.rates import greedy
    inst = read_instance(fb_trace_path)
    s = greedy(inst, fifo(inst))
    p = tmp_path / "fb.json"
    write_schedule(s, inst, p)
    back = read_schedule(p, inst)
    assert back.num_pieces == s.merged().num_pieces
    a, b = verify_schedule(inst, s), verify_schedule(inst, back)
    assert a.ok and b.ok
    assert a.weighted_completion_time == b.weighted_completion_time
