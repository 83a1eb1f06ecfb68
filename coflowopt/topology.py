"""Topologies and routing: the resources a flow occupies beyond the big switch.

A :class:`Topology` is a directed graph of hosts and switches whose links are the *resources*:
each link has a capacity, and a flow routed over a path occupies every link of it at one rate
(concurrent open shop with coupled resources).  The big switch is the special case with one
switch, an ingress link per sending port and an egress link per receiving port; its links are
numbered as coflowopt numbers ports (ingress ``i`` is resource ``i``, egress ``j`` is resource
``m_in + j``), so a big-switch path is ``[i, m_in + j]``.

Builders (plain functions, each records its kind and parameters in :attr:`Topology.params`):

* :func:`big_switch` (``m_in`` ingress, ``m_out`` egress ports);
* :func:`leaf_spine` (leaves, spines, hosts per leaf, oversubscription);
* :func:`fat_tree` (``k``: ``k^3/4`` hosts, ``5k^2/4`` switches; Al-Fares et al. 2008);
* :func:`from_graph` (any networkx ``DiGraph``) and :func:`Topology.from_dict` (its JSON form).

Routing fixes each flow's path (:func:`route`): ``"shortest"`` (the first shortest path in hop
count, deterministic), ``"ecmp"`` (one of the shortest paths chosen by a seedable hash of the
flow, as switches hash a flow's 5-tuple), or given paths.  :func:`split_links` is the
"equivalent topology" transform of seed 002: a link ``f`` times faster than the unit is split into
``f`` parallel unit links.

References
----------
M. Al-Fares, A. Loukissas, A. Vahdat, "A scalable, commodity data center network architecture",
SIGCOMM 2008 (the k-ary fat-tree).  Seed 001 (Creek): fat-tree k = 4 testbed (16 servers, 20
switches) and k = 24 simulation with ECMP.  Seed 002 ("To sync or not to sync", Globecom 2018):
leaf-spine, 4 leaves x 30 servers, 3 spines, 1G/10G links, flow-by-flow ECMP and the
equivalent-topology transform.  Digest: ``shared/reference/seeds-000-002.md`` sections 2-3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .exceptions import InvalidInstanceError, InvalidParameterError
from ._index_ranges import run_offsets

__all__ = ["Topology", "big_switch", "leaf_spine", "fat_tree", "from_graph", "route",
           "split_links", "place_hosts", "ecmp_hash", "on_topology", "ROUTINGS", "PLACEMENTS",
           "BUILDERS", "build"]

#: Routing methods of :func:`route`.
ROUTINGS = ("shortest", "ecmp")
#: Host placements of :func:`place_hosts`.
PLACEMENTS = ("modulo", "random")


@dataclass(frozen=True, eq=False)
class Topology:
    """Hosts, switches and directed links with capacities.

    Attributes
    ----------
    kind : str
        ``"big-switch"``, ``"leaf-spine"``, ``"fat-tree"`` or ``"graph"``.
    params : dict
        The builder's parameters (recorded in the instance format's ``topology`` field).
    node_names : tuple of str
    is_host : ndarray of bool, shape (N,)
    link_src, link_dst : ndarray of int64, shape (R,)
        Link ``l`` goes from node ``link_src[l]`` to node ``link_dst[l]``.
    link_capacity : ndarray of float, shape (R,)
        Finite and > 0.
    link_names : tuple of str
        Resource ids (``"h3>e1"`` style for built topologies).
    """

    kind: str
    params: dict
    node_names: tuple[str, ...]
    is_host: np.ndarray
    link_src: np.ndarray
    link_dst: np.ndarray
    link_capacity: np.ndarray
    link_names: tuple[str, ...]
    _structure: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        f = object.__setattr__
        f(self, "is_host", np.asarray(self.is_host, dtype=bool))
        f(self, "link_src", np.asarray(self.link_src, dtype=np.int64))
        f(self, "link_dst", np.asarray(self.link_dst, dtype=np.int64))
        f(self, "link_capacity", np.asarray(self.link_capacity, dtype=float))
        n = len(self.node_names)
        if len(set(self.node_names)) != n:
            raise InvalidInstanceError("node names must be unique", field="topology.nodes")
        if self.is_host.shape != (n,):
            raise InvalidInstanceError("one host flag per node", field="topology.nodes")
        R = self.link_capacity.shape[0]
        if not (self.link_src.shape == self.link_dst.shape == (R,) and len(self.link_names) == R):
            raise InvalidInstanceError("links need a source, a destination, a capacity and a "
                                       "name each", field="topology.links")
        if R and (self.link_src.min() < 0 or self.link_src.max() >= n or
                  self.link_dst.min() < 0 or self.link_dst.max() >= n):
            raise InvalidInstanceError("a link's end is not a node", field="topology.links")
        bad = ~(np.isfinite(self.link_capacity) & (self.link_capacity > 0))
        if bad.any():
            raise InvalidInstanceError(
                f"link {self.link_names[int(np.flatnonzero(bad)[0])]!r}: capacity must be finite "
                "and > 0", field="topology.links.capacity")
        if len(set(self.link_names)) != R:
            raise InvalidInstanceError("link names must be unique", field="topology.links")

    # ------------------------------------------------------------------ facts
    @property
    def hosts(self) -> np.ndarray:
        """Node indices of the hosts, in host order (host ``h`` is node ``hosts[h]``)."""
        return np.flatnonzero(self.is_host)

    @property
    def num_hosts(self) -> int:
        return int(self.is_host.sum())

    @property
    def num_switches(self) -> int:
        return int((~self.is_host).sum())

    @property
    def num_links(self) -> int:
        return int(self.link_capacity.shape[0])

    def summary(self) -> dict[str, Any]:
        """Counts for ``coflowopt info``: hosts, switches, links (resources)."""
        return {"kind": self.kind, "params": dict(self.params), "hosts": self.num_hosts,
                "switches": self.num_switches, "links": self.num_links}

    # ------------------------------------------------------------------ forms
    def to_networkx(self):
        """A ``networkx.MultiDiGraph``: nodes with ``host`` flags, one edge per link with its
        ``capacity``, ``name`` and ``index`` (parallel links stay parallel)."""
        import networkx as nx
        g = nx.MultiDiGraph()
        for name, h in zip(self.node_names, self.is_host.tolist()):
            g.add_node(name, host=bool(h))
        for l, (u, v) in enumerate(zip(self.link_src.tolist(), self.link_dst.tolist())):
            g.add_edge(self.node_names[u], self.node_names[v], key=self.link_names[l],
                       capacity=float(self.link_capacity[l]), name=self.link_names[l], index=l)
        return g

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``topology`` record of the instance format (version 2)."""
        return {"kind": self.kind, "params": _plain(self.params),
                "nodes": [{"id": n, "host": bool(h)} for n, h in
                          zip(self.node_names, self.is_host.tolist())],
                "links": [{"id": self.link_names[l], "src": self.node_names[u],
                           "dst": self.node_names[v], "capacity": float(c)}
                          for l, (u, v, c) in enumerate(zip(self.link_src.tolist(),
                                                             self.link_dst.tolist(),
                                                             self.link_capacity.tolist()))]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, where: str = "topology") -> "Topology":
        """Read the JSON ``topology`` record (as :meth:`to_dict` writes it).  The structured
        routing of the builders is rebuilt when ``kind`` and ``params`` name a builder."""
        if not isinstance(d, Mapping):
            raise InvalidInstanceError("must be an object", field=where)
        kind, params = d.get("kind", "graph"), dict(d.get("params") or {})
        builders = {"fat-tree": fat_tree, "leaf-spine": leaf_spine, "big-switch": big_switch}
        if kind in builders and "nodes" not in d:
            try:
                return builders[kind](**params)
            except TypeError as e:
                raise InvalidInstanceError(f"parameters of {kind!r}: {e}", field=f"{where}.params")
        nodes, links = d.get("nodes"), d.get("links")
        if not isinstance(nodes, list) or not isinstance(links, list):
            raise InvalidInstanceError("needs lists 'nodes' and 'links'", field=where)
        names, host = [], []
        for i, n in enumerate(nodes):
            if not isinstance(n, Mapping) or not isinstance(n.get("id"), str):
                raise InvalidInstanceError("each node needs a string 'id'",
                                           field=f"{where}.nodes[{i}]")
            names.append(n["id"])
            host.append(bool(n.get("host", False)))
        index = {n: i for i, n in enumerate(names)}
        src, dst, cap, lnames = [], [], [], []
        for i, e in enumerate(links):
            fld = f"{where}.links[{i}]"
            if not isinstance(e, Mapping):
                raise InvalidInstanceError("must be an object", field=fld)
            for key in ("src", "dst"):
                if e.get(key) not in index:
                    raise InvalidInstanceError(f"'{key}' must name a node", field=f"{fld}.{key}")
            c = e.get("capacity")
            if isinstance(c, bool) or not isinstance(c, (int, float)):
                raise InvalidInstanceError("must be a number", field=f"{fld}.capacity")
            src.append(index[e["src"]])
            dst.append(index[e["dst"]])
            cap.append(float(c))
            lnames.append(str(e.get("id", f"{e['src']}>{e['dst']}#{i}")))
        topo = cls(kind, params, tuple(names), np.array(host, dtype=bool), np.array(src),
                   np.array(dst), np.array(cap), tuple(lnames))
        if kind in builders:  # structured routing when the record is a builder's own
            try:
                ref = builders[kind](**params)
            except TypeError:
                ref = None
            if ref is not None and _same_links(ref, topo):
                return ref
        return topo


def _same_links(a: Topology, b: Topology) -> bool:
    return (a.node_names == b.node_names and a.link_names == b.link_names and
            np.array_equal(a.link_src, b.link_src) and np.array_equal(a.link_dst, b.link_dst)
            and np.array_equal(a.link_capacity, b.link_capacity))


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def _link_capacity(what: str, value: float) -> float:
    """A link capacity derived from parameters, within the limits an instance may hold (named
    here, by the parameters that give it, rather than later by a link's index)."""
    from .limits import CAPACITY_MAX, CAPACITY_MIN
    if not CAPACITY_MIN <= value <= CAPACITY_MAX:
        raise InvalidParameterError(f"{what} give a link capacity of {value!r}, outside "
                                    f"[{CAPACITY_MIN:g}, {CAPACITY_MAX:g}] (CAPACITY_MIN.."
                                    "CAPACITY_MAX, coflowopt.limits)")
    return value


def _positive(name: str, value, *, integer: bool = False, even: bool = False):
    ok = isinstance(value, (int, np.integer)) if integer else \
        isinstance(value, (int, float, np.integer, np.floating))
    # float(): a Python int beyond int64 (10**30) would make numpy's isfinite fail
    if isinstance(value, bool) or not ok or not math.isfinite(float(value)) or value <= 0:
        kind = "a positive integer" if integer else "a positive finite number"
        raise InvalidParameterError(f"{name} must be {kind}, got {value!r}")
    if even and value % 2:
        raise InvalidParameterError(f"{name} must be even, got {value!r}")
    return value


# ---------------------------------------------------------------------------------- builders
def big_switch(m_in: int, m_out: int | None = None, *, ingress_capacity=1.0,
               egress_capacity=1.0) -> Topology:
    """The big switch as a topology: ingress links ``0..m_in-1`` (host ``i`` to the switch),
    egress links ``m_in..m_in+m_out-1`` (the switch to host ``j``).

    Hosts are ``max(m_in, m_out)``: sending port ``i`` and receiving port ``i`` are the same
    host (a rack in the traces).  Capacities are a number or one per port.

    Examples
    --------
    >>> t = big_switch(2, 3)
    >>> t.num_hosts, t.num_switches, t.num_links, t.link_names[2]
    (3, 1, 5, 'out0')
    >>> route(t, [0, 1], [2, 0])[1].tolist()    # paths [i, m_in + j]
    [0, 4, 1, 2]
    """
    m_in = _positive("m_in", m_in, integer=True)
    m_out = m_in if m_out is None else _positive("m_out", m_out, integer=True)
    h = max(m_in, m_out)
    cin = np.broadcast_to(np.asarray(ingress_capacity, dtype=float), (m_in,)).copy()
    cout = np.broadcast_to(np.asarray(egress_capacity, dtype=float), (m_out,)).copy()
    names = tuple(f"h{i}" for i in range(h)) + ("switch",)
    src = np.concatenate([np.arange(m_in), np.full(m_out, h)])
    dst = np.concatenate([np.full(m_in, h), np.arange(m_out)])
    params = {"m_in": int(m_in), "m_out": int(m_out)}
    if np.ndim(ingress_capacity) or float(ingress_capacity) != 1.0:
        params["ingress_capacity"] = _plain(np.asarray(ingress_capacity).tolist())
    if np.ndim(egress_capacity) or float(egress_capacity) != 1.0:
        params["egress_capacity"] = _plain(np.asarray(egress_capacity).tolist())
    return Topology("big-switch", params, names, np.arange(h + 1) < h, src, dst,
                    np.concatenate([cin, cout]),
                    tuple(f"in{i}" for i in range(m_in)) + tuple(f"out{j}" for j in range(m_out)),
                    {"kind": "big-switch", "m_in": m_in, "m_out": m_out})


def leaf_spine(leaves: int, spines: int, hosts_per_leaf: int, *, host_capacity: float = 1.0,
               oversubscription: float = 1.0, uplink_capacity: float | None = None,
               unit_links: bool = False) -> Topology:
    """A two-layer Clos: every leaf connects to every spine; hosts hang off leaves.

    Links (both directions): host-leaf at ``host_capacity``, leaf-spine at ``uplink_capacity``
    (default: full bisection divided by the oversubscription, ``hosts_per_leaf *
    host_capacity / (spines * oversubscription)``), so a leaf's uplinks carry
    ``1/oversubscription`` of what its hosts can send.

    ``unit_links=True`` applies seed 002's equivalent-topology transform as the paper states it:
    when the uplink capacity is ``f`` times the host capacity (``f`` an integer), each spine is
    replicated ``f`` times, so every link has the host capacity.

    Examples
    --------
    >>> t = leaf_spine(4, 3, 30, uplink_capacity=10.0)      # seed 002's fabric (1G, 10G)
    >>> t.num_hosts, t.num_switches, t.num_links
    (120, 7, 264)
    >>> u = leaf_spine(4, 3, 30, uplink_capacity=10.0, unit_links=True)
    >>> u.num_switches, set(u.link_capacity.tolist())
    (34, {1.0})
    """
    L = _positive("leaves", leaves, integer=True)
    S = _positive("spines", spines, integer=True)
    H = _positive("hosts_per_leaf", hosts_per_leaf, integer=True)
    c = float(_positive("host_capacity", host_capacity))
    o = float(_positive("oversubscription", oversubscription))
    up = H * c / (S * o) if uplink_capacity is None else float(
        _positive("uplink_capacity", uplink_capacity))
    _link_capacity("host_capacity", c)
    _link_capacity("hosts_per_leaf * host_capacity / (spines * oversubscription)"
                   if uplink_capacity is None else "uplink_capacity", up)
    params = {"leaves": L, "spines": S, "hosts_per_leaf": H}
    if c != 1.0:
        params["host_capacity"] = c
    if uplink_capacity is not None:
        params["uplink_capacity"] = up
    elif o != 1.0:
        params["oversubscription"] = o
    copies = 1
    if unit_links:
        f = up / c
        if abs(f - round(f)) > 1e-12 * f or round(f) < 1:
            raise InvalidParameterError(
                f"unit_links needs the uplink capacity ({up}) to be a whole multiple of the host "
                f"capacity ({c})")
        copies = int(round(f))
        params["unit_links"] = True
        up = c
    nh, ns = L * H, S * copies
    names = tuple(f"h{i}" for i in range(nh)) + tuple(f"leaf{l}" for l in range(L)) + \
        tuple(f"spine{s // copies}" + (f".{s % copies}" if copies > 1 else "")
              for s in range(ns))
    host = np.arange(nh)
    leaf_of = host // H
    leaf_node = nh + np.arange(L)
    spine_node = nh + L + np.arange(ns)
    # link blocks, in this order: host up (nh), host down (nh), leaf->spine (L*ns),
    # spine->leaf (ns*L, indexed [spine, leaf])
    lu, ls = np.meshgrid(np.arange(L), np.arange(ns), indexing="ij")
    src = np.concatenate([host, leaf_node[leaf_of], leaf_node[lu.ravel()],
                          spine_node[ls.T.ravel()]])
    dst = np.concatenate([leaf_node[leaf_of], host, spine_node[ls.ravel()],
                          leaf_node[lu.T.ravel()]])
    cap = np.concatenate([np.full(2 * nh, c), np.full(2 * L * ns, up)])
    lnames = tuple(f"{names[u]}>{names[v]}" for u, v in zip(src.tolist(), dst.tolist()))
    return Topology("leaf-spine", params, names, np.arange(nh + L + ns) < nh, src, dst, cap,
                    lnames, {"kind": "leaf-spine", "L": L, "S": ns, "H": H})


def fat_tree(k: int, *, capacity: float = 1.0, core_oversubscription: float = 1.0) -> Topology:
    """The k-ary fat-tree of Al-Fares et al.: ``k`` pods of ``k/2`` edge and ``k/2``
    aggregation switches, ``(k/2)^2`` core switches, ``k/2`` hosts per edge switch: ``k^3/4``
    hosts and ``5k^2/4`` switches.

    Aggregation switch ``j`` of every pod connects to the core switches ``(j, 0..k/2-1)``.  All
    links (both directions) have ``capacity``, except aggregation-core links, which have
    ``capacity / core_oversubscription``.

    Examples
    --------
    >>> t = fat_tree(4)
    >>> t.num_hosts, t.num_switches, t.num_links
    (16, 20, 96)
    >>> big = fat_tree(24)                       # seed 001's simulation (printed "3465")
    >>> big.num_hosts, big.num_switches
    (3456, 720)
    """
    k = _positive("k", k, integer=True, even=True)
    c = float(_positive("capacity", capacity))
    o = float(_positive("core_oversubscription", core_oversubscription))
    _link_capacity("capacity", c)
    _link_capacity("capacity / core_oversubscription", c / o)
    h2 = k // 2
    nh, ne, na, nc = k * h2 * h2, k * h2, k * h2, h2 * h2
    params = {"k": k}
    if c != 1.0:
        params["capacity"] = c
    if o != 1.0:
        params["core_oversubscription"] = o
    names = tuple(f"h{i}" for i in range(nh)) + \
        tuple(f"e{p}.{i}" for p in range(k) for i in range(h2)) + \
        tuple(f"a{p}.{j}" for p in range(k) for j in range(h2)) + \
        tuple(f"c{j}.{l}" for j in range(h2) for l in range(h2))
    host = np.arange(nh)
    edge_of = host // h2                              # global edge index p*h2 + i
    E0, A0, C0 = nh, nh + ne, nh + ne + na
    e_idx = np.arange(ne)
    pod_of_edge = e_idx // h2
    # edge -> agg: [edge, j] ; agg -> core: [agg, l] with agg = p*h2 + j, core = j*h2 + l
    ea_e, ea_j = np.divmod(np.arange(ne * h2), h2)
    ea_a = pod_of_edge[ea_e] * h2 + ea_j
    ac_a, ac_l = np.divmod(np.arange(na * h2), h2)
    ac_c = (ac_a % h2) * h2 + ac_l
    # blocks: host up, host down, edge->agg, agg->edge, agg->core, core->agg
    src = np.concatenate([host, E0 + edge_of, E0 + ea_e, A0 + ea_a, A0 + ac_a, C0 + ac_c])
    dst = np.concatenate([E0 + edge_of, host, A0 + ea_a, E0 + ea_e, C0 + ac_c, A0 + ac_a])
    cap = np.concatenate([np.full(2 * nh + 2 * ne * h2, c), np.full(2 * na * h2, c / o)])
    lnames = tuple(f"{names[u]}>{names[v]}" for u, v in zip(src.tolist(), dst.tolist()))
    return Topology("fat-tree", params, names, np.arange(nh + ne + na + nc) < nh, src, dst, cap,
                    lnames, {"kind": "fat-tree", "k": k})


def from_graph(graph, *, hosts: Sequence | None = None, capacity: str = "capacity",
               kind: str = "graph", params: Mapping | None = None) -> Topology:
    """A topology from a networkx ``DiGraph``/``MultiDiGraph`` (an undirected graph gives a
    link each way).  Hosts are ``hosts`` if given, else the nodes whose ``host`` attribute is
    true; every edge needs a positive finite ``capacity`` attribute.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph()
    >>> g.add_edge("a", "s", capacity=1.0); g.add_edge("s", "b", capacity=2.0)
    >>> t = from_graph(g, hosts=["a", "b"])
    >>> t.num_hosts, t.num_links, route(t, [0], [1])[1].tolist()
    (2, 2, [0, 1])
    """
    import networkx as nx
    g = graph if graph.is_directed() else nx.MultiDiGraph(graph.to_directed())
    names = [str(n) for n in g.nodes]
    if len(set(names)) != len(names):
        raise InvalidInstanceError("node names must be unique as strings", field="topology.nodes")
    hostset = {str(h) for h in hosts} if hosts is not None else \
        {str(n) for n, d in g.nodes(data=True) if d.get("host")}
    missing = hostset - set(names)
    if missing:
        raise InvalidParameterError(f"hosts not in the graph: {sorted(missing)[:5]}")
    index = {n: i for i, n in enumerate(names)}
    src, dst, cap, lnames = [], [], [], []
    edges = g.edges(keys=True, data=True) if g.is_multigraph() else \
        ((u, v, None, d) for u, v, d in g.edges(data=True))
    for u, v, key, d in edges:
        cval = d.get(capacity)
        if cval is None:
            raise InvalidInstanceError(f"edge {u!r}->{v!r} has no {capacity!r} attribute",
                                       field="topology.links.capacity")
        src.append(index[str(u)])
        dst.append(index[str(v)])
        cap.append(float(cval))
        lnames.append(f"{u}>{v}" if key in (None, 0) else f"{u}>{v}#{key}")
    return Topology(kind, dict(params or {}), tuple(names),
                    np.array([n in hostset for n in names], dtype=bool), np.array(src),
                    np.array(dst), np.array(cap), tuple(lnames))


def split_links(topo: Topology, unit: float | None = None) -> Topology:
    """Seed 002's equivalent-topology transform on any topology: a link of capacity ``f x
    unit`` (``f`` a whole number) becomes ``f`` parallel links of capacity ``unit`` (default:
    the smallest capacity).  Routing then spreads flows over the parallel links (ECMP treats
    them as distinct equal-cost paths).  For leaf-spine, ``leaf_spine(..., unit_links=True)``
    replicates the spines instead, as the paper describes.

    Examples
    --------
    >>> t = split_links(leaf_spine(2, 1, 2, uplink_capacity=2.0))
    >>> t.num_links, set(t.link_capacity.tolist())
    (16, {1.0})
    """
    u = float(topo.link_capacity.min()) if unit is None else float(_positive("unit", unit))
    f = topo.link_capacity / u
    whole = np.rint(f)
    if np.any(np.abs(f - whole) > 1e-12 * f) or np.any(whole < 1):
        bad = int(np.flatnonzero((np.abs(f - whole) > 1e-12 * f) | (whole < 1))[0])
        raise InvalidParameterError(
            f"link {topo.link_names[bad]!r} has capacity {topo.link_capacity[bad]}, not a whole "
            f"multiple of the unit {u}")
    reps = whole.astype(np.int64)
    idx = np.repeat(np.arange(topo.num_links), reps)
    copy = run_offsets(reps)
    names = tuple(n if r == 1 else f"{n}#{c}" for n, r, c in
                  zip((topo.link_names[i] for i in idx.tolist()), reps[idx].tolist(),
                      copy.tolist()))
    return Topology("graph", {"split_from": topo.kind, "unit": u, **topo.params},
                    topo.node_names, topo.is_host, topo.link_src[idx], topo.link_dst[idx],
                    np.full(idx.size, u), names)


# ----------------------------------------------------------------------------------- routing
def ecmp_hash(key: np.ndarray, seed: int = 0) -> np.ndarray:
    """A deterministic 64-bit hash of integer flow keys (splitmix64 finaliser, seeded): the
    stand-in for a switch's hash of the flow's 5-tuple.  Same key and seed, same choice, on any
    machine."""
    # the seed's offset in Python integers (wrapping is the point: arithmetic mod 2^64)
    offset = np.uint64((0x9E3779B97F4A7C15 * (int(seed) + 1)) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        x = np.asarray(key, dtype=np.uint64) + offset
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def route(topo: Topology, src_host, dst_host, *, method: str = "ecmp", seed: int = 0,
          flow_key=None) -> tuple[np.ndarray, np.ndarray]:
    """The path of every flow ``src_host[f] -> dst_host[f]`` (host indices), as CSR arrays.

    Parameters
    ----------
    topo : Topology
    src_host, dst_host : array of int, shape (F,)
    method : {"ecmp", "shortest"}
        ``"shortest"``: the first shortest path (hop count) in a fixed order; ``"ecmp"``: one of
        the shortest paths, chosen by :func:`ecmp_hash` of the flow's key.
    seed : int
        ECMP's hash seed.
    flow_key : array of int, optional
        The key hashed per flow (default: the flow's index), so the choice does not depend on
        what else is routed.

    Returns
    -------
    path_ptr : ndarray of int64, shape (F+1,)
    path_link : ndarray of int64
        Flow ``f`` uses links ``path_link[path_ptr[f]:path_ptr[f+1]]``, in order from its source.

    Notes
    -----
    A flow from a host to itself uses the host's two access links (up and down), as a big-switch
    flow from port ``i`` to port ``i`` uses ingress ``i`` and egress ``i``.  Built topologies are
    routed by formula (vectorised over flows); general graphs by networkx, once per distinct
    (source, destination) pair.
    """
    if method not in ROUTINGS:
        raise InvalidParameterError(f"routing must be one of {', '.join(ROUTINGS)}, got "
                                    f"{method!r}")
    src = np.asarray(src_host, dtype=np.int64)
    dst = np.asarray(dst_host, dtype=np.int64)
    if src.shape != dst.shape or src.ndim != 1:
        raise InvalidParameterError("src_host and dst_host must be 1-d arrays of one length")
    H = topo.num_hosts
    for name, a in (("source", src), ("destination", dst)):
        if a.size and (a.min() < 0 or a.max() >= H):
            bad = int(np.flatnonzero((a < 0) | (a >= H))[0])
            raise InvalidParameterError(f"flow {bad}: {name} host {int(a[bad])} is not a host "
                                        f"of the topology (0..{H - 1})")
    key = np.arange(src.size) if flow_key is None else np.asarray(flow_key, dtype=np.int64)
    pick = ecmp_hash(key, seed) if method == "ecmp" else np.zeros(src.size, dtype=np.uint64)
    s = topo._structure
    if s.get("kind") == "big-switch":
        for name, a, m in (("ingress", src, s["m_in"]), ("egress", dst, s["m_out"])):
            if a.size and a.max() >= m:
                bad = int(np.flatnonzero(a >= m)[0])
                raise InvalidParameterError(f"flow {bad}: host {int(a[bad])} has no {name} port "
                                            f"(0..{m - 1})")
        return _paths(np.stack([src, s["m_in"] + dst], axis=1))
    if s.get("kind") == "leaf-spine":
        return _route_leaf_spine(s, src, dst, pick)
    if s.get("kind") == "fat-tree":
        return _route_fat_tree(s, src, dst, pick)
    return _route_graph(topo, src, dst, pick)


def _paths(rows: np.ndarray, lengths: np.ndarray | None = None):
    """CSR from a (F, Lmax) array of links, each row's first ``lengths[f]`` entries."""
    F, Lm = rows.shape
    if lengths is None:
        lengths = np.full(F, Lm)
    ptr = np.zeros(F + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    mask = np.arange(Lm)[None, :] < lengths[:, None]
    return ptr, rows[mask].astype(np.int64)


def _route_leaf_spine(s, src, dst, pick):
    L, S, H = s["L"], s["S"], s["H"]
    nh = L * H
    up, down = src, nh + dst
    ls, ld = src // H, dst // H
    spine = (pick % np.uint64(S)).astype(np.int64)
    l2s = 2 * nh + ls * S + spine                     # leaf -> spine block, [leaf, spine]
    s2l = 2 * nh + L * S + spine * L + ld             # spine -> leaf block, [spine, leaf]
    same = ls == ld
    rows = np.where(same[:, None], np.stack([up, down, down, down], axis=1),
                    np.stack([up, l2s, s2l, down], axis=1))
    return _paths(rows, np.where(same, 2, 4))


def _route_fat_tree(s, src, dst, pick):
    k = s["k"]
    h2 = k // 2
    nh, ne = k * h2 * h2, k * h2
    es, ed = src // h2, dst // h2                     # edge switches (global index)
    ps, pd = es // h2, ed // h2                       # pods
    j = (pick % np.uint64(h2)).astype(np.int64)       # aggregation position
    l = ((pick // np.uint64(h2)) % np.uint64(h2)).astype(np.int64)   # core position
    b_ea = 2 * nh                                     # edge -> agg, [edge, j]
    b_ae = b_ea + ne * h2                             # agg -> edge, same order as edge -> agg
    b_ac = b_ae + ne * h2                             # agg -> core, [agg, l]
    b_ca = b_ac + ne * h2                             # core -> agg, same order
    up, down = src, nh + dst
    e_up = b_ea + es * h2 + j
    e_dn = b_ae + ed * h2 + j
    a_up = b_ac + (ps * h2 + j) * h2 + l
    a_dn = b_ca + (pd * h2 + j) * h2 + l
    same_edge = es == ed
    same_pod = (ps == pd) & ~same_edge
    # the CSR written directly, row by row of the path shapes (6, 4 or 2 links): stacking
    # three (F, 6) candidates and masking them took 0.5 s for the 706,397 flows of the
    # Facebook trace on a k=16 fat-tree
    lengths = np.where(same_edge, 2, np.where(same_pod, 4, 6)).astype(np.int64)
    ptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    links = np.empty(int(ptr[-1]), dtype=np.int64)
    start, end = ptr[:-1], ptr[1:]
    links[start] = up
    links[end - 1] = down
    for rows, cols in ((lengths == 6, (e_up, a_up, a_dn, e_dn)), (same_pod, (e_up, e_dn))):
        second = start[rows] + 1
        for i, col in enumerate(cols):
            links[second + i] = col[rows]
    return ptr, links


def _route_graph(topo: Topology, src, dst, pick):
    """General graphs: every shortest path (hop count) of each distinct pair, once; a flow
    takes the first (``shortest``) or the one its hash picks (``ecmp``)."""
    import networkx as nx
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(len(topo.node_names)))
    for l, (u, v) in enumerate(zip(topo.link_src.tolist(), topo.link_dst.tolist())):
        g.add_edge(u, v, key=l)
    hosts = topo.hosts
    pairs, inverse = np.unique(np.stack([src, dst], axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    options: list[list[list[int]]] = []
    for a, b in pairs.tolist():
        u, v = int(hosts[a]), int(hosts[b])
        if u == v:
            ups = [l for _, _, l in g.out_edges(u, keys=True)]
            downs = [l for _, _, l in g.in_edges(u, keys=True)]
            if not ups or not downs:
                raise InvalidParameterError(f"host {topo.node_names[u]!r} has no access link")
            options.append([[ups[0], downs[0]]])
            continue
        try:
            node_paths = list(nx.all_shortest_paths(g, u, v))
        except nx.NetworkXNoPath:
            raise InvalidParameterError(f"no path from host {topo.node_names[u]!r} to host "
                                        f"{topo.node_names[v]!r}") from None
        node_paths.sort()
        link_paths: list[list[int]] = [[]]
        for path in node_paths:   # expand parallel links: every choice is an equal-cost path
            expanded: list[list[int]] = [[]]
            for x, y in zip(path, path[1:]):
                keys = sorted(g[x][y])
                expanded = [p + [kk] for p in expanded for kk in keys]
            link_paths += expanded
        options.append(link_paths[1:])
    counts = np.array([len(o) for o in options], dtype=np.uint64)
    choice = (pick % counts[inverse]).astype(np.int64)
    chosen = [options[p][c] for p, c in zip(inverse.tolist(), choice.tolist())]
    lengths = np.array([len(c) for c in chosen], dtype=np.int64)
    ptr = np.zeros(len(chosen) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    links = np.fromiter((l for c in chosen for l in c), dtype=np.int64, count=int(ptr[-1]))
    return ptr, links


# -------------------------------------------------------------------------------- placement
def place_hosts(ports: np.ndarray, num_hosts: int, *, placement: str = "modulo",
                seed: int = 0) -> np.ndarray:
    """Map a trace's port numbers (racks in the coflow-benchmark traces) onto hosts of a
    topology.

    ``"modulo"``: port ``p`` goes to host ``p mod num_hosts`` (with at least as many hosts as
    ports, the identity: ports keep their numbers).  ``"random"``: a seeded random injective map
    when ``num_hosts`` is at least the number of ports (else random with repetition).

    Examples
    --------
    >>> place_hosts(np.array([0, 5, 149]), 16).tolist()
    [0, 5, 5]
    """
    if placement not in PLACEMENTS:
        raise InvalidParameterError(f"placement must be one of {', '.join(PLACEMENTS)}, got "
                                    f"{placement!r}")
    num_hosts = _positive("num_hosts", num_hosts, integer=True)
    ports = np.asarray(ports, dtype=np.int64)
    if placement == "modulo":
        return ports % num_hosts
    m = int(ports.max()) + 1 if ports.size else 0
    rng = np.random.default_rng(seed)
    table = rng.permutation(num_hosts)[:m] if num_hosts >= m else rng.integers(0, num_hosts, m)
    return table[ports]


# ----------------------------------------------------------------------------------- instances
def on_topology(instance, topo: Topology, *, routing: str = "ecmp", seed: int = 0,
                placement: str = "modulo", placement_seed: int = 0, paths=None):
    """Place a host-to-host instance (a big-switch instance whose ports are hosts or racks, as
    in the traces and generators) onto a topology and route every flow.

    Ingress port ``i`` becomes host ``place_hosts(i)``, egress port ``j`` host
    ``place_hosts(j)`` (:func:`place_hosts`; with at least as many hosts as ports, ``"modulo"``
    is the identity); each flow is routed by :func:`route` with its global flow index as the
    ECMP key.  Coflows, weights, releases, deadlines and sizes are kept; the port capacities
    of ``instance`` are replaced by the topology's link capacities.

    Parameters
    ----------
    instance : Instance
        A big-switch instance (its ports name the hosts).
    topo : Topology
    routing : {"ecmp", "shortest", "given"}
        ``"given"`` takes ``paths = (path_ptr, path_link)`` (CSR over flows, link indices).
    seed : int
        ECMP's hash seed.
    placement, placement_seed
        Host placement (:func:`place_hosts`).

    Returns
    -------
    Instance
        On resources = the topology's links (``resource_ids`` = link names, ``host_ids`` = host
        names); ``meta["topology"]`` records kind, parameters, routing, seed, placement, nodes
        and links (the ``topology`` field of the instance format, version 2).

    Examples
    --------
    >>> from coflowopt.instance import Instance, Coflow
    >>> bs = Instance.from_coflows([Coflow("A", [(0, 1, 1.0)]), Coflow("B", [(1, 2, 1.0)])])
    >>> inst = on_topology(bs, fat_tree(4))     # hosts 0, 1 share an edge switch; 2 does not
    >>> inst.num_hosts, inst.num_resources, inst.path_length.tolist()
    (16, 96, [2, 4])
    """
    from .instance import Instance
    instance.require_big_switch("placing onto a topology (the input's ports are its hosts)")
    H = topo.num_hosts
    src = place_hosts(instance.flow_src, H, placement=placement, seed=placement_seed)
    dst = place_hosts(instance.flow_dst, H, placement=placement, seed=placement_seed)
    if routing == "given":
        if paths is None:
            raise InvalidParameterError("routing 'given' needs paths=(path_ptr, path_link)")
        ptr, links = (np.asarray(paths[0], dtype=np.int64), np.asarray(paths[1],
                                                                       dtype=np.int64))
    else:
        if paths is not None:
            raise InvalidParameterError(f"paths are only taken with routing 'given', not "
                                        f"{routing!r}")
        ptr, links = route(topo, src, dst, method=routing, seed=seed)
    host_names = tuple(topo.node_names[i] for i in topo.hosts.tolist())
    graph = topo.to_dict()
    record = {"kind": topo.kind, "params": graph["params"], "routing": routing,
              "seed": int(seed) if routing == "ecmp" else None, "placement": placement}
    if placement == "random":
        record["placement_seed"] = int(placement_seed)
    record["nodes"], record["links"] = graph["nodes"], graph["links"]
    meta = {**instance.meta, "topology": record}
    return Instance.from_paths(
        resource_capacity=topo.link_capacity, coflow_ids=instance.coflow_ids,
        flow_coflow=instance.flow_coflow, flow_src=src, flow_dst=dst,
        flow_size=instance.flow_size, path_ptr=ptr, path_resource=links,
        host_ids=host_names, resource_ids=topo.link_names, weight=instance.weight,
        release=instance.release, deadline=instance.deadline, meta=meta,
        # the big switch's sub-coflows (per egress port by default) stay as they were, also
        # when a placement puts two egress ports on one host
        flow_subcoflow=(instance.flow_subcoflow if instance.flow_subcoflow is not None or
                        np.unique(place_hosts(np.arange(instance.num_egress), H,
                                              placement=placement, seed=placement_seed)).size
                        == instance.num_egress else instance.subcoflow_index))


#: Topology kinds by name (the command line's ``--topology KIND:...`` and the experiment
#: specs' ``topology = {kind = ...}``): the builders above.
BUILDERS = {"fat-tree": fat_tree, "leaf-spine": leaf_spine, "big-switch": big_switch}


def build(kind: str, **params) -> Topology:
    """The topology ``BUILDERS[kind](**params)``.

    Raises
    ------
    InvalidParameterError
        For an unknown ``kind`` (the message lists the valid ones); the builder's own errors
        for bad parameters.

    Examples
    --------
    >>> build("fat-tree", k=4).num_hosts
    16
    """
    if kind not in BUILDERS:
        raise InvalidParameterError(f"unknown topology kind {kind!r}; valid: "
                                    f"{', '.join(BUILDERS)}")
    return BUILDERS[kind](**params)
