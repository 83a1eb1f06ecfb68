"""Sincronia's Bottleneck-Select-Scale-Iterate ordering (BSSI) and its dual lower bound.

BSSI (Sincronia Algorithm 1) builds the order from last to first.  With ``J`` the coflows not
yet placed, each step

1. **Bottleneck**: takes the port ``b`` with the largest load ``sum_{c in J} p_c^b``;
2. **Select**: places last (among ``J``) the coflow minimising ``w_c / p_c^b`` over the
   coflows with ``p_c^b > 0`` ("largest remaining weighted processing time last");
3. **Scale**: lowers every other weight, ``w_c <- w_c - w_sigma * p_c^b / p_sigma^b``;
4. **Iterate** on ``J`` without the chosen coflow.

The minimum ratio is the dual variable ``beta_k`` of the LP of the technical report's Sec. 9
(with ``beta_S^p = beta_k`` for ``S = J`` and ``p = b``), so the run also yields a certified
lower bound (:func:`bssi_dual_bound`).  Algorithm 3 (Sec. 9, release dates) adds one test per
step: when the latest release ``r_max`` in ``J`` exceeds half the bottleneck load, the
latest-released coflow is placed last instead and the dual ``gamma`` of its release
constraint takes its residual weight.

Processing times and heterogeneous capacities
---------------------------------------------
Throughout, ``p_c^b = d_c^b / c_b``: the time port ``b`` needs to move coflow ``c``'s data, not
the data itself.  The analysis (Lemma 1, 3, 5 of the technical report) treats every port as a
single machine of unit speed; a port of capacity ``c_b`` is such a machine exactly when its
work is measured in time, ``d / c_b``.  With raw data the parallel inequalities would be off by
the factor ``c_b`` per port and a fast, heavily loaded port would be taken as the bottleneck
although a slow, lighter one limits completion times.  With equal capacities this is the
published algorithm up to one common scale (the order, the bottlenecks and the scaled weights
are unchanged; ``beta`` is multiplied by ``c``).

Resources
---------
On an instance over resources (flows on the paths of a topology) a "port" is a resource: coflow
``c`` puts ``d_c^r / c_r`` of work on every resource ``r`` its flows' paths cross (a flow's size
counts in full at each resource of its path), and the algorithm, its dual and the bound run on
those machines unchanged; the big switch is the case path = {ingress, egress}.  The parallel
inequalities stay valid (a resource is one machine of unit speed in time units), so the dual
bound is a lower bound there too; the factor of the *schedule* grows with the path length
(``2 L`` with zero releases, ``proofs/resource-model-guarantees.md``).  The ``"paper"`` tie
rule's ingress side on resources is the set of *entry* resources (the first resource of some
flow's path: a host's uplink on a topology, the ingress port of a big switch written as paths),
so a big switch written as paths gets the big switch's order.

Implementation
--------------
Each step costs O(P + nnz of the bottleneck's column + nnz of the chosen coflow's row): port
loads are kept up to date by subtracting the chosen coflow's row, the scaled weights live in one
array and only the bottleneck's column is read (CSR and CSC index arrays of the
processing-time matrix).  There is no dense ``K x P`` pass per step.

References
----------
S. Agarwal, S. Rajakrishnan, A. Narayan, R. Agarwal, D. Shmoys, A. Vahdat, "Sincronia:
Near-Optimal Network Design for Coflows", SIGCOMM 2018, technical report version: Sec. 3.1
(Algorithm 1, Table 2), Sec. 9 (LP-primal (1)-(3), its dual (4)-(5), Algorithm 3, Lemmas 1-5,
Theorem 1).  Reference code: ``sincronia-coflow/simulator``, ``offlinesim/primal_dual.cpp``.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["bssi", "bssi_trace", "bssi_dual_bound", "dual_bound_of_trace", "BssiTrace", "BssiDualBound",
           "TIE_BREAKS", "RELEASE_MODES", "TIE_RTOL", "processing_times"]

#: Tie-breaking rules (see :func:`bssi`).
TIE_BREAKS = ("paper", "first")
#: How release dates are used (see :func:`bssi`).
RELEASE_MODES = ("algorithm3", "ignore")
#: Relative tolerance under which two float loads or ratios count as tied (exact mode: 0).
TIE_RTOL = 1e-9


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class BssiTrace:
    """Everything one BSSI run decided.

    Arrays indexed by **position** ``i = 0..K-1`` in the order (position ``i`` is the paper's
    ``k = i + 1``; ``order[i]`` is ``sigma(k)``):

    Attributes
    ----------
    order : ndarray of int64, shape (K,)
        Coflow indices, highest priority first.
    bottleneck : ndarray of int64, shape (K,)
        ``b_k``: the port chosen at the step that placed ``order[i]`` (unified numbering:
        ingress ``i`` is ``i``, egress ``j`` is ``m_in + j``).
    beta : ndarray, shape (K,)
        ``beta_k`` (0 where the release branch of Algorithm 3 placed the coflow).
    gamma : ndarray, shape (K,)
        ``gamma_{sigma(k)}`` (non-zero only where the release branch fired).
    release_branch : ndarray of bool, shape (K,)
        Where Algorithm 3's ``else`` branch placed the coflow.
    load : ndarray, shape (K,)
        Ordered load at the bottleneck, ``sum_{j <= k} p_{sigma(j)}^{b_k}`` (time units).
    sumsq : ndarray, shape (K,)
        ``sum_{j <= k} (p_{sigma(j)}^{b_k})^2``.
    chosen : ndarray of int64, shape (K,)
        The coflow chosen at each **step**, in step order (step 0 places the last coflow):
        ``order[::-1]``.
    weights : ndarray or None, shape (K, K)
        ``weights[s]`` are the scaled weights after step ``s`` (the chosen coflows at 0), as in
        Table 2; ``None`` when not recorded.
    exact : bool
        Values are :class:`fractions.Fraction` (object arrays) rather than float64.
    tie_break, release : str
        The rules used.
    """

    order: np.ndarray
    bottleneck: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray
    release_branch: np.ndarray
    load: np.ndarray
    sumsq: np.ndarray
    chosen: np.ndarray
    weights: np.ndarray | None
    exact: bool
    tie_break: str
    release: str

    def steps(self) -> Iterator[dict[str, Any]]:
        """The rows of the paper's Table 2, in execution order.

        Yields dicts with ``k`` (1-based position filled, ``K`` down to 1), ``b`` (port in
        the paper's 1-based ``[2m]`` numbering: ingress ``i`` is ``i + 1``, egress ``j`` is
        ``m + j + 1`` with ``m`` the number of ingress ports), ``port`` (unified 0-based),
        ``coflow`` (index), ``beta``, ``gamma`` and ``weights`` (after the step, or None).
        """
        K = self.order.size
        for s in range(K):
            i = K - 1 - s
            yield {"k": i + 1, "port": int(self.bottleneck[i]), "b": int(self.bottleneck[i]) + 1,
                   "coflow": int(self.chosen[s]), "beta": self.beta[i], "gamma": self.gamma[i],
                   "release_branch": bool(self.release_branch[i]),
                   "weights": None if self.weights is None else self.weights[s]}

    @property
    def dual_objective(self):
        """The ``beta`` part of the dual objective, ``1/2 sum_k beta_k (load_k^2 + sumsq_k)``,
        in the trace's arithmetic (float, or Fraction when exact).  The ``gamma r`` part and
        the certified value: :func:`bssi_dual_bound`."""
        if self.exact:
            return sum((b * (l * l + q) for b, l, q in zip(self.beta, self.load, self.sumsq)),
                       Fraction(0)) / 2
        return 0.5 * math.fsum((self.beta * (self.load * self.load + self.sumsq)).tolist())


@dataclass(frozen=True)
class BssiDualBound:
    """The BSSI dual lower bound on ``sum_k w_k C_k`` (see :func:`bssi_dual_bound`).

    Attributes
    ----------
    value : float
        The bound (float).  In float mode, computed in float64 from the float duals; use
        ``value_exact`` where a certified number is needed.
    value_exact : Fraction
        The dual objective evaluated exactly at the (repaired) duals: a certified lower bound.
    scale : Fraction
        The repair factor ``lambda <= 1`` applied to all duals so that they satisfy the dual
        constraints exactly (1 in exact mode and whenever float rounding broke nothing).
    order, bottleneck, beta, gamma, load, sumsq, release_branch : ndarray
        As in :class:`BssiTrace` (position-indexed).
    release_term : float
        ``sum_k gamma_k r_k`` (0 without release dates).
    exact : bool
    tie_break, release : str
    """

    value: float
    value_exact: Fraction
    scale: Fraction
    order: np.ndarray
    bottleneck: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray
    load: np.ndarray
    sumsq: np.ndarray
    release_branch: np.ndarray
    release_term: float
    exact: bool
    tie_break: str
    release: str
    meta: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------- inputs
def _check_params(tie_break: str, release: str, exact) -> None:
    if tie_break not in TIE_BREAKS:
        raise InvalidParameterError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    if release not in RELEASE_MODES:
        raise InvalidParameterError(f"release must be one of {RELEASE_MODES}, got {release!r}")
    if not isinstance(exact, (bool, np.bool_)):
        raise InvalidParameterError(f"exact must be True or False, got {exact!r}")


def processing_times(instance: Instance, exact: bool = False) -> sp.csr_matrix | dict:
    """Processing times ``p_k^p = d_k^p / c_p`` of every coflow at every port.

    Parameters
    ----------
    instance : Instance
    exact : bool
        ``False``: a float64 ``scipy.sparse`` CSR matrix of shape ``(K, m_in + m_out)``.
        ``True``: a dict ``{(k, p): Fraction}`` of the non-zero entries, summed exactly from
        the flow sizes (a float sum of several flows at one port could round).

    Returns
    -------
    scipy.sparse.csr_matrix or dict

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.1), (0, 0, 0.2)])],
    ...                              ingress_capacity=[2.0], egress_capacity=[1.0])
    >>> processing_times(inst, exact=True)[(0, 0)] == (Fraction(0.1) + Fraction(0.2)) / 2
    True
    """
    if not exact:
        import scipy.sparse as sp  # lazily (see Instance.resource_flow_matrix)
        indptr = instance._port_loads_csr[0]
        _, cols, vals = instance._port_times
        return sp.csr_matrix((vals.copy(), cols, indptr),
                             shape=(instance.num_coflows, instance.num_ports))
    keys, vals, unit = _scaled_processing_times(instance)
    return {kp: v * unit for kp, v in zip(keys, vals)}


def _dyadic(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``(M, E)`` with ``values == M * 2**E``, ``M`` an odd int64 (or 0)."""
    m, e = np.frexp(np.asarray(values, dtype=float))
    M = (m * 2.0 ** 53).astype(np.int64)
    E = e.astype(np.int64) - 53
    low = M & -M                                    # strip trailing zero bits of the mantissa
    tz = np.where(M != 0, np.frexp(low.astype(float))[1].astype(np.int64) - 1, 0)
    E = np.where(M != 0, E + tz, 0)
    return M >> tz, E


def _scaled_processing_times(instance: Instance):
    """Exact processing times as ``(keys, values, unit)``: ``p_k^p = values[i] * unit`` for
    ``keys[i] = (k, p)``.

    When every capacity is a power of two (the usual 1 or 2) the values are Python ints and
    ``unit`` a power of two, so that the certification runs in integer arithmetic; otherwise
    they are Fractions and ``unit`` is 1.
    """
    P = instance.num_ports
    M, E = _dyadic(instance.flow_size)               # once per flow, used at every resource
    if instance.is_big_switch:
        key = np.concatenate([instance.flow_coflow * P + instance.flow_src,
                              instance.flow_coflow * P + instance.flow_egress_port])
        M, E = np.concatenate([M, M]), np.concatenate([E, E])
    else:
        # one entry per (flow, resource of its path): the flow's size counts at each
        n = instance.path_length
        key = np.repeat(instance.flow_coflow, n) * P + instance.flow_resource
        M, E = np.repeat(M, n), np.repeat(E, n)
    uniq, inv = np.unique(key, return_inverse=True)
    S, E = _exact_group_sums((M, E), inv.ravel(), uniq.size)
    ports = uniq % P
    keys = list(zip((uniq // P).tolist(), ports.tolist()))
    cM, cE = _dyadic(instance.capacity)
    if np.all(cM == 1):                              # capacities 2^cE: p = S 2^(E - cE)
        Ep = E - cE[ports]
        base = int(Ep.min())
        vals = [s << sh for s, sh in zip(S, (Ep - base).tolist())]
        return keys, vals, Fraction(2) ** base
    cap = [Fraction(float(c)) for c in instance.capacity.tolist()]
    two = Fraction(2)
    vals = [s * two ** e / cap[p] for s, e, p in zip(S, E.tolist(), ports.tolist())]
    return keys, vals, Fraction(1)


def _exact_group_sums(values, group: np.ndarray, n: int):
    """Exact sums of float64 values by group: ``(S, E)`` with sum ``g`` equal to
    ``S[g] * 2**E[g]`` (``S`` a list of Python ints, ``E`` an int64 array).  ``values`` is a
    float array or its :func:`_dyadic` pair ``(M, E)``.

    Every float is ``M 2^E`` with an odd integer mantissa (53 bits at most).  Per group, the
    mantissas are shifted to the group's smallest exponent and split into two 27-bit limbs
    whose sums stay exact in int64 (in float64 through ``bincount`` when below 2^53); groups
    whose exponents spread too far for that are summed with Python integers.  Vectorised,
    O(len(values)).
    """
    M, E = _dyadic(values) if isinstance(values, np.ndarray) else values
    Eg = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(Eg, group, E)
    shift = E - Eg[group]
    counts = np.bincount(group, minlength=n)
    width = np.ceil(np.log2(counts + 1)).astype(np.int64)
    spread = np.zeros(n, dtype=np.int64)
    np.maximum.at(spread, group, shift)
    fast_g = spread + 27 + width <= 62
    fast = fast_g[group]
    lo, hi = M & ((1 << 26) - 1), M >> 26            # limbs below 2^26 and 2^27
    sums = []
    for limb in (lo, hi):
        part = limb[fast] << shift[fast]
        if int((spread + 27 + width)[fast_g].max(initial=0)) <= 53:
            acc = np.bincount(group[fast], weights=part.astype(float), minlength=n)
            sums.append(acc.astype(np.int64))        # exact: every partial sum < 2^53
        else:
            acc = np.zeros(n, dtype=np.int64)
            np.add.at(acc, group[fast], part)
            sums.append(acc)
    S = [(int(h) << 26) + int(l) for l, h in zip(sums[0].tolist(), sums[1].tolist())]
    for i in np.flatnonzero(~fast).tolist():         # rare: wide exponent spread in a group
        g = int(group[i])
        S[g] += int(M[i]) << int(shift[i])
    return S, Eg


def _exact_matrices(instance: Instance):
    """CSR/CSC index structure with object (Fraction) values for the exact run."""
    entries = processing_times(instance, exact=True)
    keys = sorted(entries)
    rows = np.array([k for k, _ in keys], dtype=np.int64)
    cols = np.array([p for _, p in keys], dtype=np.int64)
    vals = np.empty(len(keys), dtype=object)
    vals[:] = [entries[kp] for kp in keys]
    return rows, cols, vals


class _Sparse:
    """A sparse matrix as CSR + CSC index arrays with values of any dtype (float or object)."""

    def __init__(self, rows, cols, vals, shape):
        K, P = shape
        o = np.lexsort((cols, rows))
        self.r_ptr = np.searchsorted(rows[o], np.arange(K + 1)).astype(np.int64)
        self.r_idx, self.r_val = cols[o], vals[o]
        o = np.lexsort((rows, cols))
        self.c_ptr = np.searchsorted(cols[o], np.arange(P + 1)).astype(np.int64)
        self.c_idx, self.c_val = rows[o], vals[o]


# ---------------------------------------------------------------------------------- the core
def _pick_port(L, Lmax, exact: bool, tie_break: str, m_in) -> int:
    """The bottleneck among the resources of largest load ``L``.  ``m_in``: the number of
    ingress ports on a big switch; on resources a boolean mask of the *entry* resources (the
    first resource of some flow's path), the ingress side of a topology."""
    cand = np.flatnonzero(L == Lmax) if exact else np.flatnonzero(L >= Lmax * (1.0 - TIE_RTOL))
    if tie_break == "first":
        return int(cand[0])
    # Table 2: "we break ties in favor of ingress port with the largest index"; with no
    # ingress port among the tied ones, the egress port with the largest index.
    ing = cand[m_in[cand]] if isinstance(m_in, np.ndarray) else cand[cand < m_in]
    return int(ing[-1] if ing.size else cand[-1])


def _pick_coflow(rows, ratios, vals, exact: bool, tie_break: str) -> int:
    """Index into ``rows`` of the selected coflow (``rows`` are sorted by coflow index)."""
    rmin = ratios.min()
    cand = (np.flatnonzero(ratios == rmin) if exact
            else np.flatnonzero(ratios <= rmin * (1.0 + TIE_RTOL)))
    if tie_break == "first" or cand.size == 1:
        return int(cand[0])
    # "paper": the epsilon of Fig. 1 exists "only for breaking ties consistently" and makes
    # the coflow with the larger processing time at b the one placed last (LRPT-last).  So
    # among tied ratios: largest p_c^b, then the largest coflow index.
    v = vals[cand]
    best = cand[v == v.max()] if exact else cand[v >= v.max() * (1.0 - TIE_RTOL)]
    return int(best[-1])


def _run(instance: Instance, *, tie_break: str, release: str, exact: bool, weighted: bool,
         record_weights: bool) -> BssiTrace:
    K, P = instance.num_coflows, instance.num_ports
    if instance.is_big_switch:
        m_in = instance.num_ingress
    else:           # Table 2's ingress side on resources: where flows enter (first hops)
        m_in = np.zeros(instance.num_resources, dtype=bool)
        m_in[instance.flow_resource[instance.flow_resource_ptr[:-1]]] = True
    if exact:
        rows, cols, vals = _exact_matrices(instance)
        zero = Fraction(0)
        w = np.empty(K, dtype=object)
        w[:] = ([Fraction(float(x)) for x in instance.weight.tolist()] if weighted
                else [Fraction(1)] * K)
        rel = np.empty(K, dtype=object)
        rel[:] = [Fraction(float(x)) for x in instance.release.tolist()]
        half = Fraction(1, 2)
    else:
        # processing_times' entries, coflow by coflow, ports ascending, without scipy.sparse
        rows, cols, vals = instance._port_times
        zero = 0.0
        w = instance.weight.astype(float).copy() if weighted else np.ones(K)
        rel = instance.release.astype(float)
        half = 0.5
    S = _Sparse(rows, cols, vals, (K, P))
    dt = object if exact else float
    L = np.empty(P, dtype=dt)
    L[:] = [zero] * P
    np.add.at(L, cols, vals)
    cnt = np.bincount(cols, minlength=P).astype(np.int64)  # unplaced coflows using each port
    alive = np.ones(K, dtype=bool)
    # Scaled weights that are zero in exact arithmetic come out as +-1e-17 in floats; they are
    # set to exactly 0 so that their ratios tie exactly (as the exact run would have them).
    wtol = 0 if exact else 1e-12 * max(float(np.max(w)) if K else 0.0, 1e-300)

    use_release = release == "algorithm3"
    if use_release:
        # latest release first; ties: the rule's preferred coflow first
        idx = np.arange(K)
        key2 = idx if tie_break == "first" else -idx
        rel_order = np.lexsort((key2, -instance.release.astype(float)))
        rel_ptr = 0

    order = np.empty(K, dtype=np.int64)
    bott = np.empty(K, dtype=np.int64)
    beta = np.empty(K, dtype=dt)
    gamma = np.empty(K, dtype=dt)
    load = np.empty(K, dtype=dt)
    sumsq = np.empty(K, dtype=dt)
    branch = np.zeros(K, dtype=bool)
    weights = np.empty((K, K), dtype=dt) if record_weights else None

    for s in range(K):
        pos = K - 1 - s
        b = _pick_port(L, L.max(), exact, tie_break, m_in)
        lo, hi = S.c_ptr[b], S.c_ptr[b + 1]
        crow, cval = S.c_idx[lo:hi], S.c_val[lo:hi]
        keep = alive[crow]
        crow, cval = crow[keep], cval[keep]
        # the bottleneck's load recomputed from its column: no drift from the subtractions
        Lb = cval.sum()
        L[b] = Lb
        sq = (cval * cval).sum()
        g = zero
        bk = zero
        chosen = -1
        if use_release:
            while not alive[rel_order[rel_ptr]]:
                rel_ptr += 1
            latest = int(rel_order[rel_ptr])
            if rel[latest] > half * Lb:
                chosen, g = latest, w[latest]
                branch[pos] = True
        if chosen < 0:
            ratios = w[crow] / cval
            j = _pick_coflow(crow, ratios, cval, exact, tie_break)
            chosen, bk = int(crow[j]), ratios[j]
            neww = w[crow] - bk * cval
            if not exact:
                neww[neww <= wtol] = 0.0
            w[crow] = neww
        w[chosen] = zero
        alive[chosen] = False
        lo, hi = S.r_ptr[chosen], S.r_ptr[chosen + 1]
        ports = S.r_idx[lo:hi]
        L[ports] -= S.r_val[lo:hi]
        cnt[ports] -= 1
        L[ports[cnt[ports] == 0]] = zero  # an unused port has load exactly 0, not 1e-16
        order[pos], bott[pos], beta[pos], gamma[pos] = chosen, b, bk, g
        load[pos], sumsq[pos] = Lb, sq
        if record_weights:
            weights[s] = w
    return BssiTrace(order=order, bottleneck=bott, beta=beta, gamma=gamma,
                     release_branch=branch, load=load, sumsq=sumsq, chosen=order[::-1].copy(),
                     weights=weights, exact=bool(exact), tie_break=tie_break, release=release)


# ---------------------------------------------------------------------------------- public API
def bssi_trace(instance: Instance, *, tie_break: str = "paper", release: str = "algorithm3",
               exact: bool = False, weighted: bool = True,
               record_weights: bool | None = None) -> BssiTrace:
    """Run BSSI (Algorithm 1, or Algorithm 3 with release dates) and return every decision.

    Parameters
    ----------
    instance : Instance
    tie_break : {"paper", "first"}, default "paper"
        See :func:`bssi`.
    release : {"algorithm3", "ignore"}, default "algorithm3"
        See :func:`bssi`.
    exact : bool, default False
        Compute in :class:`fractions.Fraction` (every float converted exactly).
    weighted : bool, default True
        ``False`` runs with unit weights (as the reference C++ does).
    record_weights : bool or None
        Store the scaled weights after every step (``K x K`` values).  Default: when
        ``K <= 1000``.

    Returns
    -------
    BssiTrace

    Raises
    ------
    InvalidParameterError
        For an unknown ``tie_break`` or ``release``, or a non-boolean ``exact``.

    Examples
    --------
    The T-S3 instance of the seeds digest (2x2 switch, unit weights):

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
    ...                               Coflow("B", [(0, 0, 2), (1, 1, 2)]),
    ...                               Coflow("C", [(1, 0, 3)])])
    >>> t = bssi_trace(inst, exact=True)
    >>> t.order.tolist(), [str(b) for b in t.beta]
    ([0, 1, 2], ['1/2', '1/6', '1/3'])

    Notes
    -----
    Runs in O(K (P + c)) time with ``c`` the largest column of the processing-time matrix,
    plus O(K^2) when the weights are recorded.  See :func:`bssi` for the guarantee.

    References
    ----------
    Sincronia technical report, Algorithm 1 and Table 2 (Sec. 3.1); Algorithm 3 (Sec. 9).
    """
    _check_params(tie_break, release, exact)
    if record_weights is None:
        record_weights = instance.num_coflows <= 1000
    return _run(instance, tie_break=tie_break, release=release, exact=bool(exact),
                weighted=bool(weighted), record_weights=bool(record_weights))


@register("ordering", "bssi",
          summary="Sincronia's Bottleneck-Select-Scale-Iterate primal-dual ordering "
          "(Algorithm 1; Algorithm 3 with release dates)",
          reference="Sincronia (SIGCOMM 2018) tech. report Sec. 3.1 Algorithm 1, Table 2; "
          "Sec. 9 Algorithm 3, Lemmas 2-5, Theorem 1; sincronia-coflow/simulator "
          "offlinesim/primal_dual.cpp",
          guarantee="zero releases: with any work-conserving, order-preserving rates "
          "sum w C <= 4 OPT (Theorem 1), and sum_k w_k sum_{j<=k} p_j^{b_k} <= 2 OPT "
          "(Lemma 5); with releases (Algorithm 3) <= 5 OPT (Lemmas 2, 3); on resources "
          "with paths of at most L resources and zero releases, <= 2L OPT with greedy "
          "(proofs/resource-model-guarantees.md)",
          tags=("weights", "release_dates", "heterogeneous_capacities", "certificate",
                "exact_arithmetic"),
          aliases=("sincronia", "primal-dual"))
def bssi(instance: Instance, *, tie_break: str = "paper", release: str = "algorithm3",
         exact: bool = False, weighted: bool = True) -> np.ndarray:
    """Order coflows with Sincronia's BSSI primal-dual algorithm.

    Parameters
    ----------
    instance : Instance
    tie_break : {"paper", "first"}, default "paper"
        ``"paper"``: Table 2's rule, ties between ports go to the ingress port with the
        largest index (to the egress port with the largest index when no ingress port ties);
        ties between coflows go to the one with the largest processing time at the
        bottleneck, then the largest index (the rule Fig. 1's epsilon encodes; it reproduces
        Table 2 at epsilon = 0 too).  ``"first"``: the reference C++ (``primal_dual.cpp``),
        the first port attaining the maximum (ingress before egress) and the first coflow
        attaining the minimum.  Floats within a relative :data:`TIE_RTOL` count as tied.
        On an instance over resources the ingress ports are the entry resources (the first
        resource of some flow's path).
    release : {"algorithm3", "ignore"}, default "algorithm3"
        ``"algorithm3"``: the tech report's Algorithm 3; a step where the latest release
        among the unplaced coflows exceeds half the bottleneck load places that coflow last
        (``gamma`` takes its residual weight, no scaling).  Without release dates it is
        Algorithm 1.  ``"ignore"``: Algorithm 1 whatever the releases.
    exact : bool, default False
        Compute in exact rational arithmetic (no tie tolerance).
    weighted : bool, default True
        ``False`` uses unit weights.

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Raises
    ------
    InvalidParameterError
        For an unknown ``tie_break`` or ``release``, or a non-boolean ``exact``.

    Examples
    --------
    Sincronia's Fig. 1 example (Table 2): the order is C2, C3, C4, C1, C5.

    >>> from coflowopt import Instance, Coflow
    >>> c1 = [(i, j, 1) for i in range(4) for j in (i, (i + 1) % 4)]
    >>> inst = Instance.from_coflows([Coflow("C1", c1)] +
    ...                              [Coflow(f"C{i + 2}", [(i, i, 2)]) for i in range(4)])
    >>> [inst.coflow_ids[k] for k in bssi(inst)]
    ['C2', 'C3', 'C4', 'C1', 'C5']

    Notes
    -----
    Guarantee (all releases 0): with any work-conserving, preemptive, order-preserving rate
    allocation (e.g. ``greedy``), ``sum_k w_k C_k <= 4 OPT`` (Theorem 1): each coflow
    finishes by twice the ordered load at its bottleneck (Lemma 3), and the weighted sum of
    those loads is at most twice the dual bound of :func:`bssi_dual_bound` (Lemma 5).  With
    release dates and Algorithm 3 the factor is 5 (Lemma 2).  Work is measured in processing
    times ``d / c`` (see the module docstring), which makes the guarantee hold with
    heterogeneous capacities too.  Time O(K (P + c)) with ``c`` the largest column of the
    processing-time matrix: the 526-coflow Facebook trace orders in milliseconds.

    On an instance over resources the machines are the resources (module docstring): each
    coflow finishes under greedy by the sum over its path's resources of the ordered loads
    there, at most ``L`` times the ordered load at its bottleneck for paths of ``L``
    resources, so with zero releases the schedule is within ``2 L`` of OPT
    (``proofs/resource-model-guarantees.md``).

    References
    ----------
    S. Agarwal et al., "Sincronia: Near-Optimal Network Design for Coflows", SIGCOMM 2018,
    technical report Sec. 3.1 (Algorithm 1, Table 2) and Sec. 9 (Algorithm 3, Theorem 1);
    M. Mastrolilli et al., Oper. Res. Lett. 38(5), 2010 (the concurrent open shop original).
    """
    _check_params(tie_break, release, exact)
    return _run(instance, tie_break=tie_break, release=release, exact=bool(exact),
                weighted=bool(weighted), record_weights=False).order


# ---------------------------------------------------------------------------------- the bound
def _certify(instance: Instance, trace: BssiTrace, weighted: bool) -> tuple[Fraction, Fraction]:
    """Exact dual objective of the trace's duals after the feasibility repair.

    Returns ``(value, scale)``.  The dual constraints (4)-(5) with the smallest feasible
    ``alpha`` read, for every coflow ``k`` at position ``i``:
    ``gamma_k + sum_{l >= i} beta_l p_k^{b_l} <= w_k``.  Float rounding can break them by a
    few ulps; scaling every dual by ``lambda = min(1, min_k w_k / lhs_k)`` restores them
    exactly, and the objective is linear, so ``lambda * objective`` is a certified bound.

    Work: O(nnz + K) exact operations (suffix sums of ``beta`` per port, prefix sums of the
    processing times per port).  Processing times and ``beta`` are scaled to integers when
    they are dyadic (float ``beta`` always is; ``p`` is when capacities are powers of two), so
    the sums are Python integer arithmetic; otherwise Fractions.
    """
    K = instance.num_coflows
    keys, pvals, p_unit = _scaled_processing_times(instance)
    F = Fraction
    pos = np.empty(K, dtype=np.int64)
    pos[trace.order] = np.arange(K)
    if trace.exact:
        beta, b_unit = list(trace.beta), F(1)
    else:
        bM, bE = _dyadic(trace.beta.astype(float))
        base = int(bE[bM != 0].min()) if np.any(bM != 0) else 0
        beta = [m << (e - base) if m else 0 for m, e in zip(bM.tolist(), bE.tolist())]
        b_unit = F(2) ** base
    gamma = [x if isinstance(x, F) else F(float(x)) for x in trace.gamma.tolist()]
    w = ([F(float(x)) for x in instance.weight.tolist()] if weighted else [F(1)] * K)
    rel = [F(float(x)) for x in instance.release.tolist()]
    by_port: dict[int, list] = {}
    for (k, p), v in zip(keys, pvals):
        by_port.setdefault(p, []).append((int(pos[k]), v))
    steps_at: dict[int, list[int]] = {}
    for i, b in enumerate(trace.bottleneck.tolist()):
        steps_at.setdefault(b, []).append(i)
    lhs = [0] * K                      # in units of b_unit * p_unit
    objective = 0                      # in units of b_unit * p_unit^2, times 2
    for p, steps in steps_at.items():
        entries = sorted(by_port.get(p, []), key=lambda e: e[0])   # by position
        # prefix sums of p and p^2 by position, to read load_i and sumsq_i
        pref, pref2, positions = [0], [0], []
        for i, v in entries:
            positions.append(i)
            pref.append(pref[-1] + v)
            pref2.append(pref2[-1] + v * v)
        # suffix sums of beta over the steps at p: the coflow at position i is in J_l for
        # every step l >= i
        steps = sorted(steps)
        suffix = [0] * (len(steps) + 1)
        for t in range(len(steps) - 1, -1, -1):
            suffix[t] = suffix[t + 1] + beta[steps[t]]
        for i in steps:
            n = bisect.bisect_right(positions, i)
            objective += beta[i] * (pref[n] * pref[n] + pref2[n])
        for i, v in entries:
            t = bisect.bisect_left(steps, i)
            if suffix[t]:
                k = int(trace.order[i])
                lhs[k] += suffix[t] * v
    unit = b_unit * p_unit
    value = F(objective) * unit * p_unit / 2
    value += sum((gamma[int(pos[k])] * rel[k] for k in range(K)), F(0))
    scale = F(1)
    for k in range(K):
        total = F(lhs[k]) * unit + gamma[int(pos[k])]
        if total > w[k]:
            scale = min(scale, w[k] / total)
    return scale * value, scale


def bssi_dual_bound(instance: Instance, *, tie_break: str = "paper",
                    release: str = "algorithm3", exact: bool = False) -> BssiDualBound:
    """The dual lower bound of BSSI on the total weighted completion time ``sum_k w_k C_k``.

    ``LB = sum_k gamma_k r_k + 1/2 sum_k beta_k [ (sum_{j<=k} p_j^{b_k})^2
    + sum_{j<=k} (p_j^{b_k})^2 ]``, the objective of the dual solution BSSI builds (coflows
    numbered in BSSI order, ``p = d / c``).  Without release dates ``gamma = 0``.

    This signature is stable: the registered bound that wraps it relies on it.

    Parameters
    ----------
    instance : Instance
    tie_break : {"paper", "first"}, default "paper"
    release : {"algorithm3", "ignore"}, default "algorithm3"
        ``"ignore"`` gives the bound of the instance with every release at 0, which is also
        a lower bound for the instance with its releases.
    exact : bool, default False
        Run BSSI in exact arithmetic.  Either way ``value_exact`` is certified.

    Returns
    -------
    BssiDualBound
        ``value`` (float), ``value_exact`` (Fraction, certified), the duals, bottlenecks,
        ordered loads and the order.

    Raises
    ------
    InvalidParameterError
        For an unknown ``tie_break`` or ``release``.

    Examples
    --------
    T-S3 of the seeds digest: the bound is 10, which is also the optimum.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
    ...                               Coflow("B", [(0, 0, 2), (1, 1, 2)]),
    ...                               Coflow("C", [(1, 0, 3)])])
    >>> lb = bssi_dual_bound(inst, exact=True)
    >>> lb.value_exact, lb.value
    (Fraction(10, 1), 10.0)

    Notes
    -----
    Guarantee: ``value_exact <= sum_k w_k C_k`` for every feasible schedule (weak duality
    with the LP of Sec. 9, whose optimum is at most OPT by Lemma 1; proof in
    ``proofs/bssi-dual-bound.md``).  Lemma 5 gives ``OPT <= 4 LB`` for zero releases (BSSI
    with greedy rates meets it).  Float rounding is repaired by scaling the duals (see
    ``scale``); the exact evaluation costs O(nnz) Fraction operations.

    References
    ----------
    Sincronia technical report, Sec. 9: LP-primal (1)-(3), dual (4)-(5), Algorithm 3,
    Lemma 1 (LP <= OPT), Lemma 4 (dual feasibility), Lemma 5.
    """
    _check_params(tie_break, release, exact)
    t = _run(instance, tie_break=tie_break, release=release, exact=bool(exact), weighted=True,
             record_weights=False)
    return dual_bound_of_trace(instance, t)


def dual_bound_of_trace(instance: Instance, t: BssiTrace) -> BssiDualBound:
    """:func:`bssi_dual_bound` of a run already made (``t`` from :func:`bssi_trace` with
    ``weighted=True``): the exact evaluation alone, ``O(nnz + K)``, without running BSSI
    again."""
    tie_break, release = t.tie_break, t.release
    value_exact, scale = _certify(instance, t, weighted=True)
    rel = instance.release[t.order]
    if t.exact:
        release_term = float(sum((g * Fraction(float(r)) for g, r in zip(t.gamma, rel)),
                                 Fraction(0)))
        value = float(value_exact)
    else:
        release_term = math.fsum((t.gamma * rel).tolist())
        value = float(t.dual_objective) + release_term
    return BssiDualBound(value=value, value_exact=value_exact, scale=scale, order=t.order,
                         bottleneck=t.bottleneck, beta=t.beta, gamma=t.gamma, load=t.load,
                         sumsq=t.sumsq, release_branch=t.release_branch,
                         release_term=release_term, exact=t.exact, tie_break=tie_break,
                         release=release)
