"""The conformance suite on instances over resources (topologies): every registered algorithm
through :mod:`coflowopt.testing` on fat-tree ``k = 4``, 2x2 leaf-spine (oversubscription 2 and
4) and small random-graph instances, with random placement and ECMP.

Algorithms are discovered from the registry when this file is collected, as in
``tests/test_conformance.py``, whose :data:`KNOWN_FAILURES` table (with its reasons) applies
here too.  On an instance over resources:

* an algorithm with a part tagged ``big_switch_only`` must refuse it with
  :class:`~coflowopt.exceptions.NotSupportedError` (``check_refuses_resources``); it is then
  checked for nothing else;
* any other algorithm must pass every applicable check in its resource form (work
  conservation, order preservation and prefix-maximality on the paths, Lemma 3 over paths and
  the ``2 L`` guarantees of ``proofs/resource-model-guarantees.md``, relabelling resources and
  hosts, scaling, ...).  Refusing the instance because it is not a big switch (its own refusal
  or that of an algorithm it calls) is a failure;
* exact methods agree with each other, every bound is at most the optimum and the optimum at
  most every verified schedule;
* on a big switch written as paths, every check gives the big switch's verdict;
* the slotted algorithms of the integral model (kind ``slotted``; never run as fluid
  schedulers) pass :func:`coflowopt.testing.check_slotted` on the fixed instances with whole
  sizes and capacities (at most the integral optimum ``integral-mip`` proves on the small ones).

Budget: about 70 s with ``-n 2`` on two cores (``exponential`` and ``slow`` algorithms only see
instances with at most 4 coflows).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Instance
from coflowopt.exceptions import NotSupportedError, SolverNotAvailableError
from coflowopt.registry import Algorithm, algorithms, get_algorithm
from coflowopt.results import OPTIMALITY_RTOL
from coflowopt.schedule import Schedule
from coflowopt.testing import (Scheduler, applicable_checks, as_scheduler, big_switch_as_paths,
                               check_algorithm, check_exact, check_instance_not_mutated,
                               check_lower_bound, check_order_preserving,
                               check_ordered_load_bound, check_port_relabelling,
                               check_prefix_maximal, check_refuses_resources, check_scaling,
                               check_work_conserving, interval_rates, load_all_algorithms,
                               random_instance, random_topology_instance, relabel_resources,
                               topology_instances, TOPOLOGIES)
import coflowopt.testing as cotesting
from coflowopt.verify import verify_schedule

from test_conformance import BOUND_LIKE, SCHEDULERS, SLOTTED, expected_failure, supports

load_all_algorithms()

#: Random topology instances per scheduler (the total over all schedulers stays near 120).
EXAMPLES = max(2, min(10, 120 // max(1, len(SCHEDULERS))))
#: Exponential schedulers and costly bounds / exact methods: at most this many coflows.
MAX_EXPONENTIAL = 4
#: Seconds each bound or exact method may spend on the fixed instances (at least one runs).
BOUND_SECONDS = 4.0

REFUSAL = "defined on the big switch only"


# ---------------------------------------------------------------------------------- instances
def _inst(seed, topology, K, *, releases=False, weights=True, deadlines=False):
    inst = random_topology_instance(np.random.default_rng(seed), topology=topology,
                                    min_coflows=K, max_coflows=K, releases=releases,
                                    weights=weights,
                                    name=f"{topology}-s{seed}-K{K}"
                                         f"{'-rel' if releases else ''}"
                                         f"{'-dl' if deadlines else ''}")
    if deadlines:
        # every other coflow gets a deadline at release + 1.5 rho: not all can meet theirs
        dl = np.where(np.arange(K) % 2 == 0, inst.release + 1.5 * inst.rho, np.nan)
        inst = inst.replace(deadline=dl)
    assert not inst.is_big_switch
    return inst


#: Fixed topology instances (real random sizes: tie-free): every topology, with and without
#: releases and weights, one with deadlines; paths of 1 to 6 resources.
FIXED = [
    _inst(1, "fat-tree-k4", 4),
    _inst(2, "fat-tree-k4", 5, releases=True),
    _inst(3, "leaf-spine-2x2-os2", 4, releases=True),
    _inst(4, "leaf-spine-2x2-os4", 3, weights=False),
    _inst(5, "random-graph", 4, releases=True),
    _inst(6, "random-graph", 5),
    _inst(7, "leaf-spine-2x2-os2", 3, releases=True, deadlines=True),
]


def fits(sched: Scheduler, inst: Instance) -> bool:
    """Whether ``sched`` runs on ``inst`` in this suite: its tags, and at most
    :data:`MAX_EXPONENTIAL` coflows for ``exponential`` and ``slow`` schedulers (``clas``
    solves an LP per event: 12 s on the fixed instances without the cap)."""
    if "slow" in sched.tags and inst.num_coflows > MAX_EXPONENTIAL:
        return False
    return supports(sched, inst, max_exponential=MAX_EXPONENTIAL)


def run_checks(sched: Scheduler, inst: Instance) -> list[str] | None:
    """Unexpected failures of ``sched`` on the topology instance ``inst``; None when it
    declines the instance for a reason other than its being over resources, or lacks its
    solver."""
    try:
        outcome = check_algorithm(sched, inst, tie_free=True)
    except SolverNotAvailableError:
        return None
    except NotSupportedError as e:
        if REFUSAL in str(e):
            return [f"{sched.label}: not tagged big_switch_only, but it (or an algorithm it "
                    f"calls) refused {inst.meta.get('name')}: {e}"]
        return None
    except AssertionError as e:
        return [f"{sched.label}: {e}"]
    return [f"{name}: {msg}" for name, msg in outcome.items()
            if msg.startswith("FAILED") and expected_failure(name, sched.label) is None]


# ---------------------------------------------------------------------------------- the suite
@pytest.mark.parametrize("sched", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
def test_topology_instances(sched):
    ran, failures = 0, []
    for inst in FIXED:
        if sched.big_switch_only or fits(sched, inst):
            got = run_checks(sched, inst)
            if got is not None:
                failures += got
                ran += 1
    assert ran > 0, f"{sched.label}: no topology instance fits its tags (or all declined)"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("sched", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_topology_instances(sched, data):
    small = "exponential" in sched.tags
    inst = data.draw(topology_instances(max_coflows=MAX_EXPONENTIAL if small else 5,
                                        releases=sched.supports_releases), label="instance")
    if not (sched.big_switch_only or fits(sched, inst)):
        return
    failures = run_checks(sched, inst)
    assert not failures, "\n".join(failures)       # None (declined) passes


@pytest.mark.parametrize("alg", BOUND_LIKE, ids=[f"{a.kind}:{a.name}" for a in BOUND_LIKE])
def test_bounds_and_exact_methods_on_topologies(alg):
    label = f"{alg.kind}:{alg.name}"
    if "big_switch_only" in alg.tags:
        for inst in FIXED[:2]:
            check_refuses_resources(alg, inst)
        return
    check = check_lower_bound if alg.kind == "bound" else check_exact
    costly = bool({"exponential", "slow"} & alg.tags)
    max_k = MAX_EXPONENTIAL if costly else 5
    ran, failures = 0, []
    t0 = time.perf_counter()
    # an exact method of the integral model needs whole sizes and capacities: the same
    # topology instances with both rounded up
    fixed = FIXED if "integral_model" not in alg.tags else [integral_version(i) for i in FIXED]
    for inst in fixed:
        if ran and time.perf_counter() - t0 > BOUND_SECONDS:
            break
        if inst.num_coflows > max_k:
            continue
        if "zero_release_only" in alg.tags and inst.has_releases:
            continue
        try:
            check(alg, inst)
        except SolverNotAvailableError:
            continue
        except NotSupportedError as e:
            if REFUSAL in str(e):
                failures.append(f"{inst.meta['name']}: not tagged big_switch_only, but it (or "
                                f"an algorithm it calls) refused: {e}")
            continue                   # e.g. deadline-mip without deadlines
        except Exception as e:         # a crash is a failure too
            if expected_failure(check.__name__, label) is None:
                failures.append(f"{inst.meta['name']}: {type(e).__name__}: {e}")
        ran += 1
    if ran == 0 and not failures:
        pytest.skip(f"{label}: no solver or no fitting instance")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------- optimum
#: Small instances for the optimum: 3-4 coflows on every topology, with releases and weights.
BRACKET = [_inst(21, "fat-tree-k4", 4, releases=True), _inst(22, "leaf-spine-2x2-os2", 4),
           _inst(23, "leaf-spine-2x2-os4", 3, releases=True), _inst(24, "random-graph", 4)]


def _le(a, b) -> bool:
    """``a <= b`` up to the relative optimality tolerance (both sides may carry it)."""
    a, b = float(a), float(b)
    return a <= b + 2 * OPTIMALITY_RTOL * max(abs(a), abs(b))


@pytest.mark.parametrize("inst", BRACKET, ids=[i.meta["name"] for i in BRACKET])
def test_exact_methods_agree_and_bracket_every_bound_and_schedule(inst):
    """Every exact method that proves an optimum of the weighted completion time finds the
    same one; every registered bound is at most it, and every verified schedule (registered
    schedulers, exact methods' feasible answers) at least it."""
    optima, feasible = {}, {}
    for alg in algorithms("exact"):
        if "big_switch_only" in alg.tags or "integral_model" in alg.tags:
            # the integral model's optimum is >= the fluid one, not equal (next test)
            continue
        try:
            res = alg.func(inst)
        except (SolverNotAvailableError, NotSupportedError) as e:
            assert REFUSAL not in str(e), f"exact {alg.name}: {e}"
            continue
        if res.objective != "weighted_completion_time":
            continue
        if res.schedule is not None:
            rep = verify_schedule(inst, res.schedule)
            assert rep.ok, f"exact {alg.name}: {rep.summary()}"
            feasible[f"exact:{alg.name}"] = rep.weighted_completion_time
        if res.kind == "optimal":
            optima[alg.name] = float(res.value)
    assert {"bnb", "enumerate-orders"} <= set(optima), optima
    opt = min(optima.values())
    for name, v in optima.items():
        assert _le(v, opt), f"exact methods disagree: {optima}"
    for alg in algorithms("bound"):
        if "big_switch_only" in alg.tags:
            continue
        try:
            res = alg.func(inst)
        except SolverNotAvailableError:
            continue
        if res.kind == "lower_bound" and res.objective == "weighted_completion_time":
            assert _le(res.value, opt), f"bound {alg.name} = {float(res.value)!r} > OPT {opt!r}"
    ran = 0
    for sched in SCHEDULERS:
        if sched.big_switch_only or not fits(sched, inst):
            continue
        try:
            run = sched.run(inst)
        except SolverNotAvailableError:
            continue
        assert run.report.ok, f"{sched.label}: {run.report.summary()}"
        feasible[sched.label] = run.report.weighted_completion_time
        ran += 1
    assert ran > 0
    for label, v in feasible.items():
        assert _le(opt, v), f"{label} = {float(v)!r} < OPT = {opt!r}"


def integral_version(inst: Instance) -> Instance:
    """``inst`` with every size and every resource capacity rounded up to a whole number (an
    instance of the integral model with slot 1): coflowopt.testing's, kept on resources."""
    out = cotesting.integral_version(inst)
    assert not out.is_big_switch
    return out


@pytest.mark.parametrize("inst", BRACKET[:3], ids=[i.meta["name"] for i in BRACKET[:3]])
def test_integral_exact_methods_bracket_the_fluid_optimum(inst):
    """Every exact method of the integral model (tag ``integral_model``), on the bracket
    instances with whole sizes and capacities: its slotted schedule verifies in the integral
    verifier, its optimum is at least the fluid optimum (bnb) and at most independent integral
    schedules; the methods of that model agree with each other."""
    from fractions import Fraction
    from coflowopt.slotted import verify_slotted
    from coflowopt.testing import integral_reference_schedules
    inst = integral_version(inst)
    fluid = get_algorithm("exact", "bnb")(inst)
    assert fluid.kind == "optimal", fluid.message
    refs = [verify_slotted(inst, s).weighted_completion_time
            for s in integral_reference_schedules(inst).values()]
    optima = {}
    for alg in algorithms("exact"):
        if "integral_model" not in alg.tags:
            continue
        res = alg.func(inst, time_limit=60)
        rep = verify_slotted(inst, res.schedule)
        assert rep.ok and rep.weighted_completion_time == Fraction(res.value), rep.summary()
        assert _le(fluid.value, res.value), f"{alg.name}: {res.value} < fluid OPT {fluid.value}"
        if res.kind == "optimal":
            assert res.value <= min(refs)
            optima[alg.name] = Fraction(res.value)
    assert len(set(optima.values())) <= 1, optima


@pytest.mark.parametrize("alg", SLOTTED, ids=[f"slotted:{a.name}" for a in SLOTTED])
def test_slotted_algorithms_on_topologies(alg):
    """Every slotted algorithm on the fixed topology instances with whole sizes and
    capacities: check_slotted (integral verifier, fluid form, determinism, per-slot
    maximality on the paths, order preservation, >= the integral optimum on the small ones);
    a refusal because the instance is not a big switch is a failure, except for an algorithm
    tagged big_switch_only, which must refuse (and only that is checked)."""
    from coflowopt.testing import check_slotted
    failures = []
    only = "big_switch_only" in alg.tags
    for inst in FIXED:
        ii = integral_version(inst)
        try:
            check_slotted(alg, ii, opt_time_limit=10.0)
            if only:
                failures.append(f"{ii.meta['name']}: tagged big_switch_only but ran")
        except NotSupportedError as e:
            if only and "big switch" in str(e):
                continue
            failures.append(f"{ii.meta['name']}: refused: {e}")
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------- big switch
#: Schedulers whose checks are compared on a big switch and on the same switch written as paths.
AS_PATHS = ["bssi+greedy", "sebf+greedy", "ordering-lp+greedy", "sebf+madd", "varys", "fair"]


@pytest.mark.parametrize("seed", range(3))
def test_checks_give_the_big_switch_verdict_on_a_big_switch_written_as_paths(seed):
    rng = np.random.default_rng(500 + seed)
    bs = random_instance(rng, max_ports=3, max_coflows=5, releases=seed == 2, weights=True,
                         heterogeneous=seed == 1, name=f"random-{seed}")
    gen = big_switch_as_paths(bs)
    for label in AS_PATHS:
        sched = as_scheduler(label)
        if sched.big_switch_only:
            continue
        a = check_algorithm(sched, bs, tie_free=True)
        b = check_algorithm(sched, gen, tie_free=True)
        assert set(a) <= set(b) and set(b) - set(a) <= {"check_prefix_maximal"}, (a, b)
        for name in b:
            assert (b[name] == "passed") == (a.get(name, "passed") == "passed"), \
                (label, name, a.get(name), b[name])
        ra, rb = sched.run(bs), sched.run(gen)
        assert abs(float(ra.report.weighted_completion_time)
                   - float(rb.report.weighted_completion_time)) <= \
            1e-9 * float(ra.report.weighted_completion_time), label
        sa = interval_rates(bs, ra.schedule, ra.report.flow_completion)
        sb = interval_rates(gen, rb.schedule, rb.report.flow_completion)
        if sa["load"].shape == sb["load"].shape:
            np.testing.assert_allclose(sa["load"], sb["load"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_greedy_is_prefix_maximal_on_a_big_switch(seed):
    """The general prefix-maximality check (paths ``[i, m_in + j]``) accepts greedy on big
    switches too: Algorithm 2 has it by construction (``proofs/ordered-load-lemma3.md``)."""
    bs = random_instance(np.random.default_rng(900 + seed), max_ports=4, max_coflows=6,
                         releases=seed % 2 == 1, weights=True, heterogeneous=seed >= 2)
    check_prefix_maximal("bssi+greedy", bs)
    check_prefix_maximal("fifo+greedy", bs)


# ---------------------------------------------------------------------------------- the checks
# The checks must catch broken algorithms on resources, not only pass good ones.
def _alg(kind, name, func, tags=()):
    return Algorithm(name=name, kind=kind, func=func, summary="test double", reference="-",
                     tags=frozenset(tags))


BSSI = get_algorithm("ordering", "bssi")
GREEDY = get_algorithm("rates", "greedy")


def line(flows, capacity=(1.0, 1.0, 1.0)) -> Instance:
    """A line h0 - h1 - h2 - h3 of links L0, L1, L2; ``flows`` are ``(coflow, src, dst, size)``
    with ``src < dst`` (the path is the links between them)."""
    paths = [list(range(s, d)) for _, s, d, _ in flows]
    K = max(f[0] for f in flows) + 1
    return Instance.from_paths(
        resource_capacity=list(capacity), coflow_ids=[chr(65 + k) for k in range(K)],
        flow_coflow=[f[0] for f in flows], flow_src=[f[1] for f in flows],
        flow_dst=[f[2] for f in flows], flow_size=[float(f[3]) for f in flows],
        path_ptr=np.cumsum([0] + [len(p) for p in paths]),
        path_resource=[r for p in paths for r in p], host_ids=["h0", "h1", "h2", "h3"],
        resource_ids=["L0", "L1", "L2"], meta={"name": "line"})


# A: h0 -> h1 (L0), B: h2 -> h3 (L2), C: h0 -> h2 (L0, L1): A and B are independent
LINE = line([(0, 0, 1, 2.0), (1, 2, 3, 3.0), (2, 0, 2, 1.0)])


def _serial(instance, order):
    """One flow at a time in priority order at its path's bottleneck: feasible, idles links."""
    from coflowopt.rates.greedy import priority_flow_order
    t, fl, st_, en, rt = 0.0, [], [], [], []
    rel = instance.release[instance.flow_coflow]
    for f in priority_flow_order(instance, order):
        rate = float(instance.flow_bottleneck_capacity[f])
        t = max(t, rel[f])
        fl.append(f), st_.append(t), en.append(t + instance.flow_size[f] / rate), rt.append(rate)
        t = en[-1]
    return Schedule.from_pieces(fl, st_, en, rt)


def _reversed_greedy(instance, order):
    return GREEDY.func(instance, np.asarray(order)[::-1])


def _delayed_greedy(instance, order):
    s = GREEDY.func(instance, order)
    return Schedule(s.flow, s.start + 1.0, s.end + 1.0, s.rate)   # an absolute 1-unit delay


def _path_writer(instance, order):
    instance.meta["touched"] = True
    return GREEDY.func(instance, order)


@pytest.mark.parametrize("rates,check,match", [
    (_alg("rates", "serial", _serial, ["work_conserving"]), check_work_conserving,
     "not work-conserving"),
    (_alg("rates", "reversed", _reversed_greedy, ["order_preserving"]), check_order_preserving,
     "not order-preserving"),
    (_alg("rates", "delayed", _delayed_greedy), check_scaling, "scaling"),
    (_alg("rates", "delayed", _delayed_greedy), check_ordered_load_bound,
     "Lemma 3 over paths"),
    (_alg("rates", "meta-writer", _path_writer), check_instance_not_mutated, "modified"),
])
def test_checks_catch_broken_rates_on_resources(rates, check, match):
    sched = Scheduler(f"bssi+{rates.name}", ordering=BSSI, rates=rates)
    with pytest.raises(AssertionError, match=match):
        check(sched, LINE.replace(meta={"name": "line"}))


def test_prefix_maximality_is_stronger_than_order_preservation():
    # A (2 units, L0 + L1) is first, B (1 unit, L1) second.  Sharing L1 half and half
    # leaves L0 idle half the time: no flow waits with rate 0 and L1 is saturated, so the
    # allocation is work-conserving and order-preserving, but A is not served as if B did not
    # exist: L1 is saturated only by the coflows up to B's position, not up to A's.
    inst = line([(0, 0, 2, 2.0), (1, 1, 2, 1.0)])
    shared = Schedule.from_pieces([0, 1, 0], [0.0, 0.0, 2.0], [2.0, 2.0, 3.0],
                                  [0.5, 0.5, 1.0])
    assert verify_schedule(inst, shared).ok
    sched = Scheduler("given+shared", ordering=get_algorithm("ordering", "given"),
                      rates=_alg("rates", "shared", lambda i, o: shared,
                                 ["work_conserving", "order_preserving"]))
    check_work_conserving(sched, inst)
    check_order_preserving(sched, inst)
    with pytest.raises(AssertionError, match="not prefix-maximal"):
        check_prefix_maximal(sched, inst)
    # greedy in the same order serves A alone first: prefix-maximal
    check_prefix_maximal("given+greedy", inst)


def test_resource_relabelling_catches_hosts_read_as_resources():
    """An ordering that reads ``flow_src`` (a host on a topology) changes with the hosts'
    names; the relabelling check renames hosts and resources and sees it."""
    def by_source_host(instance):
        return np.argsort(np.minimum.reduceat(instance.flow_src, instance.flow_ptr[:-1]),
                          kind="stable")
    sched = Scheduler("by-host+greedy", ordering=_alg("ordering", "by-host", by_source_host),
                      rates=GREEDY)
    inst = line([(0, 0, 2, 2.0), (1, 1, 2, 1.5)], capacity=(1.0, 1.0, 1.0))
    caught = 0
    for seed in range(8):
        try:
            check_port_relabelling(sched, inst, seed=seed)
        except AssertionError as e:
            assert "renumbering the resources and hosts" in str(e)
            caught += 1
    assert caught > 0
    for seed in range(8):                      # BSSI reads the resources: never changes
        check_port_relabelling("bssi+greedy", inst, seed=seed)


def test_relabel_resources_keeps_the_model():
    inst = FIXED[2]
    perm = np.random.default_rng(0).permutation(inst.num_resources)
    other = relabel_resources(inst, perm, np.random.default_rng(1).permutation(inst.num_hosts))
    assert np.array_equal(other.capacity[perm], inst.capacity)
    assert np.array_equal(other.flow_resource, perm[inst.flow_resource])
    assert np.array_equal(other.rho, inst.rho)
    assert [other.resource_names[p] for p in perm] == list(inst.resource_names)
    assert np.array_equal(other.port_loads[:, perm], inst.port_loads)
    with pytest.raises(ValueError):
        relabel_resources(inst, np.zeros(inst.num_resources, dtype=int))


def test_refusal_check():
    """A big_switch_only algorithm must refuse: the registry's guard passes, a tagged double
    that runs anyway fails, and an untagged algorithm has nothing to refuse."""
    bvn_like = [a for a in algorithms() if "big_switch_only" in a.tags]
    for alg in bvn_like:
        if alg.kind in ("bound", "exact"):
            check_refuses_resources(alg, LINE)
        elif alg.kind == "rates":
            check_refuses_resources(Scheduler(f"bssi+{alg.name}", ordering=BSSI, rates=alg),
                                    LINE)
    runs_anyway = _alg("rates", "runs-anyway", GREEDY.func, ["big_switch_only"])
    sched = Scheduler("bssi+runs-anyway", ordering=BSSI, rates=runs_anyway)
    assert applicable_checks(sched, LINE) == [("check_refuses_resources",
                                               check_refuses_resources)]
    with pytest.raises(AssertionError, match="but ran"):
        check_refuses_resources(sched, LINE)
    assert check_algorithm(sched, LINE)["check_refuses_resources"].startswith("FAILED")
    with pytest.raises(AssertionError, match="not tagged"):
        check_refuses_resources("bssi+greedy", LINE)


def test_theorem_checks_apply_on_zero_release_topology_instances():
    sched = as_scheduler("bssi+greedy")
    zero = next(i for i in FIXED if not i.has_releases)
    names = [n for n, _ in applicable_checks(sched, zero, tie_free=True)]
    assert {"check_work_conserving", "check_order_preserving", "check_prefix_maximal",
            "check_ordered_load_bound", "check_bssi_guarantees",
            "check_port_relabelling"} <= set(names)
    late = next(i for i in FIXED if i.has_releases)
    names = [n for n, _ in applicable_checks(sched, late)]
    assert "check_bssi_guarantees" not in names and "check_ordered_load_bound" in names
    assert all(v == "passed" for v in check_algorithm(sched, zero, tie_free=True).values())


def test_every_topology_in_the_generator_builds_and_routes():
    for name in sorted(TOPOLOGIES):
        inst = random_topology_instance(np.random.default_rng(3), topology=name, weights=True,
                                        releases=True)
        assert not inst.is_big_switch and inst.num_coflows >= 2
        assert np.all(inst.flow_src != inst.flow_dst)
        assert inst.meta["topology"]["routing"] == "ecmp"
