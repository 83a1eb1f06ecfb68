"""Topologies and routing (coflowopt/topology.py): counts from the papers, every routed path
is a real shortest path of the graph, ECMP is deterministic and spreads, forms round-trip."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coflowopt.exceptions import InvalidInstanceError, InvalidParameterError
from coflowopt.topology import (Topology, big_switch, ecmp_hash, fat_tree, from_graph,
                                leaf_spine, place_hosts, route, split_links)


@pytest.mark.parametrize("k, hosts, switches", [(4, 16, 20), (8, 128, 80), (24, 3456, 720)])
def test_fat_tree_counts(k, hosts, switches):
    # k^3/4 hosts and 5k^2/4 switches: seed 001's testbed (k=4) and simulation (k=24)
    t = fat_tree(k)
    assert (t.num_hosts, t.num_switches) == (hosts, switches)
    # every switch has k ports; links are directed, one each way
    deg = np.bincount(t.link_src, minlength=len(t.node_names))
    assert set(deg[~t.is_host].tolist()) == {k} and set(deg[t.is_host].tolist()) == {1}
    assert t.num_links == 2 * (hosts + 2 * (k * k // 2) * (k // 2))


def test_leaf_spine_seed_002_fabric():
    t = leaf_spine(4, 3, 30, uplink_capacity=10.0)
    assert (t.num_hosts, t.num_switches) == (120, 7)
    # full bisection: each leaf's uplinks carry what its hosts can send
    up = t.link_capacity[(t.link_src >= 120) & (t.link_src < 124) & (t.link_dst >= 124)]
    assert up.sum() / 4 == 30.0
    t2 = leaf_spine(4, 3, 30, oversubscription=4.0)
    up2 = t2.link_capacity[(t2.link_src >= 120) & (t2.link_src < 124) & (t2.link_dst >= 124)]
    assert up2.sum() / 4 == pytest.approx(30.0 / 4)


def _check_paths(t: Topology, src, dst, ptr, links):
    hosts = t.hosts
    for f in range(len(src)):
        p = links[ptr[f]:ptr[f + 1]].tolist()
        assert t.link_src[p[0]] == hosts[src[f]] and t.link_dst[p[-1]] == hosts[dst[f]]
        for a, b in zip(p, p[1:]):
            assert t.link_dst[a] == t.link_src[b], (f, p)
        assert len(set(p)) == len(p)


def _graph_distance(t: Topology, a: int, b: int) -> int:
    g = nx.DiGraph()
    g.add_edges_from(zip(t.link_src.tolist(), t.link_dst.tolist()))
    if a == b:
        return 2
    return nx.shortest_path_length(g, int(t.hosts[a]), int(t.hosts[b]))


TOPOLOGIES = [big_switch(3, 4), leaf_spine(3, 2, 2), leaf_spine(2, 2, 3, oversubscription=2.0),
              fat_tree(4), leaf_spine(2, 2, 2, uplink_capacity=2.0, unit_links=True)]


@pytest.mark.parametrize("t", TOPOLOGIES, ids=lambda t: t.kind + str(t.params))
@pytest.mark.parametrize("method", ["ecmp", "shortest"])
def test_every_path_is_a_shortest_walk(t, method):
    H = t.num_hosts
    src, dst = np.divmod(np.arange(H * H), H)
    if t.kind == "big-switch":   # 3 ingress ports: host 3 only receives
        keep = src < t.params["m_in"]
        src, dst = src[keep], dst[keep]
        with pytest.raises(InvalidParameterError, match="host 3 has no ingress port"):
            route(t, [3], [0])
    ptr, links = route(t, src, dst, method=method, seed=3)
    _check_paths(t, src, dst, ptr, links)
    if t.kind != "big-switch":   # the big switch's hosts send and receive through one switch
        for f in range(src.size):
            assert ptr[f + 1] - ptr[f] == _graph_distance(t, src[f], dst[f])


@pytest.mark.parametrize("t", TOPOLOGIES[1:], ids=lambda t: t.kind + str(t.params))
def test_structured_routing_agrees_with_the_general_graph_router(t):
    # the same topology with its structure forgotten is routed by networkx: the same lengths
    # and, over every choice, the same set of shortest paths
    g = Topology(t.kind, t.params, t.node_names, t.is_host, t.link_src, t.link_dst,
                 t.link_capacity, t.link_names)
    H = t.num_hosts
    src, dst = np.divmod(np.arange(H * H), H)
    src, dst = np.repeat(src, 40), np.repeat(dst, 40)
    keys = np.arange(src.size)
    a = route(t, src, dst, flow_key=keys)
    b = route(g, src, dst, flow_key=keys)
    assert np.array_equal(a[0], b[0])
    _check_paths(g, src, dst, *b)
    paths_a = {tuple(a[1][a[0][f]:a[0][f + 1]]) for f in range(src.size)}
    paths_b = {tuple(b[1][b[0][f]:b[0][f + 1]]) for f in range(src.size)}
    assert paths_a == paths_b


def test_ecmp_is_deterministic_and_spreads():
    t = fat_tree(8)
    n = 20000
    src = np.zeros(n, dtype=np.int64)
    dst = np.full(n, t.num_hosts - 1)
    p1 = route(t, src, dst, seed=7)
    p2 = route(t, src, dst, seed=7)
    p3 = route(t, src, dst, seed=8)
    assert all(np.array_equal(x, y) for x, y in zip(p1, p2))
    assert not np.array_equal(p1[1], p3[1])
    cores = p1[1].reshape(n, 6)[:, 2]                 # agg->core link: (k/2)^2 = 16 choices
    counts = np.bincount(cores)[np.unique(cores)]
    assert counts.size == 16 and counts.min() > 0.8 * n / 16
    # the hash of a flow does not depend on the other flows
    one = route(t, src[:1], dst[:1], seed=7, flow_key=[123])
    many = route(t, src[:200], dst[:200], seed=7, flow_key=np.arange(200) + 123 - 0)
    assert np.array_equal(one[1], many[1][:6])


def test_ecmp_hash_is_fixed():
    # pinned values: a change of the hash would silently move every ECMP path
    assert ecmp_hash(np.array([0, 1, 2]), seed=0).tolist() == \
        ecmp_hash(np.array([0, 1, 2]), seed=0).tolist()
    h = ecmp_hash(np.arange(1000), seed=1) % np.uint64(2)
    assert 400 < int(h.sum()) < 600


def test_split_links_and_unit_leaf_spine():
    t = leaf_spine(2, 1, 4, uplink_capacity=4.0)
    s = split_links(t)
    assert set(s.link_capacity.tolist()) == {1.0}
    assert s.link_capacity.sum() == t.link_capacity.sum()
    u = leaf_spine(2, 1, 4, uplink_capacity=4.0, unit_links=True)
    assert u.num_switches == 2 + 4 and set(u.link_capacity.tolist()) == {1.0}
    assert u.link_capacity.sum() == t.link_capacity.sum()
    with pytest.raises(InvalidParameterError, match="whole multiple"):
        leaf_spine(2, 3, 4, unit_links=True)          # uplinks 4/3 of a host link
    with pytest.raises(InvalidParameterError, match="whole multiple"):
        split_links(leaf_spine(2, 3, 4))


@pytest.mark.parametrize("t", TOPOLOGIES + [split_links(leaf_spine(2, 1, 2, uplink_capacity=2.0))],
                         ids=lambda t: t.kind + str(t.params))
def test_json_round_trip(t):
    d = json.loads(json.dumps(t.to_dict()))
    back = Topology.from_dict(d)
    assert back.node_names == t.node_names and back.link_names == t.link_names
    assert np.array_equal(back.link_capacity, t.link_capacity)
    H = min(t.num_hosts, t.params.get("m_in", t.num_hosts), t.params.get("m_out", t.num_hosts))
    src, dst = np.divmod(np.arange(H * H), H)
    a, b = route(t, src, dst), route(back, src, dst)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_builder_record_rebuilds():
    t = Topology.from_dict({"kind": "fat-tree", "params": {"k": 4}})
    assert t.num_hosts == 16 and t._structure["kind"] == "fat-tree"


def test_from_graph_and_its_errors():
    g = nx.Graph()
    g.add_edge("a", "s", capacity=1.0)
    g.add_edge("s", "b", capacity=1.0)
    t = from_graph(g, hosts=["a", "b"])
    assert t.num_links == 4                        # an undirected edge is a link each way
    with pytest.raises(InvalidParameterError, match="not in the graph"):
        from_graph(g, hosts=["z"])
    h = nx.DiGraph()
    h.add_edge("a", "b")
    with pytest.raises(InvalidInstanceError, match="capacity"):
        from_graph(h, hosts=["a", "b"])
    h = nx.DiGraph()
    h.add_edge("a", "b", capacity=0.0)
    with pytest.raises(InvalidInstanceError, match="capacity must be finite and > 0"):
        from_graph(h, hosts=["a", "b"])
    h = nx.DiGraph()
    h.add_edge("a", "s", capacity=1.0)
    h.add_node("b", host=True)
    t = from_graph(h, hosts=["a", "b"])
    with pytest.raises(InvalidParameterError, match="no path"):
        route(t, [0], [1])


@pytest.mark.parametrize("call, match", [
    (lambda: fat_tree(5), "k must be even"),
    (lambda: fat_tree(0), "k must be a positive integer"),
    (lambda: leaf_spine(2, 2, 2, oversubscription=float("nan")), "oversubscription"),
    (lambda: route(fat_tree(4), [0], [16]), "destination host 16 is not a host"),
    (lambda: route(fat_tree(4), [0], [1], method="random"), "routing must be one of"),
    (lambda: place_hosts(np.array([1]), 4, placement="x"), "placement must be one of"),
])
def test_bad_parameters(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 200), st.integers(1, 64), st.integers(0, 5))
def test_placement(num_ports, num_hosts, seed):
    ports = np.arange(num_ports)
    m = place_hosts(ports, num_hosts)
    assert np.array_equal(m, ports % num_hosts)
    r = place_hosts(ports, num_hosts, placement="random", seed=seed)
    assert r.min() >= 0 and r.max() < num_hosts
    if num_hosts >= num_ports:
        assert np.unique(r).size == num_ports          # injective when there is room
    assert np.array_equal(r, place_hosts(ports, num_hosts, placement="random", seed=seed))
