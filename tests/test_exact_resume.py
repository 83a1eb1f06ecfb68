"""The branch and bound resumed after the anytime seed bounds (``RESUME_TAIL``, issue 15).

A search that the limit stops hands the rest of the seed bounds' share back to its queue: the
limit is made to strike after a given number of clock reads inside the first search (in the
middle of a node LP, a leaf's LP or between nodes), and the resumed search must still prove
the optimum of brute force (every event sequence's LP) or of an uninterrupted search, exactly
verified, with a certificate file the standalone checker confirms.  Without the resumption
(``RESUME_TAIL = 1``: no time left for it) the same stop leaves the answer ``feasible``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.certificate_files import optimum_certificate
from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact import branch_and_bound as bb
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.verify import verify_schedule

CHECKER = Path(__file__).resolve().parents[1] / "tools" / "check_certificate.py"
#: The resumption on its own: without the LNS and the sub-instance bound (defaults since
#: 2026-11-29), whose searches are ``_Search._search`` calls as well.
PLAIN = {"sub_max": 0, "lns": False}


def stop_first_search(mp: pytest.MonkeyPatch, stop: int) -> list[str]:
    """Make the first search see the limit after ``stop`` reads of its clock (later searches
    see the real clock); returns the list of the searches run (``"first"``, ``"resumed"``).
    The searches run with :data:`PLAIN` (no LNS, no SUB: their own searches go through
    ``_search`` too, and the first of them would be the one stopped)."""
    calls: list[str] = []
    real = bb._Search._search

    def search(self, heap):
        calls.append("resumed" if calls else "first")
        if calls[-1] == "resumed":
            return real(self, heap)
        reads = [0]
        clock = self.time_left

        def time_left():
            reads[0] += 1
            return clock() if reads[0] < stop else -1.0

        self.time_left = time_left
        try:
            return real(self, heap)
        finally:
            del self.time_left

    mp.setattr(bb._Search, "_search", search)
    return calls


@settings(max_examples=6, deadline=None)
@given(K=st.integers(4, 6), seed=st.integers(0, 2 ** 31), stop=st.integers(1, 40),
       rel=st.booleans())
def test_resumed_search_proves_the_brute_force_optimum(K, seed, stop, rel):
    inst = uniform_random(3, K, flows_per_coflow=(1, 3), size=(1, 6), weights=(1, 4),
                          releases=(0, 3) if rel else None, seed=seed)
    ref = enumerate_orders(inst)
    with pytest.MonkeyPatch.context() as mp:
        calls = stop_first_search(mp, stop)
        res = bnb(inst, time_limit=120, **PLAIN)
    assert res.kind == "optimal", res.message
    assert res.value == ref.value            # exact rationals, both exactly verified
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok and rep.weighted_completion_time == res.value
    assert calls[0] == "first"
    if len(calls) > 1:
        assert res.extra["search"]["resumed_seconds"] > 0


@pytest.mark.parametrize("stop", [3, 10, 25])
def test_stopped_then_resumed_equals_uninterrupted_and_certifies(stop, monkeypatch, tmp_path):
    inst = uniform_random(4, 11, seed=2)
    ref = bnb(inst, time_limit=300, seed_bounds=False, **PLAIN)
    assert ref.kind == "optimal"
    calls = stop_first_search(monkeypatch, stop)
    res = bnb(inst, time_limit=300, certificate_nodes=True, **PLAIN)
    assert calls == ["first", "resumed"], calls      # the limit struck, then it resumed
    assert res.kind == "optimal" and res.value == ref.value, res.message
    assert res.extra["search"]["resumed_seconds"] > 0
    path = tmp_path / "inst.json"
    write_instance_json(inst, path)
    cpath = tmp_path / "cert.json"
    cpath.write_text(json.dumps(optimum_certificate(inst, res)))
    out = subprocess.run([sys.executable, str(CHECKER), str(path), str(cpath)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_without_the_resumption_the_stop_leaves_it_open(monkeypatch):
    inst = uniform_random(4, 11, seed=2)
    monkeypatch.setattr(bb, "RESUME_TAIL", 1.0)      # nothing left for it: not resumed
    calls = stop_first_search(monkeypatch, 10)
    res = bnb(inst, time_limit=300, **PLAIN)
    assert calls == ["first"]
    assert res.kind == "feasible" and res.status == "time_limit"
    assert float(res.bound) <= float(res.value)
