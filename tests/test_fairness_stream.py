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


def test_a_borrowing_window_gets_the_loops_own_buffers(monkeypatch):
    """A window callback that borrows (keeps nothing: the streamed verifier) is handed the
    compiled loop's buffers, settled in place, instead of four copies per window (39 GB of
    copies for hug-cooperative at 50,000 coflows); one that does not borrow gets copies.  On a
    second thread (``OVERLAP``) the loop writes two sets of buffers in turn, so window ``n``
    shares its memory with window ``n - 2`` and not with window ``n - 1``.  The windows'
    contents are the held schedule's either way (the test above).  (``ps-p``'s loop hands over
    fresh arrays, its pieces joined with the cut ones, which are no longer copied again
    either.)"""
    from coflowopt.fairness import simulation
    from coflowopt.generators import uniform_random
    inst = uniform_random(6, 40, seed=1, releases=(0, 8))
    for overlap, borrows in ((False, True), (True, True), (True, False)):
        monkeypatch.setattr(simulation, "OVERLAP", overlap)
        seen = []

        def cb(s, a, b):
            seen.append(s.rate)
        cb.borrows = borrows
        fairness_windows(inst, cb, method="hug-cooperative", window=5)
        assert len(seen) > 3
        shared = [np.shares_memory(seen[i], seen[j]) for i in range(len(seen))
                  for j in range(i)]
        if not borrows:
            assert not any(shared)
        elif not overlap:
            assert all(shared)
        else:
            assert all(np.shares_memory(seen[i], seen[i - 2]) for i in range(2, len(seen)))
            assert not any(np.shares_memory(seen[i], seen[i - 1]) for i in range(1, len(seen)))


def _borrowing_record(inst):
    """A borrowing window callback that verifies each window and keeps copies of its pieces
    (and the thread it ran on)."""
    import threading
    from coflowopt.verify import WindowedVerifier
    ver = WindowedVerifier(inst)
    got = []

    def cb(s, a, b):
        ver.add(a, b, s)
        got.append((s.flow.copy(), s.start.copy(), s.end.copy(), s.rate.copy(), a, b,
                    threading.get_ident()))
    cb.borrows = True
    return cb, ver, got


def test_windows_handed_on_on_a_second_thread_are_the_same(monkeypatch):
    """The loops' windows settled and verified on a second thread (``OVERLAP``, while the loop
    computes the next window) are the windows of the one thread, bit for bit, in the same
    order, with the same settling counts and the same verdict; and they did run on another
    thread."""
    import threading
    from coflowopt.fairness import simulation
    from test_madd_stream import assert_same_report
    for inst, method, weighted in cases():
        if method not in ("hug-cooperative", "ps-p"):
            continue
        for window in (1, 4, 10**6):
            out = []
            for overlap in (False, True):
                monkeypatch.setattr(simulation, "OVERLAP", overlap)
                cb, ver, got = _borrowing_record(inst)
                stats = fairness_windows(inst, cb, method=method, weighted=weighted,
                                         window=window)
                out.append((stats, ver.report(), got))
            (s0, r0, w0), (s1, r1, w1) = out
            assert len(w0) == len(w1) == s0["windows"] == s1["windows"]
            for x, y in zip(w0, w1):
                for u, v in zip(x[:6], y[:6]):
                    np.testing.assert_array_equal(u, v)
            for k in ("pieces", "settled", "unsettled", "events", "policy_calls"):
                assert s0[k] == s1[k], k
            np.testing.assert_array_equal(s0["coflow_completion"], s1["coflow_completion"])
            assert_same_report(r1, r0)
            assert r0.ok
            main = threading.get_ident()
            assert all(x[6] == main for x in w0) and all(y[6] != main for y in w1)


class _LazyPool:
    """An executor that runs a task only when its result is asked for: the worker as late as
    it can be, so that the loop has moved on (here: finished more flows) first."""

    def submit(self, fn, *args):
        class Later:
            def result(self):
                return fn(*args)
        return Later()

    def shutdown(self, wait=True):
        pass


def test_the_second_thread_settles_on_the_completions_at_the_windows_end():
    """A window settled after the loop has finished more flows (the worker runs late) is
    settled on the flow completion times as they were at the window's end: a flow still
    running then keeps its rate (it has pieces in the next window), as on one thread."""
    from coflowopt import Coflow, Instance
    from coflowopt.fairness.simulation import _WindowThread
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0), (1, 1, 1.0)])])
    fc = np.full(2, np.nan)
    got = []

    def cb(s, a, b):
        got.append(s.rate.copy())
    cb.borrows = True
    wt = _WindowThread(inst, fc, 4, cb, {})
    wt.pool.shutdown()
    wt.pool = _LazyPool()
    off = 1.0 - 1e-10                       # off its size by more than SETTLE_RTOL
    buf = wt.buf
    buf[0][0], buf[1][0], buf[2][0], buf[3][0] = 0, 0.0, 1.0, off
    buf = wt.drain(1, 1.0)                  # flow 0 runs on at the window's end
    fc[0] = 2.0                             # ... and finishes in the next window
    buf[0][0], buf[1][0], buf[2][0], buf[3][0] = 0, 1.0, 2.0, 0.5e-10   # still off
    buf = wt.drain(1, 2.0)                  # the first window is settled only now
    wt.finish()
    assert got[0].tolist() == [off]         # not rescaled: it was running at t = 1
    assert wt.settler.unsettled == 1 and wt.settler.settled == 0


def test_a_failing_window_callback_stops_the_run(monkeypatch):
    """The callback's exception on the second thread is raised by the run, and no later
    window reaches the callback."""
    from coflowopt.fairness import simulation
    from coflowopt.generators import uniform_random
    monkeypatch.setattr(simulation, "OVERLAP", True)
    inst = uniform_random(6, 40, seed=1, releases=(0, 8))
    for method in ("hug-cooperative", "ps-p"):
        calls = []

        def cb(s, a, b):
            calls.append(b)
            if len(calls) == 2:
                raise RuntimeError("window 2")
        cb.borrows = True
        with pytest.raises(RuntimeError, match="window 2"):
            fairness_windows(inst, cb, method=method, window=3)
        assert len(calls) == 2


def test_the_second_thread_only_where_a_second_core_is_idle(monkeypatch):
    """By default (``OVERLAP`` None) the windows go to a second thread only where the
    verifier's test says a second core is idle (on a busy host it gains no wall time and
    costs CPU)."""
    import threading
    from coflowopt import verify
    from coflowopt.fairness import simulation
    from coflowopt.generators import uniform_random
    monkeypatch.setattr(simulation, "OVERLAP", None)
    inst = uniform_random(6, 40, seed=1, releases=(0, 8))
    for idle in (False, True):
        monkeypatch.setattr(verify, "_second_core_idle", lambda: idle)
        cb, ver, got = _borrowing_record(inst)
        fairness_windows(inst, cb, method="hug-cooperative", window=5)
        assert ver.report().ok and len(got) > 2
        on_main = {x[6] == threading.get_ident() for x in got}
        assert on_main == {not idle}


def test_streamed_timings_with_the_second_thread_and_a_file(monkeypatch, tmp_path):
    """With the windows on a second thread the writer runs on the worker, so the loop's time in
    its sink is no longer settling + verifying + writing: the reported verify time is the
    verifier's own (never below 0, without the writing), and the result says it overlapped."""
    import time as _time

    from coflowopt import api
    from coflowopt.fairness import simulation
    from coflowopt.formats.schedule_io import NpzPieceWriter

    monkeypatch.setattr(simulation, "OVERLAP", True)
    monkeypatch.setitem(api.POLICY_WINDOWS, "hug-cooperative",
                        ("coflowopt.fairness.simulation", "fairness_windows",
                         {"method": "hug-cooperative", "window": 2}, True))
    slow_add = NpzPieceWriter.add
    pause = 0.02

    def add(self, s):              # a slow disk: the writing is most of the worker's time
        _time.sleep(pause)
        return slow_add(self, s)

    monkeypatch.setattr(NpzPieceWriter, "add", add)
    inst = small_instances()[0]
    held = run_schedule(inst, policy="hug-cooperative")
    res = run_schedule(inst, policy="hug-cooperative", keep_schedule=False,
                       stream_to=str(tmp_path / "s.npz"))
    info = res.extra["streamed"]
    assert info["overlapped"] is True and info["windows"] >= 3
    assert (res.kind, res.value) == (held.kind, held.value)
    t = res.timings
    assert t["write"] >= pause * info["windows"]
    assert 0 <= t["verify"] < pause * info["windows"]
    assert t["schedule"] >= 0
