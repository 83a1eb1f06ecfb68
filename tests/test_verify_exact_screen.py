"""The float verifier's exact screen (``_verify_kernel.exact_screen``; the argument:
``proofs/float-verifier-soundness.md``, "The exact screen"): a big-switch batch it accepts has
every exact load within ``limit`` times its capacity (checked against loads summed in exact
rationals, on schedules straddling the limit at many scales, and on the adversarial sums of
the proof's second case: huge rates, many pieces at one instant, cancelling starts and ends);
it accepts loads safely within the limit; it answers False where it has no exact grid."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coflowopt import _verify_kernel as vk
from coflowopt.rates._jit import load_kernels


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    load_kernels()


LIMIT = 1 + 1e-9


def screen(pieces, res, cap, limit=LIMIT, rows=None):
    """exact_screen on ``pieces`` ((flow, start, end, rate), in the given order) with each
    flow's resources ``res`` (F x 2) and capacities ``cap``; ``rows``: the scratch's rows
    (default: enough for any grid)."""
    fl, s, e, r = (np.array(x, dtype=t) for x, t in zip(zip(*pieces), (np.int64, float,
                                                                       float, float)))
    n = fl.shape[0]
    nrs, nre = vk.runs_check(fl, s, e, r, res.shape[0], -np.inf, np.inf, 2 * n + 2)
    assert nrs >= 0
    cap = np.asarray(cap, dtype=float)
    pr = np.empty((rows if rows is not None else max(n, (2 * n + 1) * cap.shape[0]), 2),
                  dtype=np.int32)
    return bool(vk.exact_screen(fl, s, e, r, res, cap, limit, pr, nrs + nre))


def exact_peak(pieces, res, cap):
    """max over resources and intervals of (exact load) / capacity, in rationals."""
    worst = Fraction(0)
    times = sorted({p[1] for p in pieces} | {p[2] for p in pieces})
    for t in times:
        load = {}
        for f, s, e, r in pieces:
            if s <= t < e:
                for k in res[f]:
                    load[int(k)] = load.get(int(k), Fraction(0)) + Fraction(r)
        for k, x in load.items():
            worst = max(worst, x / Fraction(float(cap[k])))
    return worst


def ports(n_in, n_out, flows):
    """``res`` of flows given as (ingress, egress) pairs, egress numbered after the ingress."""
    return np.array([(i, n_in + j) for i, j in flows], dtype=np.int32).reshape(-1, 2)


# -------------------------------------------------------------------------- soundness
_SCALES = [1.0, 1e-3, 3e-7, 7e10, 2.0 ** 49.5, 1e-200]
_NUDGE = [0.0, 1e-9, -1e-9, 2e-9, 1.5e-9, 1e-12, -1e-12, 1e-7, 2 ** -52, -(2 ** -52)]


@st.composite
def batches(draw):
    scale = draw(st.sampled_from(_SCALES))
    caps = [scale * draw(st.sampled_from([1.0, 0.5, 3.0, 1 / 3])) for _ in range(4)]
    n_flows = draw(st.integers(1, 6))
    flows = [(draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in range(n_flows)]
    res = ports(2, 2, flows)
    tscale = draw(st.sampled_from([1.0, 1e-9, 1e6]))
    pieces = []
    for _ in range(draw(st.integers(1, 24))):
        f = draw(st.integers(0, n_flows - 1))
        a = draw(st.integers(0, 6))
        b = draw(st.integers(a + 1, 8))
        k = draw(st.sampled_from([1, 2, 3, 7, 1000]))
        cap_f = min(caps[res[f, 0]], caps[res[f, 1]])
        rate = cap_f / k * (1 + draw(st.sampled_from(_NUDGE)))
        rate = draw(st.sampled_from([rate, rate, rate, 0.0, 1e300, 5e-324, cap_f * 1e9]))
        pieces.append((f, a * tscale, b * tscale, rate))
    order = draw(st.sampled_from(["end", "start", "given"]))
    if order != "given":
        pieces.sort(key=lambda p: p[2] if order == "end" else p[1])
    return pieces, res, np.array(caps)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(batches())
def test_accepted_batches_are_within_the_limit(b):
    pieces, res, cap = b
    peak = exact_peak(pieces, res, cap)
    ok = screen(pieces, res, cap)
    if ok:
        assert peak <= Fraction(LIMIT), float(peak)
    if peak <= Fraction(1) and max(cap) < 2.0 ** 50 and min(cap) >= 2.0 ** -900:
        # within the limit by far more than the grid's rounding (at most 24 units of
        # 2^-49 capacity each): accepted
        assert ok, float(peak)


def test_just_over_the_limit_is_not_accepted():
    # one port at 1 + 3e-9 of its capacity (above 1 + 1e-9), as the sum of 1000 pieces
    # whose rates are not on the grid
    res = ports(1, 1, [(0, 0)] * 1000)
    cap = np.array([1.0, 1.0])
    r = (1 + 3e-9) / 1000
    assert not screen([(f, 0.0, 1.0, r) for f in range(1000)], res, cap)
    assert screen([(f, 0.0, 1.0, 1.0 / 1000) for f in range(1000)], res, cap)
    assert screen([(f, 0.0, 1.0, 1.0 / 3000) for f in range(1000)], res, cap)


@pytest.mark.parametrize("cap", [1.0, 1e-250, 3e14])
def test_huge_sums_at_one_instant_are_not_accepted(cap):
    # the proof's second case: the starts at one instant sum past 2^53 units while the ends
    # there cancel most of them (the float sums of the cell round); and rates that overflow
    # the grid (clamped at 2^62 units)
    res = ports(1, 1, [(0, 0)] * 40)
    caps = np.array([cap, cap])
    held = [(f, 0.0, 1.0, cap / 20) for f in range(20)]                  # load = cap
    spike = [(20 + f, 1.0, 2.0, cap) for f in range(20)]                 # 20 x cap at 1
    assert screen(held, res, caps)
    assert not screen(held + spike, res, caps)
    assert not screen(held + [(20, 1.0, 2.0, cap * 1e300 if cap < 1e10 else 1e308)], res,
                      caps)
    assert not screen(held + [(20, 0.5, 0.5 + 1e-9, cap * 1e9)], res, caps)
    # ends and starts cancelling at one instant, a small excess left
    big = [(f, 0.0, 1.0, cap * 2 ** 20) for f in range(10)]
    after = [(10 + f, 1.0, 2.0, cap * 2 ** 20) for f in range(10)] + [(39, 1.0, 2.0, cap)]
    assert not screen(big + after, res, caps)
    assert not screen(sorted(big + after, key=lambda p: p[2]), res, caps)


def test_no_grid_no_answer():
    res = ports(1, 1, [(0, 0)])
    fine = [(0, 0.0, 1.0, 0.5)]
    assert screen(fine, res, np.array([1.0, 1.0]))
    # a capacity too large or too small for an exact grid, a threshold of 2^51 units or more
    assert not screen(fine, res, np.array([2.0 ** 50, 1.0]))
    assert not screen(fine, res, np.array([1.0, 2.0 ** -901]))
    assert not screen(fine, res, np.array([1.0, 1.0]), limit=5.0)
    # a grid (2 instants x 2 resources) larger than the scratch
    assert not screen(fine, res, np.array([1.0, 1.0]), rows=3)
    assert screen(fine, res, np.array([1.0, 1.0]), rows=4)


def _rows_by_time(grid, vals):
    return {float(t): grid[g].copy() for g, t in enumerate(vals)}


def test_parts_add_up_to_the_whole():
    # the two-thread path adds the pieces in two parts into two grids, each with its own rows
    # (the distinct times of its part): the same cells and verdicts as the whole
    rng = np.random.default_rng(0)
    n = 5000
    fl = rng.integers(0, 50, n).astype(np.int64)
    res = ports(4, 4, [(int(rng.integers(4)), int(rng.integers(4))) for _ in range(50)])
    s = np.sort(rng.integers(0, 40, n)).astype(float)
    e = s + rng.integers(1, 5, n)
    cap = np.ones(8) * 2.5
    for scale, want in ((1.0 / 400, True), (1.0 / 2, False)):
        r = rng.random(n) * scale
        sc, thr, ok = vk.screen_units(cap, LIMIT)
        assert ok
        whole = vk.screen_grid(np.empty(64 * 8), 8)
        G, vals = vk.screen_add(fl, s, e, r, res, sc, 0, n, whole, 2 * n)
        assert sorted(vals) == sorted(set(s) | set(e))
        cells = _rows_by_time(whole, vals)
        verdicts = {vk.screen_loads(whole, vals, whole, vals[:0], thr)}
        for m in (1, 777, n // 2, n - 1):
            a = vk.screen_grid(np.empty(64 * 8), 8)
            b = vk.screen_grid(np.empty(64 * 8), 8)
            _, va = vk.screen_add(fl, s, e, r, res, sc, 0, m, a, 2 * n)
            _, vb = vk.screen_add(fl, s, e, r, res, sc, m, n, b, 2 * n)
            ca, cb = _rows_by_time(a, va), _rows_by_time(b, vb)
            assert set(ca) | set(cb) == set(cells)
            for t, row in cells.items():
                assert np.array_equal(ca.get(t, 0) + cb.get(t, 0), row)
            verdicts.add(vk.screen_loads(a, va, b, vb, thr))
            verdicts.add(vk.screen_loads(b, vb, a, va, thr))
        assert verdicts == {want}


def test_cells_are_the_units_of_each_side():
    # screen_add sums in registers the units of consecutive pieces with one start, one end and
    # the same resource on one side (ingress or egress), each side on its own: every cell must
    # be the exact sum of its pieces' units, computed here piece by piece, on batches where one
    # side stays while the other changes (a mapper's flows to many reducers), both change, or
    # the times change under an unchanged pair
    rng = np.random.default_rng(1)
    caps = np.array([2.5, 1.0, 4.0, 0.75, 2.5, 3.0, 1.0, 0.5])
    for layout in ("ingress", "egress", "both", "times"):
        n = 3000
        flows = [(i, j) for i in range(4) for j in range(4)]
        res = ports(4, 4, flows)
        if layout == "ingress":       # runs of one ingress, the egress changing within them
            fl = np.array([4 * (k // 40 % 4) + int(rng.integers(4)) for k in range(n)])
        elif layout == "egress":      # runs of one egress, the ingress changing within them
            fl = np.array([4 * int(rng.integers(4)) + k // 40 % 4 for k in range(n)])
        elif layout == "both":
            fl = rng.integers(0, 16, n)
        else:                         # one pair, the start changing every few pieces
            fl = np.full(n, 5)
        fl = fl.astype(np.int64)
        s = np.floor(np.arange(n) / int(rng.integers(2, 9))).astype(float)
        e = s + rng.integers(1, 4, n)
        r = rng.random(n) / 50
        r[rng.random(n) < 0.1] = 0.0
        for cap in (caps, np.full(8, 2.5)):           # one scale, and one per resource
            sc, thr, ok = vk.screen_units(cap, LIMIT)
            assert ok
            grid = vk.screen_grid(np.empty(4096 * 8), 8)
            G, vals = vk.screen_add(fl, s, e, r, res, sc, 0, n, grid, 2 * n)
            want = {float(t): np.zeros(8) for t in vals}
            for f, a, b, v in zip(fl, s, e, r):
                for k in res[f]:
                    q = np.ceil(min(v * sc[k], 2.0 ** 62))
                    want[a][k] += q
                    want[b][k] -= q
            assert sorted(want) == sorted(set(s) | set(e))
            got = _rows_by_time(grid, vals)
            for t in want:
                assert np.array_equal(got[t], want[t]), (layout, t)


def test_minus_zero_is_zero():
    # -0.0 and 0.0 are one instant: a piece ending at -0.0 and one starting at 0.0 on one
    # port never overlap (two rows for them, summed in either order, could add both)
    res = ports(1, 1, [(0, 0)] * 2)
    cap = np.array([1.0, 1.0])
    for a, b in ((-0.0, 0.0), (0.0, -0.0)):
        assert screen([(0, -1.0, a, 1.0), (1, b, 1.0, 1.0)], res, cap)
        assert screen([(1, b, 1.0, 1.0), (0, -1.0, a, 1.0)], res, cap)
        assert not screen([(0, -1.0, 0.5, 1.0), (1, b, 1.0, 1.0)], res, cap)


def test_many_instants_give_up_early():
    # a part whose first sixteenth already has distinct times for more than a sixteenth of
    # the grid's rows gives up there (G = -1: the caller sweeps), though its times would fit;
    # with sixteen times as many rows, or those times spread over the part, it does not
    n = 1 << 16
    res = ports(1, 1, [(0, 0)] * n)
    cap = np.array([1.0, 1.0])
    sc, thr, ok = vk.screen_units(cap, LIMIT)
    fl = np.arange(n, dtype=np.int64)
    r = np.full(n, 1.0 / n)
    t = np.arange(n, dtype=float) % (n // 16)              # n/16 + 1 times, all in the first 16th
    G, _ = vk.screen_add(fl, t, t + 1.0, r, res, sc, 0, n, vk.screen_grid(np.empty(n // 4), 2),
                         2 * n)
    assert G == -1                                         # n/8 rows
    grid = vk.screen_grid(np.empty(4 * n), 2)              # 2n rows
    G, vals = vk.screen_add(fl, t, t + 1.0, r, res, sc, 0, n, grid, 2 * n)
    assert G == n // 16 + 1 and vk.screen_loads(grid, vals, grid, vals[:0], thr)
    spread = np.floor(np.arange(n, dtype=float) / 16)      # n/16 + 1 times, 1/16 of them early
    G, vals = vk.screen_add(fl, spread, spread + 1.0, r, res, sc, 0, n,
                            vk.screen_grid(np.empty(n // 4), 2), 2 * n)
    assert G == n // 16 + 1
    # at most `most` times (it sizes the hash table): one more is no answer (below 2^16
    # pieces: no early estimate)
    m = 4096
    args = (fl[:m], spread[:m], spread[:m] + 1.0, r[:m], res, sc, 0, m, grid)
    assert vk.screen_add(*args, 2 * m)[0] == m // 16 + 1
    assert vk.screen_add(*args, m // 16 + 1)[0] == m // 16 + 1
    assert vk.screen_add(*args, m // 16)[0] == -1


def test_flows_and_screen_in_one_pass():
    # runs_flows_screen (runs_pass on one thread) is runs_flows then screen_add in one pass,
    # each piece's resources read from its row's PAIR column: the same rows bit for bit, the
    # same flags, rows and times and grid, also where the screen gives up early (a sixteenth
    # of the way) or on the way (more times than rows), after which the flow pass goes on
    rng = np.random.default_rng(5)
    F = 64
    flows = [(int(rng.integers(6)), int(rng.integers(5))) for _ in range(F)]
    res = ports(6, 5, flows)
    n = 1 << 16
    fl = rng.integers(0, F, n).astype(np.int64)
    fl[1000:1300] = 7                                    # one flow's pieces in a row
    base = np.floor(np.arange(n) / 50.0)
    r = rng.random(n) / 400
    r[rng.random(n) < 0.05] = 0.0
    spread = (np.arange(n) % (n // 16)).astype(float)    # n/16 times, all in the first 16th
    layouts = {"fits": (base, base + rng.integers(1, 3, n)),
               "early": (spread, spread + 1.0),
               "on the way": (np.arange(n, dtype=float), np.arange(n, dtype=float) + 0.5)}
    for name, (s, e) in layouts.items():
        for cap in (np.full(11, 2.0), np.linspace(1.0, 3.0, 11)):   # one scale, and several
            sc, thr, ok = vk.screen_units(cap, LIMIT)
            assert ok
            rows = np.zeros((F, 8))
            irows = rows.view(np.int64)
            rows[:, vk.LAST_END] = -np.inf
            rows[:, vk.FC] = -np.inf
            rows[:, vk.RELEASE] = rng.random(F) * 5           # some pieces before release
            irows[:, vk.PAIR] = vk.pack_pair(res)
            most = 2 * n if name != "on the way" else n // 2
            cells = 4 * n * 11 if name != "early" else n // 4 * 11
            want_rows = rows.copy()
            want_flags = vk.runs_flows(fl, s, e, r, want_rows, want_rows.view(np.int64))
            want_grid = vk.screen_grid(np.empty(cells), 11)
            want_G, want_vals = vk.screen_add(fl, s, e, r, res, sc, 0, n, want_grid, most)
            grid = vk.screen_grid(np.empty(cells), 11)
            flags, G, vals = vk.runs_flows_screen(fl, s, e, r, rows, irows, res, sc, grid,
                                                  most)
            assert (want_G < 0) == (name != "fits"), name
            assert flags == want_flags and flags & vk.BEFORE_RELEASE, name
            assert np.array_equal(rows.view(np.int64), want_rows.view(np.int64)), name
            assert G == want_G and np.array_equal(vals, want_vals), name
            assert np.array_equal(grid[:max(G, 0)], want_grid[:max(G, 0)]), name
