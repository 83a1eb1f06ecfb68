"""The exact methods on instances over resources (topologies): each flow occupies every resource
of its path at one rate.

Must-show properties (issue: flows over shared resources):

* bnb's optimum equals enumerate-orders' optimum, both ``optimal``, on small random fat-tree
  (k=4) and leaf-spine 2x2 (oversubscription 2 and 4) instances with releases and weights;
* every registered bound that runs on resources is <= OPT (relative tolerance
  ``results.OPTIMALITY_RTOL``); bounds still tagged ``big_switch_only`` are skipped, the
  exact side's own DP and isolated bounds are always checked;
* every registered ordering + greedy/madd and policy that runs on resources gives a verified
  schedule whose value is >= OPT;
* hypothesis: ``bound <= OPT <= every verified schedule`` on topology instances;
* hand-checked optima on a line topology; a big switch written as paths has the big-switch
  optimum; deadline-mip on a line by hand and on the big switch written as paths.

The registry is iterated, so algorithms generalised later are covered automatically.  An
algorithm without the tag that refuses a topology because an algorithm it calls still carries
it (e.g. a policy built on an ordering not yet generalised) is skipped and named; any other
refusal fails.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coflowopt import Instance
from coflowopt.exact import bnb, deadline_mip, enumerate_orders
from coflowopt.exact.subset_bounds import ROUNDING_RTOL, SubsetBounds
from coflowopt.exceptions import NotSupportedError, SolverNotAvailableError
from coflowopt.registry import algorithms
from coflowopt.results import OPTIMALITY_RTOL
from coflowopt.testing import load_all_algorithms, schedulers
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

load_all_algorithms()

SKIP_TAGS = {"big_switch_only", "exponential", "slow"}
TOPOLOGIES = {
    "fat-tree-k4": lambda: fat_tree(4),
    "leaf-spine-2x2-os2": lambda: leaf_spine(2, 2, 2, oversubscription=2),
    "leaf-spine-2x2-os4": lambda: leaf_spine(2, 2, 2, oversubscription=4),
}


# ----------------------------------------------------------------------------- instances
def topology_instance(seed: int, topo_name: str, num_coflows: int, *, max_flows: int = 3,
                      releases: bool = True) -> Instance:
    """A random host-to-host instance placed on a topology and routed by ECMP: random sizes
    (0.5..5), weights (0.2..3), releases on about 40 % of the coflows, distinct hosts per flow."""
    topo = TOPOLOGIES[topo_name]()
    rng = np.random.default_rng(seed)
    H = topo.num_hosts
    K = num_coflows
    counts = rng.integers(1, max_flows + 1, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H           # never the source host
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


#: (seed, topology, coflows, releases): 3-5 coflows with releases on every topology, and 6
#: coflows without releases (enumerate-orders' 720 orders times the release interleavings
#: would take about 20 s per instance with them)
CASES = [(seed, name, K, True) for seed, K in ((0, 3), (1, 4), (2, 5)) for name in TOPOLOGIES]
CASES += [(3, name, 6, False) for name in TOPOLOGIES]
IDS = [f"{n}-s{s}-K{k}{'-rel' if r else ''}" for s, n, k, r in CASES]
_OPT: dict = {}


def optimum(case):
    """bnb's result on a case (cached: several tests use the same optimum)."""
    if case not in _OPT:
        seed, name, K, rel = case
        inst = topology_instance(seed, name, K, releases=rel)
        _OPT[case] = (inst, bnb(inst, time_limit=30))
    return _OPT[case]


def _le(a, b) -> bool:
    """``a <= b`` up to the relative optimality tolerance."""
    a, b = float(a), float(b)
    return a <= b + OPTIMALITY_RTOL * max(abs(a), abs(b))


# ----------------------------------------------------------------------------- registry runs
_REFUSAL = re.compile(r"(\w+) '([^']+)' is defined on the big switch only")


def _dependency_refusal(exc: NotSupportedError, own: set[str]) -> str | None:
    """The name of the big_switch_only algorithm that refused, when it is not the algorithm
    under test itself (a dependency not generalised yet); None otherwise."""
    m = _REFUSAL.search(str(exc))
    if m and m.group(2) not in own:
        return f"{m.group(1)} {m.group(2)}"
    return None


def resource_bounds():
    """Registered bounds without big_switch_only."""
    return [a for a in algorithms("bound") if "big_switch_only" not in a.tags]


def resource_schedulers():
    """Registered ordering + greedy/madd pairs and policies that claim to run on resources
    (no big_switch_only on any part) and are not exponential or slow."""
    out = []
    for s in schedulers():
        if s.rates is not None and s.rates.name not in ("greedy", "madd"):
            continue
        if any(SKIP_TAGS & set(p.tags) for p in s.parts):
            continue
        out.append(s)
    return out


def run_bounds(inst: Instance):
    """``[(name, value)]`` of every registered bound that runs on ``inst``."""
    out = []
    for alg in resource_bounds():
        try:
            kw = {"time_limit": 10.0} if "needs_solver" in alg.tags else {}
            res = alg.func(inst, **kw)
        except SolverNotAvailableError:
            continue
        except NotSupportedError as e:
            if _dependency_refusal(e, {alg.name}):
                continue
            raise AssertionError(f"bound {alg.name} (not big_switch_only) refused a topology "
                                 f"instance: {e}") from e
        if res.kind == "lower_bound":
            out.append((alg.name, res.value))
    return out


def run_schedulers(inst: Instance):
    """``[(label, verified value)]`` of every scheduler that runs on ``inst``; asserts each
    schedule passes the verifier."""
    out = []
    for s in resource_schedulers():
        try:
            run = s.run(inst)
        except SolverNotAvailableError:
            continue
        except NotSupportedError as e:
            if _dependency_refusal(e, {p.name for p in s.parts}):
                continue
            raise AssertionError(f"{s.label} (not big_switch_only) refused a topology "
                                 f"instance: {e}") from e
        rep = run.report
        assert rep.ok, f"{s.label} on {inst.meta.get('name')}: {rep.summary()}"
        out.append((s.label, rep.weighted_completion_time))
    return out


def exact_side_bounds(inst: Instance):
    """Bounds that hold on every instance, computed here: the isolated bound
    ``sum_k w_k (r_k + rho_k)`` and the subset DP bound (deflated by its rounding allowance)."""
    iso = float(np.sum(inst.weight * (inst.release + inst.rho)))
    members = np.flatnonzero(inst.weight > 0)
    dpb = SubsetBounds(inst, members).dpb((1 << members.size) - 1)
    return [("isolated (direct)", iso * (1 - 1e-12)),
            ("subset DP", dpb - abs(dpb) * ROUNDING_RTOL)]


# ----------------------------------------------------------------------------- (a)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bnb_equals_enumerate_orders_on_topologies(case):
    inst, b = optimum(case)
    e = enumerate_orders(inst)
    assert b.kind == "optimal" and e.kind == "optimal", (b.message, e.message)
    assert b.report.ok and e.report.ok
    assert b.report.mode == e.report.mode == "exact"
    # both are proved optima: equal within the optimality tolerance (exactly when both are
    # proved exactly)
    assert _le(b.value, e.value) and _le(e.value, b.value), (b.value, e.value)
    if b.certificate_status == "proved exactly":
        assert Fraction(e.value) >= Fraction(b.value)
    # the schedules are the verifier's: every flow's resources within capacity
    rep = verify_schedule(inst, b.schedule, mode="exact")
    assert rep.ok and rep.weighted_completion_time == b.value


# ----------------------------------------------------------------------------- (b)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_resource_bound_is_at_most_the_optimum(case):
    inst, b = optimum(case)
    assert b.kind == "optimal"
    checked = run_bounds(inst) + exact_side_bounds(inst)
    checked.append(("bnb bound", b.bound))
    for name, v in checked:
        assert _le(v, b.value), f"{name} = {float(v)!r} > OPT = {float(b.value)!r}"


# ----------------------------------------------------------------------------- (c)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_resource_schedule_is_at_least_the_optimum(case):
    inst, b = optimum(case)
    assert b.kind == "optimal"
    runs = run_schedulers(inst)
    assert runs, "no scheduler runs on resources"   # madd and varys do
    for label, v in runs:
        assert _le(b.value, v), f"{label} = {float(v)!r} < OPT = {float(b.value)!r}"


# ----------------------------------------------------------------------------- (d)
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), topo=st.sampled_from(sorted(TOPOLOGIES)),
       K=st.integers(3, 4), releases=st.booleans())
def test_bound_le_opt_le_every_schedule_hypothesis(seed, topo, K, releases):
    inst = topology_instance(seed, topo, K, releases=releases)
    res = bnb(inst, time_limit=30)
    assert res.kind == "optimal", res.message
    opt = res.value
    for name, v in run_bounds(inst) + exact_side_bounds(inst):
        assert _le(v, opt), f"{name} = {float(v)!r} > OPT = {float(opt)!r}"
    for label, v in run_schedulers(inst):
        assert _le(opt, v), f"{label} = {float(v)!r} < OPT = {float(opt)!r}"


# ----------------------------------------------------------------------------- by hand
def line(flows, *, weight=None, release=None, deadline=None) -> Instance:
    """A line h0 -> h1 -> h2 -> h3 of unit links L0 = h0h1, L1 = h1h2, L2 = h2h3;
    ``flows`` are ``(coflow, src host, dst host, size)`` along the line."""
    src = [f[1] for f in flows]
    dst = [f[2] for f in flows]
    paths = [list(range(s, d)) for s, d in zip(src, dst)]
    ptr = np.cumsum([0] + [len(p) for p in paths])
    K = max(f[0] for f in flows) + 1
    return Instance.from_paths(
        resource_capacity=[1.0, 1.0, 1.0], coflow_ids=[chr(65 + k) for k in range(K)],
        flow_coflow=[f[0] for f in flows], flow_src=src, flow_dst=dst,
        flow_size=[float(f[3]) for f in flows], path_ptr=ptr,
        path_resource=[r for p in paths for r in p], host_ids=["h0", "h1", "h2", "h3"],
        resource_ids=["L0", "L1", "L2"], weight=weight, release=release, deadline=deadline)


@pytest.mark.parametrize("method", ["bnb", "enumerate-orders"])
def test_line_three_coflows_by_hand(method):
    # A: 2 units h0 -> h2 (L0, L1); B: 1 unit h1 -> h3 (L1, L2); C: 1 unit h2 -> h3 (L2).
    # A and B share L1 (load 3), B and C share L2 (load 2); alone A = 2, B = 1, C = 1.
    # Lower bound: if C_B >= 3 then C_A + C_B + C_C >= 2 + 3 + 1 = 6; otherwise C_A >= 3 (L1),
    # and either C_B >= 2 (sum >= 3 + 2 + 1) or C_C >= 2 (L2; sum >= 3 + 1 + 2): OPT >= 6.
    # B first (L1, L2 on [0, 1]), then C on L2 [1, 2] and A on L0, L1 [1, 3]: 1 + 2 + 3 = 6.
    inst = line([(0, 0, 2, 2), (1, 1, 3, 1), (2, 2, 3, 1)])
    assert inst.path_length.tolist() == [2, 2, 1]
    res = bnb(inst, time_limit=20) if method == "bnb" else enumerate_orders(inst)
    assert res.kind == "optimal" and res.value == 6, res.message
    assert verify_schedule(inst, res.schedule, mode="exact").weighted_completion_time == 6
    # on a big switch with the same ends the path no longer decides: only B and C interact
    # (egress h3), A runs alone: A = 2, B = 1, C = 2, total 5
    from coflowopt import Coflow
    bs = Instance.from_coflows([Coflow("A", [(0, 2, 2)]), Coflow("B", [(1, 3, 1)]),
                                Coflow("C", [(2, 3, 1)])])
    ref = bnb(bs, time_limit=20) if method == "bnb" else enumerate_orders(bs)
    assert ref.kind == "optimal" and ref.value == 5


@pytest.mark.parametrize("method", ["bnb", "enumerate-orders"])
def test_line_release_and_weights_by_hand(method):
    # A: 2 units h0 -> h2 (L0, L1), weight 1, released at 0; B: 1 unit h1 -> h3 (L1, L2),
    # weight 3, released at 1.  C_A >= 2, C_B >= 1 + 1 = 2, and max(C_A, C_B) >= 3 (L1 carries
    # 3 units from time 0).  If C_B >= 3: 2 + 3 * 3 = 11; else C_A >= 3: 3 + 3 * 2 = 9.
    # OPT = 9: A on [0, 1], B on [1, 2] (preempting A), A again on [2, 3].
    inst = line([(0, 0, 2, 2), (1, 1, 3, 1)], weight=[1.0, 3.0], release=[0.0, 1.0])
    res = bnb(inst, time_limit=20) if method == "bnb" else enumerate_orders(inst)
    assert res.kind == "optimal" and res.value == 9, res.message
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok and [Fraction(c) for c in rep.coflow_completion] == [3, 2]


def test_deadline_mip_on_a_line_by_hand():
    # A: 2 units on L0, L1 with deadline 2; B: 1 unit on L1, L2 with deadline 2: L1 would need
    # 3 units by time 2, so at most one meets its deadline (count 1).  With B's deadline at 3,
    # A on [0, 2] and B on [2, 3] meet both (count 2).
    tight = line([(0, 0, 2, 2), (1, 1, 3, 1)], deadline=[2.0, 2.0])
    res = deadline_mip(tight, time_limit=10)
    assert res.kind == "optimal" and res.value == 1 and res.report.ok
    loose = line([(0, 0, 2, 2), (1, 1, 3, 1)], deadline=[2.0, 3.0])
    res = deadline_mip(loose, time_limit=10)
    assert res.kind == "optimal" and res.value == 2
    assert res.report.ok and res.report.deadline_met.tolist() == [True, True]


# ----------------------------------------------------------------------------- big switch as paths
def as_paths(bs: Instance) -> Instance:
    """A big switch written as an instance over resources: resource ``i`` = ingress ``i``,
    ``m_in + j`` = egress ``j``, capacities the port capacities, path ``[i, m_in + j]``."""
    m_in = bs.num_ingress
    F = bs.num_flows
    return Instance.from_paths(
        resource_capacity=bs.capacity, coflow_ids=bs.coflow_ids, flow_coflow=bs.flow_coflow,
        flow_src=bs.flow_src, flow_dst=bs.flow_dst, flow_size=bs.flow_size,
        path_ptr=np.arange(0, 2 * F + 1, 2),
        path_resource=np.stack([bs.flow_src, m_in + bs.flow_dst], axis=1).ravel(),
        host_ids=[f"h{i}" for i in range(max(bs.num_ingress, bs.num_egress))],
        weight=bs.weight, release=bs.release, deadline=bs.deadline)


@pytest.mark.parametrize("seed", range(4))
def test_big_switch_as_paths_has_the_big_switch_optimum(seed):
    from coflowopt.testing import random_instance
    bs = random_instance(np.random.default_rng(1000 + seed), max_coflows=5, max_ports=3,
                         releases=True, weights=True, heterogeneous=True)
    gen = as_paths(bs)
    assert not gen.is_big_switch
    a, b = bnb(bs, time_limit=20), bnb(gen, time_limit=20)
    assert a.kind == b.kind == "optimal", (a.message, b.message)
    if a.certificate_status == b.certificate_status == "proved exactly":
        assert a.value == b.value
    else:
        assert _le(a.value, b.value) and _le(b.value, a.value)
    e = enumerate_orders(gen)
    assert e.kind == "optimal" and _le(e.value, b.value) and _le(b.value, e.value)


def test_deadline_mip_big_switch_as_paths():
    from coflowopt.testing import random_instance
    for seed in range(3):
        bs = random_instance(np.random.default_rng(2000 + seed), max_coflows=5, max_ports=3,
                             releases=True, weights=True, heterogeneous=True)
        bs = bs.replace(deadline=bs.release + 2.0 * bs.rho)
        a = deadline_mip(bs, time_limit=10)
        b = deadline_mip(as_paths(bs), time_limit=10)
        assert a.kind == b.kind == "optimal" and a.value == b.value
        assert b.report.ok


def test_exact_methods_no_longer_refuse_resources():
    from coflowopt.registry import get_algorithm
    for name in ("bnb", "enumerate-orders", "deadline-mip"):
        assert "big_switch_only" not in get_algorithm("exact", name).tags


# ----------------------------------------------------------------------------- limits and units
def test_time_limit_on_resources_gives_status_bound_and_incumbent():
    """On its time limit enumerate-orders returns the best verified schedule, status
    time_limit, and a proven bound; on resources, where the registered bounds may not run yet,
    the bound is the subset DP bound (> 0, <= OPT)."""
    case = (3, "fat-tree-k4", 6, False)
    inst, b = optimum(case)
    res = enumerate_orders(inst, time_limit=0)
    assert res.kind == "feasible" and res.status == "time_limit"
    assert res.report.ok and _le(b.value, res.value)
    assert 0 < float(res.bound) and _le(res.bound, b.value)
    res = bnb(inst, time_limit=0)
    assert res.kind != "optimal" and res.status == "time_limit"
    assert res.bound is None or _le(res.bound, b.value)


def test_topology_instance_at_sizes_and_times_1e6():
    """The event LPs are written in LP units (powers of two near 1), so a topology instance
    rescaled by 1e6 is solved like the original: the optimum scales by 1e6."""
    case = (1, "leaf-spine-2x2-os2", 4, True)
    inst, b = optimum(case)
    big = inst.scaled(1e6, 1e6)
    for res in (enumerate_orders(big), bnb(big, time_limit=20)):
        assert res.kind == "optimal", res.message
        assert abs(float(res.value) - 1e6 * float(b.value)) <= 1e-9 * 1e6 * float(b.value)
