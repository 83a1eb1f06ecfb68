"""The integral model's slotted algorithms (coflowopt.slotted_greedy): the conformance suite of
the table ``ALGORITHMS`` (every algorithm, and the ``order`` priority under every registered
ordering, verified in integral mode on hypothesis big-switch and fat-tree(4) instances), the
SYN greedy matching by hand on 2x2 examples, OCF/SRJF/MMF by hand, per-slot prefix-maximality
and the integral form of Sincronia's Lemma 3, and agreement with Sincronia's fluid greedy where
the two models coincide."""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.api import run_schedule
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.registry import algorithms
from coflowopt.slotted import SlottedSchedule, integral_capacities, verify_slotted
from coflowopt.slotted_greedy import (ALGORITHMS, first_slots, get_slotted, order_rank,
                                      run_slotted, slotted_algorithms, slotted_greedy)
from coflowopt.testing import big_switch_as_paths, load_all_algorithms
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

load_all_algorithms()
#: orderings that are cheap on small instances (exponential and solver ones are run once, on a
#: fixed instance, by test_every_registered_ordering_fixed)
FAST_ORDERINGS = [a.name for a in algorithms("ordering")
                  if not ({"exponential", "slow", "needs_solver"} & a.tags)]
ALL_ORDERINGS = [a.name for a in algorithms("ordering")]
RANDOMIZED = {a.name for a in algorithms("ordering") if "randomized" in a.tags}


# ---------------------------------------------------------------------------------- instances
@st.composite
def integral_instances(draw, *, topology: str | None = None, max_coflows: int = 5):
    """Small instances of the integral model: whole sizes 1-5, releases (whole, or on half
    slots), weights; a big switch with whole capacities 1-3, or hosts placed on a topology."""
    K = draw(st.integers(1, max_coflows))
    ports = 16 if topology == "fat-tree" else (4 if topology == "leaf-spine" else
                                               draw(st.integers(1, 4)))
    coflows = []
    for k in range(K):
        nf = draw(st.integers(1, 4))
        flows = []
        for _ in range(nf):
            i = draw(st.integers(0, ports - 1))
            j = draw(st.integers(0, ports - 1))
            if topology and i == j:
                j = (j + 1) % ports
            flows.append((i, j, draw(st.integers(1, 5))))
        rel = draw(st.sampled_from([0, 0, 1, 2, 3.5, 0.5]))
        coflows.append(Coflow(f"c{k}", flows, weight=draw(st.sampled_from([1, 2, 0.5])),
                              release=rel))
    if topology is None:
        cin = [draw(st.integers(1, 3)) for _ in range(ports)]
        cout = [draw(st.integers(1, 3)) for _ in range(ports)]
        return Instance.from_coflows(coflows, ingress_capacity=cin, egress_capacity=cout)
    hosts = Instance.from_coflows(coflows, ingress_capacity=[1] * ports,
                                  egress_capacity=[1] * ports)
    topo = fat_tree(4) if topology == "fat-tree" else leaf_spine(2, 2, 2, oversubscription=2)
    return on_topology(hosts, topo, seed=draw(st.integers(0, 1000)))


def slot_for(inst: Instance) -> float:
    """The shortest slot that makes every capacity x slot whole (1, 2 or 4 here)."""
    for s in (1.0, 2.0, 4.0):
        try:
            integral_capacities(inst, s)
            return s
        except NotSupportedError:
            pass
    raise AssertionError("no slot fits")


def check_schedule(inst: Instance, s: SlottedSchedule):
    """The integral verdict, and the fluid form with the same objective."""
    rep = verify_slotted(inst, s)
    assert rep.ok, (rep.summary(), rep.violations[:3])
    fluid = verify_schedule(inst, s.to_schedule(exact=True), mode="exact")
    assert fluid.ok and fluid.weighted_completion_time == rep.weighted_completion_time
    # never better than the isolated bound sum_k w_k (r_k + rho_k)
    iso = sum(Fraction(float(w)) * (Fraction(float(r)) + Fraction(float(p)))
              for w, r, p in zip(inst.weight, inst.release, inst.rho))
    assert rep.weighted_completion_time >= iso
    return rep


# ---------------------------------------------------------------------------------- by hand
def crossing_2x2() -> Instance:
    """A: 0->0 (2), 1->1 (1); B: 0->1 (1), 1->0 (2); unit capacities."""
    return Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(0, 1, 1), (1, 0, 2)])])


def entries(s: SlottedSchedule) -> list[tuple[int, int, int]]:
    c = s.canonical()
    return list(zip(c.slot_index.tolist(), c.flow.tolist(), c.units.tolist()))


def test_syn_greedy_matching_by_hand_2x2():
    inst = crossing_2x2()
    # order A, B.  Slot 0: the matching {A 0->0, A 1->1}; B's flows share a port with each.
    # Slot 1: A 0->0 again (1 unit left); B 0->1 needs ingress 0, B 1->0 egress 0: both
    # blocked, and ingress 1 / egress 1 idle (no data between them): the matching is maximal,
    # not maximum.  Slot 2: {B 0->1, B 1->0}; slot 3: B 1->0.
    s = slotted_greedy(inst, order=[0, 1])
    assert entries(s) == [(0, 0, 1), (0, 1, 1), (1, 0, 1), (2, 2, 1), (2, 3, 1), (3, 3, 1)]
    rep = verify_slotted(inst, s)
    assert rep.coflow_completion == [2, 4] and rep.weighted_completion_time == 6
    # order B, A: B's matching first, then B 1->0 alone (A 0->0 needs egress 0, A 1->1
    # ingress 1), then A's two flows, then A 0->0
    s = slotted_greedy(inst, order=[1, 0])
    assert entries(s) == [(0, 2, 1), (0, 3, 1), (1, 3, 1), (2, 0, 1), (2, 1, 1), (3, 0, 1)]
    assert verify_slotted(inst, s).coflow_completion == [4, 2]


def test_each_slot_is_a_maximal_matching_with_unit_capacities():
    rng = np.random.default_rng(5)
    for _ in range(20):
        K = int(rng.integers(2, 6))
        inst = Instance.from_coflows([Coflow(f"c{k}", [(int(rng.integers(0, 3)),
                                                        int(rng.integers(0, 3)),
                                                        int(rng.integers(1, 4)))
                                                       for _ in range(int(rng.integers(1, 4)))])
                                      for k in range(K)])
        for p in ("order", "ocf", "srjf", "mmf"):
            s = slotted_greedy(inst, p)
            check_schedule(inst, s)
            sent = np.zeros(inst.num_flows, dtype=np.int64)
            for t in range(s.num_slots):
                here = s.slot_index == t
                fl = s.flow[here]
                assert np.all(s.units[here] == 1)      # a matching: one unit per edge
                busy = set(inst.flow_src[fl].tolist()) | set(inst.flow_egress_port[fl].tolist())
                assert len(busy) == 2 * fl.size          # no port twice
                waiting = np.flatnonzero(sent < inst.flow_size)
                for g in waiting:                        # maximal: every waiting flow blocked
                    if g not in fl:
                        assert inst.flow_src[g] in busy or inst.flow_egress_port[g] in busy
                np.add.at(sent, fl, s.units[here])


def one_port(sizes, releases=None) -> Instance:
    """Flows through ingress 0 to distinct egresses, one coflow each."""
    releases = releases or [0] * len(sizes)
    return Instance.from_coflows([Coflow(f"c{k}", [(0, k, z)], release=r)
                                  for k, (z, r) in enumerate(zip(sizes, releases))])


def test_ocf_is_oldest_release_first():
    inst = one_port([2, 1], releases=[1, 0])
    s = slotted_greedy(inst, "ocf")
    # c1 (released at 0) runs in slot 0; c0 is released at 1: slots 1, 2
    assert entries(s) == [(0, 1, 1), (1, 0, 1), (2, 0, 1)]
    assert entries(s) == entries(slotted_greedy(inst, order=[1, 0]))  # = FIFO order


def test_srjf_flow_and_coflow():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (1, 1, 1)]),
                                  Coflow("B", [(0, 2, 2)])])
    # flow-level: B's 2 units beat A's 3 at ingress 0; A's 1->1 runs in parallel
    s = slotted_greedy(inst, "srjf")
    assert verify_slotted(inst, s).coflow_completion == [5, 2]
    # coflow-level: A has 4 units left, B 2: B first as well; once B is done A alone
    s = slotted_greedy(inst, "srjf", job="coflow")
    assert verify_slotted(inst, s).coflow_completion == [5, 2]
    # remaining units change the priority: A's flow drops below B's once it has sent 2
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=0),
                                   Coflow("B", [(0, 1, 2)], release=1)])
    s = slotted_greedy(inst2, "srjf")
    # slot 0: A (only one released), rem 2 = B's 2: tie -> older release (A); slot 1: A
    # (rem 2 vs 2, A older); slot 2: A (1 < 2); then B
    assert entries(s) == [(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 1, 1), (4, 1, 1)]


def test_mmf_round_robin_and_progressive_filling():
    inst = one_port([2, 2])
    s = slotted_greedy(inst, "mmf")
    # the head unit that waited longest: c0, c1, c0, c1
    assert entries(s) == [(0, 0, 1), (1, 1, 1), (2, 0, 1), (3, 1, 1)]
    # capacity 2 at ingress 0, three flows: one unit each per round -> two flows per slot,
    # the one left out first in the next slot
    inst3 = Instance.from_coflows([Coflow(f"c{k}", [(0, k, 2)]) for k in range(3)],
                                  ingress_capacity=[2], egress_capacity=[2, 2, 2])
    s = slotted_greedy(inst3, "mmf")
    assert entries(s) == [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 2, 1), (2, 1, 1), (2, 2, 1)]
    # strict priority gives a flow the whole port instead
    assert entries(slotted_greedy(inst3, order=[0, 1, 2]))[:1] == [(0, 0, 2)]


def test_releases_on_slot_starts():
    inst = one_port([1, 1], releases=[0.5, 0])
    assert first_slots(inst).tolist() == [1, 0]
    for p in ("order", "ocf", "srjf", "mmf"):
        s = slotted_greedy(inst, p)
        rep = check_schedule(inst, s)
        assert rep.coflow_completion == [2, 1]
    # slot 2: release 0.5 may use slot 1? no: slot 1 is [2, 4) (>= 0.5), slot 0 [0, 2)
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 2)], release=0.5)],
                                  ingress_capacity=[1], egress_capacity=[1])
    s = slotted_greedy(inst2, "ocf", slot=2.0)
    assert entries(s) == [(1, 0, 2)] and verify_slotted(inst2, s).coflow_completion == [4]


def test_parameters_are_checked():
    inst = crossing_2x2()
    with pytest.raises(InvalidParameterError, match="priority"):
        slotted_greedy(inst, "lifo")
    with pytest.raises(InvalidParameterError, match="permutation"):
        slotted_greedy(inst, order=[0, 0])
    with pytest.raises(InvalidParameterError, match="order"):
        slotted_greedy(inst, "mmf", order=[0, 1])
    with pytest.raises(InvalidParameterError, match="job"):
        slotted_greedy(inst, "srjf", job="pair")
    with pytest.raises(InvalidParameterError, match="unknown ordering"):
        slotted_greedy(inst, ordering="nope")
    with pytest.raises(InvalidParameterError, match="valid: .*slotted-mmf"):
        get_slotted("nope")
    with pytest.raises(NotSupportedError, match="whole sizes"):
        slotted_greedy(Instance.from_coflows([Coflow("A", [(0, 0, 0.5)])]))


# ---------------------------------------------------------------------------------- theory
def prefix_maximal_violations(inst: Instance, s: SlottedSchedule, order) -> list[str]:
    """Per slot: a released flow with units left that gets fewer units than it has left must
    have a resource on its path filled by flows of coflows at positions <= its own."""
    size, cap = integral_capacities(inst, s.slot)
    pos = np.empty(inst.num_coflows, dtype=np.int64)
    pos[np.asarray(order)] = np.arange(inst.num_coflows)
    fpos = pos[inst.flow_coflow]
    first = first_slots(inst, s.slot)[inst.flow_coflow]
    ptr, res = inst.flow_resource_ptr, inst.flow_resource
    left = size.copy()
    out = []
    for t in range(s.num_slots):
        here = s.slot_index == t
        got = np.zeros(inst.num_flows, dtype=np.int64)
        np.add.at(got, s.flow[here], s.units[here])
        # load of every resource by flows at positions <= p, per p: check per flow
        for g in np.flatnonzero((left > 0) & (first <= t) & (got < left)):
            path = res[ptr[g]:ptr[g + 1]]
            senders = np.flatnonzero((got > 0) & (fpos <= fpos[g]))
            full = False
            for r in path:
                load = sum(int(got[h]) for h in senders if r in res[ptr[h]:ptr[h + 1]])
                full |= load == cap[r]
            if not full:
                out.append(f"slot {t}: flow {g} gets {got[g]} of {left[g]} with room")
        left -= got
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=integral_instances(), data=st.data())
def test_order_priority_is_prefix_maximal_and_lemma3(inst, data):
    name = data.draw(st.sampled_from(FAST_ORDERINGS), label="ordering")
    s = slotted_greedy(inst, ordering=name,
                       ordering_params={"seed": 1} if name in RANDOMIZED else None)
    order = s.meta["order"]
    check_schedule(inst, s)
    assert prefix_maximal_violations(inst, s, order) == []
    if not inst.has_releases:
        # every slot before flow f's last one fills a resource of f's path with units of
        # coflows at positions <= f's: C_f - 1 <= sum over the path of L_r(<=k) / c_r
        _, cap = integral_capacities(inst)
        rep = verify_slotted(inst, s)
        rank = np.empty(inst.num_coflows, dtype=np.int64)
        rank[np.asarray(order)] = np.arange(inst.num_coflows)
        fpos = rank[inst.flow_coflow]
        ptr, res = inst.flow_resource_ptr, inst.flow_resource
        for g in range(inst.num_flows):
            bound = Fraction(1)
            for r in res[ptr[g]:ptr[g + 1]].tolist():
                load = sum(int(inst.flow_size[h]) for h in range(inst.num_flows)
                           if fpos[h] <= fpos[g] and r in res[ptr[h]:ptr[h + 1]].tolist())
                bound += Fraction(load, int(cap[r]))
            assert rep.flow_completion[g] <= bound


def test_same_as_sincronia_greedy_with_unit_capacities():
    """Unit capacities, whole sizes, releases on slot starts: Sincronia's greedy allocates all
    or nothing and changes only at whole times, so the slotted greedy in the same order is
    the same schedule, and rounding the fluid one loses nothing."""
    from coflowopt.slotted_rounding import round_fluid_schedule
    rng = np.random.default_rng(11)
    for trial in range(15):
        K = int(rng.integers(2, 7))
        inst = Instance.from_coflows(
            [Coflow(f"c{k}", [(int(rng.integers(0, 4)), int(rng.integers(0, 4)),
                               int(rng.integers(1, 6))) for _ in range(int(rng.integers(1, 5)))],
                    release=int(rng.integers(0, 4)) * (trial % 2))
             for k in range(K)])
        res = run_schedule(inst, "bssi", "greedy")
        s = slotted_greedy(inst, ordering="bssi")
        assert verify_slotted(inst, s).weighted_completion_time == \
            Fraction(res.value).limit_denominator(1)
        r = round_fluid_schedule(inst, res.schedule, fluid_report=res.report)
        assert r.loss == 1.0 and r.schedule.same_as(s)


# ---------------------------------------------------------------------------------- conformance
def run_all(inst: Instance, slot: float):
    """Every table algorithm (the order one with every fast ordering): (label, schedule)."""
    for alg in slotted_algorithms():
        if "big_switch_only" in alg.tags and not inst.is_big_switch:
            continue    # it refuses (tests/test_conformance_resources.py checks the refusal)
        if alg.name == "slotted-order":
            for name in FAST_ORDERINGS:
                params = {"seed": 7} if name in RANDOMIZED else None
                yield f"{name}+slotted", alg.func(inst, ordering=name, ordering_params=params,
                                                  slot=slot)
        else:
            yield alg.name, alg.func(inst, slot=slot)


@pytest.mark.parametrize("topology", [None, "fat-tree", "leaf-spine"])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_slotted_algorithm_verifies(topology, data):
    inst = data.draw(integral_instances(topology=topology), label="instance")
    slot = slot_for(inst)
    for label, s in run_all(inst, slot):
        try:
            rep = check_schedule(inst, s)
        except AssertionError as e:
            raise AssertionError(f"{label}: {e}") from e
        assert rep.num_slots >= 1
        # deterministic, and the instance untouched
        again = dict(run_all(inst, slot))[label]
        assert again.same_as(s), label


def test_every_registered_ordering_fixed():
    """Every registered ordering (solver and exponential ones too) as the slotted priority."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(0, 1, 1), (1, 0, 2)]),
                                  Coflow("C", [(1, 1, 2)], release=1)])
    ran = 0
    for name in ALL_ORDERINGS:
        try:
            s = slotted_greedy(inst, ordering=name)
        except (NotSupportedError, ImportError):  # an optional solver, or a refusal
            continue
        check_schedule(inst, s)
        assert sorted(s.meta["order"]) == [0, 1, 2] and s.meta["ordering"] == name
        ran += 1
    assert ran >= len(FAST_ORDERINGS)


def test_big_switch_written_as_paths_gives_the_same_schedules():
    rng = np.random.default_rng(3)
    for _ in range(10):
        inst = Instance.from_coflows(
            [Coflow(f"c{k}", [(int(rng.integers(0, 3)), int(rng.integers(0, 3)),
                               int(rng.integers(1, 5))) for _ in range(int(rng.integers(1, 4)))],
                    release=float(rng.integers(0, 3)))
             for k in range(int(rng.integers(2, 6)))], ingress_capacity=[1, 2, 1],
            egress_capacity=[2, 1, 1])
        paths = big_switch_as_paths(inst)
        for p in ("order", "ocf", "srjf", "mmf"):
            kw = {"order": list(range(inst.num_coflows))} if p == "order" else {}
            assert slotted_greedy(inst, p, **kw).same_as(slotted_greedy(paths, p, **kw)), p


def test_run_slotted_and_the_table():
    inst = crossing_2x2()
    assert set(ALGORITHMS) == {"slotted-order", "slotted-ocf", "slotted-srjf", "slotted-mmf"}
    for alg in slotted_algorithms():
        assert alg.kind == "slotted" and alg.summary and alg.reference
        s, rep = run_slotted(inst, alg.name)
        assert rep.ok
        if alg.name in ALGORITHMS:      # the per-slot greedies record their priority
            assert s.meta["priority"] in ("order", "ocf", "srjf", "mmf")
    s, rep = run_slotted(inst, "order", ordering="sebf")
    assert s.meta["ordering"] == "sebf"


def test_order_rank():
    inst = crossing_2x2()
    assert order_rank(inst, [1, 0]).tolist() == [2, 3, 0, 1]


@pytest.mark.benchmark
def test_twenty_coflows_8x8_well_under_a_second():
    rng = np.random.default_rng(0)
    K = 20
    counts = rng.integers(1, 20, K)
    F = int(counts.sum())
    inst = Instance.from_arrays(
        ingress_capacity=np.ones(8), egress_capacity=np.ones(8),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=rng.integers(0, 8, F), flow_dst=rng.integers(0, 8, F),
        flow_size=rng.integers(1, 100, F).astype(float),
        release=rng.integers(0, 50, K).astype(float))
    slotted_greedy(inst, "mmf")  # compile / load the kernel
    for p in ("order", "ocf", "srjf", "mmf"):
        t0 = time.perf_counter()
        s = slotted_greedy(inst, p)
        took = time.perf_counter() - t0
        assert verify_slotted(inst, s).ok
        assert took < 0.25, (p, took)
