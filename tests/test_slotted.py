"""The integral matching model's data, verifier and file formats (coflowopt.slotted,
coflowopt.formats.slotted_schedule): the verifier by hand on every kind of violation, the JSON
and columnar round trips, the fluid form, and ``coflowopt verify`` on slotted files."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.cli import main
from coflowopt.exceptions import InvalidScheduleError, NotSupportedError
from coflowopt.formats import (read_slotted_schedule, schedule_file_model,
                               write_slotted_schedule, write_schedule)
from coflowopt.formats.slotted_schedule import dumps_slotted, slotted_from_dict
from coflowopt.schedule import Schedule
from coflowopt.slotted import SlottedSchedule, integral_capacities, verify_slotted
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import verify_schedule


def two_by_two() -> Instance:
    """A: (0->0, 2), (1->1, 1); B: (1->0, 3) released at 1 (the corpus seed)."""
    return Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(1, 0, 3)], weight=2, release=1)])


def seed_schedule() -> SlottedSchedule:
    # slot 0: A's two flows; slot 1: A's first flow; slots 2-4: B (egress 0 busy in slot 1)
    return SlottedSchedule.from_entries([0, 0, 1, 2, 3, 4], [0, 1, 0, 2, 2, 2], [1] * 6)


# ---------------------------------------------------------------------------------- verifier
def test_seed_by_hand():
    rep = verify_slotted(two_by_two(), seed_schedule())
    assert rep.ok and rep.counts == {}
    assert rep.coflow_completion == [2, 5]
    assert rep.flow_completion == [2, 1, 5]
    assert rep.weighted_completion_time == 12 and rep.weighted_cct == 10
    assert rep.makespan == 5 and rep.num_slots == 5
    d = rep.to_dict()
    assert d["model"] == "integral" and d["exact"]["weighted_completion_time"] == "12"


@pytest.mark.parametrize("entries,kind", [
    (([0, 0, 1, 1, 3, 4], [0, 1, 0, 2, 2, 2], [1] * 6), "capacity"),        # egress 0 twice
    (([0, 0, 0, 2, 3, 1], [0, 1, 0, 2, 2, 2], [1] * 6), "capacity"),        # ingress 0 twice
    (([0, 0, 1, 0, 3, 4], [0, 1, 0, 2, 2, 2], [1] * 6), "before_release"),  # B in slot 0
    (([0, 0, 1, 2, 3], [0, 1, 0, 2, 2], [1] * 5), "undersent"),
    (([0, 0, 1, 2, 3, 4, 5], [0, 1, 0, 2, 2, 2, 2], [1] * 7), "oversent"),
    (([0, 0, 1, 2, 3, -4], [0, 1, 0, 2, 2, 2], [1] * 6), "malformed"),     # negative slot
    (([0, 0, 1, 2, 3, 4], [0, 1, 0, 2, 2, 7], [1] * 6), "malformed"),      # no flow 7
    (([0, 0, 1, 2, 3, 4], [0, 1, 0, 2, 2, 2], [1, 1, 1, 1, 2, -1]), "malformed"),
])
def test_each_violation_kind(entries, kind):
    rep = verify_slotted(two_by_two(), SlottedSchedule.from_entries(*entries))
    assert not rep.ok and kind in rep.counts, rep.counts
    assert all(k == kind or k in ("undersent", "oversent", "capacity") for k in rep.counts)
    assert any(k == kind for k, _ in rep.violations)


def test_capacity_counts_units_not_flows():
    # capacity 2 per slot: two units of one flow in a slot are fine, three are not
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)])], ingress_capacity=[2],
                                 egress_capacity=[2])
    assert verify_slotted(inst, SlottedSchedule.from_entries([0, 1], [0, 0], [2, 2])).ok
    rep = verify_slotted(inst, SlottedSchedule.from_entries([0, 1], [0, 0], [3, 1]))
    assert rep.counts == {"capacity": 2}  # ingress 0 and egress 0 in slot 0


def test_release_is_checked_at_slot_starts():
    # release 0.5: slot 0 starts at 0 < 0.5, slot 1 at 1 >= 0.5
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=0.5)])
    assert verify_slotted(inst, SlottedSchedule.from_entries([0], [0], [1])).counts == \
        {"before_release": 1}
    rep = verify_slotted(inst, SlottedSchedule.from_entries([1], [0], [1]))
    assert rep.ok and rep.coflow_completion == [2] and rep.weighted_cct == Fraction(3, 2)
    # a release on a slot start may use that slot
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=2)])
    assert verify_slotted(inst2, SlottedSchedule.from_entries([2], [0], [1])).ok


def test_slot_length_scales_capacity_and_time():
    # slot 2 with capacity 1: two units per slot; completion at the end of the slot
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)])])
    s = SlottedSchedule.from_entries([0, 1], [0, 0], [2, 1], slot=2.0)
    rep = verify_slotted(inst, s)
    assert rep.ok and rep.coflow_completion == [4]
    # slot 0.5 with capacity 1 is half a unit: not in the model
    with pytest.raises(NotSupportedError, match="whole units per slot"):
        verify_slotted(inst, SlottedSchedule.from_entries([0], [0], [3], slot=0.5))
    # capacity 2 with slot 0.5: one unit per slot
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 2)])], ingress_capacity=[2],
                                  egress_capacity=[2])
    rep = verify_slotted(inst2, SlottedSchedule.from_entries([0, 1], [0, 0], [1, 1], slot=0.5))
    assert rep.ok and rep.coflow_completion == [1]


def test_non_integral_sizes_are_refused():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])])
    with pytest.raises(NotSupportedError, match="whole sizes"):
        verify_slotted(inst, SlottedSchedule.from_entries([0], [0], [1]))
    with pytest.raises(NotSupportedError, match="whole sizes"):
        integral_capacities(inst)


def test_over_resources():
    # a path of three links, the middle one shared: the flows cannot share a slot
    inst = Instance.from_paths(resource_capacity=[1, 1, 1, 1, 1], coflow_ids=["A", "B"],
                               flow_coflow=[0, 1], flow_src=[0, 1], flow_dst=[2, 3],
                               flow_size=[1, 2], path_ptr=[0, 3, 6],
                               path_resource=[0, 2, 3, 1, 2, 4],
                               host_ids=["a", "b", "c", "d"])
    rep = verify_slotted(inst, SlottedSchedule.from_entries([0, 0, 1], [0, 1, 1], [1, 1, 1]))
    assert rep.counts == {"capacity": 1} and "resource 2" in rep.violations[0][1]
    rep = verify_slotted(inst, SlottedSchedule.from_entries([0, 1, 2], [0, 1, 1], [1, 1, 1]))
    assert rep.ok and rep.coflow_completion == [1, 3]


def test_canonical_merges_repeats_and_drops_zeros():
    s = SlottedSchedule.from_entries([1, 0, 1, 0, 2], [0, 1, 0, 0, 1], [1, 2, 1, 0, 0])
    c = s.canonical()
    assert (c.slot_index.tolist(), c.flow.tolist(), c.units.tolist()) == ([0, 1], [1, 0],
                                                                            [2, 2])
    assert c.same_as(s) and not c.same_as(SlottedSchedule.from_entries([0], [1], [2]))


def test_fluid_form_has_the_same_verdict_and_objective():
    inst = two_by_two()
    s = seed_schedule()
    for exact in (False, True):
        fluid = s.to_schedule(exact=exact)
        rep = verify_schedule(inst, fluid, mode="exact" if exact else "float")
        assert rep.ok and rep.weighted_completion_time == 12
    # consecutive slots at one rate make one piece
    assert s.to_schedule().num_pieces == 3


# ---------------------------------------------------------------------------------- formats
def test_json_text_is_the_documented_shape():
    text = dumps_slotted(seed_schedule(), two_by_two())
    assert text == ('{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, '
                    '"slots": [\n  [[0, 0, 1], [0, 1, 1]],\n  [[0, 0, 1]],\n  [[1, 0, 1]],\n'
                    '  [[1, 0, 1]],\n  [[1, 0, 1]]\n]}\n')
    doc = json.loads(text)
    assert slotted_from_dict(doc, two_by_two()).same_as(seed_schedule())


def test_empty_schedule_round_trip(tmp_path):
    inst = two_by_two()
    empty = SlottedSchedule.from_entries([], [], [])
    for ext in (".json", ".npz"):
        write_slotted_schedule(empty, inst, tmp_path / f"e{ext}")
        back = read_slotted_schedule(tmp_path / f"e{ext}", inst)
        assert back.num_entries == 0 and back.slot == 1.0


@st.composite
def slotted_cases(draw):
    K = draw(st.integers(1, 4))
    coflows = [Coflow(f"c{k}", [(draw(st.integers(0, 2)), draw(st.integers(0, 2)),
                                 draw(st.integers(1, 5)))
                                for _ in range(draw(st.integers(1, 3)))]) for k in range(K)]
    inst = Instance.from_coflows(coflows)
    n = draw(st.integers(0, 30))
    t = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    f = draw(st.lists(st.integers(0, inst.num_flows - 1), min_size=n, max_size=n))
    u = draw(st.lists(st.integers(0, 10 ** 6), min_size=n, max_size=n))
    slot = draw(st.sampled_from([1.0, 2.0, 0.25, 3.5]))
    return inst, SlottedSchedule.from_entries(t, f, u, slot=slot)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=slotted_cases(), ext=st.sampled_from([".json", ".npz"]))
def test_round_trips(tmp_path_factory, case, ext):
    inst, s = case
    path = tmp_path_factory.mktemp("rt") / f"s{ext}"
    write_slotted_schedule(s, inst, path)
    back = read_slotted_schedule(path, inst)
    assert back.same_as(s) and back.slot == s.slot
    c = s.canonical()  # the file holds the canonical form, entry for entry
    assert np.array_equal(back.slot_index, c.slot_index) and np.array_equal(back.flow, c.flow)
    assert np.array_equal(back.units, c.units)
    assert schedule_file_model(path) == "integral"
    # and the same verdict as the schedule written
    try:
        a, b = verify_slotted(inst, s), verify_slotted(inst, back)
    except NotSupportedError:
        return
    assert a.counts == b.counts and a.weighted_completion_time == b.weighted_completion_time


def test_writer_refuses_what_the_reader_would(tmp_path):
    inst = two_by_two()
    with pytest.raises(InvalidScheduleError, match="out of range"):
        write_slotted_schedule(SlottedSchedule.from_entries([0], [7], [1]), inst,
                               tmp_path / "x.json")
    with pytest.raises(InvalidScheduleError, match="units"):
        write_slotted_schedule(SlottedSchedule.from_entries([0], [0], [-1]), inst,
                               tmp_path / "x.json")
    with pytest.raises(InvalidScheduleError, match="SIZE_MAX"):
        write_slotted_schedule(SlottedSchedule.from_entries([0, 0], [0, 0], [10 ** 12, 1]),
                               inst, tmp_path / "x.npz")
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("change,field", [
    (lambda d: d["slots"][2][0].__setitem__(2, 1.0), "slots[2][0][2]"),
    (lambda d: d["slots"][0].append([0, 1, 1]), "slots[0][2]"),
    (lambda d: d["slots"][3].__setitem__(0, [1, 0]), "slots[3][0]"),
    (lambda d: d["slots"][1][0].__setitem__(1, 3), "slots[1][0][1]"),
    (lambda d: d.__setitem__("slot", 0), "slot"),
])
def test_reader_errors_name_the_field(change, field):
    doc = json.loads(dumps_slotted(seed_schedule(), two_by_two()))
    change(doc)
    with pytest.raises(InvalidScheduleError) as e:
        slotted_from_dict(doc, two_by_two(), file="f.json")
    assert e.value.field == field and str(e.value).startswith(f"f.json, {field}: ")


# ---------------------------------------------------------------------------------- CLI
def _instance_file(tmp_path, inst=None):
    from coflowopt.formats import write_instance
    p = tmp_path / "inst.json"
    write_instance(inst or two_by_two(), p)
    return p


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_cli_verify_integral(tmp_path, capsys, ext):
    ip = _instance_file(tmp_path)
    sp = tmp_path / f"s{ext}"
    write_slotted_schedule(seed_schedule(), two_by_two(), sp)
    assert main(["verify", str(ip), str(sp), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "integral" and out["kind"] == "feasible" and out["value"] == 12
    assert out["coflow_completion"] == [2, 5]
    bad = SlottedSchedule.from_entries([0, 0, 1, 0, 3, 4], [0, 1, 0, 2, 2, 2], [1] * 6)
    write_slotted_schedule(bad, two_by_two(), sp)
    assert main(["verify", str(ip), str(sp), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] is None and "before_release" in out["violation_counts"]


def test_cli_verify_fluid_file_is_unchanged(tmp_path, capsys):
    ip = _instance_file(tmp_path)
    sp = tmp_path / "f.json"
    write_schedule(seed_schedule().to_schedule(), two_by_two(), sp)
    assert schedule_file_model(sp) == "fluid"
    assert main(["verify", str(ip), str(sp), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "float" and out["value"] == 12 and "model" not in out


def test_cli_verify_refuses_an_instance_outside_the_model(tmp_path, capsys):
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.5)])])
    ip = _instance_file(tmp_path, inst)
    sp = tmp_path / "s.json"
    write_slotted_schedule(SlottedSchedule.from_entries([0], [0], [1]), inst, sp)
    assert main(["verify", str(ip), str(sp)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "s.json" in err and "whole sizes" in err


def test_topology_instance_round_trip(tmp_path):
    inst = on_topology(Instance.from_coflows([Coflow("A", [(0, 5, 2), (3, 9, 1)]),
                                              Coflow("B", [(5, 0, 1)])]), fat_tree(4), seed=1)
    s = SlottedSchedule.from_entries([0, 0, 1, 1], [0, 1, 0, 2], [1, 1, 1, 1])
    rep = verify_slotted(inst, s)
    write_slotted_schedule(s, inst, tmp_path / "t.json")
    back = read_slotted_schedule(tmp_path / "t.json", inst)
    assert verify_slotted(inst, back).counts == rep.counts
