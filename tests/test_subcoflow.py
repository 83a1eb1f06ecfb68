"""The sub-coflow index (Creek, seed 001): many-to-many coflows as unions of per-receiver
sub-coflows, kept by the Instance, the instance JSON formats (versions 1 and 2), placement onto
a topology and the instance hash; refused by the trace formats when it is not the default."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidInstanceError, NotSupportedError
from coflowopt.experiments.spec import instance_hash
from coflowopt.formats import (instance_from_dict, instance_to_dict, read_instance,
                               write_instance)
from coflowopt.testing import big_switch_as_paths, relabel_resources
from coflowopt.topology import fat_tree, on_topology


def shuffle() -> Instance:
    # A: 2 mappers x 2 reducers (egress 0 and 1); B: 2 flows into egress 2 and 1
    return Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 0, 2), (0, 1, 3), (1, 1, 4)]),
                                  Coflow("B", [(0, 2, 1), (1, 1, 1)])])


def test_default_is_one_subcoflow_per_receiver():
    inst = shuffle()
    assert inst.flow_subcoflow is None
    assert inst.subcoflow_index.tolist() == [0, 0, 1, 1, 0, 1]
    assert inst.flow_subcoflow_id.tolist() == [0, 0, 1, 1, 2, 3]
    assert inst.num_subcoflows.tolist() == [2, 2]
    # a plain-Python reference: per coflow, egresses numbered in order of first appearance
    for k in range(inst.num_coflows):
        dst = inst.flow_dst[inst.coflow_flows(k)].tolist()
        ranks = {}
        for d in dst:
            ranks.setdefault(d, len(ranks))
        assert inst.subcoflow_index[inst.coflow_flows(k)].tolist() == [ranks[d] for d in dst]


def test_only_the_partition_matters():
    inst = shuffle()
    # the default's sub-coflows under other labels are the default
    assert inst.replace(flow_subcoflow=[3, 3, 0, 0, 1, 0]).flow_subcoflow is None
    a = inst.replace(flow_subcoflow=[2, 0, 2, 0, 1, 1])
    b = inst.replace(flow_subcoflow=[0, 1, 0, 1, 0, 0])
    assert a == b and instance_hash(a) == instance_hash(b)
    assert a.flow_subcoflow.tolist() == [0, 1, 0, 1, 0, 0]


def test_explicit_index_and_canonical_default():
    inst = shuffle()
    same = inst.replace(flow_subcoflow=inst.subcoflow_index.copy())
    assert same.flow_subcoflow is None and same == inst
    assert instance_hash(same) == instance_hash(inst)
    one = inst.replace(flow_subcoflow=[0, 0, 0, 0, 0, 0])
    assert one.flow_subcoflow is not None and one != inst
    assert one.num_subcoflows.tolist() == [1, 1]
    assert instance_hash(one) != instance_hash(inst)
    # integral floats are integers
    assert inst.replace(flow_subcoflow=np.zeros(6)) == one


@pytest.mark.parametrize("labels, field, words", [
    ([0, 0, -1, 0, 0, 0], "coflows[0].flows[2].subcoflow", "out of range 0..3"),
    ([0, 0, 4, 0, 0, 0], "coflows[0].flows[2].subcoflow", "out of range 0..3"),
    ([0, 0, 0, 0, 0, 2], "coflows[1].flows[1].subcoflow", "out of range 0..1"),
    ([0, 0, 0.5, 0, 0, 0], "coflows[0].flows[2].subcoflow", "must be an integer"),
    ([0, 0, np.nan, 0, 0, 0], "coflows[0].flows[2].subcoflow", "must be an integer"),
    ([0, 0], "flow_subcoflow", "expected 6 sub-coflow labels"),
    (["a"] * 6, "coflows[0].flows[0].subcoflow", "must be an integer"),
])
def test_malformed_index_names_the_flow(labels, field, words):
    with pytest.raises(InvalidInstanceError) as e:
        shuffle().replace(flow_subcoflow=labels)
    assert e.value.field == field and words in str(e.value)


def test_from_coflows():
    inst = Instance.from_coflows([
        Coflow("A", [(0, 0, 1), (1, 0, 2), (0, 1, 3), (1, 1, 4)], subcoflows=[0, 0, 0, 0]),
        Coflow("B", [(0, 2, 1), (1, 1, 1)])])
    assert inst == shuffle().replace(flow_subcoflow=[0, 0, 0, 0, 0, 1])
    with pytest.raises(InvalidInstanceError) as e:
        Instance.from_coflows([Coflow("A", [(0, 0, 1)], subcoflows=[0, 0])])
    assert e.value.field == "coflows[0].subcoflows"
    with pytest.raises(InvalidInstanceError) as e:
        Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1)], subcoflows=[0, 2])])
    assert e.value.field == "coflows[0].flows[1].subcoflow"


def test_transformations_keep_the_index():
    inst = shuffle().replace(flow_subcoflow=[1, 0, 1, 0, 0, 0])
    perm = inst.select_coflows([1, 0])
    assert perm.subcoflow_index.tolist() == [0, 0, 0, 1, 0, 1]
    back = perm.select_coflows([1, 0])
    assert back == inst
    rel = inst.relabel_ports([1, 0], [2, 0, 1])
    assert rel.subcoflow_index.tolist() == inst.subcoflow_index.tolist()
    scaled = inst.scaled(2.0, 2.0)
    assert scaled.flow_subcoflow.tolist() == inst.flow_subcoflow.tolist()
    # a relabelled default stays the default (the partition per receiver)
    d = shuffle().relabel_ports([1, 0], [2, 0, 1])
    assert d.flow_subcoflow is None


def test_topology_and_paths_keep_the_index():
    inst = shuffle().replace(flow_subcoflow=[1, 0, 1, 0, 0, 0])
    t = on_topology(inst, fat_tree(4))
    assert t.subcoflow_index.tolist() == inst.subcoflow_index.tolist()
    assert on_topology(shuffle(), fat_tree(4)).flow_subcoflow is None
    p = big_switch_as_paths(inst)
    assert p.subcoflow_index.tolist() == inst.subcoflow_index.tolist()
    assert big_switch_as_paths(shuffle()).flow_subcoflow is None
    r = relabel_resources(t, np.random.default_rng(0).permutation(t.num_resources),
                          np.random.default_rng(1).permutation(t.num_hosts))
    assert r.subcoflow_index.tolist() == t.subcoflow_index.tolist()
    # two egress ports placed on one host keep their two sub-coflows
    few = on_topology(shuffle(), fat_tree(2), placement="modulo")
    assert few.num_hosts == 2
    assert few.flow_subcoflow_id.tolist() == shuffle().flow_subcoflow_id.tolist()
    two = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 2, 1)])])
    merged = on_topology(two, fat_tree(2))           # egress 0 and 2 on host 0
    assert merged.flow_dst.tolist() == [0, 0]
    assert merged.flow_subcoflow.tolist() == [0, 1] and merged.num_subcoflows.tolist() == [2]
    # a random placement renames the receivers only: still the default
    rnd = on_topology(shuffle(), fat_tree(4), placement="random", placement_seed=3)
    assert rnd.flow_subcoflow is None
    assert instance_hash(t) != instance_hash(on_topology(shuffle(), fat_tree(4)))


@pytest.mark.parametrize("topo", [False, True])
def test_json_round_trip(tmp_path, topo):
    base = on_topology(shuffle(), fat_tree(4)) if topo else shuffle()
    for inst in (base, base.replace(flow_subcoflow=[1, 0, 1, 0, 0, 0])):
        p = tmp_path / "i.json"
        write_instance(inst, p)
        text = p.read_text()
        assert ("subcoflow" in text) == (inst.flow_subcoflow is not None)
        back = read_instance(p)
        assert back == inst and instance_hash(back) == instance_hash(inst)
        assert back.subcoflow_index.tolist() == inst.subcoflow_index.tolist()


def test_json_default_per_coflow():
    # one coflow gives labels, the other does not: that one gets the default
    doc = instance_to_dict(shuffle())
    doc["coflows"][0]["subcoflows"] = [0, 0, 0, 0]
    inst = instance_from_dict(doc)
    assert inst.subcoflow_index.tolist() == [0, 0, 0, 0, 0, 1]
    doc2 = instance_to_dict(on_topology(shuffle(), fat_tree(4)))
    for fl in doc2["coflows"][1]["flows"]:
        fl["subcoflow"] = 0
    assert instance_from_dict(doc2).subcoflow_index.tolist() == [0, 0, 1, 1, 0, 0]
    assert instance_from_dict(doc2).flow_subcoflow is not None


V1_BAD = [
    ([0, 1, -1, 0], "coflows[0].subcoflows[2]", "out of range"),
    ([0, 1, 4, 0], "coflows[0].subcoflows[2]", "out of range"),
    ([0, 1, 1.5, 0], "coflows[0].subcoflows[2]", "must be an integer"),
    ([0, 1, 1.0, 0], "coflows[0].subcoflows[2]", "must be an integer"),
    ([0, True, 1, 0], "coflows[0].subcoflows[1]", "must be an integer"),
    ([0, 1, "1", 0], "coflows[0].subcoflows[2]", "must be an integer"),
    ([0, 1], "coflows[0].subcoflows", "list of 4 integer"),
    ("0101", "coflows[0].subcoflows", "list of 4 integer"),
    ([0, 1, 10 ** 40, 0], "coflows[0].subcoflows[2]", "out of range"),
]


@pytest.mark.parametrize("value, field, words", V1_BAD)
def test_json_v1_malformed(value, field, words):
    doc = instance_to_dict(shuffle())
    doc["coflows"][0]["subcoflows"] = value
    with pytest.raises(InvalidInstanceError) as e:
        instance_from_dict(doc)
    assert e.value.field == field and words in str(e.value)


@pytest.mark.parametrize("value, words", [(-1, "out of range"), (4, "out of range"),
                                          (0.5, "must be an integer"), (None, "integer"),
                                          (False, "must be an integer")])
def test_json_v2_malformed(value, words):
    doc = instance_to_dict(on_topology(shuffle(), fat_tree(4)))
    for fl in doc["coflows"][0]["flows"]:
        fl["subcoflow"] = 0
    doc["coflows"][0]["flows"][3]["subcoflow"] = value
    with pytest.raises(InvalidInstanceError) as e:
        instance_from_dict(doc)
    assert e.value.field == "coflows[0].flows[3].subcoflow" and words in str(e.value)


def test_json_v2_all_or_none():
    doc = instance_to_dict(on_topology(shuffle(), fat_tree(4)))
    doc["coflows"][0]["flows"][0]["subcoflow"] = 0
    with pytest.raises(InvalidInstanceError) as e:
        instance_from_dict(doc)
    assert e.value.field == "coflows[0].flows[1].subcoflow"


@pytest.mark.parametrize("fmt", ["coflow-benchmark", "sincronia"])
def test_trace_formats_refuse_a_non_default_index(tmp_path, fmt):
    grid = Instance.from_coflows([Coflow("1", [(0, 0, 2.0), (1, 0, 2.0), (0, 1, 2.0),
                                              (1, 1, 2.0)])], num_ingress=2, num_egress=2)
    write_instance(grid, tmp_path / "ok.txt", format=fmt)   # the default: written
    assert read_instance(tmp_path / "ok.txt", format=fmt).flow_subcoflow is None
    with pytest.raises(NotSupportedError, match="no sub-coflows.*flow 2 of coflow '1'"):
        write_instance(grid.replace(flow_subcoflow=[0, 0, 0, 0]), tmp_path / "no.txt",
                       format=fmt)


def test_cli_exit_2_one_line(tmp_path):
    doc = instance_to_dict(shuffle())
    doc["coflows"][1]["subcoflows"] = [0, -3]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    r = subprocess.run([sys.executable, "-m", "coflowopt", "info", str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "coflows[1].subcoflows[1]" in lines[0], r.stderr
