"""Greedy order-preserving rates (Sincronia Algorithm 2): worked examples and the compiled
kernel against the plain-Python reference."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.rates import greedy
from coflowopt.verify import verify_schedule


def ts3():
    # seeds-000-002 digest T-S3 (0-based ports): A {(1,1,1)}, B {(1,1,2),(2,2,2)}, C {(2,1,3)}
    return Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
                                  Coflow("B", [(0, 0, 2), (1, 1, 2)]),
                                  Coflow("C", [(1, 0, 3)])])


def ts4():
    # T-S4: A {(1,1,2),(2,1,4)}, B {(1,1,9)}, C {(1,2,5),(2,2,6)}
    return Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
                                  Coflow("B", [(0, 0, 9)]),
                                  Coflow("C", [(0, 1, 5), (1, 1, 6)])])


@pytest.mark.parametrize("engine", ["kernel", "python"])
@pytest.mark.parametrize("order,expected", [
    ([0, 1, 2], [1, 3, 6]),   # ABC: sum 10, the optimum (digest table)
    ([0, 2, 1], [1, 6, 4]),   # ACB: 11
    ([1, 0, 2], [3, 2, 6]),   # BAC: 11
])
def test_ts3_greedy_completion_times(engine, order, expected):
    inst = ts3()
    rep = verify_schedule(inst, greedy(inst, order, engine=engine)).raise_if_invalid()
    assert rep.coflow_completion.tolist() == expected
    rep_x = verify_schedule(inst, greedy(inst, order, engine=engine), mode="exact")
    assert rep_x.ok and rep_x.weighted_completion_time == sum(expected)


@pytest.mark.parametrize("engine", ["kernel", "python"])
def test_ts4_bssi_order_beats_sebf_order(engine):
    inst = ts4()
    acb = verify_schedule(inst, greedy(inst, [0, 2, 1], engine=engine)).raise_if_invalid()
    abc = verify_schedule(inst, greedy(inst, [0, 1, 2], engine=engine)).raise_if_invalid()
    assert acb.coflow_completion.tolist() == [6, 16, 11] and acb.weighted_completion_time == 33
    assert abc.coflow_completion.tolist() == [6, 15, 16] and abc.weighted_completion_time == 37


def test_bad_order_and_engine_are_rejected():
    inst = ts3()
    with pytest.raises(InvalidParameterError, match="repeats"):
        greedy(inst, [0, 0, 1])
    with pytest.raises(InvalidParameterError, match="3 coflows"):
        greedy(inst, [0, 1])
    with pytest.raises(InvalidParameterError, match="engine"):
        greedy(inst, [0, 1, 2], engine="fast")


@st.composite
def instances(draw):
    m_in = draw(st.integers(1, 4))
    m_out = draw(st.integers(1, 4))
    K = draw(st.integers(1, 6))
    integral = draw(st.booleans())
    sizes = st.integers(1, 6).map(float) if integral else \
        st.floats(0.1, 6, allow_nan=False, allow_infinity=False)
    cofs = []
    for k in range(K):
        nf = draw(st.integers(1, 4))
        flows = [(draw(st.integers(0, m_in - 1)), draw(st.integers(0, m_out - 1)), draw(sizes))
                 for _ in range(nf)]
        cofs.append(Coflow(f"c{k}", flows, release=float(draw(st.integers(0, 3))) if
                           draw(st.booleans()) else 0.0))
    cap = st.sampled_from([0.5, 1.0, 2.0])
    het = draw(st.booleans())
    cin = [draw(cap) if het else 1.0 for _ in range(m_in)]
    cout = [draw(cap) if het else 1.0 for _ in range(m_out)]
    inst = Instance.from_coflows(cofs, ingress_capacity=cin, egress_capacity=cout)
    order = draw(st.permutations(range(K)))
    return inst, order


@given(instances())
def test_kernel_equals_reference(case):
    inst, order = case
    a = verify_schedule(inst, greedy(inst, order, engine="python"))
    b = verify_schedule(inst, greedy(inst, order, engine="kernel"))
    assert a.ok and b.ok
    np.testing.assert_allclose(b.coflow_completion.astype(float),
                               a.coflow_completion.astype(float), rtol=1e-9)


@given(instances())
def test_greedy_never_sends_before_release_and_is_order_preserving(case):
    inst, order = case
    s = greedy(inst, order)
    rep = verify_schedule(inst, s)
    assert rep.ok
    # with zero releases, the highest-priority coflow finishes at its isolated bound only if
    # it is alone on its ports; in general it is never later than the sum of its flows
    first = order[0]
    if not inst.has_releases:
        sl = inst.coflow_flows(first)
        assert rep.coflow_completion[first] <= float(
            (inst.flow_size[sl] / np.minimum(inst.ingress_capacity[inst.flow_src[sl]],
                                             inst.egress_capacity[inst.flow_dst[sl]])).sum()
        ) + 1e-9


# ------------------------------------------------------------------ the kernel layer (rates/_jit)
def _python(code: str, cwd, env_extra=None):
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop("COFLOWOPT_QUIET_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_registering_every_algorithm_does_not_import_numba(tmp_path):
    """Kernels are jitted lazily: listing the registry (``coflowopt algorithms``) never pays
    for numba; the first kernel call does."""
    out = _python("import sys; from coflowopt.testing import load_all_algorithms; "
                  "load_all_algorithms(); print('numba' in sys.modules); "
                  "from coflowopt import Instance, Coflow; from coflowopt.rates import greedy; "
                  "greedy(Instance.from_coflows([Coflow('A', [(0, 0, 1)])]), [0]); "
                  "print('numba' in sys.modules)", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]


def test_first_compilation_is_announced_once(tmp_path):
    """A kernel with a cold cache: one announcement line on standard error (before numba's
    start-up), one line per compiled kernel, nothing on standard output; warm: silence."""
    (tmp_path / "kmod.py").write_text(
        "from coflowopt.rates._jit import njit\n\n\n"
        "@njit(cache=True)\ndef twice(x):\n    return 2 * x\n\n\n"
        "@njit(cache=True)\ndef quad(x):\n    return twice(twice(x))\n")
    code = "import kmod; print(kmod.quad(3.0))"
    cold = _python(code, tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.strip() == "12.0"
    lines = cold.stderr.splitlines()
    assert lines[0] == "coflowopt: compiling kernels (first run, ~40 s, cached afterwards)..."
    assert sum("compiling kernels" in ln for ln in lines) == 1
    assert any(ln.startswith("coflowopt:   compiled quad") for ln in lines)
    warm = _python(code, tmp_path)
    assert warm.returncode == 0 and warm.stdout.strip() == "12.0"
    assert warm.stderr == ""
    quiet = _python("import kmod; kmod.twice.py_func; print(kmod.twice(1.0))", tmp_path,
                    {"COFLOWOPT_QUIET_JIT": "1"})
    assert quiet.stderr == ""


def test_borrowed_helpers_are_compiled_without_reference_counting():
    """``njit(borrowed=True)`` is numba's ``_nrt=False`` (``_jit.njit`` says why), and the
    helpers the kernels call in their inner loops are compiled that way; a borrowed helper
    called from a kernel writes through the arrays it is given."""
    import numba

    from coflowopt.policies import _flow_kernel as fk
    from coflowopt.rates import _pieces, _sorted
    from coflowopt.rates._jit import load_kernels, njit
    load_kernels()
    for f in (fk.heap_set, fk.heap_remove, fk._hp_up, fk._hp_down, fk._hp_swap, _pieces.put,
              _sorted.insert_at, _sorted.remove_at, _sorted.scan_back, _sorted.keep_positive):
        assert isinstance(f, numba.core.registry.CPUDispatcher), f
        assert f.targetoptions.get("_nrt") is False, f.py_func.__name__

    @njit(borrowed=True)
    def bump(a, i):
        a[i] += 1.0

    @njit
    def loop(a, n):
        for k in range(n):
            bump(a, k % a.shape[0])
        return a.sum()

    a = np.zeros(3)
    assert loop(a, 10) == 10.0 and a.tolist() == [4.0, 3.0, 3.0]
    # the indexed heap of the flow kernels, through its borrowed helpers
    hk, he = np.zeros(4), np.zeros(4, dtype=np.int64)
    pos, size = -np.ones(4, dtype=np.int64), np.zeros(1, dtype=np.int64)
    for e, key in ((0, 3.0), (1, 1.0), (2, 2.0), (3, 0.5)):
        fk.heap_set(hk, he, pos, size, e, key)
    fk.heap_set(hk, he, pos, size, 3, 5.0)
    fk.heap_remove(hk, he, pos, size, 1)
    order = []
    while size[0] > 0:
        order.append(int(he[0]))
        fk.heap_remove(hk, he, pos, size, int(he[0]))
    assert order == [2, 0, 3]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_slots_match_the_sorted_construction(seed):
    """The slots counted by ``greedy_slots`` are those of the stable sort they replaced:
    every (rank, resource of its path) entry sorted by resource, then rank (a path may cross a
    resource twice: its entries keep path order)."""
    from coflowopt.rates._greedy_kernel import greedy_slots
    rng = np.random.default_rng(seed)
    R, E, F = 7, 12, 200
    plen = rng.integers(1, 5, size=E)
    rptr = np.concatenate(([0], np.cumsum(plen))).astype(np.int64)
    rres = rng.integers(0, R, size=int(rptr[-1])).astype(np.int64)
    por = rng.integers(0, E, size=F).astype(np.int64)
    pair_ptr, pair_ranks, rank_off, rank_slot, slot_pair, res_end = greedy_slots(
        por, rptr, rres, R)
    # the construction it replaced (numpy, by lexsort)
    lens = np.diff(rptr)[por]
    off = np.concatenate(([0], np.cumsum(lens)))
    entry_rank = np.repeat(np.arange(F), lens)
    entry_res = rres[np.repeat(rptr[por] - off[:-1], lens) + np.arange(off[-1])]
    by_slot = np.lexsort((entry_rank, entry_res))
    ref_slot = np.empty(by_slot.size, dtype=np.int64)
    ref_slot[by_slot] = np.arange(by_slot.size)
    assert rank_off.tolist() == off.tolist()
    assert rank_slot.tolist() == ref_slot.tolist()
    assert slot_pair.tolist() == por[entry_rank[by_slot]].tolist()
    assert res_end.tolist() == np.cumsum(np.bincount(entry_res, minlength=R)).tolist()
    assert pair_ranks.tolist() == np.argsort(por, kind="stable").tolist()
    assert pair_ptr.tolist() == [0] + np.cumsum(np.bincount(por, minlength=E)).tolist()


def test_paths_kernel_lists_each_dirtied_resource_once(monkeypatch):
    """Regression: a resource dirtied again in the scan after its walk ended was listed
    twice in the kernel's per-resource ``touched`` array, which overran it (glibc aborted on
    the FB trace on a 10x4 leaf-spine at 2:1).  This instance, found by a random search,
    lists 18 resources of 16 without the fix; the kernel's own Python (numpy checks every
    index) runs it and gives the compiled kernel's pieces."""
    from coflowopt.rates import _greedy_kernel as gk
    from coflowopt.topology import leaf_spine, on_topology
    cfs = [Coflow("c0", [(1, 3, 5), (0, 0, 1), (0, 1, 2), (0, 2, 4), (3, 1, 2), (2, 2, 5)],
                  release=1.0),
           Coflow("c1", [(0, 3, 3), (3, 0, 3), (2, 2, 2), (0, 0, 1), (2, 2, 3), (3, 1, 3),
                         (0, 0, 5)]),
           Coflow("c2", [(3, 3, 1), (2, 0, 3)]),
           Coflow("c3", [(2, 3, 5), (0, 0, 5), (2, 1, 3)], release=2.0)]
    inst = on_topology(Instance.from_coflows(cfs), leaf_spine(2, 2, 2, oversubscription=2),
                       routing="ecmp", seed=0, placement="modulo")
    order = [0, 1, 2, 3]
    compiled = greedy(inst, order)
    verify_schedule(inst, compiled).raise_if_invalid()
    monkeypatch.setattr(gk, "greedy_simulate_paths", gk.greedy_simulate_paths.py_func)
    monkeypatch.setattr(gk, "prefetch", lambda a, i: None)
    plain = greedy(inst, order)
    for name in ("flow", "start", "end", "rate"):
        assert getattr(plain, name).tolist() == getattr(compiled, name).tolist()
    ref = verify_schedule(inst, greedy(inst, order, engine="python")).raise_if_invalid()
    assert verify_schedule(inst, compiled).coflow_completion.tolist() == pytest.approx(
        ref.coflow_completion.tolist())
