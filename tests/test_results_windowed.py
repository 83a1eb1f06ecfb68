"""Large float schedules are verified window by window in ``schedule_result``; the verdict and
the objective are those of the one-shot verifier."""

from __future__ import annotations

import numpy as np

from coflowopt import results
from coflowopt.api import run_schedule
from coflowopt.generators import uniform_random
from coflowopt.results import schedule_result
from coflowopt.schedule import Schedule


def test_windowed_and_one_shot_agree(monkeypatch):
    inst = uniform_random(4, 10, seed=3, releases=(0, 5))
    one = run_schedule(inst, "bssi", "greedy")
    monkeypatch.setattr(results, "WINDOWED_VERIFY_PIECES", 3)
    win = run_schedule(inst, "bssi", "greedy")
    assert one.kind == win.kind == "feasible"
    assert win.value == one.value
    np.testing.assert_array_equal(win.report.coflow_completion, one.report.coflow_completion)
    # a broken schedule: every rate doubled breaks capacity and oversends, in both paths
    s = one.schedule
    bad = Schedule.from_pieces(s.flow, s.start, s.end, 2 * s.rate)
    r1 = schedule_result(inst, bad, algorithm="x")
    assert r1.kind is None and r1.status == "rejected"
    assert set(r1.report.violation_counts) >= {"capacity", "oversent"}
