"""Birkhoff--von Neumann schedules: a coflow (or a group of coflows) in exactly rho(D).

A demand matrix ``D`` (ingress x egress) with largest row or column sum ``rho`` is padded to a
matrix ``D' >= D`` whose every row and column sums to ``rho``; ``D' / rho`` is doubly stochastic,
so by Birkhoff's theorem ``D' = sum_k theta_k P_k`` with permutation matrices ``P_k`` and
``sum_k theta_k = rho``.  Serving the matching ``P_k`` at full port rate for ``theta_k`` time
units, one after the other, sends all of ``D`` in exactly ``rho`` (unit capacities): the fastest
possible, since the bottleneck port needs ``rho``.  The proof, the bound of at most
``m^2 - 2m + 2`` matchings for the greedy decomposition, and the test that checks both in exact
arithmetic are in ``proofs/bvn-single-coflow.md``.

Functions
---------
:func:`bvn_decomposition`
    The decomposition (Fractions in, Fractions out; floats with a tolerance).
:func:`check_decomposition`
    Independent check that a decomposition reproduces the padded matrix and dominates ``D``.
:func:`bvn_group_schedule`
    Groups of coflows in sequence, each group's aggregated demand served as one BvN schedule
    (the building block of the Qiu--Stein--Zhong algorithms).
:func:`bvn` (registered rate allocation ``"bvn"``)
    One coflow after another in a given order, each through its own decomposition; optional
    backfilling of idle ports by later coflows (never on a port the running coflow uses).
    Not order-preserving in Sincronia's sense (Definition 1): a later coflow can wait while a
    port it needs idles.
:func:`bvn_windows`, :func:`bvn_group_windows`
    The same schedules handed over window by window, never held (``coflowopt schedule``
    without ``--out``; ``qsz`` through ``qsz_windows``).

Engines: in float (and for the matchings in exact mode too) the work is done by the compiled
kernels of ``coflowopt.rates._bvn_kernel``: networkx's Hopcroft--Karp step for step, the
decomposition's float loop and the pieces of a group, with the same operations in the same
order, so the schedules are the networkx-based Python engine's (``engine="python"``, the
reference) to the last bit (``tests/test_bvn_engine.py``).  On the Facebook trace SEBF + BvN
(13 million pieces) went from not finishing in 1,500 s to well under a minute, and ``qsz``
from 6:39 to under a minute (``experiments/results/bvn_profile.md``).

Capacities: a matching moves ``c`` per time unit on each of its edges only when every port has
the same capacity ``c``; then a group takes ``rho / c``.  With unequal capacities a permutation
cannot keep both ends of every edge busy and the "exactly rho" property fails: :func:`bvn`
raises :class:`~coflowopt.exceptions.NotSupportedError`, and :func:`bvn_group_schedule` either
raises too (``heterogeneous="refuse"``) or serves each group by its fluid equivalent
(``heterogeneous="fluid"``, the default): every flow of the group at the constant rate
``remaining / L`` with ``L = max_p load_p / c_p``, which ends the group at exactly ``start + L``
as well (MADD on the aggregate).

References
----------
G. Birkhoff, "Tres observaciones sobre el algebra lineal", Univ. Nac. Tucuman Rev. Ser. A 5
(1946) 147--151; J. von Neumann, "A certain zero-sum two-person game equivalent to the optimal
assignment problem", 1953; M. Marcus, R. Ree, "Diagonals of doubly stochastic matrices", Quart.
J. Math. 10 (1959) 296--302 (the bound (n-1)^2 + 1); Z. Qiu, C. Stein, Y. Zhong, "Minimizing the
total weighted completion time of coflows in datacenter networks", SPAA 2015 (groups scheduled
by BvN); anchors-algorithms.md Sec. 3.8.  Matchings: J. Hopcroft, R. Karp, SIAM J. Comput. 2
(1973), as ``networkx.algorithms.bipartite.hopcroft_karp_matching`` (the reference engine).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from ..orderings.basic import validate_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import settle_sizes

__all__ = ["BvNDecomposition", "bvn_decomposition", "check_decomposition", "bvn",
           "bvn_windows", "bvn_group_schedule", "bvn_group_windows", "max_permutations"]


def max_permutations(n: int) -> int:
    """The bound ``n^2 - 2n + 2`` on the number of matchings of an ``n x n`` decomposition
    (1 for ``n = 1``)."""
    return max(1, n * n - 2 * n + 2)


@dataclass
class BvNDecomposition:
    """``padded = sum_k theta[k] * P(perm[k])`` with ``P(perm)[i, perm[i]] = 1``.

    Attributes
    ----------
    theta : list
        Durations (Fractions in exact mode), each > 0; they sum to ``rho``.
    perms : list of ndarray of int
        ``perms[k][i]`` = column matched to row ``i`` (square, padded indices).
    rho : number
        Largest row or column sum of the input.
    padded : ndarray (object or float)
        The ``n x n`` matrix with every row and column sum ``rho`` that dominates the input.
    shape : tuple
        Shape of the input matrix (before squaring).
    exact : bool
    """

    theta: list
    perms: list
    rho: Any
    padded: np.ndarray
    shape: tuple
    exact: bool
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.theta)


def _as_matrix(D):
    """(matrix as object array of Fractions or float array, exact flag)."""
    arr = np.asarray(D, dtype=object)
    if arr.ndim != 2:
        raise InvalidParameterError(f"D must be a 2-d matrix, got {arr.ndim} dimensions")
    flat = arr.ravel().tolist()
    exact = not any(isinstance(x, (float, np.floating)) for x in flat)
    for idx, x in enumerate(flat):
        if isinstance(x, bool) or not isinstance(x, (int, float, Fraction, np.integer,
                                                      np.floating)):
            raise InvalidParameterError(f"D[{idx // arr.shape[1]}][{idx % arr.shape[1]}] "
                                        f"must be a number, got {x!r}")
        if not (x >= 0) or (isinstance(x, (float, np.floating)) and not np.isfinite(x)):
            raise InvalidParameterError(f"D[{idx // arr.shape[1]}][{idx % arr.shape[1]}] "
                                        f"must be a finite number >= 0, got {x!r}")
    if exact:
        out = np.empty(arr.shape, dtype=object)
        for idx, x in enumerate(flat):
            out.flat[idx] = Fraction(int(x)) if isinstance(x, (int, np.integer)) else x
        return out, True
    return np.asarray(arr, dtype=float), False


def bvn_decomposition(D, *, tol: float = 1e-12, engine: str = "compiled") -> BvNDecomposition:
    """Birkhoff--von Neumann decomposition of a nonnegative demand matrix.

    Parameters
    ----------
    D : array_like, shape (m_in, m_out)
        Nonnegative entries.  Integers and Fractions are decomposed exactly in Fractions;
        floats in float64 with tolerance ``tol``.
    tol : float
        Float mode only: entries below ``tol * rho`` count as zero.
    engine : {"compiled", "python"}
        ``"compiled"``: the matchings by ``coflowopt.rates._bvn_kernel.hopcroft_karp`` (in
        float mode the whole loop compiled, :func:`~coflowopt.rates._bvn_kernel.decompose`);
        ``"python"``: networkx's ``hopcroft_karp_matching``, the reference.  The same
        algorithm step for step, hence the same terms to the last bit
        (``tests/test_bvn.py``).

    Returns
    -------
    BvNDecomposition
        At most ``n^2 - 2n + 2`` terms for ``n = max(m_in, m_out)``; ``sum(theta) = rho``.

    Raises
    ------
    InvalidParameterError
        If ``D`` is not a 2-d matrix of finite nonnegative numbers.

    Examples
    --------
    >>> from fractions import Fraction
    >>> dec = bvn_decomposition([[1, 1], [1, 1]])
    >>> dec.rho, sorted(dec.theta), len(dec)
    (Fraction(2, 1), [Fraction(1, 1), Fraction(1, 1)], 2)

    Notes
    -----
    *Algorithm.*  (1) Square the matrix with zero rows/columns; (2) pad: scanning rows and
    columns in order, add ``min(row slack, column slack)`` to each entry (north-west corner
    rule), after which every row and column sums to ``rho``; (3) while the padded matrix is not
    zero, take a perfect matching of its support (it exists by Hall's theorem, since the
    matrix is a multiple of a doubly stochastic one), subtract its smallest entry ``theta``
    along the matching, record ``(theta, matching)``.  Each step zeroes at least one entry and
    lowers ``e - 2n + c`` (support edges, components of the support graph) unless it is the
    last; hence at most ``n^2 - 2n + 2`` steps (``proofs/bvn-single-coflow.md``).

    *Running time.*  At most ``n^2`` matchings, each Hopcroft--Karp on the support from
    scratch: O(n^4.5) worst case.  Compiled, a dense 150 x 150 float matrix (about 22,000
    terms) takes about a second; the networkx reference, minutes.

    References
    ----------
    Birkhoff (1946); von Neumann (1953); Marcus & Ree (1959); Hopcroft & Karp (1973).
    """
    if engine not in ("compiled", "python"):
        raise InvalidParameterError(f"engine must be 'compiled' or 'python', got {engine!r}")
    M, exact = _as_matrix(D)
    if not exact and engine == "compiled":
        return _float_decomposition(M, tol)
    m_in, m_out = M.shape
    n = max(m_in, m_out, 1)
    zero = Fraction(0) if exact else 0.0
    A = np.empty((n, n), dtype=object) if exact else np.zeros((n, n))
    if exact:
        A[:] = zero
    A[:m_in, :m_out] = M
    rows = [sum(A[i, :].tolist(), zero) for i in range(n)]
    cols = [sum(A[:, j].tolist(), zero) for j in range(n)]
    rho = max(rows + cols) if n else zero
    if rho == 0:
        return BvNDecomposition([], [], rho, A, (m_in, m_out), exact)
    eps = zero if exact else tol * float(rho)
    # pad (north-west corner rule on the slacks)
    rs = [rho - r for r in rows]
    cs = [rho - c for c in cols]
    i = j = 0
    while i < n and j < n:
        if rs[i] <= eps:
            i += 1
            continue
        if cs[j] <= eps:
            j += 1
            continue
        a = rs[i] if rs[i] < cs[j] else cs[j]
        A[i, j] += a
        rs[i] -= a
        cs[j] -= a
    padded = A.copy()
    if engine == "compiled":
        return _exact_terms(A, padded, rho, (m_in, m_out))
    from networkx.algorithms.bipartite import hopcroft_karp_matching
    import networkx as nx

    # repeated perfect matchings on the support
    G = nx.Graph()
    G.add_nodes_from(range(n), bipartite=0)
    G.add_nodes_from(range(n, 2 * n), bipartite=1)
    G.add_edges_from((r, n + c) for r in range(n) for c in range(n) if A[r, c] > eps)
    theta, perms = [], []
    remaining = rho
    while G.number_of_edges():
        match = hopcroft_karp_matching(G, top_nodes=range(n))
        if len(match) < 2 * n and not exact:
            # float rounding (an entry within eps of zero dropped from the support while the
            # rest still carries it, e.g. [[3, 7.00000000001, 1e-11]]) broke Hall's condition:
            # decompose the same matrix exactly (floats are rationals) and round once at the end
            return _float_from_exact(M)
        if len(match) < 2 * n:  # pragma: no cover - impossible for a padded matrix (Hall)
            raise RuntimeError("no perfect matching in the support: the padded matrix is not "
                               "a multiple of a doubly stochastic matrix")
        perm = np.array([match[r] - n for r in range(n)], dtype=np.int64)
        th = min(A[r, perm[r]] for r in range(n))
        if not exact and remaining - th <= eps:
            th = remaining  # the last matching: absorb the float rounding
        for r in range(n):
            A[r, perm[r]] -= th
            if A[r, perm[r]] <= eps:
                A[r, perm[r]] = zero
                G.remove_edge(r, n + int(perm[r]))
        theta.append(th)
        perms.append(perm)
        remaining -= th
    return BvNDecomposition(theta, perms, rho, padded, (m_in, m_out), exact,
                            meta={"n": n, "bound": max_permutations(n)})


def _float_terms(M: np.ndarray, tol: float):
    """``(rho, padded, theta, perms, terms)`` of the float decomposition of ``M`` by the
    compiled kernels (``theta[:terms]``, ``perms[:terms]``), ``terms = -1`` when float rounding
    broke Hall's condition (see :func:`bvn_decomposition`)."""
    from . import _bvn_kernel as K

    m_in, m_out = M.shape
    n = max(m_in, m_out, 1)
    A = np.zeros((n, n))
    A[:m_in, :m_out] = M
    rho, eps = K.pad(A, float(tol))
    padded = A.copy()
    if rho == 0:
        return rho, padded, np.zeros(0), np.zeros((0, n), np.int32), 0
    # every term takes at least one entry out of the support
    bound = int(np.count_nonzero(A > eps))
    theta = np.empty(bound)
    perms = np.empty((bound, n), np.int32)
    terms = K.decompose(A, eps, rho, theta, perms)
    return rho, padded, theta, perms, terms


def _float_decomposition(M: np.ndarray, tol: float) -> BvNDecomposition:
    """:func:`bvn_decomposition` of a float matrix by the compiled kernels."""
    rho, padded, theta, perms, terms = _float_terms(M, tol)
    if terms < 0:
        return _float_from_exact(M)
    n = padded.shape[0]
    return BvNDecomposition(theta[:terms].tolist(), list(perms[:terms].astype(np.int64)),
                            float(rho), padded, M.shape, False,
                            meta={"n": n, "bound": max_permutations(n)} if rho else {})


def _exact_terms(A: np.ndarray, padded: np.ndarray, rho, shape: tuple) -> BvNDecomposition:
    """The exact (Fractions) loop of :func:`bvn_decomposition` on the padded ``A`` with the
    compiled matching (:func:`coflowopt.rates._bvn_kernel.hopcroft_karp`) on its support."""
    from . import _bvn_kernel as K

    n = A.shape[0]
    zero = Fraction(0)
    adj = np.zeros((n, n), np.int32)
    deg = np.zeros(n, np.int64)
    for r in range(n):
        cs = [c for c in range(n) if A[r, c] > zero]
        adj[r, :len(cs)] = cs
        deg[r] = len(cs)
    lm, rm, stk, pos = (np.empty(n, np.int64) for _ in range(4))
    dist, queue = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    theta, perms = [], []
    while deg.any():
        if K.hopcroft_karp(adj, deg, n, lm, rm, dist, queue, stk, pos) < n:  # pragma: no cover
            raise RuntimeError("no perfect matching in the support: the padded matrix is not "
                               "a multiple of a doubly stochastic matrix")   # (Hall)
        perm = lm.copy()
        th = min(A[r, perm[r]] for r in range(n))
        for r in range(n):
            A[r, perm[r]] -= th
            if A[r, perm[r]] <= zero:
                A[r, perm[r]] = zero
                row = adj[r, :deg[r]]
                k = int(np.flatnonzero(row == perm[r])[0])
                row[k:-1] = row[k + 1:].copy()
                deg[r] -= 1
        theta.append(th)
        perms.append(perm)
    return BvNDecomposition(theta, perms, rho, padded, shape, True,
                            meta={"n": n, "bound": max_permutations(n)})


def _float_from_exact(M: np.ndarray) -> BvNDecomposition:
    """The float decomposition of ``M`` computed in exact arithmetic, rounded once."""
    ex = bvn_decomposition(np.vectorize(Fraction, otypes=[object])(M))
    padded = np.array([[float(x) for x in row] for row in ex.padded.tolist()], dtype=float)
    return BvNDecomposition([float(t) for t in ex.theta], ex.perms, float(ex.rho), padded,
                            ex.shape, False, meta={**ex.meta, "computed_exactly": True})


def check_decomposition(D, dec: BvNDecomposition, *, rtol: float = 1e-9) -> dict:
    """Check a decomposition independently of how it was built.

    Checks: every ``theta > 0``; every ``perm`` is a permutation of ``0..n-1``;
    ``sum_k theta_k P_k`` equals ``dec.padded``; the padded matrix dominates ``D`` entry-wise
    and has every row and column sum equal to ``rho`` (the largest row/column sum of ``D``);
    ``sum theta = rho``; the number of terms is at most ``n^2 - 2n + 2``.  Exact (Fractions)
    when ``dec.exact``, else with tolerance ``rtol`` relative to ``rho``.

    Returns
    -------
    dict
        ``{"ok": bool, "failures": [str, ...], "terms": int, "bound": int, "rho": rho}``.

    Examples
    --------
    >>> d = [[2, 0], [1, 1]]
    >>> check_decomposition(d, bvn_decomposition(d))["ok"]
    True
    """
    M, exact = _as_matrix(D)
    m_in, m_out = M.shape
    n = max(m_in, m_out, 1)
    fails: list[str] = []
    zero = Fraction(0) if dec.exact else 0.0

    sums = [sum(M[i, :].tolist(), zero) for i in range(m_in)] + \
        [sum(M[:, j].tolist(), zero) for j in range(m_out)]
    rho = max(sums) if sums else zero

    def close(a, b):
        if dec.exact:
            return a == b
        # relative to rho, the matrix's own scale (not to 1: the data has no unit)
        return abs(float(a) - float(b)) <= rtol * max(abs(float(a)), abs(float(b)), float(rho))
    if not close(dec.rho, rho):
        fails.append(f"rho is {dec.rho}, the largest row/column sum of D is {rho}")
    S = np.empty((n, n), dtype=object) if dec.exact else np.zeros((n, n))
    if dec.exact:
        S[:] = zero
    for k, (th, perm) in enumerate(zip(dec.theta, dec.perms)):
        if not th > 0:
            fails.append(f"theta[{k}] = {th} is not > 0")
        if sorted(np.asarray(perm).tolist()) != list(range(n)):
            fails.append(f"perms[{k}] is not a permutation of 0..{n - 1}")
            continue
        for r in range(n):
            S[r, int(perm[r])] += th
    for r in range(n):
        for c in range(n):
            if not close(S[r, c], dec.padded[r, c]):
                fails.append(f"sum of theta P differs from the padded matrix at ({r}, {c}): "
                             f"{S[r, c]} != {dec.padded[r, c]}")
            d = M[r, c] if r < m_in and c < m_out else zero
            if dec.padded[r, c] < d and not close(dec.padded[r, c], d):
                fails.append(f"padded[{r}][{c}] = {dec.padded[r, c]} < D = {d}")
    for r in range(n):
        for vec, what in ((dec.padded[r, :], "row"), (dec.padded[:, r], "column")):
            if not close(sum(vec.tolist(), zero), rho):
                fails.append(f"padded {what} {r} sums to {sum(vec.tolist(), zero)}, not {rho}")
    total = sum(dec.theta, zero)
    if not close(total, rho):
        fails.append(f"sum of theta is {total}, not rho = {rho}")
    bound = max_permutations(n)
    if len(dec.theta) > bound:
        fails.append(f"{len(dec.theta)} permutations, more than n^2 - 2n + 2 = {bound}")
    return {"ok": not fails, "failures": fails, "terms": len(dec.theta), "bound": bound,
            "rho": rho}


# ------------------------------------------------------------------------------ schedules
def _uniform_capacity(instance: Instance):
    if not instance.uniform_capacity:
        raise NotSupportedError(
            "BvN schedules need every ingress and egress port to have the same capacity (a "
            "matching then keeps both ends of each edge busy); this instance has capacities "
            f"from {float(instance.capacity.min())} to {float(instance.capacity.max())}")
    return float(instance.capacity[0])


class _Builder:
    """Pieces ``(flow, start, end, rate)`` and the remaining demand, in float or Fractions."""

    def __init__(self, instance: Instance, exact: bool, engine: str = "compiled"):
        self.inst = instance
        self.exact = exact
        self.engine = engine
        num = Fraction if exact else float
        self.num = num
        self.cap = num(float(instance.capacity[0]))
        self.rem = [num(float(s)) for s in instance.flow_size.tolist()]
        self.release = [num(float(r)) for r in instance.release.tolist()]
        self.zero = num(0)
        self.pieces: list[tuple] = []
        self.last_end = [None] * instance.num_flows

    def send(self, f: int, start, duration):
        """Send flow ``f`` at full rate from ``start`` for ``duration`` (clipped to what is
        left); returns the time used."""
        d = min(duration, self.rem[f] / self.cap)
        if d <= 0 or (not self.exact and start + d <= start):
            # in float a term shorter than one unit in the last place of ``start`` (a residue
            # of the decomposition's subtractions) gives no piece: it would have zero length
            # (the verifier refuses one: qsz on the FB trace, "start 131334.376 is not before
            # end 131334.376").  The flow keeps that data: a later term sends it, or
            # settle_sizes adds it to the flow's pieces (a relative ~1e-16)
            return self.zero
        self.pieces.append((f, start, start + d, self.cap))
        self.rem[f] -= d * self.cap
        if not self.exact and self.rem[f] <= 1e-12 * float(self.inst.flow_size[f]):
            self.rem[f] = 0.0
        return d

    def schedule(self, meta: dict) -> Schedule:
        if not self.pieces:
            return Schedule.empty(exact=self.exact)
        f, s, e, r = zip(*self.pieces)
        dt = object if self.exact else float
        return settle_sizes(self.inst, Schedule(
            np.asarray(f, dtype=np.int64), np.asarray(s, dtype=dt), np.asarray(e, dtype=dt),
            np.asarray(r, dtype=dt), meta=meta), copy=False)


def _serve_group(b: _Builder, coflows: Sequence[int], start, backfill_from: Sequence[int]):
    """Serve the remaining demand of ``coflows`` from ``start`` with one BvN decomposition;
    optionally backfill idle port pairs with flows of ``backfill_from`` (in order, released).
    Returns the time the group ends (``start + rho / c``)."""
    inst = b.inst
    # the group's flows per (ingress, egress) pair, in coflow then listed order
    pair_flows: dict[tuple[int, int], list[int]] = {}
    for k in coflows:
        for f in range(int(inst.flow_ptr[k]), int(inst.flow_ptr[k + 1])):
            if b.rem[f] > 0:
                pair_flows.setdefault((int(inst.flow_src[f]), int(inst.flow_dst[f])),
                                      []).append(f)
    if not pair_flows:
        return start
    # the demand matrix over the ports the group uses only: a port without demand is a zero
    # row or column, which the decomposition pads like any other (proofs/bvn-single-coflow.md
    # holds for any square matrix), so dropping it keeps "exactly rho" while the matrix a
    # coflow of a few flows gets is a few x a few instead of m_in x m_out (150 x 150 on the
    # trace's fabric: 22,500 Fractions and a Hopcroft-Karp matching over 300 nodes per term)
    rows = sorted({i for i, _ in pair_flows})
    cols = sorted({j for _, j in pair_flows})
    at_row = {i: a for a, i in enumerate(rows)}
    at_col = {j: a for a, j in enumerate(cols)}
    T = np.empty((len(rows), len(cols)), dtype=object) if b.exact else \
        np.zeros((len(rows), len(cols)))
    if b.exact:
        T[:] = b.zero
    for (i, j), fl in pair_flows.items():
        T[at_row[i], at_col[j]] = sum((b.rem[f] for f in fl), b.zero) / b.cap
    dec = bvn_decomposition(T, engine=b.engine)
    t = start
    for th, perm in zip(dec.theta, dec.perms):
        end = t + th
        busy_until = {}
        for a, i in enumerate(rows):
            if perm[a] >= len(cols):
                continue  # matched to a padding column: the port idles in this term
            j = cols[int(perm[a])]
            u = t
            for f in pair_flows.get((i, j), ()):
                if u >= end:
                    break
                u += b.send(f, u, end - u)
            busy_until[(i, j)] = u
        if backfill_from:
            _backfill_interval(b, t, end, busy_until, backfill_from)
        t = end
    return t


#: Pieces per window of the streamed form (at least, cut at a term's end; 8 MB of pieces).
WINDOW_PIECES = 1 << 18
#: :func:`~coflowopt.simulate.settle_sizes` sums a held schedule's pieces in slices of this
#: many (``tests/test_bvn.py`` holds the streamed rates to the held ones).
_SETTLE_STEP = 1 << 20


def _groups_compiled(instance: Instance, groups: list, meta: dict, on_window=None,
                     window: int = 0):
    """:func:`bvn_group_schedule` in float, equal capacities, no backfilling: each group's
    matrix, decomposition and pieces by the compiled kernels (``_serve_group``'s pieces in
    its order, to the last bit).  Held (``on_window`` None): the pieces in growing arrays, the
    settled :class:`Schedule`.  Streamed: a window goes to ``on_window(schedule, start, end)``
    once it holds ``window`` pieces (at a term's end), settled by :class:`_WindowSettle`;
    returns the statistics."""
    from . import _bvn_kernel as K
    from .._index_ranges import concat_ranges

    cap = float(instance.capacity[0])
    size = np.asarray(instance.flow_size, dtype=float)
    rem = size.copy()
    release = instance.release.tolist()
    ptr = instance.flow_ptr
    out = [np.empty(window, np.int64), np.empty(window), np.empty(window)]
    stop = window if on_window is not None else np.iinfo(np.int64).max
    sink = _WindowSettle(instance, on_window, cap) if on_window is not None else None
    at = 0
    t = 0.0
    for g in groups:
        start = max([t] + [release[k] for k in g])
        ks = np.asarray(g, dtype=np.int64)
        flows = concat_ranges(ptr[ks], ptr[ks + 1] - ptr[ks])
        flows = flows[rem[flows] > 0]
        if not flows.size:
            t = start
            continue
        src, dst = instance.flow_src[flows], instance.flow_dst[flows]
        rows, ri = np.unique(src, return_inverse=True)
        cols, cj = np.unique(dst, return_inverse=True)
        nr, nc = rows.size, cols.size
        key = ri.reshape(-1) * nc + cj.reshape(-1)
        pair_flow = flows[np.argsort(key, kind="stable")]
        pair_ptr = np.zeros(nr * nc + 1, np.int64)
        np.cumsum(np.bincount(key, minlength=nr * nc), out=pair_ptr[1:])
        T = np.empty(nr * nc)
        K.pair_sums(pair_ptr, pair_flow, rem, cap, T)
        T = T.reshape(nr, nc)
        _, _, theta, perms, terms = _float_terms(T, 1e-12)
        if terms < 0:
            ex = _float_from_exact(T)
            theta = np.asarray(ex.theta, dtype=float)
            perms = np.asarray(ex.perms, dtype=np.int32).reshape(len(ex.theta), -1)
            terms = len(ex.theta)
        # a term gives at most one piece per matched pair plus one per flow that ends in it
        per_term = min(nr, nc) + flows.size
        need = min(at + flows.size + terms * min(nr, nc), stop + per_term)
        if need > out[0].size:
            grown = max(need, 2 * out[0].size) if sink is None else need
            out = [np.concatenate([x[:at], np.empty(grown - at, x.dtype)]) for x in out]
        k, split = 0, False
        while True:
            at, t, k = K.serve(theta, perms, k, terms, nr, nc, pair_ptr, pair_flow, rem, size,
                               cap, start if k == 0 else t, out[0], out[1], out[2], at, stop)
            if k == terms:
                break
            # a window inside a group: its flows with nothing left are done (no more pieces)
            sink.closed(flows[rem[flows] == 0], False)
            sink.flush(out, at, t)
            at, split = 0, True
        del theta, perms
        if sink is not None:
            sink.closed(flows, split)
            if at >= window or split:
                sink.flush(out, at, t)
                at = 0
    if sink is not None:
        if at:
            sink.flush(out, at, t)
        return sink.stats()
    if at == 0:
        return Schedule.empty(exact=False)
    flow, st, en = (x[:at].copy() for x in out)
    del out
    return settle_sizes(instance, Schedule(flow, st, en, np.full(at, cap), meta=meta),
                        copy=False)


class _WindowSettle:
    """The windows of :func:`_groups_compiled`, settled as :func:`~coflowopt.simulate.
    settle_sizes` settles the held schedule: a flow whose pieces all lie in one window gets
    its rule on the same sum (:func:`~coflowopt.rates._bvn_kernel.sliced_sums`), so the same
    rates to the last bit; a flow of a group that a window cut (its pieces in two windows or
    more) cannot be rescaled after its first window went out, and is counted in
    ``unsettled`` when it needed it (the verifier judges it with its tolerances;
    :func:`coflowopt.api.run_schedule` reruns the held form when such a schedule is
    rejected).  ``on_window`` gets views of the kernel's buffers when it has the attribute
    ``borrows = True`` (it keeps nothing), copies otherwise."""

    def __init__(self, instance: Instance, on_window, cap: float):
        F = instance.num_flows
        self.on_window = on_window
        self.cap = cap
        self.size = np.asarray(instance.flow_size, dtype=float)
        self.sent = np.zeros(F)
        self.part = np.zeros(F)
        self.in_slice = np.zeros(F, dtype=bool)
        self.slice_flows = np.zeros(F, dtype=np.int64)
        self.seen = np.zeros(F, dtype=bool)
        self.here = np.zeros(F, dtype=np.int64)
        self.done = np.zeros(F, dtype=bool)      # the flow's group has ended
        self.earlier = np.zeros(F, dtype=bool)   # it has pieces in a window already out
        self.carried = np.zeros(F)
        self.split_done: list = []               # cut groups ended since the last window
        self.g0 = 0
        # the first window starts at the earliest release, as rates._pieces.WindowSink's
        self.last = float(np.min(instance.release)) if instance.num_coflows else 0.0
        self.windows = self.pieces = self.settled = self.unsettled = 0
        self.callback_s = 0.0

    def closed(self, flows: np.ndarray, split: bool) -> None:
        """Every piece of ``flows`` has been written (``split``: they are a group that a
        window cut, checked at the next window)."""
        self.done[flows] = True
        if split:
            self.split_done.append(flows)

    def flush(self, out: list, at: int, t: float) -> None:
        """Settle and hand over ``out[:][:at]``, the window ``[last, t]``."""
        from . import _bvn_kernel as K
        from ..simulate import settle_off, settle_window

        f, s, e = out[0][:at], out[1][:at], out[2][:at]
        v = np.full(at, self.cap)
        sent, size, earlier = self.sent, self.size, self.earlier
        nh = K.sliced_sums(f, v * (e - s), self.g0, _SETTLE_STEP, sent, self.part,
                           self.in_slice, self.slice_flows, self.seen, self.here)
        here = self.here[:nh]
        # a flow is judged once, when its last piece has gone out: here, or (its group ended
        # with no piece of it in this window) at the end of its cut group
        settled, unsettled, run, split = settle_window(f, v, here, self.done[here], sent,
                                                       self.carried, size, earlier)
        self.settled += settled
        self.unsettled += unsettled
        earlier[split] = False
        for g in self.split_done:
            sp = g[earlier[g]]
            self.unsettled += int(settle_off(self.carried[sp], size[sp]).sum())
            earlier[sp] = False
        self.split_done = []
        earlier[run] = True
        sent[here] = 0.0
        self.seen[here] = False
        t0 = time.perf_counter()
        if not getattr(self.on_window, "borrows", False):   # as rates._pieces.WindowSink
            f, s, e = f.copy(), s.copy(), e.copy()
        self.on_window(Schedule(f, s, e, v), self.last, t)
        self.callback_s += time.perf_counter() - t0
        self.last = t
        self.g0 += at
        self.pieces += at
        self.windows += 1

    def stats(self) -> dict:
        return {"windows": self.windows, "pieces": self.pieces, "callback_s": self.callback_s,
                "settled": self.settled, "unsettled": self.unsettled}


def _serve_group_fluid(b: _Builder, coflows: Sequence[int], start):
    """Unequal capacities: every flow of the group at ``remaining / L`` from ``start``, with
    ``L = max_p (group load at p) / c_p``; the group ends at ``start + L``."""
    inst = b.inst
    m_in = inst.num_ingress
    cap = [b.num(float(c)) for c in inst.capacity.tolist()]
    load = [b.zero] * inst.num_ports
    flows = []
    for k in coflows:
        for f in range(int(inst.flow_ptr[k]), int(inst.flow_ptr[k + 1])):
            if b.rem[f] > 0:
                flows.append(f)
                load[int(inst.flow_src[f])] += b.rem[f]
                load[m_in + int(inst.flow_dst[f])] += b.rem[f]
    if not flows:
        return start
    L = max(x / c for x, c in zip(load, cap))
    end = start + L
    for f in flows:
        b.pieces.append((f, start, end, b.rem[f] / L))
        b.rem[f] = b.zero
    return end


def _backfill_interval(b: _Builder, t0, t1, busy_until: dict, candidates: Sequence[int]):
    """Greedy fill of ``[t0, t1)``: a port is free once the group's matching edge on it is
    done (or at once if the matching leaves it idle); flows of the later coflows, in order,
    take free (ingress, egress) pairs at full rate.  Event-driven inside the interval."""
    inst = b.inst
    m_in, m_out = inst.num_ingress, inst.num_egress
    in_free = [t0] * m_in        # time from which each port is free of the group
    out_free = [t0] * m_out
    for (i, j), u in busy_until.items():
        in_free[i] = u
        out_free[j] = u
    flows = [f for k in candidates for f in range(int(inst.flow_ptr[k]),
                                                   int(inst.flow_ptr[k + 1]))]
    rel = {f: b.release[int(inst.flow_coflow[f])] for f in flows}
    in_busy = [t0] * m_in        # ... and of backfilled flows
    out_busy = [t0] * m_out
    t = t0
    while t < t1:
        nxt = t1
        for f in flows:
            if b.rem[f] <= 0 or rel[f] > t:
                if b.rem[f] > 0 and t < rel[f] < nxt:
                    nxt = rel[f]
                continue
            i, j = int(inst.flow_src[f]), int(inst.flow_dst[f])
            free_i = max(in_free[i], in_busy[i])
            free_j = max(out_free[j], out_busy[j])
            if free_i <= t and free_j <= t:
                d = b.send(f, t, t1 - t)
                in_busy[i] = out_busy[j] = t + d
                if t + d < nxt:
                    nxt = t + d
            else:
                w = max(free_i, free_j)
                if t < w < nxt:
                    nxt = w
        if nxt <= t:  # pragma: no cover - every branch moves time forward
            break
        t = nxt


def _check_groups(instance: Instance, groups: list) -> None:
    """Every group non-empty, every coflow in range and in one group at most."""
    K = instance.num_coflows
    seen: set[int] = set()
    for gi, g in enumerate(groups):
        if not g:
            raise InvalidParameterError(f"groups[{gi}] is empty")
        for k in g:
            if not 0 <= k < K:
                raise InvalidParameterError(f"groups[{gi}] names coflow {k}, not in 0..{K - 1}")
            if k in seen:
                raise InvalidParameterError(f"groups[{gi}] repeats coflow {k}")
            seen.add(k)


def bvn_group_schedule(instance: Instance, groups: Sequence[Sequence[int]], *,
                       exact: bool | None = None, backfill: bool = False,
                       heterogeneous: str = "fluid", meta: dict | None = None,
                       engine: str = "compiled") -> Schedule:
    """Run groups of coflows one after another, each group as one BvN schedule.

    Group ``g`` starts when group ``g-1`` has ended and all of its own coflows are released;
    its aggregated remaining demand matrix ``D_g`` is decomposed (:func:`bvn_decomposition`) and
    served matching by matching at full port rate, so the group ends exactly ``rho(D_g) / c``
    after it starts (``proofs/bvn-single-coflow.md``).  A coflow of the group whose flows all
    lie in early matchings ends before the group does; which matchings come first depends on
    the port numbering, so those earlier completion times (not the group's end) change when
    ports are relabelled.

    Parameters
    ----------
    instance : Instance
    groups : sequence of sequences of int
        A partition of (some of) the coflows; the groups run in the given order.  Inside a
        group, flows of one (ingress, egress) pair are sent in coflow-then-listed order.
    exact : bool, optional
        Compute in Fractions (floats are converted exactly); default: when every size, release
        and the capacity are integers.
    backfill : bool
        Let flows of later groups' coflows (in group order, once released) use port pairs that
        the running group leaves idle (they never take a port the group uses at that moment,
        so no group is delayed).  Equal capacities only.
    heterogeneous : {"fluid", "refuse"}
        With unequal port capacities: serve each group at constant rates ``remaining / L``
        (``"fluid"``; same group completion times, no matchings), or raise.
    meta : dict, optional
    engine : {"compiled", "python"}
        ``"compiled"``: in float without backfilling, each group's decomposition and pieces
        by the compiled kernels (``coflowopt.rates._bvn_kernel``); otherwise the matchings
        only (:func:`bvn_decomposition`).  ``"python"``: the reference (networkx matchings,
        pieces in Python).  The same schedule to the last bit (``tests/test_bvn.py``).

    Returns
    -------
    Schedule
        Exact (Fractions) when ``exact``; ``meta["served_by"]`` is ``"bvn"`` or ``"fluid"``.

    Raises
    ------
    InvalidParameterError
        If a group is empty, names a coflow twice or out of range, or ``heterogeneous`` is
        unknown.
    NotSupportedError
        With unequal port capacities and ``heterogeneous="refuse"`` or ``backfill=True``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("B", [(1, 0, 1), (1, 1, 1)])])
    >>> rep = verify_schedule(inst, bvn_group_schedule(inst, [[0, 1]]), mode="exact")
    >>> rep.ok, [str(c) for c in rep.coflow_completion]
    (True, ['2', '2'])

    Notes
    -----
    *Guarantee.*  Group ``g`` ends at ``S_g + rho(D_g) / c`` (``S_g + max_p D_g^p / c_p``
    with the fluid fallback).  *Running time.*  One
    decomposition per group (see :func:`bvn_decomposition`); the backfilling is plain Python,
    O(events x flows) per matching interval.

    References
    ----------
    Qiu, Stein, Zhong, SPAA 2015 (interval groups scheduled by BvN); anchors-algorithms.md
    Sec. 3.3 and 3.8.
    """
    if engine not in ("compiled", "python"):
        raise InvalidParameterError(f"engine must be 'compiled' or 'python', got {engine!r}")
    if heterogeneous not in ("fluid", "refuse"):
        raise InvalidParameterError("heterogeneous must be 'fluid' or 'refuse', got "
                                    f"{heterogeneous!r}")
    uniform = instance.uniform_capacity
    if not uniform and (heterogeneous == "refuse" or backfill):
        _uniform_capacity(instance)
    groups = [[int(k) for k in g] for g in groups]
    _check_groups(instance, groups)
    if exact is None:
        exact = _integral(instance)
    meta = {**(meta or {}), "algorithm": (meta or {}).get("algorithm", "bvn_group_schedule"),
            "groups": groups, "exact": bool(exact), "backfill": bool(backfill),
            "served_by": "bvn" if uniform else "fluid"}
    if uniform and not exact and not backfill and engine == "compiled":
        return _groups_compiled(instance, groups, meta)
    b = _Builder(instance, bool(exact), engine)
    t = b.zero
    for gi, g in enumerate(groups):
        start = max([t] + [b.release[k] for k in g])
        if uniform:
            later = [k for gg in groups[gi + 1:] for k in gg] if backfill else []
            t = _serve_group(b, g, start, later)
        else:
            t = _serve_group_fluid(b, g, start)
    return b.schedule(meta)


def _integral(instance: Instance) -> bool:
    """Exact mode's default: every size, release and the capacity are integers."""
    vals = np.concatenate([instance.flow_size, instance.release, instance.capacity[:1]])
    return bool(np.all(vals == np.round(vals)))


def bvn_group_windows(instance: Instance, groups: Sequence[Sequence[int]], on_window, *,
                      exact: bool | None = None, backfill: bool = False,
                      heterogeneous: str = "fluid", meta: dict | None = None,
                      engine: str = "compiled", window: int = WINDOW_PIECES) -> dict:
    """:func:`bvn_group_schedule` handed over window by window, never held.

    In float with equal capacities, no backfilling and the compiled engine, the kernels'
    pieces go to ``on_window(schedule, start, end)`` in windows of at least ``window`` pieces
    (cut at a term's end, so no piece is cut), settled as the held schedule is (a flow whose
    pieces all lie in one window gets the held rates to the last bit; the others, of groups a
    window cut, are counted in ``unsettled`` where they needed rescaling).  Otherwise the held
    schedule (floats; an exact one converted to float, which is what the float verifier reads)
    goes out as one window.

    Parameters
    ----------
    instance, groups, exact, backfill, heterogeneous, meta, engine
        As for :func:`bvn_group_schedule`.
    on_window : callable
        ``on_window(schedule, start, end)``; handed views of the reused buffers when it has
        the attribute ``borrows = True`` (it keeps nothing), copies otherwise.
    window : int
        Pieces per window (at least 1).

    Returns
    -------
    dict
        ``windows``, ``pieces``, ``callback_s`` (time in ``on_window``), ``settled``,
        ``unsettled``.

    Raises
    ------
    InvalidParameterError
        As :func:`bvn_group_schedule`, and for ``window < 1``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.5), (0, 1, 1.5)]),
    ...                               Coflow("B", [(1, 0, 1.0)])])
    >>> ends = []
    >>> st = bvn_group_windows(inst, [[0], [1]], lambda s, a, b: ends.append(b), window=1)
    >>> ends, st["pieces"]
    ([1.5, 3.0, 4.0], 3)
    """
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise InvalidParameterError(f"window must be an integer >= 1, got {window!r}")
    if exact is None:
        exact = _integral(instance)
    if (instance.uniform_capacity and not exact and not backfill and engine == "compiled"
            and heterogeneous in ("fluid", "refuse")):
        groups = [[int(k) for k in g] for g in groups]
        _check_groups(instance, groups)
        return _groups_compiled(instance, groups, {}, on_window, int(window))
    sched = bvn_group_schedule(instance, groups, exact=exact, backfill=backfill,
                               heterogeneous=heterogeneous, meta=meta, engine=engine)
    return _one_window(sched, on_window)


def _one_window(sched: Schedule, on_window) -> dict:
    """A held schedule handed over as one window (floats)."""
    if sched.exact:
        sched = Schedule(sched.flow, sched.start.astype(float), sched.end.astype(float),
                         sched.rate.astype(float), meta=sched.meta)
    t0 = time.perf_counter()
    if sched.num_pieces:
        on_window(sched, 0.0, float(sched.end.max()))
    return {"windows": int(sched.num_pieces > 0), "pieces": int(sched.num_pieces),
            "callback_s": time.perf_counter() - t0, "settled": 0, "unsettled": 0}


@register("rates", "bvn", summary="coflows one after another in the given order, each served "
          "by its Birkhoff-von Neumann decomposition in exactly rho; optional backfilling of "
          "idle ports by later coflows",
          reference="Birkhoff (1946), von Neumann (1953); Qiu, Stein, Zhong (SPAA 2015); "
          "anchors-algorithms.md Sec. 3.8; proofs/bvn-single-coflow.md",
          guarantee="each coflow takes exactly rho_k / c once started: C_k = S_k + rho_k / c "
          "with S_k = max(r_k, C_{k-1}) (without backfilling)",
          tags=("big_switch_only", "release_dates", "uniform_capacity_only", "exact_arithmetic", "slow"))
def bvn(instance: Instance, order, *, backfill: bool = False,
        exact: bool | None = None, engine: str = "compiled") -> Schedule:
    """Serve coflows one at a time in ``order``, each through its BvN decomposition.

    Parameters
    ----------
    instance : Instance
        Every port must have the same capacity.
    order : array_like of int
        Coflow indices, highest priority first.
    backfill : bool
        Fill ports idle under the running coflow greedily with flows of later (released)
        coflows in order; they never block the running coflow, so every coflow still ends at
        most ``rho_k / c`` after it starts (its remaining demand only shrank).
    exact : bool, optional
        Fractions (see :func:`bvn_group_schedule`).
    engine : {"compiled", "python"}
        The compiled kernels or the networkx-based reference; the same schedule to the last
        bit (see :func:`bvn_group_schedule`).

    Returns
    -------
    Schedule

    Raises
    ------
    InvalidParameterError
        If ``order`` is not a permutation of the coflows.
    NotSupportedError
        With unequal port capacities.

    Examples
    --------
    Fig. B.2 of the dissertation (C1 = {1->1, 1->2}, C2 = {2->1, 2->2}, unit flows): one
    coflow after the other gives (2, 4); with backfilling C2 uses, in each of C1's two
    matchings, the ingress-2/egress pair that C1's padding leaves idle, and both end at 2
    (the optimum):

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    >>> [str(c) for c in verify_schedule(inst, bvn(inst, [0, 1]), mode="exact")
    ...  .coflow_completion]
    ['2', '4']
    >>> [str(c) for c in verify_schedule(inst, bvn(inst, [0, 1], backfill=True),
    ...                                  mode="exact").coflow_completion]
    ['2', '2']

    Notes
    -----
    *Guarantee.*  Without backfilling ``C_k = max(r_k, C_{k-1}) + rho_k / c`` exactly.
    *Assumptions.*  Equal capacities.  *Running time.*  One decomposition per coflow, of its
    demand matrix over the ports it uses (a coflow of ``f`` flows: at most ``f x f``; ports
    without demand are zero rows and columns, which change nothing but the padding); each
    term a Hopcroft--Karp matching from scratch, compiled (``engine="compiled"``, the
    default).  The Facebook trace in float (526 coflows of up to 147 x 145 ports, 243,649
    terms, 13 million pieces, streamed by :func:`bvn_windows`) in well under a minute of CPU
    (the networkx engine did not finish in 1,500 s); Fractions, which integral data selects,
    stay slower: 50,000 random coflows of 1-4 flows on 150 x 150 ports in about 25 s of CPU
    (the whole 150 x 150 matrix per coflow took 35 s for 200 of them).  Decompositions are not
    unique: with backfilling, which ports a term leaves idle, hence what later coflows send,
    depends on the one chosen.

    References
    ----------
    Birkhoff (1946); von Neumann (1953); ``proofs/bvn-single-coflow.md``.
    """
    order = validate_order(instance, order)
    return bvn_group_schedule(instance, [[int(k)] for k in order], exact=exact,
                              backfill=backfill, heterogeneous="refuse", engine=engine,
                              meta={"algorithm": "bvn", "order": order.tolist()})


def bvn_windows(instance: Instance, order, on_window, *, backfill: bool = False,
                exact: bool | None = None, engine: str = "compiled",
                window: int = WINDOW_PIECES) -> dict:
    """:func:`bvn` handed over window by window (:func:`bvn_group_windows`), never held: the
    form ``coflowopt schedule`` runs without ``--out`` (``api.RATES_WINDOWS``).

    Parameters
    ----------
    instance, order, backfill, exact, engine
        As for :func:`bvn` (the same checks).
    on_window : callable
        ``on_window(schedule, start, end)``, see :func:`bvn_group_windows`.
    window : int
        Pieces per window (at least).

    Returns
    -------
    dict
        The statistics of :func:`bvn_group_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.5)]), Coflow("B", [(0, 0, 2.5)])])
    >>> ends = []
    >>> st = bvn_windows(inst, [0, 1], lambda s, a, b: ends.append(b), window=1)
    >>> ends, st["pieces"]
    ([1.5, 4.0], 2)
    """
    if not instance.is_big_switch:
        instance.require_big_switch("rates 'bvn'")
    order = validate_order(instance, order)
    _uniform_capacity(instance)
    return bvn_group_windows(instance, [[int(k)] for k in order], on_window, exact=exact,
                             backfill=backfill, heterogeneous="refuse", engine=engine,
                             window=window,
                             meta={"algorithm": "bvn", "order": order.tolist()})
