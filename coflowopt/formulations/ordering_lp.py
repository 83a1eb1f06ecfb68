"""The ordering LP with parallel inequalities per resource, solved by cutting planes.

Formulation (``formulations/ordering_lp.md`` has the proofs)
-------------------------------------------------------------
Variables ``C_k`` (completion time of coflow k).  With ``p_k^q = d_k^q / c_q`` the processing
time of coflow k on resource q, ``d_k^q`` the data of k's flows whose path contains ``q``
(:func:`port_loads`; on a big switch the resources are the ports in the unified numbering and
every path is ``[i, m_in + j]``, so ``d_k^q`` is the port load of Sincronia)::

    min  sum_k w_k C_k
    s.t. C_k >= r_k + rho_k                                         (isolation, column bound)
         sum_{k in S} p_k^q C_k >= theta p^q(S) + h_q(S)            for every port q, S, and
                                                                    threshold theta <= r_min(S)
         h_q(S) = 1/2 [ sum_{k in S} (p_k^q)^2 + (sum_{k in S} p_k^q)^2 ]

The ``theta = 0`` rows are Queyranne's parallel inequalities, i.e. constraint (3) of Sincronia's
LP-primal (tech report section 9) with the port variables ``C_k^q`` merged into ``C_k`` (an
equivalent LP, see the document).  ``theta = r_min(S) > 0`` adds the release date to the
inequality (every port-q unit of S is processed after ``r_min(S)``); with all releases 0 only
``theta = 0`` exists.  Each resource is a unit-capacity machine in time units ``1 / c_q``: a
fluid schedule sends at most ``c_q dt`` of data through ``q`` in ``dt``, whatever the path
lengths (a flow's rate counts at every resource of its path), so every argument per port holds
per resource word for word.  Rows are scaled by ``c_q`` so that the coefficients are the loads
``d_k^q`` (exact floats or exact dyadic sums)::

    sum_{k in S} d_k^q C_k >= theta d^q(S) + [ sum d^2 + (sum d)^2 ] / (2 c_q).

Separation oracle (exact, ``most_violated``)
---------------------------------------------
For fixed ``q`` and ``theta`` the violation ``f(S) = h(S) - sum_{k in S} p_k (C_k - theta)`` is
maximised by a *prefix* of the coflows sorted by ``C_k`` (not by ``C_k / p_k``): the marginal
value of adding ``k`` to ``T`` is ``p_k (p(T) + p_k - (C_k - theta))``, so a maximiser ``S*``
has ``C_k - theta <= p(S*)`` for ``k`` in ``S*`` and ``C_j - theta >= p(S*) + p_j > p(S*)``
for ``j`` outside it: ``S*`` is a prefix of the ``C`` order (proof in the document).  So
sorting once per port and scanning the prefix sums finds a most violated inequality in
``O(n_q log n_q)`` per port and threshold.

Cutting planes
--------------
Start with the full set of every port and (by default) the sets of the primal-dual (BSSI)
algorithm, solve the restricted LP with the dual simplex, add the most violated prefix of every
port (and threshold), re-solve warm (the basis stays dual feasible when rows are added), stop
when no inequality is violated by more than ``tol`` relative.  The restricted LP is a
relaxation of the full LP, so its dual certifies a lower bound at every round, also when the
loop stops on a time limit.

References
----------
M. Queyranne, "Structure of a simple scheduling polyhedron", Math. Program. 58 (1993) 263-285
(parallel inequalities, the greedy separation).  S. Agarwal et al., "Sincronia", SIGCOMM 2018,
technical report section 9 (LP-primal (1)-(3), its dual (4)-(5), Lemma 1, Algorithm 3).
M. Goemans, "A supermodular relaxation for scheduling with release dates", IPCO 1996 (release
dates in the parallel inequalities).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from .certificates import LPCertificate, _Dyadic, register_rebuilder
from .highs import HighsModel
from .linear_program import LinearProgram, RangeRows, exact_group_sums, float_down
from .._index_ranges import concat_ranges

__all__ = ["OrderingCuts", "NestedCuts", "PortLoads", "port_loads", "build_ordering_lp", "most_violated",
           "solve_ordering_lp", "OrderingLPSolution", "bssi_cuts", "smith_cuts",
           "isolation_lower_bounds", "PrimalDual", "lagrangian_dual", "LagrangianDual"]


# ----------------------------------------------------------------------------- port loads
@dataclass
class PortLoads:
    """Port loads ``d_k^q`` by port (CSC layout), with their exact values.

    A *port* here is a resource (:attr:`Instance.capacity` numbering): a port of the big
    switch, a link of a topology.

    ``indptr[q]:indptr[q+1]`` are the coflows with a positive load at port ``q`` (sorted by
    coflow index), ``coflow`` their indices, ``load`` the float loads, ``exact`` the exact
    loads as a dyadic vector (``_Dyadic``), ``ptime`` the processing times ``load / c_q``.
    """

    indptr: np.ndarray
    coflow: np.ndarray
    port: np.ndarray
    load: np.ndarray
    exact: _Dyadic
    exact_is_float: bool
    capacity: np.ndarray
    num_coflows: int

    @property
    def ptime(self) -> np.ndarray:
        return self.load / self.capacity[self.port]

    def exact_load(self, i: int) -> Fraction:
        return self.exact.fraction(i)

    def positions(self, ports: np.ndarray, coflows: np.ndarray) -> np.ndarray:
        """Entry positions of ``(port, coflow)`` pairs; -1 where the coflow has no load there."""
        K = self.num_coflows
        keys = self.port * K + self.coflow
        q = np.asarray(ports, dtype=np.int64) * K + np.asarray(coflows, dtype=np.int64)
        pos = np.searchsorted(keys, q)
        pos = np.minimum(pos, keys.size - 1)
        return np.where(keys[pos] == q, pos, -1)


def port_loads(instance: Instance) -> PortLoads:
    """The loads ``d_k^q`` of every coflow at every resource of ``instance``, with exact
    values (sums of flow sizes).

    On a big switch the resources are the ports (ingress ``i`` is ``i``, egress ``j`` is
    ``m_in + j``) and a flow loads its two ports.  On an instance over resources a flow's size
    counts at every resource of its path (the flow-to-resource incidence), so ``d_k^q`` is the
    data of coflow k whose path crosses ``q``; the big switch is the case ``path = [i, m_in +
    j]`` (and gives the same loads).

    Examples
    --------
    A line ``a -> s -> b`` (resources 0 and 1) and ``a -> s -> c`` (resources 0 and 2):

    >>> inst = Instance.from_paths(resource_capacity=[2.0, 1.0, 1.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0], flow_src=[0, 0], flow_dst=[1, 2], flow_size=[3.0, 1.0],
    ...     path_ptr=[0, 2, 4], path_resource=[0, 1, 0, 2], host_ids=["a", "b", "c"])
    >>> pl = port_loads(inst)
    >>> pl.port.tolist(), pl.load.tolist(), pl.ptime.tolist()
    ([0, 1, 2], [4.0, 3.0, 1.0], [2.0, 3.0, 1.0])
    """
    K, P = instance.num_coflows, instance.num_ports
    if instance.is_big_switch:
        fk = np.concatenate([instance.flow_coflow, instance.flow_coflow])
        fp = np.concatenate([instance.flow_src, instance.flow_egress_port])
        sz = np.concatenate([instance.flow_size, instance.flow_size])
    else:
        # one entry per (flow, resource of its path): the flow occupies each at its rate
        n = instance.path_length
        fk = np.repeat(instance.flow_coflow, n)
        fp = instance.flow_resource
        sz = np.repeat(instance.flow_size, n)
    key = fp * K + fk
    uniq, inv = np.unique(key, return_inverse=True)
    sums, exact = exact_group_sums(sz, inv, uniq.size)
    port = (uniq // K).astype(np.int64)
    coflow = (uniq % K).astype(np.int64)
    indptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(port, minlength=P), out=indptr[1:])
    ex = _Dyadic.from_exact(exact) if exact is not None else _Dyadic.from_floats(sums)
    return PortLoads(indptr=indptr, coflow=coflow, port=port, load=sums, exact=ex,
                     exact_is_float=exact is None, capacity=np.asarray(instance.capacity, float),
                     num_coflows=K)


def isolation_lower_bounds(instance: Instance, loads: PortLoads | None = None
                           ) -> tuple[np.ndarray, list[Fraction]]:
    """``r_k + rho_k`` for every coflow, as floats (rounded down when inexact) and exactly.

    ``rho_k = max_q d_k^q / c_q`` (Varys Eq. 1 in an empty fabric): no schedule completes coflow
    k before ``r_k + rho_k``.
    """
    loads = loads or port_loads(instance)
    K = instance.num_coflows
    best: list[Fraction] = [Fraction(0)] * K
    cap = [Fraction(float(c)) for c in instance.capacity]
    pt = loads.ptime
    # candidates: per coflow, the entries attaining the float maximum (the exact maximum is
    # among the entries within a relative 1e-12 of it)
    fmax = np.zeros(K)
    np.maximum.at(fmax, loads.coflow, pt)
    cand = np.flatnonzero(pt >= fmax[loads.coflow] * (1 - 1e-12))
    for i in cand.tolist():
        k = int(loads.coflow[i])
        v = loads.exact_load(i) / cap[int(loads.port[i])]
        if v > best[k]:
            best[k] = v
    exact = [Fraction(float(r)) + b for r, b in zip(instance.release, best)]
    fl = np.asarray([float_down(e) for e in exact])
    return fl, exact


# ----------------------------------------------------------------------------- cuts
@dataclass
class OrderingCuts:
    """Parallel inequalities: cut ``i`` is on port ``port[i]`` (a resource index) with
    threshold ``theta[i]`` over the coflows ``members[ptr[i]:ptr[i+1]]``."""

    port: np.ndarray
    theta: np.ndarray
    ptr: np.ndarray
    members: np.ndarray

    def __len__(self) -> int:
        return int(self.port.shape[0])

    @classmethod
    def empty(cls) -> "OrderingCuts":
        return cls(np.zeros(0, np.int64), np.zeros(0), np.zeros(1, np.int64),
                   np.zeros(0, np.int64))

    @classmethod
    def from_lists(cls, ports, thetas, sets) -> "OrderingCuts":
        sets = [np.asarray(s, dtype=np.int64) for s in sets]
        ptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in sets], out=ptr[1:])
        return cls(np.asarray(ports, dtype=np.int64), np.asarray(thetas, dtype=float), ptr,
                   np.concatenate(sets) if sets else np.zeros(0, np.int64))

    def concat(self, other) -> "OrderingCuts":
        other = other.explicit()            # nested cuts are written out
        return OrderingCuts(np.concatenate([self.port, other.port]),
                            np.concatenate([self.theta, other.theta]),
                            np.concatenate([self.ptr, other.ptr[1:] + self.ptr[-1]]),
                            np.concatenate([self.members, other.members]))

    def take(self, idx) -> "OrderingCuts":
        idx = np.asarray(idx, dtype=np.int64)
        sizes = np.diff(self.ptr)[idx]
        starts = self.ptr[idx]
        sel = concat_ranges(starts, sizes)
        ptr = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=ptr[1:])
        return OrderingCuts(self.port[idx], self.theta[idx], ptr, self.members[sel])

    def set(self, i: int) -> np.ndarray:
        """The coflows of cut ``i``."""
        return self.members[self.ptr[i]:self.ptr[i + 1]]

    def sets(self) -> list[np.ndarray]:
        return [self.set(i) for i in range(len(self))]

    def explicit(self) -> "OrderingCuts":
        return self

    def keys(self) -> list[bytes]:
        """Hashable identity of every cut (port, theta, sorted members)."""
        return [np.int64(p).tobytes() + np.float64(t).tobytes() +
                np.sort(self.members[self.ptr[i]:self.ptr[i + 1]]).tobytes()
                for i, (p, t) in enumerate(zip(self.port.tolist(), self.theta.tolist()))]

    def to_dict(self) -> dict[str, Any]:
        return {"port": self.port.tolist(), "theta": self.theta.tolist(),
                "sets": [s.tolist() for s in self.sets()]}


@dataclass
class NestedCuts:
    """Parallel inequalities over nested sets, stored without their sets: cut ``i`` is on port
    ``port[i]`` (a resource index) with threshold ``theta[i]`` over the coflows
    ``order[:length[i]]``, the first ``length[i]`` coflows of one shared order.  With
    ``offset``, cut ``i`` is ``order[offset[i]:offset[i] + length[i]]``: ``order`` is then a
    concatenation of orders (one per port for the Smith duals of :func:`lagrangian_dual`), each
    segment naming a coflow at most once.

    The sets of a primal-dual run (BSSI's ``J``, the prefixes of Smith's order at a port) are
    nested this way: ``K`` cuts take ``O(K)`` memory here against ``O(K^2)`` as
    :class:`OrderingCuts`, and the LP is built as :class:`~.linear_program.RangeRows` (one
    entry per coflow and port, each row a slice of them), so the certificate check is linear
    in the number of (coflow, port) loads too (``formulations/ordering_lp.md``, Certificate).

    Examples
    --------
    >>> cuts = NestedCuts(port=[0, 1], theta=[0.0, 0.0], length=[1, 3], order=[2, 0, 1])
    >>> [s.tolist() for s in cuts.sets()], len(cuts.explicit().members)
    ([[2], [2, 0, 1]], 4)
    """

    port: np.ndarray
    theta: np.ndarray
    length: np.ndarray
    order: np.ndarray
    offset: np.ndarray | None = None

    def __post_init__(self):
        self.port = np.asarray(self.port, dtype=np.int64)
        self.theta = np.asarray(self.theta, dtype=float)
        self.length = np.asarray(self.length, dtype=np.int64)
        self.order = np.asarray(self.order, dtype=np.int64)
        if self.offset is not None:
            self.offset = np.asarray(self.offset, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.port.shape[0])

    def set(self, i: int) -> np.ndarray:
        """The coflows of cut ``i`` (a view of the order)."""
        o = 0 if self.offset is None else int(self.offset[i])
        return self.order[o:o + int(self.length[i])]

    def sets(self) -> list[np.ndarray]:
        return [self.set(i) for i in range(len(self))]

    def take(self, idx) -> "NestedCuts":
        idx = np.asarray(idx, dtype=np.int64)
        return NestedCuts(self.port[idx], self.theta[idx], self.length[idx], self.order,
                          None if self.offset is None else self.offset[idx])

    def explicit(self) -> OrderingCuts:
        """The same cuts with their sets written out (``O(sum of lengths)``)."""
        return OrderingCuts.from_lists(self.port, self.theta, self.sets())

    def concat(self, other) -> OrderingCuts:
        return self.explicit().concat(other.explicit())

    def keys(self) -> list[bytes]:
        return self.explicit().keys()

    def to_dict(self) -> dict[str, Any]:
        out = {"port": self.port.tolist(), "theta": self.theta.tolist(),
               "length": self.length.tolist(), "order": self.order.tolist()}
        if self.offset is not None:
            out["offset"] = self.offset.tolist()
        return out


def _nested_entries(instance: Instance, loads: PortLoads, cuts: NestedCuts):
    """The entry list and row slices of nested cuts (see :func:`_cut_rows`).

    Entries: for every port that carries a cut, the coflows of ``order`` with a load there, by
    position in the order; the cut of length ``n`` on port ``q`` is the slice of ``q``'s entries
    at positions ``< n``.  Returns ``(start, stop, load entry of each list entry, smallest
    release of each cut's set)``.
    """
    K = instance.num_coflows
    if cuts.offset is not None:
        return _nested_entries_segments(instance, loads, cuts)
    order = cuts.order
    if np.any((order < 0) | (order >= K)):
        raise InvalidParameterError("a cut names a coflow index out of range")
    if np.unique(order).size != order.size:
        raise InvalidParameterError("the order of nested cuts names a coflow twice")
    if np.any((cuts.length < 0) | (cuts.length > order.size)):
        raise InvalidParameterError("a nested cut is longer than its order")
    P = loads.indptr.size - 1
    if np.any((cuts.port < 0) | (cuts.port >= P)):
        raise InvalidParameterError("a cut names a port out of range")
    where = np.full(K, -1, dtype=np.int64)
    where[order] = np.arange(order.size)
    used = np.unique(cuts.port)
    sizes = loads.indptr[used + 1] - loads.indptr[used]
    ent = concat_ranges(loads.indptr[used], sizes)
    rank = np.repeat(np.arange(used.size), sizes)
    at = where[loads.coflow[ent]]
    keep = at >= 0
    ent, rank, at = ent[keep], rank[keep], at[keep]
    srt = np.lexsort((at, rank))
    ent = ent[srt]
    key = rank[srt] * (K + 1) + at[srt]
    crank = np.searchsorted(used, cuts.port)
    start = np.searchsorted(key, crank * (K + 1))
    stop = np.searchsorted(key, crank * (K + 1) + cuts.length)
    rel = np.asarray(instance.release, dtype=float)[order]
    prefix_min = np.r_[np.inf, np.minimum.accumulate(rel)] if order.size else np.r_[np.inf]
    return start, stop, ent, prefix_min[cuts.length]


def _nested_entries_segments(instance: Instance, loads: PortLoads, cuts: NestedCuts):
    """:func:`_nested_entries` of nested cuts with offsets: the cuts of one offset are nested
    cuts over the segment of the order from it (as long as their longest cut), their entry
    lists concatenated."""
    n = len(cuts)
    if cuts.offset.shape != (n,):
        raise InvalidParameterError("nested cuts need one offset per cut")
    if np.any(cuts.offset < 0) or np.any(cuts.offset + cuts.length > cuts.order.size):
        raise InvalidParameterError("a nested cut runs past the end of its order")
    if n == 0:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                np.zeros(0))
    start = np.zeros(n, np.int64)
    stop = np.zeros(n, np.int64)
    rmin = np.zeros(n)
    ents = []
    base = 0
    srt = np.argsort(cuts.offset, kind="stable")
    bounds = np.flatnonzero(np.r_[True, np.diff(cuts.offset[srt]) != 0, True])
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        idx = srt[a:b]
        o = int(cuts.offset[idx[0]])
        seg = cuts.order[o:o + int(cuts.length[idx].max())]
        sub = NestedCuts(cuts.port[idx], cuts.theta[idx], cuts.length[idx], seg)
        s0, s1, ent, rm = _nested_entries(instance, loads, sub)
        start[idx], stop[idx], rmin[idx] = s0 + base, s1 + base, rm
        ents.append(ent)
        base += ent.size
    ent = np.concatenate(ents) if ents else np.zeros(0, np.int64)
    return start, stop, ent, rmin


def nested_explicit_on_loads(instance: Instance, loads: PortLoads,
                             cuts: NestedCuts) -> OrderingCuts:
    """Nested cuts written out with only the members that have a load at the cut's port.

    The same rows as :meth:`NestedCuts.explicit` (a member without load there has coefficient
    0 and adds nothing to the right-hand side, :func:`_cut_rows`), in memory proportional to
    the rows' nonzeros: BSSI's ``K`` prefixes written out in full take ``K^2 / 2`` entries
    (1.25e9 at 50,000 coflows, which ran the ordering LP out of memory), restricted to their
    bottleneck ports about ``K^2 / 2`` times the share of coflows at a port.  Valid only for
    cuts with ``theta = 0``: a threshold is checked against the smallest release of *all*
    members.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(1, 1, 2)])])
    >>> cuts = NestedCuts(port=[0, 0], theta=[0.0, 0.0], length=[1, 2], order=[1, 0])
    >>> [s.tolist() for s in nested_explicit_on_loads(inst, port_loads(inst), cuts).sets()]
    [[], [0]]
    """
    if np.any(cuts.theta != 0):
        raise InvalidParameterError("nested cuts with a release threshold keep every member")
    start, stop, ent, _ = _nested_entries(instance, loads, cuts)
    sizes = stop - start
    ptr = np.zeros(len(cuts) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    return OrderingCuts(cuts.port.copy(), cuts.theta.copy(), ptr,
                        loads.coflow[ent[concat_ranges(start, sizes)]].astype(np.int64))


def _cut_rows(instance: Instance, loads: PortLoads, cuts):
    """Rows (over the K completion columns) and exact right-hand sides of ``cuts``.

    :class:`OrderingCuts` give a CSR matrix, :class:`NestedCuts` a
    :class:`~.linear_program.RangeRows` matrix over one entry per (port, coflow) load; either
    way every row is a slice of an entry list, and the right-hand sides are differences of
    prefix sums over it.  Members without load on the cut's port are dropped (coefficient 0,
    no contribution to the right-hand side).  A threshold above the smallest member release is
    rejected: the inequality would not be valid.
    """
    K = instance.num_coflows
    if isinstance(cuts, NestedCuts):
        start, stop, pos, rmin = _nested_entries(instance, loads, cuts)
        members = loads.coflow[pos]
        A = RangeRows(start, stop, members, loads.load[pos], shape=(len(cuts), K))
    else:
        sizes = np.diff(cuts.ptr)
        cut_of = np.repeat(np.arange(len(cuts)), sizes)
        pos = loads.positions(cuts.port[cut_of], cuts.members)
        if np.any((cuts.members < 0) | (cuts.members >= K)):
            raise InvalidParameterError("a cut names a coflow index out of range")
        rmin = np.full(len(cuts), np.inf)
        np.minimum.at(rmin, cut_of, instance.release[cuts.members])
        keep = pos >= 0
        cut_of, pos = cut_of[keep], pos[keep]
        members = cuts.members[keep]
        ptr = np.zeros(len(cuts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(cut_of, minlength=len(cuts)), out=ptr[1:])
        start, stop = ptr[:-1], ptr[1:]
        import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
        A = sp.csr_matrix((loads.load[pos], members.astype(np.int32), ptr),
                          shape=(len(cuts), K))
    if len(cuts) and (np.any(cuts.theta > rmin) or np.any(cuts.theta < 0)):
        raise InvalidParameterError("a cut threshold exceeds the smallest release of its "
                                    "set (the inequality would be invalid)")
    a_exact = None if loads.exact_is_float else np.asarray(
        [loads.exact_load(i) for i in pos.tolist()], dtype=object)
    # exact right-hand sides: theta d(S) + (sum d^2 + (sum d)^2) / (2 c), with d(S) and
    # sum d^2 differences of prefix sums over the entry list (integers times 2^e, 2^2e)
    num = loads.exact.num[pos]
    e = loads.exact.exp
    P1 = np.zeros(num.size + 1, dtype=object)
    P2 = np.zeros(num.size + 1, dtype=object)
    P1[:] = 0
    P2[:] = 0
    if num.size:
        P1[1:] = np.cumsum(num)
        P2[1:] = np.cumsum(num * num)
    s1 = (P1[stop] - P1[start]).tolist()
    s2 = (P2[stop] - P2[start]).tolist()
    lo_exact = np.empty(len(cuts), dtype=object)
    lo_float = np.zeros(len(cuts))
    unit, unit2 = Fraction(2) ** e, Fraction(2) ** (2 * e)
    caps: dict[int, Fraction] = {}
    thetas: dict[float, Fraction] = {}
    for i, (q, t) in enumerate(zip(cuts.port.tolist(), cuts.theta.tolist())):
        a1, a2 = int(s1[i]), int(s2[i])
        c = caps.get(q)
        if c is None:
            c = caps[q] = Fraction(float(loads.capacity[q]))
        th = thetas.get(t)
        if th is None:
            th = thetas[t] = Fraction(t)
        sq = Fraction(a2 + a1 * a1) * unit2 / (2 * c)
        v = th * (Fraction(a1) * unit) + sq if th else sq
        lo_exact[i] = v
        lo_float[i] = float_down(v)
    return A, a_exact, lo_float, lo_exact


def build_ordering_lp(instance: Instance, cuts: OrderingCuts | None = None, *,
                      loads: PortLoads | None = None) -> LinearProgram:
    """The ordering LP restricted to ``cuts`` (columns ``C_k``; rows = cuts), with exact data.

    Parameters
    ----------
    instance : Instance
    cuts : OrderingCuts, optional
        The parallel inequalities to include (none: only the isolation bounds).
    loads : PortLoads, optional
        Precomputed :func:`port_loads`.

    Returns
    -------
    LinearProgram
        Name ``"ordering-lp"``; column block ``"C"``.
    """
    loads = loads or port_loads(instance)
    cuts = cuts if cuts is not None else OrderingCuts.empty()
    K = instance.num_coflows
    lo_f, lo_ex = isolation_lower_bounds(instance, loads)
    A, a_exact, rlo, rlo_ex = _cut_rows(instance, loads, cuts)
    exact: dict[str, Any] = {"col_lo": np.asarray(lo_ex, dtype=object),
                             "row_lo": rlo_ex}
    if a_exact is not None:
        exact["A_data"] = a_exact
    return LinearProgram(
        name="ordering-lp", c=np.asarray(instance.weight, dtype=float), A=A,
        row_lo=rlo, row_hi=np.full(len(cuts), np.inf), col_lo=lo_f, col_hi=np.full(K, np.inf),
        exact=exact, col_blocks={"C": (0, K, (K,))}, meta={"cuts": len(cuts)})


@register_rebuilder("ordering-lp")
def _rebuild(instance: Instance, params: dict, rows) -> LinearProgram:
    return build_ordering_lp(instance, rows if rows is not None else OrderingCuts.empty())


# ----------------------------------------------------------------------------- oracle
def most_violated(loads: PortLoads, release: np.ndarray, C: np.ndarray, *,
                  release_cuts: bool = True, tol: float = 1e-7,
                  max_thresholds: int | None = None) -> tuple[OrderingCuts, np.ndarray]:
    """For every port (and threshold), the most violated parallel inequality at ``C``.

    Parameters
    ----------
    loads : PortLoads
    release : ndarray, shape (K,)
    C : ndarray, shape (K,)
        The current LP completion times.
    release_cuts : bool
        Also separate the inequalities with threshold ``theta = r`` for every distinct release
        ``r > 0`` (the coflows released at ``>= theta``).
    tol : float
        Report a cut only if its violation exceeds ``tol`` times its right-hand side.
    max_thresholds : int, optional
        Cap on the number of distinct thresholds (the largest releases are dropped first).

    Returns
    -------
    cuts : OrderingCuts
    violation : ndarray
        Relative violation (violation / right-hand side) of each returned cut.

    Notes
    -----
    Exact greedy oracle (module docstring): the maximiser of ``h(S) - sum p_k (C_k - theta)``
    over subsets of the eligible coflows of a port is a prefix of them in ``C`` order.
    """
    pt = loads.ptime
    thetas = [0.0]
    if release_cuts:
        r = np.unique(release[release > 0])
        if max_thresholds is not None and r.size > max_thresholds - 1:
            r = r[:max(0, max_thresholds - 1)]
        thetas += r.tolist()
    out_ports, out_theta, out_sets, out_viol = [], [], [], []
    for theta in thetas:
        elig = release[loads.coflow] >= theta
        idx = np.flatnonzero(elig)
        if idx.size == 0:
            continue
        prt = loads.port[idx]
        Cs = C[loads.coflow[idx]] - theta
        order = np.lexsort((Cs, prt))
        idx, prt, Cs = idx[order], prt[order], Cs[order]
        p = pt[idx]
        seg_start = np.flatnonzero(np.r_[True, prt[1:] != prt[:-1]])
        seg_id = np.cumsum(np.r_[True, prt[1:] != prt[:-1]]) - 1
        csum = np.cumsum(p)
        base = np.r_[0.0, csum][seg_start][seg_id]
        P = csum - base                       # prefix sum of p within the port
        term = p * (P - Cs)                   # marginal violation
        tsum = np.cumsum(term)
        tbase = np.r_[0.0, tsum][seg_start][seg_id]
        viol = tsum - tbase                   # violation of each prefix
        rhs = theta * P + 0.5 * (np.cumsum(p * p) - np.r_[0.0, np.cumsum(p * p)][seg_start][
            seg_id] + P * P)
        rel = np.where(rhs > 0, viol / np.maximum(rhs, 1e-300), 0.0)
        # best prefix per port segment
        seg_end = np.r_[seg_start[1:], idx.size]
        for s, e in zip(seg_start.tolist(), seg_end.tolist()):
            j = s + int(np.argmax(viol[s:e]))
            if viol[j] > 0 and rel[j] > tol:
                out_ports.append(int(prt[s]))
                out_theta.append(float(theta))
                out_sets.append(loads.coflow[idx[s:j + 1]])
                out_viol.append(float(rel[j]))
    return OrderingCuts.from_lists(out_ports, out_theta, out_sets), np.asarray(out_viol)


def _full_set_cuts(loads: PortLoads, release: np.ndarray) -> OrderingCuts:
    ports, thetas, sets = [], [], []
    for q in range(loads.indptr.size - 1):
        s = loads.coflow[loads.indptr[q]:loads.indptr[q + 1]]
        if s.size > 1:
            ports.append(q)
            thetas.append(float(release[s].min()))
            sets.append(s)
    return OrderingCuts.from_lists(ports, thetas, sets)


# ----------------------------------------------------------------------------- primal-dual
@dataclass
class PrimalDual:
    """A dual solution of the ordering LP built combinatorially (BSSI's primal-dual, Smith).

    ``cuts`` with multipliers ``beta`` (in the unscaled form ``sum p C >= h``; the LP rows are
    scaled by ``c_q``, so their multipliers are ``beta / c_q``), the order produced (highest
    priority first), the bottleneck port of each step, and the value of the dual objective as
    the algorithm computed it.
    """

    cuts: OrderingCuts
    beta: np.ndarray
    order: np.ndarray
    bottleneck: np.ndarray
    value: Any
    exact: bool
    gamma: np.ndarray | None = None

    def row_duals(self, capacity: np.ndarray) -> np.ndarray:
        """Multipliers of the LP rows (scaled by ``c_q``): ``beta / c_q``; Fractions when the
        run was exact."""
        if self.exact:
            out = np.empty(len(self.cuts), dtype=object)
            out[:] = [Fraction(b) / Fraction(float(capacity[q]))
                      for b, q in zip(self.beta.tolist(), self.cuts.port.tolist())]
            return out
        return np.asarray(self.beta, float) / np.asarray(capacity, float)[self.cuts.port]


def bssi_cuts(trace) -> PrimalDual:
    """The dual solution of a BSSI run as ordering-LP cuts.

    ``trace`` is a :class:`coflowopt.orderings.bssi.BssiTrace` (Sincronia Algorithm 1, or
    Algorithm 3 with releases): the step that fills position ``i`` contributes the cut on its
    bottleneck ``b_i`` over the coflows at positions ``0..i`` (the set ``J`` still unscheduled
    at that step; members without load at ``b_i`` drop out of the row) with multiplier
    ``beta_i`` (in processing-time units, so the row dual is ``beta_i / c_{b_i}``).  Steps of
    the release branch have ``beta_i = 0`` and contribute no cut: their residual weight ends up
    on the coflow's isolation bound ``r_k + rho_k >= r_k`` (at least Sincronia's ``gamma r``).

    The sets are the prefixes of the order, so the cuts are :class:`NestedCuts` (``O(K)``
    memory; :meth:`NestedCuts.explicit` writes the sets out).
    """
    order = np.asarray(trace.order, dtype=np.int64)
    beta = list(trace.beta)
    keep = [i for i, b in enumerate(beta) if b != 0 and not bool(trace.release_branch[i])]
    kept = np.asarray(keep, dtype=np.int64)
    cuts = NestedCuts(port=np.asarray(trace.bottleneck, np.int64)[kept],
                      theta=np.zeros(kept.size), length=kept + 1, order=order)
    exact = bool(trace.exact)
    return PrimalDual(cuts=cuts, beta=np.asarray([beta[i] for i in keep],
                                                 dtype=object if exact else float),
                      order=order, bottleneck=np.asarray(trace.bottleneck, np.int64),
                      value=trace.dual_objective, exact=exact,
                      gamma=np.asarray(trace.gamma, dtype=object if exact else float))


def smith_cuts(instance: Instance, port: int, *, exact: bool | None = None,
               loads: PortLoads | None = None) -> PrimalDual:
    """Smith's rule on one port as a dual solution of the ordering LP.

    The coflows with load at ``port`` in Smith order (``w_k / p_k`` non-increasing) ``k_1..k_n``
    get the nested sets ``[i] = {k_1..k_i}`` with ``beta_[i] = w_i/p_i - w_{i+1}/p_{i+1} >= 0``
    (``beta_[n] = w_n / p_n``), so ``sum_{S ni k_i} beta_S p_{k_i} = w_{k_i}``: the dual
    constraint of every coflow at the port is tight, and the dual objective
    ``sum beta_[i] h([i])`` equals Smith's optimal ``sum w_k C_k`` on the port.  The other
    coflows keep their isolation bound ``r_k + rho_k``.
    """
    loads = loads or port_loads(instance)
    if exact is None:
        exact = True
    ent = list(range(int(loads.indptr[port]), int(loads.indptr[port + 1])))
    if exact:
        cap = Fraction(float(loads.capacity[port]))
        p = [loads.exact_load(i) / cap for i in ent]
        w = [Fraction(float(instance.weight[int(loads.coflow[i])])) for i in ent]
        zero = Fraction(0)
    else:
        p = (loads.load[ent] / loads.capacity[port]).tolist()
        w = [float(instance.weight[int(loads.coflow[i])]) for i in ent]
        zero = 0.0
    ratio = [wi / pi for wi, pi in zip(w, p)]
    idx = sorted(range(len(ent)), key=lambda i: (-ratio[i], int(loads.coflow[ent[i]])))
    betas, value, t = [], zero, zero
    for pos, i in enumerate(idx):
        nxt = ratio[idx[pos + 1]] if pos + 1 < len(idx) else zero
        betas.append(ratio[i] - nxt)
        t += p[i]
        value += w[i] * t
    keep = [j for j, b in enumerate(betas) if b != 0]
    order = np.asarray([int(loads.coflow[ent[i]]) for i in idx], np.int64)
    # the set of cut j is the first j + 1 coflows of Smith's order: nested
    cuts = NestedCuts(port=np.full(len(keep), port, np.int64), theta=np.zeros(len(keep)),
                      length=np.asarray(keep, dtype=np.int64) + 1, order=order)
    return PrimalDual(cuts=cuts, beta=np.asarray([betas[j] for j in keep],
                                                 dtype=object if exact else float),
                      order=order, bottleneck=np.full(len(idx), port, np.int64), value=value,
                      exact=exact)


# ----------------------------------------------------------------------------- Lagrangian dual
@dataclass
class LagrangianDual:
    """A dual solution of the ordering LP from :func:`lagrangian_dual`.

    ``cuts`` (one block of nested cuts per port, the prefixes of Smith's order of the port under
    the weights ``split``) with row multipliers ``row_duals`` (of the LP rows, scaled by
    ``c_q``), ``value`` the float dual objective they give (exact check: the certificate),
    ``split`` the weight of each (port, coflow) load entry, ``history`` the objective per
    iteration and ``status`` ``"iteration_limit"`` or ``"time_limit"``.
    """

    cuts: NestedCuts
    row_duals: np.ndarray
    value: float
    split: np.ndarray
    iterations: int
    status: str
    history: list


def _smith_by_port(loads: PortLoads, lam: np.ndarray, port16: np.ndarray):
    """Smith's order of every port under the entry weights ``lam``: the entry permutation
    (ports in turn, on each the ratio ``lam / p`` non-increasing; ties in any fixed order:
    they change neither Smith's value nor the cuts, whose multiplier between tied entries is
    0), each sorted entry's completion time on its port and the sorted ratios."""
    pt = loads.ptime
    ratio = lam / pt
    # by ratio (introsort: 10x a stable sort of floats at 250,000 entries), then by port (a
    # stable radix sort of the small integers)
    o = np.argsort(-ratio)
    o = o[np.argsort(port16[o], kind="stable")]
    p = pt[o]
    cs = np.cumsum(p)
    first = np.r_[True, loads.port[o][1:] != loads.port[o][:-1]]
    base = np.maximum.accumulate(np.where(first, np.r_[0.0, cs[:-1]], 0.0))
    return o, cs - base, ratio[o], first


def _split_value(loads: PortLoads, lam: np.ndarray, w: np.ndarray, iso: np.ndarray,
                 port16: np.ndarray) -> float:
    """``g`` of the split ``lam`` (the rest of every weight on the isolation bound)."""
    o, Cs, _, _ = _smith_by_port(loads, lam, port16)
    mu = np.maximum(w - np.bincount(loads.coflow, weights=lam, minlength=w.size), 0.0)
    return float(lam[o] @ Cs + mu @ iso)


def lagrangian_dual(instance: Instance, loads: PortLoads | None = None, *,
                    start: PrimalDual | None = None, iterations: int = 200,
                    deadline: float | None = None, step: float = 5.0, mix: float = 0.01,
                    decay: float = 0.7) -> LagrangianDual:
    """A dual solution of the ordering LP by ascent on the Lagrangian dual of its ports.

    Split every weight ``w_k = sum_q lambda_qk + mu_k`` over the ports ``q`` where coflow k has
    a load and its isolation bound, ``lambda, mu >= 0``.  For a fixed split the parallel
    inequalities of port ``q`` alone are minimised by Smith's rule with the weights
    ``lambda_q`` (Queyranne 1993), whose dual is the nested prefix cuts of Smith's order with
    ``beta_i = lambda_i / p_i - lambda_{i+1} / p_{i+1}`` (:func:`smith_cuts`), so

        g(lambda) = sum_q Smith_q(lambda_q) + sum_k mu_k (r_k + rho_k)

    is the objective of a feasible dual of the ordering LP (theta = 0 rows and the isolation
    bounds), and the ordering LP's optimum is ``max g`` (LP duality: the dual's multipliers of
    port ``q`` define ``lambda_q``, and Smith's cuts are the best for it).  ``g`` is concave and
    piecewise linear; its supergradient in ``lambda_qk`` is k's completion time in Smith's
    order of port ``q`` (in ``mu_k``: ``r_k + rho_k``).  The ascent is exponentiated gradient
    on each coflow's split (step ``step / (t + 1)^decay`` on the gradient divided by the
    coflow's largest entry), started from the best of ``start``'s split (BSSI's dual: ``g``
    there is at least BSSI's dual objective, the Smith cuts of each port being optimal for its
    share), the port bound's split (all weight on the best port) and the isolated bound's (all
    on ``mu``), then mixed with the uniform split at weight ``mix``.  The best iterate is returned; it is not the LP
    optimum (no optimality test), and the value is certified by the caller's exact check of
    the cuts and multipliers, not trusted.  A reconstruction: the split is Lagrangian
    decomposition over the ports (one copy of ``C`` per port); the step rule is ours.

    Parameters
    ----------
    instance : Instance
    loads : PortLoads, optional
    start : PrimalDual, optional
        A dual solution whose split starts the ascent (:func:`bssi_cuts`); none: uniform.
    iterations : int, default 200
        Evaluations of ``g`` at most.
    deadline : float, optional
        ``time.perf_counter()`` value at which to stop (status ``"time_limit"``); the start
        is evaluated in any case.
    step, mix, decay : float
        The step rule (above).

    Returns
    -------
    LagrangianDual

    Examples
    --------
    Two coflows on one port: Smith's rule is the LP optimum (1 + (1 + 2) = 4):

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    >>> round(lagrangian_dual(inst, iterations=50).value, 6)
    4.0
    """
    loads = loads or port_loads(instance)
    K = instance.num_coflows
    w = np.asarray(instance.weight, dtype=float)
    pt, cf = loads.ptime, loads.coflow
    # r_k + rho_k in floats (the gradient and the claimed value; the certificate is exact)
    iso = np.zeros(K)
    np.maximum.at(iso, cf, pt)
    iso += np.asarray(instance.release, dtype=float)
    n_opt = np.bincount(cf, minlength=K) + 1.0
    lam = np.zeros(pt.size)
    if start is not None:
        # lambda_qk = p_k^q x (the multipliers of start's cuts on q containing k)
        cuts = start.cuts
        beta = np.asarray(start.beta, dtype=float)
        if cuts.offset is not None or np.any(cuts.theta != 0):
            raise InvalidParameterError("the start of the Lagrangian dual must be nested cuts "
                                        "of one order without thresholds")
        pos = np.full(K, -1, dtype=np.int64)
        pos[cuts.order] = np.arange(cuts.order.size)
        o = np.lexsort((cuts.length, cuts.port))
        key = cuts.port[o] * (K + 1) + cuts.length[o]
        csum = np.r_[0.0, np.cumsum(beta[o])]
        port_end = np.searchsorted(cuts.port[o], np.arange(loads.indptr.size - 1),
                                   side="right")
        at = pos[cf]
        j = np.searchsorted(key, loads.port * (K + 1) + at, side="right")
        lam = np.where(at >= 0, pt * (csum[port_end[loads.port]] - csum[j]), 0.0)
        lam = np.maximum(lam, 0.0)
    port16 = loads.port.astype(np.int16 if loads.indptr.size <= 32768 else np.int64)
    # two more starts, the splits of the port and isolated bounds: all of a coflow's weight
    # on the best port (Smith's rule there, the other coflows at r_k + rho_k) or on the
    # isolation bounds; the ascent starts from the best of the three
    o, Cs, _, _ = _smith_by_port(loads, w[cf], port16)
    per_port = np.bincount(loads.port[o], weights=w[cf[o]] * (Cs - iso[cf[o]]),
                           minlength=loads.indptr.size - 1)
    q = int(np.argmax(per_port))
    starts = [lam, np.where(loads.port == q, w[cf], 0.0), np.zeros(pt.size)]
    gains = [_split_value(loads, x, w, iso, port16) for x in starts]
    lam = starts[int(np.argmax(gains))]
    mu = np.maximum(w - np.bincount(cf, weights=lam, minlength=K), 0.0)
    best = (-np.inf, lam)
    history = []
    status = "iteration_limit"
    it = 0
    while it < iterations:
        if it and deadline is not None and time.perf_counter() >= deadline:
            status = "time_limit"
            break
        o, Cs, _, _ = _smith_by_port(loads, lam, port16)
        C = np.empty(pt.size)
        C[o] = Cs
        g = float(lam @ C + mu @ iso)
        history.append(g)
        if g > best[0]:
            best = (g, lam.copy())
        it += 1
        if it == 1:
            # the start itself is the first iterate; from it on every option keeps a share
            # (a multiplicative step cannot revive a zero)
            lam = (1 - mix) * lam + mix * w[cf] / n_opt[cf]
            mu = (1 - mix) * mu + mix * w / n_opt
        # exponentiated gradient on each coflow's split, the gradient relative to the
        # coflow's largest entry (its Smith completion times and r_k + rho_k)
        Cmax = iso.copy()
        np.maximum.at(Cmax, cf, C)
        Cmax[Cmax <= 0] = 1.0
        eta = step / it ** decay
        ye = lam * np.exp(eta * (C / Cmax[cf] - 1.0))
        yi = mu * np.exp(eta * (iso / Cmax - 1.0))
        tot = np.bincount(cf, weights=ye, minlength=K) + yi
        tot[tot <= 0] = 1.0
        lam, mu = ye * (w / tot)[cf], yi * (w / tot)
    lam = best[1]
    # the certificate: Smith's nested cuts on every port, beta_i the drop of the ratio
    o, _, r, first = _smith_by_port(loads, lam, port16)
    nxt = np.r_[r[1:], 0.0]
    last = np.r_[first[1:], True]
    beta = np.where(last, r, np.maximum(r - nxt, 0.0))
    seg_start = np.maximum.accumulate(np.where(first, np.arange(o.size), 0))
    keep = np.flatnonzero(beta > 0)
    cuts = NestedCuts(port=loads.port[o][keep], theta=np.zeros(keep.size),
                      length=keep - seg_start[keep] + 1, order=cf[o], offset=seg_start[keep])
    y = beta[keep] / loads.capacity[cuts.port]
    return LagrangianDual(cuts=cuts, row_duals=y, value=float(best[0]), split=lam,
                          iterations=it, status=status, history=history)


# ----------------------------------------------------------------------------- cutting planes
@dataclass
class OrderingLPSolution:
    """The outcome of :func:`solve_ordering_lp`.

    ``C`` are the completion times of the last restricted LP solved to optimality, ``objective``
    its value (float, the solver's), ``certificate`` its dual with the cuts it refers to,
    ``converged`` whether the oracle found no violated inequality (then ``objective`` is the
    full LP's optimum up to the tolerance), ``status`` the mapped solver status of the last
    solve (``time_limit`` when the loop was stopped by the clock).  ``warm_start_skipped``:
    the number of entries of BSSI's rows left out of the first LP (0 when they went in).
    """

    C: np.ndarray | None
    objective: float | None
    certificate: LPCertificate | None
    cuts: OrderingCuts
    converged: bool
    status: str
    rounds: int
    history: list
    solver: dict
    timings: dict
    model: HighsModel | None = None
    warm_start_skipped: int = 0


#: Iterations of the Lagrangian dual (``method="lagrangian"``): at 50,000 random coflows
#: 200 iterations take 4-10 s and reach 78,989,652 (BSSI's dual 78,405,520), 1,000 reach
#: 78,992,597 (``experiments/results/bench_scale.md``).
LAGRANGIAN_ITERATIONS = 200

#: Largest number of entries of BSSI's rows put into the first LP (``initial="bssi"``).
WARM_START_NONZEROS = 2_000_000


def solve_ordering_lp(instance: Instance, *, release_cuts: bool = True, tol: float = 1e-7,
                      max_rounds: int = 500, time_limit: float | None = None,
                      initial: str = "bssi", max_thresholds: int | None = 64,
                      algorithm: str = "simplex", export: str | None = None,
                      warm_start: bool = True, log: bool = False,
                      method: str = "cutting-planes",
                      lagrangian_iterations: int = LAGRANGIAN_ITERATIONS
                      ) -> OrderingLPSolution:
    """Solve the ordering LP by cutting planes with the exact greedy oracle, or bound it from
    below by the Lagrangian dual of its ports.

    Parameters
    ----------
    instance : Instance
    release_cuts : bool, default True
        Separate the release-date inequalities too (only matters with releases).
    tol : float, default 1e-7
        Relative violation below which the loop stops.
    max_rounds : int
    time_limit : float, optional
        Seconds for the whole loop; the last optimal restricted LP is returned and certified,
        or with ``initial="bssi"`` BSSI's dual when it is larger or no LP finished (then
        ``C`` is None and the certificate's source is ``"bssi"``).
    initial : {"bssi", "full"}
        Initial rows: the full set of every port, plus the primal-dual (BSSI) sets with
        ``"bssi"`` (a warm start: the first LP is already at least the BSSI dual bound), written
        out with only the members that have a load at the row's port; above
        :data:`WARM_START_NONZEROS` entries they stay out of the LP and BSSI's dual is only the
        floor of a loop stopped by a limit.
    max_thresholds : int, optional
        Cap on the release thresholds separated per round.
    algorithm : str
        HiGHS algorithm for the restricted LPs (``"simplex"``: warm-started dual simplex).
    export : str, optional
        Write the final restricted LP to this ``.lp`` / ``.mps`` file.
    warm_start : bool, default True
        Add the new cuts to the solved model (its basis stays dual feasible: the next solve is
        a warm dual simplex).  ``False`` rebuilds and solves every round from scratch (the
        baseline of ``experiments/bench_ordering_lp.py``).
    method : {"cutting-planes", "lagrangian"}
        ``"lagrangian"``: no LP is solved; :func:`lagrangian_dual` from BSSI's dual for
        ``lagrangian_iterations`` iterations (or ``time_limit`` seconds), its cuts and
        multipliers the certificate (or BSSI's when they give less), ``C`` None, ``converged``
        False, status ``"iteration_limit"`` / ``"time_limit"``: a certified lower bound on the
        LP optimum, never the optimum.  ``release_cuts``, ``tol``, ``max_rounds``,
        ``initial``, ``max_thresholds``, ``algorithm``, ``warm_start`` do not apply.
    lagrangian_iterations : int
        Iterations of ``method="lagrangian"``.

    Returns
    -------
    OrderingLPSolution
        In the instance's units; the LP itself is solved in the units of
        :func:`~.certificates.unit_scaling` (``certificate.params["unit"]``: HiGHS's tolerances
        are absolute), which is also the unit of an exported LP.
    """
    from .certificates import normalised, time_factor, unit_factor
    if time_limit is not None:
        # a negative limit ran to the first check and reported a solver failure (a fuzz of
        # every parameter): the caller's mistake, refused by name like every other limit
        from ..bounds.common import check_time_limit
        check_time_limit(time_limit)
    inst_u, unit = normalised(instance)
    if method not in ("cutting-planes", "lagrangian"):
        raise InvalidParameterError(f"method must be 'cutting-planes' or 'lagrangian', got "
                                    f"{method!r}")
    if method == "lagrangian":
        if export:
            raise InvalidParameterError("export: the Lagrangian dual solves no LP to export")
        out = _lagrangian_in_units(inst_u, time_limit=time_limit,
                                   iterations=lagrangian_iterations)
    else:
            out = _solve_ordering_lp_in_units(inst_u, release_cuts=release_cuts, tol=tol,
                                          max_rounds=max_rounds, time_limit=time_limit,
                                          initial=initial, max_thresholds=max_thresholds,
                                          algorithm=algorithm, export=export,
                                          warm_start=warm_start, log=log)
    f = unit_factor(unit)
    if f != 1:
        ff = float(f)
        if out.C is not None:
            out.C = out.C * time_factor(unit)
        if out.objective is not None:
            out.objective = out.objective * ff
        for h in out.history:
            h["objective"] = h["objective"] * ff
    if out.certificate is not None:
        out.certificate.params["unit"] = dict(unit)
        if out.certificate.claimed_value is not None:
            out.certificate.claimed_value = out.objective
    return out


def _lagrangian_in_units(instance: Instance, *, time_limit: float | None,
                         iterations: int) -> OrderingLPSolution:
    """``solve_ordering_lp(method="lagrangian")`` on an instance already in its LP units."""
    t_start = time.perf_counter()
    deadline = None if time_limit is None else t_start + float(time_limit)
    loads = port_loads(instance)
    pd = floor = None
    try:
        from ..orderings.bssi import bssi_trace, dual_bound_of_trace
        trace = bssi_trace(instance, record_weights=False)
        pd = bssi_cuts(trace)
        floor = float(dual_bound_of_trace(instance, trace).value_exact)
    except NotSupportedError:
        if instance.is_big_switch:
            raise
    t0 = time.perf_counter()
    ld = lagrangian_dual(instance, loads, start=pd, iterations=iterations, deadline=deadline)
    timings = {"bssi": t0 - t_start, "ascent": time.perf_counter() - t0}
    history = [{"round": i + 1, "objective": g} for i, g in enumerate(ld.history)]
    solver = {"name": "lagrangian", "algorithm": "exponentiated-gradient",
              "iterations": ld.iterations}
    if pd is not None and floor is not None and ld.value < floor:
        # the ascent starts at BSSI's split, so this is float noise at worst: BSSI's own dual
        cert = LPCertificate(formulation="ordering-lp", params={},
                             row_duals=pd.row_duals(instance.capacity), rows=pd.cuts,
                             claimed_value=floor, source="bssi")
        return OrderingLPSolution(None, floor, cert, pd.cuts, False, ld.status, 0, history,
                                  solver, timings)
    cert = LPCertificate(formulation="ordering-lp", params={}, row_duals=ld.row_duals,
                         rows=ld.cuts, claimed_value=ld.value, source="lagrangian")
    return OrderingLPSolution(None, ld.value, cert, ld.cuts, False, ld.status, 0, history,
                              solver, timings)


def _solve_ordering_lp_in_units(instance: Instance, *, release_cuts: bool, tol: float,
                                max_rounds: int, time_limit: float | None, initial: str,
                                max_thresholds: int | None, algorithm: str,
                                export: str | None, warm_start: bool,
                                log: bool) -> OrderingLPSolution:
    """:func:`solve_ordering_lp` on an instance already in its LP units."""
    t_start = time.perf_counter()
    deadline = None if time_limit is None else t_start + float(time_limit)
    loads = port_loads(instance)
    rel = np.asarray(instance.release, dtype=float)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    # the full set of every port (with its release threshold only when release rows are on)
    cuts = _full_set_cuts(loads, rel if release_cuts else np.zeros_like(rel))
    pd = None   # BSSI's dual: a dual solution of this LP, the answer when no round finishes
    skipped = 0
    if initial == "bssi":
        from ..orderings.bssi import bssi_trace
        try:
            # the LP solver needs the rows written out: the nested sets as explicit ones
            trace = bssi_trace(instance, record_weights=False)
            pd = bssi_cuts(trace)
            warm = nested_explicit_on_loads(instance, loads, pd.cuts)
            # BSSI's rows written out hold ~K^2/2 x (share of coflows at a port) entries
            # (2e7 at 50,000 random coflows: a 30 s build and an LP HiGHS does not start
            # within a minute); above the cap the LP starts from the full sets alone and
            # BSSI's dual stays the floor of the answer (below)
            if warm.ptr[-1] <= WARM_START_NONZEROS:
                cuts = cuts.concat(warm)
            else:
                skipped = int(warm.ptr[-1])
            del warm
        except NotSupportedError:
            # BSSI not (yet) defined on this instance's resources: the warm start is only a
            # warm start, the full sets alone give the same LP optimum after more rounds
            if instance.is_big_switch:
                raise
    elif initial != "full":
        raise InvalidParameterError(f"initial must be 'bssi' or 'full', got {initial!r}")
    keys = set()
    uniq = []
    for i, k in enumerate(cuts.keys()):
        if k not in keys:
            keys.add(k)
            uniq.append(i)
    cuts = cuts.take(uniq)
    lp = build_ordering_lp(instance, cuts, loads=loads)
    model = HighsModel(lp, algorithm=algorithm, log=log)
    timings["build"] = time.perf_counter() - t0
    history = []
    best: tuple | None = None   # (C, objective, cuts, duals, solution)
    converged = False
    status = "not_solved"
    rounds = 0
    t_solve = t_sep = 0.0
    while rounds < max_rounds:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        t0 = time.perf_counter()
        sol = model.run(time_limit=remaining)
        t_solve += time.perf_counter() - t0
        status = sol.status
        if sol.status != "optimal" or sol.x is None or sol.row_dual is None:
            break
        rounds += 1
        C = sol.x
        best = (C.copy(), sol.objective, cuts, sol.row_dual.copy(), sol)
        t0 = time.perf_counter()
        new, viol = most_violated(loads, rel, C, release_cuts=release_cuts, tol=tol,
                                  max_thresholds=max_thresholds)
        t_sep += time.perf_counter() - t0
        # a cut already in the LP can only come back through the solver's feasibility tolerance
        fresh = [i for i, k in enumerate(new.keys()) if k not in keys]
        history.append({"round": rounds, "objective": sol.objective, "rows": len(cuts),
                        "new_cuts": len(fresh),
                        "max_violation": float(viol.max()) if viol.size else 0.0,
                        "simplex_iterations": sol.iterations.get("simplex", 0),
                        "seconds": time.perf_counter() - t_start})
        if not fresh:
            converged = True
            break
        new = new.take(fresh)
        for k in new.keys():
            keys.add(k)
        cuts = cuts.concat(new)
        if warm_start:
            rows = build_ordering_lp(instance, new, loads=loads)
            model.add_rows(rows.A, rows.row_lo, rows.row_hi)
        else:
            model = HighsModel(build_ordering_lp(instance, cuts, loads=loads),
                               algorithm=algorithm, log=log)
    timings["solve"] = t_solve
    timings["separate"] = t_sep
    if export:
        model.write(export)
    if not converged and best is not None and status == "optimal":
        status = "iteration_limit" if rounds >= max_rounds else status
    if pd is not None and not converged and status in ("time_limit", "iteration_limit"):
        # The loop stopped on a limit.  BSSI's dual is a feasible dual solution of the ordering
        # LP (bssi_cuts: its rows are the LP's), so when no restricted LP finished (the first
        # LP of 5,000 random coflows takes HiGHS more than a minute) or the last one is below
        # it (a cold start without BSSI's rows), it is the best dual bound known: certified
        # like any other, the status saying that the LP was not solved.
        from ..orderings.bssi import dual_bound_of_trace
        value = float(dual_bound_of_trace(instance, trace).value_exact)
        if best is None or best[1] < value:
            cert = LPCertificate(formulation="ordering-lp", params={},
                                 row_duals=pd.row_duals(instance.capacity), rows=pd.cuts,
                                 claimed_value=value, source="bssi")
            return OrderingLPSolution(C=None, objective=value, certificate=cert,
                                      cuts=pd.cuts, converged=False, status=status,
                                      rounds=rounds, history=history,
                                      solver={"name": "highs", "algorithm": algorithm},
                                      timings=timings, model=model,
                                      warm_start_skipped=skipped)
    if best is None:
        return OrderingLPSolution(None, None, None, cuts, False, status, rounds, history,
                                  {"name": "highs", "algorithm": algorithm}, timings, model,
                                  skipped)
    C, obj, cuts_b, duals, sol = best
    cert = LPCertificate(formulation="ordering-lp", params={}, row_duals=duals, rows=cuts_b,
                         claimed_value=obj, source=f"highs:{algorithm}")
    return OrderingLPSolution(C=C, objective=obj, certificate=cert, cuts=cuts_b,
                              converged=converged, status=status, rounds=rounds,
                              history=history, solver=sol.solver, timings=timings, model=model,
                              warm_start_skipped=skipped)
