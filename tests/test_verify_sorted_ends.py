"""The float verifier's one-call path for batches whose ends come in order
(``_verify_kernel.sorted_ends_pass``, the path of the event-driven kernels' windows) against the
general path (``flow_pass`` + grouped changes + ``capacity_sweep``): the same report, violations
and their order included, on tampered schedules and on random ones, one-shot and window by
window; and the path is taken (not declined) where the ends are in order."""

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
    """Counts the batches sorted_ends_pass took and declined."""

    def __init__(self):
        self.took = self.declined = 0


def _report(inst, s, path, windows=None, monkeypatch=None):
    taken = _Taken()
    real = vk.sorted_ends_pass

    def spy(*a):
        out = real(*a)
        if out[0] == vk.NOT_SORTED:
            taken.declined += 1
        else:
            taken.took += 1
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vk, "sorted_ends_pass", spy)
        mp.setattr(V, "_sorted_ends_pays", (lambda n: True) if path == "sorted" else
                   (lambda n: False))
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
    """The report of each path (asserted equal); the sorted path must take every batch
    (``taken``) or decline every one."""
    new, t = _report(inst, s, "sorted", windows)
    ref, _ = _report(inst, s, "general", windows)
    _same(new, ref)
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
    for path in ("sorted", "general"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(V, "_sorted_ends_pays", lambda n, p=path: p == "sorted")
            v = V.WindowedVerifier(inst)
            v.add(0.0, 1.0, by_end(pieces[:1]))
            v.add(1.0, 2.0, by_end(pieces[1:]))
            reps.append(v.report())
    _same(*reps)
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
    # ends out of order, a negative rate, a malformed piece: the path declines (nothing
    # updated) and the general path gives the report
    inst = two_ports([1.0, 1.0])
    for pieces in ([(0, 0.0, 1.0, 1.0), (1, 0.0, 0.5, 2.0)],
                   [(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, -1.0)],
                   [(0, 0.0, 1.0, 1.0), (1, 2.0, 2.0, 1.0)],
                   [(0, 0.0, 1.0, 1.0), (5, 1.0, 2.0, 1.0)]):
        f, s, e, r = zip(*pieces)
        both(inst, Schedule.from_pieces(list(f), list(s), list(e), list(r)), taken=False)


def test_first_pass_blocks():
    # the read-only first pass judges vk._BLOCK pieces at a time: runs of equal starts that
    # cross a block's edge are counted once, and a bad piece in a later block or ends out of
    # order exactly at an edge still decline the batch
    B = vk._BLOCK
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
    for sched in (tampered(B, e=end_b, s=end_b - 0.25), tampered(2 * B + 1, r=np.nan),
                  tampered(B + 7, r=-1 / 3), tampered(n - 1, f=n),
                  tampered(2 * B, s=np.inf)):
        assert not both(inst, sched, taken=False).ok


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
    for path in ("sorted", "general"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(V, "_sorted_ends_pays", lambda n, p=path: p == "sorted")
            v = V.WindowedVerifier(inst)
            maxmin_windows(inst, lambda s, a, b: v.add(a, b, s), window=7)
            reps.append(v.report())
    _same(*reps)
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
    return inst, by_end(pieces)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sorted_schedules(), st.sampled_from([None, 1, 4]))
def test_random_sorted_schedules_agree(case, windows):
    inst, s = case
    both(inst, s, windows)
