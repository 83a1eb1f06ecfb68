"""The verifier's capacity sweep (coflowopt/_verify_kernel.py) against exact rational loads: every
judged load's proven upper bound is at least the exact load, and the bound is tight (the claim
of proofs/float-verifier-soundness.md, section "Rounding", on loads)."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from coflowopt import _verify_kernel as vk


def _sweep_all(starts, ends, rates, flows, ptr, res, cap, compiled):
    fn = vk.capacity_sweep if compiled else vk.capacity_sweep.py_func
    group = vk.bucket_by_order if compiled else vk.bucket_by_order.py_func
    o = np.argsort(starts, kind="stable")
    e = np.argsort(ends, kind="stable")
    x, fx = np.empty(2 * len(starts)), np.empty(2 * len(starts), dtype=np.int64)
    times, tptr = group(starts, ends, rates, flows, o, e, x, fx)
    # limit -inf: every judged interval is returned with its load and bound
    return fn(times, tptr, x, fx, ptr, res, False, cap, -np.inf)


def _exact_load(r, t, starts, ends, rates, flows, ptr, res):
    total = Fraction(0)
    for p in range(len(starts)):
        f = flows[p]
        if r in res[ptr[f]:ptr[f + 1]] and starts[p] <= t < ends[p]:
            total += Fraction(float(rates[p]))
    return total


magnitudes = st.sampled_from([1e-9, 1e-3, 0.1, 1.0, 3.0, 1e3, 1e9])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 12), st.integers(1, 6), magnitudes,
                          st.floats(0.5, 1.5)), min_size=1, max_size=30),
       st.booleans())
def test_every_judged_load_is_bounded_by_its_exact_value(pieces, compiled):
    # 4 flows over 3 resources (paths of 1-2 resources), times on a grid so that many pieces
    # start and end together (changes at one instant are applied together)
    ptr = np.array([0, 2, 4, 5, 6], dtype=np.int64)
    res = np.array([0, 1, 1, 2, 0, 2], dtype=np.int64)
    cap = np.array([1.0, 3.0, 0.1])
    flows = np.array([p[0] for p in pieces], dtype=np.int64)
    starts = np.array([p[1] * 0.1 for p in pieces])
    ends = starts + np.array([p[2] * 0.1 for p in pieces])
    rates = np.array([p[3] * p[4] for p in pieces])
    out_r, t0, t1, load, upper = _sweep_all(starts, ends, rates, flows, ptr, res, cap, compiled)
    assert np.all(t0 < t1)
    for r, a, b, L, U in zip(out_r, t0, t1, load, upper):
        exact = _exact_load(int(r), a, starts, ends, rates, flows, ptr, res)
        # the proven upper bound on the exact load in units of capacity
        assert Fraction(float(U)) >= exact / Fraction(float(cap[r]))
        # and it is tight: within a few ulps of the largest magnitude involved
        assert abs(Fraction(float(L)) - exact) <= Fraction(1e-12) * (1 + abs(exact))
        assert U * cap[r] - L <= 1e-12 * (1 + abs(L))


def test_cancellation_is_exact_where_a_plain_sum_is_not():
    # one resource: rates 1e16, 1, then the 1e16 ends: a plain float running sum gives 0 for
    # the last interval's load of 1 (1e16 + 1 rounds to 1e16); TwoSum keeps the 1
    ptr = np.array([0, 1, 2], dtype=np.int64)
    res = np.array([0, 0], dtype=np.int64)
    cap = np.array([1.0])
    starts = np.array([0.0, 1.0])
    ends = np.array([2.0, 3.0])
    rates = np.array([1e16, 1.0])
    flows = np.array([0, 1], dtype=np.int64)
    out_r, t0, t1, load, upper = _sweep_all(starts, ends, rates, flows, ptr, res, cap, False)
    assert t0.tolist() == [0.0, 1.0, 2.0] and t1.tolist() == [1.0, 2.0, 3.0]
    assert load.tolist() == [1e16, 1e16 + 1, 1.0]
    assert 1.0 <= upper[2] < 1.0 + 1e-14  # bound: u + gamma_2 u (2e16 + 1), inflated


def test_flow_pass_flags():
    fl = np.array([0, 0, 1], dtype=np.int64)
    st_ = np.array([0.0, 1.0, 0.0])
    en = np.array([1.0, 2.0, 1.0])
    rt = np.array([1.0, 1.0, 1.0])
    args = (np.zeros(2), np.full(2, -np.inf), np.zeros(2), np.zeros(2, dtype=np.int64),
            np.full(2, -np.inf))
    assert vk.flow_pass.py_func(fl, st_, en, rt, *args) == 0
    assert args[2].tolist() == [2.0, 1.0] and args[4].tolist() == [2.0, 1.0]
    # out of time order within flow 0: the cheap test cannot tell; a negative rate; a release
    rel = np.array([0.5, 0.0])
    flags = vk.flow_pass.py_func(np.array([0, 0, 1], dtype=np.int64), np.array([1.0, 0.0, 0.0]),
                                 np.array([2.0, 1.0, 1.0]), np.array([1.0, 1.0, -1.0]), rel,
                                 np.full(2, -np.inf), np.zeros(2), np.zeros(2, dtype=np.int64),
                                 np.full(2, -np.inf))
    assert flags == vk.NOT_CHAINED | vk.NEGATIVE_RATE | vk.BEFORE_RELEASE


def test_plain_sweep_grows_its_buffers_without_loading_numba(tmp_path):
    """The plain-Python sweep (small schedules while numba is not loaded) calls the plain
    bodies of the state, the judgement and the buffer growth (``_verify_kernel._bind_any``):
    a schedule with more overloads than the first buffer's 64 rows is checked without loading
    numba, and its report is the compiled sweep's."""
    import json
    import os
    import subprocess
    import sys
    code = (
        "import sys, json\n"
        "from coflowopt import Instance, Coflow, Schedule\n"
        "from coflowopt import verify as V\n"
        "n = 150\n"
        "inst = Instance.from_coflows([Coflow('A', [(0, 0, 2.0)] * (2 * n))])\n"
        "f = list(range(2 * n)); s = [float(i // 2) for i in f]\n"
        "s = Schedule.from_pieces(f, s, [x + 1.0 for x in s], [1.0] * (2 * n))\n"
        "a = V.verify_schedule(inst, s, max_per_kind=1000).to_dict()\n"
        "print(json.dumps(['numba' in sys.modules, a['violation_counts']]))\n"
        "from coflowopt.rates._jit import load_kernels; load_kernels()\n"
        "V._PLAIN_PYTHON_PIECES = 0\n"
        "b = V.verify_schedule(inst, s, max_per_kind=1000).to_dict()\n"
        "from coflowopt import _verify_kernel as vk\n"
        "print(json.dumps([a == b, len(vk.capacity_sweep.signatures) > 0]))\n")
    env = {k: v for k, v in os.environ.items() if k != "COFLOWOPT_QUIET_JIT"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    first, second = (json.loads(ln) for ln in out.stdout.split("\n")[:2])
    # each unit interval: two rates of 1 through ingress 0 and egress 0 (capacity 1); each
    # flow sends 1 of its 2
    assert first == [False, {"capacity": 300, "undersent": 300}]
    assert second == [True, True]
