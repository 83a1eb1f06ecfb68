"""MADD and Varys handed over window by window (``run_madd_windows``, the kernel's sink mode;
``run_schedule(..., keep_schedule=False)`` and the CLI without ``--out``): the windows, glued
at their cuts, are the held schedule piece for piece (settled rates included), and the
verifier gives both the same verdict, completion times and value, to the last bit.

Windows of one to a few pieces make every event a window boundary, so that most pieces are
cut.  The instances with tiny flows released over a long horizon are the ones where settling
is needed (float event times off a flow's size by more than SETTLE_RTOL): found by a search
over seeds and kept here, with the counts asserted, so that both settling cases occur."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from coflowopt import Instance, api
from coflowopt.api import run_schedule
from coflowopt.formats.schedule_io import read_schedule_npz
from coflowopt.generators import with_deadlines
from coflowopt.policies.online_varys import (varys_deadline, varys_deadline_windows,
                                             varys_online, varys_online_windows)
from coflowopt.policies.varys import varys, varys_windows
from coflowopt.rates.madd import madd, madd_windows
from coflowopt.simulate import settle_off
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import WindowedVerifier, verify_schedule

BACKFILLS = ("varys", "coflowsim", None)


def long_horizon(seed: int, K: int, size_lo: float, size_hi: float, ports: int,
                 max_flows: int) -> Instance:
    """Flows of sizes in [size_lo, size_hi] released over 3000 time units: event times with
    large exponents, so the flows' sent amounts are off by more than SETTLE_RTOL."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, max_flows + 1, size=K)
    F = int(counts.sum())
    return Instance.from_arrays(
        ingress_capacity=np.ones(ports), egress_capacity=np.ones(ports),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=rng.integers(0, ports, F), flow_dst=rng.integers(0, ports, F),
        flow_size=rng.uniform(size_lo, size_hi, F),
        release=np.sort(rng.uniform(0, 3000.0, K)))


def settling_instances():
    """Seeds 0 and 9: flows settled within one window; seed 337: a flow that needs settling
    with pieces in several windows (left unsettled) at one piece per window."""
    return [long_horizon(0, 12, 1e-4, 1.0, 4, 6), long_horizon(9, 12, 1e-4, 1.0, 4, 6),
            long_horizon(337, 16, 1e-3, 30.0, 3, 5)]


def small_instances():
    rng = np.random.default_rng(11)
    out = [random_instance(rng, max_ports=4, max_coflows=8, max_flows=4, releases=True,
                           weights=True, heterogeneous=True) for _ in range(6)]
    return out + settling_instances()


def streamed(inst, run, window):
    """Run ``run(on_window, window)``; return its stats, the verifier's report and the pieces
    of every window (checked to lie in it)."""
    ver = WindowedVerifier(inst)
    parts = []

    def on_window(s, a, b):
        assert np.all(s.start >= a) and np.all(s.end <= b)
        parts.append(s)
        ver.add(a, b, s)

    stats = run(on_window, window)
    return stats, ver.report(), parts


def glued(parts):
    """Every flow's pieces in time order with the pieces cut at a window boundary joined (the
    same rate on both sides of the cut, the first ending where the second starts)."""
    f = np.concatenate([p.flow for p in parts])
    s = np.concatenate([p.start for p in parts])
    e = np.concatenate([p.end for p in parts])
    v = np.concatenate([p.rate for p in parts])
    o = np.lexsort((s, f))
    f, s, e, v = f[o], s[o], e[o], v[o]
    keep = np.ones(f.size, dtype=bool)
    cut = (f[1:] == f[:-1]) & (s[1:] == e[:-1]) & (v[1:] == v[:-1])
    keep[1:] = ~cut
    start_of_run = np.flatnonzero(keep)
    end = np.maximum.reduceat(e, start_of_run) if f.size else e
    return f[keep], s[keep], end, v[keep]


def unsettled_in(inst, parts):
    """The flows with pieces in more than one window whose data sent over every window (each
    window's sum in the pieces' order, added window after window, as the sink carries it) is
    off their size by more than SETTLE_RTOL: what the sink counts as ``unsettled``."""
    F = inst.num_flows
    total = np.zeros(F)
    windows = np.zeros(F, dtype=np.int64)
    for p in parts:
        total += np.bincount(p.flow, weights=p.rate * (p.end - p.start), minlength=F)
        windows += np.bincount(p.flow, minlength=F) > 0
    return int(settle_off(total, inst.flow_size.astype(float))[windows > 1].sum())


def assert_glues_into(inst, parts, stats, held) -> int:
    """The windows ``parts`` glued are ``held``'s pieces: the same flows, starts and ends; the
    rates differ only for the flows the sink left unsettled (its ``stats``), which held settled
    (size / sent, a relative change far below 1e-9).  Returns the number of glued pieces."""
    f, s, e, v = glued(parts)
    hf, hs, he, hv = held_pieces(held)
    np.testing.assert_array_equal(f, hf)
    np.testing.assert_array_equal(s, hs)
    np.testing.assert_array_equal(e, he)
    differ = np.unique(f[v != hv])
    assert differ.size <= stats["unsettled"]
    assert stats["unsettled"] == unsettled_in(inst, parts)
    np.testing.assert_allclose(v, hv, rtol=1e-9, atol=0)
    return f.size


def held_pieces(sched):
    o = np.lexsort((sched.start, sched.flow))
    return sched.flow[o], sched.start[o], sched.end[o], sched.rate[o]


def assert_same_report(r1, r2):
    assert r1.ok == r2.ok, (r1.summary(), r2.summary())
    np.testing.assert_array_equal(r1.coflow_completion, r2.coflow_completion)
    np.testing.assert_array_equal(r1.flow_completion, r2.flow_completion)
    assert r1.weighted_completion_time == r2.weighted_completion_time


@pytest.mark.parametrize("kind", ["madd", "varys"])
def test_windows_glue_into_the_held_schedule(kind):
    totals = {"settled": 0, "unsettled": 0}
    for inst in small_instances():
        order = np.arange(inst.num_coflows)
        for backfill in BACKFILLS:
            if kind == "madd":
                held = madd(inst, order, backfill=backfill)

                def run(cb, w):
                    return madd_windows(inst, order, cb, backfill=backfill, window=w)
            else:
                held = varys(inst, backfill=backfill)

                def run(cb, w):
                    return varys_windows(inst, cb, backfill=backfill, window=w)
            want = verify_schedule(inst, held)
            for window in (1, 3, 10**6):
                stats, rep, parts = streamed(inst, run, window)
                assert_same_report(rep, want)
                if window == 1 and held.num_pieces > inst.num_flows:
                    # a rate changed at some event, with a piece in the buffer there
                    assert stats["windows"] > 1
                for k in totals:
                    totals[k] += stats[k]
                assert_glues_into(inst, parts, stats, held)
    # the settling instances exercise both cases of the sink
    assert totals["settled"] > 0 and totals["unsettled"] > 0


@pytest.mark.parametrize("order", ["sebf", "fifo"])
@pytest.mark.parametrize("backfill", BACKFILLS)
def test_run_schedule_streamed_gives_the_held_result(order, backfill):
    for inst in small_instances()[:4] + settling_instances():
        rp = {"backfill": backfill}
        held = run_schedule(inst, order, "madd", rate_params=rp)
        res = run_schedule(inst, order, "madd", rate_params=rp, keep_schedule=False)
        assert res.schedule is None and "streamed" in res.extra
        assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
        assert_same_report(res.report, held.report)
        held = run_schedule(inst, policy="varys", policy_params=rp)
        res = run_schedule(inst, policy="varys", policy_params=rp, keep_schedule=False)
        assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
        assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
        assert_same_report(res.report, held.report)


def test_streamed_on_a_fat_tree_gives_the_held_result():
    rng = np.random.default_rng(9)     # 10 coflows, 38 flows
    bs = random_instance(rng, max_ports=8, max_coflows=10, max_flows=5, releases=True,
                         weights=True)
    inst = on_topology(bs, fat_tree(4), seed=1)
    assert not inst.is_big_switch
    for backfill in BACKFILLS:
        held = madd(inst, np.arange(inst.num_coflows), backfill=backfill)
        stats, rep, parts = streamed(
            inst, lambda cb, w: madd_windows(inst, np.arange(inst.num_coflows), cb,
                                             backfill=backfill, window=w), 2)
        assert stats["windows"] > 1
        assert_same_report(rep, verify_schedule(inst, held))
        rp = {"backfill": backfill}
        a = run_schedule(inst, policy="varys", policy_params=rp)
        b = run_schedule(inst, policy="varys", policy_params=rp, keep_schedule=False)
        assert b.schedule is None and (a.kind, a.value) == (b.kind, b.value)
        assert_same_report(a.report, b.report)


def test_python_engine_keeps_the_held_path():
    inst = small_instances()[0]
    res = run_schedule(inst, "sebf", "madd", rate_params={"engine": "python"},
                       keep_schedule=False)
    assert res.schedule is not None and "streamed" not in res.extra
    with pytest.raises(ValueError, match="engine='python'"):
        madd_windows(inst, np.arange(inst.num_coflows), lambda s, a, b: None,
                     engine="python")
    with pytest.raises(ValueError, match="window"):
        varys_windows(inst, lambda s, a, b: None, window=0)


def test_a_rejected_stream_with_unsettled_flows_is_rerun_held(monkeypatch):
    """The verifier's verdict on a streamed schedule that left a flow unsettled is not trusted
    when it is a rejection: the held run decides (here the rejection is forced, one piece per
    window making seed 337's flow unsettled)."""
    inst = settling_instances()[2]
    monkeypatch.setitem(api.RATES_WINDOWS, "madd",
                        ("coflowopt.rates.madd", "madd_windows", {"window": 1}, True))
    ok = run_schedule(inst, "fifo", "madd", keep_schedule=False)
    assert ok.kind == "feasible" and ok.extra["streamed"]["unsettled"] > 0
    assert "held_rerun" not in ok.extra["streamed"]

    real_report = WindowedVerifier.report

    def rejected(self):
        return dataclasses.replace(real_report(self), ok=False)

    monkeypatch.setattr(WindowedVerifier, "report", rejected)
    assert not WindowedVerifier(inst).report().ok
    res = run_schedule(inst, "fifo", "madd", keep_schedule=False)
    held = run_schedule(inst, "fifo", "madd")
    assert res.extra["streamed"]["held_rerun"] is True and res.schedule is None
    assert (res.kind, res.value) == (held.kind, held.value) == ("feasible", ok.value)


def test_cli_streams_madd_without_out_and_to_npz(tmp_path):
    inst_file = tmp_path / "u.json"
    run = [sys.executable, "-m", "coflowopt"]
    subprocess.run(run + ["generate", "uniform_random", "-p", "num_ports=3", "-p",
                          "num_coflows=8", "--seed", "2", "--out", str(inst_file)], check=True,
                   capture_output=True)
    base = run + ["schedule", str(inst_file), "--order", "sebf", "--rates", "madd", "--json"]
    plain = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr
    doc = json.loads(plain.stdout)
    assert doc["kind"] == "feasible" and doc["extra"]["streamed"]["windows"] >= 1
    npz = tmp_path / "s.npz"
    out = subprocess.run(base + ["--out", str(npz)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    doc2 = json.loads(out.stdout)
    assert doc2["value"] == doc["value"] and doc2["extra"]["streamed"]["file"].endswith("s.npz")
    ver = subprocess.run(run + ["verify", str(inst_file), str(npz), "--json"],
                         capture_output=True, text=True, timeout=600)
    assert ver.returncode == 0, ver.stderr
    assert json.loads(ver.stdout)["value"] == doc["value"]
    held = subprocess.run(base + ["--out", str(tmp_path / "s.json")], capture_output=True,
                          text=True, timeout=600)
    assert held.returncode == 0, held.stderr
    doc3 = json.loads(held.stdout)
    assert doc3["value"] == doc["value"] and "streamed" not in doc3.get("extra", {})
    from coflowopt.formats import read_instance
    assert read_schedule_npz(npz, read_instance(inst_file)).num_pieces == \
        doc2["extra"]["streamed"]["pieces"]


ONLINE = {"T": 3.0, "delta": 0.5}   # several T- and delta-intervals on the small instances


@pytest.mark.parametrize("backfill", BACKFILLS)
def test_online_and_deadline_windows_glue_into_the_held_schedule(backfill):
    """varys-online (the T/delta clock in the compiled loop's sink mode) and varys-deadline
    without deadlines (offline Varys' loop) stream the held schedule's pieces; where the
    compiled loop does not apply (coflowsim's backfilling for varys-online, an instance with
    deadlines) the held schedule is handed over whole, as one window."""
    cases = []
    for inst in small_instances():
        cases.append((inst, lambda i: varys_online(i, backfill=backfill, **ONLINE),
                      lambda i, cb, w: varys_online_windows(i, cb, backfill=backfill,
                                                            window=w, **ONLINE)))
        cases.append((inst, lambda i: varys_deadline(i, backfill=backfill),
                      lambda i, cb, w: varys_deadline_windows(i, cb, backfill=backfill,
                                                              window=w)))
    dl = with_deadlines(small_instances()[1], x=1.0, seed=3)
    assert np.isfinite(dl.deadline).any()
    cases.append((dl, lambda i: varys_deadline(i, backfill=backfill),
                  lambda i, cb, w: varys_deadline_windows(i, cb, backfill=backfill, window=w)))
    cut = 0
    for inst, held_run, win_run in cases:
        held = held_run(inst)
        compiled = held.meta["engine"] == "kernel"
        want = verify_schedule(inst, held)
        hf, hs, he, hv = held_pieces(held)
        for window in (1, 10**6):
            stats, rep, parts = streamed(inst, lambda cb, w: win_run(inst, cb, w), window)
            assert_same_report(rep, want)
            if not compiled:
                assert stats["windows"] == 1
                for a, b in zip(held_pieces(parts[0]), (hf, hs, he, hv)):
                    np.testing.assert_array_equal(a, b)
                continue
            cut += stats["windows"] > 1
            f, s, e, v = glued(parts)
            np.testing.assert_array_equal(f, hf)
            np.testing.assert_array_equal(s, hs)
            np.testing.assert_array_equal(e, he)
            assert np.unique(f[v != hv]).size <= stats["unsettled"]
            np.testing.assert_allclose(v, hv, rtol=1e-9, atol=0)
    assert cut > 0


@pytest.mark.parametrize("policy", ["varys-online", "varys-deadline"])
def test_online_and_deadline_streamed_give_the_held_result(policy):
    insts = small_instances()[:4] + [with_deadlines(small_instances()[1], x=1.0, seed=3)]
    for inst in insts:
        for backfill in BACKFILLS:
            rp = {"backfill": backfill, **(ONLINE if policy == "varys-online" else {})}
            held = run_schedule(inst, policy=policy, policy_params=rp)
            res = run_schedule(inst, policy=policy, policy_params=rp, keep_schedule=False)
            assert res.schedule is None and res.extra["streamed"]["windows"] >= 1
            assert (res.kind, res.value, res.params) == (held.kind, held.value, held.params)
            assert_same_report(res.report, held.report)
    with pytest.raises(ValueError, match="engine='python'"):
        (varys_online_windows if policy == "varys-online" else varys_deadline_windows)(
            insts[0], lambda s, a, b: None, engine="python")
