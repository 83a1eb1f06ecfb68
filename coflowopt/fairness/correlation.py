"""Correlation vectors: a coflow's demand on the 2P links, normalised by capacity (HUG's input).

HUG (Chowdhury's dissertation, Ch. 7) sees each coflow through its *correlation vector*
``d_k = <d_k^1, ..., d_k^{2P}>``: its demand on every uplink and downlink of the fabric, divided
by the link capacity ``C_i`` and (by default) scaled so that the largest component is 1 (Sec.
7.3.1, footnote 2).  ``d_k^i = 0`` means the coflow has no endpoint on link ``i``; ``d_k^i = 1``
marks its bottleneck link(s).

From an instance the vector is computed "using MADD" (Sec. 7.6.1, 7.7.3): MADD sends every flow at
``size / Gamma_k``, so link ``i`` carries ``L_k^i / Gamma_k`` with ``L_k^i`` the coflow's bytes on
it and ``Gamma_k = max_j L_k^j / C_j`` (Eq. 4.1, :attr:`Instance.rho`); as a fraction of the link
that is

    d_k^i = (L_k^i / C_i) / max_j (L_k^j / C_j).

Links use coflowopt's unified port numbering: ingress port ``i`` is link ``i`` and egress port
``j`` is link ``m_in + j`` (the dissertation's uplinks ``1..P`` then downlinks ``P+1..2P``).
On an instance over resources (a topology) the links are the resources, ``L_k^i`` is the data
of the coflow's flows whose path crosses resource ``i`` (:attr:`Instance.port_loads`), and
``Gamma_k = max_j L_k^j / C_j`` is MADD's duration over resources (:attr:`Instance.rho`): HUG
is defined per link in the dissertation (Sec. 7.3.1: a coflow's demand on every link of the
network), so the formula is the same; the big switch is the case of the ``2P`` edge links of a
full-bisection fabric.

Vectors can also be given directly (the dissertation's toy examples are two independent links,
not a big switch), as floats or, for exact arithmetic, as ints / :class:`fractions.Fraction`.

Numbers
-------
Every array here is either float64 or an object array of :class:`~fractions.Fraction`
(``exact=True``).  The fairness functions accept both and keep the kind: with Fractions every
printed number of the dissertation is reproduced exactly.

References
----------
M. Chowdhury, "Coflow: A Networking Abstraction for Distributed Data-Parallel Applications", PhD
dissertation, UC Berkeley, 2015: Sec. 7.1 (correlation vectors), 7.3.1 (notation, footnote 2),
7.6.1 (vectors from MADD), 7.6.3 (weights ``w_k d_k``; bounded demands).  Eq. (4.1) for Gamma.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance

__all__ = ["CorrelationVectors", "correlation_vectors", "as_correlation_vectors",
           "link_names", "to_exact", "is_exact"]


# ----------------------------------------------------------------------------- arithmetic
def is_exact(a: np.ndarray) -> bool:
    """True for an object array of Fractions (exact mode), False for float64."""
    return np.asarray(a).dtype == object


def to_exact(a) -> np.ndarray:
    """An object array of Fractions equal to ``a`` (a float converts exactly: it is dyadic)."""
    arr = np.asarray(a)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1).tolist()):
        flat[i] = Fraction(v)
    return out


def filled(shape, value: int, exact: bool) -> np.ndarray:
    """An array of ``value`` of the requested kind (Fractions when ``exact``)."""
    if exact:
        out = np.empty(shape, dtype=object)
        out.fill(Fraction(value))
        return out
    return np.full(shape, float(value))


def zeros(shape, exact: bool) -> np.ndarray:
    """Zeros of the requested kind."""
    return filled(shape, 0, exact)


def ones(shape, exact: bool) -> np.ndarray:
    """Ones of the requested kind."""
    return filled(shape, 1, exact)


def link_names(num_links: int, num_ingress: int | None) -> list[str]:
    """Human names of the links: ``in{i}`` / ``out{j}`` for an instance, ``L{i+1}`` otherwise
    (the dissertation numbers links from 1)."""
    if num_ingress is None:
        return [f"L{i + 1}" for i in range(num_links)]
    return [f"in{i}" if i < num_ingress else f"out{i - num_ingress}" for i in range(num_links)]


# ----------------------------------------------------------------------------- the vectors
@dataclass(frozen=True, eq=False)
class CorrelationVectors:
    """Correlation vectors of K coflows on L links (HUG's input).

    Attributes
    ----------
    d : ndarray, shape (K, L)
        The normalised correlation vectors (float64 or object array of Fractions).  Each row has
        at least one positive entry; with the default normalisation its largest entry is 1.
        Progress is always measured against these vectors (unweighted).
    ids : tuple of str
        Coflow names.
    weight : ndarray, shape (K,)
        Coflow weights ``w_k >= 0`` (same kind as ``d``).
    weighted : bool
        Whether allocations use ``w_k d_k`` instead of ``d_k`` (Sec. 7.6.3).
    demand : ndarray (K, L) or None
        Bounded demands as fractions of link capacity (Sec. 7.6.3 "Bounded Demands"): a coflow
        can never use more than ``demand[k, i]`` of link ``i``.  ``None`` means elastic coflows
        (the default and the setting of Eq. 7.2).  When given, ``d = demand / max(demand)``.
    num_ingress : int or None
        For vectors computed from a big-switch instance: ``m_in`` (links ``0..m_in-1`` are
        ingress ports, the rest egress ports).  ``None`` for abstract links given directly and
        for resources.
    capacity : ndarray (L,) or None
        Link capacities (data units per time unit) when computed from an instance.
    meta : dict
        Provenance (source, whether computed from remaining sizes, ...).
    link_ids : tuple of str or None
        Names of the links when they are the resources of an instance on a topology
        (:attr:`Instance.resource_names`); ``None`` otherwise (names from ``num_ingress``).
    """

    d: np.ndarray
    ids: tuple
    weight: np.ndarray
    weighted: bool = False
    demand: np.ndarray | None = None
    num_ingress: int | None = None
    capacity: np.ndarray | None = None
    meta: dict = field(default_factory=dict)
    link_ids: tuple | None = None

    @property
    def num_coflows(self) -> int:
        return int(self.d.shape[0])

    @property
    def num_links(self) -> int:
        return int(self.d.shape[1])

    @property
    def exact(self) -> bool:
        return is_exact(self.d)

    @property
    def bounded(self) -> bool:
        return self.demand is not None

    @property
    def links(self) -> list[str]:
        if self.link_ids is not None:
            return list(self.link_ids)
        return link_names(self.num_links, self.num_ingress)

    def scaled(self) -> np.ndarray:
        """The vectors the allocation uses: ``w_k d_k`` if weighted, else ``d_k`` (Sec. 7.6.3)."""
        if not self.weighted:
            return self.d
        return self.d * self.weight[:, None]

    def with_d(self, d, *, demand=None) -> "CorrelationVectors":
        """A copy with other (already validated) vectors, e.g. a misreport of one coflow."""
        return replace(self, d=d, demand=demand)

    def as_exact(self) -> "CorrelationVectors":
        """The same vectors as exact Fractions (floats convert exactly)."""
        if self.exact:
            return self
        return replace(self, d=to_exact(self.d), weight=to_exact(self.weight),
                       demand=None if self.demand is None else to_exact(self.demand))

    def as_float(self) -> "CorrelationVectors":
        """The same vectors in float64."""
        if not self.exact:
            return self
        f = lambda a: np.asarray(a, dtype=float)  # noqa: E731
        return replace(self, d=f(self.d), weight=f(self.weight),
                       demand=None if self.demand is None else f(self.demand))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: sparse vectors ``{link: value}`` (exact values as ``"p/q"``)."""
        from .._numbers import plain_number
        names = self.links
        return {"links": names, "weighted": self.weighted, "bounded": self.bounded,
                "coflows": [{"id": cid, "weight": plain_number(self.weight[k]),
                             "d": {names[i]: plain_number(v) for i, v in enumerate(self.d[k])
                                   if v != 0}}
                            for k, cid in enumerate(self.ids)]}


def _normalise_rows(a: np.ndarray) -> np.ndarray:
    m = a.max(axis=1)
    return a / m[:, None]


def correlation_vectors(instance: Instance, *, weighted: bool = False, exact: bool = False,
                        coflows: Sequence[int] | None = None,
                        remaining: np.ndarray | None = None) -> CorrelationVectors:
    """Correlation vectors of an instance's coflows, from MADD (Sec. 7.6.1).

    Parameters
    ----------
    instance : Instance
    weighted : bool
        Use ``w_k d_k`` in the allocations (the instance's weights; Sec. 7.6.3).
    exact : bool
        Compute in Fractions (floats convert exactly).
    coflows : sequence of int, optional
        Only these coflows (e.g. the active ones of a simulation), in this order.
    remaining : ndarray (F,), optional
        Remaining size of every flow; the vectors then describe what is left (a finished flow
        has 0).  Default: the full sizes.

    Returns
    -------
    CorrelationVectors
        ``d_k^i = (L_k^i / C_i) / max_j (L_k^j / C_j)`` on the ``m_in + m_out`` ports of a big
        switch, on the resources (links) of a topology.

    Raises
    ------
    InvalidParameterError
        If ``remaining`` has the wrong shape or is negative, or a selected coflow has nothing
        left to send.

    Examples
    --------
    The 3x3 fabric of Fig. 7.2 (sizes chosen so that the MADD vectors are the printed ones):

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([
    ...     Coflow("A", [(0, 0, 3), (1, 0, 3), (1, 1, 3)]),
    ...     Coflow("B", [(0, 1, 6), (1, 2, 1)])], num_ingress=3, num_egress=3)
    >>> cv = correlation_vectors(inst, exact=True)
    >>> [str(x) for x in cv.d[0]], [str(x) for x in cv.d[1]]
    (['1/2', '1', '0', '1', '1/2', '0'], ['1', '1/6', '0', '0', '1', '1/6'])

    On a line ``a -(1)- s -(2)- b``: a coflow with flows a->b (2 units, links 0 and 1) and
    s->b (3 units, link 1) has loads 2 and 5, i.e. 2/1 and 5/2 per capacity:

    >>> line = Instance.from_paths(resource_capacity=[1.0, 2.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0], flow_src=[0, 1], flow_dst=[2, 2], flow_size=[2.0, 3.0],
    ...     path_ptr=[0, 2, 3], path_resource=[0, 1, 1], host_ids=["a", "s", "b"],
    ...     resource_ids=["a-s", "s-b"])
    >>> cv = correlation_vectors(line, exact=True)
    >>> [str(x) for x in cv.d[0]], cv.links
    (['4/5', '1'], ['a-s', 's-b'])
    """
    K = instance.num_coflows
    idx = np.arange(K) if coflows is None else np.asarray(coflows, dtype=np.int64)
    if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= K)):
        raise InvalidParameterError(f"coflows must be indices in 0..{K - 1}")
    if remaining is None:
        loads = instance.port_loads[idx]
    else:
        rem = np.asarray(remaining, dtype=float)
        if rem.shape != (instance.num_flows,):
            raise InvalidParameterError(f"remaining must have shape ({instance.num_flows},), "
                                        f"got {rem.shape}")
        if np.any(rem < 0) or not np.all(np.isfinite(rem)):
            raise InvalidParameterError("remaining sizes must be finite and >= 0")
        loads = _loads(instance, idx, rem)
    cap = instance.capacity
    if exact:
        norm = to_exact(loads) / to_exact(cap)[None, :]
    else:
        norm = loads / cap[None, :]
    empty = np.flatnonzero(~(loads > 0).any(axis=1))
    if empty.size:
        raise InvalidParameterError(
            f"coflow {instance.coflow_ids[idx[empty[0]]]!r} has nothing left to send: it has "
            "no correlation vector (remaining)")
    d = _normalise_rows(norm)
    w = instance.weight[idx]
    big = instance.is_big_switch
    return CorrelationVectors(d=d, ids=tuple(instance.coflow_ids[i] for i in idx),
                              weight=to_exact(w) if exact else np.array(w, dtype=float),
                              weighted=weighted,
                              num_ingress=instance.num_ingress if big else None,
                              capacity=np.array(cap),
                              meta={"source": "instance (MADD)", "coflows": idx.tolist(),
                                    "remaining": remaining is not None},
                              link_ids=None if big else tuple(instance.resource_names))


def _loads(instance: Instance, idx: np.ndarray, rem: np.ndarray) -> np.ndarray:
    """Bytes left of coflows ``idx`` on every port (every resource of their flows' paths on
    a topology), shape (len(idx), P) (vectorised)."""
    P = instance.num_ports
    pos = np.full(instance.num_coflows, -1, dtype=np.int64)
    pos[idx] = np.arange(idx.size)
    row = pos[instance.flow_coflow]
    sel = row >= 0
    if instance.is_big_switch:
        rows = np.concatenate([row[sel], row[sel]])
        cols = np.concatenate([instance.flow_src[sel], instance.flow_egress_port[sel]])
        vals = np.concatenate([rem[sel], rem[sel]])
    else:
        length = instance.path_length
        on = np.repeat(sel, length)
        rows = np.repeat(row, length)[on]
        cols = instance.flow_resource[on]
        vals = np.repeat(rem, length)[on]
    return np.bincount(rows * P + cols, weights=vals, minlength=idx.size * P).reshape(idx.size, P)


def _coerce(value, what: str, exact: bool):
    if isinstance(value, bool):
        raise InvalidParameterError(f"{what} must be a number, got {value!r}")
    if exact:
        if isinstance(value, str):
            try:
                return Fraction(value)
            except ValueError:
                raise InvalidParameterError(f"{what} must be a number, got {value!r}") from None
        if isinstance(value, (numbers.Rational, float, np.floating, np.integer)):
            return Fraction(value)
        raise InvalidParameterError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what} must be a number, got {value!r}") from None


def as_correlation_vectors(vectors, *, ids: Sequence[str] | None = None, weights=None,
                           weighted: bool | None = None, normalize: bool = True,
                           bounded: bool = False, exact: bool | None = None,
                           num_ingress: int | None = None) -> CorrelationVectors:
    """Correlation vectors given directly (the dissertation's toy examples).

    Parameters
    ----------
    vectors : CorrelationVectors or array_like, shape (K, L)
        One row per coflow: its demand on each link as a fraction of the link's capacity.
    ids : sequence of str, optional
        Coflow names (default ``A, B, C, ...`` up to 26 coflows, then ``C0, C1, ...``).
    weights : array_like (K,), optional
        Weights ``w_k >= 0`` (default 1).
    weighted : bool, optional
        Use ``w_k d_k`` (default: True exactly when ``weights`` is given).
    normalize : bool
        Scale each row so that its largest entry is 1 (the dissertation's default convention).
        Ignored when ``bounded``.
    bounded : bool
        The rows are *bounded demands* (fractions of link capacity the coflow can use at most,
        Sec. 7.6.3); allocations then use multi-round DRF.  The normalised vectors used for
        progress are ``row / max(row)``.
    exact : bool, optional
        Compute in Fractions.  Default: True when every entry is an int, a Fraction or a string
        such as ``"1/6"``; False when any is a float.
    num_ingress : int, optional
        Mark the first ``num_ingress`` links as ingress ports (for naming only).

    Returns
    -------
    CorrelationVectors

    Raises
    ------
    InvalidParameterError
        If the array is not two-dimensional, an entry is negative or not finite, a row is all
        zero, or ``ids``/``weights`` do not match.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> cv = as_correlation_vectors([[F(1, 2), 1], [1, F(1, 6)]])
    >>> cv.ids, cv.exact, [str(x) for x in cv.d[1]]
    (('A', 'B'), True, ['1', '1/6'])
    """
    if isinstance(vectors, CorrelationVectors):
        return vectors
    rows = [list(r) for r in vectors] if not isinstance(vectors, np.ndarray) else \
        [list(r) for r in (vectors if vectors.ndim == 2 else [vectors])]
    if not rows or any(len(r) != len(rows[0]) for r in rows) or len(rows[0]) == 0:
        raise InvalidParameterError("vectors must be a non-empty (K, L) table: one row per "
                                    "coflow, one entry per link, every row the same length")
    K, L = len(rows), len(rows[0])
    flat = [v for r in rows for v in r]
    if exact is None:
        exact = all(isinstance(v, (numbers.Rational, str, np.integer)) and not isinstance(v, bool)
                    for v in flat)
    vals = [_coerce(v, f"vectors[{i // L}][{i % L}]", exact) for i, v in enumerate(flat)]
    arr = np.empty((K, L), dtype=object) if exact else np.empty((K, L))
    arr.reshape(-1)[:] = vals
    for i, v in enumerate(vals):
        if not (v >= 0) or (not exact and not np.isfinite(v)):
            raise InvalidParameterError(f"vectors[{i // L}][{i % L}] must be a finite number "
                                        f">= 0, got {v!r}")
    zero_rows = [k for k in range(K) if not any(v > 0 for v in arr[k])]
    if zero_rows:
        raise InvalidParameterError(f"vectors[{zero_rows[0]}] is all zero: a coflow must demand "
                                    "some link")
    if ids is None:
        ids = [chr(ord("A") + k) for k in range(K)] if K <= 26 else [f"C{k}" for k in range(K)]
    ids = tuple(str(i) for i in ids)
    if len(ids) != K or len(set(ids)) != K:
        raise InvalidParameterError(f"ids must be {K} distinct names, got {list(ids)}")
    if weighted is None:
        weighted = weights is not None
    if weights is None:
        w = [1] * K
    else:
        w = list(weights)
        if len(w) != K:
            raise InvalidParameterError(f"weights must have {K} entries (one per coflow), got "
                                        f"{len(w)}")
    wv = [_coerce(v, f"weights[{k}]", exact) for k, v in enumerate(w)]
    for k, v in enumerate(wv):
        if not (v >= 0) or (not exact and not np.isfinite(v)):
            raise InvalidParameterError(f"weights[{k}] must be a finite number >= 0, got {v!r}")
    weight = np.empty(K, dtype=object) if exact else np.empty(K)
    weight[:] = wv
    if weighted and not any(v > 0 for v in wv):
        raise InvalidParameterError("weights must not all be zero when weighted")
    if num_ingress is not None and not 0 <= num_ingress <= L:
        raise InvalidParameterError(f"num_ingress must be in 0..{L}, got {num_ingress}")
    demand = None
    if bounded:
        demand = arr
        d = _normalise_rows(arr)
    else:
        d = _normalise_rows(arr) if normalize else arr
    return CorrelationVectors(d=d, ids=ids, weight=weight, weighted=bool(weighted), demand=demand,
                              num_ingress=num_ingress,
                              meta={"source": "given", "normalized": bool(normalize or bounded)})
