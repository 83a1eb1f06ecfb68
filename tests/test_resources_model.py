"""The model of flows over shared resources: Instance, format version 2, placement on a
topology, and the verifier's capacity check per resource.

Hand-checked examples use the line ``a -> s -> b`` / ``s -> c``: resources ``0 = a>s`` (capacity
1), ``1 = s>b`` (capacity 2), ``2 = s>c`` (capacity 1).
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.exceptions import InvalidInstanceError, NotSupportedError
from coflowopt.formats.instance_json import (dumps_instance, instance_from_dict,
                                             read_instance_json, write_instance_json)
from coflowopt.instance import Coflow, Instance
from coflowopt.schedule import Schedule
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import (WindowedVerifier, dilated_witness, verify_in_windows,
                              verify_schedule)


def line(**changes) -> Instance:
    """Coflow A: a -> b, 2 units over [a>s, s>b]; coflow B: a -> c, 1 unit over [a>s, s>c]."""
    args = dict(resource_capacity=[1.0, 2.0, 1.0], coflow_ids=["A", "B"], flow_coflow=[0, 1],
                flow_src=[0, 0], flow_dst=[1, 2], flow_size=[2.0, 1.0],
                path_ptr=[0, 2, 4], path_resource=[0, 1, 0, 2], host_ids=["a", "b", "c"],
                resource_ids=["a>s", "s>b", "s>c"])
    args.update(changes)
    return Instance.from_paths(**args)


def as_resources(bs: Instance) -> Instance:
    """The big-switch instance ``bs`` written as an instance on resources (paths [i, m_in+j])."""
    return Instance.from_paths(
        resource_capacity=bs.capacity, coflow_ids=bs.coflow_ids, flow_coflow=bs.flow_coflow,
        flow_src=bs.flow_src, flow_dst=bs.flow_dst, flow_size=bs.flow_size,
        path_ptr=bs.flow_resource_ptr, path_resource=bs.flow_resource,
        host_ids=[f"h{i}" for i in range(bs.num_hosts)], weight=bs.weight,
        release=bs.release, deadline=bs.deadline)


# ---------------------------------------------------------------------------- the instance
def test_line_instance_derived_quantities():
    inst = line()
    assert not inst.is_big_switch
    assert inst.num_resources == inst.num_ports == 3
    # A sends 2 through a>s (capacity 1) and s>b (capacity 2): rho = max(2/1, 2/2) = 2
    # B sends 1 through a>s and s>c, both capacity 1: rho = 1
    assert inst.rho.tolist() == [2.0, 1.0]
    assert inst.bottleneck_port.tolist() == [0, 0]
    assert inst.port_loads.tolist() == [[2.0, 2.0, 0.0], [1.0, 0.0, 1.0]]
    assert inst.flow_bottleneck_capacity.tolist() == [1.0, 1.0]
    assert inst.max_path_length == 2 and inst.path_length.tolist() == [2, 2]
    assert (np.array([1.0, 0.5]) @ inst.resource_flow_matrix).tolist() == [1.5, 1.0, 0.5]
    with pytest.raises(NotSupportedError, match="big switch only"):
        inst.flow_egress_port
    s = inst.summary()
    assert s["model"] == "resources" and s["hosts"] == 3 and s["resources"] == 3
    # a>s carries 3 units at capacity 1: the most loaded resource, crossed by both flows
    assert s["most_loaded_resource"] == {"resource": 0, "id": "a>s", "capacity": 1,
                                         "load_over_capacity": 3, "flows": 2}


def test_big_switch_incidence_is_derived():
    bs = Instance.from_coflows([Coflow("A", [(0, 1, 1.0), (1, 0, 2.0)]),
                                Coflow("B", [(1, 1, 3.0)])], ingress_capacity=[1.0, 2.0],
                               egress_capacity=[4.0, 1.0])
    assert bs.is_big_switch and bs.max_path_length == 2
    assert bs.flow_resource_ptr.tolist() == [0, 2, 4, 6]
    assert bs.flow_resource.tolist() == [0, 3, 1, 2, 1, 3]
    gen = as_resources(bs)
    assert not gen.is_big_switch
    np.testing.assert_array_equal(gen.rho, bs.rho)
    np.testing.assert_array_equal(gen.port_loads, bs.port_loads)
    np.testing.assert_array_equal(gen.flow_bottleneck_capacity, bs.flow_bottleneck_capacity)
    assert gen != bs  # a different model, even with the same numbers


@pytest.mark.parametrize("changes, field, rule", [
    ({"path_resource": [0, 1, 0, 3]}, "coflows[1].flows[0].path[1]", "out of range 0..2"),
    ({"path_resource": [0, 1, 0, -1]}, "coflows[1].flows[0].path[1]", "out of range"),
    ({"path_ptr": [0, 2, 2], "path_resource": [0, 1]}, "coflows[1].flows[0].path",
     "at least one resource"),
    ({"path_resource": [0, 0, 0, 2]}, "coflows[0].flows[0].path[1]", "appears twice"),
    ({"resource_capacity": [1.0, 0.0, 1.0]}, "resources[1].capacity", "finite number > 0"),
    ({"resource_capacity": [1.0, float("inf"), 1.0]}, "resources[1].capacity", "finite"),
    ({"resource_capacity": [1.0, -2.0, 1.0]}, "resources[1].capacity", "> 0"),
    ({"resource_capacity": [1.0, 1e13, 1.0]}, "resources[1].capacity", "capacity"),
    ({"flow_dst": [1, 3]}, "coflows[1].flows[0].dst", "destination host 3 out of range"),
    ({"flow_size": [2.0, 0.0]}, "coflows[1].flows[0].size", "> 0"),
    ({"resource_ids": ["x", "x", "y"]}, "resources[1].id", "duplicate id"),
    ({"path_ptr": [0, 65 * 2, 65 * 2 + 2], "path_resource": list(range(130)) + [0, 2],
      "resource_capacity": [1.0] * 130, "resource_ids": None},
     "coflows[0].flows[0].path", "MAX_PATH_LENGTH"),
])
def test_instance_rules_name_the_field(changes, field, rule):
    with pytest.raises(InvalidInstanceError, match=rule) as ei:
        line(**changes)
    assert ei.value.field == field


def test_resource_fields_come_together():
    bs = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    with pytest.raises(InvalidInstanceError, match="together"):
        bs.replace(resource_capacity=np.ones(2))
    with pytest.raises(InvalidInstanceError, match="no ingress or egress ports"):
        line().replace(ingress_capacity=np.ones(1))


def test_select_coflows_keeps_paths():
    inst = on_topology(Instance.from_coflows(
        [Coflow("A", [(0, 1, 1.0), (2, 9, 2.0)]), Coflow("B", [(3, 14, 1.0)]),
         Coflow("C", [(5, 5, 1.0)])], num_ingress=16, num_egress=16), fat_tree(4))
    sub = inst.select_coflows([2, 0])
    assert sub.coflow_ids == ("C", "A")
    for new, old in ((0, 3), (1, 0), (2, 1)):
        np.testing.assert_array_equal(
            sub.flow_resource[sub.flow_resource_ptr[new]:sub.flow_resource_ptr[new + 1]],
            inst.flow_resource[inst.flow_resource_ptr[old]:inst.flow_resource_ptr[old + 1]])
    assert sub.flow_src.tolist() == [5, 0, 2] and sub.host_ids == inst.host_ids


# ------------------------------------------------------------------------- placement, counts
@pytest.mark.parametrize("k, hosts, switches, links", [(4, 16, 20, 96), (24, 3456, 720, 20736)])
def test_fat_tree_counts(k, hosts, switches, links):
    # k^3/4 hosts, 5k^2/4 switches, and 2 directions x (k^3/4 host links + k^3/4 edge-aggregation
    # links + k^3/4 aggregation-core links) = 3k^3/2 links
    bs = Instance.from_coflows([Coflow("A", [(0, 1, 1.0)])])
    inst = on_topology(bs, fat_tree(k))
    s = inst.summary()
    assert (s["hosts"], s["switches"], s["links"]) == (hosts, switches, links)
    assert s["topology"]["kind"] == "fat-tree" and s["topology"]["params"] == {"k": k}


def test_paths_follow_the_fat_tree():
    # hosts 0,1 share edge switch e0.0 (2 links); 0 -> 2 crosses an aggregation switch (4);
    # 0 -> 4 leaves the pod through a core switch (6)
    bs = Instance.from_coflows([Coflow("A", [(0, 1, 1.0), (0, 2, 1.0), (0, 4, 1.0)])])
    topo = fat_tree(4)
    inst = on_topology(bs, topo, routing="ecmp", seed=3)
    assert inst.path_length.tolist() == [2, 4, 6]
    links = inst.flow_resource[inst.flow_resource_ptr[2]:inst.flow_resource_ptr[3]]
    hops = [(topo.node_names[topo.link_src[l]], topo.node_names[topo.link_dst[l]])
            for l in links.tolist()]
    assert hops[0] == ("h0", "e0.0") and hops[-1] == ("e1.0", "h4")
    assert all(a[1] == b[0] for a, b in zip(hops, hops[1:]))  # a path, link after link
    again = on_topology(bs, topo, routing="ecmp", seed=3)
    np.testing.assert_array_equal(again.flow_resource, inst.flow_resource)


def test_placing_needs_a_big_switch_input():
    with pytest.raises(NotSupportedError, match="big switch only"):
        on_topology(line(), fat_tree(4))


# ---------------------------------------------------------------------------- format v2
def test_v2_round_trip_is_exact(tmp_path):
    bs = Instance.from_coflows([Coflow("A", [(0, 1, 0.1), (2, 3, 2.5)], weight=2.5),
                                Coflow("B", [(1, 2, 1.0 / 3)], release=1.5, deadline=9.0)])
    inst = on_topology(bs, leaf_spine(2, 2, 2, oversubscription=2))
    p = tmp_path / "i.json"
    write_instance_json(inst, p)
    doc = json.loads(p.read_text())
    assert doc["version"] == 2 and set(doc) == {"format", "version", "resources", "coflows",
                                                "topology"}
    assert doc["coflows"][0]["flows"][0] == {"src": "h0", "dst": "h1", "size": 0.1,
                                             "path": doc["coflows"][0]["flows"][0]["path"]}
    back = read_instance_json(p)
    assert back == inst
    assert back.meta["topology"]["kind"] == "leaf-spine"
    # version 1 is still what a big switch writes
    assert json.loads(dumps_instance(bs))["version"] == 1


def test_v2_hosts_follow_the_topology_nodes():
    doc = json.loads(dumps_instance(on_topology(
        Instance.from_coflows([Coflow("A", [(3, 1, 1.0)])]), fat_tree(4))))
    inst = instance_from_dict(doc)
    assert inst.host_ids[:4] == ("h0", "h1", "h2", "h3") and inst.num_hosts == 16
    doc["coflows"][0]["flows"][0]["src"] = "e0.0"  # a switch, not a host
    with pytest.raises(InvalidInstanceError, match="not a host") as ei:
        instance_from_dict(doc)
    assert ei.value.field == "coflows[0].flows[0].src"


@pytest.mark.parametrize("edit, field, rule", [
    (lambda d: d["coflows"][0]["flows"][0].__setitem__("path", []), "coflows[0].flows[0].path",
     "non-empty list"),
    (lambda d: d["coflows"][0]["flows"][0].__setitem__("path", [0, 7]),
     "coflows[0].flows[0].path[1]", "out of range 0..2"),
    (lambda d: d["coflows"][0]["flows"][0].__setitem__("path", [1, 1]),
     "coflows[0].flows[0].path[1]", "appears twice"),
    (lambda d: d["coflows"][0]["flows"][0].__setitem__("path", [0, 1.0]),
     "coflows[0].flows[0].path[1]", "integer"),
    (lambda d: d["resources"][2].__setitem__("capacity", 0), "resources[2].capacity", "> 0"),
    (lambda d: d["resources"][2].__setitem__("capacity", "1"), "resources[2].capacity",
     "number"),
    (lambda d: d["resources"][2].pop("capacity"), "resources[2].capacity", "needs a capacity"),
    (lambda d: d["coflows"][1]["flows"][0].pop("path"), "coflows[1].flows[0]", "missing"),
    (lambda d: d["coflows"][1]["flows"].__setitem__(0, ["a", "b", 1.0]), "coflows[1].flows[0]",
     "an object"),
    (lambda d: d.__setitem__("ingress", [1]), "(top level)", "unknown key"),
])
def test_v2_errors_name_coflow_flow_and_field(edit, field, rule):
    doc = json.loads(dumps_instance(line()))
    edit(doc)
    with pytest.raises(InvalidInstanceError, match=rule) as ei:
        instance_from_dict(doc, file="x.json")
    assert ei.value.field == field and ei.value.file == "x.json"


# ---------------------------------------------------------------------------- the verifier
def test_verifier_hand_example_on_the_line():
    inst = line()
    # A at rate 1 on [0, 2) saturates a>s; B then at rate 1 on [2, 3): C = (2, 3)
    ok = Schedule.from_pieces([0, 1], [0.0, 2.0], [2.0, 3.0], [1.0, 1.0])
    rep = verify_schedule(inst, ok)
    assert rep.ok and rep.coflow_completion.tolist() == [2.0, 3.0]
    assert verify_schedule(inst, ok, mode="exact").ok
    # both at once on [0, 1): a>s carries 2 > 1 (s>b carries 1 <= 2 and s>c 1 <= 1: fine)
    bad = Schedule.from_pieces([0, 1, 0], [0.0, 0.0, 1.0], [1.0, 1.0, 2.0], [1.0, 1.0, 1.0])
    for mode in ("float", "exact"):
        rep = verify_schedule(inst, bad, mode=mode)
        assert not rep.ok and set(rep.violation_counts) == {"capacity"}
        v = rep.violations[0]
        assert v.port == 0 and v.port_name == "a>s" and "resource 'a>s'" in v.message


def test_verifier_sees_a_link_beyond_the_edge():
    # a path of 3: only the middle resource is overloaded
    inst = Instance.from_paths(resource_capacity=[5.0, 1.0, 5.0], coflow_ids=["A", "B"],
                               flow_coflow=[0, 1], flow_src=[0, 1], flow_dst=[1, 0],
                               flow_size=[1.0, 1.0], path_ptr=[0, 3, 4],
                               path_resource=[0, 1, 2, 1], host_ids=["x", "y"])
    s = Schedule.from_pieces([0, 1], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    rep = verify_schedule(inst, s)
    assert [v.port for v in rep.violations] == [1]


def test_overloads_on_every_link_same_in_one_sweep_and_in_windows():
    # a schedule with an overload on every link: the one-shot sweep and the windowed check
    # (three pieces per window) give the same verdict, ports and intervals
    bs = Instance.from_coflows([Coflow(f"c{i}", [(i % 4, (3 * i) % 4, 1.0 + i)])
                                for i in range(12)], num_ingress=16, num_egress=16)
    inst = on_topology(bs, fat_tree(4))
    F = inst.num_flows
    s = Schedule.from_pieces(np.arange(F), np.zeros(F), inst.flow_size / 0.75,
                             np.full(F, 0.75))
    one = verify_schedule(inst, s)
    many = verify_in_windows(inst, s, pieces_per_window=3)
    assert not one.ok
    assert one.violation_counts == many.violation_counts
    assert sorted((v.port, v.interval) for v in one.violations) == \
        sorted((v.port, v.interval) for v in many.violations)


def test_dilated_witness_and_windows_on_resources():
    inst = line()
    # ten slivers of 0.1 on a>s sum to 1 + 5.6e-17 in exact arithmetic
    inst = Instance.from_paths(resource_capacity=[1.0, 2.0], coflow_ids=[f"c{i}" for i in
                                                                        range(10)],
                               flow_coflow=range(10), flow_src=[0] * 10, flow_dst=[1] * 10,
                               flow_size=[0.1] * 10, path_ptr=np.arange(0, 21, 2),
                               path_resource=[0, 1] * 10, host_ids=["a", "b"])
    s = Schedule.from_pieces(range(10), [0.0] * 10, [1.0] * 10, [0.1] * 10)
    assert verify_schedule(inst, s).ok and not verify_schedule(inst, s, mode="exact").ok
    w, factor = dilated_witness(inst, s)
    assert verify_schedule(inst, w, mode="exact").ok and factor < Fraction(1 + 2e-9)
    wv = WindowedVerifier(inst)
    wv.add(0.0, 0.5, Schedule.from_pieces(range(10), [0.0] * 10, [0.5] * 10, [0.1] * 10))
    wv.add(0.5, 1.0, Schedule.from_pieces(range(10), [0.5] * 10, [1.0] * 10, [0.1] * 10))
    assert wv.report().ok


@st.composite
def big_switch_and_schedule(draw):
    m = draw(st.integers(1, 3))
    K = draw(st.integers(1, 4))
    cofs = []
    for k in range(K):
        n = draw(st.integers(1, 3))
        cofs.append(Coflow(f"c{k}", [(draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1)),
                                      float(draw(st.integers(1, 4)))) for _ in range(n)]))
    caps = [float(draw(st.sampled_from([1, 2]))) for _ in range(2 * m)]
    inst = Instance.from_coflows(cofs, ingress_capacity=caps[:m], egress_capacity=caps[m:])
    F = inst.num_flows
    start = np.array([float(draw(st.integers(0, 3))) for _ in range(F)])
    rate = np.array([float(draw(st.sampled_from([0.5, 1.0, 2.0]))) for _ in range(F)])
    return inst, Schedule.from_pieces(np.arange(F), start, start + inst.flow_size / rate, rate)


@settings(max_examples=40, deadline=None)
@given(big_switch_and_schedule())
def test_verifier_agrees_on_a_big_switch_written_as_resources(case):
    bs, s = case
    gen = as_resources(bs)
    for mode in ("float", "exact"):
        a, b = verify_schedule(bs, s, mode=mode), verify_schedule(gen, s, mode=mode)
        assert a.ok == b.ok
        assert a.violation_counts == b.violation_counts
        assert [(v.port, v.interval) for v in a.violations] == \
            [(v.port, v.interval) for v in b.violations]
        assert a.coflow_completion.tolist() == b.coflow_completion.tolist()


def test_big_switch_trace_writers_refuse_resources(tmp_path):
    """sincronia and coflow-benchmark lines name ports: a topology instance is refused (never
    written as a header of 0 ports)."""
    from coflowopt.exceptions import NotSupportedError
    from coflowopt.formats import write_instance
    from coflowopt.generators import uniform_random
    from coflowopt.topology import fat_tree, on_topology
    inst = on_topology(uniform_random(4, 3, seed=1), fat_tree(4))
    for fmt in ("sincronia", "coflow-benchmark"):
        with pytest.raises(NotSupportedError, match=f"writing the {fmt} format.*big switch"):
            write_instance(inst, tmp_path / f"x-{fmt}.txt", format=fmt)
        assert not (tmp_path / f"x-{fmt}.txt").exists()


def test_topology_record_without_links_is_rebuilt_and_checked(tmp_path):
    """A v2 record with kind and params but no links: rebuilt and checked against the
    resources (count, ids, capacities), the error naming topology.params."""
    import json
    from coflowopt.exceptions import InvalidInstanceError
    from coflowopt.formats import read_instance, write_instance
    from coflowopt.generators import uniform_random
    from coflowopt.topology import fat_tree, on_topology
    inst = on_topology(uniform_random(4, 3, seed=1), fat_tree(4, core_oversubscription=2))
    p = tmp_path / "x.json"
    write_instance(inst, p)
    doc = json.loads(p.read_text())
    del doc["topology"]["links"], doc["topology"]["nodes"]
    p.write_text(json.dumps(doc))
    assert read_instance(p).flow_resource.tolist() == inst.flow_resource.tolist()
    for change, rule in (({"k": 6}, "has 324 links, but the instance has 96 resources"),
                         ({"k": 5}, "cannot be built"),
                         ({"core_oversubscription": 1.0}, "capacity 0.5")):
        bad = json.loads(json.dumps(doc))
        bad["topology"]["params"].update(change)
        p.write_text(json.dumps(bad))
        with pytest.raises(InvalidInstanceError, match="topology.params") as ei:
            read_instance(p)
        assert rule in str(ei.value)
