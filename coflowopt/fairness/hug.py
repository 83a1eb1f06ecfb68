"""HUG's optimal isolation guarantee P* in closed form (Eq. 7.2) and the guaranteed allocations.

For elastic coflows whose correlation vectors ``d_k`` are normalised by link capacity, the
largest isolation guarantee any allocation can give (``max min_k P_k`` with progress
``P_k = min_{i: d_k^i > 0} a_k^i / d_k^i``) is

    P* = 1 / max_i sum_k d_k^i                                                  (Eq. 7.2)

and it is reached by the guaranteed allocations ``a_k = P* d_k``: the DRF allocation, HUG's Stage
1 (Algorithm 6).  Weighted coflows use ``w_k d_k`` in place of ``d_k`` (Sec. 7.6.3), so that
``P_k = P* w_k``.  The proof of optimality is in ``proofs/hug-pstar-optimal.md`` and the max-min
LP whose optimum it equals in ``formulations/hug-maxmin-lp.md`` (:mod:`.lp` builds it).

With *bounded* demands the closed form does not apply (Sec. 7.6.3); use
:func:`coflowopt.fairness.drf.multi_round_drf`.

Links are whatever the vectors are over: the ``m_in + m_out`` ports of a big switch, or the
resources (links) of a topology (:func:`~coflowopt.fairness.correlation.correlation_vectors`).
HUG is stated per link of a network in the dissertation (Sec. 7.3.1), so Eq. (7.2), Stage 1 and
Stage 2 apply to resources unchanged.

References
----------
Chowdhury's dissertation, Sec. 7.5.2 (Algorithm 6), 7.6.1 (Eq. 7.2), 7.6.3 (weights, bounded
demands), App. D.3 (proof of Thm D.3.3: the system bottleneck ``b = argmax_i sum_k d_k^i``,
``D_b >= 1`` and every coflow's progress ``1 / D_b``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError, NotSupportedError
from .correlation import CorrelationVectors, as_correlation_vectors

__all__ = ["link_sums", "optimal_isolation_guarantee", "guaranteed_allocation",
           "system_bottlenecks", "stage2_caps"]


def _cv(vectors) -> CorrelationVectors:
    return as_correlation_vectors(vectors)


def link_sums(vectors) -> np.ndarray:
    """``D_i = sum_k d_k^i`` (of ``w_k d_k`` when weighted) for every link, shape (L,)."""
    return _cv(vectors).scaled().sum(axis=0)


def optimal_isolation_guarantee(vectors) -> Any:
    """P* = 1 / max_i sum_k d_k^i (Eq. 7.2), exact when the vectors are Fractions.

    Parameters
    ----------
    vectors : CorrelationVectors or array_like (K, L)
        Elastic correlation vectors (array-likes are normalised to max 1 per row).

    Returns
    -------
    Fraction or float

    Raises
    ------
    NotSupportedError
        For bounded demands (the closed form assumes coflows scale along ``d_k``; use
        :func:`~coflowopt.fairness.drf.multi_round_drf`).
    InvalidParameterError
        If every link sum is 0 (all weights 0).

    Examples
    --------
    The two-link example of Fig. 7.1 (link sums 3/2 and 7/6):

    >>> from fractions import Fraction as F
    >>> optimal_isolation_guarantee([[F(1, 2), 1], [1, F(1, 6)]])
    Fraction(2, 3)

    Notes
    -----
    ``P* <= 1`` whenever some coflow has a component 1 on the bottleneck (``D_b >= 1``).  O(KL).
    """
    cv = _cv(vectors)
    if cv.bounded:
        raise NotSupportedError("the closed form P* = 1/max_i sum_k d_k^i (Eq. 7.2) assumes "
                                "elastic coflows; bounded demands need multi-round DRF "
                                "(coflowopt.fairness.drf.multi_round_drf)")
    top = link_sums(cv).max()
    if not top > 0:
        raise InvalidParameterError("every link sum is 0 (all weights 0?): P* is undefined")
    return 1 / top


def guaranteed_allocation(vectors) -> np.ndarray:
    """HUG's Stage 1 / DRF allocation ``a_k = P* d_k`` (``P* w_k d_k`` weighted), shape (K, L).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> a = guaranteed_allocation([[F(1, 2), 1], [1, F(1, 6)]])
    >>> [[str(x) for x in row] for row in a]
    [['1/3', '2/3'], ['2/3', '1/9']]
    """
    cv = _cv(vectors)
    return optimal_isolation_guarantee(cv) * cv.scaled()


def system_bottlenecks(vectors) -> np.ndarray:
    """The links attaining ``max_i sum_k d_k^i`` (the proof of Thm D.3.3's link ``b``)."""
    s = link_sums(vectors)
    return np.flatnonzero(s == s.max())


def stage2_caps(guaranteed: np.ndarray) -> np.ndarray:
    """HUG's Stage 2 bound per coflow: ``max_j a_k^j`` (shape (K,)).

    Algorithm 6 states the cap as ``c_k^i <= P*``; the proof of Thm D.3.3 as
    ``c_k^i <= max_j a_k^j``.  They agree under max-1 normalisation; the second is the general
    one (unnormalised or weighted vectors: ``P* max_j w_k d_k^j``; bounded demands: the coflow's
    largest multi-round DRF share), so it is the one used.
    """
    return guaranteed.max(axis=1)
