"""The float verifier's alternative paths give one verdict (coflowopt/verify.py,
coflowopt/_verify_kernel.py): the rate changes grouped by hashing the times or by sorting the
pieces; the sweep's fast form for paths of two resources and its general form; its
division-free acceptance test and the bound's formula; the windowed verifiers and the one-shot
check; violations listed up to ``max_per_kind`` and counted past it."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from coflowopt import Coflow, Instance, Schedule
from coflowopt import _verify_kernel as vk
from coflowopt import verify as V
from coflowopt.rates import greedy
from coflowopt.rates._jit import load_kernels
from coflowopt.verify import WindowedVerifier, verify_in_windows, verify_schedule
from test_madd import random_instances

# pieces on a coarse grid of times (long runs of equal times, many ties), some with rate 0,
# some starting at -0.0 (which is the time 0.0)
piece_lists = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9), st.integers(1, 4),
                                 st.sampled_from([0.0, 0.1, 0.3, 1.0, 2.5, 1e-9]),
                                 st.booleans()), min_size=1, max_size=60)


def _arrays(pieces):
    fl = np.array([p[0] for p in pieces], dtype=np.int64)
    st_ = np.array([(-0.0 if p[4] else 0.0) if p[1] == 0 else p[1] * 0.1 for p in pieces])
    en = st_ + np.array([p[2] * 0.1 for p in pieces])
    rt = np.array([p[3] for p in pieces])
    return fl, st_, en, rt


def _grouped(fl, st_, en, rt, how):
    n = fl.size
    x, fx = np.empty(2 * n), np.empty(2 * n, dtype=np.int32)
    if how == "hash":
        times, ptr = vk.bucket_by_hash(st_, en, st_.view(np.int64), en.view(np.int64), rt, fl,
                                       x, fx)
    else:
        fn = vk.bucket_by_order if how == "order" else vk.bucket_by_order.py_func
        times, ptr = fn(st_, en, rt, fl, np.argsort(st_, kind="stable"),
                        np.argsort(en, kind="stable"), x, fx)
    return times, ptr, x[:ptr[-1]], fx[:ptr[-1]]


@settings(max_examples=80, deadline=None)
@given(piece_lists)
def test_hashed_and_sorted_grouping_are_the_same_changes_in_the_same_order(pieces):
    fl, st_, en, rt = _arrays(pieces)
    want = _grouped(fl, st_, en, rt, "order")
    for how in ("hash", "plain"):
        got = _grouped(fl, st_, en, rt, how)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    times, ptr, x, fx = want
    # the definition: at each time, the starts (in piece order), then the ends
    for k, t in enumerate(times):
        on = rt != 0
        starts = np.flatnonzero(on & (st_ == t))
        ends = np.flatnonzero(on & (en == t))
        np.testing.assert_array_equal(x[ptr[k]:ptr[k + 1]],
                                      np.concatenate([rt[starts], -rt[ends]]))
        np.testing.assert_array_equal(fx[ptr[k]:ptr[k + 1]],
                                      np.concatenate([fl[starts], fl[ends]]))
    assert np.all(np.diff(times) > 0) and ptr[-1] == 2 * np.count_nonzero(rt)


@settings(max_examples=60, deadline=None)
@given(piece_lists, st.sampled_from([-np.inf, 0.5, 1.0, 1.0 + 1e-9, 2.0]))
def test_sweep_forms_agree_and_the_fast_acceptance_skips_no_judgement(pieces, limit):
    # 6 flows, each over an (ingress, egress) pair of 2 + 3 resources, as a big switch's
    fl, st_, en, rt = _arrays(pieces)
    src, dst = np.array([0, 0, 1, 1, 0, 1]), np.array([0, 1, 2, 0, 2, 1])
    ptr = np.arange(0, 13, 2, dtype=np.int64)
    res = np.column_stack([src, 2 + dst]).ravel().astype(np.int64)
    cap = np.array([1.0, 2.0, 1.0, 0.3, 1.0])
    g = _grouped(fl, st_, en, rt, "order")
    outs = [vk.capacity_sweep(*g, ptr, res, pairs, cap, limit) for pairs in (True, False)]
    outs.append(vk.capacity_sweep.py_func(*g, ptr, res, True, cap, limit))
    for other in outs[1:]:
        for a, b in zip(outs[0], other):
            np.testing.assert_array_equal(a, b)
    # every load the formula judges above the limit is recorded, whatever the fast test says:
    # the records at `limit` are those of limit -inf (every load judged by the formula)
    # whose bound exceeds the limit, merged where consecutive ones continue each other
    r_all, t0_all, t1_all, l_all, u_all = vk.capacity_sweep(*g, ptr, res, False, cap, -np.inf)
    got = set(zip(*[a.tolist() for a in outs[0]]))
    if limit == -np.inf:
        assert got == set(zip(r_all.tolist(), t0_all.tolist(), t1_all.tolist(),
                              l_all.tolist(), u_all.tolist()))
    above = {(r, a) for r, a, u in zip(r_all.tolist(), t0_all.tolist(), u_all.tolist())
             if u > limit}
    assert {(r, a) for r, a, _, _, _ in got} == above


def test_fast_acceptance_at_the_limit_defers_to_the_formula():
    # a load of exactly 1 + 1e-9 capacity: the fast test cannot accept it (it keeps a margin
    # of 2^-40), the formula's bound puts it above 1 + 1e-9, so it is recorded
    fl = np.array([0], dtype=np.int64)
    g = _grouped(fl, np.array([0.0]), np.array([1.0]), np.array([1.0 + 1e-9]), "order")
    ptr, res = np.array([0, 1], dtype=np.int64), np.array([0], dtype=np.int64)
    r, t0, t1, load, upper = vk.capacity_sweep(*g, ptr, res, False, np.array([1.0]), 1 + 1e-9)
    assert r.tolist() == [0] and (t0[0], t1[0]) == (0.0, 1.0) and upper[0] > 1 + 1e-9
    r, *_ = vk.capacity_sweep(*g, ptr, res, False, np.array([1.0]), 1 + 2e-9)
    assert r.size == 0


def broken_schedule(inst, order, breakage, overlap_rate=0.5):
    """The greedy schedule of ``order`` with one defect: ``breakage`` names it ("none", "drop"
    a piece, "overload" a rate, "overlap" a piece of rate ``overlap_rate`` over the first,
    "early" start, "negative" rate, "malformed" zero-length piece); shared with
    tests/test_flow_level.py."""
    s = greedy(inst, order)
    fl, st_, en, rt = s.flow.copy(), s.start.copy(), s.end.copy(), s.rate.copy()
    if breakage == "drop" and fl.size > 1:
        fl, st_, en, rt = fl[1:], st_[1:], en[1:], rt[1:]
    elif breakage == "overload":
        rt[0] *= 3.0
    elif breakage == "overlap":
        fl, st_, en, rt = (np.append(fl, fl[0]), np.append(st_, st_[0]),
                           np.append(en, en[0]), np.append(rt, overlap_rate))
    elif breakage == "early":
        st_[0] -= 5.0
    elif breakage == "negative":
        rt[0] = -rt[0]
    elif breakage == "malformed":
        en[0] = st_[0]
    return Schedule(fl, st_, en, rt)


breakages = st.sampled_from(["none", "drop", "overload", "overlap", "early", "negative",
                             "malformed"])


@settings(max_examples=60, deadline=None)
@given(random_instances(), breakages)
def test_report_does_not_depend_on_how_the_changes_are_grouped(case, breakage):
    inst, order = case
    s = broken_schedule(inst, order, breakage)
    load_kernels()   # the hashed grouping runs compiled only
    reports = []
    with pytest.MonkeyPatch.context() as mp:
        for run_length in (0, 10 ** 9):   # 0: always hash the times; 1e9: always sort
            mp.setattr(V, "_HASH_RUN_LENGTH", run_length)
            reports.append(verify_schedule(inst, s).to_dict())
    assert reports[0] == reports[1]


@settings(max_examples=60, deadline=None)
@given(random_instances(), breakages, st.integers(1, 7))
def test_windows_and_one_shot_agree_on_kinds_and_objective(case, breakage, per_window):
    inst, order = case
    s = broken_schedule(inst, order, breakage)
    whole = verify_schedule(inst, s)
    windowed = verify_in_windows(inst, s, pieces_per_window=per_window)
    assert windowed.ok == whole.ok
    assert set(windowed.violation_counts) == set(whole.violation_counts)
    assert windowed.num_pieces == whole.num_pieces
    if whole.ok:
        np.testing.assert_array_equal(windowed.coflow_completion, whole.coflow_completion)
        assert windowed.weighted_completion_time == pytest.approx(
            whole.weighted_completion_time, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 12), st.integers(1, 6),
                          st.sampled_from([0, 1, 2, 3])), min_size=1, max_size=40),
       st.integers(1, 9))
def test_window_split_is_the_stable_sort_of_window_piece_pairs(pieces, step):
    # the counting sort of verify_in_windows against its definition (searchsorted, repeat,
    # stable argsort by window); kind 1-3: non-finite or empty pieces, left out of both
    st_ = np.array([p[0] * 0.5 for p in pieces])
    en = st_ + np.array([p[1] * 0.25 for p in pieces])
    for i, p in enumerate(pieces):
        if p[2] == 1:
            st_[i] = np.nan
        elif p[2] == 2:
            en[i] = np.inf
        elif p[2] == 3:
            en[i] = st_[i]
    ok = np.isfinite(st_) & np.isfinite(en) & (st_ < en)
    cuts = np.unique(np.concatenate([np.sort(st_[ok])[::step], [en[ok].max()]])) \
        if ok.any() else np.array([0.0, 0.0])
    if cuts.size < 2:
        cuts = np.array([cuts[0], cuts[0]])
    W = cuts.size - 1
    good = np.flatnonzero(ok)
    first = np.clip(np.searchsorted(cuts, st_[good], side="right") - 1, 0, W - 1)
    last = np.clip(np.searchsorted(cuts, en[good], side="left") - 1, first, W - 1)
    count = last - first + 1
    window = np.repeat(first, count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) -
                                                                         count, count)
    by = np.argsort(window, kind="stable")
    want_pieces = np.repeat(good, count)[by]
    want_bounds = np.searchsorted(window[by], np.arange(W + 1))
    counts = np.zeros(W, dtype=np.int64)
    assert vk.window_pieces(st_, en, cuts, counts, np.zeros(0, dtype=np.int64)) == \
        np.count_nonzero(~ok)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    out = np.full(bounds[-1], -1, dtype=np.int64)
    if out.size:
        vk.window_pieces(st_, en, cuts, counts, out)
    np.testing.assert_array_equal(bounds, want_bounds)
    np.testing.assert_array_equal(out, want_pieces)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 1.0, 3.0, 1e9]),
                          st.integers(1, 5)), min_size=0, max_size=30),
       st.integers(1, 9))
def test_order_statistics_of_the_starts_are_the_stable_sort(runs, step):
    # verify_in_windows' cuts: the values of the stable sort at every step-th place, read off
    # the sorted runs of equal values (signed zeros: the sort's own order of them)
    x = np.array([v for v, k in runs for _ in range(k)], dtype=float)
    ks = np.arange(0, x.size, step)
    got = vk.sorted_at(x, ks)
    want = np.sort(x, kind="stable")[ks]
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 12), st.integers(1, 6), st.integers(0, 5)),
                min_size=1, max_size=40),
       st.integers(1, 9), st.integers(0, 3))
def test_windowed_check_cuts_as_before(pieces, per_window, breakage):
    # verify_in_windows against its former cutting, written out here (a stable sort of the
    # starts, every per_window-th one a cut; each window's pieces gathered and clipped by
    # numpy): the same report, on intact and tampered schedules
    inst = Instance.from_coflows([Coflow(f"c{i}", [(i % 3, p[2] % 3, p[1] * 0.25)])
                                  for i, p in enumerate(pieces)],
                                 ingress_capacity=[1.0] * 3, egress_capacity=[1.0] * 3)
    f = np.arange(len(pieces))
    s = np.array([p[0] * 0.5 for p in pieces])
    e = s + np.array([p[1] * 0.25 for p in pieces])
    r = np.ones(len(pieces))
    if breakage == 1:
        r[0] *= 1 + 1e-6
    elif breakage == 2:
        e[-1] = s[-1]
    elif breakage == 3:
        r[len(r) // 2] = 1e9
    sched = Schedule(f, s, e, r)
    got = verify_in_windows(inst, sched, pieces_per_window=per_window)
    ok = np.isfinite(s) & np.isfinite(e) & (s < e)
    assume(ok.any())
    bad = np.flatnonzero(~ok)
    starts = np.sort(s[ok], kind="stable")
    lo, hi = float(starts[0]), float(e[ok].max())
    cuts = np.unique(np.concatenate([[lo], starts[np.arange(per_window, starts.size,
                                                             per_window)], [hi]]))
    if cuts.size < 2:
        cuts = np.array([lo, hi])
    W = cuts.size - 1
    v = WindowedVerifier(inst)
    for w in range(W):
        a, b = float(cuts[w]), float(cuts[w + 1])
        last = w == W - 1
        sel = np.flatnonzero(ok & (s < b if not last else True) & (e > a if w else True))
        if w == 0:
            sel = np.concatenate([bad, sel])
        ss = np.maximum(s[sel], a)
        ee = e[sel] if last else np.minimum(e[sel], b)
        if w == 0:  # malformed pieces go as they are
            ss[:bad.size] = s[bad]
            ee[:bad.size] = e[bad]
        v.add(a, max(b, hi) if last else b, Schedule(f[sel], ss, ee, r[sel]))
    want = v.report()
    want.num_pieces = len(pieces)
    assert got.to_dict() == want.to_dict()


def test_violations_past_max_per_kind_are_counted_not_listed():
    # 30 flows, none sent: 30 undersent; 7 pieces before their release; 5 negative rates;
    # 4 malformed pieces: listed up to max_per_kind, all counted, in float and exact mode
    inst = Instance.from_coflows([Coflow(f"c{k}", [(k % 3, k % 2, 1.0)], release=1.0)
                                  for k in range(30)])
    fl = np.concatenate([np.arange(7), np.arange(7, 12), [0, 1, 2, 3]])
    st_ = np.concatenate([np.zeros(7), np.full(5, 2.0), [np.nan, 3.0, 3.0, 3.0]])
    en = np.concatenate([np.full(7, 0.5), np.full(5, 3.0), [4.0, 2.0, 3.0, np.inf]])
    rt = np.concatenate([np.full(7, 0.1), np.full(5, -0.1), np.ones(4)])
    s = Schedule(fl, st_, en, rt)
    want = {"malformed": 4, "negative_rate": 5, "before_release": 7, "undersent": 30}
    for mode in ("float", "exact"):
        rep = verify_schedule(inst, s, mode=mode, max_per_kind=2)
        assert rep.violation_counts == want, mode
        for kind in want:
            assert sum(v.kind == kind for v in rep.violations) == 2
    rep = verify_schedule(inst, s, max_per_kind=0)
    assert rep.violation_counts == want and rep.violations == []


def test_windowed_verifier_counts_past_max_per_kind():
    inst = Instance.from_coflows([Coflow(f"c{k}", [(0, 0, 1.0)]) for k in range(25)])
    v = WindowedVerifier(inst, max_per_kind=3)
    v.add(0.0, 1.0, Schedule.from_pieces([0], [0.0], [1.0], [1.0]))
    rep = v.report()
    assert rep.violation_counts == {"undersent": 24} and len(rep.violations) == 3
