"""The compiled Birkhoff--von Neumann engine (``coflowopt.rates._bvn_kernel``) against its
reference, the networkx-based Python engine (``engine="python"``), and its windowed form.

The compiled Hopcroft--Karp is networkx's step for step, so every decomposition, hence every
schedule, must be the reference's to the last bit (terms, matchings, pieces, rates); the
windows of :func:`bvn_windows` / :func:`bvn_group_windows` glue into the held schedule (rates
but for flows counted ``unsettled``) and get the same verdict."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.api import RATES_WINDOWS, POLICY_WINDOWS, run_schedule
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.rates import _bvn_kernel as K
from coflowopt.rates.bvn import (bvn, bvn_decomposition, bvn_group_schedule,
                                 bvn_group_windows, bvn_windows, check_decomposition)
from coflowopt.testing import big_switch_as_paths
from coflowopt.verify import verify_schedule
from test_madd import random_instances
from coflowopt.simulate import settle_off
from test_madd_stream import assert_same_report, settling_instances, streamed


def assert_windows_are(parts, stats, held):
    """The windows, one after the other, are ``held``'s pieces in its order (no piece is cut:
    a window ends at a term's end); the rates differ only for flows counted unsettled, which
    held settled (size / sent, a relative change far below 1e-9)."""
    f, s, e, v = (np.concatenate([getattr(p, a) for p in parts])
                  for a in ("flow", "start", "end", "rate"))
    np.testing.assert_array_equal(f, held.flow)
    np.testing.assert_array_equal(s, held.start)
    np.testing.assert_array_equal(e, held.end)
    assert np.unique(f[v != held.rate]).size <= stats["unsettled"]
    np.testing.assert_allclose(v, held.rate, rtol=1e-9, atol=0)


def still_off(inst, parts):
    """The flows whose data sent over every window (each window's sum, added window after
    window) is still off their size by more than SETTLE_RTOL after the windows' settling:
    what the sink counts as ``unsettled`` (a flow of a group cut by a window that had sent
    its last piece before the cut may lie in one window: the sink could not know it was
    done, and the held run settles it)."""
    total = np.zeros(inst.num_flows)
    for p in parts:
        total += np.bincount(p.flow, weights=p.rate * (p.end - p.start),
                             minlength=inst.num_flows)
    return int(settle_off(total, inst.flow_size.astype(float)).sum())


def same_decomposition(a, b):
    assert (a.exact, a.shape, len(a)) == (b.exact, b.shape, len(b))
    assert a.rho == b.rho and type(a.rho) is type(b.rho) or not a.exact
    assert list(a.theta) == list(b.theta)
    assert all(np.array_equal(p, q) for p, q in zip(a.perms, b.perms))
    assert np.array_equal(a.padded, b.padded)
    assert a.meta == b.meta


def same_schedule(a, b):
    assert a.exact == b.exact and a.num_pieces == b.num_pieces
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        assert x.tolist() == y.tolist()
    assert a.meta == b.meta


@st.composite
def matrices(draw, values):
    m_in, m_out = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    zeros = draw(st.floats(0, 0.9))
    return [[draw(values) if draw(st.floats(0, 1)) >= zeros else 0 for _ in range(m_out)]
            for _ in range(m_in)]


floats = st.floats(0, 10, allow_nan=False, allow_infinity=False)
ties = st.integers(0, 4).map(float)
fractions = st.fractions(min_value=0, max_value=5, max_denominator=12)


@settings(max_examples=300)
@given(st.one_of(matrices(floats), matrices(ties), matrices(st.integers(0, 9)),
                 matrices(fractions)))
def test_compiled_decomposition_is_the_reference(D):
    ref = bvn_decomposition(D, engine="python")
    dec = bvn_decomposition(D)
    same_decomposition(dec, ref)
    assert check_decomposition(D, dec)["ok"]


def test_a_dense_matrix_decomposes_as_the_reference():
    """A dense 24 x 24 float matrix: ~530 terms, each matching from scratch."""
    D = np.random.default_rng(3).random((24, 24))
    same_decomposition(bvn_decomposition(D), bvn_decomposition(D, engine="python"))
    # the float fallback (a tiny entry broke Hall's condition) takes the same exact route
    D = [[3.0, 7.00000000001, 1e-11]]
    same_decomposition(bvn_decomposition(D), bvn_decomposition(D, engine="python"))


@settings(max_examples=200)
@given(st.integers(1, 9), st.integers(0, 2 ** 32 - 1), st.floats(0.05, 1.0))
def test_hopcroft_karp_is_networkx(n, seed, density):
    """Any support, perfect matchings or not: the same matching as networkx's."""
    import networkx as nx
    from networkx.algorithms.bipartite import hopcroft_karp_matching

    S = np.random.default_rng(seed).random((n, n)) < density
    G = nx.Graph()
    G.add_nodes_from(range(2 * n))
    G.add_edges_from((r, n + c) for r in range(n) for c in range(n) if S[r, c])
    want = hopcroft_karp_matching(G, top_nodes=range(n))
    adj = np.zeros((n, n), np.int32)
    deg = S.sum(axis=1).astype(np.int64)
    for r in range(n):
        adj[r, :deg[r]] = np.flatnonzero(S[r])
    lm, rm, stk, pos = (np.empty(n, np.int64) for _ in range(4))
    dist, queue = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    for kernel in (K.hopcroft_karp, K.hopcroft_karp.py_func):
        size = kernel(adj, deg, n, lm, rm, dist, queue, stk, pos)
        assert size == len(want) // 2
        assert {r: int(lm[r]) + n for r in range(n) if lm[r] >= 0} == \
            {r: u for r, u in want.items() if r < n}


def random_groups(draw, K):
    perm = draw(st.permutations(range(K)))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, K - 1)), max_size=3)))
    return [list(g) for g in np.split(np.array(perm), [c for c in cuts if c < K]) if len(g)]


@settings(max_examples=150, deadline=None)
@given(random_instances(max_ports=5, max_coflows=7, heterogeneous=False), st.data())
def test_compiled_schedules_are_the_reference(case, data):
    """Float and exact, with and without backfilling, coflows one after another and in
    groups: the pieces of the reference to the last bit."""
    inst, order = case
    groups = random_groups(data.draw, inst.num_coflows)
    for exact in (None, False):
        same_schedule(bvn_group_schedule(inst, groups, exact=exact),
                      bvn_group_schedule(inst, groups, exact=exact, engine="python"))
        for backfill in (False, True):
            same_schedule(bvn(inst, order, backfill=backfill, exact=exact),
                          bvn(inst, order, backfill=backfill, exact=exact, engine="python"))


def late_instance(seed: int) -> Instance:
    """Float sizes released late (t ~ 1.3e5, as on the FB trace), several coflows per group:
    terms of ~1e-12 at such times round to nothing (no piece), settling happens."""
    rng = np.random.default_rng(seed)
    def flows(n):
        return [(int(rng.integers(4)), int(rng.integers(4)), float(rng.uniform(1e-3, 3.0)))
                for _ in range(n)]
    cofs = [Coflow(f"c{k}", flows(int(rng.integers(1, 7))),
                   release=131334.376 + float(rng.uniform(0, 2))) for k in range(10)]
    return Instance.from_coflows(cofs)


@pytest.mark.parametrize("seed", range(6))
def test_late_groups_are_the_reference(seed):
    inst = late_instance(seed)
    groups = [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
    held = bvn_group_schedule(inst, groups)
    same_schedule(held, bvn_group_schedule(inst, groups, engine="python"))
    assert verify_schedule(inst, held).ok


def stream_instances():
    rng = np.random.default_rng(5)
    out = []
    for _ in range(5):
        cofs = [Coflow(f"c{k}", [(int(rng.integers(4)), int(rng.integers(4)),
                                  float(rng.uniform(0.1, 5)))
                                 for _ in range(int(rng.integers(1, 8)))],
                       release=float(rng.uniform(0, 10))) for k in range(8)]
        out.append(Instance.from_coflows(cofs))
    return out + [late_instance(s) for s in range(3)] + settling_instances()


def test_windows_glue_into_the_held_schedule():
    """Windows of 1 / 3 / 10^6 pieces (a window ends at a term's end, so no piece is cut):
    the held pieces, rates but for the flows counted unsettled (which ``unsettled_in``
    recounts from the windows), and the held verdict to the last bit."""
    totals = {"settled": 0, "unsettled": 0, "windows": 0}
    for inst in stream_instances():
        order = np.arange(inst.num_coflows)[::-1]
        K_ = inst.num_coflows
        for groups in ([[k] for k in order], [list(range(K_ // 2)), list(range(K_ // 2, K_))]):
            held = bvn_group_schedule(inst, groups)
            want = verify_schedule(inst, held)
            assert want.ok
            for window in (1, 3, 10 ** 6):
                stats, rep, parts = streamed(
                    inst, lambda cb, w: bvn_group_windows(inst, groups, cb, window=w), window)
                assert_same_report(rep, want)
                assert stats["pieces"] == held.num_pieces == sum(p.num_pieces for p in parts)
                assert_windows_are(parts, stats, held)
                assert stats["unsettled"] == still_off(inst, parts)
                if window == 10 ** 6:
                    assert stats["windows"] == 1 and stats["unsettled"] == 0
                    np.testing.assert_array_equal(parts[0].rate, held.rate)
                for k in totals:
                    totals[k] += stats[k]
    # the instances exercise settling inside a window and windows inside a group
    assert totals["settled"] > 0 and totals["windows"] > 100


def test_bvn_windows_is_bvn():
    inst = stream_instances()[0]
    order = np.arange(inst.num_coflows)
    held = bvn(inst, order)
    stats, rep, parts = streamed(inst, lambda cb, w: bvn_windows(inst, order, cb, window=w), 2)
    assert_same_report(rep, verify_schedule(inst, held))
    assert_windows_are(parts, stats, held)


def test_where_the_compiled_path_does_not_apply():
    """Exact mode, backfilling and the Python engine hand over the held schedule as one
    window (an exact one as floats); bad windows, orders, capacities and resources are
    refused as :func:`bvn` refuses them."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (0, 1, 1)]),
                                  Coflow("B", [(1, 0, 1), (1, 1, 3)])])
    for params in ({}, {"backfill": True}, {"engine": "python"}, {"exact": False,
                                                                  "backfill": True}):
        held = bvn(inst, [1, 0], **params)
        stats, rep, parts = streamed(
            inst, lambda cb, w: bvn_windows(inst, [1, 0], cb, window=w, **params), 1)
        assert stats["windows"] == 1 and parts[0].num_pieces == held.num_pieces
        assert not parts[0].exact
        assert_same_report(rep, verify_schedule(inst, held))
    with pytest.raises(InvalidParameterError, match="window"):
        bvn_windows(inst, [0, 1], lambda s, a, b: None, window=0)
    with pytest.raises(InvalidParameterError):
        bvn_windows(inst, [0, 0], lambda s, a, b: None)
    het = Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])], ingress_capacity=[2.0],
                                egress_capacity=[1.0])
    with pytest.raises(NotSupportedError):
        bvn_windows(het, [0], lambda s, a, b: None)
    with pytest.raises(NotSupportedError, match="big switch"):
        bvn_windows(big_switch_as_paths(inst), [0, 1], lambda s, a, b: None)
    with pytest.raises(InvalidParameterError, match="engine"):
        bvn(inst, [0, 1], engine="numba")


def test_run_schedule_streamed_gives_the_held_result():
    assert "bvn" in RATES_WINDOWS and "qsz" in POLICY_WINDOWS
    integral = Instance.from_coflows([Coflow("A", [(0, 0, 3), (0, 1, 1), (1, 1, 2)]),
                                      Coflow("B", [(1, 0, 5), (0, 0, 1)], release=1)])
    for inst in stream_instances()[:3] + settling_instances()[:1] + [integral]:
        for kw in ({"order": "sebf", "rates": "bvn"}, {"policy": "qsz"}):
            held = run_schedule(inst, **kw)
            res = run_schedule(inst, keep_schedule=False, **kw)
            assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
            assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
            assert_same_report(res.report, held.report)
    # the reference engine holds its schedule
    res = run_schedule(stream_instances()[0], order="sebf", rates="bvn",
                       rate_params={"engine": "python"}, keep_schedule=False)
    assert res.schedule is not None and "streamed" not in res.extra


def test_exact_mode_stays_exact():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (0, 1, 1), (1, 1, 2)]),
                                  Coflow("B", [(1, 0, 5)], release=1)])
    s = bvn_group_schedule(inst, [[0, 1]])
    assert s.exact and all(isinstance(x, Fraction) for x in s.end.tolist())
    same_schedule(s, bvn_group_schedule(inst, [[0, 1]], engine="python"))
    assert verify_schedule(inst, s, mode="exact").ok
