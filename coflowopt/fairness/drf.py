"""Max-min building blocks: multi-round DRF, per-link water-filling, per-flow progressive filling.

Three max-min procedures, each exact on Fractions (zero tolerance) and vectorised on
float64 (relative tolerance :data:`FLOAT_RTOL`, only to decide *which* constraint became tight):

:func:`multi_round_drf`
    DRF with bounded demands ("multi-round DRF", the dissertation's [166, Algorithm 1], Sec.
    7.6.3): every unfrozen coflow's dominant share rises at the same speed (``w_k`` times it when
    weighted); a coflow freezes when a link it uses saturates or when it reaches its demand.
    With elastic demands and every coflow on the system bottleneck, one round gives the closed
    form of Eq. (7.2).
:func:`water_fill`
    One link's spare divided max-min among eligible coflows, each up to its headroom (HUG's
    Stage 2 "local max-min fairness subject to coflow-specific upper bounds", Sec. 7.6.1).
:func:`flow_max_min`
    Per-flow max-min fairness on the big switch: every flow is a user of its ingress and its
    egress port (classic progressive filling, Bertsekas & Gallager, Data Networks, Sec. 6.5.2),
    by the project's one progressive filling, :func:`coflowopt.maxmin.progressive_filling`
    (also behind :func:`coflowopt.policies.flow_level.max_min_rates`, which the fairness
    module uses on resources).

References
----------
Chowdhury's dissertation, Sec. 7.1 (max-min fairness, DRF), 7.6.1 (Stage 2 enforcement), 7.6.3
(bounded demands and multi-round DRF; "similar to max-min fairness in a single link when one flow
has a smaller demand than its 1/n-th share").  Reference [166] of the dissertation is not in our
copy of its text; the closed form and the multi-round algorithm for bounded demands are those of
Parkes, Procaccia and Shah, "Beyond Dominant Resource Fairness", EC 2012 (attribution inferred
from the HUG paper, not verified against [166]).  A. Ghodsi et al., "Dominant Resource
Fairness", NSDI 2011 (progressive filling).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exceptions import InvalidParameterError
from ..maxmin import progressive_filling
from .correlation import CorrelationVectors, as_correlation_vectors, is_exact, ones, zeros

__all__ = ["FLOAT_RTOL", "DRFResult", "multi_round_drf", "water_fill", "flow_max_min"]

#: Relative tolerance of the float paths when deciding that a link is saturated.
FLOAT_RTOL = 1e-12


def _tight(value, bound, exact: bool):
    """``value >= bound`` up to the float tolerance (exactly for Fractions)."""
    if exact:
        return np.asarray(value >= bound, dtype=bool)
    return np.asarray(value >= bound - FLOAT_RTOL * np.maximum(1.0, np.abs(bound)), dtype=bool)


@dataclass(frozen=True)
class DRFResult:
    """Outcome of :func:`multi_round_drf`.

    Attributes
    ----------
    allocation : ndarray (K, L)
        ``a_k = x_k d_k`` (fractions of link capacity).
    share : ndarray (K,)
        ``x_k``: the coflow's progress along its normalised vector (its dominant share).
    rounds : list of dict
        Per round: the level reached, the coflows frozen and why (``"link"`` / ``"demand"``).
    """

    allocation: np.ndarray
    share: np.ndarray
    rounds: list


def multi_round_drf(vectors, *, max_rounds: int | None = None) -> DRFResult:
    """Multi-round DRF (progressive filling with demand caps), HUG's Stage 1 for bounded demands.

    Every unfrozen coflow ``k`` holds ``x_k d_k`` with ``x_k = w_k s`` (``s`` for unweighted
    vectors) for a common level ``s`` that rises until a link saturates (every coflow using it
    freezes) or a coflow reaches its demand ``x_k = max_i demand_k^i`` (it freezes, satisfied).
    Repeats with the residual capacity until every coflow is frozen.

    Parameters
    ----------
    vectors : CorrelationVectors or array_like
        Bounded (``demand`` set) or elastic vectors.  Elastic coflows have no demand cap: a coflow
        only freezes on a saturated link.
    max_rounds : int, optional
        Safety bound (default ``K + L + 1``; each round freezes at least one coflow).

    Returns
    -------
    DRFResult

    Raises
    ------
    InvalidParameterError
        If the rounds do not terminate (cannot happen with valid input).

    Examples
    --------
    One link, demands 0.1, 0.5 and 0.8: the small flow gets its demand and the others split the
    rest (max-min fairness with demands):

    >>> from fractions import Fraction as F
    >>> from coflowopt.fairness import as_correlation_vectors
    >>> r = multi_round_drf(as_correlation_vectors([[F(1, 10)], [F(1, 2)], [F(4, 5)]],
    ...                                            bounded=True))
    >>> [str(x) for x in r.allocation[:, 0]]
    ['1/10', '9/20', '9/20']

    Notes
    -----
    With elastic demands the first round is Eq. (7.2): level ``P* = 1 / max_i sum_k d_k^i``.
    Later rounds raise coflows that do not touch a saturated link; HUG's elastic Stage 1 stops
    after the first round (every coflow gets ``P* d_k``, Sec. 7.6.1) and hands the rest to Stage
    2.  At most ``K`` rounds of O(KL) each.
    """
    cv: CorrelationVectors = as_correlation_vectors(vectors)
    exact = cv.exact
    K, L = cv.d.shape
    d = cv.d
    w = cv.weight if cv.weighted else ones(K, exact)
    dem_max = cv.demand.max(axis=1) if cv.bounded else None
    alloc = zeros((K, L), exact)
    share = zeros(K, exact)
    active = np.array([bool(v > 0) for v in w])  # a zero-weight coflow gets nothing
    used = zeros(L, exact)
    rounds: list[dict] = []
    limit = max_rounds if max_rounds is not None else K + L + 1
    while active.any():
        if len(rounds) >= limit:
            raise InvalidParameterError(f"multi-round DRF did not finish in {limit} rounds")
        rate = (d[active] * w[active][:, None]).sum(axis=0)
        on = np.flatnonzero(np.array([bool(v > 0) for v in rate]))
        s_link = (1 - used[on]) / rate[on]
        cands = list(s_link)
        if cv.bounded:
            s_dem = dem_max[active] / w[active]
            cands += list(s_dem)
        s = min(cands)
        full = on[_tight(s, s_link, exact)] if on.size else on
        why = np.zeros(K, dtype=object)
        freeze = np.zeros(K, dtype=bool)
        if full.size:
            hit = (d[:, full] > 0).any(axis=1) & active
            freeze |= hit
            why[hit] = "link"
        if cv.bounded:
            act = np.flatnonzero(active)
            sat = act[_tight(s, s_dem, exact)]
            freeze[sat] = True
            why[sat] = "demand"
        if not freeze.any():  # pragma: no cover - s is attained by some candidate
            raise InvalidParameterError("multi-round DRF made no progress")
        fk = np.flatnonzero(freeze)
        share[fk] = w[fk] * s
        alloc[fk] = d[fk] * share[fk][:, None]
        used = alloc.sum(axis=0)
        active &= ~freeze
        rounds.append({"level": s, "frozen": fk.tolist(),
                       "why": {int(k): why[k] for k in fk}, "saturated_links": full.tolist()})
    return DRFResult(allocation=alloc, share=share, rounds=rounds)


def water_fill(headroom, spare, *, count: int | None = None) -> np.ndarray:
    """Divide ``spare`` max-min among coflows, each receiving at most its ``headroom``.

    Parameters
    ----------
    headroom : ndarray (n,) or None
        How much more each eligible coflow may take; ``None`` means unbounded (then pass
        ``count``, and everyone gets ``spare / count``).
    spare : number
        Capacity to divide (>= 0).
    count : int, optional
        Number of coflows when ``headroom`` is None.

    Returns
    -------
    ndarray (n,)
        Increments ``min(headroom_k, level)`` with the largest level whose sum is at most
        ``spare``; what the headrooms cannot absorb stays unallocated.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> import numpy as np
    >>> [str(x) for x in water_fill(np.array([F(0), F(5, 12)], dtype=object), F(5, 12))]
    ['0', '5/12']
    """
    if headroom is None:
        if not count:
            return np.zeros(0)
        out = np.empty(count, dtype=object if isinstance(spare, Fraction) else float)
        out[:] = spare / count
        return out
    h = np.asarray(headroom)
    n = h.size
    exact = is_exact(h)
    if n == 0 or not spare > 0:
        return zeros(n, exact)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    prefix = np.concatenate([zeros(1, exact), np.cumsum(hs)[:-1]])
    # filling everyone up to the j-th smallest headroom costs prefix_j + h_j (n - j)
    need = prefix + hs * np.arange(n, 0, -1)
    enough = np.flatnonzero(np.array([bool(v >= spare) for v in need]))
    if enough.size == 0:
        return h.copy()
    j = int(enough[0])
    level = (spare - prefix[j]) / (n - j)
    return np.minimum(h, level)


def flow_max_min(src_port: np.ndarray, dst_port: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Per-flow max-min fair rates on the big switch (progressive filling).

    Every flow uses its ingress port ``src_port[f]`` and its egress port ``dst_port[f]``
    (unified numbering); all flows are elastic.  All rates rise together; when a port saturates,
    its flows freeze.

    Parameters
    ----------
    src_port, dst_port : ndarray of int (F,)
        Ports in the unified numbering (egress port ``j`` is ``m_in + j``).
    capacity : ndarray (P,)
        Port capacities, float64 or Fractions (the rates have the same kind).

    Returns
    -------
    ndarray (F,)

    Examples
    --------
    Two flows share ingress 0, one of them also shares egress 0 with a third flow (unit ports):

    >>> import numpy as np
    >>> flow_max_min(np.array([0, 0, 1]), np.array([2, 3, 2]), np.ones(4)).tolist()
    [0.5, 0.5, 0.5]

    Notes
    -----
    At most ``P`` rounds of O(F + P): :func:`coflowopt.maxmin.progressive_filling` (the one
    implementation) over the incidence "flow f uses ports ``src_port[f]`` and ``dst_port[f]``".
    """
    n = np.asarray(src_port).size
    row = np.concatenate([np.arange(n), np.arange(n)])
    col = np.concatenate([np.asarray(src_port), np.asarray(dst_port)])
    return progressive_filling(row, col, n, np.asarray(capacity))
