"""The exact optimum of the integral matching model (coflowopt.exact.integral_mip).

* an independent brute force (depth-first search over every per-slot assignment of whole
  units, memoised on the remaining demands) on hypothesis-generated tiny instances (2-4
  flows, big switch and instances over resources, releases, weights, slot lengths): the
  MIP's optimum equals it exactly, with and without the fluid bound, and integral OPT >= fluid
  OPT (bnb); every incumbent verifies in :func:`coflowopt.slotted.verify_slotted`;
* the readable Pyomo model has the same optimum as the matrix MIP;
* horizon, symmetry rows, objective lattice, time limits, bounds (integral isolation, the LP
  relaxation), refusals, a big switch written as paths, a fat-tree instance;
* the command line: ``coflowopt exact --model integral`` and ``coflowopt bound --model
  integral``.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exact import bnb
from coflowopt.exact.integral_mip import (build_integral_mip, deadline_units, greedy_slotted,
                                          integral_data, integral_horizon,
                                          integral_isolated_bound, integral_lp_bound,
                                          integral_mip, objective_lattice,
                                          round_up_to_lattice)
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.registry import get_algorithm
from coflowopt.slotted import SlottedSchedule, verify_slotted
from coflowopt.testing import big_switch_as_paths, integral_reference_schedules


# ----------------------------------------------------------------------------- brute force
def brute_force(instance: Instance, slot: float = 1.0) -> tuple[Fraction, int]:
    """The integral optimum by exhaustive search, sharing nothing with the MIP.

    State: (slot t, remaining units of every flow).  In slot t every vector of whole units
    ``0 <= u_f <= remaining_f`` (0 before the flow's release slot) whose sum over the flows of
    each resource is at most ``capacity x slot`` is tried; a coflow whose last unit is sent in
    slot t costs ``w_k (t + 1) slot``.  The horizon ``max release slot + sum of sizes`` is safe
    (an empty slot after every release can be cut out of an optimal schedule).

    Returns the optimum and the number of memoised states.
    """
    F = instance.num_flows
    size = [int(v) for v in instance.flow_size.tolist()]
    assert all(v == s for v, s in zip(size, instance.flow_size.tolist()))
    s = Fraction(float(slot))
    cap = [Fraction(float(c)) * s for c in instance.capacity.tolist()]
    assert all(c.denominator == 1 for c in cap)
    cap = [int(c) for c in cap]
    ptr, res = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
    path = [res[ptr[f]:ptr[f + 1]] for f in range(F)]
    k_of = instance.flow_coflow.tolist()
    first = [int(-((-Fraction(float(instance.release[k_of[f]]))) // s)) for f in range(F)]
    w = [Fraction(float(x)) for x in instance.weight.tolist()]
    members = [[f for f in range(F) if k_of[f] == k] for k in range(instance.num_coflows)]
    H = max(first) + sum(size)

    @lru_cache(maxsize=None)
    def best(t: int, rem: tuple) -> Fraction | None:
        if not any(rem):
            return Fraction(0)
        if t >= H:
            return None
        out = None
        ranges = [range(rem[f] + 1) if first[f] <= t else range(1) for f in range(F)]
        for u in itertools.product(*ranges):
            load = [0] * len(cap)
            for f in range(F):
                for q in path[f]:
                    load[q] += u[f]
            if any(a > b for a, b in zip(load, cap)):
                continue
            nxt = tuple(r - a for r, a in zip(rem, u))
            cost = sum((w[k] * (t + 1) * s for k, fl in enumerate(members)
                        if any(rem[f] for f in fl) and not any(nxt[f] for f in fl)),
                       Fraction(0))
            rest = best(t + 1, nxt)
            if rest is not None and (out is None or cost + rest < out):
                out = cost + rest
        return out

    v = best(0, tuple(size))
    return v, best.cache_info().currsize


def test_brute_force_hand_checked():
    # one unit link, two unit coflows: 1 + 2
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 1)])])
    assert brute_force(inst)[0] == 3
    # the triangle: three unit flows pairwise sharing a link take three slots
    assert brute_force(triangle())[0] == 3
    # a release at 0.5: the coflow may start in slot 1 only
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], release=0.5, weight=2)])
    assert brute_force(inst)[0] == 2 * 3


def triangle(cap=1.0, size=1.0) -> Instance:
    return Instance.from_paths(
        resource_capacity=[cap] * 3, coflow_ids=["A"], flow_coflow=[0, 0, 0],
        flow_src=[0, 1, 0], flow_dst=[1, 2, 2], flow_size=[size] * 3, path_ptr=[0, 2, 4, 6],
        path_resource=[0, 1, 1, 2, 0, 2], host_ids=["u", "v", "w"])


# ----------------------------------------------------------------------------- instances
@st.composite
def tiny_instances(draw, resources: bool | None = None):
    """2-4 flows with sizes 1-2 in 1-3 coflows; a big switch (1-2 x 1-2 ports) or resources
    (2-3 resources, paths of 1-2 of them); capacities 1 or 2; releases in {0, 0.5, 1, 2};
    weights in {0, 0.5, 1, 3} or real."""
    F = draw(st.integers(2, 4))
    K = draw(st.integers(1, min(3, F)))
    k_of = sorted([k for k in range(K)] + draw(st.lists(st.integers(0, K - 1), min_size=F - K,
                                                          max_size=F - K)))
    size = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=F, max_size=F))
    real_w = draw(st.booleans())
    if real_w:
        weight = draw(st.lists(st.floats(0.1, 3.0).map(lambda x: round(x, 3)), min_size=K,
                               max_size=K))
    else:
        weight = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=K, max_size=K))
    release = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0]), min_size=K,
                            max_size=K))
    use_res = draw(st.booleans()) if resources is None else resources
    ids = [f"c{k}" for k in range(K)]
    if not use_res:
        m_in, m_out = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        cin = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=m_in, max_size=m_in))
        cout = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=m_out, max_size=m_out))
        return Instance.from_arrays(
            ingress_capacity=cin, egress_capacity=cout, coflow_ids=ids,
            flow_coflow=np.array(k_of), flow_src=np.array(draw(st.lists(
                st.integers(0, m_in - 1), min_size=F, max_size=F))),
            flow_dst=np.array(draw(st.lists(st.integers(0, m_out - 1), min_size=F,
                                            max_size=F))),
            flow_size=np.array(size), weight=np.array(weight), release=np.array(release),
            meta={"name": "tiny-big-switch"})
    R = draw(st.integers(2, 3))
    paths = [draw(st.lists(st.integers(0, R - 1), min_size=1, max_size=2, unique=True))
             for _ in range(F)]
    ptr = np.cumsum([0] + [len(p) for p in paths])
    return Instance.from_paths(
        resource_capacity=draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=R, max_size=R)),
        coflow_ids=ids, flow_coflow=k_of, flow_src=[0] * F, flow_dst=[1] * F,
        flow_size=size, path_ptr=ptr, path_resource=[q for p in paths for q in p],
        host_ids=["h0", "h1"], weight=weight, release=release,
        meta={"name": "tiny-resources"})


def _check_result(inst, res, slot=1.0):
    """The incumbent verifies in the integral verifier at exactly the claimed value."""
    assert isinstance(res.schedule, SlottedSchedule)
    rep = verify_slotted(inst, res.schedule)
    assert rep.ok, rep.summary()
    assert rep.weighted_completion_time == res.value
    assert res.schedule.slot == slot
    if res.bound is not None:
        assert Fraction(res.bound) <= res.value
    return rep


# ----------------------------------------------------------------------------- must-shows
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=tiny_instances())
def test_mip_equals_brute_force_and_bounds_the_fluid_optimum(inst):
    opt, _ = brute_force(inst)
    res = integral_mip(inst, time_limit=30)
    _check_result(inst, res)
    assert res.kind == "optimal", res.message
    assert res.value == opt, (res.value, opt, res.message)
    # the MIP alone (no fluid bound to close the gap): the same optimum
    alone = integral_mip(inst, time_limit=30, fluid_bound="none", mip_start=False)
    _check_result(inst, alone)
    assert alone.kind == "optimal" and alone.value == opt, alone.message
    # integral OPT >= fluid OPT
    fluid = bnb(inst, time_limit=30)
    assert fluid.kind == "optimal"
    assert Fraction(fluid.value) <= opt * (1 + Fraction(1, 10 ** 9))
    # every bound of the integral model is at most the optimum
    assert integral_isolated_bound(inst).value <= opt
    lpb = integral_lp_bound(inst)
    assert lpb.kind == "lower_bound" and lpb.value <= opt


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=tiny_instances(), slot=st.sampled_from([0.5, 2.0]))
def test_other_slot_lengths_equal_brute_force(inst, slot):
    # capacities x slot must be whole: double them for slot 0.5
    if slot == 0.5:
        if inst.is_big_switch:
            inst = inst.replace(ingress_capacity=2 * inst.ingress_capacity,
                                egress_capacity=2 * inst.egress_capacity)
        else:
            inst = inst.replace(resource_capacity=2 * inst.resource_capacity)
    opt, _ = brute_force(inst, slot)
    res = integral_mip(inst, slot=slot, time_limit=30)
    _check_result(inst, res, slot)
    assert res.kind == "optimal" and res.value == opt, (res.value, opt, res.message)


def test_integral_gap_on_the_triangle():
    """The triangle of unit links: integral 3 (one flow per slot), fluid 2 (all at 1/2)."""
    inst = triangle()
    res = integral_mip(inst, time_limit=20)
    _check_result(inst, res)
    assert res.kind == "optimal" and res.value == 3
    assert res.extra["fluid_bound"] == 2.0
    assert Fraction(bnb(inst).value) == 2
    # the fluid bound does not close it: the proof is HiGHS's, and says so
    assert res.certificate_status.startswith("proved by HiGHS")
    # with capacity 2 per link the integral model sends all three at once
    assert integral_mip(triangle(cap=2.0), time_limit=20).value == 1


def test_pyomo_model_has_the_mip_optimum():
    from coflowopt.formulations.pyomo_models import integral_mip_model, solve_model
    rng = np.random.default_rng(7)
    cases = [triangle()]
    for seed in range(4):
        from coflowopt.generators import uniform_random
        cases.append(uniform_random(3, 3, flows_per_coflow=(1, 3), size=(1, 3), seed=seed,
                                    weights="uniform" if seed % 2 else None,
                                    releases=(0, 3) if seed >= 2 else None))
    cases.append(big_switch_as_paths(cases[-1]))
    for inst in cases:
        res = integral_mip(inst, time_limit=30, fluid_bound="none")
        assert res.kind == "optimal", res.message
        data = integral_data(inst)
        T = integral_horizon(data, res.value)["safe"]
        status, obj = solve_model(integral_mip_model(inst, 1.0, T))
        assert status == "optimal"
        assert math.isclose(obj, float(res.value), rel_tol=1e-9), (obj, res.value)
    assert rng is not None


# ----------------------------------------------------------------------------- pieces
def test_greedy_and_reference_schedules_verify():
    from coflowopt.generators import uniform_random
    inst = uniform_random(4, 6, flows_per_coflow=(1, 4), size=(1, 5), seed=3, releases=(0, 4))
    for order in (None, np.arange(6)[::-1]):
        assert verify_slotted(inst, greedy_slotted(inst, order)).ok
    for s in integral_reference_schedules(inst).values():
        assert verify_slotted(inst, s).ok


def test_objective_lattice_and_rounding():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], weight=1.5),
                                  Coflow("B", [(0, 0, 1)], weight=2.25),
                                  Coflow("Z", [(0, 0, 1)], weight=0)])
    assert objective_lattice(inst) == Fraction(3, 4)
    assert objective_lattice(inst, 2.0) == Fraction(3, 2)
    assert round_up_to_lattice(Fraction(7, 2), Fraction(3, 4)) == Fraction(15, 4)
    assert round_up_to_lattice(3, Fraction(3, 4)) == 3
    zero = Instance.from_coflows([Coflow("Z", [(0, 0, 1)], weight=0)])
    assert objective_lattice(zero) is None
    res = integral_mip(zero, time_limit=10)
    assert res.kind == "optimal" and res.value == 0


def test_horizon_contains_the_brute_force_optimum():
    """With the safe horizon the MIP finds the brute force's optimum, and with a horizon
    one slot shorter than the optimum's need it cannot claim optimality."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], weight=1),
                                  Coflow("B", [(0, 1, 1)], weight=3, release=1),
                                  Coflow("C", [(1, 0, 2)], weight=0)])
    opt, _ = brute_force(inst)
    data = integral_data(inst)
    from coflowopt.exact.integral_mip import _best_greedy
    _, ub, _, _ = _best_greedy(data)
    hz = integral_horizon(data, ub)
    assert hz["safe"] == min(hz["compression"], hz["incumbent"])
    assert hz["compression"] == 1 + 6
    res = integral_mip(inst, time_limit=20, fluid_bound="none")
    assert res.kind == "optimal" and res.value == opt
    short = integral_mip(inst, time_limit=20, fluid_bound="none", horizon=3)
    assert short.extra["horizon_proven_safe"] is False
    assert short.kind == "feasible" or short.certificate_status == "proved exactly"


def test_symmetry_rows_keep_the_optimum():
    """Identical coflows (same weight, release and flows): the symmetry rows are built and
    the optimum is unchanged."""
    c = [Coflow(f"X{i}", [(0, 0, 2), (1, 1, 1)]) for i in range(3)] + \
        [Coflow("Y", [(0, 1, 1), (1, 0, 2)], weight=2)]
    inst = Instance.from_coflows(c)
    data = integral_data(inst)
    lp, info = build_integral_mip(data, 12)
    assert info["identical_classes"] == [[0, 1, 2]] and info["rows"]["symmetry"] > 0
    a = integral_mip(inst, time_limit=30, fluid_bound="none")
    b = integral_mip(inst, time_limit=30, fluid_bound="none", symmetry=False)
    assert a.kind == b.kind == "optimal" and a.value == b.value
    _check_result(inst, a)
    small = Instance.from_coflows([Coflow("X0", [(0, 0, 1), (0, 1, 1)]),
                                   Coflow("X1", [(0, 0, 1), (0, 1, 1)])])
    assert integral_mip(small, fluid_bound="none").value == brute_force(small)[0] == 2 + 4


def test_deadline_units_meets_the_fluid_completion_slots():
    from coflowopt.generators import uniform_random
    inst = uniform_random(4, 8, flows_per_coflow=(1, 4), size=(1, 5), seed=1)
    fl = bnb(inst, time_limit=30)
    due = np.array([int(-((-Fraction(c)) // 1)) for c in fl.report.coflow_completion])
    data = integral_data(inst)
    units = deadline_units(data, due, time_limit=20)
    assert units is not None
    from coflowopt.exact.integral_mip import _split_groups
    rep = verify_slotted(inst, _split_groups(data, *units))
    assert rep.ok and all(c <= d for c, d in zip(rep.coflow_completion, due.tolist()))


def test_time_limit_returns_status_bound_and_incumbent():
    from coflowopt.generators import uniform_random
    inst = uniform_random(4, 10, flows_per_coflow=(2, 4), size=(1, 5), seed=11,
                          weights="uniform", releases=(0, 6))
    res = integral_mip(inst, time_limit=0.5, fluid_bound="none")
    _check_result(inst, res)
    if res.kind != "optimal":
        assert res.status == "time_limit", res.status
        assert res.bound is not None and Fraction(res.bound) <= res.value
        assert res.gap is not None and res.gap >= 0
    res0 = integral_mip(inst, time_limit=0)
    _check_result(inst, res0)
    assert res0.kind in ("feasible", "optimal")


def test_refusals():
    frac = Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])])
    with pytest.raises(NotSupportedError, match="whole sizes"):
        integral_mip(frac)
    half = Instance.from_coflows([Coflow("A", [(0, 0, 1)])], ingress_capacity=[0.5],
                                 egress_capacity=[1.0])
    with pytest.raises(NotSupportedError, match="whole units per slot"):
        integral_mip(half)
    assert integral_mip(half, slot=2.0, time_limit=10).value == 2
    ok = Instance.from_coflows([Coflow("A", [(0, 0, 1)])])
    for kw in ({"slot": 0}, {"slot": float("nan")}, {"horizon": 0}, {"horizon": "long"},
               {"fluid_bound": "x"}, {"fluid_share": 2}, {"time_limit": -1},
               {"max_columns": 0}):
        with pytest.raises(InvalidParameterError):
            integral_mip(ok, **kw)
    from coflowopt.generators import uniform_random
    big = uniform_random(4, 6, size=(1, 5), seed=0)
    with pytest.raises(NotSupportedError, match="max_columns"):
        integral_mip(big, fluid_bound="none", max_columns=10, objective_cut=False)


def test_registry_entry():
    alg = get_algorithm("exact", "integral-mip")
    assert "integral_model" in alg.tags and "big_switch_only" not in alg.tags
    from coflowopt.registry import TAGS
    assert "integral_model" in TAGS


def test_big_switch_as_paths_and_fat_tree():
    from coflowopt.generators import uniform_random
    from coflowopt.topology import fat_tree, on_topology
    bs = uniform_random(3, 5, flows_per_coflow=(1, 3), size=(1, 4), seed=5, weights=(1, 3),
                        releases=(0, 3))
    a = integral_mip(bs, time_limit=30)
    b = integral_mip(big_switch_as_paths(bs), time_limit=30)
    assert a.kind == b.kind == "optimal" and a.value == b.value
    _check_result(bs, a)
    host = uniform_random(4, 4, flows_per_coflow=(1, 3), size=(1, 4), seed=2)
    ft = on_topology(host, fat_tree(4), seed=0)
    assert not ft.is_big_switch
    res = integral_mip(ft, time_limit=60)
    _check_result(ft, res)
    assert res.kind == "optimal"
    fl = bnb(ft, time_limit=30)
    assert fl.kind == "optimal" and Fraction(fl.value) <= res.value * (1 + Fraction(1, 10 ** 9))
    for s in integral_reference_schedules(ft).values():
        assert res.value <= verify_slotted(ft, s).weighted_completion_time


def test_bounds_of_the_integral_model():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=0.5)])
    assert integral_isolated_bound(inst).value == 4
    assert integral_isolated_bound(inst, objective="weighted_cct").value == Fraction(7, 2)
    lp = integral_lp_bound(triangle())
    assert lp.kind == "lower_bound" and 2 <= lp.value <= 3


# ----------------------------------------------------------------------------- command line
def _write(tmp_path, inst, name="i.json"):
    from coflowopt.formats import write_instance
    p = tmp_path / name
    write_instance(inst, str(p))
    return str(p)


def test_cli_exact_model_integral(tmp_path, capsys):
    from coflowopt.cli import main
    path = _write(tmp_path, triangle())
    out = tmp_path / "s.json"
    assert main(["exact", path, "--model", "integral", "--json", "--out", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "integral-mip" and d["model"] == "integral"
    assert d["kind"] == "optimal" and d["value"] == 3
    doc = json.loads(out.read_text())
    assert doc["format"] == "coflowopt-slotted-schedule"
    assert main(["exact", path, "--model", "integral", "-p", "fluid_bound=none"]) == 0
    text = capsys.readouterr().out
    assert "integral" in text and "verified integral" in text
    # the fluid model's methods are refused with --model integral, and the reverse
    for argv in (["exact", path, "--model", "integral", "--method", "bnb"],
                 ["exact", path, "--method", "integral-mip"],
                 ["exact", path, "--model", "integral", "--float"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and err


def test_cli_bound_model_integral(tmp_path, capsys):
    from coflowopt.cli import main
    path = _write(tmp_path, triangle())
    assert main(["bound", path, "--model", "integral", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["model"] == "integral"
    rows = {r["algorithm"]: r for r in d["results"]}
    assert {"integral-isolated", "integral-lp"} <= set(rows)
    assert rows["integral-lp"]["kind"] == "lower_bound"
    assert all(r.get("value") is None or r["value"] <= 3 + 1e-9 for r in rows.values())
    assert rows["isolated"]["model"] == "fluid"
    assert main(["bound", path, "--model", "integral", "--method", "integral-lp"]) == 0
    capsys.readouterr()
    assert main(["bound", path, "--method", "integral-lp"]) == 2
    assert "--model integral" in capsys.readouterr().err
    frac = _write(tmp_path, Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])]), "f.json")
    assert main(["bound", frac, "--model", "integral", "--method", "integral-lp"]) == 2
    assert "whole" in capsys.readouterr().err


@pytest.mark.parametrize("threads", [-1, 10 ** 30, 2.0, True])
def test_integral_mip_threads_refused_on_entry(threads):
    """integral-mip passed ``threads`` to HiGHS only when it built a model: on an instance its
    fluid bound closes, threads=-1 (or 10^30) ran with exit 0 (fuzz_edges_2026-11-30
    'params'); now refused on entry, naming it, as HighsModel refuses it (one check)."""
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.exceptions import InvalidParameterError
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 1, 1.0)])])
    with pytest.raises(InvalidParameterError, match="threads"):
        integral_mip(inst, threads=threads)
