"""Fluid to integral (coflowopt.slotted_rounding): every rounded schedule verifies in the
integral model; no flow completes earlier than in the fluid schedule it came from (so the
integral objective is >= that schedule's), while an integral schedule in general *can* beat a
fluid schedule and never the fluid optimum; Konig's colouring uses exactly max ceil(L/c) slots
per overflowing slot; integral fluid schedules come back unchanged; ``schedule --slotted``."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance, Schedule
from coflowopt.api import run_schedule
from coflowopt.cli import main
from coflowopt.exact import bnb
from coflowopt.exceptions import (InfeasibleScheduleError, InvalidParameterError,
                                  NotSupportedError)
from coflowopt.formats import read_slotted_schedule, write_instance
from coflowopt.registry import algorithms
from coflowopt.slotted import verify_slotted
from coflowopt.slotted_greedy import slotted_greedy
from coflowopt.slotted_rounding import edge_colouring, round_fluid_schedule
from coflowopt.testing import load_all_algorithms

from test_slotted_algorithms import integral_instances, slot_for  # noqa: E402 - same folder

load_all_algorithms()
#: fluid schedulers that run on every small instance (policies and ordering + rates), quickly
POLICIES = [a.name for a in algorithms("policy")
            if not ({"exponential", "slow", "needs_solver", "big_switch_only"} & a.tags)]
PAIRS = [("bssi", "greedy"), ("sebf", "madd"), ("fifo", "madd"), ("bssi", "madd")]


def fluid_runs(inst: Instance, big_switch: bool):
    for o, r in PAIRS:
        yield f"{o}+{r}", run_schedule(inst, o, r)
    if big_switch and inst.uniform_capacity:
        yield "fifo+bvn", run_schedule(inst, "fifo", "bvn")
    for p in POLICIES:
        try:
            yield p, run_schedule(inst, policy=p)
        except NotSupportedError:
            continue


def check_rounding(inst, res, method, slot=1.0, exact_fluid=False):
    r = round_fluid_schedule(inst, res.schedule, slot=slot, method=method,
                             fluid_report=res.report)
    assert r.report.ok and verify_slotted(inst, r.schedule).ok
    # no flow earlier than in the fluid schedule (float schedules: up to the tolerance)
    for g, (ci, cf) in enumerate(zip(r.report.flow_completion, res.report.flow_completion)):
        cf = float(cf)
        assert float(ci) >= cf * (1 - 1e-9) - 1e-9, (g, ci, cf)
        # and it lands in the slot where the fluid schedule completed it, or later
        assert ci >= np.ceil(cf / slot - 1e-9) * slot
    assert float(r.integral_value) >= float(r.fluid_value) * (1 - 1e-9)
    assert r.loss >= 1 - 1e-9
    return r


# ---------------------------------------------------------------------------------- by hand
def test_fair_sharing_by_hand():
    """Two unit flows through ingress 0 at rate 1/2 each: fluid objective 4."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 1, 1)])])
    fair = Schedule.from_pieces([0, 1], [0.0, 0.0], [2.0, 2.0], [0.5, 0.5])
    for method in ("carry", "colouring", "greedy"):
        r = round_fluid_schedule(inst, fair, method=method)
        # both units complete in slot 1 of the fluid schedule; one of them waits a slot
        assert r.report.coflow_completion == [2, 3] and r.loss == 1.25
        assert r.overflow_slots == 1 and r.extra_slots == 1
    # an integral schedule can beat this fluid schedule (1 + 2 = 3 < 4): "never below the
    # fluid objective" is a property of the rounding, not of integral schedules ...
    s = slotted_greedy(inst, "ocf")
    assert verify_slotted(inst, s).weighted_completion_time == 3 < 4
    # ... and only the fluid optimum (here 3) bounds every integral schedule
    assert bnb(inst).value == 3


def test_exact_and_float_schedules_round_alike():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)]), Coflow("B", [(0, 1, 2), (1, 1, 1)])])
    res = run_schedule(inst, "fifo", "madd")
    exact = Schedule(res.schedule.flow, res.schedule.start.astype(object),
                     res.schedule.end.astype(object), res.schedule.rate.astype(object))
    exact = Schedule(exact.flow, np.array([Fraction(x) for x in res.schedule.start], object),
                     np.array([Fraction(x) for x in res.schedule.end], object),
                     np.array([Fraction(x) for x in res.schedule.rate], object))
    a = round_fluid_schedule(inst, res.schedule)
    b = round_fluid_schedule(inst, exact)
    assert a.schedule.same_as(b.schedule)


def test_units_before_a_release_move_to_the_first_slot():
    # release 0.5: the fluid schedule sends the unit at rate 2 in [0.5, 1): completed in slot
    # 0, which the coflow may not use (it starts before 0.5)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=0.5)],
                                 ingress_capacity=[2], egress_capacity=[2])
    fl = Schedule.from_pieces([0], [0.5], [1.0], [2.0])
    r = round_fluid_schedule(inst, fl)
    assert r.schedule.slot_index.tolist() == [1] and r.report.coflow_completion == [2]


def test_integral_fluid_schedules_come_back_unchanged():
    rng = np.random.default_rng(1)
    for _ in range(10):
        inst = Instance.from_coflows(
            [Coflow(f"c{k}", [(int(rng.integers(0, 3)), int(rng.integers(0, 3)),
                               int(rng.integers(1, 5))) for _ in range(int(rng.integers(1, 4)))],
                    release=float(rng.integers(0, 3)))
             for k in range(int(rng.integers(2, 5)))], ingress_capacity=[1, 2, 3],
            egress_capacity=[3, 1, 2])
        for p in ("order", "ocf", "srjf", "mmf"):
            s = slotted_greedy(inst, p)
            for method in ("carry", "colouring", "greedy"):
                r = round_fluid_schedule(inst, s.to_schedule(), method=method)
                assert r.schedule.same_as(s) and r.loss == 1.0 and r.overflow_slots == 0


def test_refusals():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)])])
    bad = Schedule.from_pieces([0], [0.0], [1.0], [1.0])          # undersends
    with pytest.raises(InfeasibleScheduleError):
        round_fluid_schedule(inst, bad)
    with pytest.raises(NotSupportedError, match="whole sizes"):
        round_fluid_schedule(Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])]),
                             Schedule.from_pieces([0], [0.0], [1.5], [1.0]))
    with pytest.raises(InvalidParameterError, match="method"):
        round_fluid_schedule(inst, Schedule.from_pieces([0], [0.0], [2.0], [1.0]),
                             method="bvn")
    from coflowopt.testing import big_switch_as_paths
    paths = big_switch_as_paths(inst)
    with pytest.raises(InvalidParameterError, match="big switch"):
        round_fluid_schedule(paths, Schedule.from_pieces([0], [0.0], [2.0], [1.0]),
                             method="colouring")


# ---------------------------------------------------------------------------------- Konig
@settings(max_examples=60, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1,
                      max_size=60))
def test_edge_colouring_uses_max_degree_colours(edges):
    left, right = zip(*edges)
    deg = max(max(np.bincount(left)), max(np.bincount(right)))
    c = edge_colouring(left, right, int(deg))
    assert c.min() >= 0 and c.max() < deg
    for side in (left, right):
        seen = set()
        for v, col in zip(side, c.tolist()):
            assert (v, col) not in seen  # proper: a vertex never sees a colour twice
            seen.add((v, col))


def test_edge_colouring_refuses_too_few_colours():
    with pytest.raises(InvalidParameterError, match="more than k"):
        edge_colouring([0, 0, 0], [0, 1, 2], 2)


def test_colouring_blocks_are_konig_tight():
    """Every overflowing fluid slot becomes exactly max_p ceil(L_p / c_p) slots."""
    # three flows at rate 1/3 through ingress 0 (capacity 1) over [0, 3): the floors give all
    # three units to slot 2 (load 3): one block of 3 slots (2, 3, 4)
    inst = Instance.from_coflows([Coflow(f"c{k}", [(0, k, 1)]) for k in range(3)])
    fl = Schedule.from_pieces([0, 1, 2], [0.0] * 3, [3.0] * 3, [1 / 3] * 3)
    r = round_fluid_schedule(inst, fl, method="colouring")
    assert r.overflow_slots == 1 and r.schedule.slot_index.tolist() == [2, 3, 4]
    # capacity 2, rates 2/3: a unit of each flow in slot 1 and in slot 2 (load 3 > 2 each):
    # two blocks of ceil(3 / 2) = 2 slots, [1, 2] and [3, 4], each port <= 2 per slot
    inst = Instance.from_coflows([Coflow(f"c{k}", [(0, k, 2)]) for k in range(3)],
                                 ingress_capacity=[2], egress_capacity=[2, 2, 2])
    fl = Schedule.from_pieces([0, 1, 2], [0.0] * 3, [3.0] * 3, [2 / 3] * 3)
    r = round_fluid_schedule(inst, fl, method="colouring")
    assert r.overflow_slots == 2 and r.report.num_slots == 5
    assert np.bincount(r.schedule.slot_index, r.schedule.units).tolist() == [0, 2, 1, 2, 1]
    # carrying the excess instead: 2 units per slot from slot 1 on, done by the end of slot 3
    carry = round_fluid_schedule(inst, fl, method="carry")
    assert carry.report.num_slots == 4 and carry.loss < r.loss


# ---------------------------------------------------------------------------------- properties
@pytest.mark.parametrize("topology", [None, "fat-tree", "leaf-spine"])
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_rounded_schedules_verify_and_are_never_earlier(topology, data):
    inst = data.draw(integral_instances(topology=topology, max_coflows=4), label="instance")
    slot = slot_for(inst)
    methods = ("carry", "colouring", "greedy") if inst.is_big_switch else ("carry", "greedy")
    for label, res in fluid_runs(inst, inst.is_big_switch):
        assert res.kind == "feasible", label
        for method in methods:
            try:
                check_rounding(inst, res, method, slot=slot)
            except AssertionError as e:
                raise AssertionError(f"{label}, {method}: {e}") from e


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=integral_instances(max_coflows=4))
def test_every_integral_schedule_is_at_least_the_fluid_optimum(inst):
    opt = bnb(inst, time_limit=20)
    if opt.kind != "optimal":
        return
    for p in ("order", "ocf", "srjf", "mmf"):
        v = verify_slotted(inst, slotted_greedy(inst, p)).weighted_completion_time
        assert float(v) >= float(opt.value) * (1 - 1e-9)
    r = round_fluid_schedule(inst, opt.schedule)
    assert float(r.integral_value) >= float(opt.value) * (1 - 1e-9)


# ---------------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("ext,method", [(".json", None), (".npz", "colouring")])
def test_cli_schedule_slotted(tmp_path, capsys, ext, method):
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(1, 0, 3)], weight=2, release=1)])
    ip = tmp_path / "i.json"
    write_instance(inst, ip)
    out = tmp_path / f"s{ext}"
    args = ["schedule", str(ip), "--policy", "fair", "--slotted", str(out), "--json"]
    if method:
        args += ["--slotted-method", method]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    sl = d["slotted"]
    assert sl["model"] == "integral" and sl["ok"] and sl["file"] == str(out)
    assert sl["rounding_loss"] == sl["integral_value"] / sl["fluid_value"] >= 1
    back = read_slotted_schedule(out, inst)
    assert float(verify_slotted(inst, back).weighted_completion_time) == sl["integral_value"]
    assert main(["verify", str(ip), str(out), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["model"] == "integral" and v["value"] == sl["integral_value"]


def test_cli_schedule_slotted_refusals(tmp_path, capsys):
    ip = tmp_path / "i.json"
    write_instance(Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])]), ip)
    for args, words in (
            (["--slotted", str(tmp_path / "s.json")], ["--slotted", "whole sizes"]),
            (["--slot", "2"], ["--slot", "--slotted"]),
            (["--slotted", str(tmp_path / "s.txt")], ["--slotted", ".json or .npz"]),
            (["--slotted-method", "carry"], ["--slotted-method"])):
        assert main(["schedule", str(ip), "--policy", "fair", *args]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and all(w in err for w in words), err
