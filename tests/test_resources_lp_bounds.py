"""The LP bounds and LP orderings on instances over resources (issue 11, "LP bounds on
resources"): the ordering LP (parallel inequalities per resource), LP-OV, the interval LP, the
time-indexed LP and the slotted MIP, each written on the flow-to-resource incidence.

Must-show properties:

* hand-checked values on two tiny topologies: a line ``a -> s -> {b, c}`` (the big switch with
  one ingress and two egress ports, written as links) and a three-hop path whose middle link is
  shared by flows that a big switch would not put on one port;
* a big switch written as paths (``Instance.from_paths``) gives byte-identical LP matrices and
  the same certified values as the big switch;
* every LP bound is a certified ``lower_bound`` (checked again here in exact arithmetic) and at
  most the bnb optimum on fat-tree k=4 and leaf-spine 2x2 (oversubscription 2) instances with
  3-6 coflows, and at most every verified LP-ordered schedule (hypothesis, a few examples);
* the LP orderings with MADD (and greedy, where it runs on resources) give verified schedules;
* LP units scale the resource capacities (``certificates.in_units``), and the certificate files
  of a topology instance (format version 2) are confirmed by ``tools/check_certificate.py``.
"""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coflowopt import Instance
from coflowopt.bounds.lp_bounds import (interval_lp_bound, lp_ov_bound, ordering_lp_bound,
                                        time_indexed_lp_bound)
from coflowopt.certificate_files import instance_digest, lower_bound_certificate
from coflowopt.exact import bnb, slotted_mip
from coflowopt.exceptions import NotSupportedError
from coflowopt.formats import write_instance
from coflowopt.formulations.certificates import (check_certificate, in_units, normalised,
                                                 unit_scaling)
from coflowopt.formulations.interval_lp import build_interval_lp, interval_grid
from coflowopt.formulations.lp_orderings import lp_ov_order, ordering_lp_order, qsz
from coflowopt.formulations.lp_ov import build_lp_ov
from coflowopt.formulations.ordering_lp import build_ordering_lp, port_loads, solve_ordering_lp
from coflowopt.formulations.time_indexed import (TimeGrid, build_time_indexed, flow_groups,
                                                 safe_horizon)
from coflowopt.rates.greedy import greedy
from coflowopt.rates.madd import madd
from coflowopt.registry import get_algorithm
from coflowopt.results import OPTIMALITY_RTOL
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
LP_BOUNDS = {"ordering-lp": ordering_lp_bound, "lp-ov": lp_ov_bound,
             "interval-lp": interval_lp_bound, "time-indexed-lp": time_indexed_lp_bound}
TOPOLOGIES = {"fat-tree-k4": lambda: fat_tree(4),
              "leaf-spine-2x2-os2": lambda: leaf_spine(2, 2, 2, oversubscription=2)}


def _checker():
    spec = importlib.util.spec_from_file_location("check_certificate",
                                                  ROOT / "tools" / "check_certificate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------------------- instances
def paths_instance(capacity, coflows, *, weight=None, release=None) -> Instance:
    """``coflows``: per coflow a list of ``(src host, dst host, size, path)``."""
    fc, src, dst, size, plen, res = [], [], [], [], [], []
    for k, flows in enumerate(coflows):
        for s, d, z, p in flows:
            fc.append(k), src.append(s), dst.append(d), size.append(z)
            plen.append(len(p)), res.extend(p)
    ptr = np.r_[0, np.cumsum(plen)]
    hosts = max(max(src), max(dst)) + 1
    return Instance.from_paths(
        resource_capacity=capacity, coflow_ids=[f"C{k}" for k in range(len(coflows))],
        flow_coflow=fc, flow_src=src, flow_dst=dst, flow_size=size, path_ptr=ptr,
        path_resource=res, host_ids=[f"h{i}" for i in range(hosts)], weight=weight,
        release=release)


def line() -> Instance:
    """``a -> s -> b`` and ``a -> s -> c`` (links a-s: 1, s-b: 2, s-c: 1); coflow A sends 2 to
    b, coflow B sends 2 to c.  Link a-s is a single machine with two jobs of 2: OPT = 2 + 4."""
    return paths_instance([1.0, 2.0, 1.0], [[(0, 1, 2.0, [0, 1])], [(0, 2, 2.0, [0, 2])]])


def shared_core() -> Instance:
    """Three unit coflows on three-hop paths that all cross the core link 1 (capacity 1):
    A h0 -> h1 [0, 1, 2], B h2 -> h3 [3, 1, 4], C h0 -> h3 [0, 1, 4].  On a big switch with
    the hosts as ports A and B would not meet (OPT 4); here the core is one machine: OPT 6."""
    return paths_instance(np.ones(5), [[(0, 1, 1.0, [0, 1, 2])], [(2, 3, 1.0, [3, 1, 4])],
                                       [(0, 3, 1.0, [0, 1, 4])]])


def topology_instance(seed: int, topo_name: str, num_coflows: int, *, releases: bool = True
                      ) -> Instance:
    """A random host-to-host instance on a topology, routed by ECMP (as in
    tests/test_resources_exact.py): sizes 0.5..5, weights 0.2..3, releases on ~40 %."""
    topo = TOPOLOGIES[topo_name]()
    rng = np.random.default_rng(seed)
    H, K = topo.num_hosts, num_coflows
    counts = rng.integers(1, 4, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H
    rel = (np.round(rng.uniform(0.0, 3.0, K), 3) * (rng.random(K) < 0.4) if releases
           else np.zeros(K))
    bs = Instance.from_arrays(
        ingress_capacity=np.ones(H), egress_capacity=np.ones(H),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=src, flow_dst=dst, flow_size=np.round(rng.uniform(0.5, 5.0, F), 3),
        weight=np.round(rng.uniform(0.2, 3.0, K), 3), release=rel,
        meta={"name": f"{topo_name}-seed{seed}"})
    inst = on_topology(bs, topo, routing="ecmp", seed=seed)
    assert not inst.is_big_switch
    return inst


def as_paths(bs: Instance) -> Instance:
    """A big switch written as an instance over resources (ingress ``i`` is resource ``i``,
    egress ``j`` resource ``m_in + j``; path ``[i, m_in + j]``)."""
    m_in, F = bs.num_ingress, bs.num_flows
    return Instance.from_paths(
        resource_capacity=bs.capacity, coflow_ids=bs.coflow_ids, flow_coflow=bs.flow_coflow,
        flow_src=bs.flow_src, flow_dst=bs.flow_dst, flow_size=bs.flow_size,
        path_ptr=np.arange(0, 2 * F + 1, 2),
        path_resource=np.stack([bs.flow_src, m_in + bs.flow_dst], axis=1).ravel(),
        host_ids=[f"h{i}" for i in range(max(bs.num_ingress, bs.num_egress))],
        weight=bs.weight, release=bs.release, deadline=bs.deadline)


def _le(a, b) -> bool:
    a, b = float(a), float(b)
    return a <= b + OPTIMALITY_RTOL * max(abs(a), abs(b))


def _certified(inst: Instance, res) -> Fraction:
    """Assert ``res`` is a certified lower bound whose certificate checks again exactly (the
    LP rebuilt from the instance, per resource), and return its value."""
    assert res.kind == "lower_bound", res.message
    assert res.certificate_status == "certified"
    chk = check_certificate(inst, res.certificate, repair=True)
    assert chk.ok and chk.value == Fraction(res.value), (chk.reason, chk.value, res.value)
    return Fraction(res.value)


# ----------------------------------------------------------------------------- by hand
def test_loads_per_resource_by_hand():
    pl = port_loads(shared_core())
    # (resource, coflow, load): the core link 1 carries every coflow
    got = sorted(zip(pl.port.tolist(), pl.coflow.tolist(), pl.load.tolist()))
    assert got == [(0, 0, 1.0), (0, 2, 1.0), (1, 0, 1.0), (1, 1, 1.0), (1, 2, 1.0),
                   (2, 0, 1.0), (3, 1, 1.0), (4, 1, 1.0), (4, 2, 1.0)]


@pytest.mark.parametrize("make, values", [
    # line: link a-s is one machine with jobs 2, 2: the parallel inequality of {A, B} is
    # 2 C_A + 2 C_B >= (4 + 4 + 16) / 2, so C_A + C_B >= 6 = OPT; LP-OV: f_A >= 2 + 2 delta_BA,
    # f_B >= 2 + 2 delta_AB, sum >= 6.  Interval LP (tau = 2 * 1.25^l): Y_l <= tau_l / 2
    # completed at a_l = 2, 2, 2.5, 3.125, 3.90625: 2 + .5 + .78125 + 1.220703125 +
    # .18310546875.  Time-indexed (slot 1, 4 slots): the mean-busy-time rows of link a-s sum
    # to 2 (C_A + C_B) >= (0 + 1 + 2 + 3) + 4, both coflows at rate 1/2 attain 5.
    (line, {"ordering-lp": 6, "lp-ov": 6, "interval-lp": Fraction("4.68505859375"),
            "time-indexed-lp": 5, "opt": 6}),
    # shared core: three unit jobs on link 1: h(S) = (3 + 9) / 2 = 6; LP-OV sum f >= 3 + 3;
    # interval LP Y_l <= tau_l = 1.25^(l-1) up to 3, cost 1 + .25 + 1.25 * .3125 + 1.5625 *
    # .390625 + 1.953125 * .48828125 + 2.44140625 * .55859375; time-indexed: sum C >=
    # (0 + 1 + 2) + 3 / 2 (each coflow at rate 1/3 for three slots attains it).
    (shared_core, {"ordering-lp": 6, "lp-ov": 6,
                   "interval-lp": Fraction(1) + Fraction("0.25") + Fraction("0.390625")
                   + Fraction("0.6103515625") + Fraction("0.95367431640625")
                   + Fraction("1.3637542724609375"),
                   "time-indexed-lp": Fraction(9, 2), "opt": 6}),
], ids=["line", "shared-core"])
def test_lp_values_by_hand(make, values):
    inst = make()
    opt = bnb(inst, time_limit=20)
    assert opt.kind == "optimal" and opt.value == values["opt"]
    for name, fn in LP_BOUNDS.items():
        kw = {"slot": 1.0, "horizon": "safe"} if name == "time-indexed-lp" else {}
        v = _certified(inst, fn(inst, **kw))
        want = Fraction(values[name])
        # the certified figure is the repaired dual's: a few ulps below the LP value at most
        assert want * (1 - Fraction(1, 10**12)) <= v <= want, (name, float(v), float(want))
        assert v <= opt.value


def test_safe_horizon_uses_the_paths_bottleneck():
    # line: each flow alone at its path's smallest capacity (1 on both paths): 2 + 2
    assert safe_horizon(line()) == 4.0
    # capacity 4 on every link but the last hop of flow B (capacity 1/2): 2/4 + 2/(1/2)
    inst = paths_instance([4.0, 4.0, 0.5], [[(0, 1, 2.0, [0, 1])], [(0, 2, 2.0, [0, 2])]])
    assert safe_horizon(inst) == 4.5
    # the fluid LP without overflow slot is refused below the safe horizon, accepted at it
    with pytest.raises(Exception, match="safe horizon"):
        build_time_indexed(inst, TimeGrid(0.5, 8), overflow=False)
    lp = build_time_indexed(inst, TimeGrid(0.5, 9), overflow=False)
    assert lp.meta["horizon"] == 4.5


def test_flow_groups_merge_by_path():
    inst = paths_instance(np.ones(3), [[(0, 1, 1.0, [0, 1]), (0, 2, 2.0, [0, 2]),
                                        (0, 1, 3.0, [0, 1])], [(0, 1, 1.0, [0, 1])]])
    g = flow_groups(inst)
    assert g.coflow.tolist() == [0, 0, 1] and g.size.tolist() == [4.0, 2.0, 1.0]
    assert [g.res[g.res_ptr[j]:g.res_ptr[j + 1]].tolist() for j in range(3)] == \
        [[0, 1], [0, 2], [0, 1]]
    # the capacity row of link 0 carries every group, link 1 only the groups through it
    lp = build_time_indexed(inst, TimeGrid(1.0, 8), model="slotted")
    cap = lp.A[:3 * 8].toarray()
    x_cols = np.arange(3)[:, None] * 8 + np.arange(8)[None, :]       # x[g, t]
    assert np.array_equal(cap[0:8][:, x_cols[0]], np.eye(8))            # link 0, group 0
    assert np.array_equal(cap[0:8][:, x_cols[1]], np.eye(8))            # link 0, group 1
    assert not cap[8:16][:, x_cols[1]].any()                            # link 1, group 1


def test_slotted_mip_on_a_shared_core_by_hand():
    # one unit per slot through the core: the coflows complete at the ends of slots 1, 2, 3
    res = slotted_mip(shared_core(), delta=1.0, time_limit=20)
    assert res.kind == "feasible" and res.status == "slotted_optimal", res.message
    assert res.extra["slotted_value"] == 6.0 and res.report.ok and res.value == 6
    # compression horizon: no release, K = 3, sum_f d_f / b_f = 3 (b_f = 1, the path's
    # bottleneck) enlarged by its 1e-12 float slack, so ceil gives 4 slots
    assert res.extra["horizons"]["compression"] == 0 + 3 + 4
    assert "big_switch_only" not in get_algorithm("exact", "slotted-mip").tags


# ----------------------------------------------------------------------------- big switch
@pytest.mark.parametrize("seed", range(3))
def test_big_switch_as_paths_gives_the_same_matrices_and_values(seed):
    bs = random_instance(np.random.default_rng(300 + seed), max_ports=3, max_coflows=5,
                         max_flows=3, releases=bool(seed % 2), weights=True,
                         heterogeneous=seed == 2)
    gen = as_paths(bs)
    assert not gen.is_big_switch

    def same(a, b):
        for x, y in ((a.A.indptr, b.A.indptr), (a.A.indices, b.A.indices),
                     (a.A.data, b.A.data), (a.c, b.c), (a.row_lo, b.row_lo),
                     (a.row_hi, b.row_hi), (a.col_lo, b.col_lo), (a.col_hi, b.col_hi)):
            assert x.tobytes() == y.tobytes()
        assert a.exact.keys() == b.exact.keys()
        for k in a.exact:
            assert np.array_equal(np.asarray(a.exact[k], dtype=object),
                                  np.asarray(b.exact[k], dtype=object))

    cuts = solve_ordering_lp(bs).cuts
    same(build_ordering_lp(bs, cuts), build_ordering_lp(gen, cuts))
    for ports in ("used", "all"):
        same(build_lp_ov(bs, ports=ports), build_lp_ov(gen, ports=ports))
    same(build_interval_lp(bs, interval_grid(bs)), build_interval_lp(gen, interval_grid(gen)))
    grid = TimeGrid(0.5, int(np.ceil(safe_horizon(bs) / 0.5)))
    assert safe_horizon(bs) == safe_horizon(gen)
    for kw in ({}, {"overflow": False}, {"model": "slotted", "mip": True}):
        same(build_time_indexed(bs, grid, **kw), build_time_indexed(gen, grid, **kw))
    for name in ("lp-ov", "interval-lp"):
        assert LP_BOUNDS[name](bs).value == LP_BOUNDS[name](gen).value
    kw = {"slot": 0.5, "horizon": float(grid.T * 0.5)}
    assert time_indexed_lp_bound(bs, **kw).value == time_indexed_lp_bound(gen, **kw).value
    # the cutting-plane loop may start from other BSSI sets (tie rules differ over
    # resources); both converge to the LP optimum
    a, b = ordering_lp_bound(bs), ordering_lp_bound(gen)
    assert a.status == b.status == "optimal"
    assert _le(a.value, b.value) and _le(b.value, a.value)


@pytest.mark.parametrize("seed", range(3))
def test_lp_ov_exact_data_over_resources_equals_the_big_switch(seed):
    # sizes whose sums are not exact floats: the exact matrix entries and right-hand sides of
    # LP-OV over resources (suffix sums of dyadic integers) equal the big switch's (a
    # Fraction per pair entry)
    bs = random_instance(np.random.default_rng(500 + seed), max_ports=4, max_coflows=7,
                         max_flows=4, weights=True, heterogeneous=True)
    bs = bs.replace(flow_size=bs.flow_size * 0.1 + 1e-7)
    gen = as_paths(bs)
    for ports in ("used", "all"):
        a, b = build_lp_ov(bs, ports=ports), build_lp_ov(gen, ports=ports)
        assert "A_data" in a.exact
        assert a.A.data.tobytes() == b.A.data.tobytes()
        assert a.row_lo.tobytes() == b.row_lo.tobytes()
        for k in a.exact:
            assert list(a.exact[k]) == list(b.exact[k]), k


def test_slotted_mip_big_switch_as_paths():
    bs = random_instance(np.random.default_rng(42), max_ports=2, max_coflows=3, max_flows=2,
                         releases=True, weights=True, integer_sizes=True)
    a = slotted_mip(bs, delta=1.0, time_limit=20)
    b = slotted_mip(as_paths(bs), delta=1.0, time_limit=20)
    assert a.status == b.status == "slotted_optimal"
    assert a.extra["slotted_value"] == b.extra["slotted_value"] and b.report.ok


# ----------------------------------------------------------------------------- vs the optimum
CASES = [(0, "fat-tree-k4", 3, True), (1, "fat-tree-k4", 4, True), (4, "fat-tree-k4", 6, False),
         (5, "leaf-spine-2x2-os2", 4, True), (2, "leaf-spine-2x2-os2", 5, True),
         (3, "leaf-spine-2x2-os2", 6, False)]
IDS = [f"{n}-s{s}-K{k}{'-rel' if r else ''}" for s, n, k, r in CASES]


def _schedules(inst: Instance):
    """``[(label, verified value)]`` of the LP orderings with MADD, and with greedy where it
    runs on resources, and of the QSZ policy (interval LP, MADD on each group)."""
    sched = qsz(inst)
    assert sched.meta["engine"] == "madd"
    rep = verify_schedule(inst, sched)
    assert rep.ok, f"qsz: {rep.summary()}"
    out = [("qsz", rep.weighted_completion_time)]
    for oname, order_fn in (("ordering-lp", ordering_lp_order), ("lp-ov", lp_ov_order)):
        order = order_fn(inst)
        assert sorted(order.tolist()) == list(range(inst.num_coflows))
        allocs = [("madd", madd)]
        if not getattr(greedy, "big_switch_only", False):
            allocs.append(("greedy", greedy))
        for aname, alloc in allocs:
            rep = verify_schedule(inst, alloc(inst, order))
            assert rep.ok, f"{oname}+{aname}: {rep.summary()}"
            out.append((f"{oname}+{aname}", rep.weighted_completion_time))
    return out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bounds_below_the_optimum_and_schedules_above(case):
    seed, name, K, rel = case
    inst = topology_instance(seed, name, K, releases=rel)
    opt = bnb(inst, time_limit=30)
    assert opt.kind == "optimal", opt.message
    values = {n: _certified(inst, fn(inst)) for n, fn in LP_BOUNDS.items()}
    for n, v in values.items():
        assert _le(v, opt.value), (n, float(v), float(opt.value))
    if not rel:
        # LP-OV implies every parallel inequality without thresholds (formulations/lp_ov.md)
        assert _le(values["ordering-lp"], values["lp-ov"])
    L = inst.max_path_length
    for label, v in _schedules(inst):
        assert _le(opt.value, v), (label, v, float(opt.value))
        if label.endswith("+greedy"):
            # proofs/resource-model-guarantees.md, statement 4: an LP ordering with greedy
            # rates is within 2L (zero releases) or 2L + 1 of the LP whose order it follows
            lp = values["ordering-lp" if label.startswith("ordering-lp") else "lp-ov"]
            assert _le(v, (2 * L + (1 if rel else 0)) * lp), (label, v, float(lp), L)


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), topo=st.sampled_from(sorted(TOPOLOGIES)),
       K=st.integers(2, 4), rel=st.booleans())
def test_property_bound_le_every_verified_lp_schedule(seed, topo, K, rel):
    inst = topology_instance(seed, topo, K, releases=rel)
    scheds = _schedules(inst)
    best = min(v for _, v in scheds)
    for n, fn in LP_BOUNDS.items():
        v = _certified(inst, fn(inst))
        assert _le(v, best), (n, float(v), best)


def test_registry_no_longer_refuses_resources():
    for kind, name in (("bound", "ordering-lp"), ("bound", "lp-ov"), ("bound", "interval-lp"),
                       ("bound", "time-indexed-lp"), ("ordering", "ordering-lp"),
                       ("ordering", "lp-ov"), ("exact", "slotted-mip"), ("policy", "qsz")):
        assert "big_switch_only" not in get_algorithm(kind, name).tags, (kind, name)


def test_qsz_bvn_engine_is_refused_on_resources():
    with pytest.raises(NotSupportedError, match="big switch only"):
        qsz(line(), engine="bvn")
    # shared core: the interval LP's completion times put all three unit coflows in
    # geometric groups run back to back, each group's block as long as its core load
    sched = qsz(shared_core(), engine="madd")
    rep = verify_schedule(shared_core(), sched)
    assert rep.ok and rep.weighted_completion_time >= 6


# ----------------------------------------------------------------------------- units, files
def test_lp_units_scale_resource_capacities():
    base = topology_instance(1, "fat-tree-k4", 4)
    # capacities and sizes x 2^20: the same completion times; the LP is built in units of
    # powers of two near the values (exact), with the resource capacities scaled too
    big = base.replace(resource_capacity=base.resource_capacity * 2.0 ** 20,
                       flow_size=base.flow_size * 2.0 ** 20)
    unit = unit_scaling(big)
    assert unit["capacity_exp"] == 20 and unit["data_exp"] >= 20
    inst_u, u = normalised(big)
    assert u == unit and np.array_equal(inst_u.resource_capacity, base.resource_capacity)
    assert np.array_equal(in_units(big, unit).flow_size,
                          np.ldexp(big.flow_size, -unit["data_exp"]))
    for name in ("ordering-lp", "lp-ov", "interval-lp"):
        a, b = LP_BOUNDS[name](base), LP_BOUNDS[name](big)
        assert b.certificate.params["unit"]["capacity_exp"] == 20
        _certified(big, b)
        assert _le(a.value, b.value) and _le(b.value, a.value), (name, a.value, b.value)


def test_certificate_files_of_a_topology_are_confirmed(tmp_path):
    check = _checker()
    for seed, name, K, rel in CASES[:2] + CASES[3:5]:
        inst = topology_instance(seed, name, K, releases=rel)
        write_instance(inst, tmp_path / "i.json")
        doc = json.loads((tmp_path / "i.json").read_text())
        assert doc["version"] == 2
        assert check.Instance(doc).digest() == instance_digest(inst)
        for objective in ("weighted_completion_time", "weighted_cct"):
            res = ordering_lp_bound(inst, objective=objective)
            cert = json.loads(json.dumps(lower_bound_certificate(inst, res)))
            assert all("resource" in c and "port" not in c for c in cert["proof"]["cuts"])
            assert check.check(doc, cert).startswith(objective)
            assert Fraction(cert["claim"]["value"]) == Fraction(res.value)


def test_tampered_topology_certificates_are_rejected(tmp_path):
    check = _checker()
    inst = shared_core()
    write_instance(inst, tmp_path / "i.json")
    doc = json.loads((tmp_path / "i.json").read_text())
    cert = json.loads(json.dumps(lower_bound_certificate(inst, ordering_lp_bound(inst))))
    assert cert["proof"]["cuts"] and check.check(doc, cert)
    bad = json.loads(json.dumps(cert))
    bad["proof"]["cuts"][0]["resource"] = 99
    with pytest.raises(check.Rejected, match="not a resource"):
        check.check(doc, bad)
    bad = json.loads(json.dumps(cert))
    bad["claim"]["value"] = str(Fraction(cert["claim"]["value"]) + Fraction(1, 10**9))
    with pytest.raises(check.Rejected, match="less than the claimed"):
        check.check(doc, bad)
    # the same cut on a link that only one coflow uses proves less than the claim
    bad = json.loads(json.dumps(cert))
    for c in bad["proof"]["cuts"]:
        c["resource"] = 2
    with pytest.raises(check.Rejected):
        check.check(doc, bad)
    # a path through a resource twice is not an instance coflowopt reads
    twice = json.loads(json.dumps(doc))
    twice["coflows"][0]["flows"][0]["path"] = [0, 1, 0]
    with pytest.raises(check.Unreadable, match="twice"):
        check.Instance(twice)


def test_time_indexed_lp_size_estimate_over_resources():
    inst = topology_instance(3, "leaf-spine-2x2-os2", 6, releases=False)
    with pytest.raises(NotSupportedError, match="too large"):
        time_indexed_lp_bound(inst, max_nonzeros=100)
