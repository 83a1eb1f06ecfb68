"""The float verifier's one-call path for batches in runs of equal starts and of equal ends
(``_verify_kernel.runs_pass``: the event-driven kernels' windows, whose ends come in order, and
schedules such as coflowsim's backfilling, whose ends do not) against the general path
(``flow_pass`` + grouped changes + ``capacity_sweep``): the same report, violations and their
order included, on tampered schedules and on random ones, in end order and in no order,
one-shot and window by window; and the path is taken where it should be, declined elsewhere."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coflowopt import Coflow, Instance, Schedule
from coflowopt import _verify_kernel as vk
from coflowopt import verify as V
from coflowopt.policies.flow_level import fair, maxmin_windows
from coflowopt.rates._jit import load_kernels


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    load_kernels()  # the path is compiled only (kernels_loaded() then holds)


class _Taken:
    """Counts the batches runs_pass took and declined."""

    def __init__(self):
        self.took = self.declined = 0


def _path(mp, path):
    """``sorted``: every batch tries runs_pass, whatever its runs' length, on two threads
    (``sorted``) or in the one call (``sorted1``); ``default``: as the verifier decides;
    ``general``: none does."""
    if path in ("sorted", "sorted1"):
        mp.setattr(V, "_runs_pass_pays", lambda n: True)
        mp.setattr(V, "_runs_pass_max_runs", lambda n: 2 * n + 2)
        mp.setattr(V, "_THREADS", path == "sorted")
    elif path == "general":
        mp.setattr(V, "_runs_pass_pays", lambda n: False)


def _report(inst, s, path, windows=None, monkeypatch=None):
    taken = _Taken()
    real = V._runs_pass

    def spy(*a):
        out = real(*a)
        if out[0] == vk.DECLINED:
            taken.declined += 1
        else:
            taken.took += 1
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(V, "_runs_pass", spy)
        _path(mp, path)
        if windows is None:
            rep = V.verify_schedule(inst, s)
        else:
            rep = V.verify_in_windows(inst, s, pieces_per_window=windows)
    return rep, taken


def _same(a, b):
    assert a.ok == b.ok
    assert a.violation_counts == b.violation_counts
    assert [v.to_dict() for v in a.violations] == [v.to_dict() for v in b.violations]
    assert np.array_equal(a.coflow_completion, b.coflow_completion, equal_nan=True)
    assert np.array_equal(a.flow_completion, b.flow_completion, equal_nan=True)
    for k in ("weighted_completion_time", "weighted_cct", "overload_time", "dilation"):
        x, y = float(getattr(a, k)), float(getattr(b, k))
        assert x == y or (np.isnan(x) and np.isnan(y)), (k, x, y)


def both(inst, s, windows=None, taken=True):
    """The report of each path (asserted equal: runs_pass on two threads, in one call, and the
    general path); runs_pass must take every batch (``taken``) or decline every one."""
    new, t = _report(inst, s, "sorted", windows)
    one, t1 = _report(inst, s, "sorted1", windows)
    ref, _ = _report(inst, s, "general", windows)
    _same(new, ref)
    _same(one, ref)
    assert (t.took, t.declined) == (t1.took, t1.declined)
    if taken:
        assert t.took >= 1 and t.declined == 0, (t.took, t.declined)
    else:
        assert t.took == 0
    return new


def by_end(pieces):
    pieces = sorted(pieces, key=lambda p: p[2])  # stable: ends in order
    f, s, e, r = zip(*pieces)
    return Schedule.from_pieces(list(f), list(s), list(e), list(r))


def two_ports(sizes, cap=1.0, releases=None):
    """One coflow per size, every flow from ingress 0 to egress 0 (capacity ``cap``)."""
    rel = releases or [0.0] * len(sizes)
    return Instance.from_coflows([Coflow(f"c{i}", [(0, 0, z)], release=r)
                                  for i, (z, r) in enumerate(zip(sizes, rel))],
                                 ingress_capacity=[cap], egress_capacity=[cap])


# ------------------------------------------------------------------------- tampered schedules
@pytest.mark.parametrize("windows", [None, 1, 3])
def test_rate_raised_a_little_over_a_long_interval(windows):
    # a port at capacity for 1e3, then the rate 1 + 1e-8: 1e-5 of overload > 1e-9 x 1e3
    base = [(0, 0.0, 500.0, 1.0), (1, 500.0, 1000.0, 1.0)]
    inst = two_ports([500.0, 500.0])
    assert both(inst, by_end(base), windows).ok
    bad = [(0, 0.0, 500.0, 1.0 + 1e-8), (1, 500.0, 1000.0, 1.0 + 1e-8)]
    sizes = [r * (e - s) for _, s, e, r in bad]       # exactly what is sent: capacity only
    rep = both(two_ports(sizes), by_end(bad), windows)
    assert not rep.ok and set(rep.violation_counts) == {"capacity"}


@pytest.mark.parametrize("windows", [None, 1])
def test_huge_rate_over_a_nanosecond(windows):
    pieces = [(0, 0.0, 10.0, 1.0), (1, 5.0, 5.0 + 1e-9, 1e9)]
    rep = both(two_ports([10.0, 1.0]), by_end(pieces), windows)
    assert not rep.ok and "capacity" in rep.violation_counts


@pytest.mark.parametrize("windows", [None, 1])
def test_overlapping_pieces_of_one_flow(windows):
    one_ulp = np.nextafter(1.0, 2.0)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])], ingress_capacity=[2.0],
                                 egress_capacity=[2.0])
    for pieces in ([(0, 0.0, one_ulp, 1.0), (0, 1.0, 2.0, 1.0)],
                   [(0, 0.0, 2.0, 0.5), (0, 0.5, 2.0, 0.5)]):   # inside, ends equal
        rep = both(inst, by_end(pieces), windows)
        assert rep.violation_counts.get("overlap", 0) >= 1


def test_capacity_excess_at_a_window_boundary():
    # flow 0 fills the port on [0, 2); flow 1 starts exactly at 1, a window cut
    pieces = [(0, 0.0, 1.0, 1.0), (0, 1.0, 2.0, 1.0), (1, 1.0, 1.0 + 1e-3, 1.0)]
    inst = two_ports([2.0, 1e-3])
    for windows in (None, 1, 2):
        rep = both(inst, by_end(pieces), windows)
        assert not rep.ok and set(rep.violation_counts) == {"capacity"}
        assert {v.interval[0] for v in rep.violations} == {1.0}
    # the same through WindowedVerifier, cut at 1 by hand, on each path
    reps = []
    for path in ("sorted", "sorted1", "general"):
        with pytest.MonkeyPatch.context() as mp:
            _path(mp, path)
            v = V.WindowedVerifier(inst)
            v.add(0.0, 1.0, by_end(pieces[:1]))
            v.add(1.0, 2.0, by_end(pieces[1:]))
            reps.append(v.report())
    _same(reps[0], reps[2])
    _same(reps[1], reps[2])
    assert not reps[0].ok and set(reps[0].violation_counts) == {"capacity"}


@pytest.mark.parametrize("windows", [None, 1])
def test_piece_before_release(windows):
    inst = two_ports([1.0, 1.0], releases=[0.0, 2.0])
    pieces = [(0, 0.0, 1.0, 1.0), (1, 1.5, 2.5, 1.0)]
    rep = both(inst, by_end(pieces), windows)
    assert rep.violation_counts == {"before_release": 1}
    assert rep.violations[0].interval == (1.5, 2.0)


@pytest.mark.parametrize("windows", [None, 1])
def test_flow_short_by_more_than_tolerance(windows):
    inst = two_ports([1.0, 1.0])
    pieces = [(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, 1.0 - 1e-8)]
    rep = both(inst, by_end(pieces), windows)
    assert rep.violation_counts == {"undersent": 1}
    # within tolerance: accepted by both
    ok = both(inst, by_end([(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, 1.0 - 1e-10)]), windows)
    assert ok.ok


def test_declined_batches_go_the_general_way():
    # a negative rate, a malformed piece: the path declines (nothing updated) and the general
    # path gives the report; ends out of order are taken
    inst = two_ports([1.0, 1.0])
    for pieces, taken in (([(0, 0.0, 1.0, 1.0), (1, 0.0, 0.5, 2.0)], True),
                          ([(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, -1.0)], False),
                          ([(0, 0.0, 1.0, 1.0), (1, 2.0, 2.0, 1.0)], False),
                          ([(0, 0.0, 1.0, 1.0), (5, 1.0, 2.0, 1.0)], False)):
        f, s, e, r = zip(*pieces)
        both(inst, Schedule.from_pieces(list(f), list(s), list(e), list(r)), taken=taken)


def test_short_runs_are_declined_by_default():
    # the verifier's own choice: runs of equal times shorter than _RUN_LENGTH on average go
    # the general way, longer ones the one-call way; the report is the same
    n = 4 * V._RUN_LENGTH * 64
    inst = Instance.from_coflows([Coflow(f"c{i}", [(i % 4, (i // 4) % 4, 1.0)])
                                  for i in range(n)],
                                 ingress_capacity=[n] * 4, egress_capacity=[n] * 4)
    f = np.arange(n)
    r = np.ones(n)
    for run, taken in ((1, False), (V._RUN_LENGTH // 4, False), (V._RUN_LENGTH, True),
                       (4 * V._RUN_LENGTH, True)):
        s = np.repeat(np.arange(n // run, dtype=float), run)[::-1].copy()   # runs, descending
        sched = Schedule.from_pieces(f, s, s + 1.0, r)
        got, t = _report(inst, sched, "default")
        ref, _ = _report(inst, sched, "general")
        _same(got, ref)
        assert got.ok
        assert (t.took, t.declined) == ((1, 0) if taken else (0, 1)), (run, t.took)


def test_first_pass_edges():
    # the read-only first pass (one loop, the batch judged after it; it judged 2048 pieces at
    # a time before): runs of equal starts across those old block edges are counted once, a
    # bad piece anywhere declines the batch, the first piece included, and ends out of order
    # exactly at an edge do not
    B = 2048
    J = 5 * B // 6 + 1                       # 3 J pieces: two edges, runs of 3 across them
    n = 3 * J
    inst = Instance.from_coflows([Coflow(f"c{i}", [(0, 0, 1 / 3)]) for i in range(n)])
    f = np.arange(n)
    s = np.repeat(np.arange(J, dtype=float), 3)
    e = s + 1.0
    r = np.full(n, 1 / 3)
    assert B % 3 and n > 2 * B + 8
    assert both(inst, Schedule.from_pieces(f, s, e, r)).ok

    def tampered(i, **col):
        c = {"f": f.copy(), "s": s.copy(), "e": e.copy(), "r": r.copy()}
        for k, v in col.items():
            c[k][i] = v
        return Schedule.from_pieces(c["f"], c["s"], c["e"], c["r"])

    end_b = e[B - 1] - 0.5                    # piece B ends before piece B - 1
    assert not both(inst, tampered(B, e=end_b, s=end_b - 0.25)).ok
    for sched in (tampered(2 * B + 1, r=np.nan), tampered(B + 7, r=-1 / 3),
                  tampered(n - 1, f=n), tampered(2 * B, s=np.inf), tampered(0, r=-1 / 3),
                  tampered(0, f=-1), tampered(0, e=s[0])):
        assert not both(inst, sched, taken=False).ok


# ------------------------------------------------- pieces in runs, ends in no order (backfilling)
def _backfill_like(seed, ports=4, events=12, per_event=30):
    """Pieces as coflowsim's backfilling writes them: at each event, every active flow a piece
    from the event's time to its own end (ends in no order), the flows of a pair together;
    rates filling the ports exactly.  Returns (instance, flows, starts, ends, rates)."""
    rng = np.random.default_rng(seed)
    flows, st_, en_, rt_ = [], [], [], []
    coflows = []
    t = 0.0
    for ev in range(events):
        t_next = t + float(rng.integers(1, 5))
        # per_event flows over the ports, each pair's flows splitting its 1 / ports share
        pairs = [(int(rng.integers(ports)), int(rng.integers(ports))) for _ in range(per_event)]
        for q, (i, j) in enumerate(pairs):
            end = t_next if rng.random() < 0.5 else t + float(rng.integers(1, 4)) / 4 * (t_next - t)
            rate = 1.0 / (2 * per_event)
            fid = len(coflows)
            coflows.append(Coflow(f"c{fid}", [(i, j, rate * (end - t))]))
            flows.append(fid)
            st_.append(t)
            en_.append(end)
            rt_.append(rate)
        t = t_next
    inst = Instance.from_coflows(coflows, ingress_capacity=[1.0] * ports,
                                 egress_capacity=[1.0] * ports)
    return inst, np.array(flows), np.array(st_), np.array(en_), np.array(rt_)


def test_backfill_like_schedule_taken_and_agrees():
    inst, f, s, e, r = _backfill_like(0)
    assert np.any(np.diff(e) < 0)            # ends in no order
    for windows in (None, 1, 7, 50):
        assert both(inst, Schedule.from_pieces(f, s, e, r), windows).ok


@pytest.mark.parametrize("windows", [None, 5])
def test_backfill_like_tampered(windows):
    inst, f, s, e, r = _backfill_like(1)
    n = f.size
    j = n // 2

    def sched(f=f, s=s, e=e, r=r):
        return Schedule.from_pieces(f, s, e, r)

    # a rate raised by 1e-6 on a long piece (its flow sends more than its size), and by 1
    # (its ports, at most half full, over capacity)
    r2 = r.copy()
    k = int(np.argmax(e - s))
    r2[k] *= 1 + 1e-6
    rep = both(inst, sched(r=r2), windows)
    assert not rep.ok and "oversent" in rep.violation_counts
    r2[k] += 1.0
    rep = both(inst, sched(r=r2), windows)
    assert "capacity" in rep.violation_counts
    # a piece of a flow again, overlapping itself, at the end of the batch
    f3, s3, e3, r3 = (np.append(a, a[j]) for a in (f, s, e, r))
    rep = both(inst, sched(f3, s3, e3, r3), windows)
    assert rep.violation_counts.get("overlap", 0) >= 1
    # a flow short by more than the tolerance
    r4 = r.copy()
    r4[j] *= 1 - 1e-8
    rep = both(inst, sched(r=r4), windows)
    assert rep.violation_counts == {"undersent": 1}
    # data hidden in a very short interval: a second flow of a full pair at rate 1e9 for
    # 1e-9 in the middle of an event (a run of its own, ends out of order)
    mid = s[j] + (e[j] - s[j]) / 2
    extra = Coflow("x", [(int(inst.flow_src[f[j]]), int(inst.flow_dst[f[j]]), 1.0)])
    inst5 = Instance.from_coflows(
        [Coflow(str(c), [(int(inst.flow_src[c]), int(inst.flow_dst[c]),
                          float(inst.flow_size[c]))]) for c in range(inst.num_flows)] + [extra],
        ingress_capacity=[1.0] * 4, egress_capacity=[1.0] * 4)
    f5 = np.insert(f, j, inst.num_flows)
    s5 = np.insert(s, j, mid)
    e5 = np.insert(e, j, mid + 1e-9)
    r5 = np.insert(r, j, 1e9)
    rep = both(inst5, sched(f5, s5, e5, r5), windows)
    assert not rep.ok and "capacity" in rep.violation_counts


# --------------------------------------------------------------------------- real schedules
def _random_instance(seed, m=6, K=40):
    rng = np.random.default_rng(seed)
    cof = []
    for k in range(K):
        flows = [(int(rng.integers(m)), int(rng.integers(m)), float(rng.uniform(0.1, 3.0)))
                 for _ in range(int(rng.integers(1, 5)))]
        cof.append(Coflow(f"c{k}", flows, release=float(rng.choice([0.0, rng.uniform(0, 5)])),
                          weight=float(rng.uniform(0.5, 2))))
    return Instance.from_coflows(cof, ingress_capacity=rng.uniform(0.5, 2, m).tolist(),
                                 egress_capacity=rng.uniform(0.5, 2, m).tolist())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fair_windows_verified_alike(seed):
    # the kernel's windows (ends in order) through WindowedVerifier on each path
    inst = _random_instance(seed)
    reps = []
    for path in ("sorted", "sorted1", "general"):
        with pytest.MonkeyPatch.context() as mp:
            _path(mp, path)
            v = V.WindowedVerifier(inst)
            maxmin_windows(inst, lambda s, a, b: v.add(a, b, s), window=7)
            reps.append(v.report())
    _same(reps[0], reps[2])
    _same(reps[1], reps[2])
    assert reps[0].ok
    held = by_end(list(zip(*(a.tolist() for a in (lambda s: (s.flow, s.start, s.end,
                                                               s.rate))(fair(inst))))))
    rep = both(inst, held)
    assert rep.ok and rep.weighted_completion_time == reps[0].weighted_completion_time
    # tampered: a piece's rate raised by 1e-6 over its length
    bad = Schedule(held.flow, held.start, held.end, held.rate.copy())
    j = int(np.argmax(held.end - held.start))
    bad.rate[j] *= 1 + 1e-6
    assert not both(inst, bad).ok


@st.composite
def sorted_schedules(draw):
    m = draw(st.integers(1, 3))
    F = draw(st.integers(1, 6))
    flows = [(draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1))) for _ in range(F)]
    scale = draw(st.sampled_from([1e-3, 1.0, 1e3]))
    n = draw(st.integers(1, 25))
    pieces = []
    for _ in range(n):
        f = draw(st.integers(0, F - 1))
        a = draw(st.integers(0, 8))
        b = a + draw(st.integers(1, 4))
        r = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.0 + 1e-7, 2.0, 1e3]))
        nudge = draw(st.sampled_from([0, 0, 0, 1, -1]))
        e = b * scale
        if nudge:
            e = float(np.nextafter(e, np.inf * nudge))
        pieces.append((f, a * scale, e, r))
    sent = [sum(r * (e - s) for g, s, e, r in pieces if g == f) for f in range(F)]
    sizes = [min(max(x * draw(st.sampled_from([1.0, 1.0, 1 + 1e-10, 1 - 1e-6])), 1e-9), 1e12)
             if x > 0 else 1.0 for x in sent]   # within the instance's limits
    rel = [draw(st.sampled_from([0.0, 0.0, 2 * scale])) for _ in range(F)]
    inst = Instance.from_coflows([Coflow(f"c{f}", [(i, j, z)], release=r)
                                  for f, ((i, j), z, r) in enumerate(zip(flows, sizes, rel))],
                                 ingress_capacity=[1.0] * m, egress_capacity=[1.0] * m)
    order = draw(st.sampled_from(["end", "start", "given"]))
    if order == "start":
        pieces = sorted(pieces, key=lambda p: p[1])
    elif order == "end":
        return inst, by_end(pieces)
    f, s, e, r = zip(*pieces)
    return inst, Schedule.from_pieces(list(f), list(s), list(e), list(r))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sorted_schedules(), st.sampled_from([None, 1, 4]))
def test_random_schedules_agree(case, windows):
    # in end order, in start order and as drawn (runs of equal times of any length)
    inst, s = case
    both(inst, s, windows)


# ----------------------------------------------------------------------------- two threads
def _big_batch():
    """A batch of more than ``_THREAD_PIECES`` pieces in runs of 8 equal times, every flow
    short (997 flows over 7 x 5 ports)."""
    n = V._THREAD_PIECES + 8
    f = np.arange(n) % 997
    inst = Instance.from_coflows([Coflow(f"c{k}", [(k % 7, k % 5, 1.0)]) for k in range(997)],
                                 ingress_capacity=[1.0] * 7, egress_capacity=[1.0] * 5)
    ev = np.arange(n, dtype=float) // 8
    return inst, Schedule(f, ev, ev + 1.0, np.full(n, 1.0 / 256))


def _few_instants_batch():
    """A batch of more than ``_THREAD_PIECES`` pieces in runs of 8 equal times over 16
    instants, one piece a flow, every flow short (7 x 5 ports)."""
    n = V._THREAD_PIECES + 8
    inst = Instance.from_coflows([Coflow("c", [(k % 7, k % 5, 1.0) for k in range(n)])],
                                 ingress_capacity=[1.0] * 7, egress_capacity=[1.0] * 5)
    ev = (np.arange(n, dtype=float) // 8) % 16
    return inst, Schedule(np.arange(n), ev, ev + 1.0, np.full(n, 1.0 / 1024))


def test_sweep_runs_on_a_second_thread_by_default(monkeypatch):
    # a batch of _THREAD_PIECES pieces or more, numba loaded, a second core idle: the flow
    # pass on the calling thread, the exact screen's first part on another, and
    # the report is the one call's and the general path's (every flow short; tampered: a run
    # of rates raised, two of them over one ingress); no idle core: the one call
    import threading
    monkeypatch.setattr(V, "_second_core_idle", lambda: True)
    inst, sched = _big_batch()
    n, f, ev = sched.num_pieces, sched.flow, sched.start
    threads = []

    def spy(name):
        real = getattr(vk, name)

        def call(*a):
            threads.append((name, threading.get_ident()))
            return real(*a)
        monkeypatch.setattr(vk, name, call)

    spy("runs_prep")
    spy("runs_judge")
    spy("runs_pass")
    # a run of 8 pieces at rate 0.75: two of them share an ingress (1.5 > 1)
    bad = Schedule(f, ev, ev + 1.0, np.where(np.arange(n) // 8 == n // 16, 0.75, 1.0 / 256))
    inst2, few = _few_instants_batch()
    here = threading.get_ident()
    few_bad = Schedule(few.flow, few.start, few.end, np.where(np.arange(n) // 8 == n // 16,
                                                              0.75, 1.0 / 1024))
    for i2, s, judged in ((inst, sched, "there"), (inst2, few, None), (inst2, few_bad, "here"),
                          (inst, bad, "there")):
        threads.clear()
        got = V.verify_schedule(i2, s)
        # the runs and the sweep on the other thread where the exact screen has no grid
        # (``sched``, ``bad``: more instants x ports than pieces), here after the screen
        # where it cannot prove every load within the limit (``few_bad``), nowhere else
        assert [(name, t == here) for name, t in threads] == (
            [("runs_prep", judged == "here"), ("runs_judge", judged == "here")] if judged
            else [])
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(V, "_THREADS", False)
            one = V.verify_schedule(i2, s)
        ref, _ = _report(i2, s, "general")
        _same(got, ref)
        _same(one, ref)
    assert set(got.violation_counts) == {"capacity", "undersent"}
    # below _THREAD_PIECES: the one call, on this thread
    threads.clear()
    V.verify_schedule(inst, Schedule(f[:4096], ev[:4096], ev[:4096] + 1.0,
                                     np.full(4096, 1.0 / 256)))
    assert threads == [("runs_pass", threading.get_ident())]
    # no idle core: the one call
    monkeypatch.setattr(V, "_second_core_idle", lambda: False)
    threads.clear()
    _same(V.verify_schedule(inst, bad), got)
    assert threads == [("runs_pass", threading.get_ident())]


def test_second_core_idle_reads_the_load(monkeypatch):
    import os
    monkeypatch.setattr(V, "_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert V._second_core_idle()
    monkeypatch.setattr(os, "getloadavg", lambda: (1.6, 9.0, 9.0))
    assert not V._second_core_idle()
    monkeypatch.setattr(V, "_cores", lambda: 1)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not V._second_core_idle()


def test_second_thread_after_fork(monkeypatch):
    # the worker thread is the process's own: a child forked after the parent started one
    # starts its own (the parent's thread does not exist in the child; handing it the sweep
    # would wait for ever)
    import os
    monkeypatch.setattr(V, "_THREADS", True)
    import signal
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    inst, sched = _big_batch()
    want = V.verify_schedule(inst, sched).to_dict()
    assert V._WORKER[0] == os.getpid()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: its report, or killed by the alarm
        try:
            os.close(r)
            signal.alarm(300)
            got = V.verify_schedule(inst, sched).to_dict()
            os.write(w, b"same" if got == want and V._WORKER[0] == os.getpid() else b"diff")
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        said = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and said == b"same", (status, said)
