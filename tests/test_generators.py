"""Generators: deterministic for a seed, validated parameters, the right structure."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from coflowopt import Schedule
from coflowopt.exceptions import InvalidInstanceError, InvalidParameterError
from coflowopt.generators import (GENERATORS, PATTERNS, all_to_all, facebook_like,
                                  madd_fair_family, many_to_one, one_to_many, one_to_one,
                                  shuffle_mix, sincronia_fig4, uniform_random, with_deadlines)
from coflowopt.verify import verify_schedule

SEEDED = {
    "uniform_random": lambda seed: uniform_random(5, 8, weights="uniform", releases=(0, 3),
                                                  capacities=(1, 2), seed=seed),
    "one_to_one": lambda seed: one_to_one(6, 8, seed=seed),
    "many_to_one": lambda seed: many_to_one(6, 8, seed=seed),
    "one_to_many": lambda seed: one_to_many(6, 8, seed=seed),
    "all_to_all": lambda seed: all_to_all(6, 8, seed=seed),
    "shuffle_mix": lambda seed: shuffle_mix(6, 8, seed=seed),
    "with_deadlines": lambda seed: with_deadlines(uniform_random(5, 8, seed=0), seed=seed),
}


def _per_coflow(inst, arr):
    return [arr[inst.coflow_flows(k)] for k in range(inst.num_coflows)]


@pytest.mark.parametrize("name", list(SEEDED))
def test_deterministic_for_a_seed_and_different_across_seeds(name):
    make = SEEDED[name]
    a, b, c = make(11), make(11), make(12)
    assert a == b and a.meta == b.meta
    assert a != c
    key = "deadlines" if name == "with_deadlines" else "generator"
    assert a.meta[key]["name"] == name and a.meta[key]["seed"] == 11
    if name != "with_deadlines":
        assert isinstance(a.meta["generator"]["params"], dict)


def test_generator_table_for_the_cli():
    assert set(GENERATORS) == set(SEEDED) - {"with_deadlines"} | {"facebook_like", "fat-tree",
                                                                  "leaf-spine", "creek"}
    # keyword parameters as the CLI passes them (JSON lists for ranges)
    inst = GENERATORS["uniform_random"](num_ports=3, num_coflows=4, size=[1, 3], seed=2)
    assert inst == uniform_random(3, 4, size=(1, 3), seed=2)


def test_seed_none_records_a_seed_that_regenerates_the_instance():
    inst = uniform_random(4, 5, releases="poisson:2", seed=None)
    seed = inst.meta["generator"]["seed"]
    assert uniform_random(4, 5, releases="poisson:2", seed=seed) == inst


def _fb_trace(tmp_path: Path) -> Path:
    p = tmp_path / "t.txt"
    p.write_text("4 1\n1 0 2 0 1 1 1:4.0\n")
    return p


BAD = [
    (uniform_random, (0, 3), {}, "num_ports"),
    (uniform_random, (3, 0), {}, "num_coflows"),
    (uniform_random, (3, 2.5), {}, "num_coflows"),
    (uniform_random, (3, 3), {"flows_per_coflow": (0, 2)}, "flows_per_coflow"),
    (uniform_random, (3, 3), {"flows_per_coflow": (3, 2)}, "flows_per_coflow"),
    (uniform_random, (3, 3), {"size": (0, 2)}, "size"),
    (uniform_random, (3, 3), {"size": (1.5, 2)}, "size"),
    (uniform_random, (3, 3), {"weights": "zipf"}, "weights"),
    (uniform_random, (3, 3), {"weights": (-1, 2)}, "weights"),
    (uniform_random, (3, 3), {"releases": "poisson:-1"}, "releases"),
    (uniform_random, (3, 3), {"releases": "exp:1"}, "releases"),
    (uniform_random, (3, 3), {"releases": (2, 1)}, "releases"),
    (uniform_random, (3, 3), {"capacities": (0, 1)}, "capacities"),
    (uniform_random, (3, 3), {"num_egress": 0}, "num_egress"),
    (uniform_random, (3, 3), {"seed": -1}, "seed"),
    (uniform_random, (3, 3), {"seed": "x"}, "seed"),
    (one_to_one, (3, 3), {"width": (1, 4)}, "width"),
    (one_to_one, (3, 3), {"size": (1, float("inf")), "integer_sizes": False}, "size"),
    (many_to_one, (3, 3), {"width": (0, 2)}, "width"),
    (one_to_many, (4, 3), {"width": (2, 3), "num_egress": 2}, "width"),
    (all_to_all, (3, 3), {"mappers": (1, 4)}, "mappers"),
    (all_to_all, (3, 3), {"reducers": (2, 1)}, "reducers"),
    (shuffle_mix, (3, 3), {"mix": {"ring": 1}}, "mix"),
    (shuffle_mix, (3, 3), {"mix": {"one_to_one": 0}}, "mix"),
    (shuffle_mix, (3, 3), {"mix": {"one_to_one": -1}}, "mix"),
    (with_deadlines, ("not an instance",), {}, "instance"),
    (with_deadlines, (None,), {"x": -1}, "x"),
    (facebook_like, ("/nonexistent/trace.txt", 3), {}, "trace_path"),
    (facebook_like, ("TRACE", 0), {}, "num_coflows"),
    (facebook_like, ("TRACE", 3), {"load": 0}, "load"),
    (facebook_like, ("TRACE", 3), {"bandwidth_mb_per_s": float("nan")}, "bandwidth_mb_per_s"),
    (facebook_like, ("TRACE", 3), {"time_unit_ms": -1}, "time_unit_ms"),
    (facebook_like, ("TRACE", 3), {"num_ports": 1}, "num_ports"),
    (sincronia_fig4, (0, 1), {}, "t"),
    (sincronia_fig4, (2, -1), {}, "N"),
    (madd_fair_family, (0,), {}, "N"),
    # beyond what an instance holds or numpy draws (a parameter fuzz: 10^30 reached numpy,
    # "Maximum allowed dimension exceeded" / "high is out of bounds for int64")
    (uniform_random, (10**30, 3), {}, "num_ports"),
    (uniform_random, (3, 10**30), {}, "num_coflows"),
    (uniform_random, (3, 3), {"size": (1, 10**30)}, "size"),
    (uniform_random, (3, 3), {"weights": (1, 10**30)}, "weights"),
    (uniform_random, (3, 3), {"weights": (1.0, 1e30)}, "weights"),
    (uniform_random, (3, 3), {"releases": (1, 10**30)}, "releases"),
    (uniform_random, (3, 3), {"capacities": (1, 1e30)}, "capacities"),
    (uniform_random, (3, 3), {"flows_per_coflow": (1, 10**30)}, "flows_per_coflow"),
]


@pytest.mark.parametrize("func, args, kwargs, param", BAD,
                         ids=[f"{f.__name__}-{p}-{i}" for i, (f, _, _, p) in enumerate(BAD)])
def test_bad_parameters_name_the_parameter(tmp_path, func, args, kwargs, param):
    args = tuple(_fb_trace(tmp_path) if a == "TRACE" else a for a in args)
    if func is with_deadlines and args == (None,):
        args = (uniform_random(3, 3, seed=0),)
    with pytest.raises(InvalidParameterError, match=rf"{func.__name__}: {param} must be"):
        func(*args, **kwargs)


def test_uniform_random_options():
    inst = uniform_random(3, 200, flows_per_coflow=(2, 5), size=(1, 4), num_egress=7,
                          weights=(1, 3), releases="poisson:4", capacities=(2, 5), seed=3)
    assert (inst.num_ingress, inst.num_egress) == (3, 7)
    assert set(np.unique(inst.width)) <= {2, 3, 4, 5}
    assert set(np.unique(inst.flow_size)) == {1.0, 2.0, 3.0, 4.0}
    assert set(np.unique(inst.weight)) == {1.0, 2.0, 3.0}
    assert np.all(np.diff(inst.release) >= 0) and inst.release[0] > 0
    # 200 coflows at 4 per time unit arrive over about 50 time units
    assert 35 < inst.release[-1] < 65
    assert set(np.unique(inst.capacity)) <= {2.0, 3.0, 4.0, 5.0}
    real = uniform_random(4, 100, size=(0.5, 2.0), integer_sizes=False, weights="uniform",
                          capacities=(0.5, 1.5), releases=(0.0, 2.0), seed=4)
    assert np.all((real.flow_size >= 0.5) & (real.flow_size < 2.0))
    assert not np.all(real.flow_size == np.round(real.flow_size))
    assert np.all((real.weight > 0) & (real.weight <= 1))
    assert np.all((real.capacity >= 0.5) & (real.capacity < 1.5))
    assert np.all((real.release >= 0) & (real.release < 2))
    plain = uniform_random(4, 10, seed=0)
    assert np.all(plain.weight == 1) and np.all(plain.release == 0) and plain.uniform_capacity


def test_one_to_one_is_a_matching():
    inst = one_to_one(7, 50, width=(2, 5), num_egress=6, seed=1)
    for src, dst in zip(_per_coflow(inst, inst.flow_src), _per_coflow(inst, inst.flow_dst)):
        assert 2 <= src.size <= 5
        assert len(set(src)) == src.size and len(set(dst)) == dst.size


def test_many_to_one_and_one_to_many():
    inc = many_to_one(8, 50, width=(3, 6), seed=2)
    assert np.all(inc.num_receivers == 1)
    assert np.array_equal(inc.num_senders, inc.width) and inc.width.min() >= 3
    bc = one_to_many(8, 50, width=(3, 6), seed=2)
    assert np.all(bc.num_senders == 1) and np.array_equal(bc.num_receivers, bc.width)
    for sizes in _per_coflow(bc, bc.flow_size):
        assert np.all(sizes == sizes[0])  # a broadcast sends the same data to everyone


def test_all_to_all_is_a_full_shuffle():
    inst = all_to_all(9, 40, mappers=(1, 4), reducers=(2, 5), seed=3)
    assert np.array_equal(inst.width, inst.num_senders * inst.num_receivers)
    for k in range(inst.num_coflows):
        sl = inst.coflow_flows(k)
        pairs = set(zip(inst.flow_src[sl].tolist(), inst.flow_dst[sl].tolist()))
        assert len(pairs) == inst.width[k]  # every mapper-reducer pair exactly once


def test_shuffle_mix_coflows_match_their_patterns():
    inst = shuffle_mix(10, 200, mix={"one_to_one": 1, "many_to_one": 1, "one_to_many": 1,
                                     "all_to_all": 2}, width=(2, 3), seed=9)
    patterns = inst.meta["generator"]["patterns"]
    assert len(patterns) == inst.num_coflows and set(patterns) == set(PATTERNS)
    s, r, w = inst.num_senders, inst.num_receivers, inst.width
    for k, p in enumerate(patterns):
        expected = {"one_to_one": s[k] == r[k] == w[k], "many_to_one": r[k] == 1 < s[k] == w[k],
                    "one_to_many": s[k] == 1 < r[k] == w[k],
                    "all_to_all": w[k] == s[k] * r[k] and s[k] >= 2 and r[k] >= 2}[p]
        assert expected, (k, p)
    only = shuffle_mix(10, 30, mix={"all_to_all": 1}, seed=1)
    assert set(only.meta["generator"]["patterns"]) == {"all_to_all"}


def test_distinct_ports_on_large_and_dense_rows():
    # Dense rows (width > ports/2) take the permutation path, sparse ones the redraw path.
    inst = one_to_one(10, 300, width=(1, 10), seed=5)
    for src in _per_coflow(inst, inst.flow_src):
        assert len(set(src.tolist())) == src.size
    counts = np.bincount(inst.flow_src[inst.width[inst.flow_coflow] == 1], minlength=10)
    assert np.all(counts > 0)  # single-port picks spread over all ports


def test_100k_flows_well_under_a_second():
    for make in (lambda: uniform_random(100, 40_000, seed=1),
                 lambda: shuffle_mix(150, 20_000, seed=1),
                 lambda: all_to_all(200, 8_000, mappers=(2, 5), reducers=(2, 5), seed=1)):
        t = time.perf_counter()
        inst = make()
        assert inst.num_flows >= 80_000
        assert time.perf_counter() - t < 1.0


def test_with_deadlines():
    base = uniform_random(5, 40, releases=(0, 10), seed=1)
    inst = with_deadlines(base, x=2.0, seed=4)
    slack = (inst.deadline - inst.release) / inst.rho
    assert np.all(slack >= 1 - 1e-12) and np.all(slack <= 3 + 1e-12)
    assert inst.meta["deadlines"] == {"name": "with_deadlines", "params": {"x": 2.0}, "seed": 4}
    assert inst.meta["generator"] == base.meta["generator"]
    tight = with_deadlines(base, x=0, seed=0)
    assert np.allclose(tight.deadline, base.release + base.rho, rtol=1e-15)


def test_sincronia_fig4():
    t, N = 5, 3
    inst = sincronia_fig4(t, N)
    assert inst.num_coflows == t + N and inst.num_ingress == inst.num_egress == t
    assert inst.coflow_ids[:2] == ("S1", "S2") and inst.coflow_ids[-1] == "N3"
    assert np.allclose(inst.port_loads.sum(axis=0), 2 + N)
    assert inst.rho.tolist() == [2.0] * t + [1.0] * N
    # The optimum runs the singles in parallel first: verify that schedule's value.
    fl, st, en = list(range(t)), [0.0] * t, [2.0] * t
    for n in range(N):
        for i in range(t):
            fl.append(inst.flow_index(t + n, i))
            st.append(2.0 + n)
            en.append(3.0 + n)
    rep = verify_schedule(inst, Schedule.from_pieces(fl, st, en, [1.0] * len(fl)), mode="exact")
    assert rep.ok and rep.total_completion_time == 2 * t + 2 * N + N * (N + 1) // 2


@pytest.mark.parametrize("N", [1, 2, 5])
def test_madd_fair_family(N):
    inst = madd_fair_family(N)
    assert inst.rho.tolist() == [2.0 * N]
    # MADD (every flow at d / rho) finishes the shuffle exactly at rho = 2N.
    F = inst.num_flows
    rates = [Fraction(int(d), 2 * N) for d in inst.flow_size]
    sched = Schedule.from_pieces(np.arange(F), [Fraction(0)] * F, [Fraction(2 * N)] * F, rates)
    rep = verify_schedule(inst, sched, mode="exact")
    assert rep.ok and rep.makespan == 2 * N


# ------------------------------------------------------------------------------ Facebook-like
def _trace_coflows(path: Path) -> dict[str, tuple[int, list[float]]]:
    """Trace id -> (number of mappers, reducer MB list), parsed independently of the code."""
    out = {}
    for line in path.read_text().splitlines()[1:]:
        tok = line.split()
        m = int(tok[2])
        r = int(tok[3 + m])
        out[tok[0]] = (m, [float(x.split(":")[1]) for x in tok[4 + m:4 + m + r]])
    return out


@pytest.mark.shared
def test_facebook_like_keeps_the_sampled_coflows(fb_trace_path):
    trace = _trace_coflows(fb_trace_path)
    inst = facebook_like(fb_trace_path, 60, seed=7)
    gen = inst.meta["generator"]
    assert gen["name"] == "facebook_like" and gen["seed"] == 7
    assert len(gen["trace_coflow"]) == inst.num_coflows == 60
    assert inst.meta["units"] == {"size": "MB", "time": "7.8125 ms"}
    assert np.all(inst.capacity == 2.0)  # 256 MB/s for 7.8125 ms
    for k, tid in enumerate(gen["trace_coflow"]):
        m, mb = trace[tid]
        sl = inst.coflow_flows(k)
        assert inst.num_senders[k] == m and inst.num_receivers[k] == len(mb)
        assert inst.width[k] == m * len(mb)
        # each receiver gets exactly its reducer's MB, split equally over the senders
        recv = np.bincount(inst.flow_dst[sl], weights=inst.flow_size[sl], minlength=150)
        assert sorted(recv[recv > 0].tolist()) == pytest.approx(sorted(mb), rel=1e-12)
        assert np.allclose(inst.flow_size[sl], np.repeat(np.asarray(mb) / m, m))
        # reducer-major, senders ascending
        assert np.all(np.diff(inst.flow_src[sl].reshape(len(mb), m), axis=1) > 0)
    assert np.all(np.diff(inst.release) >= 0)
    assert facebook_like(fb_trace_path, 60, seed=7) == inst
    assert facebook_like(fb_trace_path, 60, seed=8) != inst


@pytest.mark.shared
def test_facebook_like_load_matches_the_target(fb_trace_path):
    for load in (0.9, 0.3):
        inst = facebook_like(fb_trace_path, 300, load=load, seed=1)
        span_s = inst.release.max() * 7.8125 / 1000
        offered = inst.flow_size.sum() / (span_s * 150 * 256.0)
        assert offered == pytest.approx(load, rel=0.03)


@pytest.mark.shared
def test_facebook_like_integer_division_on_the_fb_trace(fb_trace_path):
    exact = facebook_like(fb_trace_path, 40, seed=2)
    mimic = facebook_like(fb_trace_path, 40, seed=2, integer_division=True)
    # Every reducer's MB divides by its mapper count in this trace: same flows, nothing dropped.
    assert np.array_equal(exact.flow_size, mimic.flow_size)
    assert mimic.meta["generator"]["dropped_zero_flows"] == 0
    g = mimic.meta["generator"]
    assert g["mean_flow_size_mb"] == np.floor(exact.meta["generator"]["mean_flow_size_mb"])
    assert np.all(mimic.release * 7.8125 == np.floor(mimic.release * 7.8125))


def test_facebook_like_integer_division_drops_zero_flows(tmp_path):
    trace = tmp_path / "tiny.txt"
    trace.write_text("8 3\n"
                     "1 0 3 0 1 2 2 0:2.0 1:30.0\n"  # 2 // 3 = 0: three 0 MB flows
                     "2 5 1 3 1 4:1.0\n"             # one 1 MB flow
                     "3 9 2 4 5 1 2:1.0\n")          # 1 // 2 = 0: the whole coflow vanishes
    K = 40
    inst = facebook_like(trace, K, num_ports=8, integer_division=True, seed=3)
    g = inst.meta["generator"]
    ids = g["trace_coflow"]
    assert "3" not in ids and g["dropped_empty_coflows"] + inst.num_coflows == K
    assert g["dropped_zero_flows"] == 3 * ids.count("1") + 2 * g["dropped_empty_coflows"]
    assert np.all(inst.flow_size > 0)
    exact = facebook_like(trace, K, num_ports=8, seed=3)
    assert exact.num_coflows == K and exact.flow_size.min() == 0.5  # coflow 3: 1 MB / 2


def test_facebook_like_rejects_a_malformed_trace(tmp_path):
    trace = tmp_path / "bad.txt"
    trace.write_text("150 1\n1 0 2 4 1 3:5.0\n")  # says 2 mappers but lists 1
    with pytest.raises(InvalidInstanceError, match=r"bad.txt:2, num_mappers"):
        facebook_like(trace, 3, seed=0)


def test_facebook_like_mean_size_zero_under_integer_division(tmp_path):
    trace = tmp_path / "tiny.txt"
    trace.write_text("4 1\n1 0 2 0 1 1 2:1.0\n")  # 1 // 2 = 0 MB for every flow
    with pytest.raises(InvalidParameterError, match="mean size 0 MB"):
        facebook_like(trace, 5, num_ports=4, integer_division=True, seed=0)
    assert facebook_like(trace, 5, num_ports=4, seed=0).flow_size.tolist() == [0.5] * 10
